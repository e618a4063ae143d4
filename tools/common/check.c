/*
 * check.c: one golden case against one implementation, in every split mode.
 */
#include "check.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "bytes.h"
#include "jsonw.h"
#include "reference.h"

const char session_absent_message[] =
    "the implementation does not implement streaming sessions: it answers a request with "
    "\"stream\": true with one batch answer. Answer {\"ok\": false, \"error\": {\"code\": "
    "\"unsupported\"}} to such requests (the streaming split modes are then skipped), or "
    "implement conformance/FORMAT.md \"Streaming sessions\": a line per feed with its "
    "\"feed\" number, then one with \"feed\": \"finish\"";

void check_opts_default(check_opts *o) {
  memset(o, 0, sizeof *o);
  split_params_default(&o->sp);
  o->latency = LAT_FAIL;
  o->minimize_budget = 400;
  o->window = 16;
  o->modes = (1u << M_COUNT) - 1;
}

/* ---------------- targets ---------------- */

void target_init(target *t, const char *cmd, const impl_opts *io) {
  memset(t, 0, sizeof *t);
  t->cmd = cmd;
  if (io) t->io = *io;
  t->io.cmd = cmd;
  t->next_id = 1;
  if (sluice_output_new(&t->lockstep, NULL) != SLUICE_OK) die("out of memory");
  if (!cmd && proto_server_init(&t->ps, 0)) die("out of memory");
}

void target_free(target *t) {
  if (t->running) impl_stop(&t->im);
  t->running = 0;
  if (!t->cmd) proto_server_free(&t->ps);
  sluice_output_free(t->lockstep);
  tstrs_free(&t->queue);
  free(t->handed);
  tbuf_free(&t->setup_msg);
}

static int queue_line(void *user, const char *line, size_t n) {
  target *t = user;
  tstrs_push(&t->queue, xstrndup(line, n));
  return 0;
}

/* Starts an external target on first use. -1 (and setup_error) when the
 * shell cannot even be started. */
static int target_ensure(target *t) {
  if (!t->cmd || t->running) return 0;
  if (impl_start(&t->im, &t->io)) {
    t->setup_error = 1;
    tbuf_xprintf(&t->setup_msg, "cannot start \"%s\": %s", t->cmd, strerror(errno));
    return -1;
  }
  t->running = 1;
  return 0;
}

static void target_send(target *t, const char *line, size_t n) {
  if (!t->cmd) {
    proto_serve(&t->ps, line, n, queue_line, t);
    return;
  }
  if (target_ensure(t) == 0) impl_send(&t->im, line, n);
}

/* A fresh process for what follows (after lines that left the answer
 * stream out of step). */
static void target_restart(target *t) {
  if (t->cmd && t->running) {
    impl_stop(&t->im);
    t->running = 0;
  }
}

static enum impl_event target_next(target *t, char **line, size_t *n) {
  if (!t->cmd) {
    free(t->handed); /* the line handed out last time */
    t->handed = NULL;
    if (t->qhead == t->queue.n) return IMPL_DIED; /* cannot happen: every request is answered */
    *line = t->handed = t->queue.v[t->qhead];
    t->queue.v[t->qhead++] = NULL;
    if (t->qhead == t->queue.n) t->queue.n = t->qhead = 0; /* drained: start over */
    *n = strlen(*line);
    t->ever_answered = 1;
    return IMPL_LINE;
  }
  if (!t->running) return IMPL_DIED;
  enum impl_event ev = impl_next_line(&t->im, line, n);
  if (ev == IMPL_LINE) t->ever_answered = 1;
  return ev;
}

/* ---------------- one case ---------------- */

typedef struct cctx {
  target *t;
  const tcase *c;
  const check_opts *o;
  case_result *r;
  const answer *ref; /* what every chunking must give */
  answer whole;      /* i_ cases: the implementation's whole-input answer */
  int have_whole;
  int failed_once; /* the case's first failure has been minimized */
  int restarts;
  size_t bad_lines; /* lines that answered nothing */
  tbuf good;        /* the body of an answer line judged equal (see fast_equal) */
  int aborted; /* setup error, deadline, or an implementation that keeps dying */
  int mode_over; /* the current mode is decided: the rest of its chunkings are not run */
  split_mode mode;
  diff_opts d;
} cctx;

static _Atomic int *sessions_of(cctx *x) {
  return x->o->sessions ? x->o->sessions : &x->t->sessions;
}

static void failure_head(cctx *x, const char *fmt, const char *arg) {
  if (x->r->summary) return;
  tbuf b = {0};
  tbuf_xprintf(&b, fmt, arg);
  x->r->summary = tbuf_take(&b, NULL);
}

/* The current mode's failure record, begun with kind k if it is the
 * mode's first: the mode and the case fail. */
static mode_failure *fail_rec(cctx *x, fail_kind k) {
  mode_stat *ms = &x->r->modes[x->mode];
  x->r->status = CASE_FAIL;
  ms->failed = 1;
  if (ms->fail.kind == FK_NONE) ms->fail.kind = k;
  return &ms->fail;
}

/* The first difference's fields into a record that has none yet. */
static void take_fields(mode_failure *f, diff_first *d) {
  if (!f->field && d->field) {
    f->field = d->field;
    f->expected = d->expected;
    f->actual = d->actual;
    memset(d, 0, sizeof *d);
  }
  diff_first_free(d);
}

static void set_field(mode_failure *f, const char *field, const char *exp, const char *act) {
  diff_first d = {xstrdup(field), exp ? xstrdup(exp) : NULL, act ? xstrdup(act) : NULL};
  take_fields(f, &d);
}

static void set_chunks(mode_failure *f, const chunking *k, int minimized) {
  if (f->has_chunks) return;
  chunking_copy(&f->chunks, k);
  f->has_chunks = 1;
  f->minimized = minimized;
}

/* A problem with the answer stream itself (not with one answer's content):
 * its own failure, with the line that shows it. */
static void framing_failure(cctx *x, const char *what, const char *line, size_t n) {
  mode_failure *f = fail_rec(x, FK_PROTOCOL);
  x->r->troubles++;
  if (++x->bad_lines > 5) {
    if (x->bad_lines == 6)
      tbuf_xadds(&f->report, "(more lines of that kind follow; not shown)\n");
    if (x->bad_lines > 1000 && !x->aborted) {
      x->aborted = 1;
      tbuf_xadds(&f->report, "more than 1000 lines that answer nothing: the rest of the case "
                             "was not run\n");
      target_restart(x->t);
    }
    return;
  }
  tbuf_xprintf(&f->report, "split mode %s: %s", split_mode_names[x->mode], what);
  tbuf shown = {0};
  if (line) bytes_show(&shown, line, n, 300);
  if (line) tbuf_xprintf(&f->report, ": %s", shown.p);
  tbuf_xadds(&f->report, "\n");
  set_field(f, "line", NULL, line ? shown.p : what);
  tbuf_free(&shown);
  failure_head(x, "%s", what);
}

static char *request_line(const tcase *c, const chunking *k, int64_t id, int stream, size_t *len) {
  int utf8 = 1;
  size_t off = 0;
  for (size_t i = 0; i < k->n && utf8; i++) {
    utf8 = sluice_utf8_valid(c->input.p + off, k->len[i]);
    off += k->len[i];
  }
  tbuf b = {0};
  jsonw w;
  jw_init(&w, &b);
  jw_begin_object(&w);
  jw_key(&w, "id");
  jw_int(&w, id);
  jw_key(&w, "filter");
  jw_string(&w, c->filter, strlen(c->filter));
  jw_key(&w, "options");
  jw_raw(&w, c->options, strlen(c->options));
  if (stream) {
    jw_key(&w, "stream");
    jw_bool(&w, 1);
  }
  jw_key(&w, utf8 ? "chunks" : "chunks_b64");
  jw_begin_array(&w);
  off = 0;
  for (size_t i = 0; i < k->n; i++) {
    if (utf8) {
      jw_string(&w, c->input.p + off, k->len[i]);
    } else {
      char *s = b64_encode(c->input.p + off, k->len[i]);
      if (!s) die("out of memory");
      jw_string(&w, s, strlen(s));
      free(s);
    }
    off += k->len[i];
  }
  jw_end_array(&w);
  jw_end_object(&w);
  if (w.failed) die("out of memory building a request");
  return tbuf_take(&b, len);
}

