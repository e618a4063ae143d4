/*
 * cleancmd.c: `sluice clean --config FILE [--stream]`: the response cleaner
 * on standard input. The config file is the filter's protocol options,
 * {"endpoint": {...}, "node": {...}, "globals": {...}}, with the proxy's own
 * keys. Only the cleaned text (the TEXT channel) is written.
 */
#include "tools.h"

#include "../lib/src/kit/kit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char clean_usage[] =
    "usage: sluice clean --config FILE [--stream]\n"
    "\n"
    "Reads an LLM response on standard input and writes it cleaned by the\n"
    "response cleaner pipeline (think removal, prefixes, trim) to standard output.\n"
    "\n"
    "  --config FILE   JSON options: {\"endpoint\": {...}, \"node\": {...},\n"
    "                  \"globals\": {...}} (see conformance/suites/clean/README.md)\n"
    "  --stream        feed standard input as it arrives, writing text as soon as\n"
    "                  the filter releases it (default: read it whole first)\n"
    "  --strict        refuse settings the cleaner does not use (by default they\n"
    "                  are reported on stderr and ignored, so a proxy's endpoint\n"
    "                  or node file can be pasted in whole)\n";

/* Drops the keys of the proxy's sections that are not cleaning settings
 * (a proxy's endpoint file also holds its URL, context size and so on),
 * reporting each one. Returns the options text to use (malloc'd), or NULL
 * when the config is not a JSON object (the filter then reports it). */
static char *drop_foreign_keys(const tbytes *cfg, const char *path) {
  json_t *o = json_loadb(cfg->p, cfg->n, JSON_ALLOW_NUL, NULL);
  if (!json_is_object(o)) {
    json_decref(o);
    return NULL;
  }
  static const char *const sections[] = {"endpoint", "node", "globals"};
  for (int i = 0; i < 3; i++) {
    json_t *sec = json_object_get(o, sections[i]);
    if (!json_is_object(sec)) continue;
    const char *key;
    json_t *v, *tmp;
    json_object_foreach_safe(sec, tmp, key, v) {
      if (sluicep_clean_known_key(sections[i], key) == 0) {
        fprintf(stderr, "sluice clean: %s: ignoring %s.%s (not a cleaning setting)\n", path,
                sections[i], key);
        json_object_del(sec, key);
      }
    }
  }
  char *s = json_dumps(o, JSON_COMPACT);
  json_decref(o);
  return s;
}

static int write_text(void *user, sluice_channel ch, const char *p, size_t n) {
  FILE *out = user;
  if (ch != SLUICE_TEXT) return 0;
  if (fwrite(p, 1, n, out) != n) return 1;
  return 0;
}

int cmd_clean(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    fputs(clean_usage, stdout);
    return 0;
  }
  const char *config = NULL;
  int stream = 0, strict = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
      config = argv[++i];
    } else if (strcmp(argv[i], "--stream") == 0) {
      stream = 1;
    } else if (strcmp(argv[i], "--strict") == 0) {
      strict = 1;
    } else {
      fprintf(stderr, "sluice clean: unknown argument \"%s\"\n\n%s", argv[i], clean_usage);
      return 2;
    }
  }
  if (!config) {
    fprintf(stderr, "sluice clean: --config FILE is required\n\n%s", clean_usage);
    return 2;
  }
  FILE *cf = fopen(config, "rb");
  if (!cf) {
    fprintf(stderr, "sluice clean: cannot open %s: %s\n", config, strerror(errno));
    return 2;
  }
  tbytes opts;
  int rc = read_all(cf, &opts);
  fclose(cf);
  if (rc) {
    fprintf(stderr, "sluice clean: cannot read %s\n", config);
    return 2;
  }
  sluice_sink sink = {write_text, NULL, stdout};
  sluice_filter *f = NULL;
  sluice_error err;
  char *lenient = strict ? NULL : drop_foreign_keys(&opts, config);
  sluice_status st = lenient ? sluice_filter_new_json(&f, "clean", lenient, strlen(lenient), &sink,
                                                      NULL, &err)
                             : sluice_filter_new_json(&f, "clean", opts.p, opts.n, &sink, NULL,
                                                      &err);
  free(lenient);
  free(opts.p);
  if (st != SLUICE_OK) {
    fprintf(stderr, "sluice clean: %s: %s\n", config, err.message);
    return 2;
  }
  if (stream) {
    char buf[4096];
    for (;;) {
      ssize_t r = read(STDIN_FILENO, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        fprintf(stderr, "sluice clean: reading standard input: %s\n", strerror(errno));
        sluice_free(f);
        return 1;
      }
      if (r == 0) break;
      st = sluice_feed(f, buf, (size_t)r);
      if (st != SLUICE_OK) break;
      fflush(stdout); /* what was released is shown at once */
    }
    if (st == SLUICE_OK) st = sluice_finish(f);
  } else {
    tbytes in;
    if (read_all(stdin, &in)) {
      fprintf(stderr, "sluice clean: cannot read standard input\n");
      sluice_free(f);
      return 1;
    }
    st = sluice_once(f, in.p, in.n);
    free(in.p);
  }
  if (st != SLUICE_OK) {
    const sluice_error *e = sluice_get_error(f);
    fprintf(stderr, "sluice clean: %s at byte %llu: %s\n", sluice_status_name(st),
            (unsigned long long)e->offset, e->message);
    sluice_free(f);
    return 1;
  }
  sluice_free(f);
  if (fflush(stdout) != 0) return 1;
  return 0;
}

/* ---- `sluice bench clean`: throughput and hold-back (a benchmark, never a
 * test: it prints figures) ---- */

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
