/*
 * monitor.c: the stream quality monitor (DESIGN.md §2, seed 004).
 *
 * Verdicts at exact code-point positions p (1-based count of code points):
 *   p == max_length                                  -> stop "max_length"
 *   p % whitespace_interval == 0, trailing ws >= T   -> stop "whitespace"
 *   p % repetition_interval == 0, detector fires     -> stop "repetition"
 * The first stop is final. TEXT carries the stream up to the stop offset;
 * the bytes after it go to DROPPED, so nothing is lost. Because checkpoints
 * are positions, the verdict cannot depend on the chunking.
 *
 * The detector (S of n code points, thr = n / 10):
 *   phase 1: L = 1..min(10, thr), stopping once L*reps(L) > n: fire if S
 *            ends with its last L code points repeated reps(L) times;
 *   phase 2: if thr > 10, M = last 10; for each earlier occurrence of M at
 *            pos >= n-10-thr, C = S[pos+10..n): fire if S ends with C
 *            repeated reps(|C|) times.
 * "Repeated" is exact, or with quasi matching (profile current): S ends
 * with C and going back, each previous nearest copy of C leaves a gap
 * shorter than |C|, reps times in all. tests/monitor_model.c is this
 * definition written literally; the unit test and the fuzz target hold the
 * code below to it.
 *
 * Where the time goes. Per code point, the feed loop does one thing: it
 * decodes the code point into the history (eight ASCII bytes at a time; a
 * token-sized feed with no checkpoint in it takes a shorter path of its
 * own, and 4 to 8 ASCII bytes, the commonest feed of a streamed response,
 * are two words widened in place behind one precomputed bound).
 * Everything else is done in batches at the checkpoints, over memory the
 * loop just wrote:
 * - whitespace: the trailing run is found by scanning back from the
 *   checkpoint to the previous one (whose run is remembered), O(1) per
 *   code point however long the run;
 * - phase 1 and lengths 11..64 of phase 2: a backward comparison at the
 *   checkpoint, which on text that does not repeat fails at its first or
 *   second code point (instead of ten run counters per code point);
 * - lengths over 64: a fingerprint index, below.
 * A checkpoint every 512 code points costs a few thousand operations, about
 * as much as the loop: 2 to 11 ns per code point on the benchmark's machine
 * (`sluice bench monitor`; 16 KB to 64 MB, prose and adversaries).
 *
 * Lengths over 64 (bands). Any firing C of length L has a second copy
 * ending at e in (n-2L, n-L] (the gap is shorter than L; exact repetition
 * is gap 0). Lengths are taken in bands [65, 2048), then [lo, 8lo) with
 * lo = 2048, 16384, ...; a band's marker is the last l code points (l under
 * lo, so the marker lies inside C), which must recur at e. Each band indexes only the
 * positions that are multiples of its step s (16, 32, then 64): a ring over
 * the band's window, chained by fingerprint. At a checkpoint the band looks
 * up the s markers that end 0..s-1 code points before n; exactly one of
 * them ends on an indexed position for any e, so no copy is missed and the
 * verdicts stay exact, while the index costs one insert per band per s code
 * points instead of one per code point. A band past the first has a marker
 * about half its shortest length, so a copy a lookup found still lies
 * inside C for `slack` more code points: its distances are the candidates
 * until then, and it looks up again only every few checkpoints. Many true occurrences of a band's
 * marker in its window need a periodic stretch at the end, which is itself
 * a repeat that fires; the tables grow with the windows so that a walk
 * meets few foreign positions.
 *
 * Quasi near-loops. Under quasi matching a candidate L is verified by
 * walking its copies back (quasi_match); a stretch of k < r copies of a
 * block passes the band's lookup, the marker and lcs at every checkpoint,
 * and the walk (its k copies, then a scan of L code points for one more)
 * costs O(kL) each time: quadratic in the block, 20 to 50 ns per code
 * point on blocks of a few thousand. Before the walk, quasi_possible
 * checks what a chain of r copies needs: r-1 earlier ends of the band's
 * marker at distances in [L, (2L-1)(r-1)] (each copy starts less than 2L
 * after the previous one starts). The lookup's list holds every tag match
 * of the lookup's markers, so fewer than r-1 there and nothing fires. The
 * list covers the window at the lookup; the far part (up to 38 hiL for the
 * current profile) is walked only when a candidate needs it, and the
 * first time a band needs it its index is rebuilt to reach that far (text
 * without candidates never pays for it). That check costs s chain walks
 * per band and lookup, each passing about four foreign positions.
 *
 * Fingerprints. A polynomial hash mod 2^61-1 of every prefix that ends on
 * a multiple of 16 code points (8 bytes per 16); the hash of any other
 * substring is one of those plus at most 15 terms. The hash can only
 * reject: every positive is verified code point by code point, so the
 * verdicts are exact. Hashing the blocks was the largest cost of a
 * checkpoint on responses of tens of KB (a 128-bit product and its carry
 * chain per code point); with SSE2 it takes two code points per multiply
 * and one reduction per block, and the whole seed detector runs 1.4x as fast
 * on 32 KB responses.
 *
 * Memory per code point (the detector may compare the last code point with
 * the first: a block of n/10 code points repeated ten times fires, so the
 * whole stream is kept while repetition checks are on): the code point (4
 * bytes), the prefix fingerprints (0.5 bytes) and the band rings and
 * tables (about 0.25 bytes), 4.75 bytes in all; a band extended for quasi
 * near-loops adds at most 10 bytes per 64 code points for each band past
 * the second (the first two reach a fixed distance: 64 KB and 256 KB). The
 * arrays grow by half, so up to half again while one grows; the benchmark
 * measures 4.8 to 8.6 bytes at the peak, 16 KB to 64 MB (the most on 32 KB
 * near-loops, where the fixed tables weigh most). The previous design kept a code
 * point and an 8-byte fingerprint for every position plus a ring entry per
 * position and band, 16 to 17 bytes. max_history caps the history
 * (SLUICE_LIMIT); with repetition checks off only the code points since the
 * last whitespace checkpoint are kept (at most 1024); after a stop
 * everything is freed.
 */
#include "sluice_private.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if SLUICEP_HAVE_SSE2
#include <emmintrin.h>
#endif

#define HMOD ((uint64_t)0x1FFFFFFFFFFFFFFFULL) /* 2^61 - 1 */
#define HBASE ((uint64_t)0x5DEECE66DULL + 1000003ULL)
#define GRID 16         /* prefix fingerprints every GRID code points */
#define DIRECT_MAX 64   /* phase 2 lengths up to this are checked directly */
#define MAX_BANDS 8     /* 2048 * 8^6 > (2^32) / 10 */
#define MAX_STEP 64
#define POS_LIMIT 0xFFFFFFF0u
#define COMPACT 1024    /* code points kept when no history is needed */
#define NINTERVALS 64
#define EQ_DIRECT 1024  /* eq compares up to this many code points without hashing */
#define EQ_INLINE 64    /* and up to this many without calling memcmp */
#define LCS_DIRECT 256  /* lcs compares up to this many code points before hashing */
#define RUN_MAX 4096    /* past the longest agreement a direct length compares (19 * 64) */
/* An invalid byte b is a code point of its own, kept as a value above every
 * code point: every value in the history is then under 2^21, which the
 * vector hash below relies on. */
#define INVALID(b) (0x110000u + (uint32_t)(b))

/* A 128-bit integer, native where the compiler has one (src/core/portable.h). */
typedef sluicep_u128 u128;

#define NHITS 128 /* distances a band carries between its lookups */

typedef struct band {
  uint64_t lo, hi; /* the lengths L in [lo, hi] this band finds */
  uint32_t l;      /* marker length, a multiple of GRID */
  uint32_t step;   /* indexed positions: multiples of step (of GRID) */
  uint32_t shift;  /* log2(step) */
  uint64_t slack;  /* lo - step - l: how far a lookup's distances stay valid */
  uint64_t npl;    /* p - B^l, for marker_fp */
  /* Entries are (tag << 32 | e): e a position, tag the high bits of its
   * marker's fingerprint, so that a walk passes other markers' positions
   * without touching the fingerprints. */
  uint64_t *ring;  /* ring[(e >> shift) & rmask]: the previous entry in e's slot */
  uint32_t rmask;
  uint64_t *head;  /* head[slot]: the last entry with that slot (0: none) */
  uint32_t tmask;
  uint64_t next;   /* the next position to insert */
  /* The distances n - e of the earlier ends of the marker the last lookup
   * found, at position looked, up to the band's reach; -1: more than
   * NHITS, and the band looks up at every checkpoint. */
  uint64_t looked;
  int nhits;
  uint32_t hits[NHITS];
  /* the lookup's markers, and the distances its walk has covered: up to
   * near at the lookup, up to far once quasi_possible needed them */
  uint64_t fx[MAX_STEP];
  uint64_t near, far;
  int far_done;
  int nnear;    /* hits[0..nnear) are the window's, sorted; the rest band_far's, sorted */
  int far_full; /* band_far found more than the list holds: the far part is unknown */
  /* the index reaches band_reach, not only the lookups' window: set the
   * first time quasi_possible needs the far part (most text never does) */
  int extended;
} band;