/* An answer line as {"id":N,BODY[,"max_held":M]}: the body's bounds, the
 * id and max_held (-1 when absent). 0 if the line is not of that shape. */
static int split_line(const char *line, size_t n, size_t *b0, size_t *b1, int64_t *id,
                      int64_t *held) {
  static const char pre[] = "{\"id\":", suf[] = ",\"max_held\":";
  if (n < sizeof pre || memcmp(line, pre, sizeof pre - 1) != 0 || line[n - 1] != '}') return 0;
  size_t i = sizeof pre - 1;
  int64_t v = 0;
  if (i >= n || line[i] < '0' || line[i] > '9') return 0;
  while (i < n && line[i] >= '0' && line[i] <= '9' && v < INT64_MAX / 10) v = v * 10 + (line[i++] - '0');
  if (i >= n || line[i] != ',') return 0;
  *id = v;
  *b0 = i + 1;
  *b1 = n - 1;
  *held = -1;
  /* a trailing "max_held": digits */
  size_t j = n - 1;
  while (j > *b0 && line[j - 1] >= '0' && line[j - 1] <= '9') j--;
  size_t sl = sizeof suf - 1;
  if (j < n - 1 && j >= *b0 + sl && memcmp(line + j - sl, suf, sl) == 0) {
    int64_t h = 0;
    for (size_t k = j; k < n - 1 && h < INT64_MAX / 10; k++) h = h * 10 + (line[k] - '0');
    *held = h;
    *b1 = j - sl;
  }
  return 1;
}

/* A fast, exact path: an answer line whose body is byte for byte the body
 * of an answer already judged equal to the reference is equal too, without
 * parsing it. (Most answers of a deterministic implementation are.) */
static int fast_equal(cctx *x, const char *line, size_t n, int64_t want, int64_t *held) {
  size_t b0, b1;
  int64_t id;
  if (!x->good.n || !split_line(line, n, &b0, &b1, &id, held) || id != want) return 0;
  return b1 - b0 == x->good.n && memcmp(line + b0, x->good.p, x->good.n) == 0;
}

/* Remembers the body of a line judged equal. */
static void remember_good(cctx *x, const char *line, size_t n) {
  size_t b0, b1;
  int64_t id, held;
  if (!split_line(line, n, &b0, &b1, &id, &held)) return;
  x->good.n = 0;
  tbuf_xadd(&x->good, line + b0, b1 - b0);
}

/* ---------------- answer lines ---------------- */

/* An answer line as read: its object (NULL when the line is not a JSON
 * object the runner can read), its id when one can be read (from the
 * object, or from the start of an unreadable line: {"id": N, ...), and
 * what is wrong with it. */
typedef struct aline {
  json_t *o;
  int64_t id;
  int has_id;
  tbuf why;
} aline;

/* The id of a line that starts {"id": DIGITS (spaces allowed): an answer
 * the runner cannot read as a whole can still be matched to its request. */
static int leading_id(const char *s, size_t n, int64_t *id) {
  size_t i = 0;
  while (i < n && s[i] == ' ') i++;
  if (i >= n || s[i++] != '{') return 0;
  while (i < n && s[i] == ' ') i++;
  if (n - i < 4 || memcmp(s + i, "\"id\"", 4) != 0) return 0;
  for (i += 4; i < n && s[i] == ' ';) i++;
  if (i >= n || s[i++] != ':') return 0;
  while (i < n && s[i] == ' ') i++;
  int64_t v = 0;
  size_t d0 = i;
  while (i < n && s[i] >= '0' && s[i] <= '9' && v < INT64_MAX / 10) v = v * 10 + (s[i++] - '0');
  if (i == d0 || i >= n || (s[i] != ',' && s[i] != ' ' && s[i] != '}')) return 0;
  *id = v;
  return 1;
}

static int line_id(json_t *o, int64_t *id) {
  json_t *v = json_object_get(o, "id");
  if (json_is_integer(v)) {
    *id = json_integer_value(v);
    return 0;
  }
  if (json_is_real(v) && json_real_value(v) == (double)(int64_t)json_real_value(v)) {
    *id = (int64_t)json_real_value(v);
    return 0;
  }
  return -1;
}

static void aline_read(const char *line, size_t n, aline *l) {
  memset(l, 0, sizeof *l);
  json_error_t jerr;
  /* big integers fall back to reals (see answer.h) */
  json_t *o = json_loadb(line, n, JSON_ALLOW_NUL, &jerr);
  if (!o && json_error_code(&jerr) == json_error_numeric_overflow)
    o = json_loadb(line, n, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &jerr);
  if (!o && json_error_code(&jerr) == json_error_out_of_memory) die("out of memory");
  if (o && json_is_object(o)) {
    l->o = o;
    l->has_id = line_id(o, &l->id) == 0;
    if (!l->has_id) tbuf_xadds(&l->why, "an answer without an integer id");
    return;
  }
  json_decref(o);
  l->has_id = leading_id(line, n, &l->id);
  if (l->has_id && !o)
    tbuf_xprintf(&l->why, "the line is not JSON the runner can read (%s, at byte %d)", jerr.text,
                 jerr.position);
  else
    tbuf_xadds(&l->why, "a line from the implementation that is not a JSON object");
}

/* The line's answer: from its object, or one that says the line cannot be
 * read (compared as that alone). */
static void aline_answer(aline *l, const char *line, size_t n, answer *a) {
  if (l->o) {
    answer_from_json(a, l->o);
    return;
  }
  answer_init(a);
  tbuf b = {0};
  tbuf_xprintf(&b, "%s: ", l->why.p);
  bytes_show(&b, line, n, 300);
  a->problem = tbuf_take(&b, NULL);
  a->unreadable = 1;
}

static void aline_free(aline *l) {
  json_decref(l->o);
  tbuf_free(&l->why);
  memset(l, 0, sizeof *l);
}

/* What is wrong with an answer whose id is `got` while `want` is awaited. */
static void id_problem(char *what, size_t wl, int64_t got, int64_t want) {
  if (got < want && got >= 1)
    snprintf(what, wl, "a second answer for request %lld (now waiting for request %lld)",
             (long long)got, (long long)want);
  else
    snprintf(what, wl, "answer id %lld does not match request id %lld", (long long)got,
             (long long)want);
}

/* After a crash, a timeout or an endless line: the message of the answer
 * that stands for it, and the code. */
static const char *broken_why(cctx *x, enum impl_event ev, tbuf *why) {
  target *t = x->t;
  const char *code = "impl_died";
  if (ev == IMPL_TIMEOUT) {
    code = "impl_timeout";
    tbuf_xprintf(why, "no answer within %g s (--timeout); the implementation was killed",
                 t->io.timeout);
  } else if (ev == IMPL_TOOLONG) {
    code = "impl_bad_answer";
    tbuf_xprintf(why, "an answer line longer than %zu bytes; the implementation was killed",
                 t->io.max_line);
  } else {
    tbuf_xadds(why, "the implementation died while this request was in flight");
  }
  tbuf end = {0};
  if (t->cmd && t->running) {
    /* A hung one is ended first; its exit status is then ours, not news. */
    if (ev != IMPL_DIED) impl_stop(&t->im);
    impl_describe_end(&t->im, &end, "", ev == IMPL_DIED);
  }
  if (end.n) tbuf_xprintf(why, "\n%s", end.p);
  while (why->n && why->p[why->n - 1] == '\n') why->p[--why->n] = '\0';
  tbuf_free(&end);
  return code;
}

/* After a crash, a timeout or an endless line: a report of it, and a
 * fresh process for what follows. */
