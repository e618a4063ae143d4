/*
 * bench_peers.c: `sluice bench peers`, the reference filters against the
 * JavaScript peers people would use instead, in the same run, on the same
 * generated inputs and chunking.
 *
 * The peers run in one long-lived node process (conformance/peers/bench.mjs,
 * which builds them as `sluice diff` does), driven with the kit's child
 * driver: a time limit on every measurement, bounded output, the whole
 * process group ended afterwards. Each input is written once to a temporary
 * file that the runner reads; it answers with the CPU time of each run
 * (process.cpuUsage: user + system, every thread of the process) and what
 * came out, so that a peer that silently did nothing shows. The reference
 * is timed here with the harness (this thread's CPU time). Medians of
 * --reps runs on both sides, after a warm-up on both sides.
 *
 * Each input comes at sizes that double, so that t(2N)/t(N) shows whether
 * an implementation is linear. Some peers are not (jsonrepair, on input
 * with a repair every few bytes), so a measurement has a time budget:
 * a first run over it is the figure for that size, and the larger sizes of
 * that peer and input are skipped, or a full run would take hours.
 *
 * A benchmark, not a test: it prints figures and never fails on speed.
 */
#include "harness.h"
#include "tools.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const opt_cmd peers_cmd = {
    .name = "bench peers",
    .synopsis = "[options]",
    .intro =
        "Times the reference filters against their JavaScript peers (the pinned npm\n"
        "packages in conformance/peers, scripts/install-peers) on generated input fed\n"
        "a chunk at a time, as a network delivers it, at sizes that double, so that\n"
        "t(2N)/t(N) shows how each scales (2.00: linear):\n"
        "  think  the dense text of `sluice bench think`, 1, 2 and 4 MiB at chunks of\n"
        "         4, 64 and 65536 bytes, against the AI SDK's extractReasoningMiddleware\n"
        "         (wrapStream, a turn of the event loop per chunk);\n"
        "  json   inputs of `sluice bench json` (valid, llm-messy: a repair every few\n"
        "         bytes) and a valid document cut mid-string (truncated), 1, 2, 4 and\n"
        "         8 MiB at 4096-byte chunks: the json filter, and the filter plus\n"
        "         jansson's load of its value (the reference: the peers make a value),\n"
        "         against jsonrepair, jsonrepair/stream (a turn per chunk),\n"
        "         partial-json, best-effort-json-parser and the AI SDK's\n"
        "         parsePartialJson;\n"
        "  sse    N MiB (--mb, default 50) of the OpenAI events of `sluice bench sse`\n"
        "         at 16 and 65536-byte chunks against eventsource-parser.\n"
        "event-loop is not a peer: a turn of node's event loop per chunk and nothing\n"
        "else, the floor under the peers driven a turn per chunk.\n"
        "\n"
        "Prints MB/s on the CPU clock (sluice: its thread's; node: process.cpuUsage of\n"
        "the runner; medians of --reps runs, default 5), each CPU time as a multiple\n"
        "of the reference's at that size, t(2N)/t(N), and whether the peer's output\n"
        "is the reference's (\"same\": as many bytes and items). \"fails\": the peer\n"
        "threw on that input. --budget S (default 20): a measurement whose first run\n"
        "takes longer shows that run, and the peer's larger sizes of that input print\n"
        "\"over budget\" (its timed runs also stop once together over S). --chunk N:\n"
        "that chunk size only; --peer NAME: that peer only (exit 2 when it cannot run);\n"
        "--quick: 16 KiB units and a 5 s budget, for a smoke run.\n"
        "Without node or the packages it prints \"peers not installed\" and exits 0.\n",
};

/* The reference's CPU time is this thread's; the peer's is its process's.
 * A measurement that runs longer than this (or 15 budgets) is given up
 * (seconds). */
#define PEER_TIMEOUT 300.0

typedef struct peer {
  const char *name;    /* as bench.mjs and conformance/peers name it */
  const char *filter;  /* the reference it is compared with; NULL: the floor */
  const char *package; /* what node_modules must hold for it */
} peer;