typedef struct interval {
  uint64_t lo, hi;
} interval;

typedef struct monitor {
  sluice_filter base;
  /* options */
  int quasi, weighted, seed_reps;
  uint64_t max_length, ws_interval, rep_interval, ws_threshold, max_history;
  /* stream position */
  sluicep_u8 u8;
  uint64_t in_bytes;  /* bytes seen */
  uint64_t out_bytes; /* bytes emitted */
  uint64_t n;         /* code points */
  uint64_t next_event; /* the next position with a verdict to evaluate */
  uint64_t n_limit;    /* code points the history may hold */
  /* monitor_feed's quick test: the code point count up to which a feed
   * needs nothing but decoding (no checkpoint, the history's room, nothing
   * held, not stopped); 0 when that does not hold. Only feed_general
   * changes what it depends on, and it sets this on its way out. */
  uint64_t quick_until;
  int stopped;
  /* whitespace: the trailing run of S[0..ws_at), and S[ws_at - 1] */
  uint64_t ws_at, ws_count, ws_weight;
  uint32_t ws_prev;
  /* code points: cp[i - cp_base] is S[i]; cp_base stays 0 while the
   * repetition detector needs the whole history */
  uint32_t *cp;
  uint64_t cp_base;
  size_t cap;
  /* fingerprints: H[k] = hash of S[0..GRID*k), for k <= nblocks */
  uint64_t *H;
  size_t hcap;
  uint64_t nblocks;
  uint64_t pw[GRID + 1]; /* B^0 .. B^GRID */
  band bands[MAX_BANDS];
  int nbands;
  interval iv[NINTERVALS];
  int niv;
  int nomem; /* an allocation failed inside the detector */
  /* At the checkpoint in progress (detect sets it): how many code points
   * S ends with that equal S[n-1], at most RUN_MAX. */
  uint64_t run;
} monitor;

/* ---------------- thresholds ---------------- */

static const uint16_t current_reps[20] = {340, 170, 114, 86, 69, 58, 50, 44, 40, 36,
                                          33,  31,  29,  27, 26, 25, 24, 23, 22, 21};

static uint64_t reps(const monitor *m, uint64_t L) {
  if (m->seed_reps) return L <= 30 ? (100 + 8 * (L - 1)) / L : 10;
  return L <= 20 ? current_reps[L - 1] : 20;
}

/* ---------------- hashing ---------------- */

/* x mod 2^61-1 for x < 2^125: 2^64 is 8 modulo 2^61-1. */
static inline uint64_t reduce(u128 x) {
  uint64_t lo = sluicep_u128_lo(x), hi = sluicep_u128_hi(x);
  uint64_t r = (lo & HMOD) + (lo >> 61) + (hi << 3);
  r = (r & HMOD) + (r >> 61);
  return r >= HMOD ? r - HMOD : r;
}

static inline uint64_t mulmod(uint64_t a, uint64_t b) { return reduce(sluicep_u128_mul(a, b)); }

static inline uint64_t submod(uint64_t a, uint64_t b) { return a >= b ? a - b : a + HMOD - b; }

/* h * B + c + 1: one more code point after a prefix hash. */
static inline uint64_t extend(uint64_t h, uint32_t c) {
  uint64_t r = mulmod(h, HBASE) + (uint64_t)c + 1;
  return r >= HMOD ? r - HMOD : r;
}

/* B^(2^k), k < 64, made once: B^e then costs one product per set bit. */
static uint64_t pow2k[64];

#if SLUICEP_HAVE_SSE2 && defined(__x86_64__) && SLUICEP_HAVE_INT128
#define VECTOR_HASH 1
/* The vector block hash's factors: the power B^(15-i) of each code point
 * of a block, split into its low 32 and high 29 bits (the multiplier takes
 * 32 bits). For the four code points 4q..4q+3 of a block, vlimb[q][0] and
 * [q][1] hold the low halves for the even and the odd ones, [q][2] and
 * [q][3] the high halves, one per 64-bit lane. */
static _Alignas(16) uint64_t vlimb[4][4][2];
#endif
int sluicep_monitor_vector = 1;

static void init_tables(void) {
  if (pow2k[0]) return; /* the same values whoever fills them first */
  uint64_t b = HBASE, t[64];
  for (int k = 0; k < 64; k++, b = mulmod(b, b)) t[k] = b;
#ifdef VECTOR_HASH
  uint64_t w[GRID];
  w[GRID - 1] = 1;
  for (int i = GRID - 2; i >= 0; i--) w[i] = mulmod(w[i + 1], HBASE);
  for (int i = 0; i < GRID; i++) {
    int q = i / 4, odd = i % 2, lane = i % 4 / 2;
    vlimb[q][odd][lane] = w[i] & 0xFFFFFFFFu;
    vlimb[q][2 + odd][lane] = w[i] >> 32;
  }
#endif
  for (int k = 63; k >= 0; k--) pow2k[k] = t[k];
}

static uint64_t powb(uint64_t e) {
  uint64_t r = 1;
  for (int k = 0; e; k++, e >>= 1)
    if (e & 1) r = mulmod(r, pow2k[k]);
  return r;
}

/* The hash of S[0..x): the stored one at the grid point below x, plus the
 * code points after it, as independent products (no dependency chain). */
static uint64_t prefix(const monitor *m, uint64_t x) {
  uint64_t k = x / GRID, r = x % GRID;
  if (r == 0) return m->H[k];
  const uint32_t *c = m->cp + k * GRID;
  u128 acc = sluicep_u128_mul(m->H[k], m->pw[r]);
  for (uint64_t i = 0; i < r; i++)
    acc = sluicep_u128_add(acc, sluicep_u128_mul((uint64_t)c[i] + 1, m->pw[r - 1 - i]));
  return reduce(acc);
}

/* Fingerprint of S[a..a+len); pl = B^len. */
static uint64_t fp(const monitor *m, uint64_t a, uint64_t len, uint64_t pl) {
  return submod(prefix(m, a + len), mulmod(prefix(m, a), pl));
}

/* Computes H for every grid point up to n: one pass over the new code
 * points, sixteen independent products per block. */
static void hash_blocks(monitor *m) {
  uint64_t k = m->nblocks, last = m->n / GRID;
  const uint64_t *pw = m->pw;
#ifdef VECTOR_HASH
  /* Two code points per multiply: each value (under 2^21, plus one) times
   * a 32-bit half of its power is under 2^53, and a lane adds eight of
   * them, so nothing overflows before the one reduction per block. */
  if (sluicep_monitor_vector) {
    const __m128i one = _mm_set1_epi32(1);
    const __m128i *f = (const __m128i *)(const void *)vlimb;
    for (; k < last; k++) {
      const __m128i *c = (const __m128i *)(const void *)(m->cp + k * GRID);
      __m128i lo = _mm_setzero_si128(), hi = _mm_setzero_si128();
      for (int q = 0; q < 4; q++) {
        __m128i x = _mm_add_epi32(_mm_loadu_si128(c + q), one), y = _mm_srli_epi64(x, 32);
        lo = _mm_add_epi64(lo, _mm_add_epi64(_mm_mul_epu32(x, f[4 * q]), _mm_mul_epu32(y, f[4 * q + 1])));
        hi = _mm_add_epi64(hi, _mm_add_epi64(_mm_mul_epu32(x, f[4 * q + 2]), _mm_mul_epu32(y, f[4 * q + 3])));
      }
      lo = _mm_add_epi64(lo, _mm_unpackhi_epi64(lo, lo));
      hi = _mm_add_epi64(hi, _mm_unpackhi_epi64(hi, hi));
      u128 acc = (u128)m->H[k] * pw[GRID] + (uint64_t)_mm_cvtsi128_si64(lo);
      m->H[k + 1] = reduce(acc + ((u128)(uint64_t)_mm_cvtsi128_si64(hi) << 32));
    }
    m->nblocks = last;
    return;
  }
#endif
  for (; k < last; k++) {
    const uint32_t *c = m->cp + k * GRID;
    u128 acc = sluicep_u128_mul(m->H[k], pw[GRID]);
    /* two accumulators: the adds of one wait less on the other's */
    u128 acc2 = sluicep_u128_of(0);
    for (int i = 0; i < GRID; i += 2) {
      acc = sluicep_u128_add(acc, sluicep_u128_mul((uint64_t)c[i] + 1, pw[GRID - 1 - i]));
      acc2 = sluicep_u128_add(acc2, sluicep_u128_mul((uint64_t)c[i + 1] + 1, pw[GRID - 2 - i]));
    }
    m->H[k + 1] = reduce(sluicep_u128_add(acc, acc2));
  }
  m->nblocks = last;
}

