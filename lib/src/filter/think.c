/*
 * think.c: thinking-block removal, in two modes (DESIGN.md §2).
 *
 * channel  Every block, anywhere. Tags <name>...</name> for a set of names,
 *          or literal open/close pairs. A block closes only at its own
 *          closing tag; nothing nests. Hidden text streams to THOUGHT.
 * anchored One literal pair; the first opening tag counts only if it starts
 *          at code-point index <= grace_period; one block is removed; an
 *          unterminated block is given back as text, so the block is held
 *          until its closing tag (max_block caps that).
 *
 * format   A model family's reasoning format (think_formats.c): channel
 *          mode's scanner, with the patterns of the part of the stream it
 *          is in (fmt_enter). Three parts are decided at their first byte
 *          but whitespace, where an opening tag may stand (the optional one
 *          of a block the template opened, granite's marker, the wrapper
 *          that opens the answer); the others route content as channel mode
 *          does, fast paths and all.
 *
 * One scanner serves every mode. The only bytes held back between feed calls
 * are a trailing proper prefix of a tag that is still possible (fewer than
 * the longest tag), plus, in anchored mode, an open block.
 */
#include "sluice_private.h"

#include <string.h>

#define MAX_TAG_BYTES SLUICE_THINK_MAX_LITERAL
#define MAX_BLOCKS SLUICE_THINK_MAX_TAGS

typedef struct block_def {
  char *open, *close, *tag; /* NUL-terminated copies */
  size_t open_n, close_n, tag_n;
} block_def;

/* A set of literal patterns active in one state, with a table of the bytes a
 * pattern can start with, so the scan skips everything else. */
typedef struct pset {
  const char **s;
  size_t *n;
  size_t count;
  uint8_t first[256];
  uint8_t second[256]; /* bytes a pattern can have at index 1 (any if a pattern is 1 byte) */
  uint8_t third[256];  /* likewise at index 2 (any if a pattern has at most 2 bytes) */
  int nfirst;    /* distinct first bytes */
  size_t minlen; /* the shortest pattern */
  uint8_t byte0; /* the first byte when nfirst == 1 */
  uint64_t byte0x8; /* byte0 in each of the 8 bytes of a word */
  /* A test (x | m) == v that every second byte passes (and some others:
   * m has the bits in which they differ), in each byte of a word. */
  uint64_t pair_m8, pair_v8;
  /* The vector prefilter: a position may start a pattern when its byte is
   * one of vf and the next byte x has (x | vm[k]) == vs[k] for some k (a
   * letter in either case is one test). A superset of first[] and second[]:
   * next_candidate checks every position it reports with the tables. */
  int vector;        /* 0: too many distinct bytes, scan with the tables;
                        2: one first byte, at most two tests each after it */
  uint8_t vf[4];     /* first bytes, padded by repeating */
  uint8_t vs[4], vm[4]; /* second-byte tests, padded */
  uint8_t vt[4], vtm[4]; /* third-byte tests, likewise */
} pset;

enum phase { SEEK, BLOCK, CLOSE_ONLY, PASS };

typedef struct think {
  sluice_filter base;
  sluicep_buf hold;
  size_t maxpat;
  int ci;
  sluice_think_mode mode;
  block_def *blocks;
  size_t nblocks;
  pset opens;   /* every opening literal */
  pset *closes; /* one closing literal per block */
  /* channel mode */
  int inside; /* block index, or -1 */
  const pset *cur;        /* the patterns active now: opens, or the block's close */
  sluice_channel cur_ch;  /* where content goes now: TEXT, or THOUGHT inside */
  /* cur while nothing is held and every pattern of cur starts with one
   * byte, NULL otherwise (and in anchored mode): think_feed's quick test.
   * Only the full path changes state, and it sets this at its end. */
  const pset *quick;
  uint64_t thought_start;
  /* anchored mode */
  enum phase phase;
  uint64_t grace;
  uint64_t cp; /* code points consumed while seeking */
  sluicep_u8 u8;
  int expect_only_closing;
  sluice_missing_close missing_close;
  size_t max_block;
  sluicep_buf open_seen; /* the opening tag as written */
  sluicep_buf block;     /* held block text */
  /* Stream offsets, so an error names the same byte for every chunking. */
  uint64_t consumed;      /* bytes consumed before the current process call */
  const char *proc_start; /* the buffer of the current process call */
  /* where a stream starts (start_in, expect_only_closing): for sluice_reset */
  int start_inside;
  enum phase start_phase;
  int start_fstate; /* format mode: the part the stream starts in */
  /* format mode (fmt set; mode is channel): the part of the stream and
   * its patterns. In F_OUT's set the first fn_open patterns open a block
   * and the rest are answer wrappers; in F_IN's the first fn_close close
   * it and the rest are implicit ends. */
  const sluicep_think_format_def *fmt;
  int fstate;
  pset fsets[6];
  size_t fn_open, fn_close;
  int answer;     /* the state the answer starts in: F_ANSWER, or F_DONE for a
                     family without answer wrappers */
  int after;      /* the state a block's end leads to: answer, or F_OUT */
  int plain;      /* content goes to cur_ch as it is and only a whole tag
                     changes the state: the fast paths may route it (channel
                     mode, and every format state but the three first ones) */
} think;

/* Format states. The first three are decided by their first bytes but
 * whitespace. F_LEAD: inside the block the template opened (an opening tag
 * is markup). F_FIRST: outside (granite: only here may the block open).
 * F_ANSWER: the answer after the block, or the whole stream with thinking
 * off (a wrapper that opens the answer is markup). Then F_OUT: outside,
 * blocks open anywhere (and an answer wrapper). F_IN: inside. F_WRAPPED:
 * in the answer its wrapper opened, until the wrapper that closes it.
 * F_DONE: the rest, text. */
enum { F_LEAD, F_FIRST, F_ANSWER, F_OUT, F_IN, F_WRAPPED, F_DONE };
/* fsets[]: the opening tags alone, the answer's opening wrappers alone,
 * F_OUT's (opening tags, then opening wrappers), F_IN's (closing tags, then
 * implicit ends), the closing wrappers, none (F_DONE). */
enum { FS_OPENS, FS_AOPEN, FS_OUT, FS_IN, FS_ACLOSE, FS_DONE };

static uint8_t fold(uint8_t c) { return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c; }
static uint8_t upper(uint8_t c) { return (c >= 'a' && c <= 'z') ? (uint8_t)(c - 32) : c; }

static int pset_init(think *t, pset *ps, size_t count) {
  memset(ps, 0, sizeof *ps);
  ps->s = sluicep_calloc(&t->base.mem, count * sizeof *ps->s);
  ps->n = sluicep_calloc(&t->base.mem, count * sizeof *ps->n);
  if (!ps->s || !ps->n) return -1;
  ps->count = 0;
  return 0;
}

