/*
 * bench.c: `sluice bench`, the dispatcher, and `sluice bench think`.
 * A benchmark, not a test: it prints figures, the calibration loops and the
 * targets they are measured against, and never fails on speed.
 */
#include "harness.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static const opt_cmd think_cmd = {
    .name = "bench think",
    .synopsis = "[options]",
    .intro =
        "Feeds N MiB (default 16) of two generated texts to the think filter at chunk\n"
        "sizes 1, 4, 64 and 65536 bytes (--chunk N: that size only):\n"
        "  dense   words with '<' every ~35 bytes (\"a < b\", <br>, <b>x</b>) and a\n"
        "          thinking tag every 1 to 3 KiB;\n"
        "  sparse  prose with a '<' every ~300 bytes and a thinking block every 4 to\n"
        "          12 KiB.\n"
        "Prints MB/s on the thread's CPU clock and on the wall clock (medians of\n"
        "--reps runs, default 5), the calibration loops over the same text and\n"
        "chunks (an empty indirect call per chunk, memchr for '<', memcpy) with the\n"
        "filter's figure as a fraction of each, the largest hold-back, and the\n"
        "targets (channel mode): 200 MB/s at 1-byte chunks, 600 at 4, and at 64 KiB\n"
        "6000 (dense) and 10000 (sparse).\n",
};

static const char *const dense_words[] = {
    "the", "model", "answer", "stream", "token", "while", "a < b", "<br>", "chunk", "filter",
    "reasoning", "naïve", "café", "—", "split", "is", "of", "and", "in", "<b>x</b>"};
static const char *const sparse_words[] = {
    "the",   "model",  "answer", "stream", "token",  "while",   "a",       "chunk",  "filter",
    "reasoning", "naïve", "café", "—",    "split",  "is",      "of",      "and",    "in",
    "between", "thought", "we",   "can",    "see",    "that",    "it",      "was",    "not",
    "only",  "for",    "this",   "reason", "when",   "their",   "could",   "would",  "about",
    "which", "there",  "other",  "after",  "first",  "because", "through", "where",  "those",
    "i<n"};
static const char *const think_tags[] = {"<think>", "</think>"};

typedef struct think_text {
  const char *name;
  bench_textspec spec;
  double target_large; /* MB/s at 64 KiB chunks */
} think_text;

static const think_text think_texts[] = {
    {"dense", {dense_words, sizeof dense_words / sizeof *dense_words, think_tags, 2, 1024, 2048, NULL, 5, 88172645463325252ULL}, 6000},
    {"sparse", {sparse_words, sizeof sparse_words / sizeof *sparse_words, think_tags, 2, 4096, 8192, NULL, 12, 0x9E3779B97F4A7C15ULL},
     10000},
};

char *bench_think_text(const char *name, size_t size) {
  for (size_t i = 0; i < sizeof think_texts / sizeof think_texts[0]; i++)
    if (strcmp(think_texts[i].name, name) == 0) return bench_text(&think_texts[i].spec, size);
  return NULL;
}

typedef struct think_run {
  const sluice_think_opts *o;
  const char *text;
  size_t size, chunk;
  bench_count count;
} think_run;

static void think_body(void *v) {
  think_run *r = v;
  sluice_filter *f;
  sluice_sink sink = bench_count_sink(&r->count);
  bench_count_reset(&r->count);
  if (sluice_think_new(&f, r->o, &sink, NULL, NULL) != SLUICE_OK) return;
  bench_feed(f, r->text, r->size, r->chunk, NULL);
  sluice_free(f);
}

