/*
 * test_monitor.c: the monitor against a slow, literal model.
 *
 * monitor_model.c holds DESIGN.md §2's detector written straight from the
 * definition on an array of code points (the quasi match is the original's
 * rfind loop); monitor_model() walks every position in order. Random streams
 * over small alphabets (so that repeats, quasi repeats and whitespace runs
 * happen) go through the real filter, cut into random chunks, and the stop
 * verdict, its offset and the TEXT/DROPPED split must equal the model's.
 * With repetition_interval 1 every position is a checkpoint, so the fast
 * detector is compared with the slow one at every position up to the stop.
 */
#include "rng.h"
#include "sluice.h"
#include "testutil.h"
#include "monitor_model.h"
#include "../lib/src/core/sluice_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static sluice_rng rng = {0x2545F4914F6CDD1DULL};
static uint32_t rnd(uint32_t n) { return (uint32_t)sluice_rng_below(&rng, n); }

/* ---------------- random streams ---------------- */

static const uint32_t alpha[] = {'a', 'b', 'c', 'd', ' ', '\n', 0xE9, 0x4E2D, '\t', '\r', 0x3000, '1'};

static size_t gen(uint32_t *s, size_t cap) {
  size_t n = 0, nalpha = 2 + rnd(5);
  while (n < cap) {
    switch (rnd(6)) {
    case 0: /* random text */
    case 1: {
      size_t k = 1 + rnd(40);
      while (k-- && n < cap) s[n++] = alpha[rnd((uint32_t)nalpha)];
      break;
    }
    case 2: { /* an exact repeat of a block, often long enough to fire */
      size_t L = 1 + rnd(rnd(2) ? 12 : 70), k = 2 + rnd(rnd(2) ? 40 : 350 / (unsigned)L + 3);
      size_t start = n;
      for (size_t i = 0; i < L && n < cap; i++) s[n++] = alpha[rnd((uint32_t)nalpha)];
      for (size_t i = 0; i + 1 < k; i++)
        for (size_t j = 0; j < L && n < cap; j++) s[n] = s[start + j], n++;
      break;
    }
    case 3: { /* a quasi repeat: a block, then a short varying gap */
      size_t L = 2 + rnd(25), k = 2 + rnd(40), start = n;
      for (size_t i = 0; i < L && n < cap; i++) s[n++] = alpha[rnd((uint32_t)nalpha)];
      for (size_t i = 0; i + 1 < k; i++) {
        size_t g = rnd((uint32_t)L);
        while (g-- && n < cap) s[n++] = alpha[rnd(12)];
        for (size_t j = 0; j < L && n < cap; j++) s[n] = s[start + j], n++;
      }
      break;
    }
    case 4: { /* whitespace */
      size_t k = rnd(3) ? 1 + rnd(30) : 100 + rnd(200);
      static const uint32_t ws[] = {' ', '\n', '\t', '\r', 0x3000, 0xA0};
      uint32_t w = ws[rnd(6)];
      while (k-- && n < cap) s[n++] = rnd(4) ? w : ws[rnd(6)];
      break;
    }
    default: { /* the marker adversary: a 10-character marker every 20 */
      size_t k = 1 + rnd(30);
      for (size_t i = 0; i < k; i++) {
        static const uint32_t mk[10] = {'[', 'm', 'a', 'r', 'k', 'e', 'r', '0', '1', ']'};
        for (size_t j = 0; j < 10 && n < cap; j++) s[n++] = mk[j];
        for (size_t j = 0; j < 10 && n < cap; j++) s[n++] = alpha[rnd((uint32_t)nalpha)];
      }
    }
    }
  }
  return n;
}

enum { CAP = 2600, LONG_CAP = 40000 };

/* A byte that is never valid UTF-8 where these streams put it (0xFF
 * anywhere; 0x80 after a complete sequence): the filter counts it as a
 * code point of its own, and the model sees the value INVALID(b). */
#define INVALID(b) (0x110000u + (b))

static size_t utf8(uint32_t c, char *o) {
  if (c >= 0x110000u) return o[0] = (char)(c & 0xFF), 1;
  if (c < 0x80) return o[0] = (char)c, 1;
  if (c < 0x800) return o[0] = (char)(0xC0 | (c >> 6)), o[1] = (char)(0x80 | (c & 0x3F)), 2;
  o[0] = (char)(0xE0 | (c >> 12));
  o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
  o[2] = (char)(0x80 | (c & 0x3F));
  return 3;
}