static const peer peers[] = {
    {"ai-sdk", "think", "ai"},
    {"jsonrepair", "json", "jsonrepair"},
    {"jsonrepair-stream", "json", "jsonrepair"},
    {"partial-json", "json", "partial-json"},
    {"best-effort-json-parser", "json", "best-effort-json-parser"},
    {"ai-sdk-partial-json", "json", "ai"},
    {"eventsource-parser", "sse", "eventsource-parser"},
    {"event-loop", NULL, NULL},
};
#define NPEERS (sizeof peers / sizeof peers[0])

/* What came out of a run: the bytes (think: text and thought; json: the
 * value as compact JSON; sse: the events' data) and the items (think: the
 * thought bytes; json: the top-level value's members; sse: the events). */
typedef struct output {
  uint64_t bytes, items;
} output;

/* ---------------- the reference ---------------- */

typedef struct ref_run {
  const char *filter;
  const char *p;
  size_t n, chunk;
  int with_load; /* json: also jansson's load of the value */
  int failed;
  output out;
  tbuf value; /* json: the VALUE event's text */
} ref_run;

static int ref_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  ref_run *r = user;
  (void)p;
  if (ch == SLUICE_TEXT || ch == SLUICE_THOUGHT) r->out.bytes += n;
  if (ch == SLUICE_THOUGHT) r->out.items += n;
  return 0;
}

static int ref_event(void *user, const sluice_event *ev) {
  ref_run *r = user;
  if (ev->type == SLUICE_EV_SSE) {
    r->out.items++;
    r->out.bytes += ev->data_len;
  } else if (ev->type == SLUICE_EV_VALUE) {
    tbuf_xadd(&r->value, ev->data, ev->data_len);
  }
  return 0;
}

/* The json filter's value, loaded by jansson: its members and its compact
 * text (what JSON.stringify makes of the peers' values). -1 if it fails. */
static int value_output(const tbuf *v, output *out) {
  json_t *j = json_loadb(v->p ? v->p : "", v->n, JSON_DECODE_ANY, NULL);
  if (!j) return -1;
  out->items = json_is_array(j) ? json_array_size(j) : json_is_object(j) ? json_object_size(j) : 0;
  char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
  out->bytes = s ? strlen(s) : 0;
  free(s);
  json_decref(j);
  return 0;
}

static void ref_body(void *v) {
  ref_run *r = v;
  sluice_sink sink = {ref_emit, ref_event, r};
  sluice_filter *f = NULL;
  sluice_status st;
  memset(&r->out, 0, sizeof r->out);
  r->value.n = 0;
  if (strcmp(r->filter, "think") == 0) {
    sluice_think_opts o;
    sluice_think_opts_init(&o);
    st = sluice_think_new(&f, &o, &sink, NULL, NULL);
  } else if (strcmp(r->filter, "json") == 0) {
    sluice_json_opts o;
    sluice_json_opts_init(&o);
    st = sluice_json_new(&f, &o, &sink, NULL, NULL);
  } else {
    st = sluice_sse_new(&f, NULL, &sink, NULL, NULL);
  }
  if (st == SLUICE_OK) st = bench_feed(f, r->p, r->n, r->chunk, NULL);
  sluice_free(f);
  if (st != SLUICE_OK) {
    r->failed = 1;
    return;
  }
  if (r->with_load) { /* the value, as the peers make one */
    json_t *j = json_loadb(r->value.p ? r->value.p : "", r->value.n, JSON_DECODE_ANY, NULL);
    if (!j) r->failed = 1;
    json_decref(j);
  }
}

/* ---------------- the runner ---------------- */

/* Is `name` an executable file in a folder of $PATH? */
static int on_path(const char *name) {
  const char *path = getenv("PATH");
  if (!path) return 0;
  for (const char *p = path;;) {
    const char *e = strchr(p, ':');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    tbuf f = {0};
    tbuf_xprintf(&f, "%.*s/%s", (int)l, l ? p : ".", name);
    int ok = access(f.p, X_OK) == 0;
    tbuf_free(&f);
    if (ok) return 1;
    if (!e) return 0;
    p = e + 1;
  }
}

