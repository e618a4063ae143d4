/*
 * check.c: one golden case against one implementation, in every split mode.
 */
#include "check.h"

#include <errno.h>
#include <string.h>

#include "bytes.h"
#include "jsonw.h"
#include "reference.h"


void check_opts_default(check_opts *o) {
  memset(o, 0, sizeof *o);
  split_params_default(&o->sp);
  o->latency = LAT_FAIL;
  o->minimize_budget = 400;
  o->window = 16;
  o->modes = (1u << M_COUNT) - 1;
}

void case_result_free(case_result *r) {
  tbuf_free(&r->report);
  tbuf_free(&r->latency_report);
  free(r->summary);
  free(r->note);
  if (r->whole) answer_free(r->whole);
  free(r->whole);
  memset(r, 0, sizeof *r);
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
  int failed_once; /* the first failure has been minimized and reported */
  int restarts;
  size_t bad_lines; /* lines that answered nothing */
  tbuf good;        /* the body of an answer line judged equal (see fast_equal) */
  int aborted; /* setup error, deadline, or an implementation that keeps dying */
  split_mode mode;
  diff_opts d;
} cctx;

static void failure_head(cctx *x, const char *fmt, const char *arg) {
  if (x->r->summary) return;
  tbuf b = {0};
  tbuf_xprintf(&b, fmt, arg);
  x->r->summary = tbuf_take(&b, NULL);
}

/* A problem with the answer stream itself (not with one answer's content):
 * its own failure, with the line that shows it. */
