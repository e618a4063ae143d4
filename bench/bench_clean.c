/*
 * bench_clean.c: `sluice bench clean`, throughput and hold-back of the clean
 * filter with every rule on. A benchmark, never a test: it prints figures.
 */
#include "tools.h"

#include <stdlib.h>
#include <string.h>

static const char bench_clean_usage[] =
    "usage: sluice bench clean [--mb N] [--reps N]\n"
    "\n"
    "Generates N MiB (default 16) of a response that opens with a thinking block\n"
    "and every prefix rule, then prose with whitespace runs, and feeds it to the\n"
    "clean filter with every rule on at chunk sizes 1, 64 and 65536 bytes. Prints\n"
    "MB/s (best of --reps runs, default 3) and the largest hold-back seen.\n";

static uint64_t bench_bytes;
static int bench_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)user;
  (void)ch;
  (void)p;
  bench_bytes += n;
  return 0;
}

static char *bench_text(size_t size) {
  static const char head[] = "\n<think>planning the answer, step by step</think>\n"
                             "Note: Bot: [Sent less than a minute ago] Assistant: ";
  static const char *const words[] = {"the", "answer", "is", "café", "—", "a", "stream",
                                      "of", "tokens", "\n\n", "  ", "split", "chunk", "\u3000"};
  char *p = malloc(size + 64);
  if (!p) return NULL;
  size_t n = 0;
  memcpy(p, head, sizeof head - 1);
  n = sizeof head - 1;
  uint64_t s = 88172645463325252ULL;
  while (n < size) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    const char *w = words[s % (sizeof words / sizeof words[0])];
    size_t l = strlen(w);
    if (n + l + 1 > size) break;
    memcpy(p + n, w, l);
    n += l;
    p[n++] = ' ';
  }
  while (n < size) p[n++] = 'x';
  return p;
}

int bench_clean(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    fputs(bench_clean_usage, stdout);
    return 0;
  }
  size_t mb = 16;
  int reps = 3;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc) mb = (size_t)atoi(argv[++i]);
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
    else {
      fprintf(stderr, "sluice bench clean: unknown option \"%s\" (see --help)\n", argv[i]);
      return 2;
    }
  }
  if (mb == 0 || reps < 1) {
    fprintf(stderr, "sluice bench clean: --mb and --reps must be positive\n");
    return 2;
  }
  static const char *const node[] = {"Note:", "Response:"};
  static const char *const ep[] = {"AI:", "  Bot:  "};
  sluice_clean_opts o;
  sluice_clean_opts_init(&o);
  o.remove_thinking = 1;
  o.remove_node_prefixes = 1;
  o.node_prefixes = node;
  o.n_node_prefixes = 2;
  o.remove_endpoint_prefixes = 1;
  o.endpoint_prefixes = ep;
  o.n_endpoint_prefixes = 2;
  o.remove_timestamp = 1;
  o.add_user_assistant = o.add_missing_assistant = 1;
  o.trim = 1;
  size_t size = mb << 20;
  char *text = bench_text(size);
  if (!text) return 1;
  static const size_t sizes[] = {1, 64, 65536};
  printf("clean, every rule on, %zu MiB of generated text, best of %d\n", mb, reps);
  printf("%10s %12s %12s\n", "chunk", "MB/s", "max held");
  sluice_sink sink = {bench_emit, NULL, NULL};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    size_t cs = sizes[si];
    double best = 1e30;
    uint64_t max_held = 0;
    for (int r = 0; r <= reps; r++) {
      sluice_filter *f;
      if (sluice_clean_new(&f, &o, &sink, NULL, NULL) != SLUICE_OK) return 1;
      bench_bytes = 0;
      int measure_held = r == reps; /* the last pass is untimed */
      double t0 = bench_now();
      for (size_t off = 0; off < size; off += cs) {
        sluice_feed(f, text + off, off + cs <= size ? cs : size - off);
        if (measure_held && sluice_held(f) > max_held) max_held = sluice_held(f);
      }
      sluice_finish(f);
      double t = bench_now() - t0;
      if (bench_bytes != size) fprintf(stderr, "bench: conservation broken!\n");
      sluice_free(f);
      if (!measure_held && t < best) best = t;
    }
    printf("%10zu %12.0f %12llu\n", cs, (double)size / best / 1e6, (unsigned long long)max_held);
  }
  free(text);
  return 0;
}
