/*
 * port_dump.c: what libsluice's filters make of a set of inputs, one line
 * per run, so that two builds of the library can be compared: the default
 * build against a SLUICE_PORTABLE one (no 128-bit integer, SIMD, CPU
 * dispatch or builtins) and a 32-bit one (tests/port_check.cmake). It links
 * libsluice and libc only.
 *
 *   port_dump LISTFILE     LISTFILE names the input files, one a line
 *
 * The inputs are those files (the conformance inputs as the fuzz seeds
 * hold them, and the recorded captures) and texts made here for the paths
 * the fallbacks replace: think's vector scan (long chunks dense in '<' and
 * in tags), the monitor's block hash and fingerprint bands (blocks of 1 to
 * 5000 code points repeated just under and at the firing count, some with
 * gaps, invalid bytes or multi-byte characters), its ASCII widening
 * (runs of eight bytes, token-sized feeds) and its whitespace runs. Each
 * goes through every configuration below, whole, in 4 KiB chunks and in
 * token-sized ones (1 to 9 bytes, from a fixed seed).
 *
 * A line gives the status, each channel's length and 64-bit FNV-1a hash,
 * the number of events and a hash of them all (every field), and a stop
 * verdict in words. The last line counts what the inputs reached; too
 * little (few repetition stops, hidden blocks, decoded provider streams)
 * is exit status 2, so that a comparison cannot pass on inputs that
 * exercise nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sluice.h"

/* ---------------- a sink that hashes ---------------- */

typedef struct digest {
  uint64_t len[SLUICE_CHANNEL_COUNT], hash[SLUICE_CHANNEL_COUNT];
  uint64_t nev, evhash;
  char stop[64];
} digest;

#define FNV_OFFSET 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * FNV_PRIME;
  return h;
}

/* A number by value, byte by byte: the same on every platform. */
static uint64_t fnv_u64(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; i++) h = (h ^ ((v >> (8 * i)) & 0xFF)) * FNV_PRIME;
  return h;
}

static int on_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  digest *d = user;
  d->len[ch] += n;
  d->hash[ch] = fnv(d->hash[ch], p, n);
  return 0;
}

static int on_event(void *user, const sluice_event *ev) {
  digest *d = user;
  uint64_t h = fnv_u64(d->evhash, (uint64_t)ev->type);
  h = fnv(fnv_u64(h, ev->name_len), ev->name, ev->name_len);
  h = fnv(fnv_u64(h, ev->data_len), ev->data, ev->data_len);
  h = fnv(fnv_u64(h, ev->id_len), ev->id, ev->id_len);
  h = fnv_u64(fnv_u64(fnv_u64(h, ev->offset), ev->length), (uint64_t)ev->complete);
  d->evhash = h;
  d->nev++;
  if (ev->type == SLUICE_EV_STOP)
    snprintf(d->stop, sizeof d->stop, " | stop %.*s at %llu", (int)ev->name_len, ev->name,
             (unsigned long long)ev->offset);
  return 0;
}

/* ---------------- the configurations ---------------- */

static const char *const cs_tags[] = {"think", "Reason"};
static const sluice_pair many_pairs[] = {
    {"[[", "]]"}, {"@@", "##"}, {"<|channel|>", "<|end|>"}, {"{{", "}}"}, {"((", "))"}};
static const sluice_pair harmony_pair[] = {{"<|channel|>analysis<|message|>", "<|end|>"}};
static const char *const node_prefixes[] = {"Sure!", "Answer:"};

enum { THINK, THINK_CS, THINK_PAIRS, THINK_PAIR, THINK_ANCHORED, MONITOR_SEED, MONITOR_CURRENT,
       MONITOR_SEED_61, MONITOR_CURRENT_97, CLEAN, HARMONY, JSON, JSON_INCREMENTAL, SSE, NDJSON,
       PROVIDER, CAPTURE, PIPELINE, NCONFIGS };
static const char *const config_names[NCONFIGS] = {
    "think", "think-case", "think-pairs", "think-pair", "think-anchored", "monitor-seed",
    "monitor-current", "monitor-seed-61", "monitor-current-97", "clean", "harmony", "json",
    "json-incremental", "sse", "ndjson", "provider", "capture", "pipeline"};

