/*
 * bench.c: `sluice bench`, throughput and hold-back of the filters on
 * generated text. A benchmark, not a test: it prints figures and the targets
 * they are measured against, and never fails on speed.
 */
#include "tools.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char bench_usage[] =
    "usage: sluice bench think [--mb N] [--mode channel|anchored] [--reps N] [--chunk N]\n"
    "\n"
    "Generates N MiB (default 16) of prose with thinking blocks and feeds it to\n"
    "the filter at chunk sizes 1, 4, 64 and 65536 bytes. Prints MB/s (best of\n"
    "--reps runs, default 3), the largest hold-back seen, and a calibration: a\n"
    "plain C scanner (memchr for '<' plus a call per chunk) over the same text.\n"
    "--chunk N measures that one chunk size only.\n";

static uint64_t sink_bytes;
static int count_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)user;
  (void)ch;
  (void)p;
  sink_bytes += n;
  return 0;
}

/* Prose with a thinking block every ~2 KiB, some stray '<' and tags that are
 * not thinking tags, and multi-byte text. */
static char *gen_text(size_t size) {
  static const char *const words[] = {
      "the", "model", "answer", "stream", "token", "while", "a < b", "<br>", "chunk",
      "filter", "reasoning", "naïve", "café", "—", "split", "is", "of", "and", "in", "<b>x</b>"};
  char *p = malloc(size + 64);
  size_t n = 0;
  uint64_t s = 88172645463325252ULL;
  size_t next_block = 512;
  while (n < size) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    const char *w;
    if (n >= next_block) {
      w = (s & 1) ? "<think>" : "</think>";
      next_block = n + 1024 + (s % 2048);
    } else {
      w = words[s % (sizeof words / sizeof words[0])];
    }
    size_t l = strlen(w);
    if (n + l + 1 > size) break;
    memcpy(p + n, w, l);
    n += l;
    p[n++] = (s & 0x30) ? ' ' : '\n';
  }
  while (n < size) p[n++] = ' ';
  return p;
}

/* The calibration scanner: what any filter must at least do, a call per
 * chunk and a search for the tag's first byte. */
static size_t __attribute__((noinline)) calib_chunk(const char *p, size_t n, size_t *hits) {
  const char *e = p + n;
  while (p < e) {
    const char *q = memchr(p, '<', (size_t)(e - p));
    if (!q) break;
    (*hits)++;
    p = q + 1;
  }
  return n;
}

static int bench_think(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    fputs(bench_usage, stdout);
    return 0;
  }
  size_t mb = 16;
  int reps = 3;
  size_t only = 0;
  sluice_think_opts o;
  sluice_think_opts_init(&o);
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc) mb = (size_t)atoi(argv[++i]);
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) only = (size_t)atol(argv[++i]);
    else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
      const char *m = argv[++i];
      if (strcmp(m, "anchored") == 0) o.mode = SLUICE_THINK_ANCHORED;
      else if (strcmp(m, "channel") != 0) {
        fprintf(stderr, "sluice bench: --mode must be channel or anchored\n");
        return 2;
      }
    } else {
      fprintf(stderr, "sluice bench: unknown option \"%s\" (see --help)\n", argv[i]);
      return 2;
    }
  }
  if (mb == 0 || reps < 1) {
    fprintf(stderr, "sluice bench: --mb and --reps must be positive\n");
    return 2;
  }
  size_t size = mb << 20;
  char *text = gen_text(size);
  static const size_t sizes[] = {1, 4, 64, 65536};
  static const double targets[] = {150, 500, 0, 2000}; /* MB/s, 0 = none */
  printf("think %s mode, %zu MiB of generated text, best of %d\n",
         o.mode == SLUICE_THINK_CHANNEL ? "channel" : "anchored", mb, reps);
  printf("%10s %12s %14s %10s %12s\n", "chunk", "MB/s", "calib MB/s", "target", "max held");
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    size_t cs = sizes[si];
    if (only && cs != only) continue;
    double best = 1e30, cbest = 1e30;
    uint64_t max_held = 0;
    sluice_sink sink = {count_emit, NULL, NULL};
    for (int r = 0; r < reps; r++) {
      sluice_filter *f;
      if (sluice_think_new(&f, &o, &sink, NULL, NULL) != SLUICE_OK) return 1;
      sink_bytes = 0;
      double t0 = bench_now();
      for (size_t off = 0; off < size; off += cs)
        sluice_feed(f, text + off, off + cs <= size ? cs : size - off);
      sluice_finish(f);
      double t = bench_now() - t0;
      if (sink_bytes != size) fprintf(stderr, "bench: conservation broken!\n");
      sluice_free(f);
      if (t < best) best = t;
      size_t hits = 0;
      t0 = bench_now();
      for (size_t off = 0; off < size; off += cs)
        calib_chunk(text + off, off + cs <= size ? cs : size - off, &hits);
      t = bench_now() - t0;
      if (t < cbest) cbest = t;
    }
    /* The hold-back, in an untimed pass. */
    sluice_filter *f;
    if (sluice_think_new(&f, &o, &sink, NULL, NULL) != SLUICE_OK) return 1;
    for (size_t off = 0; off < size; off += cs) {
      sluice_feed(f, text + off, off + cs <= size ? cs : size - off);
      uint64_t h = sluice_held(f);
      if (h > max_held) max_held = h;
    }
    sluice_finish(f);
    sluice_free(f);
    char tg[32] = "-";
    double mbs = (double)size / best / 1e6;
    if (targets[si] > 0)
      snprintf(tg, sizeof tg, "%.0f %s", targets[si], mbs >= targets[si] ? "met" : "MISSED");
    printf("%10zu %12.0f %14.0f %10s %12llu\n", cs, mbs, (double)size / cbest / 1e6, tg,
           (unsigned long long)max_held);
  }
  free(text);
  return 0;
}

/* tools/bench_monharm.c */
int bench_harmony(int argc, char **argv);
int bench_monitor(int argc, char **argv);

/* One line per filter benchmark. */
static const struct {
  const char *name;
  int (*run)(int, char **);
} benches[] = {
    {"think", bench_think},
    {"clean", bench_clean},
    {"harmony", bench_harmony},
    {"monitor", bench_monitor},
    {"json", bench_json},
    {"sse", bench_sse},
    {"replay", bench_replay},
};

int cmd_bench(int argc, char **argv) {
  if (argc >= 2)
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
      if (strcmp(argv[1], benches[i].name) == 0) return benches[i].run(argc, argv);
  FILE *fp = wants_help(argc, argv) ? stdout : stderr;
  fprintf(fp, "usage: sluice bench NAME [options]   (NAME --help for its options)\nbenchmarks:");
  for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) fprintf(fp, " %s", benches[i].name);
  fputc('\n', fp);
  return fp == stdout ? 0 : 2;
}