/* The largest k <= max with s[x-1-i] == s[y-1-i] for every i < k:
 * how far back two positions agree, four code points at a time where SSE2
 * is there. */
static uint64_t agree_back(const uint32_t *s, uint64_t x, uint64_t y, uint64_t max) {
  uint64_t k = 0;
#if SLUICEP_HAVE_SSE2
  for (; k + 4 <= max; k += 4) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + x - k - 4));
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + y - k - 4));
    unsigned ne = ~(unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a, b))) & 0xFu;
    /* lane 3 is i = k, lane 0 is i = k + 3: the highest differing lane */
    if (ne) return k + 3 - (uint64_t)(31 - __builtin_clz(ne));
  }
#endif
  while (k < max && s[x - 1 - k] == s[y - 1 - k]) k++;
  return k;
}

/* S[a..a+len) == S[b..b+len), exactly: short ranges are compared, long
 * ones hashed first (the hash rejects, the code points confirm). pl is
 * B^len or 0 (computed here when needed). */
static int eq(const monitor *m, uint64_t a, uint64_t b, uint64_t len, uint64_t pl) {
  const uint32_t *s = m->cp;
  /* A short range (the quasi walks' candidates, mostly of a few code
   * points, at every checkpoint): four at a time in place, cheaper than a
   * call to memcmp; first, as it answers a == b and len == 0 too. */
  if (len <= EQ_INLINE) return agree_back(s, a + len, b + len, len) == len;
  if (a == b) return 1;
  /* Up to EQ_DIRECT code points, comparing costs less than hashing (a copy
   * that is there must be compared anyway). */
  if (len <= EQ_DIRECT) return memcmp(s + a, s + b, len * sizeof *s) == 0;
  for (uint64_t i = 1; i <= 8; i++)
    if (s[a + len - i] != s[b + len - i]) return 0;
  if (!pl) pl = powb(len);
  if (fp(m, a, len, pl) != fp(m, b, len, pl)) return 0;
  return memcmp(s + a, s + b, len * sizeof *s) == 0;
}

/* Longest common suffix of S[0..e) and S[0..n), at most cap: compared up
 * to 32 code points, then the whole cap hashed, then compared up to
 * LCS_DIRECT, then by hashes only (an overestimate can only add
 * candidates, which are verified later). */
static uint64_t lcs(const monitor *m, uint64_t e, uint64_t cap) {
  uint64_t n = m->n;
  if (cap > e) cap = e;
  uint64_t k = agree_back(m->cp, n, e, cap < 32 ? cap : 32);
  if (k < 32 || k == cap) return k;
  /* in a repeat the whole cap is common, mostly: one comparison */
  uint64_t pc = powb(cap);
  if (fp(m, e - cap, cap, pc) == fp(m, n - cap, cap, pc)) return cap;
  /* then up to LCS_DIRECT code points compared: cheaper than the binary
   * search's steps (a power and four prefixes each), which candidates in
   * text with runs and short loops took at every checkpoint */
  if (cap > LCS_DIRECT) k += agree_back(m->cp, n - k, e - k, LCS_DIRECT - k);
  else return k + agree_back(m->cp, n - k, e - k, cap - k);
  if (k < LCS_DIRECT) return k;
  uint64_t lo = k, hi = cap - 1; /* lo: known common, hi: upper bound */
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2, pl = powb(mid);
    if (fp(m, e - mid, mid, pl) == fp(m, n - mid, mid, pl)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* ---------------- matching ---------------- */

/* The largest i in [lo, hi] with s[i] == v, or UINT64_MAX: the scans for a
 * copy's last code point, four at a time where SSE2 is there (always on
 * x86-64); the loop below it is the portable form and the tail. */
static uint64_t find_back(const uint32_t *s, uint64_t lo, uint64_t hi, uint32_t v) {
  uint64_t i = hi + 1; /* candidates below i */
#if SLUICEP_HAVE_SSE2
  __m128i vv = _mm_set1_epi32((int)v);
  while (i >= lo + 4) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i - 4));
    int mask = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(x, vv)));
    if (mask) return i - 4 + (uint64_t)(31 - __builtin_clz((unsigned)mask));
    i -= 4;
  }
#endif
  while (i > lo) {
    i--;
    if (s[i] == v) return i;
  }
  return UINT64_MAX;
}

/* The largest i in [lo, hi] (lo >= 1) with s[i - 1] == u and s[i] == v:
 * find_back for two adjacent code points, four positions at a time. */
static uint64_t find_back2(const uint32_t *s, uint64_t lo, uint64_t hi, uint32_t u, uint32_t v) {
  uint64_t i = hi + 1; /* candidates below i */
#if SLUICEP_HAVE_SSE2
  __m128i uu = _mm_set1_epi32((int)u), vv = _mm_set1_epi32((int)v);
  while (i >= lo + 4) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i - 4));
    __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + i - 5));
    __m128i both = _mm_and_si128(_mm_cmpeq_epi32(x, vv), _mm_cmpeq_epi32(w, uu));
    int mask = _mm_movemask_ps(_mm_castsi128_ps(both));
    if (mask) return i - 4 + (uint64_t)(31 - __builtin_clz((unsigned)mask));
    i -= 4;
  }
#endif
  while (i > lo) {
    i--;
    if (s[i] == v && s[i - 1] == u) return i;
  }
  return UINT64_MAX;
}

/* agree_back(s, n, n - L, max), knowing that S's trailing run of one code
 * point (m->run) agrees with itself at distance L for its first run - L
 * code points. In a run of spaces, dots or NULs (the fuzz target's text,
 * and a loop's filler) every length agrees that far, and comparing it
 * again for each of the 64 direct lengths at each checkpoint was most of
 * the detector's work there. */
static uint64_t agree_at(const monitor *m, uint64_t L, uint64_t max) {
  uint64_t n = m->n, k = m->run > L ? m->run - L : 0;
  if (k > max) k = max;
  return k + agree_back(m->cp, n - k, n - L - k, max - k);
}

/* Quasi (and exact, its gap-0 case): S ends with C = S[n-L..n); count the
 * copies going back, each the nearest one before the previous with a gap
 * shorter than L (the original's rfind loop). */
static int quasi_match(const monitor *m, uint64_t L, uint64_t r) {
  uint64_t n = m->n, c = n - L, count = 1, pl = L > EQ_DIRECT ? powb(L) : 0;
  const uint32_t *s = m->cp;
  /* A copy is searched for by two of C's code points, a from its end and
   * the one before (one when C is shorter): the one before C's trailing
   * run when C has one (in a run of spaces every position ends like C; the
   * code point before the run is rarer), else the last. Every copy has
   * them there, so the nearest is found either way, past fewer false
   * candidates (each one a comparison of C). */
  uint64_t a = m->run > 1 && m->run < L ? m->run : 0;
  uint32_t anchor = s[n - 1 - a], before = a + 1 < L ? s[n - 2 - a] : 0;
  /* Gap-0 copies first, in one comparison: while S[c-L..c) is C, it is the
   * nearest copy there can be (q <= c - L), so a stretch where the text
   * has period L gives one copy per L code points agreeing. */
  uint64_t k = agree_at(m, L, (r - 1) * L < c ? (r - 1) * L : c);
  count += k / L;
  c -= k / L * L;
  while (count < r && c >= L) {
    uint64_t lo = c + 1 >= 2 * L ? c + 1 - 2 * L : 0;
    /* the nearest q in [lo, c - L] whose copy ends like C, then the rest */
    uint64_t found = UINT64_MAX, hi = c - 1; /* q + L - 1 <= hi */
    while (hi >= lo + L - 1) {
      uint64_t e = a + 1 < L ? find_back2(s, lo + L - 1 - a, hi - a, before, anchor)
                             : find_back(s, lo + L - 1 - a, hi - a, anchor);
      if (e == UINT64_MAX) break;
      e += a;
      if (eq(m, e + 1 - L, n - L, L, pl)) {
        found = e + 1 - L;
        break;
      }
      if (e == 0) break;
      hi = e - 1;
    }
    if (found == UINT64_MAX) break;
    count++;
    c = found;
  }
  return count >= r;
}

/* Exact: S ends with C repeated r times, i.e. the last r*L code points have
 * period L. Text that does not repeat fails at the first comparisons. */
static int exact_match(const monitor *m, uint64_t L, uint64_t r) {
  uint64_t n = m->n;
  if (r * L > n) return 0;
  uint64_t span = (r - 1) * L, direct = span < 256 ? span : 256;
  /* four code points a comparison, past what the trailing run says: at a
   * checkpoint on periodic text this runs up to `direct` for every length
   * the period divides */
  if (agree_at(m, L, direct) < direct) return 0;
  if (span == direct) return 1;
  uint64_t len = span - direct;
  return eq(m, n - r * L, n - span, len, 0);
}

/* M = S[n-10..n) occurs at pos (compared from its end, four at a time). */
static int marker_at(const monitor *m, uint64_t pos) {
  return agree_back(m->cp, m->n, pos + 10, 10) == 10;
}