static void broken(cctx *x, enum impl_event ev, answer *a) {
  target *t = x->t;
  x->r->troubles++;
  tbuf why = {0};
  const char *code = broken_why(x, ev, &why);
  answer_init(a);
  answer_set_error(a, code, why.p ? why.p : code, -1);
  if (!t->ever_answered) {
    /* Never a single answer: the command is broken, not this case. */
    t->setup_error = 1;
    tbuf_xprintf(&t->setup_msg, "%s gave no answer at all: %s", t->cmd ? t->cmd : "?",
                 why.p ? why.p : code);
    if (ev == IMPL_TIMEOUT)
      tbuf_xadds(&t->setup_msg, "\n(an implementation must write one line per request and "
                                "flush its stdout after each line; see conformance/FORMAT.md)");
    x->aborted = 1;
  }
  tbuf_free(&why);
  target_restart(t);
  if (++x->restarts > 8 && !x->aborted) {
    x->aborted = 1;
    tbuf_xadds(&x->r->report, "the implementation died or hung 8 times in this case; the rest "
                              "of the case was not run\n");
  }
}

/* One request, its answer (synchronously). Lines that answer nothing
 * pending are framing failures; a line with an id never sent is taken as
 * this request's answer (reported), so the answers stay in step. */
static void request_sync(cctx *x, const chunking *k, answer *a) {
  target *t = x->t;
  int64_t id = t->next_id++;
  size_t len;
  char *req = request_line(x->c, k, id, 0, &len);
  target_send(t, req, len);
  free(req);
  if (t->setup_error) {
    answer_init(a);
    answer_set_error(a, "impl_died", t->setup_msg.p, -1);
    x->aborted = 1;
    return;
  }
  for (;;) {
    char *line;
    size_t n;
    enum impl_event ev = target_next(t, &line, &n);
    if (ev != IMPL_LINE) {
      broken(x, ev, a);
      return;
    }
    aline l;
    aline_read(line, n, &l);
    int skip = !l.has_id;
    if (!l.has_id) {
      framing_failure(x, l.why.p, line, n);
    } else if (l.id != id) {
      char what[160];
      id_problem(what, sizeof what, l.id, id);
      framing_failure(x, what, line, n);
      skip = l.id >= 1 && l.id < id; /* an earlier request's: this one's answer may follow */
    }
    if (!skip) aline_answer(&l, line, n, a);
    aline_free(&l);
    if (!skip) return;
  }
}

typedef struct minctx {
  cctx *x;
} minctx;

static int still_fails(const chunking *k, void *vp) {
  cctx *x = ((minctx *)vp)->x;
  if (x->aborted) return 0;
  answer a;
  request_sync(x, k, &a);
  int differs = answer_diff(x->ref, &a, &x->d, NULL, "") != 0;
  answer_free(&a);
  return differs;
}

static void show_chunking(cctx *x, tbuf *b, const chunking *k) {
  chunking_show(b, x->c->input.p, k, x->o->full_chunkings);
}

static fail_kind answer_kind(const answer *a) {
  if (a->unreadable) return FK_PROTOCOL;
  if (a->ok || !a->code || strncmp(a->code, "impl_", 5) != 0) return FK_OUTPUT;
  if (strcmp(a->code, "impl_died") == 0) return FK_CRASH;
  if (strcmp(a->code, "impl_timeout") == 0) return FK_TIMEOUT;
  return FK_PROTOCOL;
}

/* The case's first failing chunking reduced to the smallest that still
 * fails: *small and the answer to show (act, or *fresh). 1 if minimized. */
static int minimize_first(cctx *x, const chunking *k, const answer *act, chunking *small,
                          answer *fresh, const answer **shown) {
  *shown = act;
  int crash = answer_kind(act) != FK_OUTPUT;
  if (crash || split_mode_streams(x->mode) || x->aborted || k->n <= 1 || x->failed_once) return 0;
  minctx m = {x};
  minimize_chunking(small, still_fails, &m, x->o->minimize_budget);
  if (small->n >= k->n || x->aborted) return 0;
  request_sync(x, small, fresh);
  if (answer_diff(x->ref, fresh, &x->d, NULL, "") != 0) {
    *shown = fresh;
    return 1;
  }
  chunking_copy(small, k); /* flaky: it passed on the re-run; show the original */
  return 0;
}

/* A chunking whose answer differs: the mode's first is reported with the
 * diff, the case's first reduced to the smallest chunking that still fails. */
static void answer_failure(cctx *x, const chunking *k, const answer *act) {
  mode_failure *f = fail_rec(x, answer_kind(act));
  if (f->detailed) return;
  f->detailed = 1;
  chunking small = {0};
  chunking_copy(&small, k);
  answer fresh;
  answer_init(&fresh);
  const answer *shown;
  int first = !x->failed_once;
  int minimized = minimize_first(x, k, act, &small, &fresh, &shown);
  x->failed_once = 1;
  /* "smallest" once the minimizer had its say, even if it kept them all */
  int tried = first && answer_kind(act) == FK_OUTPUT && !split_mode_streams(x->mode) &&
              (minimized || k->n > 1);
  tbuf_xprintf(&f->report, "split mode %s; %s (%zu chunk%s): ", split_mode_names[x->mode],
               tried ? "smallest failing chunking" : "failing chunking", small.n,
               small.n == 1 ? "" : "s");
  show_chunking(x, &f->report, &small);
  tbuf_xadds(&f->report, "\n");
  set_chunks(f, &small, tried);
  diff_first df = {0};
  diff_opts d = x->d;
  d.first = &df;
  if (shown->code && strncmp(shown->code, "impl_", 5) == 0 && !shown->unreadable) {
    tbuf_xprintf(&f->report, "%s: %s\n", shown->code, shown->message ? shown->message : "");
    set_field(f, "answer", "an answer line", shown->message);
  } else if (answer_diff(x->ref, shown, &d, &f->report, "") == 0) {
    tbuf_xadds(&f->report, "(no difference on a re-run: the implementation is not "
                           "deterministic)\n");
  }
  take_fields(f, &df);
  tbuf_xprintf(&f->report, "source: %s\n", x->c->source);
  char head[120];
  snprintf(head, sizeof head, "split mode %s", split_mode_names[x->mode]);
  failure_head(x, "%s", head);
  answer_free(&fresh);
  chunking_free(&small);
}

/* ---------------- batch modes: pipelined ---------------- */

typedef struct flight {
  int64_t id;
  chunking k;
} flight;

/* Compares one answer with the reference; returns 1 if it differs. With
 * `later`, a first failure is kept there instead of reported at once: the
 * minimizer sends requests of its own, which must not cross the answers of
 * requests still in flight. */
typedef struct later {
  int set;
  chunking k;
  answer a;
} later;

static int judge_later(cctx *x, const chunking *k, answer *a, later *l) {
  if (a->max_held > x->r->max_held) x->r->max_held = a->max_held;
  if (answer_diff(x->ref, a, &x->d, NULL, "") == 0) return 0;
  mode_failure *f = &x->r->modes[x->mode].fail;
  if (!l) {
    answer_failure(x, k, a);
  } else if (!l->set && !f->detailed) {
    l->set = 1;
    chunking_copy(&l->k, k);
    l->a = *a; /* moved: the caller's copy is emptied */
    answer_init(a);
    fail_rec(x, answer_kind(&l->a));
  } else {
    fail_rec(x, answer_kind(a));
  }
  return 1;
}

static int judge(cctx *x, const chunking *k, answer *a) { return judge_later(x, k, a, NULL); }

/* A batch mode's requests: a ring of `win` in flight from `head`. */
typedef struct batch {
  cctx *x;
  split_mode m;
  split_iter it;
  flight *fl;
  size_t win, head, count;
  int more, mode_failed;
  later pending;
  int64_t skipped[64]; /* requests given up as unanswered, for a late answer */
  size_t nskipped;
  chunking k;
} batch;

static void batch_begin(batch *b, cctx *x, split_mode m) {
  memset(b, 0, sizeof *b);
  b->x = x;
  b->m = m;
  split_begin(&b->it, m, x->c->input.n, &x->o->sp, sluice_hash_str(x->c->id),
              x->c->has_recorded ? &x->c->recorded : NULL);
  b->win = x->o->window ? x->o->window : 1;
  if (!x->t->cmd) b->win = 1; /* in process: answered at once */
  b->fl = xcalloc(b->win, sizeof *b->fl);
  b->more = 1;
}