static void pset_add(think *t, pset *ps, const char *s, size_t n) {
  ps->s[ps->count] = s;
  ps->n[ps->count] = n;
  ps->count++;
  uint8_t b = (uint8_t)s[0];
  uint8_t forms[2] = {b, b};
  if (t->ci && b >= 'a' && b <= 'z') forms[1] = (uint8_t)(b - 32);
  if (t->ci && b >= 'A' && b <= 'Z') forms[1] = (uint8_t)(b + 32);
  for (int i = 0; i < 2; i++)
    if (!ps->first[forms[i]]) {
      ps->first[forms[i]] = 1;
      ps->nfirst++;
      ps->byte0 = forms[i];
      ps->byte0x8 = 0x0101010101010101ULL * forms[i];
    }
  if (n == 1) {
    memset(ps->second, 1, sizeof ps->second);
  } else {
    uint8_t c = (uint8_t)s[1];
    ps->second[c] = 1;
    if (t->ci) {
      ps->second[fold(c)] = 1;
      ps->second[upper(c)] = 1;
    }
  }
  if (n > t->maxpat) t->maxpat = n;
  if (ps->minlen == 0 || n < ps->minlen) ps->minlen = n;
}

/* The tables hold a few bytes of 256: their members are found a word at
 * a time, so that building a filter costs little (a pipeline builds one
 * per choice, a middleware one per response). */

/* The first member of `set` at c or after, 256 when none. */
static int next_member(const uint8_t set[256], int c) {
  while (c < 256) {
    if ((c & 7) == 0) {
      uint64_t w;
      memcpy(&w, set + c, sizeof w);
      if (w == 0) {
        c += 8;
        continue;
      }
    }
    if (set[c]) return c;
    c++;
  }
  return 256;
}

static int every_byte(const uint8_t set[256]) {
  for (int c = 0; c < 256; c += 8) {
    uint64_t w;
    memcpy(&w, set + c, sizeof w);
    if (w != 0x0101010101010101ULL) return 0;
  }
  return 1;
}

/* The tests (x | m[k]) == v[k] that accept every byte of `set` (a letter
 * and its other case are one test); 0 if more than four are needed. A set
 * of every byte is one test that accepts all (0xFF | x == 0xFF). */
