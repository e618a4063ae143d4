/*
 * bench_monharm.c: `sluice bench harmony` and `sluice bench monitor`.
 *
 * The monitor is measured where users run it, on responses of 16 KB to
 * 64 MB, one filter per response (creation and the history's growth are in
 * the figure), on prose (no loops: every checkpoint runs the detector to its
 * end) and on adversarial texts, for both profiles; with --python the same
 * texts and chunking go through bench/monitor_port.py, the literal Python
 * port of the original detector, and the ratio of CPU times is printed. The
 * verdicts of both are compared. Prints figures; never fails on speed.
 */
#include "harness.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------- texts ---------------- */

static const char *const prose_words[] = {"the", "model", "answer", "stream", "token", "while",
                                          "naïve", "café", "—", "split", "is", "of", "and", "in",
                                          "<|", "x|>", "42", "über", "日本語", "reason"};
static const char *const harmony_heads[] = {
    "<|end|><|start|>assistant<|channel|>analysis<|message|>",
    "<|end|><|start|>assistant<|channel|>final<|message|>",
    "<|call|><|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json<|message|>",
    "<|return|><|channel|>commentary<|message|>"};

static char *gen_prose(size_t size, int harmony) {
  bench_textspec t = {prose_words, 20, harmony ? harmony_heads : NULL, harmony ? 4 : 0, 256,
                      2048, NULL, 4, 88172645463325252ULL};
  return bench_text(&t, size);
}

/* The marker adversary of DESIGN.md §2: a 10-character marker every 20
 * characters, random letters between (the original is quadratic on it). */
static char *gen_marker(size_t size) {
  char *p = malloc(size + 1);
  if (!p) return NULL;
  bench_rng r = {0x2545F4914F6CDD1DULL};
  for (size_t i = 0; i < size; i++)
    p[i] = (i % 20) < 10 ? "[marker01]"[i % 20] : (char)('a' + bench_rand(&r) % 26);
  p[size] = '\0';
  return p;
}

/* Near-loops: blocks of 1 to 4000 characters each repeated one time fewer
 * than the profile's detector needs (DESIGN.md 2: seed 10 times a block
 * over 30, current 20 times a block over 20; the current profile's short
 * blocks are 21 to 30 long, so that 19 copies are one short for every
 * block), then a new block: every checkpoint finds long periodic
 * stretches that must be verified and must not fire. */
static char *gen_nearloop(size_t size, int current) {
  char *p = malloc(size + 1);
  if (!p) return NULL;
  bench_rng r = {0x9E3779B97F4A7C15ULL};
  size_t n = 0;
  while (n < size) {
    uint64_t s = bench_rand(&r);
    size_t L = (s & 1) ? (current ? 21 : 1) + (s >> 1) % (current ? 10 : 30) : 31 + (s >> 1) % 3970;
    size_t copies = current ? 19 : (L <= 30 ? (100 + 8 * (L - 1)) / L : 10) - 1;
    size_t start = n;
    for (size_t i = 0; i < L && n < size; i++) p[n++] = (char)('a' + bench_rand(&r) % 26);
    for (size_t c = 1; c < copies; c++)
      for (size_t i = 0; i < L && n < size; i++, n++) p[n] = p[start + i];
    if (n < size) p[n++] = '#'; /* breaks the period */
  }
  p[size] = '\0';
  return p;
}

/* ---------------- harmony ---------------- */

static const opt_cmd harmony_cmd = {
    .name = "bench harmony",
    .synopsis = "[options]",
    .intro =
        "Feeds N MiB (default 16) of generated harmony output (messages of every\n"
        "channel, stray '<|') at chunk sizes 4 and 65536 (--chunk N: that size only);\n"
        "MB/s on the CPU and wall clocks, medians of --reps runs (default 5), with\n"
        "the calibration loops (call per chunk, memchr for '<', memcpy).\n",
};

typedef struct filter_run {
  sluice_status (*make)(sluice_filter **f, const sluice_sink *sink, const void *opts,
                        const sluice_mem *mem);
  const void *opts;
  const char *text;
  size_t size, chunk;
  const sluice_mem *mem;
  bench_count count;
} filter_run;

static void filter_body(void *v) {
  filter_run *r = v;
  sluice_filter *f;
  sluice_sink sink = bench_count_sink(&r->count);
  bench_count_reset(&r->count);
  if (r->make(&f, &sink, r->opts, r->mem) != SLUICE_OK) return;
  bench_feed(f, r->text, r->size, r->chunk, NULL);
  sluice_free(f);
}

