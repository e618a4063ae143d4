/*
 * harness.c: clocks, medians, the counting sink, chunked feeding, the
 * calibration loops, the text generator and the JSON rows (harness.h).
 */
#include "harness.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------- options ---------------- */

bench_cli_opts bench_cli;

/* Every option a benchmark may take, each declared once; a benchmark names
 * the ones it takes besides --reps and --json (bench_parse). */
static const opt bench_options[] = {
    {"mb", 0, "N", OPT_SIZE, OPT_AT(bench_args, mb, size_t), .min = 1,
     .help = "MiB of generated input (default: see above)"},
    {"reps", 0, "N", OPT_INT, OPT_AT(bench_args, reps, int), .min = 1,
     .help = "runs per figure; the median is printed (default 5)"},
    {"chunk", 0, "N", OPT_SIZE, OPT_AT(bench_args, chunk, size_t), .min = 1,
     .help = "this chunk size only"},
    {"mode", 0, "NAME", OPT_STRING, OPT_AT(bench_args, mode, const char *),
     .help = "the think filter's mode: channel (default) or anchored"},
    {"text", 0, "NAME", OPT_STRING, OPT_AT(bench_args, text, const char *),
     .help = "only the generated input of this name"},
    {"peer", 0, "NAME", OPT_STRING, OPT_AT(bench_args, peer, const char *),
     .help = "only this peer (exit status 2 when it cannot run)"},
    {"budget", 0, "S", OPT_INT, OPT_AT(bench_args, budget, int), .min = 1,
     .help = "a measurement's time budget in seconds (default 20)"},
    {"python", 0, NULL, OPT_FLAG, OPT_AT(bench_args, python, int),
     .help = "also run the Python port, bench/monitor_port.py"},
    {"quick", 0, NULL, OPT_FLAG, OPT_AT(bench_args, quick, int),
     .help = "a smaller run, for a smoke test"},
    {"json", 0, "FILE", OPT_STRING, OPT_AT(bench_args, json, const char *),
     .help = "also write the figures as JSON to FILE (\"-\": standard output, the tables then "
             "go to standard error)"},
    {0}};

/* Whether `allowed` ("mb chunk") names name. */
static int takes(const char *allowed, const char *name) {
  size_t n = strlen(name);
  for (const char *p = allowed; p && *p;) {
    const char *e = strchr(p, ' ');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == n && memcmp(p, name, n) == 0) return 1;
    p = e ? e + 1 : p + l;
  }
  return 0;
}

int bench_opt_parse(const opt_cmd *c, void *const *bases, int argc, char **argv) {
  int rc = opt_parse(c, bases, argc, argv, NULL);
  bench_cli.help = rc == 0;
  return rc;
}

int bench_parse(int argc, char **argv, const opt_cmd *about, const char *allowed,
                size_t default_mb, bench_args *a) {
  memset(a, 0, sizeof *a);
  a->reps = 5;
  a->mb = default_mb;
  /* the benchmark's own table: the options it takes, in bench_options' order */
  opt table[sizeof bench_options / sizeof bench_options[0]];
  size_t n = 0;
  for (const opt *o = bench_options; o->kind != OPT_END; o++)
    if (strcmp(o->name, "reps") == 0 || strcmp(o->name, "json") == 0 || takes(allowed, o->name))
      table[n++] = *o;
  memset(&table[n], 0, sizeof table[n]);
  opt_cmd c = *about;
  c.tables[0] = table;
  void *bases[] = {a};
  int rc = bench_opt_parse(&c, bases, argc, argv);
  if (rc >= 0) return rc;
  if (a->json) {
    bench_cli.json = a->json;
    bench_out = strcmp(a->json, "-") == 0 ? stderr : stdout;
  }
  bench_cli.reps = a->reps;
  return -1;
}

/* ---------------- clocks ---------------- */

/* The tools' clocks (tools/common/util.c), under the harness's names. */
double bench_cpu_now(void) { return thread_cpu_seconds(); }
double bench_wall_now(void) { return now_seconds(); }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_median(double *v, int n) {
  if (n <= 0) return 0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bench_time bench_measure(bench_body body, void *ctx, int reps, int inner) {
  double cpu[64], wall[64];
  if (reps > 64) reps = 64;
  if (reps < 1) reps = 1;
  if (inner < 1) inner = 1;
  /* Warm up first (caches, branch predictors, the clock frequency): runs
   * for at least 20 ms of CPU time, untimed. */
  double warm = bench_cpu_now();
  do body(ctx);
  while (bench_cpu_now() - warm < 0.02);
  for (int r = 0; r < reps; r++) {
    double c0 = bench_cpu_now(), w0 = bench_wall_now();
    for (int i = 0; i < inner; i++) body(ctx);
    cpu[r] = (bench_cpu_now() - c0) / inner;
    wall[r] = (bench_wall_now() - w0) / inner;
  }
  bench_time t = {bench_median(cpu, reps), bench_median(wall, reps)};
  return t;
}

int bench_inner(size_t bytes, size_t min_bytes) {
  if (bytes == 0) return 1;
  size_t k = (min_bytes + bytes - 1) / bytes;
  return k < 1 ? 1 : k > 1000000 ? 1000000 : (int)k;
}

double bench_mbs(size_t bytes, double seconds) {
  return seconds > 0 ? (double)bytes / seconds / 1e6 : 0;
}

/* ---------------- sink ---------------- */

void bench_count_reset(bench_count *c) { memset(c, 0, sizeof *c); }

static int count_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  bench_count *c = user;
  (void)p;
  c->bytes += n;
  c->ch[ch] += n;
  return 0;
}