/* ---------------- failure injection ----------------
 * An allocator that fails at the k-th call: for every k until a run makes
 * no failing call, the filter must answer SLUICE_NOMEM (never crash, never
 * claim success after a lost allocation). */
/* Every allocation fails in turn: a clean NOMEM, nothing leaked. With
 * near_loops (after 30000 letters that never loop, blocks of 100 letters,
 * five copies each: under the current profile's 20), the current profile
 * extends its bands' index for the quasi check, an allocation in the
 * middle of a checkpoint. */
static void inject(int near_loops) {
  /* Long enough to grow the history and add bands. */
  static char in[60000];
  for (size_t i = 0; i < sizeof in; i++) in[i] = (char)('a' + rnd(26)); /* never loops */
  if (near_loops)
    for (size_t i = 0; i < sizeof in; i++)
      if (i >= 30000 && i % 500 >= 100) in[i] = in[i - 100];
  for (long k = 0;; k++) {
    test_faulty fa;
    sluice_mem mem = test_faulty_mem(&fa, k);
    sluice_filter *f = NULL;
    sluice_monitor_opts o;
    sluice_monitor_opts_init(&o);
    o.repetition_interval = 7;
    if (near_loops) o.profile = SLUICE_MONITOR_CURRENT;
    sluice_status st = sluice_monitor_new(&f, &o, NULL, &mem, NULL);
    if (st == SLUICE_OK) {
      for (size_t i = 0; i < sizeof in && st == SLUICE_OK; i += 1000)
        st = sluice_feed(f, in + i, 1000);
      if (st == SLUICE_OK) st = sluice_finish(f);
      sluice_free(f);
    }
    CHECKF(fa.failed ? st == SLUICE_NOMEM : st == SLUICE_OK, "allocation %ld: status %s", k,
          sluice_status_name(st));
    CHECKF(fa.live == 0, "allocation %ld: %ld blocks leaked", k, fa.live);
    if (!fa.failed) {
      CHECKF(k > 10, "the run reaches the history and band allocations (%ld)", k);
      break;
    }
  }
}

/* Runs one stream through the filter (random chunks) and compares with the
 * model; returns the model's verdict reason index (-1: none). */
static int compare(const uint32_t *s, size_t n, const sluice_monitor_opts *o, sluice_output *out,
                   int it) {
  static char bytes[LONG_CAP * 3];
  static size_t bend[LONG_CAP + 1]; /* byte offset after each code point */
  size_t nb = 0;
  bend[0] = 0;
  for (size_t i = 0; i < n; i++) {
    nb += utf8(s[i], bytes + nb);
    bend[i + 1] = nb;
  }
  int current = o->profile == SLUICE_MONITOR_CURRENT;
  monitor_model_opts mo = {current, current, current, current ? 512 : 128,
                           (size_t)o->max_length, (size_t)o->whitespace_interval,
                           (size_t)o->repetition_interval};
  monitor_verdict v = monitor_model(s, n, &mo);
  sluice_output_reset(out);
  sluice_sink sink = sluice_output_sink(out);
  sluice_filter *f;
  if (sluice_monitor_new(&f, o, &sink, NULL, NULL) != SLUICE_OK) return failures++, -1;
  for (size_t off = 0; off < nb;) {
    size_t k = 1 + rnd(rnd(2) ? 8 : 700); /* token-sized feeds take a quick path */
    if (k > nb - off) k = nb - off;
    CHECKF(sluice_feed(f, bytes + off, k) == SLUICE_OK, "feed");
    CHECKF(sluice_held(f) <= 3, "hold-back %llu: more than an incomplete sequence",
          (unsigned long long)sluice_held(f));
    off += k;
  }
  CHECKF(sluice_finish(f) == SLUICE_OK, "finish");
  sluice_free(f);
  size_t ne = sluice_output_event_count(out);
  size_t tl, dl;
  sluice_output_channel(out, SLUICE_TEXT, &tl);
  sluice_output_channel(out, SLUICE_DROPPED, &dl);
  CHECKF(tl + dl == nb, "conservation");
  if (!v.reason) {
    CHECKF(ne == 0, "stream %d: a stop the model does not make", it);
    CHECKF(tl == nb, "stream %d: text cut without a stop", it);
    return -1;
  }
  const sluice_event *ev = ne ? sluice_output_event(out, 0) : NULL;
  CHECKF(ne == 1 && ev->type == SLUICE_EV_STOP && strlen(v.reason) == ev->name_len &&
            memcmp(v.reason, ev->name, ev->name_len) == 0 && ev->offset == v.offset,
        "stream %d (%s, interval %llu): model stops %s at %zu, filter %.*s at %llu", it,
        current ? "current" : "seed", (unsigned long long)o->repetition_interval, v.reason,
        v.offset, ev ? (int)ev->name_len : 4, ev ? ev->name : "none",
        ev ? (unsigned long long)ev->offset : 0ULL);
  CHECKF(tl == bend[v.offset], "stream %d: text %zu bytes, expected %zu", it, tl, bend[v.offset]);
  return v.reason[0] == 'r' ? 0 : v.reason[0] == 'w' ? 1 : 2;
}