/* conformance/peers: $SLUICE_PEERS, else the source tree's (a sluice run
 * from its build folder; the peers are not installed). NULL when neither. */
static const char *peers_dir(void) {
  static char dir[4096];
  const char *env = getenv("SLUICE_PEERS");
  if (env && *env) return env;
  return data_path(NULL, "conformance/peers", dir, sizeof dir);
}

static int installed(const char *package) {
  struct stat st;
  tbuf d = {0};
  tbuf_xprintf(&d, "%s/node_modules/%s", peers_dir(), package);
  int ok = stat(d.p, &st) == 0 && S_ISDIR(st.st_mode);
  tbuf_free(&d);
  return ok;
}

typedef struct runner {
  impl im;
  int running;
} runner;

static int runner_start(runner *r, double timeout) {
  tbuf cmd = {0};
  tbuf_xadds(&cmd, "cd ");
  sh_quote(&cmd, peers_dir());
  tbuf_xadds(&cmd, " && exec node bench.mjs");
  /* its stderr is kept quiet (a table is being printed) but its last lines
   * are shown when it fails */
  impl_opts o = {cmd.p, timeout, 1u << 20, 0, 1};
  int rc = impl_start(&r->im, &o);
  if (rc) fprintf(stderr, "sluice bench peers: cannot start node: %s\n", strerror(errno));
  else r->running = 1;
  /* the driver keeps the pointer: the command lives as long as the run */
  if (rc) tbuf_free(&cmd);
  return rc;
}

static void runner_stop(runner *r) {
  if (!r->running) return;
  char *cmd = (char *)r->im.o.cmd;
  impl_stop(&r->im);
  free(cmd);
  r->running = 0;
}

typedef struct peer_result {
  int ok;
  double cpu; /* median seconds per run */
  output out;
  unsigned long checksum;
  int over; /* its one run took longer than the budget */
  int runs; /* how many runs the median is of */
  char error[200];
} peer_result;

/* One measurement: the command out, its answer back within the time limit.
 * Returns -1 when the runner itself failed (it is stopped then; the reason
 * was printed), else 0 with *res (res->ok 0: the peer threw). */
static int runner_measure(runner *r, const char *name, const char *file, size_t chunk, int reps,
                          double budget, peer_result *res) {
  memset(res, 0, sizeof *res);
  json_t *cmd = json_pack("{s:s, s:s, s:I, s:i, s:f}", "peer", name, "file", file, "chunk",
                          (json_int_t)chunk, "reps", reps, "budget", budget);
  char *line = cmd ? json_dumps(cmd, JSON_COMPACT) : NULL;
  json_decref(cmd);
  if (!line) die("out of memory");
  impl_send(&r->im, line, strlen(line));
  free(line);
  char *ans;
  size_t n;
  enum impl_event ev = impl_next_line(&r->im, &ans, &n);
  if (ev != IMPL_LINE) {
    fprintf(stderr, "sluice bench peers: %s: the node runner %s\n", name,
            ev == IMPL_TIMEOUT   ? "took longer than the time limit"
            : ev == IMPL_TOOLONG ? "answered a line over 1 MiB"
                                 : "ended");
    tbuf why = {0};
    impl_describe_end(&r->im, &why, "  ", ev == IMPL_DIED);
    if (why.n) fputs(why.p, stderr);
    tbuf_free(&why);
    runner_stop(r);
    return -1;
  }
  json_error_t jerr;
  json_t *a = json_loadb(ans, n, 0, &jerr);
  json_t *runs = json_object_get(a, "runs");
  if (!a || !json_is_object(a)) {
    fprintf(stderr, "sluice bench peers: %s: the runner's answer is not JSON: %s\n", name,
            jerr.text);
    json_decref(a);
    runner_stop(r);
    return -1;
  }
  if (!json_is_true(json_object_get(a, "ok"))) {
    const char *e = json_string_value(json_object_get(a, "error"));
    snprintf(res->error, sizeof res->error, "%s", e ? e : "failed, no reason given");
  } else if (!json_is_array(runs) || json_array_size(runs) == 0 ||
             json_array_size(runs) > 1000) {
    snprintf(res->error, sizeof res->error, "an answer without runs");
  } else {
    size_t k = json_array_size(runs);
    double *t = xcalloc(k, sizeof *t);
    for (size_t i = 0; i < k; i++) t[i] = json_number_value(json_array_get(runs, i));
    res->cpu = bench_median(t, (int)k);
    free(t);
    res->out.bytes = (uint64_t)json_integer_value(json_object_get(a, "out_bytes"));
    res->out.items = (uint64_t)json_integer_value(json_object_get(a, "items"));
    res->checksum = (unsigned long)json_integer_value(json_object_get(a, "checksum"));
    res->over = json_is_true(json_object_get(a, "over_budget"));
    res->runs = (int)k;
    res->ok = 1;
  }
  json_decref(a);
  return 0;
}