static sluice_status make_harmony(sluice_filter **f, const sluice_sink *sink, const void *o,
                                  const sluice_mem *mem) {
  return sluice_harmony_new(f, o, sink, mem, NULL);
}
static sluice_status make_monitor(sluice_filter **f, const sluice_sink *sink, const void *o,
                                  const sluice_mem *mem) {
  return sluice_monitor_new(f, o, sink, mem, NULL);
}

int bench_harmony(int argc, char **argv) {
  bench_args a;
  int rc = bench_parse(argc, argv, &harmony_cmd, "mb chunk", 16, &a);
  if (rc >= 0) return rc;
  size_t size = a.mb << 20;
  char *text = gen_prose(size, 1);
  if (!text) return 1;
  sluice_harmony_opts o;
  sluice_harmony_opts_init(&o);
  fprintf(bench_out, "harmony, %zu MiB of generated output, medians of %d runs\n", a.mb, a.reps);
  fprintf(bench_out, "%6s %9s %9s | %17s %17s %17s\n", "chunk", "MB/s", "[wall]",
          "call loop (frac)", "memchr (frac)", "memcpy (frac)");
  static const size_t sizes[] = {4, 65536};
  for (int i = 0; i < 2; i++) {
    if (a.chunk && a.chunk != sizes[i]) continue;
    filter_run r = {make_harmony, &o, text, size, sizes[i], NULL, {0}};
    bench_time t = bench_measure(filter_body, &r, a.reps, 1);
    if (r.count.bytes != size) fprintf(stderr, "bench harmony: conservation broken!\n");
    bench_calib c = bench_calibrate(text, size, sizes[i], '<', a.reps, 1);
    fprintf(bench_out, "%6zu %9.0f %9.0f | %9.0f (%4.2f) %9.0f (%4.2f) %9.0f (%4.2f)\n", sizes[i],
            bench_mbs(size, t.cpu), bench_mbs(size, t.wall), bench_mbs(size, c.call.cpu),
            c.call.cpu / t.cpu, bench_mbs(size, c.memchr.cpu), c.memchr.cpu / t.cpu,
            bench_mbs(size, c.memcpy.cpu), c.memcpy.cpu / t.cpu);
    json_t *row = json_object();
    json_object_set_new(row, "chunk", json_integer((json_int_t)sizes[i]));
    bench_report_time(row, size, t);
    bench_report_calib(row, size, t, &c);
    bench_report_add("harmony", row);
  }
  free(text);
  return 0;
}

/* ---------------- monitor ---------------- */

static const opt_cmd monitor_cmd = {
    .name = "bench monitor",
    .synopsis = "[options]",
    .intro =
        "Runs the monitor, one filter per response (creation included), on responses\n"
        "of 16 KB, 32 KB, 128 KB, 1 MB, 8 MB and 64 MB (--quick: up to 1 MB) of\n"
        "  prose     words with multi-byte text, no loops (every checkpoint runs the\n"
        "            detector to its end);\n"
        "  marker    a 10-character marker every 20 characters (DESIGN.md 2);\n"
        "  nearloop  blocks repeated one time fewer than the profile's detector\n"
        "            needs (a long block: 9 copies for seed, 19 for current);\n"
        "for both profiles, in chunks of 65536 and 4 bytes (--chunk N: that size\n"
        "only). Prints MB/s and ns per code point on the CPU clock (medians of --reps\n"
        "runs, default 5; small responses are run many times per sample), the wall\n"
        "clock, the verdict, and the peak memory per code point. Target: 100 MB/s.\n"
        "\n"
        "--python also runs bench/monitor_port.py, the literal Python port of the\n"
        "original detector, on the 32 KB and 128 KB responses with the same\n"
        "chunking, and prints the ratio of CPU times (target at 32 KB: 5x) and\n"
        "whether the verdicts agree. SLUICE_MONITOR_PORT overrides the script's path.\n",
};