/* ---------------- phase 2 bands ---------------- */

/* The fingerprint of the marker that ends at a grid point, from the prefix
 * hashes at its ends: hend - hstart * B^l, as one reduction. */
static inline uint64_t marker_fp(const band *b, uint64_t hend, uint64_t hstart) {
  return reduce(sluicep_u128_add64(sluicep_u128_mul(hstart, b->npl), hend));
}

static inline uint32_t slot_of(const band *b, uint64_t f) { return (uint32_t)f & b->tmask; }
static inline uint64_t tag_of(uint64_t f) { return f >> 32 << 32; }

/* Indexes the positions b->next, b->next + step, ... up to `top`. */
static void band_insert_to(monitor *m, band *b, uint64_t top) {
  uint64_t e = b->next;
  if (e > top) return;
  const uint64_t *h = m->H + e / GRID; /* the prefix hash at e */
  uint64_t *ring = b->ring, *head = b->head;
  const uint32_t rmask = b->rmask, tmask = b->tmask, shift = b->shift, step = b->step;
  const size_t lg = b->l / GRID, hs = step / GRID;
  for (; e <= top; e += step, h += hs) {
    uint64_t f = marker_fp(b, h[0], h[-(ptrdiff_t)lg]);
    uint32_t s = (uint32_t)f & tmask;
    ring[(e >> shift) & rmask] = head[s];
    head[s] = tag_of(f) | e;
  }
  b->next = e;
}

/* The window a lookup at n covers: distances up to 2 * hiL, with hiL the
 * band's top length at the thr of the last checkpoint its distances serve. */
static uint64_t band_hi(const monitor *m, const band *b, uint64_t n) {
  uint64_t thr = (n + b->slack) / 10;
  (void)m;
  return b->hi < thr ? b->hi : thr;
}

/* How far back from n the band's index must reach. A lookup looks at
 * distances under 2*hiL. With quasi matching, quasi_possible looks for the
 * ends of the r-1 copies before C, at distances up to (2L-1)(r-1) (each
 * copy starts less than 2L after the previous one's start); reps does not
 * grow with L, so reps(lo) serves the whole band. Never more than the
 * history. */
static uint64_t band_reach(const monitor *m, const band *b) {
  uint64_t hiL = band_hi(m, b, m->n), reach = 2 * hiL;
  if (m->quasi) reach *= reps(m, b->lo) - 1;
  return reach < m->n + b->step ? reach : m->n + b->step;
}

/* Ring entries the band needs now: the lookups' window (2*hiL); once
 * extended, the reach from a lookup up to slack code points back
 * (quasi_possible walks the far part after the lookup). A step each side. */
static uint64_t band_need(const monitor *m, const band *b) {
  uint64_t reach = b->extended ? band_reach(m, b) + b->slack : 2 * band_hi(m, b, m->n);
  return (reach + 2 * b->step) / b->step + 2;
}

/* Table slots: about one per indexed position of the lookups' window, so
 * that a lookup walks few foreign positions; once extended, one per four
 * positions of the reach, so that the far walks stay short too. */
static uint64_t band_slots(const monitor *m, const band *b) {
  uint64_t w = (2 * band_hi(m, b, m->n) + 2 * b->step) / b->step + 2;
  if (b->extended && band_need(m, b) / 4 > w) w = band_need(m, b) / 4;
  return w;
}

/* (Re)builds the ring and table for the current window, from H. */
static int band_build(monitor *m, band *b) {
  uint64_t need = band_need(m, b), slots = band_slots(m, b);
  /* A band whose whole window is small (the first: 8 KB) is sized for it
   * at once, instead of being rebuilt each time the window doubles. */
  uint64_t whole = (2 * b->hi + 2 * b->step) / b->step + 2;
  if (whole <= 512) {
    if (need < whole) need = whole;
    if (slots < whole) slots = whole;
  }
  uint32_t rs = b->rmask ? b->rmask + 1 : 64;
  while (rs < need) rs <<= 1;
  uint32_t ts = b->tmask ? b->tmask + 1 : 64;
  while (ts < slots) ts <<= 1;
  if (rs != b->rmask + 1 || !b->ring) {
    uint64_t *ring = sluicep_realloc(&m->base.mem, b->ring, (size_t)rs * sizeof *ring);
    if (!ring) return -1;
    b->ring = ring;
    b->rmask = rs - 1;
  }
  if (ts != b->tmask + 1 || !b->head) {
    uint64_t *head = sluicep_realloc(&m->base.mem, b->head, (size_t)ts * sizeof *head);
    if (!head) return -1;
    b->head = head;
    b->tmask = ts - 1;
  }
  memset(b->head, 0, (size_t)ts * sizeof *b->head);
  uint64_t top = m->nblocks * GRID, from = 0;
  if (top > (uint64_t)rs * b->step) from = top - (uint64_t)rs * b->step + b->step;
  from = (from + b->step - 1) / b->step * b->step;
  if (from < b->l) from = (b->l + b->step - 1) / b->step * b->step;
  b->next = from;
  band_insert_to(m, b, top);
  b->nhits = -1; /* look up afresh */
  return 0;
}

/* The shortest length of band i: 65 (after the direct lengths), 2048, then
 * eight times the previous. */
static uint64_t band_lo(int i) {
  uint64_t lo = i == 0 ? DIRECT_MAX + 1 : 2048;
  for (int k = 1; k < i; k++) lo *= 8;
  return lo;
}

static int add_band(monitor *m) {
  band *b = &m->bands[m->nbands];
  memset(b, 0, sizeof *b);
  int i = m->nbands;
  b->lo = band_lo(i);
  b->hi = band_lo(i + 1) - 1;
  b->shift = i == 0 ? 4 : i == 1 ? 5 : 6;
  b->step = 1u << b->shift;
  /* The first band looks up at every checkpoint, with the longest marker
   * that fits; the others' markers are about half their shortest length:
   * a copy found at a lookup still lies inside C for the next `slack` code
   * points, so they look up every few checkpoints. */
  b->l = (uint32_t)((i == 0 ? b->lo - b->step : (b->lo - b->step) / 2) / GRID * GRID);
  b->slack = b->lo - b->step - b->l;
  b->npl = HMOD - powb(b->l);
  m->nbands++;
  return band_build(m, b);
}

/* Bands for every length up to thr, their windows, every indexed position
 * up to the last grid point. */
static int bands_update(monitor *m) {
  uint64_t thr = m->n / 10;
  while (m->nbands < MAX_BANDS && band_lo(m->nbands) <= thr)
    if (add_band(m)) return -1;
  uint64_t top = m->nblocks * GRID;
  for (int i = 0; i < m->nbands; i++) {
    band *b = &m->bands[i];
    if ((uint64_t)b->rmask + 1 < band_need(m, b) || (uint64_t)b->tmask + 1 < band_slots(m, b)) {
      if (band_build(m, b)) return -1;
      continue;
    }
    band_insert_to(m, b, top);
  }
  return 0;
}

/* The band whose lengths hold L (65 <= L <= thr). */
static band *band_of(monitor *m, uint64_t L) {
  int i = 0;
  while (i + 1 < m->nbands && L > m->bands[i].hi) i++;
  return &m->bands[i];
}

/* out[j] = hash of S[0..end-j) for j < count (count >= 1): one prefix,
 * then one code point at a time. */
static void hashes_before(const monitor *m, uint64_t end, uint64_t count, uint64_t *out) {
  uint64_t x0 = end - count + 1, h = prefix(m, x0);
  for (uint64_t x = x0;; x++) {
    out[end - x] = h;
    if (x == end) break;
    h = extend(h, m->cp[x]);
  }
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Walks the lookup's markers on from its near distance to its far one,
 * adding what it finds to the band's list (or dropping the list when
 * full). Positions indexed since the lookup are at the chains' heads and
 * passed over. The s chains are walked side by side, one entry of each per
 * round: an entry is a load from anywhere in a ring of up to megabytes,
 * and a round's loads do not wait on one another, where one chain's do.
 * The list is sorted after, so the order of the walk changes nothing. */
static void band_far(band *b) {
  uint64_t n0 = b->looked;
  uint64_t x[MAX_STEP], lo[MAX_STEP], hi[MAX_STEP], tag[MAX_STEP];
  uint32_t j[MAX_STEP];
  b->far_done = 1;
  b->far_full = 0;
  uint32_t live = 0;
  for (uint32_t k = 0; k < b->step; k++) {
    uint64_t fx = b->fx[k];
    lo[k] = n0 - k > b->far ? n0 - k - b->far : 0;
    hi[k] = n0 - k - b->near;
    tag[k] = tag_of(fx);
    x[live] = b->head[slot_of(b, fx)];
    j[live++] = k;
  }
  while (live) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < live; i++) {
      uint32_t k = j[i];
      uint64_t e = x[i] & 0xFFFFFFFFu;
      if (e < lo[k] || e == 0) continue; /* this chain is done */
      if (e <= hi[k] && (x[i] & ~(uint64_t)0xFFFFFFFFu) == tag[k]) {
        if (b->nhits == NHITS) { /* the window's list stays: it is the candidates */
          b->far_full = 1;
          b->nhits = b->nnear;
          return;
        }
        b->hits[b->nhits++] = (uint32_t)(n0 - e - k);
      }
      x[kept] = b->ring[e >> b->shift & b->rmask];
      j[kept++] = k;
    }
    live = kept;
  }
  qsort(b->hits + b->nnear, (size_t)(b->nhits - b->nnear), sizeof *b->hits, cmp_u32);
}