static int count_event(void *user, const sluice_event *ev) {
  bench_count *c = user;
  c->events++;
  if (ev->type == SLUICE_EV_STOP) {
    c->stops++;
    c->stop_offset = ev->offset;
    size_t l = ev->name_len < sizeof c->stop_reason - 1 ? ev->name_len : sizeof c->stop_reason - 1;
    memcpy(c->stop_reason, ev->name, l);
    c->stop_reason[l] = '\0';
  }
  return 0;
}

sluice_sink bench_count_sink(bench_count *c) {
  sluice_sink s = {count_emit, count_event, c};
  return s;
}

/* ---------------- feeding ---------------- */

sluice_status bench_feed(sluice_filter *f, const char *p, size_t n, size_t chunk,
                         uint64_t *max_held) {
  sluice_status st = SLUICE_OK;
  if (chunk == 0) chunk = n ? n : 1;
  for (size_t off = 0; off < n && st == SLUICE_OK; off += chunk) {
    st = sluice_feed(f, p + off, n - off < chunk ? n - off : chunk);
    if (max_held && sluice_held(f) > *max_held) *max_held = sluice_held(f);
  }
  if (st == SLUICE_OK) st = sluice_finish(f);
  return st;
}

/* ---------------- calibration ---------------- */

/* The empty callee of the call loop: out of line and called through a
 * volatile pointer, so the compiler keeps one real indirect call per chunk. */
static __attribute__((noinline)) size_t empty_call(void *ctx, const char *p, size_t n) {
  (void)ctx;
  (void)p;
  __asm__ volatile("" ::: "memory");
  return n;
}
static size_t (*volatile call_target)(void *, const char *, size_t) = empty_call;

typedef struct calib_ctx {
  const char *p;
  size_t n, chunk;
  int byte;
  char *scratch;
  size_t sink;
} calib_ctx;

static void calib_call(void *v) {
  calib_ctx *c = v;
  size_t (*fn)(void *, const char *, size_t) = call_target;
  for (size_t off = 0; off < c->n; off += c->chunk)
    c->sink += fn(c, c->p + off, c->n - off < c->chunk ? c->n - off : c->chunk);
}

static void calib_memchr(void *v) {
  calib_ctx *c = v;
  size_t hits = 0;
  for (size_t off = 0; off < c->n; off += c->chunk) {
    const char *q = c->p + off, *e = q + (c->n - off < c->chunk ? c->n - off : c->chunk);
    while (q < e && (q = memchr(q, c->byte, (size_t)(e - q))) != NULL) hits++, q++;
  }
  c->sink += hits;
}

static void calib_memcpy(void *v) {
  calib_ctx *c = v;
  for (size_t off = 0; off < c->n; off += c->chunk) {
    size_t k = c->n - off < c->chunk ? c->n - off : c->chunk;
    memcpy(c->scratch, c->p + off, k);
    __asm__ volatile("" : : "r"(c->scratch) : "memory");
  }
}

bench_calib bench_calibrate(const char *p, size_t n, size_t chunk, int byte, int reps, int inner) {
  calib_ctx c = {p, n, chunk ? chunk : n, byte, malloc(chunk ? chunk : n ? n : 1), 0};
  bench_calib r;
  r.call = bench_measure(calib_call, &c, reps, inner);
  r.memchr = bench_measure(calib_memchr, &c, reps, inner);
  r.memcpy = bench_measure(calib_memcpy, &c, reps, inner);
  free(c.scratch);
  return r;
}

/* ---------------- text ---------------- */

uint64_t bench_rand(bench_rng *r) {
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return r->s;
}

char *bench_text(const bench_textspec *t, size_t size) {
  char *p = malloc(size + 1);
  if (!p) return NULL;
  bench_rng r = {t->seed ? t->seed : 88172645463325252ULL};
  size_t n = 0, k = 0;
  if (t->head) {
    size_t l = strlen(t->head);
    if (l > size) l = size;
    memcpy(p, t->head, l);
    n = l;
  }
  size_t next_insert = t->ninserts ? n + t->insert_min : (size_t)-1;
  while (n < size) {
    uint64_t s = bench_rand(&r);
    const char *w = t->words[s % t->nwords];
    if (n >= next_insert) {
      w = t->inserts[k++ % t->ninserts];
      next_insert = n + t->insert_min + (t->insert_spread ? (s >> 20) % t->insert_spread : 0);
    }
    size_t l = strlen(w);
    if (n + l + 1 > size) break;
    memcpy(p + n, w, l);
    n += l;
    p[n++] = (t->newline_every && (s >> 40) % t->newline_every == 0) ? '\n' : ' ';
  }
  while (n < size) p[n++] = ' ';
  p[size] = '\0';
  return p;
}