/* A counting allocator, for the peak memory of a run. */
typedef struct mem_count {
  size_t live, peak;
} mem_count;
typedef struct mem_hdr {
  size_t n, pad;
} mem_hdr;
static void *mc_malloc(void *ctx, size_t n) {
  mem_count *c = ctx;
  mem_hdr *h = malloc(sizeof *h + n);
  if (!h) return NULL;
  h->n = n;
  if ((c->live += n) > c->peak) c->peak = c->live;
  return h + 1;
}
static void *mc_realloc(void *ctx, void *p, size_t n) {
  mem_count *c = ctx;
  if (!p) return mc_malloc(ctx, n);
  mem_hdr *h = (mem_hdr *)p - 1;
  size_t old = h->n;
  h = realloc(h, sizeof *h + n);
  if (!h) return NULL;
  h->n = n;
  c->live = c->live - old + n;
  if (c->live > c->peak) c->peak = c->live;
  return h + 1;
}
static void mc_free(void *ctx, void *p) {
  mem_count *c = ctx;
  if (!p) return;
  mem_hdr *h = (mem_hdr *)p - 1;
  c->live -= h->n;
  free(h);
}

typedef struct py_result {
  int ok;
  double cpu, wall;
  char reason[16];
  unsigned long long offset;
} py_result;

/* Runs the Python port over p[0..n) with the same chunking; its CPU time per
 * response is measured by Python itself (time.thread_time), median of reps. */
static py_result run_python(const char *p, size_t n, size_t chunk, int current, int reps,
                            int inner) {
  py_result res = {0, 0, 0, "", 0};
  char path[] = "/tmp/sluice-bench-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return res;
  int wr_ok = write(fd, p, n) == (ssize_t)n;
  close(fd);
  char found[4096];
  const char *script = getenv("SLUICE_MONITOR_PORT");
  if (!script) script = data_path(NULL, "bench/monitor_port.py", found, sizeof found);
  if (!script) {
    fprintf(stderr, "sluice bench monitor: bench/monitor_port.py is in the source tree only "
                    "(not installed): set SLUICE_MONITOR_PORT\n");
    unlink(path);
    return res;
  }
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "python3 '%s' --profile %s --chunk %zu --reps %d --inner %d '%s'",
           script, current ? "current" : "seed", chunk, reps, inner, path);
  FILE *fp = wr_ok ? popen(cmd, "r") : NULL;
  if (fp) {
    char line[512] = "";
    if (fgets(line, sizeof line, fp)) {
      json_t *j = json_loads(line, 0, NULL);
      if (j) {
        res.cpu = json_number_value(json_object_get(j, "cpu_s"));
        res.wall = json_number_value(json_object_get(j, "wall_s"));
        json_t *st = json_object_get(j, "stop");
        if (json_is_array(st)) {
          snprintf(res.reason, sizeof res.reason, "%s", json_string_value(json_array_get(st, 0)));
          res.offset = (unsigned long long)json_integer_value(json_array_get(st, 1));
        }
        res.ok = res.cpu > 0;
        json_decref(j);
      }
    }
    if (pclose(fp) != 0) res.ok = 0;
  }
  unlink(path);
  if (!res.ok) fprintf(stderr, "bench monitor: the Python port did not run (%s)\n", cmd);
  return res;
}