/* Sends the next chunkings until the window is full. */
static void batch_fill(batch *b) {
  cctx *x = b->x;
  target *t = x->t;
  while (b->more && !b->mode_failed && b->count < b->win) {
    if (!split_next(&b->it, &b->k)) {
      b->more = 0;
      break;
    }
    if (x->o->deadline && now_seconds() > x->o->deadline) {
      x->aborted = 1;
      break;
    }
    flight *f = &b->fl[(b->head + b->count) % b->win];
    f->id = t->next_id++;
    chunking_copy(&f->k, &b->k);
    size_t len;
    char *req = request_line(x->c, &b->k, f->id, 0, &len);
    target_send(t, req, len);
    free(req);
    b->count++;
    x->r->modes[b->m].chunkings++;
    x->r->chunkings++;
    if (t->setup_error) x->aborted = 1;
  }
}

/* The oldest request in flight is done with. */
static void batch_pop(batch *b) {
  b->head = (b->head + 1) % b->win;
  b->count--;
}

/* No line but a crash, a timeout or an end: the oldest request without an
 * answer is blamed, and the rest sent again to a fresh process. */
static void batch_broken(batch *b, enum impl_event ev) {
  cctx *x = b->x;
  flight *f = &b->fl[b->head];
  answer a;
  broken(x, ev, &a);
  if (!x->aborted) b->mode_failed |= judge_later(x, &f->k, &a, &b->pending);
  answer_free(&a);
  batch_pop(b);
  for (size_t i = 0; i < b->count && !x->aborted; i++) {
    flight *g = &b->fl[(b->head + i) % b->win];
    size_t len;
    char *req = request_line(x->c, &g->k, g->id, 0, &len);
    target_send(x->t, req, len);
    free(req);
  }
}

/* An answer to no request in flight: late, a second one, or an id never
 * sent. The last is taken as the answer to the oldest request (1), which
 * keeps the answers in step without waiting out a timeout. */
static int batch_stray(batch *b, int64_t id, const char *line, size_t n) {
  char what[200];
  int late = 0;
  for (size_t i = 0; i < sizeof b->skipped / sizeof b->skipped[0]; i++) late |= b->skipped[i] == id;
  int never = id < 1 || id >= b->x->t->next_id;
  if (late)
    snprintf(what, sizeof what, "a late answer for request %lld (answers must come in "
             "request order)", (long long)id);
  else
    id_problem(what, sizeof what, id, b->fl[b->head].id);
  framing_failure(b->x, what, line, n);
  return !late && never;
}

/* Answers come in request order: the requests before the one at `at` will
 * not be answered any more. Each is its own failure. */
static void batch_overtaken(batch *b, size_t at, int64_t id, const char *line, size_t n) {
  for (size_t i = 0; i < at; i++) {
    char what[240];
    snprintf(what, sizeof what,
             "the answer to request %lld came before the answer to request %lld (answers "
             "must come in request order; request %lld counts as unanswered)",
             (long long)id, (long long)b->fl[b->head].id, (long long)b->fl[b->head].id);
    framing_failure(b->x, what, line, n);
    b->skipped[b->nskipped++ % (sizeof b->skipped / sizeof b->skipped[0])] = b->fl[b->head].id;
    batch_pop(b);
  }
}

/* An answer line: matched with its request in flight and judged. */
static void batch_answer(batch *b, const char *line, size_t n) {
  cctx *x = b->x;
  int64_t held;
  if (b->count && !x->aborted && fast_equal(x, line, n, b->fl[b->head].id, &held)) {
    if (held > x->r->max_held) x->r->max_held = held;
    batch_pop(b);
    return;
  }
  aline l;
  aline_read(line, n, &l);
  if (!l.has_id) {
    framing_failure(x, l.why.p, line, n);
    aline_free(&l);
    return;
  }
  size_t at = b->count;
  for (size_t i = 0; i < b->count; i++)
    if (b->fl[(b->head + i) % b->win].id == l.id) at = i;
  if (at == b->count && !batch_stray(b, l.id, line, n)) {
    aline_free(&l);
    return;
  }
  if (at == b->count) at = 0; /* an id never sent: the oldest request's answer */
  batch_overtaken(b, at, l.id, line, n);
  flight *f = &b->fl[b->head];
  answer a;
  aline_answer(&l, line, n, &a);
  aline_free(&l);
  int differs = judge_later(x, &f->k, &a, &b->pending);
  if (!differs && at == 0) remember_good(x, line, n);
  b->mode_failed |= differs;
  answer_free(&a);
  batch_pop(b);
}

static void batch_end(batch *b) {
  cctx *x = b->x;
  for (size_t i = 0; i < b->win; i++) chunking_free(&b->fl[i].k);
  free(b->fl);
  chunking_free(&b->k);
  /* Requests left unanswered (an aborted run): a fresh process is simpler
   * than matching the stragglers. */
  if (b->count) target_restart(x->t);
  if (b->pending.set) {
    /* Nothing is in flight now: the first failure can be minimized. */
    answer_failure(x, &b->pending.k, &b->pending.a);
    answer_free(&b->pending.a);
    chunking_free(&b->pending.k);
  }
}

static void run_batch_mode(cctx *x, split_mode m) {
  batch b;
  batch_begin(&b, x, m);
  while (!x->aborted) {
    batch_fill(&b);
    if (b.count == 0 || x->aborted) break;
    char *line;
    size_t n;
    enum impl_event ev = target_next(x->t, &line, &n);
    if (ev != IMPL_LINE) batch_broken(&b, ev);
    else batch_answer(&b, line, n);
  }
  batch_end(&b);
}

/* ---------------- streaming sessions ---------------- */

/* Feed numbers, in order. */
typedef struct feeds {
  size_t *v;
  size_t n, cap;
} feeds;

static void feeds_push(feeds *f, size_t x) {
  if (f->n == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 16;
    f->v = xrealloc(f->v, xmul(f->cap, sizeof *f->v));
  }
  f->v[f->n++] = x;
}

/* What one side of a session (the implementation, or the library beside
 * it) has released. */
typedef struct side {
  size_t cum[SLUICE_CHANNEL_COUNT]; /* bytes released so far per channel */
  char tail[SLUICE_CHANNEL_COUNT][4];
  size_t events;                    /* events so far (snapshots apart) */
  size_t now[SLUICE_CHANNEL_COUNT], now_events; /* what the last feed released */
  size_t bytes_before, events_before; /* released before finish (snapshots are events) */
  size_t busy;      /* feeds before finish that released bytes */
  int64_t stopped;  /* the feed at which it failed, or -1 */
  char code[48];    /* its error */
  tstrs snaps;      /* its snapshot events, and the feed of each */
  feeds snap_feed;
} side;

static void side_init(side *s) {
  memset(s, 0, sizeof *s);
  s->stopped = -1;
}

static void side_free(side *s) {
  tstrs_free(&s->snaps);
  free(s->snap_feed.v);
  side_init(s);
}

/* Keeps the last 3 bytes of a channel, for the UTF-8 allowance. */
static void keep_tail(side *s, int c, const tbytes *b) {
  char tmp[8];
  size_t old = s->cum[c] < 3 ? s->cum[c] : 3, take = b->n < 3 ? b->n : 3;
  memcpy(tmp, s->tail[c], old);
  if (take) memcpy(tmp + old, b->p + b->n - take, take);
  size_t all = old + take, keep = all < 3 ? all : 3;
  memcpy(s->tail[c], tmp + all - keep, keep);
}

static void side_add(side *s, const answer *d, size_t feed, int finishing) {
  size_t bytes = 0;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    keep_tail(s, c, &d->chan[c]);
    s->now[c] = d->chan[c].n;
    s->cum[c] += d->chan[c].n;
    bytes += d->chan[c].n;
  }
  s->now_events = d->events.n;
  s->events += d->events.n;
  if (!finishing) {
    s->bytes_before += bytes;
    s->events_before += d->events.n + d->snapshots.n;
    s->busy += bytes > 0;
  }
  for (size_t i = 0; i < d->snapshots.n; i++) {
    tstrs_push(&s->snaps, xstrdup(d->snapshots.v[i]));
    feeds_push(&s->snap_feed, feed);
  }
  if (!d->ok && s->stopped < 0) {
    s->stopped = (int64_t)feed;
    snprintf(s->code, sizeof s->code, "%s", d->code ? d->code : "an error");
  }
}

