/*
 * gatesuite.c: the gate's cases made from the golden suites (--suite).
 *
 * A middleware's own filters meet the model's text, so the suites' texts
 * become provider streams: the inputs of think, clean and harmony as a
 * choice's content, those of json as one tool call's arguments, written by
 * libsluice's writer in OpenAI chat or Anthropic shape (--suite-as) with
 * the deltas cut where the case's own chunks end (the cuts its author chose
 * to hit an edge; --resplit cuts them every other way). What the middleware
 * must do with them is worked out as for a capture, by the reference.
 *
 * `sse` is the SSE framing at the byte level: one stream (reasoning, text
 * and a tool call) framed each way the SSE spec lets a server write it and
 * a client must read it: CRLF, CR alone, a byte-order mark, comments, no
 * space after "data:", id and retry fields, an event's data over two lines.
 *
 * An input that is not UTF-8 cannot be carried in a JSON string, and an
 * input met before in the same suite adds nothing: both are left out (the
 * count says how many).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "suite.h"

static const char *const content_suites[] = {"think", "clean", "harmony", "json", NULL};

/* ---------------- a stream's events ---------------- */

typedef struct maker {
  rs_content c;
  sluice_sink sink;
} maker;

static void maker_open(maker *m, sluice_endpoint as) {
  memset(m, 0, sizeof *m);
  m->c.endpoint = as;
  snprintf(m->c.model, sizeof m->c.model, "sluice-suite");
  if (sluice_output_new(&m->c.events, NULL) != SLUICE_OK) die("out of memory");
  m->sink = sluice_output_sink(m->c.events);
}

static void put(maker *m, sluice_event_type t, const char *name, const char *data, size_t n,
                uint64_t length, const char *id) {
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = t;
  ev.name = name;
  ev.name_len = name ? strlen(name) : 0;
  ev.data = data;
  ev.data_len = n;
  ev.id = id;
  ev.id_len = id ? strlen(id) : 0;
  ev.length = length;
  ev.complete = 1;
  m->sink.event(m->sink.user, &ev);
  if (t == SLUICE_EV_DELTA) m->c.points += sluice_utf8_count(data, n);
}

/* A choice's text, or a tool call's arguments, then its end. */
static void content_events(maker *m, const char *p, size_t n, int as_arguments) {
  if (as_arguments) {
    put(m, SLUICE_EV_TOOL_CALL, "get_weather", NULL, 0, 0, "call_sluice_1");
    put(m, SLUICE_EV_DELTA, "arguments", p, n, 0, NULL);
    put(m, SLUICE_EV_FINISH, "tool_calls", NULL, 0, 0, NULL);
  } else {
    put(m, SLUICE_EV_DELTA, "text", p, n, 0, NULL);
    put(m, SLUICE_EV_FINISH, "stop", NULL, 0, 0, NULL);
  }
  put(m, SLUICE_EV_END, NULL, NULL, 0, 0, NULL);
}

/* The capture the cases are written like. */
static void template_of(capture *like, const char *path, const char *name, sluice_endpoint as) {
  memset(like, 0, sizeof *like);
  like->path = (char *)path;
  like->name = (char *)name;
  like->format = SLUICE_CAPTURE_SSE;
  like->family = as;
  like->status = 200;
  like->model = "sluice-suite";
}

/* Writes m's events as spec cuts them and adds the case. */
static int add_written(gate *g, maker *m, const char *path, const char *id,
                       const rs_spec *spec) {
  capture like, cap;
  template_of(&like, path, id, m->c.endpoint);
  if (gate_capture_write(&cap, &like, &m->c, spec)) die("the writer failed on its own events");
  return gate_add_case(g, id, &cap, NULL);
}

/* ---------------- the content suites ---------------- */

/* The content positions (code points) where the case's own chunks end,
 * ascending, inside the text. */
static size_t chunk_points(const tcase *c, uint64_t **at) {
  *at = xmalloc(xmul(c->recorded.n + 1, sizeof **at));
  size_t n = 0, off = 0;
  uint64_t total = sluice_utf8_count(c->input.p, c->input.n);
  for (size_t i = 0; c->has_recorded && i + 1 < c->recorded.n; i++) {
    off += c->recorded.len[i];
    uint64_t pos = sluice_utf8_count(c->input.p, off);
    if (pos > 0 && pos < total && (!n || pos > (*at)[n - 1])) (*at)[n++] = pos;
  }
  return n;
}

/* FNV-1a: the inputs met before (a table of their hashes). */
static uint64_t hash_of(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h ? h : 1;
}

typedef struct seen {
  uint64_t *v;
  size_t cap, n;
} seen;