static sluice_status make(int c, sluice_filter **f, const sluice_sink *sink) {
  if (c <= THINK_ANCHORED) {
    sluice_think_opts o;
    sluice_think_opts_init(&o);
    if (c == THINK_CS) o.tags = cs_tags, o.ntags = 2, o.case_insensitive = 0;
    if (c == THINK_PAIRS) o.pairs = many_pairs, o.npairs = 5; /* five first bytes: no vector test */
    if (c == THINK_PAIR) o.pairs = harmony_pair, o.npairs = 1;
    if (c == THINK_ANCHORED) o.mode = SLUICE_THINK_ANCHORED, o.grace_period = 100000;
    return sluice_think_new(f, &o, sink, NULL, NULL);
  }
  if (c <= MONITOR_CURRENT_97) {
    sluice_monitor_opts o;
    sluice_monitor_opts_init(&o);
    if (c == MONITOR_CURRENT || c == MONITOR_CURRENT_97) o.profile = SLUICE_MONITOR_CURRENT;
    if (c == MONITOR_SEED_61) o.repetition_interval = 61, o.whitespace_interval = 16;
    if (c == MONITOR_CURRENT_97) o.repetition_interval = 97;
    return sluice_monitor_new(f, &o, sink, NULL, NULL);
  }
  if (c == CLEAN) {
    sluice_clean_opts o;
    sluice_clean_opts_init(&o);
    o.remove_thinking = o.trim = o.remove_timestamp = 1;
    o.add_user_assistant = o.add_missing_assistant = 1;
    o.remove_node_prefixes = 1, o.node_prefixes = node_prefixes, o.n_node_prefixes = 2;
    return sluice_clean_new(f, &o, sink, NULL, NULL);
  }
  if (c == HARMONY) return sluice_harmony_new(f, NULL, sink, NULL, NULL);
  if (c == JSON || c == JSON_INCREMENTAL) {
    sluice_json_opts o;
    sluice_json_opts_init(&o);
    o.incremental = c == JSON_INCREMENTAL;
    return sluice_json_new(f, &o, sink, NULL, NULL);
  }
  if (c == SSE) return sluice_sse_new(f, NULL, sink, NULL, NULL);
  if (c == NDJSON) return sluice_ndjson_new(f, NULL, sink, NULL, NULL);
  if (c == PROVIDER) return sluice_provider_new(f, NULL, sink, NULL, NULL);
  if (c == CAPTURE) return sluice_capture_new(f, NULL, sink, NULL, NULL);
  /* a provider's stream, then think and the monitor on every choice */
  sluice_monitor_opts mo;
  sluice_monitor_opts_init(&mo);
  mo.profile = SLUICE_MONITOR_CURRENT;
  sluice_stage stages[] = {{SLUICE_FILTER_THINK, NULL}, {SLUICE_FILTER_MONITOR, &mo}};
  sluice_pipeline_opts o;
  sluice_pipeline_opts_init(&o);
  o.stages = stages, o.nstages = 2;
  return sluice_pipeline_new(f, &o, sink, NULL, NULL);
}

/* ---------------- one run ---------------- */

static const char *const chunk_names[] = {"whole", "4k", "tokens"};
static long runs, stops_repetition, stops_whitespace, hid_blocks, decoded;

