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
 * A benchmark, not a test: it prints figures and never fails on speed.
 */
#include "harness.h"
#include "tools.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SLUICE_PEERS_DIR
#error "SLUICE_PEERS_DIR must name conformance/peers"
#endif

static const char peers_usage[] =
    "usage: sluice bench peers [--mb N] [--reps N] [--chunk N] [--peer NAME] [--quick]\n"
    "                          [--json FILE]\n"
    "\n"
    "Times the reference filters against their JavaScript peers (the pinned npm\n"
    "packages in conformance/peers, scripts/install-peers), on N MiB (default 1)\n"
    "of generated input fed 16 and 4096 bytes at a time (--chunk N: that size\n"
    "only), as a network delivers it:\n"
    "  think  the dense text of `sluice bench think` (a '<' every ~35 bytes, a\n"
    "         <think> block every 1 to 3 KiB) against the AI SDK's\n"
    "         extractReasoningMiddleware (wrapStream, a turn of the event loop\n"
    "         per chunk);\n"
    "  json   the valid input of `sluice bench json`: the json filter, and the\n"
    "         filter plus jansson's load of its value, against jsonrepair (one\n"
    "         call on the whole text), jsonrepair/stream (a turn per chunk),\n"
    "         partial-json, best-effort-json-parser and the AI SDK's\n"
    "         parsePartialJson (one call on the whole text);\n"
    "  sse    the OpenAI events of `sluice bench sse` against eventsource-parser\n"
    "         (createParser, fed each chunk).\n"
    "event-loop is not a peer: a turn of node's event loop per chunk and nothing\n"
    "else, the floor under the peers driven a turn per chunk.\n"
    "\n"
    "Prints MB/s on the CPU clock (medians of --reps runs, default 5) and each\n"
    "peer's CPU time as a multiple of the reference's, and checks that every\n"
    "peer produced output (\"same\": as many bytes and items as the reference).\n"
    "--peer NAME runs that peer only (and fails, exit 2, when it cannot run);\n"
    "--quick: 64 KiB inputs, for a smoke run. A measurement (a peer's warm-up and\n"
    "runs) that takes over 300 s (60 with --quick) ends the run with an error.\n"
    "Without node or the packages it prints \"peers not installed\" and exits 0.\n";

/* The reference's CPU time is this thread's; the peer's is its process's.
 * A measurement that runs longer than this is given up (seconds). */
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

static int installed(const char *package) {
  struct stat st;
  tbuf d = {0};
  tbuf_xprintf(&d, "%s/node_modules/%s", SLUICE_PEERS_DIR, package);
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
  sh_quote(&cmd, SLUICE_PEERS_DIR);
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
  char error[200];
} peer_result;

/* One measurement: the command out, its answer back within the time limit.
 * Returns -1 when the runner itself failed (it is stopped then; the reason
 * was printed), else 0 with *res (res->ok 0: the peer threw). */
static int runner_measure(runner *r, const char *name, const char *file, size_t chunk, int reps,
                          peer_result *res) {
  memset(res, 0, sizeof *res);
  json_t *cmd = json_pack("{s:s, s:s, s:I, s:i}", "peer", name, "file", file, "chunk",
                          (json_int_t)chunk, "reps", reps);
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
    res->ok = 1;
  }
  json_decref(a);
  return 0;
}

/* ---------------- inputs ---------------- */

typedef struct input {
  const char *filter;
  char *text;
  size_t n;
  tbuf path; /* the temporary file the runner reads */
} input;