/* What a side has released in all: bytes, and events (snapshots too). */
static size_t side_bytes(const side *sd) {
  size_t t = 0;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) t += sd->cum[c];
  return t;
}

static size_t side_events(const side *sd) { return sd->events + sd->snaps.n; }

/* The accumulated answer of a session, from its per-feed deltas. */
static void acc_add(answer *acc, answer *d) {
  if (!d->ok) {
    acc->ok = 0;
    acc->code = d->code;
    acc->message = d->message;
    acc->offset = d->offset;
    acc->has_offset = d->has_offset;
    d->code = d->message = NULL;
    return;
  }
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    tbuf b = {acc->chan[c].p, acc->chan[c].n, acc->chan[c].n, 0};
    tbuf_xadd(&b, d->chan[c].p, d->chan[c].n);
    acc->chan[c].p = b.p;
    acc->chan[c].n = b.n;
    if (!(d->chan_present & (1u << c))) acc->chan_present &= ~(1u << c);
  }
  for (size_t i = 0; i < d->events.n; i++) tstrs_push(&acc->events, d->events.v[i]);
  for (size_t i = 0; i < d->snapshots.n; i++) tstrs_push(&acc->snapshots, d->snapshots.v[i]);
  d->events.n = d->snapshots.n = 0;
  if (d->value || d->value_why) {
    free(acc->value);
    free(acc->value_why);
    acc->value = d->value;
    acc->value_why = d->value_why;
    d->value = d->value_why = NULL;
  }
  if (d->unloadable) {
    free(acc->unloadable);
    acc->unloadable = d->unloadable;
    d->unloadable = NULL;
  }
  if (d->truncated >= 0) acc->truncated = d->truncated;
  acc->has |= d->has;
  if (d->problem && !acc->problem) {
    acc->problem = d->problem;
    d->problem = NULL;
  }
}

/* The reference's delta after a feed (or finish), through the protocol
 * encoding. */
static void lockstep_delta(refrun *rr, answer *d) {
  tbuf b = {0};
  jsonw w;
  jw_init(&w, &b);
  jw_begin_object(&w);
  refrun_write(rr, &w, 1);
  jw_end_object(&w);
  if (w.failed) die("out of memory");
  answer_from_text(d, b.p, b.n);
  tbuf_free(&b);
}

/* A streaming session: the implementation's answers feed by feed, and the
 * library fed the same chunks beside it. */
typedef struct session {
  int64_t id;
  refrun rr;
  answer acc;   /* the implementation's answer so far */
  side im, ref; /* what each released */
  size_t fed;
  int64_t max_held;
  int ended;
  tbuf lat;           /* the first feed where the releases differ, said */
  diff_first lat_at;  /* and as fields */
  int64_t lat_feed;   /* that feed, or -1 */
  int64_t snap_feed;  /* the first feed where the snapshots differ, or -1 */
  size_t ref_bytes_at_stop, ref_events_at_stop; /* what the library had released when
                                                   the implementation stopped */
} session;

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

/* "feed 3 of 18" (numbered as the protocol numbers them, from 0), or
 * "finish". */
static void feed_name(char *b, size_t bl, int64_t i, const chunking *k) {
  if (i < 0) snprintf(b, bl, "no feed (it did not stop)");
  else if ((size_t)i >= k->n) snprintf(b, bl, "finish");
  else snprintf(b, bl, "feed %lld of %zu", (long long)i, k->n);
}

/* What a side released at the last feed: "1 byte and 0 events". */
static void released_now(tbuf *b, const side *sd) {
  size_t bytes = 0;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) bytes += sd->now[c];
  tbuf_xprintf(b, "%zu byte%s and %zu event%s", bytes, plural(bytes), sd->now_events,
               plural(sd->now_events));
}

static void set_first(diff_first *df, const char *field, const char *exp, const char *act) {
  diff_first_free(df);
  df->field = xstrdup(field);
  df->expected = xstrdup(exp);
  df->actual = xstrdup(act);
}

/* The first feed where the two differ in `what` (a channel, or "events"):
 * a so far, the reference b. */
static void lat_story(session *s, const chunking *k, size_t i, const char *what, size_t a,
                      size_t b, int events) {
  tbuf *lat = &s->lat;
  char where[64], es[48], as[48];
  const char *unit = events ? "event" : "byte";
  feed_name(where, sizeof where, (int64_t)i, k);
  tbuf_xprintf(lat, "%s at %s (%zu byte%s fed): at this feed the implementation released ",
               a < b ? "late" : "early", where, s->fed, plural(s->fed));
  released_now(lat, &s->im);
  tbuf_xadds(lat, ", the reference ");
  released_now(lat, &s->ref);
  tbuf_xprintf(lat, "; %s so far: %zu %s%s, the reference %zu; ", what, a, unit, plural(a), b);
  size_t d = a < b ? b - a : a - b;
  if (events && a < b)
    tbuf_xprintf(lat, "the implementation has not raised %zu event%s the reference raised by "
                      "then", d, plural(d));
  else if (events)
    tbuf_xprintf(lat, "the implementation raised %zu event%s before the reference does", d,
                 plural(d));
  else if (a < b)
    tbuf_xprintf(lat, "the implementation holds back %zu byte%s that no rule can still change",
                 d, plural(d));
  else
    tbuf_xprintf(lat, "the implementation released %zu byte%s that a rule could still change",
                 d, plural(d));
  snprintf(es, sizeof es, "%zu %s%s", b, unit, plural(b));
  snprintf(as, sizeof as, "%zu %s%s", a, unit, plural(a));
  set_first(&s->lat_at, what, es, as);
  s->lat_feed = (int64_t)i;
}

/* Whether what was released after feed i differs from the library's
 * release; the first difference is said in s->lat, and the first feed where
 * the snapshots differ kept (told at the end, when it shows whether they
 * are late, missing or different). */
static void session_compare(session *s, const chunking *k, size_t i, const answer *d,
                            const answer *rd) {
  /* Released so far, channel by channel: equal to the library's, but for
   * a UTF-8 sequence it has not finished (a character-based
   * implementation cannot release half a character). */
  for (int ch = 0; ch < SLUICE_CHANNEL_COUNT && !s->lat.n; ch++) {
    size_t a = s->im.cum[ch], b = s->ref.cum[ch];
    size_t slack = sluice_utf8_tail(s->ref.tail[ch], b < 3 ? b : 3);
    if (a == b || (a + slack == b && a <= b)) continue;
    lat_story(s, k, i, sluice_channel_name((sluice_channel)ch), a, b, 0);
  }
  if (!s->lat.n && s->im.events != s->ref.events)
    lat_story(s, k, i, "events", s->im.events, s->ref.events, 1);
  if (s->snap_feed < 0 && tstrs_diff(&rd->snapshots, &d->snapshots, "snapshots", NULL, ""))
    s->snap_feed = (int64_t)i;
}

/* Feed i's answer d: the library fed the same chunk, the releases
 * compared, d added to the session's answer (and freed). */
static void session_step(cctx *x, const chunking *k, session *s, size_t i, answer *d) {
  const tcase *c = x->c;
  int finishing = i == k->n;
  /* The library, fed the same chunk. */
  if (finishing) refrun_finish(&s->rr);
  else refrun_feed(&s->rr, c->input.p + s->fed, k->len[i]);
  answer rd;
  lockstep_delta(&s->rr, &rd);
  if (!finishing) s->fed += k->len[i];
  side_add(&s->im, d, i, finishing);
  side_add(&s->ref, &rd, i, finishing);
  /* Compared where the bytes fed so far end on a character boundary: an
   * implementation that works on characters decides there, with the same
   * information as the library (which works on bytes). */
  int boundary = finishing || sluice_utf8_tail(c->input.p, s->fed) == 0;
  if (!s->lat.n && d->ok && rd.ok && boundary) session_compare(s, k, i, d, &rd);
  int64_t total = 0;
  for (int ch = 0; ch < SLUICE_CHANNEL_COUNT; ch++) total += (int64_t)s->im.cum[ch];
  if ((int64_t)s->fed - total > s->max_held) s->max_held = (int64_t)s->fed - total;
  if (!d->ok) {
    s->ended = 1;
    s->ref_bytes_at_stop = side_bytes(&s->ref);
    s->ref_events_at_stop = side_events(&s->ref);
  }
  acc_add(&s->acc, d);
  answer_free(d);
  answer_free(&rd);
}