/* Long streams: blocks of 80 to 1500 code points repeated around the
 * threshold, so the wider bands of phase 2 are compared too. Half of them
 * have invalid bytes in their blocks: the fingerprints hash what the
 * history keeps for them, which the vector hash must not overflow on. */
static size_t gen_long(uint32_t *s, size_t cap, int current) {
  static const uint32_t block_alpha[] = {'a', 'b', 'c', 'd', INVALID(0xFF), INVALID(0x80)};
  uint32_t nblock = rnd(2) ? 4 : 6;
  size_t n = 0;
  while (n < cap) {
    size_t k = 50 + rnd(3000);
    while (k-- && n < cap) s[n++] = 'a' + rnd(26);
    size_t L = 80 + rnd(1400), r = current ? 20 : 10, copies = r - 2 + rnd(4);
    size_t start = n;
    for (size_t i = 0; i < L && n < cap; i++) s[n++] = block_alpha[rnd(nblock)];
    for (size_t c = 1; c < copies; c++) {
      if (current && rnd(3) == 0) { /* a short gap: a quasi repeat */
        size_t g = 1 + rnd(20);
        while (g-- && n < cap) s[n++] = '0' + rnd(10);
      }
      for (size_t j = 0; j < L && n < cap; j++) s[n] = s[start + j], n++;
    }
  }
  return n;
}

/* Blocks of 250 code points whose last 190 never change and whose first 60
 * differ from block to block, then 24 identical blocks. The band marker
 * (the last 48) recurs more often than a band's list of distances holds,
 * so its far part overflows; the lookups' window holds 16 blocks, fewer
 * than the current profile's 19 earlier copies, so the identical blocks
 * fire only if the overflow is taken as "possible". */
static size_t gen_crowded(uint32_t *s, size_t cap) {
  enum { L = 250, HEAD = 60, SAME = 24 };
  size_t n = 0, nblocks = (cap - SAME * L) / L;
  uint32_t tail[L - HEAD];
  for (size_t i = 0; i < L - HEAD; i++) tail[i] = 'a' + rnd(26);
  for (size_t k = 0; k < nblocks + SAME; k++) {
    for (size_t i = 0; i < HEAD; i++) s[n++] = k < nblocks ? 'A' + rnd(26) : 'A' + (uint32_t)(i % 26);
    for (size_t i = 0; i < L - HEAD; i++) s[n++] = tail[i];
  }
  return n;
}

/* The standard-C arithmetic of src/core/portable.h, which the hash uses
 * where there is no 128-bit integer (32-bit and SLUICE_PORTABLE builds),
 * against shift-and-add and a bit loop (and so the native forms against
 * the same, where they are there): edge values and random ones, with sums
 * that carry from the low half. */