static int byte_tests(const uint8_t set[256], uint8_t v[4], uint8_t m[4]) {
  int n = 0;
  if (every_byte(set)) {
    v[0] = m[0] = 0xFF;
    n = 1;
  } else {
    for (int c = next_member(set, 0); c < 256; c = next_member(set, c + 1)) {
      int letter = (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
      if (letter && (c & 0x20) == 0 && set[c | 0x20]) continue; /* with its lower case */
      if (n == 4) return 0;
      v[n] = (uint8_t)c;
      m[n] = 0;
      if (letter && set[c ^ 0x20]) v[n] = (uint8_t)(c | 0x20), m[n] = 0x20;
      n++;
    }
  }
  for (int k = n; k < 4; k++) v[k] = v[0], m[k] = m[0];
  return n;
}

/* Builds the vector prefilter once every pattern is in. */
static void pset_vector(const think *t, pset *ps) {
  uint8_t all = 0xFF, any = 0;
  for (int c = next_member(ps->second, 0); c < 256; c = next_member(ps->second, c + 1))
    all &= (uint8_t)c, any |= (uint8_t)c;
  ps->pair_m8 = 0x0101010101010101ULL * (uint8_t)(all ^ any);
  ps->pair_v8 = 0x0101010101010101ULL * any;
  uint8_t *third = ps->third;
  memset(third, 0, sizeof ps->third);
  for (size_t j = 0; j < ps->count; j++) {
    if (ps->n[j] < 3) {
      memset(third, 1, sizeof ps->third);
      break;
    }
    uint8_t c = (uint8_t)ps->s[j][2];
    third[c] = 1;
    if (t->ci) third[fold(c)] = third[upper(c)] = 1;
  }
  int nf = 0;
  for (int c = next_member(ps->first, 0); c < 256; c = next_member(ps->first, c + 1)) {
    if (nf == 4) return; /* ps->vector stays 0 */
    ps->vf[nf++] = (uint8_t)c;
  }
  for (int k = nf; k < 4; k++) ps->vf[k] = ps->vf[0];
  int ns = byte_tests(ps->second, ps->vs, ps->vm), nt = byte_tests(third, ps->vt, ps->vtm);
  ps->vector = nf == 0 || !ns || !nt ? 0 : nf == 1 && ns <= 2 && nt <= 2 ? 2 : 1;
}

static void pset_free(think *t, pset *ps) {
  sluicep_dealloc(&t->base.mem, (void *)ps->s);
  sluicep_dealloc(&t->base.mem, ps->n);
}

/* ---------------- the prefilter ----------------
 * The scan for the next position where a pattern may start is the whole
 * cost on large chunks, so it looks at two bytes per position, 16 or 32
 * positions at a time: SSE2 is always there on x86-64, AVX2 is chosen at
 * run time, and the portable loop serves other machines (and every one
 * in a SLUICE_PORTABLE build, src/core/portable.h) and the tails.
 * Each reports a superset of the positions the tables accept, and
 * next_candidate confirms with the tables, so the output is byte for byte
 * the same whichever runs (tests/test_think.c forces each and compares). */

int sluicep_think_prefilter = -1;

int sluicep_think_prefilter_best(void) {
#if SLUICEP_HAVE_X86_DISPATCH
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? SLUICEP_PREFILTER_AVX2 : SLUICEP_PREFILTER_SSE2;
#else
  return SLUICEP_PREFILTER_PORTABLE;
#endif
}

/* Can a pattern start at p[i] (as far as p[0..n) shows)? */
static inline int may_start(const pset *ps, const uint8_t *p, size_t i, size_t n) {
  return ps->first[p[i]] && (i + 1 >= n || (ps->second[p[i + 1]] && (i + 2 >= n || ps->third[p[i + 2]])));
}

static inline SLUICEP_ALWAYS_INLINE size_t scan_portable(const pset *ps, const uint8_t *p,
                                                         size_t i, size_t n) {
  while (i < n && !may_start(ps, p, i, n)) i++;
  return i;
}

#if SLUICEP_HAVE_X86_DISPATCH
#include <immintrin.h>

/* A mask of the positions in p[0..16) whose three bytes pass the tests. */
#define TESTS(pfx, T, set1, cmpeq, or_, and_)                                            \
  T f0 = set1((char)ps->vf[0]), f1 = set1((char)ps->vf[1]), f2 = set1((char)ps->vf[2]), \
    f3 = set1((char)ps->vf[3]);                                                          \
  T s0 = set1((char)ps->vs[0]), s1 = set1((char)ps->vs[1]), s2 = set1((char)ps->vs[2]), \
    s3 = set1((char)ps->vs[3]);                                                          \
  T m0 = set1((char)ps->vm[0]), m1 = set1((char)ps->vm[1]), m2 = set1((char)ps->vm[2]), \
    m3 = set1((char)ps->vm[3]);                                                          \
  T t0 = set1((char)ps->vt[0]), t1 = set1((char)ps->vt[1]), t2 = set1((char)ps->vt[2]), \
    t3 = set1((char)ps->vt[3]);                                                          \
  T n0 = set1((char)ps->vtm[0]), n1 = set1((char)ps->vtm[1]),                           \
    n2 = set1((char)ps->vtm[2]), n3 = set1((char)ps->vtm[3]);                           \
  (void)f1, (void)f2, (void)f3, (void)s2, (void)s3, (void)m2, (void)m3, (void)t2, (void)t3, \
      (void)n2, (void)n3
#define ANY4(x, a, b, c, d, cmpeq, or_) or_(or_(cmpeq(x, a), cmpeq(x, b)), or_(cmpeq(x, c), cmpeq(x, d)))
#define ANY4M(x, a, b, c, d, ma, mb, mc, md, cmpeq, or_)                                 \
  or_(or_(cmpeq(or_(x, ma), a), cmpeq(or_(x, mb), b)), or_(cmpeq(or_(x, mc), c), cmpeq(or_(x, md), d)))
#define ANY2M(x, a, b, ma, mb, cmpeq, or_) or_(cmpeq(or_(x, ma), a), cmpeq(or_(x, mb), b))
/* the common case (one first byte, two tests after it) in half the work */
#define HITS2(x, y, z, cmpeq, or_, and_)                                                 \
  and_(and_(cmpeq(x, f0), ANY2M(y, s0, s1, m0, m1, cmpeq, or_)), ANY2M(z, t0, t1, n0, n1, cmpeq, or_))
#define HITS(x, y, z, cmpeq, or_, and_)                                                  \
  and_(and_(ANY4(x, f0, f1, f2, f3, cmpeq, or_), ANY4M(y, s0, s1, s2, s3, m0, m1, m2, m3, cmpeq, or_)), \
       ANY4M(z, t0, t1, t2, t3, n0, n1, n2, n3, cmpeq, or_))

#define SCAN_SSE2(name, H)                                                                \
  static size_t name(const pset *ps, const uint8_t *p, size_t i, size_t n) {              \
    TESTS(sse, __m128i, _mm_set1_epi8, _mm_cmpeq_epi8, _mm_or_si128, _mm_and_si128);      \
    for (; i + 34 <= n; i += 32) {                                                        \
      __m128i h0 = H(LD16(p + i), LD16(p + i + 1), LD16(p + i + 2), _mm_cmpeq_epi8,       \
                     _mm_or_si128, _mm_and_si128);                                        \
      __m128i h1 = H(LD16(p + i + 16), LD16(p + i + 17), LD16(p + i + 18), _mm_cmpeq_epi8, \
                     _mm_or_si128, _mm_and_si128);                                        \
      unsigned mask = (unsigned)_mm_movemask_epi8(h0) | (unsigned)_mm_movemask_epi8(h1) << 16; \
      if (mask) return i + (size_t)__builtin_ctz(mask);                                   \
    }                                                                                     \
    return scan_portable(ps, p, i, n);                                                    \
  }
#define LD16(q) _mm_loadu_si128((const __m128i *)(const void *)(q))
SCAN_SSE2(scan_sse2_any, HITS)
SCAN_SSE2(scan_sse2_small, HITS2)

static size_t scan_sse2(const pset *ps, const uint8_t *p, size_t i, size_t n) {
  return ps->vector == 2 ? scan_sse2_small(ps, p, i, n) : scan_sse2_any(ps, p, i, n);
}

#define SCAN_AVX2(name, H)                                                                \
  __attribute__((target("avx2"))) static size_t name(const pset *ps, const uint8_t *p,   \
                                                      size_t i, size_t n) {               \
    TESTS(avx, __m256i, _mm256_set1_epi8, _mm256_cmpeq_epi8, _mm256_or_si256,            \
          _mm256_and_si256);                                                              \
    for (; i + 66 <= n; i += 64) {                                                        \
      __m256i h0 = H(LD32(p + i), LD32(p + i + 1), LD32(p + i + 2), _mm256_cmpeq_epi8,    \
                     _mm256_or_si256, _mm256_and_si256);                                  \
      __m256i h1 = H(LD32(p + i + 32), LD32(p + i + 33), LD32(p + i + 34),                \
                     _mm256_cmpeq_epi8, _mm256_or_si256, _mm256_and_si256);              \
      uint64_t mask = (uint64_t)(uint32_t)_mm256_movemask_epi8(h0) |                      \
                      (uint64_t)(uint32_t)_mm256_movemask_epi8(h1) << 32;                 \
      if (mask) return i + (size_t)__builtin_ctzll(mask);                                 \
    }                                                                                     \
    return scan_sse2(ps, p, i, n);                                                        \
  }
#define LD32(q) _mm256_loadu_si256((const __m256i *)(const void *)(q))
SCAN_AVX2(scan_avx2_any, HITS)
SCAN_AVX2(scan_avx2_small, HITS2)

static size_t scan_avx2(const pset *ps, const uint8_t *p, size_t i, size_t n) {
  return ps->vector == 2 ? scan_avx2_small(ps, p, i, n) : scan_avx2_any(ps, p, i, n);
}
#endif

static int prefilter_impl(void) {
  if (sluicep_think_prefilter < 0) sluicep_think_prefilter = sluicep_think_prefilter_best();
  return sluicep_think_prefilter;
}

/* The first position in [i, n) where a pattern of ps may start, or n: its
 * byte can start a pattern and the next byte (if any) can follow it. Most
 * '<' in prose and code are no tag, and fail on the second byte here. */
static size_t next_candidate(const pset *ps, const char *cp, size_t i, size_t n) {
  const uint8_t *p = (const uint8_t *)cp;
  if (n - i < 32 || !ps->vector) return scan_portable(ps, p, i, n);
  for (;;) {
    switch (prefilter_impl()) {
#if SLUICEP_HAVE_X86_DISPATCH
    case SLUICEP_PREFILTER_AVX2: i = scan_avx2(ps, p, i, n); break;
    case SLUICEP_PREFILTER_SSE2: i = scan_sse2(ps, p, i, n); break;
#endif
    default: return scan_portable(ps, p, i, n);
    }
    if (i >= n || may_start(ps, p, i, n)) return i;
    i++; /* the vector test is a superset: not this one */
  }
}

enum match { NONE, PARTIAL, FULL };

/* Leftmost-longest: at p[0..avail), the longest full match wins, unless a
 * longer pattern is still possible (then the caller must wait for bytes). */
static enum match match_at(const think *t, const pset *ps, const char *p, size_t avail, int final,
                           size_t *which) {
  /* Most candidates (a '<' in prose or code) fail on their second byte. */
  if (avail >= 2 && !ps->second[(uint8_t)p[1]]) return NONE;
  size_t best_len = 0, pending_len = 0;
  int have_full = 0;
  for (size_t j = 0; j < ps->count; j++) {
    size_t len = ps->n[j];
    size_t k = len < avail ? len : avail;
    size_t m = 0;
    if (t->ci) {
      while (m < k && fold((uint8_t)p[m]) == fold((uint8_t)ps->s[j][m])) m++;
    } else {
      while (m < k && p[m] == ps->s[j][m]) m++;
    }
    if (m < k) continue;
    if (k == len) {
      if (!have_full || len > best_len) {
        have_full = 1;
        best_len = len;
        *which = j;
      }
    } else if (!final && len > pending_len) {
      pending_len = len;
    }
  }
  if (pending_len > (have_full ? best_len : 0)) return PARTIAL;
  return have_full ? FULL : NONE;
}

/* ---------------- content routing ---------------- */

static int hold_block(think *t, const char *p, size_t n) {
  if (n == 0) return 0;
  if (t->max_block && t->block.len + n > t->max_block) {
    /* the first byte that does not fit */
    uint64_t at = t->consumed + (uint64_t)(p - t->proc_start) + (t->max_block - t->block.len);
    sluicep_fail(&t->base, SLUICE_LIMIT, at,
                 "a thinking block exceeded max_block (%zu bytes) before its closing tag",
                 t->max_block);
    return 1;
  }
  if (sluicep_buf_append(&t->block, p, n)) {
    sluicep_fail(&t->base, SLUICE_NOMEM, t->base.at, "out of memory holding a thinking block");
    return 1;
  }
  return 0;
}

/* Routes content bytes (not tags) according to the current state. */
static int content(think *t, const char *p, size_t n) {
  if (n == 0) return 0;
  if (t->mode == SLUICE_THINK_CHANNEL)
    return sluicep_emit(&t->base, t->inside >= 0 ? SLUICE_THOUGHT : SLUICE_TEXT, p, n);
  switch (t->phase) {
  case BLOCK: return hold_block(t, p, n);
  case CLOSE_ONLY:
    if (t->missing_close == SLUICE_MISSING_CLOSE_KEEP) return hold_block(t, p, n);
    return sluicep_emit(&t->base, SLUICE_THOUGHT, p, n);
  default: return sluicep_emit(&t->base, SLUICE_TEXT, p, n);
  }
}

static int thought_record(think *t, const block_def *b, int complete) {
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_THOUGHT;
  ev.name = b->tag;
  ev.name_len = b->tag_n;
  ev.offset = t->thought_start;
  ev.length = t->base.chan_bytes[SLUICE_THOUGHT] - t->thought_start;
  ev.complete = complete;
  return sluicep_event(&t->base, &ev);
}

/* Channel mode: inside block i (or outside, -1), with the fast path's view
 * of it. */
static void set_inside(think *t, int i) {
  t->inside = i;
  t->cur = i >= 0 ? &t->closes[i] : &t->opens;
  t->cur_ch = i >= 0 ? SLUICE_THOUGHT : SLUICE_TEXT;
}

/* Format mode: enters a part of the stream, with its patterns and the
 * channel its content goes to. */
static void fmt_enter(think *t, int st) {
  static const struct {
    int set, inside, plain;
  } part[] = {[F_LEAD] = {FS_OPENS, 0, 0},     [F_FIRST] = {FS_OPENS, -1, 0},
              [F_ANSWER] = {FS_AOPEN, -1, 0},  [F_OUT] = {FS_OUT, -1, 1},
              [F_IN] = {FS_IN, 0, 1},          [F_WRAPPED] = {FS_ACLOSE, -1, 1},
              [F_DONE] = {FS_DONE, -1, 1}};
  t->fstate = st;
  t->cur = &t->fsets[part[st].set];
  t->inside = part[st].inside;
  t->cur_ch = t->inside >= 0 ? SLUICE_THOUGHT : SLUICE_TEXT;
  t->plain = part[st].plain;
}

/* Format mode: pattern `which` of the current set matched at p (len
 * bytes). Sets *used to the bytes it consumed: an implicit end consumes
 * none, so that it is read again in the state it leads to (an answer
 * wrapper there is MARKUP, a tool call TEXT). */
static int fmt_tag(think *t, size_t which, const char *p, size_t len, size_t *used) {
  *used = len;
  switch (t->fstate) {
  case F_FIRST:
  case F_OUT:
    if (t->fstate == F_OUT && which >= t->fn_open) { /* an answer wrapper */
      fmt_enter(t, F_WRAPPED);
      break;
    }
    fmt_enter(t, F_IN);
    t->thought_start = t->base.chan_bytes[SLUICE_THOUGHT];
    break;
  case F_LEAD: fmt_enter(t, F_IN); break; /* the optional opening tag */
  case F_IN:
    if (which >= t->fn_close) *used = 0; /* an implicit end */
    else if (sluicep_emit(&t->base, SLUICE_MARKUP, p, len)) return 1;
    fmt_enter(t, t->after);
    return thought_record(t, &t->blocks[0], 1);
  case F_ANSWER: fmt_enter(t, F_WRAPPED); break;
  default: fmt_enter(t, F_DONE); break; /* F_WRAPPED: the closing wrapper */
  }
  return sluicep_emit(&t->base, SLUICE_MARKUP, p, len);
}

/* Format mode, F_LEAD, F_FIRST and F_ANSWER: p[0..n) holds the first bytes
 * but whitespace (ASCII space, tab, LF, CR) that decide the part. An opening
 * tag (or wrapper) there is markup; anything else leaves for the part that
 * follows (F_IN inside the block, the answer after a missed block, F_DONE
 * after a missed wrapper), where it is read again. Returns the bytes
 * consumed, or n when the filter stopped; a partial tag (not final)
 * consumes nothing. */
static size_t fmt_first(think *t, const char *p, size_t n, int final) {
  size_t which = 0;
  enum match m = match_at(t, t->cur, p, n, final, &which);
  if (m == PARTIAL) return 0;
  if (m == NONE) {
    fmt_enter(t, t->fstate == F_LEAD ? F_IN : t->fstate == F_FIRST ? t->answer : F_DONE);
    return 0;
  }
  size_t len = t->cur->n[which], used;
  return fmt_tag(t, which, p, len, &used) ? n : used;
}

static int is_blank(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* A pattern matched at p (len bytes): the state transition. */
static int on_tag(think *t, size_t which, const char *p, size_t len) {
  if (t->mode == SLUICE_THINK_CHANNEL) {
    if (t->inside < 0) {
      set_inside(t, (int)which);
      if (sluicep_emit(&t->base, SLUICE_MARKUP, p, len)) return 1;
      t->thought_start = t->base.chan_bytes[SLUICE_THOUGHT];
      return 0;
    }
    if (sluicep_emit(&t->base, SLUICE_MARKUP, p, len)) return 1;
    int rc = thought_record(t, &t->blocks[t->inside], 1);
    set_inside(t, -1);
    return rc;
  }
  switch (t->phase) {
  case SEEK:
    t->phase = BLOCK;
    if (sluicep_buf_append(&t->open_seen, p, len)) {
      sluicep_fail(&t->base, SLUICE_NOMEM, t->base.at, "out of memory");
      return 1;
    }
    return 0;
  case BLOCK:
  case CLOSE_ONLY:
    t->thought_start = t->base.chan_bytes[SLUICE_THOUGHT];
    if (t->phase == BLOCK && sluicep_emit(&t->base, SLUICE_MARKUP, t->open_seen.ptr,
                                          t->open_seen.len))
      return 1;
    if (t->phase == CLOSE_ONLY && t->missing_close == SLUICE_MISSING_CLOSE_EMPTY)
      t->thought_start = 0; /* the hidden text streamed from the start */
    if (sluicep_emit(&t->base, SLUICE_THOUGHT, t->block.ptr, t->block.len)) return 1;
    sluicep_buf_free(&t->block);
    if (sluicep_emit(&t->base, SLUICE_MARKUP, p, len)) return 1;
    t->phase = PASS;
    return thought_record(t, &t->blocks[0], 1);
  default: return 0;
  }
}

static const pset *active(const think *t) {
  if (t->fmt) return t->cur->count ? t->cur : NULL; /* none: the rest is answer */
  if (t->mode == SLUICE_THINK_CHANNEL) return t->inside >= 0 ? &t->closes[t->inside] : &t->opens;
  switch (t->phase) {
  case SEEK: return &t->opens;
  case BLOCK:
  case CLOSE_ONLY: return &t->closes[0];
  default: return NULL;
  }
}

/* Counts the code points of p[0..n) while seeking; leaves SEEK for PASS once
 * no opening tag can start inside the grace window any more. */
static void seek_count(think *t, const char *p, size_t n) {
  for (size_t i = 0; i < n && t->phase == SEEK; i++) {
    t->cp += (uint64_t)sluicep_u8_step(&t->u8, (uint8_t)p[i], NULL);
    if (t->cp > t->grace) t->phase = PASS;
  }
}

static size_t process_buf(think *t, const char *p, size_t n, int final);

static size_t think_process(sluice_filter *f, const char *p, size_t n, int final) {
  think *t = (think *)f;
  t->proc_start = p;
  size_t c = process_buf(t, p, n, final);
  t->consumed += c;
  return c;
}

static size_t process_buf(think *t, const char *p, size_t n, int final) {
  size_t i = 0;   /* scan position */
  size_t run = 0; /* start of the content not yet routed */
  while (i < n) {
    const pset *ps = active(t);
    if (!ps) break; /* passthrough: the rest is content */
    if (!t->plain) {
      /* a format's part decided by its first bytes but whitespace */
      size_t k = i;
      while (k < n && is_blank((uint8_t)p[k])) k++;
      if (k == n) break;
      if (content(t, p + run, k - run)) return n;
      int was = t->fstate;
      size_t used = fmt_first(t, p + k, n - k, final);
      if (t->base.err.status != SLUICE_OK) return n;
      if (!used && t->fstate == was) return k; /* a partial tag: hold it */
      i = run = k + used;
      continue;
    }
    size_t c = next_candidate(ps, p, i, n);
    if (t->phase == SEEK && t->mode == SLUICE_THINK_ANCHORED) {
      seek_count(t, p + i, c - i);
      /* A tag's first byte never continues a sequence (checked at creation),
       * so pending bytes before it count one each. */
      if (t->phase == SEEK && c < n && t->cp + t->u8.npend > t->grace) t->phase = PASS;
      if (t->phase != SEEK) break;
    }
    if (c >= n) break;
    size_t which = 0;
    enum match m = match_at(t, ps, p + c, n - c, final, &which);
    if (m == NONE) {
      /* Not a tag: the candidate byte is content, and stays in the run. */
      if (t->phase == SEEK && t->mode == SLUICE_THINK_ANCHORED) seek_count(t, p + c, 1);
      i = c + 1;
      continue;
    }
    if (content(t, p + run, c - run)) return n;
    if (m == PARTIAL) return c; /* hold back from the candidate */
    size_t len = ps->n[which];
    if (t->fmt) {
      if (fmt_tag(t, which, p + c, len, &len)) return n;
    } else if (on_tag(t, ps == &t->opens ? which : (size_t)(t->inside >= 0 ? t->inside : 0),
                      p + c, len)) {
      return n;
    }
    i = run = c + len;
  }
  content(t, p + run, n - run);
  return n;
}

static SLUICEP_NOINLINE sluice_status think_feed_slow(sluice_filter *f, const char *p, size_t n) {
  think *t = (think *)f;
  return sluicep_held_feed(f, &t->hold, t->maxpat, think_process, p, n);
}

/* Channel mode, a chunk whose p[c..n) may begin a tag: p[0..c) is content
 * and p[c..n) is held for the next chunk. */
static sluice_status hold_tail(think *t, const char *p, size_t c, size_t n) {
  t->consumed += c;
  if (sluicep_emit(&t->base, t->cur_ch, p, c)) return t->base.err.status;
  for (size_t k = c; k < n; k++) t->hold.ptr[k - c] = p[k]; /* reserved: a tag's length */
  t->hold.len = n - c;
  t->quick = NULL; /* something is held */
  return t->base.err.status;
}

static sluice_status think_feed(sluice_filter *f, const char *p, size_t n);

/* Everything but the commonest token-sized chunk. */
static sluice_status feed_rest(sluice_filter *f, const char *p, size_t n) {
  think *t = (think *)f;
  if (t->mode == SLUICE_THINK_CHANNEL && t->plain && n < 64) {
    const pset *ps = t->cur;
    const uint8_t *u = (const uint8_t *)p;
    if (t->hold.len) {
      /* A lone held first byte that this chunk's first byte cannot follow
       * is content (what process_buf would decide); anything else takes
       * the full path. */
      if (t->hold.len != 1 || ps->second[u[0]]) return think_feed_slow(f, p, n);
      t->hold.len = 0;
      t->consumed++;
      if (sluicep_emit(f, t->cur_ch, t->hold.ptr, 1)) return f->err.status;
      /* nothing held now: the chunk as if it came first (the quick path
       * when it applies; it comes back here with nothing held otherwise) */
      if (ps->nfirst == 1) {
        t->quick = ps;
        return think_feed(f, p, n);
      }
    }
    /* The candidates, decided here when they are no tag or a tag cut by
     * the chunk's end (held); a whole tag changes state: the full path. */
    for (size_t c = scan_portable(ps, u, 0, n);; c = scan_portable(ps, u, c + 1, n)) {
      if (c == n) {
        t->consumed += n;
        sluicep_emit(f, t->cur_ch, p, n);
        return f->err.status;
      }
      size_t which;
      /* a lone first byte at the end is the start of every longer pattern */
      enum match r = n - c == 1 && ps->minlen > 1 ? PARTIAL : match_at(t, ps, p + c, n - c, 0, &which);
      if (r == FULL) break;
      if (r == PARTIAL) return hold_tail(t, p, c, n);
    }
  } else if (t->phase == PASS && t->mode == SLUICE_THINK_ANCHORED && t->hold.len == 0) {
    /* anchored mode after its one block, or past the grace window: text */
    t->consumed += n;
    sluicep_emit(f, SLUICE_TEXT, p, n);
    return f->err.status;
  }
  return think_feed_slow(f, p, n);
}

static void set_quick(think *t) {
  t->quick = t->mode == SLUICE_THINK_CHANNEL && t->plain && t->hold.len == 0 && t->cur->nfirst == 1
                 ? t->cur
                 : NULL;
}

/* Out of line, so that the quick path in think_feed needs no stack frame. */
static SLUICEP_NOINLINE sluice_status think_feed_rest(sluice_filter *f, const char *p, size_t n) {
  sluice_status st = feed_rest(f, p, n);
  set_quick((think *)f);
  return st;
}

/* A token-sized chunk in channel mode, nothing held, with a byte that may
 * start a tag (q = t->quick): most such bytes start none (a '<' in prose
 * or markup), and the chunk is content as it is; a lone first byte at the
 * end is held. Anything else takes the full path. */
static SLUICEP_NOINLINE sluice_status think_feed_hit(sluice_filter *f, const char *p, size_t n) {
  think *t = (think *)f;
  const pset *q = t->quick;
  const uint8_t *u = (const uint8_t *)p;
  size_t c = 0;
  while (c < n && (u[c] != q->byte0 || !may_start(q, u, c, n))) c++;
  if (c == n) {
    if (sluicep_emit_ok(f, t->cur_ch, p, n)) return f->err.status;
    return SLUICE_OK;
  }
  if (c + 1 < n || q->minlen == 1) return think_feed_rest(f, p, n);
  return hold_tail(t, p, c, n); /* a lone first byte at the end */
}

static SLUICEP_COLD sluice_status think_emit_failed(sluice_filter *f) {
  sluicep_callback_failed(f, ((think *)f)->cur_ch);
  return f->err.status;
}

/* Aligned to a cache line: the token-sized paths are a few dozen
 * instructions run once per chunk, and where they fall across fetch
 * blocks moved 1-byte chunks by 7 to 10% between builds that differed
 * only elsewhere in this function. */
static SLUICEP_ALIGN_FN(64) sluice_status think_feed(sluice_filter *f, const char *p, size_t n) {
  think *t = (think *)f;
  const pset *q = t->quick;
  if (!q) return think_feed_rest(f, p, n);
  /* Token-sized chunks: most hold no byte that can start a tag, and are
   * content as they are. (Channel mode keeps no stream offsets: no limit
   * applies to it.) */
  if (n == 1) {
    if ((uint8_t)p[0] == q->byte0) return think_feed_hit(f, p, n);
  } else if (n - 4 <= 4) {
    /* 4 to 8 bytes in two overlapping words, the last four in the low
     * half. A candidate is byte0 followed by a byte that passes the second
     * byte's test, or byte0 at the end of a half (bytes 3 and 7: the
     * chunk's last byte, and one whose successor the word does not show).
     * In c, byte k is zero for byte0 at k and a passing byte at k + 1 (at
     * the ends of the halves, only the first); the zero test may also flag
     * a byte above a true zero, never miss one. Most '<' in prose and
     * markup pass here. */
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + n - 4, 4);
    uint64_t w = (uint64_t)a << 32 | b;
    uint64_t c = (w ^ q->byte0x8) | ((((w | q->pair_m8) ^ q->pair_v8) >> 8) & 0x00FFFFFF00FFFFFFULL);
    if ((c - 0x0101010101010101ULL) & ~c & 0x8080808080808080ULL) return think_feed_hit(f, p, n);
  } else if (n < 4) {
    const uint8_t *u = (const uint8_t *)p;
    if (u[0] == q->byte0 || u[1] == q->byte0 || u[n - 1] == q->byte0) return think_feed_hit(f, p, n);
  } else {
    return think_feed_rest(f, p, n);
  }
  /* sluicep_emit_ok, keeping only f across the call */
  f->chan_bytes[t->cur_ch] += n;
  if (f->sink.emit(f->sink.user, t->cur_ch, p, n)) return think_emit_failed(f);
  return SLUICE_OK; /* sluice_feed saw no error */
}

static sluice_status think_finish(sluice_filter *f) {
  think *t = (think *)f;
  if (sluicep_held_finish(f, &t->hold, think_process) != SLUICE_OK) return f->err.status;
  if (t->mode == SLUICE_THINK_CHANNEL) {
    if (t->inside >= 0) thought_record(t, &t->blocks[t->inside], 0);
    return f->err.status;
  }
  if (t->phase == BLOCK) {
    /* Unterminated: the proxy gives the original text back. */
    if (sluicep_emit(f, SLUICE_TEXT, t->open_seen.ptr, t->open_seen.len)) return f->err.status;
    sluicep_emit(f, SLUICE_TEXT, t->block.ptr, t->block.len);
  } else if (t->phase == CLOSE_ONLY) {
    if (t->missing_close == SLUICE_MISSING_CLOSE_KEEP) {
      sluicep_emit(f, SLUICE_TEXT, t->block.ptr, t->block.len);
    } else {
      t->thought_start = 0;
      thought_record(t, &t->blocks[0], 0);
    }
  }
  return f->err.status;
}

static void think_destroy(sluice_filter *f) {
  think *t = (think *)f;
  sluice_mem *m = &f->mem;
  for (size_t i = 0; i < t->nblocks && t->blocks; i++) {
    sluicep_dealloc(m, t->blocks[i].open);
    sluicep_dealloc(m, t->blocks[i].close);
    sluicep_dealloc(m, t->blocks[i].tag);
  }
  sluicep_dealloc(m, t->blocks);
  pset_free(t, &t->opens);
  for (size_t i = 0; i < t->nblocks && t->closes; i++) pset_free(t, &t->closes[i]);
  sluicep_dealloc(m, t->closes);
  for (size_t i = 0; i < 6; i++) pset_free(t, &t->fsets[i]);
  sluicep_buf_free(&t->hold);
  sluicep_buf_free(&t->open_seen);
  sluicep_buf_free(&t->block);
}

/* sluice_reset: the stream state as the constructor leaves it; the
 * patterns, tables and buffers stay. */
static void think_reset(sluice_filter *f) {
  think *t = (think *)f;
  t->hold.len = 0;
  t->open_seen.len = 0;
  t->block.len = 0;
  t->thought_start = 0;
  t->cp = 0;
  memset(&t->u8, 0, sizeof t->u8);
  t->consumed = 0;
  t->proc_start = NULL;
  if (t->fmt) fmt_enter(t, t->start_fstate);
  else set_inside(t, t->start_inside);
  t->phase = t->start_phase;
  set_quick(t);
}

static const sluicep_vtable think_vt = {"think", think_feed, think_finish, think_destroy,
                                        think_reset};

/* ---------------- construction ---------------- */

void sluice_think_opts_init_size(sluice_think_opts *o, size_t size) {
  sluice_think_opts d;
  memset(&d, 0, sizeof d);
  d.mode = SLUICE_THINK_CHANNEL;
  d.case_insensitive = 1;
  d.grace_period = 100;
  d.missing_close = SLUICE_MISSING_CLOSE_EMPTY;
  d.format = SLUICE_THINK_FORMAT_NONE;
  d.thinking = -1;
  sluicep_opts_init(o, size, &d, sizeof d);
}

static const char *const default_tags[] = {"thought", "thinking", "think", "reasoning",
                                           "reflection"};

static int valid_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 64) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c <= 0x20 || c == 0x7F || c == '<' || c == '>' || c == '/') return 0;
  }
  return 1;
}