/* How many of the sorted a[0..n) lie in [lo, hi]. */
static int count_in(const uint32_t *a, int n, uint64_t lo, uint64_t hi) {
  int x = 0, y = n, z = 0, w = n; /* first >= lo in [x, y); first > hi in [z, w) */
  while (x < y) {
    int mid = x + (y - x) / 2;
    if (a[mid] < lo) x = mid + 1;
    else y = mid;
  }
  while (z < w) {
    int mid = z + (w - z) / 2;
    if (a[mid] <= hi) z = mid + 1;
    else w = mid;
  }
  return z > x ? z - x : 0;
}

/* A necessary condition for quasi_match(L, r) for some L in [lo, hi] of
 * band b (r = reps(lo), the most any of them needs), checked before the
 * lcs and the walk: each of the r-1 copies before C ends with C's last l
 * code points at a distance in [L, (2L-1)(r-1)], and each such end is in
 * the index, found under exactly one of the s markers (band_reach keeps
 * the index that far back). Fewer tag matches than r-1 there: nothing in
 * [lo, hi] can fire. This keeps near-loops linear: a stretch of k < r
 * copies of a block passes the marker and lcs tests at every checkpoint,
 * and walking its copies (then scanning 2L code points for one more)
 * would cost O(kL) each time; this costs s short hash-chain walks per band
 * and checkpoint. */
static int quasi_possible(monitor *m, band *b, uint64_t lo, uint64_t hi) {
  uint64_t r = reps(m, lo), dmax = (2 * hi - 1) * (r - 1);
  if (b->nhits >= 0 && !b->far_done) {
    /* The window alone may already say no: copy i ends within i(2L-1), so
     * the first (near-1)/(2L-1) copies all end in the window the lookup walked
     * (most blocks are short next to the window). */
    uint64_t k = (b->near - 1) / (2 * hi - 1);
    if (k > r - 1) k = r - 1;
    if ((uint64_t)count_in(b->hits, b->nnear, lo, UINT32_MAX) < k) return 0;
    if (!b->extended) { /* index the reach now; the lookup's list stays valid */
      int nh = b->nhits;
      b->extended = 1;
      if (band_build(m, b)) {
        m->nomem = 1;
        return 1;
      }
      b->nhits = nh;
    }
    band_far(b);
  }
  if (b->nhits < 0 || b->far_full) return 1;
  int count = count_in(b->hits, b->nnear, lo, dmax) +
              count_in(b->hits + b->nnear, b->nhits - b->nnear, lo, dmax);
  return (uint64_t)count >= r - 1;
}

/* Quasi candidates are intervals of lengths, gathered over a checkpoint and
 * merged, so that a length two candidates share is checked once. */
static int check_intervals(monitor *m) {
  int n = m->niv;
  m->niv = 0;
  /* insertion sort by lo: at most NINTERVALS */
  for (int i = 1; i < n; i++) {
    interval t = m->iv[i];
    int j = i;
    for (; j > 0 && m->iv[j - 1].lo > t.lo; j--) m->iv[j] = m->iv[j - 1];
    m->iv[j] = t;
  }
  uint64_t done = 0; /* lengths up to done are checked */
  for (int i = 0; i < n; i++) {
    uint64_t L = m->iv[i].lo > done ? m->iv[i].lo : done + 1, nn = m->n;
    uint32_t last = m->cp[nn - 1];
    while (L <= m->iv[i].hi) {
      /* M occurs at n-10-L: its last code point S[n-1-L] first */
      uint64_t e = find_back(m->cp, nn - 1 - m->iv[i].hi, nn - 1 - L, last);
      if (e == UINT64_MAX) break;
      L = nn - 1 - e;
      uint64_t r = reps(m, L);
      if (r * L <= nn && marker_at(m, nn - 10 - L) && quasi_possible(m, band_of(m, L), L, L) &&
          quasi_match(m, L, r))
        return 1;
      L++;
    }
    if (m->iv[i].hi > done) done = m->iv[i].hi;
  }
  return 0;
}

static int add_interval(monitor *m, uint64_t lo, uint64_t hi) {
  if (m->niv == NINTERVALS && check_intervals(m)) return 1;
  m->iv[m->niv].lo = lo;
  m->iv[m->niv].hi = hi;
  m->niv++;
  return 0;
}

/* One candidate: an earlier copy ends at et. Returns 1 if it fires. */
static int band_candidate(monitor *m, uint64_t loL, uint64_t hiL, uint64_t et) {
  uint64_t n = m->n;
  if (et >= n || n - et < loL) return 0;
  if (!m->quasi) {
    uint64_t L = n - et;
    return L <= hiL && exact_match(m, L, reps(m, L));
  }
  uint64_t hiC = n - et; /* e <= n - L */
  if (hiC > hiL) hiC = hiL;
  if (2 * hiL <= n - et) return 0; /* e > n - 2L */
  uint64_t loC = (n - et) / 2 + 1;
  if (loC < loL) loC = loL;
  if (loC > hiC || !quasi_possible(m, band_of(m, loC), loC, hiC)) return 0;
  uint64_t lam = lcs(m, et, hiC);
  if (hiC > lam) hiC = lam;
  return loC <= hiC && add_interval(m, loC, hiC);
}

/* A lookup: the s markers ending 0..s-1 code points before n, each in the
 * index, over the window (distances under 2*hiL); the distances of their
 * earlier ends go to the band's list, which serves as the candidates and,
 * with band_far's part, as quasi_possible's evidence until the next lookup
 * (a copy of C at a later n, up to slack code points on, holds the marker
 * looked up, at the same distance). With more than NHITS the list is dropped: the
 * candidates are checked during the walk, and the band looks up again at
 * the next checkpoint. top[j] is the hash of S[0..n-j). Returns 1 if a
 * candidate fires. */
static int band_lookup(monitor *m, band *b, const uint64_t *top) {
  uint64_t n = m->n, step = b->step, bot[MAX_STEP];
  uint64_t loL = b->lo, hiL = band_hi(m, b, n);
  uint64_t thr = n / 10, hiNow = b->hi < thr ? b->hi : thr; /* for checks at n */
  hashes_before(m, n - b->l, step, bot); /* bot[j] = hash of S[0..n-j-l) */
  b->looked = n;
  b->nhits = 0;
  b->near = 2 * hiL;
  b->far = band_reach(m, b);
  b->far_done = b->far <= b->near;
  b->far_full = 0;
  for (uint64_t j = 0; j < step; j++) {
    uint64_t fx = b->fx[j] = marker_fp(b, top[j], bot[j]);
    /* e + j is where the earlier copy ends, at a distance in [loL, 2*hiL) */
    uint64_t elow = n - j >= 2 * hiL ? n - j - 2 * hiL + 1 : 0;
    uint64_t ehigh = n - j - loL, tag = tag_of(fx);
    for (uint64_t x = b->head[slot_of(b, fx)];; x = b->ring[(x & 0xFFFFFFFFu) >> b->shift & b->rmask]) {
      uint64_t e = x & 0xFFFFFFFFu;
      if (e < elow || e == 0) break;
      /* a tag match is a candidate: what follows verifies it */
      if (e > ehigh || (x & ~(uint64_t)0xFFFFFFFFu) != tag) continue;
      uint64_t d = n - e - j;
      if (b->nhits >= 0 && b->nhits < NHITS) {
        b->hits[b->nhits++] = (uint32_t)d;
        continue;
      }
      if (b->nhits >= 0) { /* the list is full: check it now, then go on */
        b->nhits = -1;
        for (int k = 0; k < NHITS; k++)
          if (b->hits[k] < 2 * hiL && band_candidate(m, loL, hiNow, n - b->hits[k])) return 1;
      }
      if (d < 2 * hiL && band_candidate(m, loL, hiNow, n - d)) return 1;
    }
  }
  if (b->nhits >= 0) { /* sorted for quasi_possible, before any candidate is checked */
    qsort(b->hits, (size_t)b->nhits, sizeof *b->hits, cmp_u32);
    b->nnear = b->nhits;
  }
  return 0;
}