int bench_think(int argc, char **argv) {
  bench_args a;
  int rc = bench_parse(argc, argv, &think_cmd, "mb chunk mode text", 16, &a);
  if (rc >= 0) return rc;
  sluice_think_opts o;
  sluice_think_opts_init(&o);
  if (a.mode && strcmp(a.mode, "anchored") == 0) o.mode = SLUICE_THINK_ANCHORED;
  else if (a.mode && strcmp(a.mode, "channel") != 0) {
    fprintf(stderr, "sluice bench think: --mode: must be channel or anchored, not \"%s\"\n",
            a.mode);
    return 2;
  }
  const char *mode = o.mode == SLUICE_THINK_CHANNEL ? "channel" : "anchored";
  size_t size = a.mb << 20;
  static const size_t sizes[] = {1, 4, 64, 65536};
  fprintf(bench_out, "think, %s mode, %zu MiB per text, medians of %d runs (CPU time; wall in "
                     "brackets)\n", mode, a.mb, a.reps);
  fprintf(bench_out, "%-7s %6s %9s %9s | %17s %17s %17s | %8s %6s %5s\n", "text", "chunk", "MB/s",
          "[wall]", "call loop (frac)", "memchr (frac)", "memcpy (frac)", "target", "", "held");
  for (size_t ti = 0; ti < sizeof think_texts / sizeof think_texts[0]; ti++) {
    const think_text *tt = &think_texts[ti];
    if (a.text && strcmp(a.text, tt->name) != 0) continue;
    char *text = bench_text(&tt->spec, size);
    if (!text) return 1;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
      size_t cs = sizes[si];
      if (a.chunk && cs != a.chunk) continue;
      think_run r = {&o, text, size, cs, {0}};
      bench_time t = bench_measure(think_body, &r, a.reps, 1);
      if (r.count.bytes != size) fprintf(stderr, "bench think: conservation broken!\n");
      bench_calib c = bench_calibrate(text, size, cs, '<', a.reps, 1);
      /* the hold-back, in an untimed pass */
      uint64_t held = 0;
      sluice_filter *f;
      sluice_sink sink = bench_count_sink(&r.count);
      if (sluice_think_new(&f, &o, &sink, NULL, NULL) == SLUICE_OK) {
        bench_feed(f, text, size, cs, &held);
        sluice_free(f);
      }
      double mbs = bench_mbs(size, t.cpu);
      double goal = 0;
      if (o.mode == SLUICE_THINK_CHANNEL)
        goal = cs == 1 ? 200 : cs == 4 ? 600 : cs == 65536 ? tt->target_large : 0;
      char tg[16] = "-", met[8] = "";
      if (goal > 0) {
        snprintf(tg, sizeof tg, "%.0f", goal);
        snprintf(met, sizeof met, "%s", mbs >= goal ? "met" : "MISSED");
        char what[64];
        snprintf(what, sizeof what, "%s %s text, %zu-byte chunks", mode, tt->name, cs);
        bench_target("think", what, mbs, goal, "MB/s");
      }
      fprintf(bench_out,
              "%-7s %6zu %9.0f %9.0f | %9.0f (%4.2f) %9.0f (%4.2f) %9.0f (%4.2f) | %8s %6s %5llu\n",
              tt->name, cs, mbs, bench_mbs(size, t.wall), bench_mbs(size, c.call.cpu),
              c.call.cpu / t.cpu, bench_mbs(size, c.memchr.cpu), c.memchr.cpu / t.cpu,
              bench_mbs(size, c.memcpy.cpu), c.memcpy.cpu / t.cpu, tg, met,
              (unsigned long long)held);
      json_t *row = json_object();
      json_object_set_new(row, "mode", json_string(mode));
      json_object_set_new(row, "text", json_string(tt->name));
      json_object_set_new(row, "chunk", json_integer((json_int_t)cs));
      json_object_set_new(row, "max_held", json_integer((json_int_t)held));
      bench_report_time(row, size, t);
      bench_report_calib(row, size, t, &c);
      if (goal > 0) bench_report_target(row, goal, mbs);
      bench_report_add("think", row);
    }
    free(text);
  }
  fprintf(bench_out, "frac: the filter's speed as a fraction of the loop's (1.00 = as fast).\n");
  return 0;
}

/* One line per benchmark. */
static const struct {
  const char *name;
  int (*run)(int, char **);
  const char *about;
} benches[] = {
    {"think", bench_think, "thinking-block removal at chunk sizes 1 to 64 KiB, two texts"},
    {"clean", bench_clean, "the response cleaner with every rule on"},
    {"harmony", bench_harmony, "the gpt-oss template filter"},
    {"monitor", bench_monitor, "the repetition monitor, 16 KB to 64 MB, prose and adversaries"},
    {"json", bench_json, "the JSON sanitizer against jansson's load"},
    {"sse", bench_sse, "the SSE parser at 16-byte and 64 KiB chunks"},
    {"replay", bench_replay, "a generated capture through the provider pipeline and writer"},
    {"peers", bench_peers, "think, json and sse against their JavaScript peers (node)"},
};

int bench_report_write(const char *path, const char *command, int reps, double load_before);

static void list_benches(FILE *fp) {
  fprintf(fp, "usage: sluice bench NAME [options]    (sluice bench NAME --help)\n"
              "       sluice bench all [--reps N] [--json FILE] [--quick]\n\nbenchmarks:\n");
  for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
    fprintf(fp, "  %-8s %s\n", benches[i].name, benches[i].about);
  fprintf(fp, "  %-8s every benchmark above in one run, then the targets met and missed\n",
          "all");
  fprintf(fp, "\nEvery benchmark reports medians of --reps runs on the thread's CPU clock\n"
              "(and the wall clock), and --json FILE writes the figures for tracking.\n"
              "glibc's trim and mmap thresholds are pinned for the run and its children,\n"
              "so that a filter made per response does not pay page faults by the luck of\n"
              "the heap's layout; SLUICE_BENCH_MALLOC=default measures with glibc's own.\n");
}