const char *sluicep_think_literal_problem(const char *s) {
  if (!s || !*s) return "must not be empty";
  if (strlen(s) > MAX_TAG_BYTES) return "must be at most 256 bytes";
  if (((unsigned char)s[0] & 0xC0) == 0x80)
    return "must not begin with a UTF-8 continuation byte";
  return NULL;
}

static char *concat3(const sluice_mem *m, const char *a, const char *b, const char *c) {
  size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
  char *s = sluicep_alloc(m, na + nb + nc + 1);
  if (!s) return NULL;
  memcpy(s, a, na);
  memcpy(s + na, b, nb);
  memcpy(s + na + nb, c, nc + 1);
  return s;
}

/* The format options: a family's format takes no other option but
 * thinking; gpt-oss is harmony's. */
static sluice_status format_validate(const sluice_think_opts *o, sluice_error *err) {
  if (o->format == SLUICE_THINK_FORMAT_AUTO)
    return sluicep_bad_option(err, "format \"auto\" is chosen by the model's name: a pipeline's "
                                   "(sluice_pipeline_opts.model), or sluice_think_opts_for_model");
  const sluicep_think_format_def *d = sluicep_think_format_def_of(o->format);
  if (!d) return sluicep_bad_option(err, "format %d is not a sluice_think_format", (int)o->format);
  if (o->thinking < -1 || o->thinking > 1)
    return sluicep_bad_option(err, "thinking must be -1 (the family's default), 0 or 1");
  if (d->harmony)
    return sluicep_bad_option(err, "format \"gpt-oss\" is harmony: use the harmony filter "
                                   "(sluice_harmony_new, filter \"harmony\")");
  if (o->format <= SLUICE_THINK_FORMAT_GENERIC) {
    if (o->thinking != -1)
      return sluicep_bad_option(err, "thinking applies to a model family's format");
    if (o->format == SLUICE_THINK_FORMAT_GENERIC && o->mode != SLUICE_THINK_CHANNEL)
      return sluicep_bad_option(err, "format \"generic\" is channel mode");
    return SLUICE_OK;
  }
  if (o->mode != SLUICE_THINK_CHANNEL || o->tags || o->pairs || o->start_in || o->start_tag ||
      o->end_tag || o->expect_only_closing)
    return sluicep_bad_option(err, "format \"%s\" has its own tags and start state: mode, tags, "
                                   "pairs, start_in and the anchored options do not apply",
                              d->name);
  return SLUICE_OK;
}

