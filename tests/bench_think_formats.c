/*
 * bench_think_formats.c: what a reasoning format costs over channel mode,
 * on `sluice bench think`'s two texts (the same generator), at 4-byte and
 * 64 KiB chunks. Not a test: it prints figures, like `sluice bench`, and
 * is built beside the tests only until `sluice bench think --format` exists.
 *
 *     taskset -c 1 build/tests/bench_think_formats [MiB (16)] [reps (9)]
 *
 * Two inputs per text:
 *   as is   the bench's text (its tags are <think> and </think>): a format
 *           that starts inside reads reasoning up to the first </think>,
 *           then answer, where only answer wrappers are looked for;
 *   inside  the same text with "think" spelled "thunk": no tag ever closes,
 *           so a format spends the whole stream inside its block, scanning
 *           for its closing tag and implicit ends in text dense with '<'
 *           (its slowest part); channel mode scans it for opening tags.
 * MB/s is the median of `reps` runs on the thread's CPU clock; "cost" is
 * the median, over `reps` pairs of runs one after the other, of the
 * format's time over channel mode's on the same input, so that a machine
 * whose load changes (shared cores) moves both sides of each pair.
 */
#include "../bench/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* bench.c (linked for its think texts) dispatches to the other benchmarks;
 * this program runs none of them. */
#define NOT_HERE(name)          \
  int name(int argc, char **argv); \
  int name(int argc, char **argv) { return (void)argc, (void)argv, 2; }
NOT_HERE(bench_clean)
NOT_HERE(bench_harmony)
NOT_HERE(bench_json)
NOT_HERE(bench_monitor)
NOT_HERE(bench_peers)
NOT_HERE(bench_replay)
NOT_HERE(bench_sse)

typedef struct run_ctx {
  sluice_think_opts o;
  const char *text;
  size_t size, chunk;
  bench_count count;
} run_ctx;

static void body(void *v) {
  run_ctx *r = v;
  sluice_filter *f;
  sluice_sink sink = bench_count_sink(&r->count);
  bench_count_reset(&r->count);
  if (sluice_think_new(&f, &r->o, &sink, NULL, NULL) != SLUICE_OK) return;
  bench_feed(f, r->text, r->size, r->chunk, NULL);
  sluice_free(f);
}

static double seconds(run_ctx *r) {
  bench_time t = bench_measure(body, r, 1, 1);
  if (r->count.bytes != r->size) fprintf(stderr, "conservation broken!\n");
  return t.cpu;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 16;
  int reps = argc > 2 ? atoi(argv[2]) : 9;
  if (reps < 1 || reps > 99) reps = 9;
  bench_out = stdout;
  size_t size = mb << 20;
  static const char *const texts[] = {"dense", "sparse"};
  static const size_t chunks[] = {4, 65536};
  printf("think formats vs channel mode, %zu MiB: MB/s (median of %d runs, CPU time) and the\n"
         "cost, the median over %d runs of the format's time over channel mode's, each pair\n"
         "measured one after the other so that a change of load hits both\n", mb, reps, reps);
  for (int form = 0; form < 2; form++)
    for (size_t ti = 0; ti < 2; ti++) {
      char *text = bench_think_text(texts[ti], size);
      if (!text) return 1;
      if (form == 1) /* "inside": no tag closes */
        for (char *p = text; (p = strstr(p, "think")) != NULL; p += 5) p[2] = 'u';
      for (size_t ci = 0; ci < 2; ci++) {
        run_ctx base, fmt;
        memset(&base, 0, sizeof base);
        base.text = text, base.size = size, base.chunk = chunks[ci];
        sluice_think_opts_init(&base.o);
        fmt = base;
        double bt[99];
        for (int k = 0; k < reps; k++) bt[k] = seconds(&base);
        qsort(bt, (size_t)reps, sizeof bt[0], cmp);
        printf("\n%s text, %s, %zu-byte chunks: channel mode %.0f MB/s\n", texts[ti],
               form ? "inside" : "as is", chunks[ci], bench_mbs(size, bt[reps / 2]));
        double worst = -1;
        const char *worst_name = "";
        for (int f = SLUICE_THINK_FORMAT_GENERIC + 1; f < SLUICE_THINK_FORMAT_COUNT; f++) {
          if (f == SLUICE_THINK_FORMAT_GPT_OSS) continue;
          sluice_think_opts_init(&fmt.o);
          fmt.o.format = (sluice_think_format)f;
          fmt.o.thinking = 1;
          double ft[99], ratio[99];
          for (int k = 0; k < reps; k++) {
            double b = seconds(&base);
            ft[k] = seconds(&fmt);
            ratio[k] = ft[k] / b;
          }
          qsort(ft, (size_t)reps, sizeof ft[0], cmp);
          qsort(ratio, (size_t)reps, sizeof ratio[0], cmp);
          double cost = ratio[reps / 2] - 1;
          if (cost > worst) worst = cost, worst_name = sluice_think_format_name(fmt.o.format);
          printf("  %-15s %8.0f MB/s  %+6.1f%%\n", sluice_think_format_name(fmt.o.format),
                 bench_mbs(size, ft[reps / 2]), 100 * cost);
        }
        printf("  worst: %s %+.1f%%\n", worst_name, 100 * worst);
      }
      free(text);
    }
  return 0;
}