/* Generates the filter's input and writes it to a new temporary file. */
static int input_make(input *in, const char *filter, size_t size) {
  memset(in, 0, sizeof *in);
  in->filter = filter;
  if (strcmp(filter, "think") == 0) {
    in->text = bench_think_text("dense", size);
    in->n = size;
  } else if (strcmp(filter, "json") == 0) {
    in->text = bench_json_text("valid", size, &in->n);
  } else {
    tbuf b = {0};
    if (bench_sse_text(&b, size) == 0) in->text = tbuf_take(&b, &in->n);
    tbuf_free(&b);
  }
  if (!in->text) {
    fprintf(stderr, "sluice bench peers: out of memory generating the %s input\n", filter);
    return -1;
  }
  const char *dir = getenv("TMPDIR");
  tbuf_xprintf(&in->path, "%s/sluice-bench-peers-%s-XXXXXX", dir && *dir ? dir : "/tmp",
               filter);
  int fd = mkstemp(in->path.p);
  if (fd < 0) {
    fprintf(stderr, "sluice bench peers: cannot create %s: %s\n", in->path.p, strerror(errno));
    tbuf_free(&in->path);
    return -1;
  }
  int bad = write_all(fd, in->text, in->n);
  if (close(fd)) bad = -1;
  if (bad) {
    fprintf(stderr, "sluice bench peers: cannot write %s: %s\n", in->path.p, strerror(errno));
    unlink(in->path.p);
    tbuf_free(&in->path);
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

/* ---------------- the table ---------------- */

static void row(const char *filter, const char *who, size_t chunk, size_t bytes, double cpu,
                double ref_cpu, const char *check) {
  /* two digits below 1, where the peer is the faster */
  char ratio[24] = "-";
  if (ref_cpu > 0)
    snprintf(ratio, sizeof ratio, cpu < ref_cpu ? "%.2fx" : "%.1fx", cpu / ref_cpu);
  fprintf(bench_out, "%-6s %-26s %6zu %10.1f %10s  %s\n", filter, who, chunk,
          bench_mbs(bytes, cpu), ratio, check);
}

/* A --json row; checksum: the peer's FNV-1a of its output (0: none). */
static void report(const char *filter, const char *who, size_t chunk, size_t bytes, double cpu,
                   double ref_cpu, const output *out, unsigned long checksum, const char *error) {
  json_t *r = json_object();
  json_object_set_new(r, "filter", json_string(filter));
  json_object_set_new(r, "impl", json_string(who));
  json_object_set_new(r, "chunk", json_integer((json_int_t)chunk));
  json_object_set_new(r, "bytes", json_integer((json_int_t)bytes));
  json_object_set_new(r, "clock", json_string(strncmp(who, "sluice", 6) == 0
                                                  ? "CLOCK_THREAD_CPUTIME_ID"
                                                  : "process.cpuUsage (user + system)"));
  if (error) {
    json_object_set_new(r, "error", json_string(error));
  } else {
    json_object_set_new(r, "cpu_s", json_real(cpu));
    json_object_set_new(r, "mb_s", json_real(bench_mbs(bytes, cpu)));
    if (ref_cpu > 0) json_object_set_new(r, "vs_reference", json_real(cpu / ref_cpu));
    json_object_set_new(r, "out_bytes", json_integer((json_int_t)out->bytes));
    json_object_set_new(r, "out_items", json_integer((json_int_t)out->items));
    if (checksum) json_object_set_new(r, "checksum", json_integer((json_int_t)checksum));
  }
  bench_report_add("peers", r);
}

/* ---------------- the run ---------------- */

typedef struct plan {
  const bench_args *a;
  size_t size;
  const size_t *chunks;
  size_t nchunks;
  int want[NPEERS];
} plan;

/* The reference over one input at one chunk size: prints its row(s);
 * returns its CPU time (json: with jansson's load), or -1. */
static double run_reference(const plan *pl, const input *in, size_t chunk, output *out) {
  ref_run r = {in->filter, in->text, in->n, chunk, 0, 0, {0, 0}, {0}};
  int inner = bench_inner(in->n, 8u << 20);
  bench_time t = bench_measure(ref_body, &r, pl->a->reps, inner);
  if (r.failed) {
    fprintf(stderr, "sluice bench peers: the %s filter failed on its input\n", in->filter);
    tbuf_free(&r.value);
    return -1;
  }
  *out = r.out;
  double cpu = t.cpu;
  if (strcmp(in->filter, "json") == 0) {
    if (value_output(&r.value, out)) {
      fprintf(stderr, "sluice bench peers: jansson cannot load the json filter's value\n");
      tbuf_free(&r.value);
      return -1;
    }
    row(in->filter, "sluice (filter only)", chunk, in->n, t.cpu, 0, "");
    report(in->filter, "sluice", chunk, in->n, t.cpu, 0, out, 0, NULL);
    r.with_load = 1;
    cpu = bench_measure(ref_body, &r, pl->a->reps, inner).cpu;
    row(in->filter, "sluice + jansson load", chunk, in->n, cpu, cpu, "reference");
    report(in->filter, "sluice+jansson", chunk, in->n, cpu, 0, out, 0, NULL);
  } else {
    row(in->filter, "sluice", chunk, in->n, cpu, cpu, "reference");
    report(in->filter, "sluice", chunk, in->n, cpu, 0, out, 0, NULL);
  }
  tbuf_free(&r.value);
  return cpu;
}

/* Each wanted peer of the input's filter (filter NULL: the floor) at one
 * chunk size. -1 when the runner failed. */
static int run_peers(const plan *pl, runner *rn, const input *in, const char *filter,
                     size_t chunk, double ref_cpu, const output *ref) {
  for (size_t i = 0; i < NPEERS; i++) {
    const peer *p = &peers[i];
    int mine = filter ? p->filter && strcmp(p->filter, filter) == 0 : p->filter == NULL;
    if (!mine || !pl->want[i]) continue;
    peer_result res;
    if (runner_measure(rn, p->name, in->path.p, chunk, pl->a->reps, &res)) return -1;
    const char *shown = filter ? filter : "-";
    if (!res.ok) {
      fprintf(bench_out, "%-6s %-26s %6zu %10s %10s  failed: %s\n", shown, p->name, chunk, "-",
              "-", res.error);
      report(shown, p->name, chunk, in->n, 0, 0, NULL, 0, res.error);
      continue;
    }
    char check[96];
    if (!filter) snprintf(check, sizeof check, "(not a peer: the floor of a turn per chunk)");
    else if (res.out.bytes == 0) snprintf(check, sizeof check, "NO OUTPUT");
    else if (res.out.bytes == ref->bytes && res.out.items == ref->items)
      snprintf(check, sizeof check, "same");
    else
      snprintf(check, sizeof check, "differs: %llu bytes, %llu items (sluice %llu, %llu)",
               (unsigned long long)res.out.bytes, (unsigned long long)res.out.items,
               (unsigned long long)ref->bytes, (unsigned long long)ref->items);
    row(shown, p->name, chunk, in->n, res.cpu, filter ? ref_cpu : 0, check);
    report(shown, p->name, chunk, in->n, res.cpu, filter ? ref_cpu : 0, &res.out, res.checksum,
           NULL);
  }
  return 0;
}

/* Which peers to run: all, or --peer NAME. 0, or 2 for an unknown name. */
static int choose(plan *pl) {
  int found = 0;
  for (size_t i = 0; i < NPEERS; i++) {
    pl->want[i] = !pl->a->peer || strcmp(pl->a->peer, peers[i].name) == 0;
    found |= pl->want[i];
  }
  if (found) return 0;
  fprintf(stderr, "sluice bench peers: no peer \"%s\"; the peers:", pl->a->peer);
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
  for (size_t i = 0; i < NPEERS; i++)
    if (pl->want[i] && peers[i].package && !installed(peers[i].package)) {
      fprintf(fp, "sluice bench peers: peers not installed: no %s in %s/node_modules "
                  "(scripts/install-peers installs them)\n", peers[i].package, SLUICE_PEERS_DIR);
      return pl->a->peer ? 2 : 0;
    }
  return -1;
}

int bench_peers(int argc, char **argv) {
  bench_args a;
  int rc = bench_parse(argc, argv, peers_usage, "mb chunk peer quick", 1, &a);
  if (rc >= 0) return rc;
  static const size_t sizes[] = {16, 4096};
  plan pl = {&a, a.quick ? (size_t)64 << 10 : a.mb << 20, sizes, 2, {0}};
  if (a.chunk) {
    pl.chunks = &a.chunk;
    pl.nchunks = 1;
  }
  if ((rc = choose(&pl)) != 0) return rc;
  if ((rc = check_installed(&pl)) >= 0) return rc;

  runner rn = {0};
  if (runner_start(&rn, a.quick ? 60 : PEER_TIMEOUT)) return 1;
  fprintf(bench_out,
          "peers: %zu KiB inputs, MB/s on the CPU clock (sluice: this thread; node: its process, "
          "user + system), medians of %d runs; x: CPU time as a multiple of the reference's\n",
          pl.size >> 10, a.reps);
  fprintf(bench_out, "%-6s %-26s %6s %10s %10s  %s\n", "filter", "implementation", "chunk",
          "MB/s", "vs sluice", "output");
  static const char *const filters[] = {"think", "json", "sse"};
  rc = 0;
  input floor_in = {0};
  for (size_t fi = 0; fi < sizeof filters / sizeof filters[0] && rc == 0; fi++) {
    int any = 0;
    for (size_t i = 0; i < NPEERS; i++)
      any |= pl.want[i] && peers[i].filter && strcmp(peers[i].filter, filters[fi]) == 0;
    int floor_here = fi == 0 && pl.want[NPEERS - 1]; /* the floor runs on the think input */
    if (!any && !floor_here) continue;
    input in;
    if (input_make(&in, filters[fi], pl.size)) {
      rc = 1;
      break;
    }
    for (size_t ci = 0; ci < pl.nchunks && rc == 0 && any; ci++) {
      output ref;
      double ref_cpu = run_reference(&pl, &in, pl.chunks[ci], &ref);
      if (ref_cpu < 0 || run_peers(&pl, &rn, &in, filters[fi], pl.chunks[ci], ref_cpu, &ref))
        rc = 1;
    }
    if (floor_here) floor_in = in;
    else input_free(&in);
  }
  for (size_t ci = 0; ci < pl.nchunks && rc == 0 && floor_in.text; ci++)
    if (run_peers(&pl, &rn, &floor_in, NULL, pl.chunks[ci], 0, NULL)) rc = 1;
  if (floor_in.text) input_free(&floor_in);
  runner_stop(&rn);
  fprintf(bench_out,
          "jsonrepair, partial-json, best-effort-json-parser and ai-sdk-partial-json gather the\n"
          "chunks and parse once at the end (their one interface); ai-sdk and jsonrepair-stream\n"
          "are awaited a turn of the event loop per chunk (event-loop: that turn alone).\n");
  return rc;
}