static sluice_status think_validate(const sluice_think_opts *o, sluice_error *err) {
  sluice_status st = format_validate(o, err);
  if (st != SLUICE_OK) return st;
  if (o->mode != SLUICE_THINK_CHANNEL && o->mode != SLUICE_THINK_ANCHORED)
    return sluicep_bad_option(err, "mode must be channel or anchored");
  if (o->missing_close != SLUICE_MISSING_CLOSE_EMPTY && o->missing_close != SLUICE_MISSING_CLOSE_KEEP)
    return sluicep_bad_option(err, "missing_close must be \"empty\" or \"keep\"");
  if (o->mode == SLUICE_THINK_CHANNEL) {
    if (o->tags && o->pairs) return sluicep_bad_option(err, "give either tags or pairs, not both");
    if ((o->tags && o->ntags == 0) || (o->pairs && o->npairs == 0))
      return sluicep_bad_option(err, "tags and pairs must not be empty lists");
    if (o->ntags > MAX_BLOCKS || o->npairs > MAX_BLOCKS)
      return sluicep_bad_option(err, "at most %d tags or pairs", MAX_BLOCKS);
    for (size_t i = 0; o->tags && i < o->ntags; i++)
      if (!o->tags[i] || !valid_name(o->tags[i]))
        return sluicep_bad_option(
            err, "tag name \"%s\" must be 1 to 64 bytes without spaces, controls, <, > or /",
            o->tags[i] ? o->tags[i] : "(null)");
    for (size_t i = 0; o->pairs && i < o->npairs; i++) {
      const char *why = sluicep_think_literal_problem(o->pairs[i].open);
      if (!why) why = sluicep_think_literal_problem(o->pairs[i].close);
      if (why) return sluicep_bad_option(err, "pair %zu: each string %s", i, why);
    }
    if (o->start_tag || o->end_tag)
      return sluicep_bad_option(err, "start_tag and end_tag are for anchored mode; use pairs");
  } else {
    const char *why;
    if (o->start_tag && (why = sluicep_think_literal_problem(o->start_tag)))
      return sluicep_bad_option(err, "start_tag %s", why);
    if (o->end_tag && (why = sluicep_think_literal_problem(o->end_tag)))
      return sluicep_bad_option(err, "end_tag %s", why);
    if (o->start_in)
      return sluicep_bad_option(err, "start_in is for channel mode; use expect_only_closing");
    if (o->tags || o->pairs) return sluicep_bad_option(err, "tags and pairs are for channel mode");
  }
  return SLUICE_OK;
}