/* 1 if h was met before; else remembers it. */
static int seen_before(seen *s, uint64_t h) {
  if (2 * (s->n + 1) > s->cap) {
    seen bigger = {xcalloc(s->cap ? s->cap * 2 : 256, sizeof *s->v), s->cap ? s->cap * 2 : 256, 0};
    for (size_t i = 0; i < s->cap; i++)
      if (s->v[i]) seen_before(&bigger, s->v[i]);
    free(s->v);
    *s = bigger;
  }
  size_t i = (size_t)(h % s->cap);
  while (s->v[i] && s->v[i] != h) i = (i + 1) % s->cap;
  if (s->v[i]) return 1;
  s->v[i] = h;
  s->n++;
  return 0;
}

static int content_suite(gate *g, const char *name, sluice_endpoint as) {
  const char *names[1] = {name};
  suite_select sel = {suites_dir_default(), names, 1, NULL, 0};
  if (!sel.dir) {
    fprintf(stderr, "sluice gate: --suite: the suites folder is not found (set SLUICE_SUITES)\n");
    return -1;
  }
  caselist cl;
  memset(&cl, 0, sizeof cl);
  cl.digest = g->suites.digest; /* one digest over every suite's files, in order */
  cl.files = g->suites.files;
  int loaded = suites_load(&cl, &sel, "gate");
  g->suites.digest = cl.digest;
  g->suites.files = cl.files;
  if (!g->suites.version && cl.version) g->suites.version = xstrdup(cl.version);
  if (loaded) {
    caselist_free(&cl);
    return -1;
  }
  case_filter by_feature = g->o.sel; /* --shard is the gate's, over every case */
  by_feature.shard_n = 0;
  if (caselist_select(&cl, &by_feature, "gate")) {
    caselist_free(&cl);
    return -1;
  }
  seen met = {0};
  size_t added = 0, not_utf8 = 0, again = 0;
  int rc = 0, args = strcmp(name, "json") == 0;
  for (size_t i = 0; i < cl.n && !rc; i++) {
    const tcase *c = &cl.v[i];
    if (!sluice_utf8_valid(c->input.p, c->input.n)) {
      not_utf8++;
      continue;
    }
    if (seen_before(&met, hash_of(c->input.p, c->input.n))) {
      again++;
      continue;
    }
    maker m;
    maker_open(&m, as);
    content_events(&m, c->input.p ? c->input.p : "", c->input.n, args);
    uint64_t *at;
    size_t nat = chunk_points(c, &at);
    rs_spec spec = {RS_WHOLE, 0, NULL, 0};
    if (nat) rs_at(&spec, at, nat);
    free(at);
    tbuf id = {0};
    tbuf_xprintf(&id, "%s/%s", c->suite, c->id);
    rc = add_written(g, &m, c->file, id.p, &spec);
    tbuf_free(&id);
    rs_spec_free(&spec);
    rs_free(&m.c);
    added++;
  }
  free(met.v);
  caselist_free(&cl);
  if (!g->o.quiet)
    fprintf(stderr, "sluice gate: suite %s: %zu cases (%zu inputs not UTF-8, %zu met before, left out)\n",
            name, added, not_utf8, again);
  return rc;
}

/* ---------------- SSE framing ---------------- */

/* The stream every framing carries: reasoning, text and a tool call. */
static void framing_events(maker *m) {
  static const char reasoning[] = "The user wants a greeting; keep it short.";
  static const char text[] = "Hello! \xC3\xA9t\xC3\xA9 \xE2\x80\x94 caf\xC3\xA9 \xF0\x9F\x98\x80\n";
  static const char args[] = "{\"city\": \"Paris\", \"units\": \"c\"}";
  put(m, SLUICE_EV_DELTA, "reasoning", reasoning, sizeof reasoning - 1, 0, NULL);
  put(m, SLUICE_EV_DELTA, "text", text, sizeof text - 1, 0, NULL);
  put(m, SLUICE_EV_TOOL_CALL, "get_weather", NULL, 0, 0, "call_sluice_1");
  put(m, SLUICE_EV_DELTA, "arguments", args, sizeof args - 1, 0, NULL);
  put(m, SLUICE_EV_FINISH, "tool_calls", NULL, 0, 0, NULL);
  put(m, SLUICE_EV_END, NULL, NULL, 0, 0, NULL);
}

typedef enum framing { FR_CRLF, FR_CR, FR_BOM, FR_COMMENTS, FR_NOSPACE, FR_FIELDS, FR_TWOLINES,
                       FR_COUNT } framing;
static const char *const framing_names[FR_COUNT] = {"crlf", "cr", "bom", "comments",
                                                     "no-space", "id-retry", "data-two-lines"};

/* Where an event's data (one JSON object) may be cut into two data lines:
 * after its first comma outside a string (the line break joining them is
 * whitespace to JSON). 0 when there is none. */
