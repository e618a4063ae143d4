/*
 * bench_monharm.c: `sluice bench harmony` and `sluice bench monitor`.
 * Throughput at chunk sizes 4 and 65536 on generated text, and for the
 * monitor the total time on the adversarial text of DESIGN.md §2 (a
 * 10-character marker every 20 characters, one million code points), on
 * which the original detector is quadratic. Prints figures; never fails on
 * speed.
 */
#include "tools.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int bench_harmony(int argc, char **argv);
int bench_monitor(int argc, char **argv);

static uint64_t total;
static int count_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)user;
  (void)ch;
  (void)p;
  total += n;
  return 0;
}
static int stops;
static uint64_t stop_at;
static int count_event(void *user, const sluice_event *ev) {
  (void)user;
  if (ev->type == SLUICE_EV_STOP) stops++, stop_at = ev->offset;
  return 0;
}

static uint64_t xs = 88172645463325252ULL;
static uint64_t next(void) {
  xs ^= xs << 13;
  xs ^= xs >> 7;
  xs ^= xs << 17;
  return xs;
}

/* Random prose from a word list, with multi-byte words; no loops. */
static size_t prose(char *p, size_t size, int harmony) {
  static const char *const words[] = {"the", "model", "answer", "stream", "token", "while",
                                      "naïve", "café", "—", "split", "is", "of", "and", "in",
                                      "<|", "x|>", "42", "über", "日本語", "reason"};
  size_t n = 0, next_msg = 0;
  int k = 0;
  while (n + 80 < size) {
    uint64_t s = next();
    const char *w = words[s % 20];
    if (harmony && n >= next_msg) {
      static const char *const heads[] = {
          "<|end|><|start|>assistant<|channel|>analysis<|message|>",
          "<|end|><|start|>assistant<|channel|>final<|message|>",
          "<|call|><|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json<|message|>",
          "<|return|><|channel|>commentary<|message|>"};
      w = heads[k++ % 4];
      next_msg = n + 256 + (s >> 8) % 2048;
    }
    size_t l = strlen(w);
    memcpy(p + n, w, l);
    n += l;
    p[n++] = (s & 0x3000) ? ' ' : '\n';
  }
  return n;
}

typedef sluice_status (*make_fn)(sluice_filter **f, const sluice_sink *sink, void *opts);

static double run(make_fn make, void *opts, const char *text, size_t size, size_t cs, int reps) {
  double best = 1e30;
  sluice_sink sink = {count_emit, count_event, NULL};
  for (int r = 0; r < reps; r++) {
    sluice_filter *f;
    if (make(&f, &sink, opts) != SLUICE_OK) return -1;
    total = 0;
    stops = 0;
    double t0 = bench_now();
    for (size_t off = 0; off < size; off += cs)
      sluice_feed(f, text + off, off + cs <= size ? cs : size - off);
    sluice_finish(f);
    double t = bench_now() - t0;
    if (total != size) fprintf(stderr, "bench: conservation broken!\n");
    sluice_free(f);
    if (t < best) best = t;
  }
  return best;
}

static sluice_status make_harmony(sluice_filter **f, const sluice_sink *sink, void *o) {
  return sluice_harmony_new(f, o, sink, NULL, NULL);
}
static sluice_status make_monitor(sluice_filter **f, const sluice_sink *sink, void *o) {
  return sluice_monitor_new(f, o, sink, NULL, NULL);
}

static int parse(int argc, char **argv, size_t *mb, int *reps, const char *usage) {
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc) *mb = (size_t)atoi(argv[++i]);
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) *reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(usage, stdout);
      return 0;
    } else {
      fprintf(stderr, "sluice bench: unknown option \"%s\" (see --help)\n", argv[i]);
      return 2;
    }
  }
  if (*mb == 0 || *reps < 1) {
    fprintf(stderr, "sluice bench: --mb and --reps must be positive\n");
    return 2;
  }
  return -1;
}