static int run(const char *name, const unsigned char *p, size_t n, int c, int chunking) {
  digest d;
  memset(&d, 0, sizeof d);
  for (int ch = 0; ch < SLUICE_CHANNEL_COUNT; ch++) d.hash[ch] = FNV_OFFSET;
  d.evhash = FNV_OFFSET;
  sluice_sink sink = {on_emit, on_event, &d};
  sluice_filter *f;
  sluice_status st = make(c, &f, &sink);
  if (st != SLUICE_OK) {
    fprintf(stderr, "port_dump: cannot make %s: %s\n", config_names[c], sluice_status_name(st));
    return -1;
  }
  sluice_rng r = sluice_rng_seed(n);
  for (size_t off = 0; off < n && st == SLUICE_OK;) {
    size_t k = chunking == 0 ? n : chunking == 1 ? 4096 : 1 + (size_t)sluice_rng_below(&r, 9);
    if (k > n - off) k = n - off;
    st = sluice_feed(f, p + off, k);
    off += k;
  }
  if (st == SLUICE_OK) st = sluice_finish(f);
  const sluice_error *e = sluice_get_error(f);
  printf("%s %s %s: %s at %llu", name, config_names[c], chunk_names[chunking],
         sluice_status_name(st), (unsigned long long)e->offset);
  for (int ch = 0; ch < SLUICE_CHANNEL_COUNT; ch++)
    printf(" | %llu %016llx", (unsigned long long)d.len[ch], (unsigned long long)d.hash[ch]);
  printf(" | %llu events %016llx%s\n", (unsigned long long)d.nev, (unsigned long long)d.evhash,
         d.stop);
  sluice_free(f);
  runs++;
  if (!strncmp(d.stop, " | stop repetition", 18)) stops_repetition++;
  if (!strncmp(d.stop, " | stop whitespace", 18)) stops_whitespace++;
  if (c <= THINK_ANCHORED && d.len[SLUICE_THOUGHT] > 0) hid_blocks++;
  if ((c == PROVIDER || c == PIPELINE) && d.len[SLUICE_TEXT] > 0) decoded++;
  return 0;
}

static int run_all(const char *name, const unsigned char *p, size_t n) {
  for (int c = 0; c < NCONFIGS; c++)
    for (int k = 0; k < 3; k++)
      if (run(name, p, n, c, k)) return -1;
  return 0;
}

/* ---------------- generated texts ---------------- */

typedef struct text {
  unsigned char *p;
  size_t n, cap;
} text;