/* ---------------- JSON rows ---------------- */

static json_t *report_rows;

void bench_report_add(const char *bench, json_t *row) {
  if (!report_rows) report_rows = json_array();
  json_object_set_new(row, "bench", json_string(bench));
  json_array_append_new(report_rows, row);
}

void bench_report_time(json_t *row, size_t bytes, bench_time t) {
  json_object_set_new(row, "bytes", json_integer((json_int_t)bytes));
  json_object_set_new(row, "cpu_s", json_real(t.cpu));
  json_object_set_new(row, "wall_s", json_real(t.wall));
  json_object_set_new(row, "mb_s", json_real(bench_mbs(bytes, t.cpu)));
  json_object_set_new(row, "wall_mb_s", json_real(bench_mbs(bytes, t.wall)));
}

void bench_report_calib(json_t *row, size_t bytes, bench_time t, const bench_calib *c) {
  const struct {
    const char *name;
    bench_time bt;
  } loops[] = {{"call", c->call}, {"memchr", c->memchr}, {"memcpy", c->memcpy}};
  json_t *o = json_object();
  for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) {
    json_t *l = json_object();
    json_object_set_new(l, "mb_s", json_real(bench_mbs(bytes, loops[i].bt.cpu)));
    json_object_set_new(l, "fraction", json_real(loops[i].bt.cpu / t.cpu));
    json_object_set_new(o, loops[i].name, l);
  }
  json_object_set_new(row, "calibration", o);
}

void bench_report_target(json_t *row, double target_mbs, double mbs) {
  json_object_set_new(row, "target_mb_s", json_real(target_mbs));
  json_object_set_new(row, "met", json_boolean(mbs >= target_mbs));
}

double bench_loadavg(void) {
  FILE *fp = fopen("/proc/loadavg", "r");
  double l = -1;
  if (fp) {
    if (fscanf(fp, "%lf", &l) != 1) l = -1;
    fclose(fp);
  }
  return l;
}

FILE *bench_out;

typedef struct target_note {
  char what[96];
  double value, target;
  char unit[8];
} target_note;
static target_note targets[128];
static int ntargets;

void bench_target(const char *bench, const char *what, double value, double target,
                  const char *unit) {
  if (ntargets >= (int)(sizeof targets / sizeof targets[0])) return;
  target_note *t = &targets[ntargets++];
  snprintf(t->what, sizeof t->what, "%s: %s", bench, what);
  t->value = value;
  t->target = target;
  snprintf(t->unit, sizeof t->unit, "%s", unit);
}

int bench_targets_print(void) {
  int missed = 0;
  if (!ntargets) return 0;
  fprintf(bench_out, "\ntargets (CPU-time medians)\n");
  for (int i = 0; i < ntargets; i++) {
    target_note *t = &targets[i];
    int met = t->value >= t->target;
    missed += !met;
    fprintf(bench_out, "  %-6s %-58s %9.1f %-4s (target %g)\n", met ? "met" : "MISSED", t->what,
            t->value, t->unit, t->target);
  }
  fprintf(bench_out, "%d of %d targets met\n", ntargets - missed, ntargets);
  return missed;
}

/* Called by cmd_bench once the benchmarks ran. */
int bench_report_write(const char *path, const char *command, int reps, double load_before);
int bench_report_write(const char *path, const char *command, int reps, double load_before) {
  json_t *doc = json_object();
  json_object_set_new(doc, "sluice_version", json_string(sluice_version()));
  json_object_set_new(doc, "command", json_string(command));
  json_object_set_new(doc, "reps", json_integer(reps));
  json_object_set_new(doc, "statistic", json_string("median"));
  json_object_set_new(doc, "malloc", json_string(bench_malloc_note ? bench_malloc_note : ""));
  json_object_set_new(doc, "clock", json_string("CLOCK_THREAD_CPUTIME_ID (mb_s), CLOCK_MONOTONIC (wall_mb_s)"));
  json_t *load = json_object();
  json_object_set_new(load, "before", json_real(load_before));
  json_object_set_new(load, "after", json_real(bench_loadavg()));
  json_object_set_new(doc, "loadavg_1min", load);
  json_object_set_new(doc, "time", json_integer((json_int_t)time(NULL)));
  json_object_set(doc, "rows", report_rows ? report_rows : json_array());
  int rc = strcmp(path, "-") == 0 ? json_dumpf(doc, stdout, JSON_INDENT(1))
                                  : json_dump_file(doc, path, JSON_INDENT(1));
  if (strcmp(path, "-") == 0) fputc('\n', stdout);
  json_decref(doc);
  if (rc != 0) fprintf(stderr, "sluice bench: cannot write %s\n", path);
  return rc != 0;
}