/* After the implementation stopped with an error, the library goes on
 * alone, to say where it stops and what it released meanwhile. */
static void reference_goes_on(cctx *x, const chunking *k, session *s) {
  if (s->im.stopped < 0 || s->ref.stopped >= 0) return;
  for (size_t i = (size_t)s->im.stopped + 1; i <= k->n && s->rr.st == SLUICE_OK; i++) {
    int finishing = i == k->n;
    if (finishing) {
      refrun_finish(&s->rr);
    } else {
      refrun_feed(&s->rr, x->c->input.p + s->fed, k->len[i]);
      s->fed += k->len[i];
    }
    answer rd;
    lockstep_delta(&s->rr, &rd);
    side_add(&s->ref, &rd, i, finishing);
    answer_free(&rd);
  }
}

/* Where each side stopped, when one stopped with an error at another feed
 * than the other and that changes what a client sees: the implementation
 * stopped later (it held back the error), or earlier while the reference
 * released more before its own error. 1 if said. */
/* Whether every feed from `from` to before `to` ends inside a UTF-8
 * character: an implementation that works on characters decides at the
 * feed that completes it (as in session_step). */
static int inside_char(const tcase *c, const chunking *k, int64_t from, int64_t to) {
  size_t fed = 0;
  for (int64_t i = 0; i < to && (size_t)i < k->n; i++) {
    fed += k->len[i];
    if (i >= from && sluice_utf8_tail(c->input.p, fed) == 0) return 0;
  }
  return 1;
}

static int stop_story(const tcase *c, const session *s, const chunking *k, tbuf *msg,
                      diff_first *df, int64_t *feed) {
  int64_t a = s->im.stopped, b = s->ref.stopped;
  if (a < 0 || b < 0 || a == b) return 0;
  if (a > b && inside_char(c, k, b, a)) return 0; /* the character that shows it came late */
  /* what the reference released after the implementation stopped */
  size_t mb = side_bytes(&s->ref) - s->ref_bytes_at_stop;
  size_t me = side_events(&s->ref) - s->ref_events_at_stop;
  if (a < b && mb + me == 0) return 0; /* an error as soon as it is known */
  char im[64], ref[64];
  feed_name(im, sizeof im, a, k);
  feed_name(ref, sizeof ref, b, k);
  tbuf_xprintf(msg, "%s: the implementation stopped with %s at %s, the reference with %s at %s",
               a > b ? "late" : "early", s->im.code, im, s->ref.code, ref);
  if (a > b)
    tbuf_xadds(msg, ": the implementation held back an error the reference raised by then");
  else
    tbuf_xprintf(msg, ", after releasing %zu more byte%s and %zu more event%s: the "
                      "implementation withheld them",
                 mb, plural(mb), me, plural(me));
  set_first(df, "stop", ref, im);
  *feed = a < b ? a : b;
  return 1;
}

/* Nothing released until finish, while the library released bytes at
 * three feeds or more: the whole diagnosis. 1 if said. */
static int buffer_story(const session *s, tbuf *msg, diff_first *df, int64_t *feed) {
  if (s->im.bytes_before || s->im.events_before || s->ref.busy < 3) return 0;
  tbuf_xprintf(msg, "the implementation released nothing until finish, where the reference "
                    "released %zu byte%s at %zu feeds and %zu event%s along the way: it buffers "
                    "the whole stream",
               s->ref.bytes_before, plural(s->ref.bytes_before), s->ref.busy,
               s->ref.events_before, plural(s->ref.events_before));
  char exp[80];
  snprintf(exp, sizeof exp, "%zu bytes at %zu feeds before finish", s->ref.bytes_before,
           s->ref.busy);
  set_first(df, "stream", exp, "nothing before finish");
  *feed = s->lat_feed;
  return 1;
}

/* The first snapshot in which the two differ, with the feed each side sent
 * it at: late (or early), missing, extra or different. */
static void snapshot_story(const session *s, const chunking *k, tbuf *msg, diff_first *df,
                           int64_t *feed) {
  const tstrs *R = &s->ref.snaps, *I = &s->im.snaps;
  const size_t *rf = s->ref.snap_feed.v, *inf = s->im.snap_feed.v;
  size_t j = 0;
  while (j < R->n && j < I->n && strcmp(R->v[j], I->v[j]) == 0 && rf[j] == inf[j]) j++;
  char fr[64], fi[64], field[40];
  snprintf(field, sizeof field, "snapshots[%zu]", j);
  if (j < R->n) feed_name(fr, sizeof fr, (int64_t)rf[j], k);
  if (j < I->n) feed_name(fi, sizeof fi, (int64_t)inf[j], k);
  *feed = (int64_t)(j < R->n && (j >= I->n || rf[j] < inf[j]) ? rf[j] : j < I->n ? inf[j] : 0);
  if (j < R->n && j < I->n && strcmp(R->v[j], I->v[j]) == 0) {
    tbuf_xprintf(msg, "%s snapshot: snapshot %zu, which the reference sent at %s, came from the "
                      "implementation at %s: %s",
                 inf[j] > rf[j] ? "a late" : "an early", j, fr, fi, R->v[j]);
    set_first(df, field, fr, fi);
  } else if (j < R->n && (j >= I->n || (j + 1 < R->n && strcmp(R->v[j + 1], I->v[j]) == 0))) {
    tbuf_xprintf(msg, "a missing snapshot: the reference sent snapshot %zu at %s: %s; the "
                      "implementation %s (it sent %zu snapshot%s, the reference %zu)",
                 j, fr, R->v[j], j >= I->n ? "never sent it" : "left it out", I->n,
                 plural(I->n), R->n);
    set_first(df, field, R->v[j], "(missing)");
  } else if (j >= R->n) {
    tbuf_xprintf(msg, "an extra snapshot: the implementation sent snapshot %zu at %s: %s, "
                      "which the reference never sends",
                 j, fi, I->v[j]);
    set_first(df, field, "(none)", I->v[j]);
  } else {
    tbuf_xprintf(msg, "a different snapshot: snapshot %zu at %s:\n      expected %s\n      "
                      "actual   %s (at %s)",
                 j, fr, R->v[j], I->v[j], fi);
    set_first(df, field, R->v[j], I->v[j]);
  }
}

/* A session's latency failure: the mode's first is its record. */
static void record_latency(cctx *x, const chunking *k, const tbuf *msg, diff_first *df,
                           int64_t feed) {
  mode_stat *ms = &x->r->modes[x->mode];
  ms->latency = 1;
  x->r->latency_failed = 1;
  mode_failure *f = &ms->late;
  if (f->kind != FK_NONE) return;
  f->kind = FK_LATENCY;
  f->feed = feed;
  take_fields(f, df);
  set_chunks(f, k, 0);
  tbuf_xprintf(&f->report, "latency, split mode %s (%zu feeds): %s\nchunking: ",
               split_mode_names[x->mode], k->n, msg->p);
  show_chunking(x, &f->report, k);
  tbuf_xprintf(&f->report, "\nsource: %s\n", x->c->source);
}

/* The session's output judged, then its latency. */
static void session_verdict(cctx *x, const chunking *k, session *s) {
  if (s->max_held > x->r->max_held) x->r->max_held = s->max_held;
  if (judge(x, k, &s->acc) || x->o->latency == LAT_OFF) return;
  tbuf msg = {0};
  diff_first df = {0};
  int64_t feed = -1;
  int snap_first = s->snap_feed >= 0 && (s->lat_feed < 0 || s->snap_feed < s->lat_feed);
  if (stop_story(x->c, s, k, &msg, &df, &feed) || buffer_story(s, &msg, &df, &feed)) {
    /* said */
  } else if (snap_first) {
    snapshot_story(s, k, &msg, &df, &feed);
  } else if (s->lat.n) {
    tbuf_xadd(&msg, s->lat.p, s->lat.n);
    df = s->lat_at;
    memset(&s->lat_at, 0, sizeof s->lat_at);
    feed = s->lat_feed;
  }
  if (msg.n) record_latency(x, k, &msg, &df, feed);
  tbuf_free(&msg);
  diff_first_free(&df);
}