static int add_block(think *t, const char *open, const char *close, const char *tag) {
  block_def *b = &t->blocks[t->nblocks];
  b->open = sluicep_strdup(&t->base.mem, open);
  b->close = sluicep_strdup(&t->base.mem, close);
  b->tag = sluicep_strdup(&t->base.mem, tag);
  t->nblocks++;
  if (!b->open || !b->close || !b->tag) return -1;
  b->open_n = strlen(open);
  b->close_n = strlen(close);
  b->tag_n = strlen(tag);
  return 0;
}

/* An empty set (a format's answer after its block, with no answer
 * wrappers) that still takes think_feed's token-sized path, where a chunk is
 * content after a word test of its bytes: its one "first byte" is 0xFF,
 * which UTF-8 text never holds, no byte passes its second-byte test, and
 * first[] stays empty, so the rare 0xFF that reaches the full paths starts
 * nothing either. Without it the answer, most of a stream, would take the
 * slower path of a chunk with no quick test. */
static void pset_never(pset *ps) {
  ps->nfirst = 1;
  ps->byte0 = 0xFF;
  ps->byte0x8 = 0x0101010101010101ULL * 0xFF;
  ps->pair_m8 = 0x0101010101010101ULL * 0xFF; /* (x | 0xFF) ^ 0 is never 0 */
  ps->pair_v8 = 0;
}