static int phase2_bands(monitor *m) {
  uint64_t n = m->n, thr = n / 10;
  uint64_t top[MAX_STEP], need = 0;
  for (int bi = 0; bi < m->nbands; bi++) {
    band *b = &m->bands[bi];
    if ((b->nhits < 0 || n > b->looked + b->slack) && b->step > need) need = b->step;
  }
  /* top[j] = hash of S[0..n-j), for the lookups of this checkpoint */
  if (need) hashes_before(m, n, need, top);
  m->niv = 0;
  for (int bi = 0; bi < m->nbands; bi++) {
    band *b = &m->bands[bi];
    uint64_t loL = b->lo, hiL = b->hi < thr ? b->hi : thr;
    if (loL > hiL) continue;
    /* A copy that makes C fire at n was found by a lookup at most slack
     * code points before (the marker lay inside C then), so the distances
     * of that lookup are the candidates until then. */
    if (b->nhits < 0 || n > b->looked + b->slack) {
      if (band_lookup(m, b, top)) return 1;
      if (b->nhits < 0) continue; /* its candidates were checked */
    }
    for (int k = 0; k < b->nhits; k++)
      if (b->hits[k] < 2 * hiL && band_candidate(m, loL, hiL, n - b->hits[k])) return 1;
  }
  return m->quasi && check_intervals(m);
}

/* Bit d-1 of *one, for d = 1..20: S[n-1-d] == S[n-1]; of *two: that and
 * S[n-2-d] == S[n-2]. n >= 22. */
static void tail_masks(const uint32_t *s, uint64_t n, uint32_t *one, uint32_t *two) {
  uint32_t a = 0, b = 0;
#if SLUICEP_HAVE_SSE2
  __m128i v1 = _mm_set1_epi32((int)s[n - 1]), v2 = _mm_set1_epi32((int)s[n - 2]);
  for (int q = 0; q < 5; q++) {
    /* lanes 0..3 hold d = 4q+4 .. 4q+1; reversed, lane j is d = 4q+1+j */
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 5 - 4 * q));
    __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 6 - 4 * q));
    x = _mm_shuffle_epi32(_mm_cmpeq_epi32(x, v1), 0x1B);
    y = _mm_shuffle_epi32(_mm_cmpeq_epi32(y, v2), 0x1B);
    a |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(x)) << (4 * q);
    b |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(y)) << (4 * q);
  }
#else
  for (uint64_t d = 1; d <= 20; d++) {
    a |= (uint32_t)(s[n - 1 - d] == s[n - 1]) << (d - 1);
    b |= (uint32_t)(s[n - 2 - d] == s[n - 2]) << (d - 1);
  }
#endif
  *one = a;
  *two = a & b;
}

static int detect(monitor *m) {
  uint64_t n = m->n, thr = n / 10;
  const uint32_t *s = m->cp;
  hash_blocks(m); /* long comparisons hash */
  m->run = 1 + agree_back(s, n, n - 1, n - 1 < RUN_MAX - 1 ? n - 1 : RUN_MAX - 1);
  /* Phase 1 needs, for every L, a copy of C = S[n-L..n) ending d code
   * points before n: d = L for exact matching, L <= d < 2L for quasi (the
   * first copy of the r >= 2 the walk needs). A copy agrees with S's last
   * two code points (its last, when L = 1 and quasi matching), so two
   * masks of the last 20 distances, a few vector comparisons, rule out
   * most lengths before their walks (on text that does not loop, all). */
  uint32_t one = UINT32_MAX, two = UINT32_MAX;
  if (n >= 22) tail_masks(s, n, &one, &two);
  for (uint64_t L = 1; L <= 10 && L <= thr; L++) {
    uint64_t r = reps(m, L);
    if (L * r > n) break;
    if (!m->quasi) {
      if ((two >> (L - 1) & 1) && exact_match(m, L, r)) return 1;
    } else if (((L == 1 ? one : two) >> (L - 1) & ((1u << L) - 1)) && quasi_match(m, L, r)) {
      return 1;
    }
  }
  if (thr <= 10) return 0;
  /* phase 2 up to DIRECT_MAX: M must occur at n-10-L, so S[n-1-L] is S[n-1];
   * find_back skips to the next such L, four code points at a time */
  uint32_t last = s[n - 1];
  uint64_t top = thr < DIRECT_MAX ? thr : DIRECT_MAX;
  for (uint64_t L = 11; L <= top; L++) {
    uint64_t e = find_back(s, n - 1 - top, n - 1 - L, last);
    if (e == UINT64_MAX) break;
    L = n - 1 - e;
    uint64_t r = reps(m, L);
    if (!m->quasi) {
      if (exact_match(m, L, r)) return 1; /* a period L over r*L implies M */
    } else if (r * L <= n && marker_at(m, n - 10 - L) && quasi_match(m, L, r)) {
      return 1;
    }
  }
  if (thr <= DIRECT_MAX) return 0;
  if (bands_update(m)) return -1;
  int r = phase2_bands(m);
  return m->nomem ? -1 : r;
}

/* ---------------- history ---------------- */

static void free_history(monitor *m) {
  sluice_mem *mem = &m->base.mem;
  sluicep_dealloc(mem, m->cp);
  sluicep_dealloc(mem, m->H);
  m->cp = NULL;
  m->H = NULL;
  m->cap = m->hcap = 0;
  for (int j = 0; j < m->nbands; j++) {
    sluicep_dealloc(mem, m->bands[j].ring);
    sluicep_dealloc(mem, m->bands[j].head);
  }
  m->nbands = 0;
}

/* Room for `more` code points after S[n-1]. The arrays grow by half. */
static int reserve(monitor *m, uint64_t more) {
  uint64_t need = m->n - m->cp_base + more;
  if (need <= m->cap) return 0;
  sluice_mem *mem = &m->base.mem;
  size_t nc = m->cap ? m->cap + m->cap / 2 : (m->rep_interval ? 4096 : COMPACT);
#if SIZE_MAX < UINT64_MAX
  /* A 32-bit size_t cannot count the bytes of 2^30 code points: out of
   * memory, not a size that wraps around. (A 64-bit one always can: the
   * history stops at POS_LIMIT.) */
  if (need > SIZE_MAX / sizeof *m->cp) return -1;
  if (nc > SIZE_MAX / sizeof *m->cp) nc = (size_t)need;
#endif
  if (nc < need) nc = (size_t)need;
  uint32_t *cp = sluicep_realloc(mem, m->cp, nc * sizeof *cp);
  if (!cp) return -1;
  m->cp = cp;
  m->cap = nc;
  if (m->rep_interval) {
    size_t nh = nc / GRID + 2;
    uint64_t *H = sluicep_realloc(mem, m->H, nh * sizeof *H);
    if (!H) return -1;
    if (!m->H || m->hcap == 0) H[0] = 0;
    m->H = H;
    m->hcap = nh;
  }
  return 0;
}

/* ---------------- verdicts ---------------- */

static int stop(monitor *m, const char *reason) {
  m->stopped = 1;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_STOP;
  ev.name = reason;
  ev.name_len = strlen(reason);
  ev.offset = m->n;
  ev.complete = 1;
  sluicep_event(&m->base, &ev);
  return 1;
}

static inline int is_space(uint32_t c) {
  if (c < 0x80) return (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20);
  return sluicep_is_space_cp(c);
}

static inline uint64_t ws_weight(uint32_t c, uint32_t prev) {
  if (c == '\n') return prev == '\r' ? 0 : 8; /* \r\n weighs 8 in all */
  return c == '\r' ? 8 : c == '\t' ? 4 : 1;
}

/* Brings the trailing whitespace run up to position `to`, from the one at
 * ws_at: a scan back that stops at ws_at, so each code point is looked at
 * about once. */
static void ws_advance(monitor *m, uint64_t to) {
  const uint32_t *s = m->cp; /* S[k] is s[k - b] */
  uint64_t b = m->cp_base, from = m->ws_at, i = to;
  if (to == from) return;
  while (i > from && is_space(s[i - 1 - b])) i--;
  uint32_t prev = i == from ? m->ws_prev : s[i - 1 - b];
  if (i > from) m->ws_count = m->ws_weight = 0; /* a non-space ended the old run */
  m->ws_count += to - i;
  if (m->weighted)
    for (uint64_t k = i; k < to; k++) {
      m->ws_weight += ws_weight(s[k - b], prev);
      prev = s[k - b];
    }
  m->ws_prev = s[to - 1 - b];
  m->ws_at = to;
}

static uint64_t next_multiple(uint64_t n, uint64_t iv) {
  return iv ? (n / iv + 1) * iv : UINT64_MAX;
}

static void plan(monitor *m) {
  uint64_t n = m->n, e = next_multiple(n, m->ws_interval), r = next_multiple(n, m->rep_interval);
  if (r < e) e = r;
  if (m->max_length > n && m->max_length < e) e = m->max_length;
  if (!m->rep_interval && m->cp_base + COMPACT < e) e = m->cp_base + COMPACT;
  m->next_event = e;
}

/* The checkpoint at n (n == next_event). Returns 1 when the stream stops
 * there, -1 on an error. */