/* No streaming session with an implementation that answers a streaming
 * request with one batch answer: said once for the run (after the cases,
 * session_absent_message), and in each case in a line. */
static void absent_failure(cctx *x, const char *line, size_t n) {
  mode_failure *f = fail_rec(x, FK_PROTOCOL);
  tbuf_xprintf(&f->report, "split mode %s: no streaming session: the implementation answers a "
                           "streaming request with one batch answer (see the note after the "
                           "cases)",
               split_mode_names[x->mode]);
  if (line) {
    tbuf_xadds(&f->report, ": ");
    bytes_show(&f->report, line, n, 300);
  }
  tbuf_xadds(&f->report, "\n");
  set_field(f, "feed", "a line per feed, then \"finish\"", "one batch answer");
  failure_head(x, "%s", "no streaming session");
  x->mode_over = 1;
}

/* The session's lines are out of step (a wrong id or feed): the session
 * fails now, and a fresh process serves what follows. */
static void out_of_step(cctx *x) {
  target_restart(x->t);
  x->mode_over = 1;
}

enum { SR_LINE = 1, SR_AGAIN = 0, SR_ABORT = -1, SR_BROKE = -2, SR_OVER = -3 };

/* An answer "unsupported" (to a streaming request: the mode is skipped). */
static int is_unsupported(json_t *o) {
  json_t *code = json_object_get(json_object_get(o, "error"), "code");
  return json_is_false(json_object_get(o, "ok")) && json_is_string(code) &&
         strcmp(json_string_value(code), "unsupported") == 0;
}

/* A line with the session's id and no "feed" (a batch answer), or
 * "unsupported" (the mode is skipped). */
static int session_unfed(cctx *x, const aline *l, const char *line, size_t n) {
  int unsupported = is_unsupported(l->o);
  x->mode_over = 1;
  int was = SESSIONS_UNKNOWN;
  int first = !unsupported && atomic_compare_exchange_strong(sessions_of(x), &was,
                                                             SESSIONS_ABSENT);
  if (unsupported || (x->o->self && (first || was == SESSIONS_ABSENT))) {
    /* sluice diff compares outputs: a batch-only peer's sessions are skipped */
    x->r->modes[x->mode].skipped = 1;
  } else if (first || was == SESSIONS_ABSENT) {
    absent_failure(x, line, n);
  } else {
    framing_failure(x, "a session line without \"feed\" (a batch answer to a streaming request)",
                    line, n);
  }
  return SR_OVER;
}

/* A line with the session's id: the awaited feed's answer into *d, or the
 * session is over. */
static int session_line(cctx *x, const chunking *k, size_t i, const aline *l, const char *line,
                        size_t n, answer *d) {
  if (!l->o) {
    framing_failure(x, l->why.p, line, n);
    out_of_step(x);
    return SR_OVER;
  }
  json_t *feed = json_object_get(l->o, "feed");
  if (!feed || is_unsupported(l->o)) return session_unfed(x, l, line, n);
  int finishing = i == k->n;
  int feed_ok = finishing ? (json_is_string(feed) && strcmp(json_string_value(feed), "finish") == 0)
                          : (json_is_integer(feed) && json_integer_value(feed) == (json_int_t)i);
  if (!feed_ok) {
    char what[160];
    if (finishing)
      snprintf(what, sizeof what, "a session line for another feed where the last line, "
                                  "\"feed\": \"finish\", was awaited");
    else
      snprintf(what, sizeof what, "a session line for another feed where feed %zu was awaited",
               i);
    framing_failure(x, what, line, n);
    out_of_step(x);
    return SR_OVER;
  }
  int was = SESSIONS_UNKNOWN;
  atomic_compare_exchange_strong(sessions_of(x), &was, SESSIONS_SERVED);
  answer_from_json(d, l->o);
  return SR_LINE;
}

/* The session's line for feed i (k->n: the finish) into *d: SR_LINE;
 * SR_AGAIN: not an answer to this session (reported; the line is still
 * awaited); SR_ABORT: the run is aborted; SR_BROKE: the implementation
 * broke (judged); SR_OVER: the session is over (reported). */
static int session_read(cctx *x, const chunking *k, const session *s, size_t i, answer *d) {
  char *line;
  size_t n;
  enum impl_event ev = target_next(x->t, &line, &n);
  if (ev != IMPL_LINE) {
    answer a;
    broken(x, ev, &a);
    if (!x->aborted) {
      tbuf_xprintf(&x->r->modes[x->mode].fail.report,
                   "(in the streaming session, at feed %zu of %zu)\n", i, k->n);
      judge(x, k, &a);
    }
    answer_free(&a);
    return SR_BROKE;
  }
  if (x->aborted) return SR_ABORT;
  aline l;
  aline_read(line, n, &l);
  int rc = SR_AGAIN;
  char what[200];
  if (!l.has_id) {
    framing_failure(x, l.why.p, line, n);
  } else if (l.id >= 1 && l.id < s->id) {
    snprintf(what, sizeof what, "an extra line for request %lld, after its last one (in the "
             "streaming session of request %lld)", (long long)l.id, (long long)s->id);
    framing_failure(x, what, line, n);
  } else if (l.id != s->id) {
    snprintf(what, sizeof what, "answer id %lld does not match the session's id %lld",
             (long long)l.id, (long long)s->id);
    framing_failure(x, what, line, n);
    out_of_step(x);
    rc = SR_OVER;
  } else {
    rc = session_line(x, k, i, &l, line, n, d);
  }
  aline_free(&l);
  return rc;
}

/* Sends the session's request and opens the library beside it. -1 when
 * the run is aborted, or no session is to be had. */
static int session_open(cctx *x, const chunking *k, session *s) {
  target *t = x->t;
  const tcase *c = x->c;
  if (atomic_load(sessions_of(x)) == SESSIONS_ABSENT) {
    if (x->o->self) x->r->modes[x->mode].skipped = 1;
    else absent_failure(x, NULL, 0);
    x->mode_over = 1;
    return -1;
  }
  memset(s, 0, sizeof *s);
  side_init(&s->im);
  side_init(&s->ref);
  s->lat_feed = s->snap_feed = -1;
  s->id = t->next_id++;
  size_t len;
  char *req = request_line(c, k, s->id, 1, &len);
  target_send(t, req, len);
  free(req);
  x->r->modes[x->mode].chunkings++;
  x->r->chunkings++;
  if (t->setup_error) {
    x->aborted = 1;
    return -1;
  }
  refrun_open(&s->rr, t->lockstep, c->filter, c->options, strlen(c->options));
  answer_init(&s->acc);
  s->acc.ok = 1;
  s->acc.chan_present = (1u << SLUICE_CHANNEL_COUNT) - 1;
  for (int ch = 0; ch < SLUICE_CHANNEL_COUNT; ch++) s->acc.chan[ch].p = xstrdup("");
  return 0;
}

static void session_close(session *s) {
  refrun_close(&s->rr);
  answer_free(&s->acc);
  tbuf_free(&s->lat);
  diff_first_free(&s->lat_at);
  side_free(&s->im);
  side_free(&s->ref);
}

static void run_session(cctx *x, const chunking *k) {
  session s;
  if (session_open(x, k, &s)) return;
  int done = 0;
  for (size_t i = 0; i <= k->n && !s.ended && !x->aborted && !done; i++) {
    answer d;
    int got = session_read(x, k, &s, i, &d);
    if (got == SR_AGAIN) {
      i--; /* the same feed's line is still awaited */
      continue;
    }
    if (got == SR_LINE) session_step(x, k, &s, i, &d);
    else done = 1;
  }
  if (!x->aborted && !done) {
    reference_goes_on(x, k, &s);
    session_verdict(x, k, &s);
  }
  session_close(&s);
}

/* The recorded chunking: known to both sides, so json snapshots (one per
 * feed) are compared too, with the library's for the same chunking. */