/* Adds a NULL-terminated list to a set; returns how many. */
static size_t pset_add_list(think *t, pset *ps, const char *const *list) {
  size_t k = 0;
  for (; list[k]; k++) pset_add(t, ps, list[k], strlen(list[k]));
  return k;
}

static size_t list_len(const char *const *list) {
  size_t k = 0;
  while (list[k]) k++;
  return k;
}

/* Format mode: the six sets of the format's patterns and the state the
 * stream starts in. The strings are the table's, never copied. */
static int fmt_build(think *t, const sluicep_think_format_def *d, int thinking) {
  size_t no = list_len(d->open), nc = list_len(d->close), ne = list_len(d->end),
         nao = list_len(d->aopen), nac = list_len(d->aclose);
  size_t sizes[6] = {no, nao, no + nao, nc + ne, nac, 0};
  for (int i = 0; i < 6; i++)
    if (pset_init(t, &t->fsets[i], sizes[i] ? sizes[i] : 1)) return -1;
  pset_add_list(t, &t->fsets[FS_OPENS], d->open);
  pset_add_list(t, &t->fsets[FS_AOPEN], d->aopen);
  t->fn_open = pset_add_list(t, &t->fsets[FS_OUT], d->open);
  pset_add_list(t, &t->fsets[FS_OUT], d->aopen);
  t->fn_close = pset_add_list(t, &t->fsets[FS_IN], d->close);
  pset_add_list(t, &t->fsets[FS_IN], d->end);
  pset_add_list(t, &t->fsets[FS_ACLOSE], d->aclose);
  for (int i = 0; i < 6; i++) {
    pset_vector(t, &t->fsets[i]);
    if (t->fsets[i].count == 0) pset_never(&t->fsets[i]);
  }
  t->fmt = d;
  t->answer = nao ? F_ANSWER : F_DONE;
  t->after = d->later == SLUICEP_FL_BLOCKS ? F_OUT : t->answer;
  int st;
  if (!thinking) st = t->answer;
  else if (d->starts == SLUICEP_FS_INSIDE) st = no ? F_LEAD : F_IN; /* thought_start is 0 */
  else st = d->starts == SLUICEP_FS_OUTSIDE_FIRST ? F_FIRST : F_OUT;
  fmt_enter(t, st);
  return 0;
}