int bench_monitor(int argc, char **argv) {
  bench_args a;
  int rc = bench_parse(argc, argv, &monitor_cmd, "chunk text python quick", 0, &a);
  if (rc >= 0) return rc;
  static const size_t all_sizes[] = {16384, 32768, 131072, 1 << 20, 8 << 20, 64 << 20};
  size_t nsizes = a.quick ? 4 : 6, largest = all_sizes[nsizes - 1];
  static const char *const text_names[] = {"prose", "marker", "nearloop"};
  static const size_t chunks[] = {65536, 4};
  fprintf(bench_out, "monitor, one filter per response, medians of %d runs (CPU time; wall in "
                     "brackets)\n", a.reps);
  fprintf(bench_out, "%-8s %-8s %9s %6s %9s %8s %9s %8s %-17s %7s %9s\n", "profile", "text",
          "bytes", "chunk", "MB/s", "ns/cp", "[wall]", "target", "verdict", "B/cp", "x python");
  for (int ti = 0; ti < 3; ti++) {
    if (a.text && strcmp(a.text, text_names[ti]) != 0) continue;
    char *text = ti == 0 ? gen_prose(largest, 0) : ti == 1 ? gen_marker(largest)
                                                           : gen_nearloop(largest, 0);
    if (!text) return 1;
    for (int prof = 0; prof < 2; prof++) {
      if (ti == 2 && prof == 1) { /* the current profile's own near-loops */
        free(text);
        if (!(text = gen_nearloop(largest, 1))) return 1;
      }
      sluice_monitor_opts o;
      sluice_monitor_opts_init(&o);
      o.profile = prof ? SLUICE_MONITOR_CURRENT : SLUICE_MONITOR_SEED;
      const char *pname = prof ? "current" : "seed";
      for (size_t si = 0; si < nsizes; si++) {
        size_t size = all_sizes[si];
        /* a response ends on a code point: no cut sequence at its end */
        while (size > 0 && ((unsigned char)text[size] & 0xC0) == 0x80) size--;
        uint64_t cps = sluice_utf8_count(text, size);
        for (size_t ci = 0; ci < 2; ci++) {
          size_t cs = chunks[ci];
          if (a.chunk ? cs != a.chunk : (cs == 4 && size > (8u << 20))) continue;
          filter_run r = {make_monitor, &o, text, size, cs, NULL, {0}};
          int inner = bench_inner(size, 8u << 20);
          bench_time t = bench_measure(filter_body, &r, a.reps, inner);
          /* the peak memory, in an untimed run */
          mem_count mc = {0, 0};
          sluice_mem mem = {mc_malloc, mc_realloc, mc_free, &mc};
          filter_run rm = r;
          rm.mem = &mem;
          filter_body(&rm);
          if (r.count.bytes != size) fprintf(stderr, "bench monitor: conservation broken!\n");
          char verdict[40] = "none";
          if (r.count.stops)
            snprintf(verdict, sizeof verdict, "%s@%llu", r.count.stop_reason,
                     (unsigned long long)r.count.stop_offset);
          uint64_t done = r.count.stops ? r.count.stop_offset : cps;
          double mbs = bench_mbs(size, t.cpu);
          char what[80];
          snprintf(what, sizeof what, "%s %s %zu bytes, %zu-byte chunks", pname, text_names[ti],
                   size, cs);
          bench_target("monitor", what, mbs, 100, "MB/s");
          char py[24] = "";
          py_result pr = {0, 0, 0, "", 0};
          if (a.python && (si == 1 || si == 2)) {
            pr = run_python(text, size, cs, prof, a.reps, bench_inner(size, 2u << 20));
            if (pr.ok) {
              int agree = strcmp(pr.reason, r.count.stops ? r.count.stop_reason : "") == 0 &&
                          pr.offset == (r.count.stops ? r.count.stop_offset : 0);
              snprintf(py, sizeof py, "%.1fx%s", pr.cpu / t.cpu, agree ? "" : " DIFFER");
              if (si == 1) {
                snprintf(what, sizeof what, "%s %s 32 KB, %zu-byte chunks, vs Python", pname,
                         text_names[ti], cs);
                bench_target("monitor", what, pr.cpu / t.cpu, 5, "x");
              }
            }
          }
          fprintf(bench_out, "%-8s %-8s %9zu %6zu %9.1f %8.2f %9.1f %8s %-17s %7.2f %9s\n", pname,
                  text_names[ti], size, cs, mbs, t.cpu * 1e9 / (double)done,
                  bench_mbs(size, t.wall), mbs >= 100 ? "100 met" : "100 MISSED", verdict,
                  (double)mc.peak / (double)(done ? done : 1), py);
          json_t *row = json_object();
          json_object_set_new(row, "profile", json_string(pname));
          json_object_set_new(row, "text", json_string(text_names[ti]));
          json_object_set_new(row, "chunk", json_integer((json_int_t)cs));
          json_object_set_new(row, "code_points", json_integer((json_int_t)cps));
          json_object_set_new(row, "ns_per_cp", json_real(t.cpu * 1e9 / (double)done));
          json_object_set_new(row, "verdict", json_string(verdict));
          json_object_set_new(row, "peak_bytes", json_integer((json_int_t)mc.peak));
          json_object_set_new(row, "runs_per_sample", json_integer(inner));
          bench_report_time(row, size, t);
          bench_report_target(row, 100, mbs);
          if (pr.ok) {
            json_t *p = json_object();
            json_object_set_new(p, "cpu_s", json_real(pr.cpu));
            json_object_set_new(p, "wall_s", json_real(pr.wall));
            json_object_set_new(p, "ratio", json_real(pr.cpu / t.cpu));
            json_object_set_new(row, "python", p);
          }
          bench_report_add("monitor", row);
        }
      }
    }
    free(text);
  }
  fprintf(bench_out, "ns/cp: CPU time per code point read (up to the stop, if any). B/cp: peak\n"
                     "bytes allocated per code point. x python: the port's CPU time over ours.\n");
  return 0;
}