static void portable_arith(void) {
  static const uint64_t edge[] = {0, 1, 2, 0xFFFFFFFFu, 0x100000000ULL, 0x1FFFFFFFFFFFFFFFULL,
                                  0x8000000000000000ULL, 0xFFFFFFFFFFFFFFFFULL};
  sluice_rng r = {0x9E3779B97F4A7C15ULL}; /* its own: the streams below keep theirs */
  size_t bad = 0;
  for (int i = 0; i < 4000; i++) {
    uint64_t a = i < 64 ? edge[i / 8] : sluice_rng_next(&r) >> sluice_rng_below(&r, 64);
    uint64_t b = i < 64 ? edge[i % 8] : sluice_rng_next(&r) >> sluice_rng_below(&r, 64);
    uint64_t hi, lo = sluicep_mul64x64(a, b, &hi), rhi = 0, rlo = 0;
    for (int k = 63; k >= 0; k--) { /* (rhi:rlo) = 2 (rhi:rlo) + (bit k of b) a */
      rhi = rhi << 1 | rlo >> 63;
      rlo <<= 1;
      if (b >> k & 1) rhi += (rlo += a) < a;
    }
    sluicep_u128 p = sluicep_u128_mul(a, b);
    sluicep_u128 twice = sluicep_u128_add(p, p), plus = sluicep_u128_add64(p, b);
    uint64_t plus_lo = rlo + b;
    if (hi != rhi || lo != rlo || sluicep_u128_hi(p) != rhi || sluicep_u128_lo(p) != rlo ||
        sluicep_u128_lo(twice) != rlo << 1 || sluicep_u128_hi(twice) != (rhi << 1 | rlo >> 63) ||
        sluicep_u128_lo(plus) != plus_lo || sluicep_u128_hi(plus) != rhi + (plus_lo < b) ||
        sluicep_u128_hi(sluicep_u128_of(a)) != 0 || sluicep_u128_lo(sluicep_u128_of(a)) != a)
      bad++;
    uint64_t x = a | 1ULL << sluice_rng_below(&r, 64);
    int z = 0;
    while (!(x >> z & 1)) z++;
    if ((int)sluicep_ctz64_c(x) != z || sluicep_ctz64(x) != z) bad++;
  }
  CHECKF(bad == 0, "the portable 64x64->128 product, sums and ctz are exact (%zu wrong)", bad);
}

int main(int argc, char **argv) {
  portable_arith();
  inject(0);
  inject(1);
  int iters = argc > 1 ? atoi(argv[1]) : 1000;
  static uint32_t s[LONG_CAP];
  sluice_output *out;
  if (sluice_output_new(&out, NULL) != SLUICE_OK) return 1;
  int stops[3] = {0, 0, 0};
  for (int it = 0; it < iters && failures < 5; it++) {
    size_t n = gen(s, 200 + rnd(CAP - 200));
    sluice_monitor_opts o;
    sluice_monitor_opts_init(&o);
    o.profile = (it & 1) ? SLUICE_MONITOR_CURRENT : SLUICE_MONITOR_SEED;
    static const uint64_t rpis[] = {1, 1, 7, 64, 512};
    o.repetition_interval = rpis[rnd(5)];
    o.whitespace_interval = rnd(4) ? 128 : 1 + rnd(50);
    o.max_length = rnd(5) ? 0 : 1 + rnd((uint32_t)n + 50);
    int r = compare(s, n, &o, out, it);
    if (r >= 0) stops[r]++;
  }
  printf("stops: repetition %d, whitespace %d, max_length %d\n", stops[0], stops[1], stops[2]);
  CHECKF(stops[0] > iters / 10 && stops[1] > 0 && stops[2] > 0, "the streams exercise every verdict");
  int long_stops = 0, vector_stops = 0, nlong = iters / 50 + 2;
  /* Long streams reach the fingerprint index, whose block hash has a vector
   * form and a portable one: the same streams go through both. */
  sluice_rng at_long = rng;
  for (int vector = 1; vector >= 0; vector--) {
    sluicep_monitor_vector = vector;
    rng = at_long;
    for (int it = 0; it < nlong && failures < 5; it++) {
      sluice_monitor_opts o;
      sluice_monitor_opts_init(&o);
      o.profile = (it & 1) ? SLUICE_MONITOR_CURRENT : SLUICE_MONITOR_SEED;
      o.repetition_interval = rnd(2) ? 512 : 97;
      size_t n = gen_long(s, 8000 + rnd(LONG_CAP - 8000), it & 1);
      if (compare(s, n, &o, out, -1 - it) == 0) long_stops++;
    }
    printf("long streams, %s block hash: %d of %d stopped for repetition\n",
           vector ? "vector" : "portable", long_stops, nlong);
    if (vector) {
      vector_stops = long_stops;
      long_stops = 0;
    }
  }
  sluicep_monitor_vector = 1;
  CHECKF(vector_stops == long_stops, "the vector and portable block hashes stop the same streams");
  for (int it = 0; it < 4 && failures < 5; it++) {
    sluice_monitor_opts o;
    sluice_monitor_opts_init(&o);
    o.profile = (it & 1) ? SLUICE_MONITOR_CURRENT : SLUICE_MONITOR_SEED;
    o.repetition_interval = it < 2 ? 512 : 31;
    size_t n = gen_crowded(s, LONG_CAP);
    CHECKF(compare(s, n, &o, out, -1000 - it) == 0, "crowded stream %d stops for repetition", it);
  }
  CHECKF(long_stops > 0 && long_stops < nlong, "long streams both fire and pass");
  sluice_output_free(out);
  return test_report("test_monitor");
}