static void put(text *t, const void *s, size_t k) {
  if (t->n + k > t->cap) {
    t->cap = (t->n + k) * 2;
    if (!(t->p = realloc(t->p, t->cap))) {
      fputs("port_dump: out of memory\n", stderr);
      exit(1);
    }
  }
  memcpy(t->p + t->n, s, k);
  t->n += k;
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

static sluice_rng rng = {0x2545F4914F6CDD1DULL};
static size_t rnd(size_t n) { return (size_t)sluice_rng_below(&rng, n); }

/* Letters with now and then a multi-byte character: the filler between
 * the shapes that matter. */
static void filler(text *t, size_t k) {
  static const char *const wide[] = {"é", "日", "—", "\xF0\x9F\x98\x80"};
  while (k--) {
    char c = (char)('a' + rnd(26));
    if (rnd(40) == 0) puts_(t, wide[rnd(4)]);
    else put(t, &c, 1);
  }
}

/* Think and harmony markup among prose, a '<' every few dozen bytes. */
static void markup_text(text *t, size_t size) {
  static const char *const pieces[] = {
      "<think>", "</think>", "<THINK>", "</Think>", "<thinking>", "</thinking>", "<reasoning>",
      "</reasoning>", "<thought>", "</thought>", "<reflection>", "</reflection>", "<th", "</t",
      "a < b", "<br>", "<b>x</b>", "<<think>>", "</thin", "[[", "]]", "@@", "##", "{{", "}}",
      "<|start|>assistant", "<|channel|>analysis<|message|>", "<|channel|>final<|message|>",
      "<|end|>", "<|return|>", "<|call|>", "<|channel|>commentary to=functions.f <|constrain|>json",
      "<|", "|>", "\n", "Sure! ", "[Sent less than a minute ago] "};
  while (t->n < size) {
    filler(t, rnd(70));
    puts_(t, " ");
    puts_(t, pieces[rnd(sizeof pieces / sizeof pieces[0])]);
  }
}

/* The repetition count of DESIGN.md 2 for a block of L code points. */
static size_t reps(int current, size_t L) {
  static const size_t table[20] = {340, 170, 114, 86, 69, 58, 50, 44, 40, 36,
                                   33,  31,  29,  27, 26, 25, 24, 23, 22, 21};
  if (current) return L <= 20 ? table[L - 1] : 20;
  return L <= 30 ? (100 + 8 * (L - 1)) / L : 10;
}

/* Filler, then a block of L code points repeated `copies` times (with a
 * gap shorter than L before some copies: a quasi repeat), ending on a
 * multiple of 512 code points (a checkpoint of the default interval), then
 * filler. */
static void loop_text(text *t, size_t L, size_t copies, int gaps, int invalid) {
  static const char *const alpha[] = {"a", "b", "c", "d", "é", "\xFF", "\x80"};
  static const char *block[5000];
  static size_t gap[1000];
  size_t nalpha = invalid ? 7 : 5, loop = 0;
  for (size_t i = 0; i < L; i++) block[i] = alpha[rnd(nalpha)];
  for (size_t c = 0; c < copies; c++) {
    gap[c] = gaps && c > 0 && rnd(3) == 0 ? 1 + rnd(L - 1 < 20 ? L - 1 : 20) : 0;
    loop += gap[c] + L;
  }
  size_t before = 100 + rnd(3000);
  filler(t, before + (512 - (before + loop) % 512) % 512);
  for (size_t c = 0; c < copies; c++) {
    filler(t, gap[c]);
    for (size_t i = 0; i < L; i++) puts_(t, block[i]);
  }
  filler(t, 200);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fputs("usage: port_dump LISTFILE (the input files, one a line)\n", stderr);
    return 1;
  }
  FILE *list = fopen(argv[1], "r");
  if (!list) {
    perror(argv[1]);
    return 1;
  }
  char path[4096];
  text t = {NULL, 0, 0};
  long files = 0;
  while (fgets(path, sizeof path, list)) {
    path[strcspn(path, "\r\n")] = '\0';
    if (!path[0]) continue;
    FILE *in = fopen(path, "rb");
    if (!in) {
      perror(path);
      return 1;
    }
    t.n = 0;
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, in)) > 0) put(&t, buf, k);
    fclose(in);
    if (run_all(path, t.p, t.n)) return 1;
    files++;
  }
  fclose(list);

  static const size_t lengths[] = {1, 3, 7, 10, 11, 23, 40, 64, 65, 100, 333, 1000, 2047, 2048, 3000, 5000};
  char name[64];
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
    for (int current = 0; current <= 1; current++)
      for (int at = 0; at <= 1; at++) {
        size_t L = lengths[i];
        t.n = 0;
        /* one copy short of firing at the checkpoint where the copies
         * end, or just enough */
        size_t copies = reps(current, L) - 1 + (size_t)at;
        loop_text(&t, L, copies, current && L > 1 && i % 2, i % 3 == 0);
        snprintf(name, sizeof name, "loop-%s-L%zu-%s", current ? "current" : "seed", L,
                 at ? "at" : "under");
        if (run_all(name, t.p, t.n)) return 1;
      }
  static const char *const spaces[] = {" ", "\t", "\n", "\r\n", "\r", "\xE3\x80\x80", "\xC2\xA0"};
  for (int i = 0; i < 6; i++) {
    t.n = 0;
    filler(&t, 500 + rnd(2000));
    for (size_t k = 100 + (size_t)i * 100; k--;) puts_(&t, spaces[rnd(7)]);
    filler(&t, 300);
    snprintf(name, sizeof name, "whitespace-%d", i);
    if (run_all(name, t.p, t.n)) return 1;
  }
  for (int i = 0; i < 3; i++) {
    t.n = 0;
    markup_text(&t, (size_t)16384 << (3 * i));
    snprintf(name, sizeof name, "markup-%d", i);
    if (run_all(name, t.p, t.n)) return 1;
  }
  free(t.p);
  printf("%ld runs over %ld files and %zu generated texts: %ld repetition stops, %ld whitespace "
         "stops, %ld think runs hid a block, %ld provider runs decoded text\n",
         runs, files, sizeof lengths / sizeof lengths[0] * 4 + 9, stops_repetition,
         stops_whitespace, hid_blocks, decoded);
  if (stops_repetition < 20 || stops_whitespace < 5 || hid_blocks < 20 || decoded < 20) {
    fputs("port_dump: the inputs exercise too little to compare on\n", stderr);
    return 2;
  }
  return 0;
}