/* ---------------- inputs ---------------- */

/* What is measured: a filter's input of one kind at several sizes (each
 * twice the one before, for t(2N)/t(N)), fed at each chunk size. */
#define MAX_SIZES 4
#define MAX_CHUNKS 3
typedef struct bcase {
  const char *filter, *kind;
  size_t nsizes, sizes[MAX_SIZES]; /* bytes, before the generator rounds up */
  size_t nchunks, chunks[MAX_CHUNKS];
} bcase;

typedef struct input {
  char *text;
  size_t n;
  tbuf path; /* the temporary file the runner reads */
} input;

/* A valid document cut in the middle of a string near its end, as a
 * stream that stopped does: what the partial-JSON parsers are for. */
static char *truncated_json(size_t size, size_t *n) {
  char *t = bench_json_text("valid", size, n);
  char *q = t && *n > 400 ? strstr(t + *n - 400, "line\\nwith") : NULL;
  if (!q) {
    free(t);
    return NULL;
  }
  *n = (size_t)(q - t) + 2;
  t[*n] = '\0';
  return t;
}

static char *generate(const bcase *c, size_t size, size_t *n) {
  if (strcmp(c->filter, "think") == 0) {
    *n = size;
    return bench_think_text(c->kind, size);
  }
  if (strcmp(c->filter, "json") == 0)
    return strcmp(c->kind, "truncated") == 0 ? truncated_json(size, n)
                                             : bench_json_text(c->kind, size, n);
  tbuf b = {0};
  char *t = bench_sse_text(&b, size) == 0 ? tbuf_take(&b, n) : NULL;
  tbuf_free(&b);
  return t;
}

/* Generates the case's input and writes it to a new temporary file. */
static int input_make(input *in, const bcase *c, size_t size) {
  memset(in, 0, sizeof *in);
  in->text = generate(c, size, &in->n);
  if (!in->text) {
    fprintf(stderr, "sluice bench peers: cannot generate the %s %s input\n", c->filter,
            c->kind);
    return -1;
  }
  const char *dir = getenv("TMPDIR");
  tbuf_xprintf(&in->path, "%s/sluice-bench-peers-%s-XXXXXX", dir && *dir ? dir : "/tmp",
               c->filter);
  int fd = mkstemp(in->path.p);
  if (fd < 0) {
    fprintf(stderr, "sluice bench peers: cannot create %s: %s\n", in->path.p, strerror(errno));
    tbuf_free(&in->path);
    free(in->text);
    return -1;
  }
  int bad = write_all(fd, in->text, in->n);
  if (close(fd)) bad = -1;
  if (bad) {
    fprintf(stderr, "sluice bench peers: cannot write %s: %s\n", in->path.p, strerror(errno));
    unlink(in->path.p);
    tbuf_free(&in->path);
    free(in->text);
    return -1;
  }
  return 0;
}

static void input_free(input *in) {
  if (in->path.p && unlink(in->path.p))
    fprintf(stderr, "sluice bench peers: cannot remove %s: %s\n", in->path.p, strerror(errno));
  tbuf_free(&in->path);
  free(in->text);
}