static int at_event(monitor *m) {
  uint64_t n = m->n;
  if (m->max_length && n == m->max_length) return stop(m, "max_length");
  if (m->ws_interval && n % m->ws_interval == 0) {
    ws_advance(m, n);
    if ((m->weighted ? m->ws_weight : m->ws_count) >= m->ws_threshold) return stop(m, "whitespace");
  }
  if (m->rep_interval && n % m->rep_interval == 0) {
    int r = detect(m);
    if (r < 0) {
      sluicep_fail(&m->base, SLUICE_NOMEM, m->base.at, "out of memory for the monitor's index");
      return -1;
    }
    if (r) return stop(m, "repetition");
  }
  if (!m->rep_interval && n - m->cp_base >= COMPACT) {
    /* no history needed: keep only what the whitespace rule has not seen */
    ws_advance(m, n);
    m->cp_base = n;
  }
  plan(m);
  return 0;
}

/* The code point that would exceed the history, starting at stream offset
 * `at`: SLUICE_LIMIT. */
static int over_limit(monitor *m, uint64_t at) {
  if (m->max_history && m->n >= m->max_history)
    sluicep_fail(&m->base, SLUICE_LIMIT, at,
                 "the monitor's history exceeded max_history (%llu code points)",
                 (unsigned long long)m->max_history);
  else
    sluicep_fail(&m->base, SLUICE_LIMIT, at, "the monitor counts at most 2^32 code points");
  return -1;
}

/* One code point decoded outside the bulk loop (a sequence cut by a chunk
 * boundary, or flushed at the end). Returns 1 on a stop, -1 on an error. */
static int add_one(monitor *m, uint32_t c, uint64_t at) {
  if (m->n >= m->n_limit) return over_limit(m, at);
  if (reserve(m, 1)) {
    sluicep_fail(&m->base, SLUICE_NOMEM, m->base.at, "out of memory for the monitor's history");
    return -1;
  }
  m->cp[m->n - m->cp_base] = c & 0x80000000u ? INVALID(c & 0xFF) : c;
  m->n++;
  return m->n == m->next_event ? at_event(m) : 0;
}

/* Does p[0..n) (n < 4) begin a well-formed sequence that more bytes could
 * complete? */
static int cut_sequence(const uint8_t *p, size_t n) {
  sluicep_u8 st = {{0}, 0, 0};
  for (size_t i = 0; i < n; i++)
    if (sluicep_u8_step(&st, p[i], NULL) != 0) return 0;
  return st.npend == n;
}

static uint32_t decode(const uint8_t *s, size_t n) {
  switch (n) {
  case 2: return ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
  case 3: return ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
  default:
    return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
           ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
  }
}

/* Eight bytes to eight code points (the caller keeps the ASCII ones). */
static inline void widen8(uint32_t *out, const uint8_t *p) {
#if SLUICEP_HAVE_SSE2
  __m128i z = _mm_setzero_si128();
  __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)p);
  __m128i w = _mm_unpacklo_epi8(b, z);
  _mm_storeu_si128((__m128i *)(void *)out, _mm_unpacklo_epi16(w, z));
  _mm_storeu_si128((__m128i *)(void *)(out + 4), _mm_unpackhi_epi16(w, z));
#else
  for (int j = 0; j < 8; j++) out[j] = p[j];
#endif
}

/* The bulk loop: decodes p[i..n) into the history until the next event or
 * a sequence cut by the chunk's end. Returns the new i. */
static size_t decode_run(monitor *m, const uint8_t *p, size_t i, size_t n, uint64_t until) {
  uint32_t *out = m->cp + (m->n - m->cp_base); /* S[k] is out[k - m->n] */
  uint64_t k0 = m->n, k = k0;
  while (i < n && k < until) {
    if (i + 8 <= n && k + 8 <= until) {
      uint64_t w;
      memcpy(&w, p + i, 8);
      uint64_t high = w & 0x8080808080808080ULL;
      /* the ASCII bytes before the first other one (all eight, mostly) */
      size_t a = high ? (size_t)sluicep_ctz64(high) / 8 : 8;
      widen8(out + (k - k0), p + i); /* only the first a are kept */
      i += a;
      k += a;
      if (a == 8) continue;
      /* the common two- and three-byte sequences, here; the rest below */
      if (i + 3 > n) continue; /* near the end: the general path below */
      uint8_t b0 = p[i], b1 = p[i + 1];
      if (b0 >= 0xC2 && b0 <= 0xDF && (b1 & 0xC0) == 0x80) {
        out[k++ - k0] = ((uint32_t)(b0 & 0x1F) << 6) | (b1 & 0x3F);
        i += 2;
        continue;
      }
      if (b0 >= 0xE1 && b0 <= 0xEC && (b1 & 0xC0) == 0x80 && (p[i + 2] & 0xC0) == 0x80) {
        out[k++ - k0] = ((uint32_t)(b0 & 0x0F) << 12) | ((uint32_t)(b1 & 0x3F) << 6) | (p[i + 2] & 0x3F);
        i += 3;
        continue;
      }
      if (k >= until) break;
    }
    uint8_t b = p[i];
    if (b < 0x80) {
      out[k++ - k0] = b;
      i++;
      continue;
    }
    size_t l = sluicep_u8_seq_len(p + i, n - i);
    if (l == 0) {
      if (n - i < 4 && cut_sequence(p + i, n - i)) break;
      out[k++ - k0] = INVALID(b); /* an invalid byte is a code point of its own */
      i++;
      continue;
    }
    out[k++ - k0] = decode(p + i, l);
    i += l;
  }
  m->n = k;
  return i;
}

/* Emits stream bytes [from, to) on ch; they lie in carry (the bytes just
 * before `base`) or in p (which starts at stream offset base). */
static int emit_range(monitor *m, sluice_channel ch, uint64_t from, uint64_t to,
                      const uint8_t *carry, size_t ncarry, uint64_t base, const char *p) {
  if (to <= from) return 0;
  if (from < base) {
    uint64_t cend = to < base ? to : base;
    size_t off = ncarry - (size_t)(base - from);
    if (sluicep_emit(&m->base, ch, (const char *)carry + off, (size_t)(cend - from))) return 1;
    from = cend;
  }
  if (to > from && sluicep_emit(&m->base, ch, p + (from - base), (size_t)(to - from))) return 1;
  m->out_bytes = to;
  return 0;
}

/* A stop (or an error) at the code point ending at stream offset `end`:
 * TEXT up to it, DROPPED after it, the history freed. */
static sluice_status finish_stop(monitor *m, int r, uint64_t end, const uint8_t *carry,
                                 size_t ncarry, uint64_t base, const char *p, uint64_t total) {
  if (r > 0 && m->base.err.status == SLUICE_OK) {
    m->in_bytes = total;
    if (!emit_range(m, SLUICE_TEXT, m->out_bytes, end, carry, ncarry, base, p))
      emit_range(m, SLUICE_DROPPED, end, total, carry, ncarry, base, p);
    m->u8.npend = 0;
  }
  free_history(m);
  return m->base.err.status;
}

static void set_quick(monitor *m) {
  uint64_t q = m->next_event ? m->next_event - 1 : 0;
  if (m->n_limit < q) q = m->n_limit;
  if (m->cp_base + m->cap < q) q = m->cp_base + m->cap;
  m->quick_until = m->stopped || m->u8.npend || m->out_bytes != m->in_bytes ? 0 : q;
}

/* Every feed but monitor_feed's quick ones. */
static sluice_status feed_all(sluice_filter *f, const char *p, size_t n) {
  monitor *m = (monitor *)f;
  uint64_t base = m->in_bytes, total = base + n;
  if (m->stopped) {
    m->in_bytes = total;
    sluicep_emit(f, SLUICE_DROPPED, p, n);
    return f->err.status;
  }
  const uint8_t *u = (const uint8_t *)p;
  uint8_t carry[4];
  size_t ncarry = m->u8.npend, i = 0;
  memcpy(carry, m->u8.pend, ncarry);
  /* A sequence the previous chunk cut: the step decoder, a byte at a time. */
  while (i < n && m->u8.npend) {
    uint64_t B = base + i;
    int npb = m->u8.npend;
    uint32_t cps[4];
    int k = sluicep_u8_step(&m->u8, u[i], cps);
    int whole = npb > 0 && k == 1 && !(cps[0] & 0x80000000u);
    for (int j = 0; j < k; j++) {
      /* where this code point starts and ends: a completed sequence began
       * npb bytes back; the bytes of a broken one are a code point each */
      uint64_t at = whole ? B - (uint64_t)npb : (j < npb ? B - (uint64_t)npb + (uint64_t)j : B);
      uint64_t end = (whole || j >= npb) ? B + 1 : at + 1;
      int r = add_one(m, cps[j], at);
      if (r) return finish_stop(m, r, end, carry, ncarry, base, p, total);
    }
    i++;
  }
  while (i < n) {
    if (m->n >= m->n_limit) {
      if (n - i < 4 && cut_sequence(u + i, n - i)) break; /* not a code point yet */
      over_limit(m, base + i);
      return finish_stop(m, -1, 0, carry, ncarry, base, p, total);
    }
    uint64_t until = m->next_event < m->n_limit ? m->next_event : m->n_limit;
    /* With the history kept, room for the whole chunk at once (one
     * allocation, not one per checkpoint); without, only up to the next
     * event, which keeps the memory bounded. */
    size_t room = n - i;
    if (until - m->n < room && !m->rep_interval) room = (size_t)(until - m->n);
    if (m->n + room > m->n_limit) room = (size_t)(m->n_limit - m->n);
    if (reserve(m, room)) {
      sluicep_fail(f, SLUICE_NOMEM, f->at, "out of memory for the monitor's history");
      return finish_stop(m, -1, 0, carry, ncarry, base, p, total);
    }
    i = decode_run(m, u, i, n, until);
    if (m->n == m->next_event) {
      int r = at_event(m);
      if (r) return finish_stop(m, r, base + i, carry, ncarry, base, p, total);
      continue;
    }
    if (m->n < until) break; /* a sequence cut by the end of the chunk */
  }
  /* the bytes of a cut sequence are held for the next chunk */
  for (; i < n; i++) sluicep_u8_step(&m->u8, u[i], NULL);
  m->in_bytes = total;
  emit_range(m, SLUICE_TEXT, m->out_bytes, total - m->u8.npend, carry, ncarry, base, p);
  return f->err.status;
}