static size_t json_break(const char *p, size_t n) {
  int in_str = 0;
  for (size_t i = 0; i < n; i++) {
    if (in_str) {
      if (p[i] == '\\') i++;
      else if (p[i] == '"') in_str = 0;
    } else if (p[i] == '"') in_str = 1;
    else if (p[i] == ',') return i + 1;
  }
  return 0;
}

/* One line of the LF-framed body, written again in framing f. */
static void frame_line(tbuf *out, framing f, const char *line, size_t n, size_t *events) {
  const char *eol = f == FR_CRLF ? "\r\n" : f == FR_CR ? "\r" : "\n";
  int data = n >= 6 && memcmp(line, "data: ", 6) == 0;
  if (!n) {
    tbuf_xadd(out, eol, strlen(eol));
    return;
  }
  if (data && f == FR_COMMENTS) tbuf_xprintf(out, ": keep-alive%s%s", eol, eol);
  if (data && f == FR_FIELDS) tbuf_xprintf(out, "id: %zu\nretry: 3000\n", ++*events);
  if (data && f == FR_NOSPACE) {
    tbuf_xadd(out, "data:", 5);
    tbuf_xadd(out, line + 6, n - 6);
  } else if (data && f == FR_TWOLINES && json_break(line + 6, n - 6)) {
    size_t cut = 6 + json_break(line + 6, n - 6);
    tbuf_xadd(out, line, cut);
    tbuf_xadd(out, "\ndata: ", 7);
    tbuf_xadd(out, line + cut, n - cut);
  } else {
    tbuf_xadd(out, line, n);
  }
  if (data && f == FR_COMMENTS) tbuf_xprintf(out, "%s: a comment inside the event", eol);
  tbuf_xadd(out, eol, strlen(eol));
}

/* The body framed in f: one piece per event, as a server flushes them. */
static void reframe(capture *dst, const capture *src, framing f) {
  tbuf out = {0};
  size_t *ends = NULL, nends = 0, events = 0;
  if (f == FR_BOM) tbuf_xadd(&out, "\xEF\xBB\xBF", 3);
  const char *p = src->body.p, *end = p + src->body.n;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    frame_line(&out, f, p, n, &events);
    if (!n) {
      ends = xrealloc(ends, xmul(nends + 1, sizeof *ends));
      ends[nends++] = out.n;
    }
    p += n + (nl ? 1 : 0);
  }
  gate_capture_dup(dst, src);
  capture_set_body(dst, &out, ends, nends);
  free(ends);
}

static int sse_suite(gate *g, sluice_endpoint as) {
  maker m;
  maker_open(&m, as);
  framing_events(&m);
  capture like, plain;
  template_of(&like, "suite:sse", "sse", as);
  rs_spec spec = {RS_WHOLE, 0, NULL, 0};
  if (gate_capture_write(&plain, &like, &m.c, &spec)) die("the writer failed on its own events");
  rs_free(&m.c);
  int rc = 0;
  for (int f = 0; f < FR_COUNT && !rc; f++) {
    capture cap;
    reframe(&cap, &plain, (framing)f);
    char id[64];
    snprintf(id, sizeof id, "sse/%s", framing_names[f]);
    rc = gate_add_case(g, id, &cap, "a framing case: its deltas written again would be framed "
                                    "plainly (the plain stream's are the other cases')");
  }
  capture_free(&plain);
  return rc;
}

int gate_suite_cases(gate *g, const char *list) {
  sluice_endpoint as = SLUICE_ENDPOINT_OPENAI_CHAT;
  if (g->o.suite_as) {
    as = sluice_endpoint_from_name(g->o.suite_as);
    if (!rs_supported(as)) {
      fprintf(stderr, "sluice gate: --suite-as: openai-chat or anthropic, not \"%s\"\n",
              g->o.suite_as);
      return -1;
    }
  }
  char *copy = xstrdup(list), *save = NULL;
  int rc = 0;
  for (char *s = strtok_r(copy, ",", &save); s && !rc; s = strtok_r(NULL, ",", &save)) {
    int all = strcmp(s, "all") == 0, known = all;
    for (size_t i = 0; content_suites[i] && !rc; i++)
      if (all || strcmp(s, content_suites[i]) == 0) {
        known = 1;
        rc = content_suite(g, content_suites[i], as);
      }
    if (!rc && (all || strcmp(s, "sse") == 0)) {
      known = 1;
      rc = sse_suite(g, as);
    }
    if (!known) {
      fprintf(stderr, "sluice gate: --suite: think, clean, harmony, json, sse or all, not \"%s\"\n",
              s);
      rc = -1;
    }
  }
  free(copy);
  return rc;
}