static void framing_failure(cctx *x, const char *what, const char *line, size_t n) {
  case_result *r = x->r;
  r->status = CASE_FAIL;
  r->troubles++;
  r->modes[x->mode].failed = 1;
  if (++x->bad_lines > 5) {
    if (x->bad_lines == 6)
      tbuf_xadds(&r->report, "(more lines of that kind follow; not shown)\n");
    if (x->bad_lines > 1000 && !x->aborted) {
      x->aborted = 1;
      tbuf_xadds(&r->report, "more than 1000 lines that answer nothing: the rest of the case "
                             "was not run\n");
      if (x->t->cmd && x->t->running) {
        impl_stop(&x->t->im);
        x->t->running = 0;
      }
    }
    return;
  }
  tbuf_xprintf(&r->report, "split mode %s: %s", split_mode_names[x->mode], what);
  if (line) {
    tbuf_xadds(&r->report, ": ");
    bytes_show(&r->report, line, n, 300);
  }
  tbuf_xadds(&r->report, "\n");
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

/* Parses an answer line; big integers fall back to reals (see answer.h). */
static json_t *parse_line(const char *line, size_t n) {
  json_error_t jerr;
  json_t *o = json_loadb(line, n, JSON_ALLOW_NUL, &jerr);
  if (!o && json_error_code(&jerr) == json_error_numeric_overflow)
    o = json_loadb(line, n, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &jerr);
  if (!o && json_error_code(&jerr) == json_error_out_of_memory) die("out of memory");
  if (o && !json_is_object(o)) {
    json_decref(o);
    return NULL;
  }
  return o;
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

/* An answer line's object and its id; NULL after reporting a line that is
 * not a JSON object or has no integer id. */
static json_t *answer_object(cctx *x, const char *line, size_t n, int64_t *id) {
  json_t *o = parse_line(line, n);
  if (!o) {
    framing_failure(x, "a line from the implementation that is not a JSON object", line, n);
    return NULL;
  }
  if (line_id(o, id)) {
    framing_failure(x, "an answer without an integer id", line, n);
    json_decref(o);
    return NULL;
  }
  return o;
}

/* What is wrong with an answer whose id is `got` while `want` is awaited. */
static void id_problem(char *what, size_t wl, int64_t got, int64_t want) {
  if (got < want)
    snprintf(what, wl, "a second answer for request %lld (now waiting for request %lld)",
             (long long)got, (long long)want);
  else
    snprintf(what, wl, "answer id %lld does not match request id %lld", (long long)got,
             (long long)want);
}

/* After a crash, a timeout or an endless line: a report of it, and a
 * fresh process for what follows. */
static void broken(cctx *x, enum impl_event ev, answer *a) {
  target *t = x->t;
  x->r->troubles++;
  tbuf why = {0};
  const char *code = "impl_died";
  if (ev == IMPL_TIMEOUT) {
    code = "impl_timeout";
    tbuf_xprintf(&why, "no answer within %g s (--timeout); the implementation was killed",
                 t->io.timeout);
  } else if (ev == IMPL_TOOLONG) {
    code = "impl_bad_answer";
    tbuf_xprintf(&why, "an answer line longer than %zu bytes; the implementation was killed",
                 t->io.max_line);
  } else {
    tbuf_xadds(&why, "the implementation died while this request was in flight");
  }
  tbuf end = {0};
  if (t->cmd && t->running) {
    /* A hung one is ended first; its exit status is then ours, not news. */
    if (ev != IMPL_DIED) impl_stop(&t->im);
    impl_describe_end(&t->im, &end, "", ev == IMPL_DIED);
  }
  if (end.n) tbuf_xprintf(&why, "\n%s", end.p);
  while (why.n && why.p[why.n - 1] == '\n') why.p[--why.n] = '\0';
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
  tbuf_free(&end);
  if (t->cmd && t->running) {
    impl_stop(&t->im);
    t->running = 0;
  }
  if (++x->restarts > 8 && !x->aborted) {
    x->aborted = 1;
    tbuf_xadds(&x->r->report, "the implementation died or hung 8 times in this case; the rest "
                              "of the case was not run\n");
  }
}

/* One request, its answer (synchronously). Lines that answer nothing
 * pending are framing failures. */
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
    int64_t got;
    json_t *o = answer_object(x, line, n, &got);
    if (!o) continue;
    if (got != id) {
      char what[160];
      id_problem(what, sizeof what, got, id);
      framing_failure(x, what, line, n);
      json_decref(o);
      continue;
    }
    answer_from_json(a, o);
    json_decref(o);
    return;
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

/* A chunking whose answer differs: the first one of the case is reduced to
 * the smallest chunking that still fails and reported with the diff. */
static void answer_failure(cctx *x, const chunking *k, const answer *act) {
  case_result *r = x->r;
  r->status = CASE_FAIL;
  r->modes[x->mode].failed = 1;
  if (x->failed_once) return;
  x->failed_once = 1;
  chunking small = {0};
  chunking_copy(&small, k);
  const answer *shown = act;
  answer fresh;
  answer_init(&fresh);
  int crash = act->code && strncmp(act->code, "impl_", 5) == 0;
  int minimized = 0;
  if (!crash && !split_mode_streams(x->mode) && !x->aborted && k->n > 1) {
    minctx m = {x};
    minimize_chunking(&small, still_fails, &m, x->o->minimize_budget);
    if (small.n < k->n && !x->aborted) {
      request_sync(x, &small, &fresh);
      if (answer_diff(x->ref, &fresh, &x->d, NULL, "") != 0) {
        shown = &fresh;
        minimized = 1;
      } else {
        chunking_copy(&small, k); /* flaky: it passed on the re-run; show the original */
      }
    }
  }
  /* "smallest" once the minimizer had its say, even if it kept them all */
  int tried = !crash && !split_mode_streams(x->mode) && (minimized || k->n > 1);
  tbuf_xprintf(&r->report, "split mode %s; %s (%zu chunk%s): ", split_mode_names[x->mode],
               tried ? "smallest failing chunking" : "failing chunking", small.n,
               small.n == 1 ? "" : "s");
  show_chunking(x, &r->report, &small);
  tbuf_xadds(&r->report, "\n");
  if (shown->code && strncmp(shown->code, "impl_", 5) == 0) {
    tbuf_xprintf(&r->report, "%s: %s\n", shown->code, shown->message ? shown->message : "");
  } else if (answer_diff(x->ref, shown, &x->d, &r->report, "") == 0) {
    tbuf_xadds(&r->report, "(no difference on a re-run: the implementation is not "
                           "deterministic)\n");
  }
  tbuf_xprintf(&r->report, "source: %s\n", x->c->source);
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
  if (!l) {
    answer_failure(x, k, a);
  } else if (!l->set && !x->failed_once) {
    l->set = 1;
    chunking_copy(&l->k, k);
    l->a = *a; /* moved: the caller's copy is emptied */
    answer_init(a);
    x->r->status = CASE_FAIL;
    x->r->modes[x->mode].failed = 1;
  } else {
    x->r->status = CASE_FAIL;
    x->r->modes[x->mode].failed = 1;
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

/* No line but a crash, a timeout or an end: the oldest request without an
 * answer is blamed, and the rest sent again to a fresh process. */
static void batch_broken(batch *b, enum impl_event ev) {
  cctx *x = b->x;
  flight *f = &b->fl[b->head];
  answer a;
  broken(x, ev, &a);
  if (!x->aborted) b->mode_failed |= judge_later(x, &f->k, &a, &b->pending);
  answer_free(&a);
  b->head = (b->head + 1) % b->win;
  b->count--;
  for (size_t i = 0; i < b->count && !x->aborted; i++) {
    flight *g = &b->fl[(b->head + i) % b->win];
    size_t len;
    char *req = request_line(x->c, &g->k, g->id, 0, &len);
    target_send(x->t, req, len);
    free(req);
  }
}

/* An answer to no request in flight: late, or a wrong id. */
static void batch_stray(batch *b, int64_t id, const char *line, size_t n) {
  char what[200];
  int late = 0;
  for (size_t i = 0; i < sizeof b->skipped / sizeof b->skipped[0]; i++) late |= b->skipped[i] == id;
  if (late)
    snprintf(what, sizeof what, "a late answer for request %lld (answers must come in "
             "request order)", (long long)id);
  else
    id_problem(what, sizeof what, id, b->fl[b->head].id);
  framing_failure(b->x, what, line, n);
}

/* An answer line: matched with its request in flight and judged. */
static void batch_answer(batch *b, const char *line, size_t n) {
  cctx *x = b->x;
  if (b->count && !x->aborted) {
    int64_t held;
    if (fast_equal(x, line, n, b->fl[b->head].id, &held)) {
      if (held > x->r->max_held) x->r->max_held = held;
      b->head = (b->head + 1) % b->win;
      b->count--;
      return;
    }
  }
  int64_t id;
  json_t *o = answer_object(x, line, n, &id);
  if (!o) return;
  size_t at = b->count;
  for (size_t i = 0; i < b->count; i++)
    if (b->fl[(b->head + i) % b->win].id == id) at = i;
  if (at == b->count) {
    batch_stray(b, id, line, n);
    json_decref(o);
    return;
  }
  /* Answers come in request order: the requests before this one will not
   * be answered any more. Each is its own failure. */
  for (size_t i = 0; i < at; i++) {
    char what[240];
    snprintf(what, sizeof what,
             "the answer to request %lld came before the answer to request %lld (answers "
             "must come in request order; request %lld counts as unanswered)",
             (long long)id, (long long)b->fl[b->head].id, (long long)b->fl[b->head].id);
    framing_failure(x, what, line, n);
    b->skipped[b->nskipped++ % (sizeof b->skipped / sizeof b->skipped[0])] = b->fl[b->head].id;
    b->head = (b->head + 1) % b->win;
    b->count--;
  }
  flight *f = &b->fl[b->head];
  answer a;
  answer_from_json(&a, o);
  json_decref(o);
  int differs = judge_later(x, &f->k, &a, &b->pending);
  if (!differs && at == 0) remember_good(x, line, n);
  b->mode_failed |= differs;
  answer_free(&a);
  b->head = (b->head + 1) % b->win;
  b->count--;
}

static void batch_end(batch *b) {
  cctx *x = b->x;
  target *t = x->t;
  for (size_t i = 0; i < b->win; i++) chunking_free(&b->fl[i].k);
  free(b->fl);
  chunking_free(&b->k);
  if (b->count && t->cmd && t->running) {
    /* Requests left unanswered (an aborted run): a fresh process is simpler
     * than matching the stragglers. */
    impl_stop(&t->im);
    t->running = 0;
  }
  if (b->pending.set) {
    /* Nothing is in flight now: the first failure can be minimized. */
    x->r->modes[b->m].failed = 0;
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

typedef struct side {
  size_t cum[SLUICE_CHANNEL_COUNT]; /* bytes released so far per channel */
  char tail[SLUICE_CHANNEL_COUNT][4];
  size_t events; /* events so far (snapshots apart) */
  size_t before_finish; /* bytes and events released before finish */
} side;

static void side_add(side *s, const answer *d, int finishing) {
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    const tbytes *b = &d->chan[c];
    /* Keep the last 3 bytes of the channel for the UTF-8 allowance. */
    char tmp[8];
    size_t old = s->cum[c] < 3 ? s->cum[c] : 3, take = b->n < 3 ? b->n : 3;
    memcpy(tmp, s->tail[c], old);
    if (take) memcpy(tmp + old, b->p + b->n - take, take);
    size_t all = old + take, keep = all < 3 ? all : 3;
    memcpy(s->tail[c], tmp + all - keep, keep);
    s->cum[c] += b->n;
    if (!finishing) s->before_finish += b->n;
  }
  s->events += d->events.n;
  if (!finishing) s->before_finish += d->events.n + d->snapshots.n;
}

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
  if (d->value) {
    free(acc->value);
    acc->value = d->value;
    d->value = NULL;
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
  tbuf lat;     /* the first feed where the release differs */
  size_t fed;
  int64_t max_held;
  int ended;
} session;

/* Sends the session's request and opens the library beside it. -1 when
 * the run is aborted. */
static int session_open(cctx *x, const chunking *k, session *s) {
  target *t = x->t;
  const tcase *c = x->c;
  memset(s, 0, sizeof *s);
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

/* The session's line for feed i (k->n: the finish) into *d. 1: read; 0:
 * not an answer to this session (reported; the line is still awaited);
 * -1: the run is aborted; -2: the implementation broke (judged). */
static int session_read(cctx *x, const chunking *k, const session *s, size_t i, answer *d) {
  int finishing = i == k->n;
  char *line;
  size_t n;
  enum impl_event ev = target_next(x->t, &line, &n);
  if (ev != IMPL_LINE) {
    answer a;
    broken(x, ev, &a);
    if (!x->aborted) {
      tbuf_xprintf(&x->r->report, "(in the streaming session, at feed %zu of %zu)\n", i, k->n);
      judge(x, k, &a);
    }
    answer_free(&a);
    return -2;
  }
  if (x->aborted) return -1;
  int64_t got;
  json_t *o = answer_object(x, line, n, &got);
  if (o && got != s->id) {
    char what[200];
    id_problem(what, sizeof what, got, s->id);
    framing_failure(x, what, line, n);
    json_decref(o);
    o = NULL;
  }
  if (!o) return 0;
  json_t *feed = json_object_get(o, "feed");
  int feed_ok = finishing ? (json_is_string(feed) && strcmp(json_string_value(feed), "finish") == 0)
                          : (json_is_integer(feed) && json_integer_value(feed) == (json_int_t)i);
  answer_from_json(d, o);
  if (!feed_ok && d->ok) {
    char what[120];
    snprintf(what, sizeof what, "a session line whose \"feed\" is not %s", "the next feed");
    if (finishing) snprintf(what, sizeof what, "the session's last line must have \"feed\": \"finish\"");
    else snprintf(what, sizeof what, "a session line with the wrong \"feed\" (expected %zu)", i);
    framing_failure(x, what, line, n);
  }
  json_decref(o);
  return 1;
}

/* Whether what was released after feed i differs from the library's
 * release; the first difference is said in s->lat. */
static void session_compare(session *s, const chunking *k, size_t i, const answer *d,
                            const answer *rd) {
  tbuf *lat = &s->lat;
  /* Released so far, channel by channel: equal to the library's, but for
   * a UTF-8 sequence it has not finished (a character-based
   * implementation cannot release half a character). */
  for (int ch = 0; ch < SLUICE_CHANNEL_COUNT && !lat->n; ch++) {
    size_t a = s->im.cum[ch], b = s->ref.cum[ch];
    size_t slack = sluice_utf8_tail(s->ref.tail[ch], b < 3 ? b : 3);
    if (a == b || (a + slack == b && a <= b)) continue;
    tbuf_xprintf(lat, "after feed %zu of %zu (%zu bytes fed), %s: released %zu bytes, "
                      "the reference %zu: ",
                 i + 1, k->n, s->fed, sluice_channel_name((sluice_channel)ch), a, b);
    if (a < b)
      tbuf_xprintf(lat, "the implementation holds back %zu bytes that no rule can still "
                        "change",
                   b - a);
    else
      tbuf_xprintf(lat, "the implementation released %zu bytes that a rule could still "
                        "change",
                   a - b);
  }
  if (!lat->n && s->im.events != s->ref.events)
    tbuf_xprintf(lat, "after feed %zu of %zu (%zu bytes fed): %zu events so far, the "
                      "reference %zu",
                 i + 1, k->n, s->fed, s->im.events, s->ref.events);
  if (!lat->n && tstrs_diff(&rd->snapshots, &d->snapshots, "snapshots", NULL, "")) {
    tbuf_xprintf(lat, "after feed %zu of %zu (%zu bytes fed), the snapshots differ:\n", i + 1,
                 k->n, s->fed);
    tstrs_diff(&rd->snapshots, &d->snapshots, "snapshots", lat, "      ");
  }
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
  side_add(&s->im, d, finishing);
  side_add(&s->ref, &rd, finishing);
  /* Compared where the bytes fed so far end on a character boundary: an
   * implementation that works on characters decides there, with the same
   * information as the library (which works on bytes). */
  int boundary = finishing || sluice_utf8_tail(c->input.p, s->fed) == 0;
  if (!s->lat.n && d->ok && rd.ok && boundary) session_compare(s, k, i, d, &rd);
  int64_t total = 0;
  for (int ch = 0; ch < SLUICE_CHANNEL_COUNT; ch++) total += (int64_t)s->im.cum[ch];
  if ((int64_t)s->fed - total > s->max_held) s->max_held = (int64_t)s->fed - total;
  if (!d->ok) s->ended = 1;
  acc_add(&s->acc, d);
  answer_free(d);
  answer_free(&rd);
}

/* The session's output judged, then its latency. */
static void session_verdict(cctx *x, const chunking *k, session *s) {
  if (s->max_held > x->r->max_held) x->r->max_held = s->max_held;
  int output_failed = judge(x, k, &s->acc);
  tbuf *lat = &s->lat;
  if (!output_failed && s->im.before_finish == 0 && s->ref.before_finish > 0) {
    /* The whole diagnosis, rather than the first feed that shows it. */
    lat->n = 0;
    tbuf_xprintf(lat, "the implementation released nothing until finish, where the "
                      "reference released %zu bytes and events along the way: it buffers "
                      "the whole stream",
                 s->ref.before_finish);
  }
  if (!output_failed && lat->n && x->o->latency != LAT_OFF) {
    case_result *r = x->r;
    while (lat->n && lat->p[lat->n - 1] == '\n') lat->p[--lat->n] = '\0';
    if (!r->latency_report.n) {
      tbuf_xprintf(&r->latency_report, "latency, split mode %s (%zu feeds): ",
                   split_mode_names[x->mode], k->n);
      tbuf_xadd(&r->latency_report, lat->p, lat->n);
      tbuf_xadds(&r->latency_report, "\nchunking: ");
      show_chunking(x, &r->latency_report, k);
      tbuf_xprintf(&r->latency_report, "\nsource: %s\n", x->c->source);
    }
    r->modes[x->mode].latency = 1;
    r->latency_failed = 1;
  }
}

static void run_session(cctx *x, const chunking *k) {
  session s;
  if (session_open(x, k, &s)) return;
  int broke = 0;
  for (size_t i = 0; i <= k->n && !s.ended && !x->aborted; i++) {
    answer d;
    int got = session_read(x, k, &s, i, &d);
    if (got == -2) broke = 1;
    if (got < 0) break;
    if (got == 0) {
      i--; /* the same feed's line is still awaited */
      continue;
    }
    session_step(x, k, &s, i, &d);
  }
  refrun_close(&s.rr);
  if (!x->aborted && !broke) session_verdict(x, k, &s);
  answer_free(&s.acc);
  tbuf_free(&s.lat);
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
      case_result *r = x->r;
      r->status = CASE_FAIL;
      r->modes[M_RECORDED].failed = 1;
      tbuf_xadds(&r->report, "split mode recorded; the case's chunking: ");
      show_chunking(x, &r->report, k);
      tbuf_xadds(&r->report, "\n");
      answer_diff(&want, &a, &d, &r->report, "");
      tbuf_xprintf(&r->report, "source: %s\n", x->c->source);
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
  while (!x->aborted && split_next(&it, &k)) run_session(x, &k);
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

/* The reference of every split: after the whole input's answer, what
 * each split is judged against (the case's expected answer; for an i_
 * case or sluice diff, the whole input's). -1 when the case is over. */
static int settle_reference(cctx *x, const chunking *whole) {
  case_result *r = x->r;
  if (x->o->self) {
    /* Another implementation, judged against itself: every split must give
     * its whole-input answer, in the fields that answer has. A crash or a
     * timeout there is reported, and the request tried once more on a
     * fresh process: a broken answer is no reference. */
    for (int tries = 0; x->whole.code && strncmp(x->whole.code, "impl_", 5) == 0; tries++) {
      r->status = CASE_FAIL;
      tbuf_xprintf(&r->report, "split mode whole: %s: %s\n", x->whole.code,
                   x->whole.message ? x->whole.message : "");
      failure_head(x, "%s", "split mode whole");
      if (tries == 1 || x->aborted) return -1;
      answer_free(&x->whole);
      request_sync(x, whole, &x->whole);
      if (x->aborted) return -1;
    }
    if (x->whole.ok) x->d.fields = answer_fields(&x->whole);
    x->ref = &x->whole;
  } else if (x->c->verdict == 'i') {
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
    size_t before = r->chunkings;
    if (split_mode_streams((split_mode)m)) run_stream_mode(x, (split_mode)m);
    else if (m == M_RECORDED) run_recorded(x);
    else run_batch_mode(x, (split_mode)m);
    r->modes[m].run = r->chunkings > before;
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

/* A case that pins its largest hold-back fails on another. */
static void check_held(cctx *x) {
  case_result *r = x->r;
  const tcase *c = x->c;
  if (!x->aborted && !x->o->self && c->expect_held >= 0 && r->status != CASE_FAIL &&
      r->max_held >= 0 && r->max_held != c->expect_held) {
    r->status = CASE_FAIL;
    tbuf_xprintf(&r->report, "largest hold-back was %lld bytes, the case pins %lld\nsource: %s\n",
                 (long long)r->max_held, (long long)c->expect_held, c->source);
    failure_head(x, "%s", "hold-back");
  }
}

void check_case(target *t, const tcase *c, const check_opts *o, case_result *r) {
  memset(r, 0, sizeof *r);
  r->max_held = -1;
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