/* ---------------- a table: one case at one chunk size ---------------- */

/* A row's figure at one size. OVER: not measured, a smaller size of the
 * same row was over the budget already. */
enum cell_state { C_NONE, C_OK, C_FAILS, C_OVER };
typedef struct cell {
  enum cell_state st;
  double cpu; /* seconds per run */
  size_t bytes;
  output out;
} cell;

/* The rows: the reference's (json: the filter alone, then the filter plus
 * jansson's load, the reference, since the peers make a value) and the
 * wanted peers of the filter (think: and the event-loop floor). */
#define MAX_ROWS (2 + NPEERS)
typedef struct table {
  const bcase *c;
  size_t chunk;
  size_t nrows, ref; /* ref: the row the ratios are to */
  const char *name[MAX_ROWS];
  int peer[MAX_ROWS]; /* index in peers[], -1: the reference's */
  cell cells[MAX_ROWS][MAX_SIZES];
} table;

typedef struct plan {
  const bench_args *a;
  double budget;
  int want[NPEERS];
} plan;

static void table_init(table *t, const plan *pl, const bcase *c, size_t chunk) {
  memset(t, 0, sizeof *t);
  t->c = c;
  t->chunk = chunk;
  int json = strcmp(c->filter, "json") == 0;
  t->name[t->nrows] = json ? "sluice-filter" : "sluice";
  t->peer[t->nrows++] = -1;
  if (json) {
    t->name[t->nrows] = "sluice+jansson";
    t->peer[t->nrows++] = -1;
  }
  t->ref = t->nrows - 1;
  for (size_t i = 0; i < NPEERS; i++) {
    int mine = peers[i].filter ? strcmp(peers[i].filter, c->filter) == 0
                               : strcmp(c->filter, "think") == 0;
    if (!mine || !pl->want[i]) continue;
    t->name[t->nrows] = peers[i].name;
    t->peer[t->nrows++] = (int)i;
  }
}

/* Is there a peer in the case's tables? The reference alone is no table. */
static int case_wanted(const plan *pl, const bcase *c) {
  table t;
  table_init(&t, pl, c, 1);
  return t.nrows > t.ref + 1;
}

/* ---------------- measuring ---------------- */

/* The reference's rows at size si: its CPU time (json: without, then with
 * jansson's load of the value) and what came out. */
static void measure_reference(const plan *pl, table *t, size_t si, const input *in) {
  ref_run r = {t->c->filter, in->text, in->n, t->chunk, 0, 0, {0, 0}, {0}};
  int inner = bench_inner(in->n, 8u << 20);
  for (size_t row = 0; row <= t->ref; row++) {
    cell *c = &t->cells[row][si];
    c->bytes = in->n;
    r.with_load = row > 0;
    r.failed = 0;
    bench_time bt = bench_measure(ref_body, &r, pl->a->reps, inner);
    int bad = r.failed || (strcmp(t->c->filter, "json") == 0 && value_output(&r.value, &r.out));
    c->st = bad ? C_FAILS : C_OK;
    c->cpu = bt.cpu;
    c->out = r.out;
  }
  tbuf_free(&r.value);
}