int bench_harmony(int argc, char **argv) {
  size_t mb = 16;
  int reps = 3;
  int rc = parse(argc, argv, &mb, &reps,
                 "usage: sluice bench harmony [--mb N] [--reps N]\n\n"
                 "Feeds N MiB (default 16) of generated harmony output (messages of\n"
                 "every channel, stray '<|') at chunk sizes 4 and 65536; MB/s, best of\n"
                 "--reps (default 3).\n");
  if (rc >= 0) return rc;
  size_t size = mb << 20;
  char *text = malloc(size);
  if (!text) return 1;
  size = prose(text, size, 1);
  sluice_harmony_opts o;
  sluice_harmony_opts_init(&o);
  printf("harmony, %.1f MiB of generated output, best of %d\n", (double)size / 1048576, reps);
  printf("%10s %12s\n", "chunk", "MB/s");
  static const size_t sizes[] = {4, 65536};
  for (int i = 0; i < 2; i++) {
    double t = run(make_harmony, &o, text, size, sizes[i], reps);
    printf("%10zu %12.0f\n", sizes[i], (double)size / t / 1e6);
  }
  free(text);
  return 0;
}

int bench_monitor(int argc, char **argv) {
  size_t mb = 4;
  int reps = 3;
  int rc = parse(argc, argv, &mb, &reps,
                 "usage: sluice bench monitor [--mb N] [--reps N]\n\n"
                 "Feeds N MiB (default 4) of generated prose (no loops: the monitor\n"
                 "runs every checkpoint to the end) at chunk sizes 4 and 65536, for both\n"
                 "profiles; then the adversarial text: a 10-character marker every 20\n"
                 "characters, 10^6 code points, as one chunk, with its verdict.\n");
  if (rc >= 0) return rc;
  size_t size = mb << 20;
  char *text = malloc(size);
  if (!text) return 1;
  size = prose(text, size, 0);
  printf("monitor, %.1f MiB of generated prose (%llu code points), best of %d\n",
         (double)size / 1048576, (unsigned long long)sluice_utf8_count(text, size), reps);
  printf("%10s %10s %12s %10s\n", "profile", "chunk", "MB/s", "stops");
  static const size_t sizes[] = {4, 65536};
  for (int p = 0; p < 2; p++) {
    sluice_monitor_opts o;
    sluice_monitor_opts_init(&o);
    o.profile = p ? SLUICE_MONITOR_CURRENT : SLUICE_MONITOR_SEED;
    for (int i = 0; i < 2; i++) {
      double t = run(make_monitor, &o, text, size, sizes[i], reps);
      printf("%10s %10zu %12.0f %10d\n", p ? "current" : "seed", sizes[i], (double)size / t / 1e6,
             stops);
    }
  }
  free(text);
  /* The adversary: [marker01] + 10 random letters, repeated to 10^6. */
  size_t n = 1000000;
  char *adv = malloc(n);
  if (!adv) return 1;
  for (size_t i = 0; i < n; i++)
    adv[i] = (i % 20) < 10 ? "[marker01]"[i % 20] : (char)('a' + next() % 26);
  printf("adversarial: 10-character marker every 20 characters, %zu code points\n", n);
  printf("%10s %12s %14s\n", "profile", "seconds", "verdict");
  for (int p = 0; p < 2; p++) {
    sluice_monitor_opts o;
    sluice_monitor_opts_init(&o);
    o.profile = p ? SLUICE_MONITOR_CURRENT : SLUICE_MONITOR_SEED;
    double t = run(make_monitor, &o, adv, n, n, 1);
    char v[32] = "none";
    if (stops) snprintf(v, sizeof v, "stop at %llu", (unsigned long long)stop_at);
    printf("%10s %12.3f %14s\n", p ? "current" : "seed", t, v);
  }
  free(adv);
  return 0;
}