SLUICEP_NOINLINE static sluice_status feed_general(sluice_filter *f, const char *p, size_t n) {
  sluice_status st = feed_all(f, p, n);
  set_quick((monitor *)f);
  return st;
}

/* A token-sized feed within quick_until: the code points into the history,
 * the bytes out, nothing else to do. Anything else (a sequence cut at the
 * end, an invalid byte) takes the general path, which decodes the same way
 * (sluicep_u8_seq_len, decode). */
SLUICEP_NOINLINE static sluice_status feed_token(sluice_filter *f, const char *p, size_t n) {
  monitor *m = (monitor *)f;
  const uint8_t *u = (const uint8_t *)p;
  uint32_t *out = m->cp + (m->n - m->cp_base);
  size_t k = 0, c = 0;
  while (k < n) {
    uint32_t w;
    if (k + 4 <= n && (memcpy(&w, u + k, 4), !(w & 0x80808080u))) { /* four ASCII bytes */
      out[c] = w & 0xFF;
      out[c + 1] = w >> 8 & 0xFF;
      out[c + 2] = w >> 16 & 0xFF;
      out[c + 3] = w >> 24;
      c += 4;
      k += 4;
      continue;
    }
    if (u[k] < 0x80) {
      out[c++] = u[k++];
      continue;
    }
    size_t l = sluicep_u8_seq_len(u + k, n - k);
    if (l == 0) return feed_general(f, p, n); /* cut or invalid: nothing was kept */
    out[c++] = decode(u + k, l);
    k += l;
  }
  m->n += c;
  m->in_bytes += n;
  m->out_bytes = m->in_bytes;
  sluicep_emit_ok(f, SLUICE_TEXT, p, n); /* sluice_feed runs no filter after an error */
  return f->err.status;
}

static SLUICEP_COLD sluice_status monitor_emit_failed(sluice_filter *f) {
  sluicep_callback_failed(f, SLUICE_TEXT);
  return f->err.status;
}

/* Widens four ASCII bytes (in memory order in w) to four code points. */
static inline void widen4(uint32_t *out, uint32_t w) {
#if SLUICEP_HAVE_SSE2
  __m128i z = _mm_setzero_si128();
  __m128i x = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)w), z), z);
  _mm_storeu_si128((__m128i *)(void *)out, x);
#else
  uint8_t b[4];
  memcpy(b, &w, 4);
  for (int i = 0; i < 4; i++) out[i] = b[i];
#endif
}

static sluice_status monitor_feed(sluice_filter *f, const char *p, size_t n) {
  monitor *m = (monitor *)f;
  if (n > 16 || m->n + n > m->quick_until) return feed_general(f, p, n);
  /* 4 to 8 ASCII bytes, the commonest feed of a stream sent a token at a
   * time: two overlapping words cover them. */
  uint32_t a, b;
  if (n < 4 || (memcpy(&a, p, 4), memcpy(&b, p + n - 4, 4), ((a | b) & 0x80808080u) != 0) || n > 8)
    return feed_token(f, p, n);
  uint32_t *out = m->cp + (m->n - m->cp_base);
  widen4(out, a);
  widen4(out + n - 4, b);
  m->n += n;
  m->in_bytes += n;
  m->out_bytes = m->in_bytes;
  /* sluicep_emit_ok, keeping only f across the call */
  f->chan_bytes[SLUICE_TEXT] += n;
  if (f->sink.emit(f->sink.user, SLUICE_TEXT, p, n)) return monitor_emit_failed(f);
  return SLUICE_OK; /* sluice_feed runs no filter after an error */
}

static sluice_status monitor_finish(sluice_filter *f) {
  monitor *m = (monitor *)f;
  if (!m->stopped && m->u8.npend) {
    uint8_t carry[4];
    size_t ncarry = m->u8.npend;
    memcpy(carry, m->u8.pend, ncarry);
    uint32_t cps[4];
    int k = sluicep_u8_flush(&m->u8, cps);
    uint64_t base = m->in_bytes, start = base - ncarry;
    for (int j = 0; j < k; j++) {
      int r = add_one(m, cps[j], start + (uint64_t)j);
      if (r) return finish_stop(m, r, start + (uint64_t)j + 1, carry, ncarry, base, NULL, base);
    }
    emit_range(m, SLUICE_TEXT, m->out_bytes, base, carry, ncarry, base, NULL);
  }
  free_history(m);
  return f->err.status;
}

static void monitor_destroy(sluice_filter *f) { free_history((monitor *)f); }

/* sluice_reset: the stream state as the constructor leaves it. The options
 * and the powers of the base stay; the history and the bands' indexes go
 * (the next stream sizes them again). */
static void monitor_reset(sluice_filter *f) {
  monitor *m = (monitor *)f;
  free_history(m);
  uint64_t pw[GRID + 1], n_limit = m->n_limit;
  memcpy(pw, m->pw, sizeof pw);
  memset(&m->u8, 0, sizeof *m - offsetof(monitor, u8));
  memcpy(m->pw, pw, sizeof pw);
  m->n_limit = n_limit;
  plan(m);
  set_quick(m);
}

static const sluicep_vtable monitor_vt = {"monitor", monitor_feed, monitor_finish, monitor_destroy,
                                          monitor_reset};

/* ---------------- construction ---------------- */

void sluice_monitor_opts_init_size(sluice_monitor_opts *o, size_t size) {
  sluice_monitor_opts d;
  memset(&d, 0, sizeof d);
  d.profile = SLUICE_MONITOR_SEED;
  d.whitespace_interval = 128;
  d.repetition_interval = 512;
  d.whitespace_threshold = 0; /* the profile's */
  d.quasi = -1;
  d.weighted = -1;
  sluicep_opts_init(o, size, &d, sizeof d);
}

sluice_status sluice_monitor_new(sluice_filter **out, const sluice_monitor_opts *opts,
                                 const sluice_sink *sink, const sluice_mem *mem,
                                 sluice_error *err) {
  *out = NULL;
  sluice_monitor_opts local, *o = &local;
  sluice_monitor_opts_init(&local);
  if (opts) {
    sluice_status st0 = sluicep_opts_take(&local, sizeof local, opts, "sluice_monitor_opts", err);
    if (st0 != SLUICE_OK) return st0;
  }
  if (o->profile != SLUICE_MONITOR_SEED && o->profile != SLUICE_MONITOR_CURRENT)
    return sluicep_bad_option(err, "profile must be seed or current");
  sluice_filter *f;
  sluice_status st = sluicep_filter_alloc(&f, sizeof(monitor), &monitor_vt, sink, mem, err);
  if (st != SLUICE_OK) return st;
  monitor *m = (monitor *)f;
  int cur = o->profile == SLUICE_MONITOR_CURRENT;
  m->seed_reps = !cur;
  m->quasi = o->quasi < 0 ? cur : o->quasi != 0;
  m->weighted = o->weighted < 0 ? cur : o->weighted != 0;
  m->ws_threshold = o->whitespace_threshold ? o->whitespace_threshold : (cur ? 512 : 128);
  m->ws_interval = o->whitespace_interval;
  m->rep_interval = o->repetition_interval;
  m->max_length = o->max_length;
  m->max_history = o->max_history;
  /* the history holds every code point while repetition checks are on */
  m->n_limit = m->rep_interval ? POS_LIMIT : UINT64_MAX;
  if (m->rep_interval && m->max_history && m->max_history < m->n_limit)
    m->n_limit = m->max_history;
  init_tables();
  for (int i = 0; i <= GRID; i++) m->pw[i] = i ? mulmod(m->pw[i - 1], HBASE) : 1;
  plan(m);
  set_quick(m);
  *out = f;
  return SLUICE_OK;
}