/* A --json row for one cell. */
static void report(const table *t, size_t row, size_t si, const peer_result *res) {
  const cell *c = &t->cells[row][si], *ref = &t->cells[t->ref][si];
  json_t *r = json_object();
  json_object_set_new(r, "filter", json_string(t->c->filter));
  json_object_set_new(r, "kind", json_string(t->c->kind));
  json_object_set_new(r, "impl", json_string(t->name[row]));
  json_object_set_new(r, "chunk", json_integer((json_int_t)t->chunk));
  json_object_set_new(r, "bytes", json_integer((json_int_t)c->bytes));
  json_object_set_new(r, "clock", json_string(t->peer[row] < 0
                                                  ? "CLOCK_THREAD_CPUTIME_ID"
                                                  : "process.cpuUsage (user + system)"));
  json_object_set_new(r, "status", json_string(c->st == C_OK      ? "ok"
                                               : c->st == C_FAILS ? "fails"
                                                                  : "over budget"));
  if (res && !res->ok) json_object_set_new(r, "error", json_string(res->error));
  if (c->st == C_OK) {
    json_object_set_new(r, "cpu_s", json_real(c->cpu));
    json_object_set_new(r, "mb_s", json_real(bench_mbs(c->bytes, c->cpu)));
    if (ref->st == C_OK) json_object_set_new(r, "vs_reference", json_real(c->cpu / ref->cpu));
    if (si > 0 && t->cells[row][si - 1].st == C_OK)
      json_object_set_new(r, "t_2n_over_t_n", json_real(c->cpu / t->cells[row][si - 1].cpu));
    json_object_set_new(r, "out_bytes", json_integer((json_int_t)c->out.bytes));
    json_object_set_new(r, "out_items", json_integer((json_int_t)c->out.items));
  }
  if (res && res->ok) {
    json_object_set_new(r, "runs", json_integer(res->runs));
    json_object_set_new(r, "over_budget", json_boolean(res->over));
    if (res->checksum) json_object_set_new(r, "checksum", json_integer((json_int_t)res->checksum));
  }
  bench_report_add("peers", r);
}

/* The peers' rows at size si. A row that was over the budget at a smaller
 * size is not run again (it would only be slower). -1 when the runner
 * failed. */
static int measure_peers(const plan *pl, runner *rn, table *t, size_t si, const input *in) {
  for (size_t row = t->ref + 1; row < t->nrows; row++) {
    cell *c = &t->cells[row][si];
    c->bytes = in->n;
    if (si > 0 && t->cells[row][si - 1].st == C_OVER) c->st = C_OVER;
    if (c->st == C_OVER) {
      report(t, row, si, NULL);
      continue;
    }
    peer_result res;
    if (runner_measure(rn, peers[t->peer[row]].name, in->path.p, t->chunk, pl->a->reps,
                       pl->budget, &res))
      return -1;
    c->st = res.ok ? C_OK : C_FAILS;
    c->cpu = res.cpu;
    c->out = res.out;
    report(t, row, si, &res);
    /* this size is shown; the larger ones are skipped */
    if (res.over && si + 1 < t->c->nsizes) t->cells[row][si + 1].st = C_OVER;
  }
  return 0;
}

/* ---------------- printing ---------------- */

/* "4 MiB", "64 KiB": a size as the tables name it. */
static void size_label(char *s, size_t cap, size_t bytes) {
  if (bytes >= 1u << 20) snprintf(s, cap, "%zuM", bytes >> 20);
  else snprintf(s, cap, "%zuK", bytes >> 10);
}

/* MB/s with three significant digits or so, down to a quadratic peer's
 * thousandths. */
static void mbs_text(char *s, size_t cap, double mbs) {
  snprintf(s, cap, mbs >= 100 ? "%.0f" : mbs >= 1 ? "%.1f" : "%.3f", mbs);
}

/* The size cell: MB/s and the CPU time as a multiple of the reference's
 * (two digits below 1, where the peer is the faster), or why not. */
static void cell_text(char *s, size_t cap, const cell *c, const cell *ref) {
  if (c->st != C_OK) {
    snprintf(s, cap, "%14s", c->st == C_FAILS ? "fails" : c->st == C_OVER ? "over budget" : "-");
    return;
  }
  char m[24], x[24] = "";
  mbs_text(m, sizeof m, bench_mbs(c->bytes, c->cpu));
  if (ref->st == C_OK)
    snprintf(x, sizeof x, c->cpu < ref->cpu ? "%.2fx" : c->cpu < 100 * ref->cpu ? "%.1fx" : "%.0fx",
             c->cpu / ref->cpu);
  snprintf(s, cap, "%7s %6s", m, x);
}

/* What came out, at the largest size both made something: "same" is as
 * many bytes and items as the reference. */