static void run_recorded(cctx *x) {
  const chunking *k = &x->c->recorded;
  answer a, lib;
  request_sync(x, k, &a);
  x->r->modes[M_RECORDED].chunkings++;
  x->r->chunkings++;
  if (x->aborted || x->o->self) {
    /* (judged against itself, an implementation's snapshots are not the
     * library's: the chunking is judged as any other) */
    if (!x->aborted) judge(x, k, &a);
    answer_free(&a);
    return;
  }
  reference_answer(x->c->filter, x->c->options, x->c->input.p, k, x->t->lockstep, &lib);
  answer want = *x->ref; /* shallow: the expected answer with the library's snapshots */
  want.snapshots = lib.snapshots;
  diff_opts d = x->d;
  d.snapshots = 1;
  if (answer_diff(&want, &a, &d, NULL, "") != 0) {
    if (answer_diff(x->ref, &a, &x->d, NULL, "") != 0) {
      judge(x, k, &a); /* an output failure, reported as in every mode */
    } else {
      mode_failure *f = fail_rec(x, FK_OUTPUT);
      f->detailed = 1;
      tbuf_xadds(&f->report, "split mode recorded; the case's chunking: ");
      show_chunking(x, &f->report, k);
      tbuf_xadds(&f->report, "\n");
      set_chunks(f, k, 0);
      diff_first df = {0};
      d.first = &df;
      answer_diff(&want, &a, &d, &f->report, "");
      take_fields(f, &df);
      tbuf_xprintf(&f->report, "source: %s\n", x->c->source);
      failure_head(x, "%s", "split mode recorded: the snapshots differ");
    }
  }
  answer_free(&a);
  answer_free(&lib);
}

static void run_stream_mode(cctx *x, split_mode m) {
  split_iter it;
  split_begin(&it, m, x->c->input.n, &x->o->sp, sluice_hash_str(x->c->id), NULL);
  chunking k = {0};
  while (!x->aborted && !x->mode_over && split_next(&it, &k)) run_session(x, &k);
  chunking_free(&k);
}

/* ---------------- the case ---------------- */

static int unsupported(const tcase *c, const answer *a) {
  if (a->ok || !a->code) return 0;
  if (strcmp(a->code, "unsupported") == 0) return 1;
  /* unsupported_filter, unless that is what the case expects */
  return strcmp(a->code, "unsupported_filter") == 0 &&
         !(c->has_expect && !c->expect.ok && strcmp(c->expect.code, "unsupported_filter") == 0);
}

/* sluice diff: another implementation, judged against itself: every split
 * must give its whole-input answer, in the fields that answer has. A crash
 * or a timeout there is reported, and the request tried once more on a
 * fresh process: a broken answer is no reference. -1 when the case is over. */
static int settle_self(cctx *x, const chunking *whole) {
  for (int tries = 0; x->whole.code && strncmp(x->whole.code, "impl_", 5) == 0; tries++) {
    mode_failure *f = fail_rec(x, answer_kind(&x->whole));
    tbuf_xprintf(&f->report, "split mode whole: %s: %s\n", x->whole.code,
                 x->whole.message ? x->whole.message : "");
    failure_head(x, "%s", "split mode whole");
    if (tries == 1 || x->aborted) return -1;
    answer_free(&x->whole);
    request_sync(x, whole, &x->whole);
    if (x->aborted) return -1;
  }
  if (x->whole.ok) x->d.fields = answer_fields(&x->whole);
  x->ref = &x->whole;
  return 0;
}

/* The reference of every split: after the whole input's answer, what
 * each split is judged against (the case's expected answer; for an i_
 * case or sluice diff, the whole input's). -1 when the case is over. */
static int settle_reference(cctx *x, const chunking *whole) {
  case_result *r = x->r;
  if (x->o->self) return settle_self(x, whole);
  if (x->c->verdict == 'i') {
    if (x->ref && answer_diff(x->ref, &x->whole, &x->d, NULL, "") != 0) {
      tbuf b = {0};
      tbuf_xadds(&b, "implementation-defined: the answer differs from the recorded one:\n");
      answer_diff(x->ref, &x->whole, &x->d, &b, "      ");
      r->note = tbuf_take(&b, NULL);
    }
    x->ref = &x->whole; /* every split must give the whole-input answer */
  } else {
    judge(x, whole, &x->whole);
  }
  return 0;
}

/* Every split mode chosen, after the whole input. */
static void run_modes(cctx *x) {
  case_result *r = x->r;
  for (int m = M_WHOLE + 1; m < M_COUNT && !x->aborted; m++) {
    if (!(x->o->modes & (1u << m))) continue;
    if (m == M_RECORDED && !x->c->has_recorded) continue;
    double m0 = now_seconds();
    x->mode = (split_mode)m;
    x->mode_over = 0;
    size_t before = r->chunkings;
    if (split_mode_streams((split_mode)m)) run_stream_mode(x, (split_mode)m);
    else if (m == M_RECORDED) run_recorded(x);
    else run_batch_mode(x, (split_mode)m);
    /* a mode failed without a request (no streaming sessions) counts as run */
    r->modes[m].run = r->chunkings > before || r->modes[m].failed;
    if (r->modes[m].skipped && !r->modes[m].failed) r->modes[m].run = 0;
    r->modes[m].seconds = now_seconds() - m0;
  }
}

/* The whole input, first: an implementation that does not support the case
 * says so here, and an i_ case's splits are judged against it. -1 when
 * the case is over (aborted, or skipped). */
static int run_whole(cctx *x, const chunking *whole) {
  case_result *r = x->r;
  x->mode = M_WHOLE;
  request_sync(x, whole, &x->whole);
  r->modes[M_WHOLE].run = 1;
  r->modes[M_WHOLE].chunkings = 1;
  r->chunkings = 1;
  if (x->aborted) return -1;
  if (unsupported(x->c, &x->whole)) {
    r->status = CASE_SKIP;
    tbuf b = {0};
    tbuf_xprintf(&b, "the implementation does not support this case (%s: %s)", x->whole.code,
                 x->whole.message ? x->whole.message : "");
    r->note = tbuf_take(&b, NULL);
    return -1;
  }
  return 0;
}

/* A case that pins its largest hold-back fails on another. The largest is
 * what a byte per feed shows, so it is known only when a mode fed one ran. */
static void check_held(cctx *x) {
  case_result *r = x->r;
  const tcase *c = x->c;
  int measured = r->modes[M_STREAM_BYTES].run || r->modes[M_BYTES].run;
  if (!x->aborted && !x->o->self && c->expect_held >= 0 && r->status != CASE_FAIL && measured &&
      r->max_held >= 0 && r->max_held != c->expect_held) {
    r->status = CASE_FAIL;
    r->held_failed = 1;
    tbuf_xprintf(&r->report, "largest hold-back was %lld bytes, the case pins %lld\nsource: %s\n",
                 (long long)r->max_held, (long long)c->expect_held, c->source);
    failure_head(x, "%s", "hold-back");
  }
}

void check_case(target *t, const tcase *c, const check_opts *o, case_result *r) {
  memset(r, 0, sizeof *r);
  r->max_held = -1;
  for (int m = 0; m < M_COUNT; m++) r->modes[m].fail.feed = r->modes[m].late.feed = -1;
  double t0 = now_seconds();
  cctx x;
  memset(&x, 0, sizeof x);
  x.t = t;
  x.c = c;
  x.o = o;
  x.r = r;
  x.d.offsets = 1;
  x.ref = c->has_expect ? &c->expect : NULL;
  answer_init(&x.whole);
  chunking whole = {0};
  chunking_push(&whole, c->input.n);
  if (run_whole(&x, &whole) == 0 && settle_reference(&x, &whole) == 0) {
    run_modes(&x);
    check_held(&x);
  }
  if (x.aborted && r->status != CASE_FAIL && r->status != CASE_SKIP) {
    r->status = t->setup_error ? CASE_FAIL : CASE_NOT_RUN;
    if (o->deadline && now_seconds() > o->deadline) r->status = CASE_NOT_RUN;
  }
  if (r->latency_failed && o->latency == LAT_FAIL && r->status == CASE_PASS)
    r->status = CASE_FAIL;
  chunking_free(&whole);
  if (o->self) {
    r->whole = xmalloc(sizeof *r->whole);
    *r->whole = x.whole; /* handed over */
  } else {
    answer_free(&x.whole);
  }
  tbuf_free(&x.good);
  r->seconds = now_seconds() - t0;
}