static const opt_cmd all_cmd = {
    .name = "bench all",
    .synopsis = "[--reps N] [--json FILE] [--quick]",
    .intro = "Runs every benchmark (sluice bench --help lists them) in one run with these\n"
             "options (--quick to those that take it; the monitor with its Python port),\n"
             "then sums up the targets met and missed.\n",
};

/* `sluice bench all`: each benchmark with the options given. */
static int bench_all(int argc, char **argv) {
  bench_args a;
  int rc = bench_parse(argc, argv, &all_cmd, "quick", 0, &a);
  if (rc >= 0) return rc;
  rc = 0;
  char reps[32];
  snprintf(reps, sizeof reps, "%d", a.reps);
  for (size_t i = 0; i < sizeof benches / sizeof benches[0] && rc == 0; i++) {
    const char *name = benches[i].name;
    char *args[8] = {(char *)name, "--reps", reps};
    int n = 3;
    if (a.quick && (strcmp(name, "monitor") == 0 || strcmp(name, "peers") == 0))
      args[n++] = "--quick";
    if (strcmp(name, "monitor") == 0) args[n++] = "--python";
    args[n] = NULL;
    fprintf(bench_out, "\n== sluice bench %s\n", name);
    fflush(bench_out);
    rc = benches[i].run(n, args);
  }
  return rc;
}

/* glibc hands the free space at the top of its heap back to the kernel
 * once it passes a threshold that moves with the process's history, and the
 * next response faults those pages back in. A benchmark that creates a
 * filter per response measured that luck: the same 32 KB monitor row
 * swung by 1.5x between runs, with 8 to 10 page faults per response or
 * none, depending on what had been left on the heap before it.
 * The thresholds are pinned here, and for the Python and node children
 * alike (GLIBC_TUNABLES, read when they start); SLUICE_BENCH_MALLOC=default
 * measures with glibc's own. Returns what the report says of it. */
static const char *pin_malloc(void) {
#if defined(__GLIBC__)
  const char *v = getenv("SLUICE_BENCH_MALLOC");
  if (v && strcmp(v, "default") == 0) return "glibc defaults";
  if (mallopt(M_MMAP_THRESHOLD, 32 << 20) != 1 || mallopt(M_TRIM_THRESHOLD, 64 << 20) != 1)
    return "glibc defaults (mallopt refused the pinned thresholds)";
  if (getenv("GLIBC_TUNABLES"))
    return "glibc, thresholds pinned here; the children take the GLIBC_TUNABLES already set";
  if (setenv("GLIBC_TUNABLES",
             "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864", 1) != 0)
    return "glibc, thresholds pinned here but not for the children (setenv failed)";
  return "glibc, mmap threshold 32 MiB and trim threshold 64 MiB pinned";
#else
  return "the C library's";
#endif
}

const char *bench_malloc_note;

/* The closing lines of a run: the targets, the load, the allocator, and
 * the --json report. The exit status. */
static int conclude(int argc, char **argv, double load) {
  bench_targets_print();
  fprintf(bench_out, "load average (1 min): %.2f before, %.2f after\n", load, bench_loadavg());
  fprintf(bench_out, "malloc: %s\n", bench_malloc_note);
  if (!bench_cli.json) return 0;
  char command[256] = "sluice bench";
  for (int i = 1; i < argc; i++) {
    size_t l = strlen(command);
    snprintf(command + l, sizeof command - l, " %s", argv[i]);
  }
  return bench_report_write(bench_cli.json, command, bench_cli.reps, load);
}

int cmd_bench(int argc, char **argv) {
  bench_out = stdout;
  int help = argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0);
  if (argc < 2 || help || argv[1][0] == '-') {
    int bad = argc >= 2 && !help;
    if (bad) fprintf(stderr, "sluice bench: %s: name a benchmark first\n\n", argv[1]);
    list_benches(bad ? stderr : stdout);
    return bad ? 2 : 0;
  }
  int (*run)(int, char **) = strcmp(argv[1], "all") == 0 ? bench_all : NULL;
  for (size_t i = 0; !run && i < sizeof benches / sizeof benches[0]; i++)
    if (strcmp(argv[1], benches[i].name) == 0) run = benches[i].run;
  if (!run) {
    fprintf(stderr, "sluice bench: no benchmark \"%s\"\n\n", argv[1]);
    list_benches(stderr);
    return 2;
  }
  bench_malloc_note = pin_malloc();
  double load = bench_loadavg();
  int rc = run(argc - 1, argv + 1);
  if (rc == 0 && !bench_cli.help) rc = conclude(argc, argv, load);
  return rc;
}