static const char *check_text(const table *t, size_t row) {
  if (row == t->ref) return "reference";
  if (t->peer[row] >= 0 && !peers[t->peer[row]].filter) return "(not a peer: a turn per chunk)";
  for (size_t si = t->c->nsizes; si-- > 0;) {
    const cell *c = &t->cells[row][si], *ref = &t->cells[t->ref][si];
    if (c->st != C_OK || ref->st != C_OK) continue;
    if (c->out.bytes == 0) return "NO OUTPUT";
    return c->out.bytes == ref->out.bytes && c->out.items == ref->out.items ? "same" : "differs";
  }
  return "";
}

static void table_print(const table *t) {
  const bcase *c = t->c;
  char lab[24], prev[24];
  fprintf(bench_out, "%-5s %-15s %-23s %6s", "", "", "", "chunk");
  for (size_t si = 0; si < c->nsizes; si++) {
    size_label(lab, sizeof lab, c->sizes[si]);
    fprintf(bench_out, " %7s %6s", lab, "vs");
  }
  for (size_t si = 1; si < c->nsizes; si++) {
    size_label(lab, sizeof lab, c->sizes[si]);
    size_label(prev, sizeof prev, c->sizes[si - 1]);
    tbuf h = {0};
    tbuf_xprintf(&h, "%s/%s", lab, prev);
    fprintf(bench_out, " %7s", h.p);
    tbuf_free(&h);
  }
  fprintf(bench_out, "  output\n");
  for (size_t row = 0; row < t->nrows; row++) {
    fprintf(bench_out, "%-5s %-15s %-23s %6zu", c->filter, c->kind, t->name[row], t->chunk);
    for (size_t si = 0; si < c->nsizes; si++) {
      char s[48];
      cell_text(s, sizeof s, &t->cells[row][si], &t->cells[t->ref][si]);
      fprintf(bench_out, " %s", s);
    }
    for (size_t si = 1; si < c->nsizes; si++) {
      const cell *a = &t->cells[row][si - 1], *b = &t->cells[row][si];
      if (a->st == C_OK && b->st == C_OK) fprintf(bench_out, " %7.2f", b->cpu / a->cpu);
      else fprintf(bench_out, " %7s", "-");
    }
    fprintf(bench_out, "  %s\n", check_text(t, row));
  }
  fputc('\n', bench_out);
}

/* ---------------- the run ---------------- */

/* One case: each size generated once and measured at every chunk size,
 * then a table per chunk size. -1 when the runner failed. */
static int run_case(const plan *pl, runner *rn, const bcase *c) {
  table *tabs = xcalloc(c->nchunks, sizeof *tabs);
  int rc = 0;
  for (size_t ci = 0; ci < c->nchunks; ci++) table_init(&tabs[ci], pl, c, c->chunks[ci]);
  for (size_t si = 0; si < c->nsizes && rc == 0; si++) {
    input in;
    if (input_make(&in, c, c->sizes[si])) {
      rc = -1;
      break;
    }
    for (size_t ci = 0; ci < c->nchunks && rc == 0; ci++) {
      measure_reference(pl, &tabs[ci], si, &in);
      rc = measure_peers(pl, rn, &tabs[ci], si, &in);
    }
    input_free(&in);
  }
  for (size_t ci = 0; ci < c->nchunks && rc == 0; ci++) table_print(&tabs[ci]);
  free(tabs);
  return rc;
}

/* Which peers to run: all, or --peer NAME. 0, or 2 for an unknown name. */
static int choose(plan *pl) {
  int found = 0;
  for (size_t i = 0; i < NPEERS; i++) {
    pl->want[i] = !pl->a->peer || strcmp(pl->a->peer, peers[i].name) == 0;
    found |= pl->want[i];
  }
  if (found) return 0;
  fprintf(stderr, "sluice bench peers: --peer: no peer \"%s\"; the peers:", pl->a->peer);
  for (size_t i = 0; i < NPEERS; i++) fprintf(stderr, " %s", peers[i].name);
  fputc('\n', stderr);
  return 2;
}

/* node and the packages of the wanted peers; when some are missing, says
 * so and returns the exit code (0, or 2 when a peer was asked for). */