sluice_status sluice_think_new(sluice_filter **out, const sluice_think_opts *opts,
                               const sluice_sink *sink, const sluice_mem *mem, sluice_error *err) {
  *out = NULL;
  sluice_think_opts local, *o = &local;
  sluice_think_opts_init(&local);
  sluice_status st = opts ? sluicep_opts_take(&local, sizeof local, opts, "sluice_think_opts", err)
                          : SLUICE_OK;
  if (st == SLUICE_OK) st = think_validate(o, err);
  if (st != SLUICE_OK) return st;
  sluice_filter *f;
  st = sluicep_filter_alloc(&f, sizeof(think), &think_vt, sink, mem, err);
  if (st != SLUICE_OK) return st;
  think *t = (think *)f;
  const sluice_mem *m = &f->mem;
  sluicep_buf_init(&t->hold, m);
  sluicep_buf_init(&t->open_seen, m);
  sluicep_buf_init(&t->block, m);
  t->mode = o->mode;
  t->ci = o->case_insensitive != 0;
  t->plain = 1;
  const sluicep_think_format_def *fd =
      o->format > SLUICE_THINK_FORMAT_GENERIC ? sluicep_think_format_def_of(o->format) : NULL;
  if (fd) t->ci = 0; /* a family's delimiters are its tokens, matched exactly */
  t->grace = o->grace_period;
  t->expect_only_closing = o->expect_only_closing;
  t->missing_close = o->missing_close;
  t->max_block = o->max_block;

  size_t nb;
  if (o->mode == SLUICE_THINK_ANCHORED || fd) nb = 1;
  else if (o->pairs) nb = o->npairs;
  else nb = o->tags ? o->ntags : sizeof default_tags / sizeof default_tags[0];
  t->blocks = sluicep_calloc(m, nb * sizeof *t->blocks);
  t->closes = sluicep_calloc(m, nb * sizeof *t->closes);
  if (!t->blocks || !t->closes) goto nomem;
  if (fd) {
    /* one block: its record's tag is the format's name */
    if (add_block(t, "", "", fd->name) ||
        fmt_build(t, fd, o->thinking < 0 ? fd->thinking : o->thinking))
      goto nomem;
    if (sluicep_buf_reserve(&t->hold, 2 * t->maxpat)) goto nomem;
    t->start_fstate = t->fstate;
    t->start_phase = t->phase;
    set_quick(t);
    *out = f;
    return SLUICE_OK;
  }
  if (o->mode == SLUICE_THINK_ANCHORED) {
    const char *open = o->start_tag ? o->start_tag : "<think>";
    if (add_block(t, open, o->end_tag ? o->end_tag : "</think>", open)) goto nomem;
  } else {
    for (size_t i = 0; i < nb; i++) {
      if (o->pairs) {
        if (add_block(t, o->pairs[i].open, o->pairs[i].close, o->pairs[i].open)) goto nomem;
        continue;
      }
      const char *name = o->tags ? o->tags[i] : default_tags[i];
      char *open = concat3(m, "<", name, ">");
      char *close = concat3(m, "</", name, ">");
      int rc = (!open || !close) ? -1 : add_block(t, open, close, name);
      sluicep_dealloc(m, open);
      sluicep_dealloc(m, close);
      if (rc) goto nomem;
    }
  }
  if (pset_init(t, &t->opens, nb)) goto nomem;
  for (size_t i = 0; i < nb; i++) {
    pset_add(t, &t->opens, t->blocks[i].open, t->blocks[i].open_n);
    if (pset_init(t, &t->closes[i], 1)) goto nomem;
    pset_add(t, &t->closes[i], t->blocks[i].close, t->blocks[i].close_n);
    pset_vector(t, &t->closes[i]);
  }
  pset_vector(t, &t->opens);
  set_inside(t, -1);
  /* The hold buffer is sized once, so feeding never allocates for it. */
  if (sluicep_buf_reserve(&t->hold, 2 * t->maxpat)) goto nomem;

  if (o->mode == SLUICE_THINK_CHANNEL && o->start_in) {
    for (size_t i = 0; i < nb; i++)
      if (strcmp(t->blocks[i].tag, o->start_in) == 0) {
        set_inside(t, (int)i);
        break;
      }
    if (t->inside < 0) {
      sluice_free(f);
      return sluicep_bad_option(err, "start_in \"%s\" names no configured tag", o->start_in);
    }
  }
  if (o->mode == SLUICE_THINK_ANCHORED)
    t->phase = o->expect_only_closing ? CLOSE_ONLY : SEEK;
  t->start_inside = t->inside;
  t->start_phase = t->phase;
  set_quick(t);
  *out = f;
  return SLUICE_OK;
nomem:
  sluice_free(f);
  return sluicep_nomem(err, "think");
}