static int check_installed(const plan *pl) {
  FILE *fp = pl->a->peer ? stderr : bench_out;
  if (!on_path("node")) {
    fprintf(fp, "sluice bench peers: peers not installed: node is not on PATH\n");
    return pl->a->peer ? 2 : 0;
  }
  if (!peers_dir()) {
    fprintf(fp, "sluice bench peers: peers not installed: conformance/peers is in the source "
                "tree only (set SLUICE_PEERS to a checkout's conformance/peers)\n");
    return pl->a->peer ? 2 : 0;
  }
  for (size_t i = 0; i < NPEERS; i++)
    if (pl->want[i] && peers[i].package && !installed(peers[i].package)) {
      fprintf(fp, "sluice bench peers: peers not installed: no %s in %s/node_modules "
                  "(scripts/install-peers installs them)\n", peers[i].package, peers_dir());
      return pl->a->peer ? 2 : 0;
    }
  return -1;
}

/* The cases, at a unit of 1 MiB (--quick: 16 KiB); --chunk N replaces
 * every chunk set. */
static size_t make_cases(bcase *cs, const bench_args *a) {
  size_t u = a->quick ? (size_t)16 << 10 : (size_t)1 << 20, n = 0;
  cs[n++] = (bcase){"think", "dense", 3, {u, 2 * u, 4 * u}, 3, {4, 64, 65536}};
  static const char *const kinds[] = {"valid", "llm-messy", "truncated"};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    cs[n++] = (bcase){"json", kinds[k], 4, {u, 2 * u, 4 * u, 8 * u}, 1, {4096}};
  cs[n++] = (bcase){"sse", "openai", 1, {a->quick ? 16 * u : a->mb << 20}, 2, {16, 65536}};
  for (size_t i = 0; i < n && a->chunk; i++) {
    cs[i].nchunks = 1;
    cs[i].chunks[0] = a->chunk;
  }
  return n;
}

int bench_peers(int argc, char **argv) {
  bench_args a;
  int rc = bench_parse(argc, argv, &peers_cmd, "mb chunk peer quick budget", 50, &a);
  if (rc >= 0) return rc;
  plan pl = {&a, a.budget ? a.budget : a.quick ? 5 : 20, {0}};
  if ((rc = choose(&pl)) != 0) return rc;
  if ((rc = check_installed(&pl)) >= 0) return rc;

  runner rn = {0};
  /* a measurement's first run may be a quadratic peer's, some times the
   * budget, before it is known to be over it */
  double limit = pl.budget * 15 > PEER_TIMEOUT ? pl.budget * 15 : PEER_TIMEOUT;
  if (runner_start(&rn, a.quick ? 60 : limit)) return 1;
  double t0 = bench_wall_now();
  fprintf(bench_out,
          "peers: MB/s on the CPU clock (sluice: this thread, CLOCK_THREAD_CPUTIME_ID; node: "
          "process.cpuUsage of the runner, user + system), medians of %d runs; vs: CPU time as a "
          "multiple of the reference's at that size; 2M/1M: t(2N)/t(N), 2.00 = linear; a "
          "measurement's budget %.0f s\n\n",
          a.reps, pl.budget);
  bcase cs[8];
  size_t n = make_cases(cs, &a);
  for (size_t i = 0; i < n && rc < 0; i++)
    if (case_wanted(&pl, &cs[i]) && run_case(&pl, &rn, &cs[i])) rc = 1;
  runner_stop(&rn);
  if (rc < 0) rc = 0;
  fprintf(bench_out,
          "jsonrepair, partial-json, best-effort-json-parser and ai-sdk-partial-json gather the\n"
          "chunks and parse once at the end (their one interface); ai-sdk and jsonrepair-stream\n"
          "are awaited a turn of the event loop per chunk (event-loop: that turn alone).\n"
          "fails: the peer threw on that input; over budget: a smaller size took over %.0f s.\n"
          "the whole run: %.0f s wall\n",
          pl.budget, bench_wall_now() - t0);
  return rc;
}
