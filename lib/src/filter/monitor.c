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
 * shorter than |C|, reps times in all.
 *
 * Cost. Phase 1 uses per-length run counters (exact) or a bounded
 * backward scan (quasi, |C| <= 10). Phase 2 does not enumerate the
 * occurrences of M (there are thr/20 of them when a 10-character marker
 * recurs every 20 characters, which made the original quadratic). Any
 * firing C of length L has a second copy ending at e in (n-2L, n-L] (the
 * gap is shorter than L; exact repetition is gap 0). So candidates are
 * taken in bands L in [l, 8l), l = 10, 80, 640, ...: the last l code
 * points (a longer marker, a suffix of what must repeat) must occur ending
 * in (n-16l, n-l]. Each band keeps the occurrences of its l-grams in a ring
 * over that window, chained by fingerprint, so a checkpoint walks only the
 * occurrences of markers that really recur nearby (plus about 64 foreign
 * positions a slot: the tables grow with the windows). Many true
 * occurrences of a band's marker in its window need a periodic stretch at
 * the end, which is itself a repeat that fires. Per code point: a hash
 * step, ten run counters and one insert per band (at most 10 bands).
 * Measured: the marker adversary, 10^6 code points, about 0.06 s.
 * Substring equality uses a polynomial hash mod 2^61-1 (the hash can only
 * reject); every positive is verified code point by code point, so the
 * verdicts are exact: tests/test_monitor.c checks them against a literal
 * model.
 *
 * Memory: the detector may compare the last code point with the first (a
 * block of n/10 code points repeated ten times fires), so the history is
 * the whole stream: 12 bytes per code point (the code point and its
 * prefix hash) plus the band rings (about 4 bytes per code point).
 * max_history caps it (SLUICE_LIMIT); with repetition checks off no
 * history is kept; after a stop the history is freed.
 */
#include "sluice_private.h"

#include <string.h>

#define HMOD ((uint64_t)0x1FFFFFFFFFFFFFFFULL) /* 2^61 - 1 */
#define HBASE ((uint64_t)0x5DEECE66DULL + 1000003ULL)
#define MAX_LEVELS 10
#define POS_LIMIT 0xFFFFFFF0u

typedef struct level {
  uint32_t len;   /* l: the marker length of the band [l, 8l) */
  uint32_t rmask; /* ring size - 1 (the ring covers the band's window) */
  uint32_t *ring; /* ring[e & rmask]: previous end with the same slot */
  uint32_t tmask;
  uint32_t *head; /* head[slot]: the last end position with that slot */
  uint64_t pl;    /* B^len */
} level;

typedef struct monitor {
  sluice_filter base;
  /* options */
  int quasi, weighted, seed_reps;
  uint64_t max_length, ws_interval, rep_interval, ws_threshold, max_history;
  /* stream position */
  sluicep_u8 u8;
  uint64_t in_bytes;  /* bytes seen */
  uint64_t cp_at;     /* stream offset of the code point being added, for errors */
  uint64_t out_bytes; /* bytes emitted */
  uint64_t n;         /* code points */
  int stopped;
  /* whitespace */
  uint64_t ws_count, ws_weight;
  uint32_t last_cp;
  /* phase 1, exact: per[L] = trailing run of i with S[i] == S[i-L] */
  uint64_t per[11];
  /* history */
  uint32_t *cp;
  uint64_t *h; /* h[i]: hash of S[0..i) */
  uint64_t p10; /* B^10 */
  size_t cap;
  level lv[MAX_LEVELS];
  int nlv;
  uint32_t *stamp; /* stamp[L] == ck: candidate L already checked */
  size_t stamp_cap;
  uint32_t ck;
} monitor;

/* ---------------- thresholds ---------------- */

static const uint16_t current_reps[20] = {340, 170, 114, 86, 69, 58, 50, 44, 40, 36,
                                          33,  31,  29,  27, 26, 25, 24, 23, 22, 21};

static uint64_t reps(const monitor *m, uint64_t L) {
  if (m->seed_reps) return L <= 30 ? (100 + 8 * (L - 1)) / L : 10;
  return L <= 20 ? current_reps[L - 1] : 20;
}

/* ---------------- hashing ---------------- */

static uint64_t mulmod(uint64_t a, uint64_t b) {
  unsigned __int128 x = (unsigned __int128)a * b;
  uint64_t lo = (uint64_t)(x & HMOD), hi = (uint64_t)(x >> 61);
  uint64_t r = lo + hi;
  return r >= HMOD ? r - HMOD : r;
}

/* B^e, by squaring: callers compute it once per length. */
static uint64_t powb(uint64_t e) {
  uint64_t r = 1, b = HBASE;
  for (; e; e >>= 1, b = mulmod(b, b))
    if (e & 1) r = mulmod(r, b);
  return r;
}

/* Fingerprint of S[a..a+len); pl = B^len. */
static uint64_t fp(const monitor *m, uint64_t a, uint64_t len, uint64_t pl) {
  uint64_t x = m->h[a + len], y = mulmod(m->h[a], pl);
  return x >= y ? x - y : x + HMOD - y;
}

/* S[a..a+len) == S[b..b+len): the hash rejects, the code points confirm. */
static int eq(const monitor *m, uint64_t a, uint64_t b, uint64_t len, uint64_t pl) {
  if (a == b) return 1;
  if (fp(m, a, len, pl) != fp(m, b, len, pl)) return 0;
  return memcmp(m->cp + a, m->cp + b, len * sizeof *m->cp) == 0;
}

/* Longest common suffix of S[0..e) and S[0..n), at most cap; by hashes only
 * (an overestimate can only add candidates, which are verified later). */
static uint64_t lcs(const monitor *m, uint64_t e, uint64_t cap) {
  uint64_t n = m->n;
  if (cap > e) cap = e;
  uint64_t lo = 0, hi = cap; /* lo: known common, hi: upper bound */
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2, pl = powb(mid);
    if (fp(m, e - mid, mid, pl) == fp(m, n - mid, mid, pl)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* ---------------- matching ---------------- */

/* Quasi (and exact, its gap-0 case): S ends with C = S[n-L..n); count the
 * copies going back, each the nearest one before the previous with a gap
 * shorter than L (the original's rfind loop). */
static int quasi_match(const monitor *m, uint64_t L, uint64_t r) {
  uint64_t n = m->n, c = n - L, count = 1, pl = powb(L);
  while (count < r && c > 0) {
    if (c < L) break;
    uint64_t lo = c + 1 >= 2 * L ? c + 1 - 2 * L : 0;
    uint64_t q = c - L + 1, found = UINT64_MAX;
    while (q-- > lo)
      if (m->cp[q + L - 1] == m->cp[n - 1] && eq(m, q, n - L, L, pl)) {
        found = q;
        break;
      }
    if (found == UINT64_MAX) break;
    count++;
    c = found;
  }
  return count >= r;
}

/* Exact: S ends with C repeated r times, i.e. the last r*L code points have
 * period L. */
static int exact_match(const monitor *m, uint64_t L, uint64_t r) {
  uint64_t n = m->n;
  if (r * L > n) return 0;
  /* Most candidates fail within a few code points: look before hashing. */
  for (uint64_t i = 1; i <= 64 && i <= (r - 1) * L; i++)
    if (m->cp[n - i] != m->cp[n - L - i]) return 0;
  return eq(m, n - r * L, n - (r - 1) * L, (r - 1) * L, powb((r - 1) * L));
}

/* ---------------- phase 2 bands ---------------- */

static uint32_t slot_of(const level *lv, uint64_t f) { return (uint32_t)(f ^ (f >> 29)) & lv->tmask; }

static void level_insert(monitor *m, level *lv, uint64_t e) {
  if (e < lv->len) return;
  uint32_t s = slot_of(lv, fp(m, e - lv->len, lv->len, lv->pl));
  lv->ring[e & lv->rmask] = lv->head[s];
  lv->head[s] = (uint32_t)e;
}

/* The ring a band needs now: its window (n - 2*hiL, n] with hiL = min(8l - 1,
 * thr); it grows (doubling, rebuilt from the history) as thr does. */
static uint64_t ring_need(const monitor *m, const level *lv) {
  uint64_t hi = 8 * (uint64_t)lv->len - 1, thr = m->n / 10 + 1;
  if (hi > thr) hi = thr;
  return 2 * hi + 2;
}

static int level_build(monitor *m, level *lv) {
  uint64_t need = ring_need(m, lv);
  uint32_t rs = lv->rmask ? lv->rmask + 1 : 64;
  while (rs < need) rs <<= 1;
  uint32_t *ring = sluicep_realloc(&m->base.mem, lv->ring, (size_t)rs * sizeof *ring);
  if (!ring) return -1;
  lv->ring = ring;
  lv->rmask = rs - 1;
  /* The table grows with the window (about 64 positions a slot), so a walk
   * meets a bounded number of other markers' positions; small tables for
   * small bands stay in cache. */
  uint32_t ts = 1u << 14;
  while (ts < rs / 64 && ts < (1u << 22)) ts <<= 1;
  if (!lv->head || ts != lv->tmask + 1) {
    uint32_t *head = sluicep_realloc(&m->base.mem, lv->head, (size_t)ts * sizeof *head);
    if (!head) return -1;
    lv->head = head;
    lv->tmask = ts - 1;
  }
  memset(lv->head, 0, ((size_t)lv->tmask + 1) * sizeof *lv->head);
  uint64_t from = m->n >= rs ? m->n - rs + 1 : 0;
  if (from < lv->len) from = lv->len;
  for (uint64_t e = from; e <= m->n; e++) level_insert(m, lv, e);
  return 0;
}

static int add_level(monitor *m) {
  level *lv = &m->lv[m->nlv];
  memset(lv, 0, sizeof *lv);
  lv->len = m->nlv ? 8 * m->lv[m->nlv - 1].len : 10;
  lv->pl = powb(lv->len);
  m->nlv++;
  return level_build(m, lv);
}

static int phase2(monitor *m) {
  uint64_t n = m->n, thr = n / 10;
  m->ck++;
  for (int j = 0; j < m->nlv; j++) {
    level *lv = &m->lv[j];
    uint64_t l = lv->len;
    uint64_t loL = l < 11 ? 11 : l, hiL = 8 * l - 1 < thr ? 8 * l - 1 : thr;
    if (loL > hiL || n < l) continue;
    uint64_t fm = fp(m, n - l, l, lv->pl);
    /* e > elow: quasi looks for the second copy in (n-2L, n-L], exact at n-L. */
    uint64_t elow = m->quasi ? n - 2 * hiL : n - hiL - 1;
    uint64_t e = lv->head[slot_of(lv, fm)];
    for (; e > elow; e = lv->ring[e & lv->rmask]) {
      if (e > n - loL) continue;
      if (fp(m, e - l, l, lv->pl) != fm) continue;
      if (!m->quasi) {
        uint64_t L = n - e;
        if (L <= hiL && exact_match(m, L, reps(m, L))) return 1;
        continue;
      }
      uint64_t top = n - e; /* e <= n - L */
      if (top > hiL) top = hiL;
      uint64_t lam = lcs(m, e, top);
      if (top > lam) top = lam;
      uint64_t bot = (n - e) / 2 + 1; /* e > n - 2L */
      if (bot < loL) bot = loL;
      for (uint64_t L = bot; L <= top; L++) {
        if (m->stamp[L] == m->ck) continue;
        m->stamp[L] = m->ck;
        uint64_t r = reps(m, L);
        if (r * L > n) continue;
        if (!eq(m, n - 10 - L, n - 10, 10, m->p10)) continue; /* M occurs at n-10-L */
        if (quasi_match(m, L, r)) return 1;
      }
    }
  }
  return 0;
}

static int detect(monitor *m) {
  uint64_t n = m->n, thr = n / 10;
  for (uint64_t L = 1; L <= 10 && L <= thr; L++) {
    uint64_t r = reps(m, L);
    if (L * r > n) break;
    if (m->quasi ? quasi_match(m, L, r) : m->per[L] >= (r - 1) * L) return 1;
  }
  if (thr <= 10) return 0;
  return phase2(m);
}

/* ---------------- history ---------------- */

static void free_history(monitor *m) {
  sluice_mem *mem = &m->base.mem;
  sluicep_dealloc(mem, m->cp);
  sluicep_dealloc(mem, m->h);
  sluicep_dealloc(mem, m->stamp);
  m->cp = NULL;
  m->h = NULL;
  m->stamp = NULL;
  m->cap = m->stamp_cap = 0;
  for (int j = 0; j < m->nlv; j++) {
    sluicep_dealloc(mem, m->lv[j].ring);
    sluicep_dealloc(mem, m->lv[j].head);
  }
  m->nlv = 0;
}

static int grow(monitor *m) {
  size_t nc = m->cap ? m->cap * 2 : 4096;
  sluice_mem *mem = &m->base.mem;
  uint32_t *cp = sluicep_realloc(mem, m->cp, nc * sizeof *cp);
  if (!cp) return -1;
  m->cp = cp;
  uint64_t *h = sluicep_realloc(mem, m->h, (nc + 1) * sizeof *h);
  if (!h) return -1;
  m->h = h;
  size_t ns = nc / 10 + 2;
  uint32_t *st = sluicep_realloc(mem, m->stamp, ns * sizeof *st);
  if (!st) return -1;
  memset(st + m->stamp_cap, 0, (ns - m->stamp_cap) * sizeof *st);
  m->stamp = st;
  m->stamp_cap = ns;
  if (m->cap == 0) m->h[0] = 0;
  m->cap = nc;
  return 0;
}

static int remember(monitor *m, uint32_t c) {
  uint64_t n = m->n; /* already counted: c is S[n-1] */
  if (m->max_history && n > m->max_history) {
    sluicep_fail(&m->base, SLUICE_LIMIT, m->cp_at,
                 "the monitor's history exceeded max_history (%llu code points)",
                 (unsigned long long)m->max_history);
    return 1;
  }
  if (n > POS_LIMIT) {
    sluicep_fail(&m->base, SLUICE_LIMIT, m->cp_at, "the monitor counts at most 2^32 code points");
    return 1;
  }
  if (n > m->cap && grow(m)) {
    sluicep_fail(&m->base, SLUICE_NOMEM, m->cp_at, "out of memory for the monitor's history");
    return 1;
  }
  m->cp[n - 1] = c;
  m->h[n] = mulmod(m->h[n - 1], HBASE) + (uint64_t)c + 1;
  if (m->h[n] >= HMOD) m->h[n] -= HMOD;
  for (uint64_t L = 1; L <= 10; L++)
    m->per[L] = (n > L && m->cp[n - 1] == m->cp[n - 1 - L]) ? m->per[L] + 1 : 0;
  for (int j = 0; j < m->nlv; j++) {
    level *lv = &m->lv[j];
    if (lv->rmask + 1 < ring_need(m, lv) ? level_build(m, lv) : (level_insert(m, lv, n), 0)) {
      sluicep_fail(&m->base, SLUICE_NOMEM, m->cp_at, "out of memory for the monitor's index");
      return 1;
    }
  }
  /* A band is needed once its lengths fit under thr = n / 10. */
  while (m->nlv < MAX_LEVELS && (m->nlv ? 8 * (uint64_t)m->lv[m->nlv - 1].len : 10) <= n / 10 + 1)
    if (add_level(m)) {
      sluicep_fail(&m->base, SLUICE_NOMEM, m->cp_at, "out of memory for the monitor's index");
      return 1;
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
  return sluicep_event(&m->base, &ev);
}

/* One more code point. Returns 1 when the stream stops at it (or on error). */
static int add_cp(monitor *m, uint32_t c) {
  m->n++;
  uint64_t n = m->n;
  if (sluicep_is_space_cp(c)) {
    m->ws_count++;
    if (c == '\n') m->ws_weight += (m->last_cp == '\r' && m->ws_count > 1) ? 0 : 8;
    else if (c == '\r') m->ws_weight += 8;
    else if (c == '\t') m->ws_weight += 4;
    else m->ws_weight += 1;
  } else {
    m->ws_count = m->ws_weight = 0;
  }
  m->last_cp = c;
  if (m->rep_interval && remember(m, c)) return 1;
  if (m->max_length && n == m->max_length) return stop(m, "max_length"), 1;
  if (m->ws_interval && n % m->ws_interval == 0 &&
      (m->weighted ? m->ws_weight : m->ws_count) >= m->ws_threshold)
    return stop(m, "whitespace"), 1;
  if (m->rep_interval && n % m->rep_interval == 0 && detect(m)) return stop(m, "repetition"), 1;
  return 0;
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

static sluice_status monitor_feed(sluice_filter *f, const char *p, size_t n) {
  monitor *m = (monitor *)f;
  uint64_t base = m->in_bytes;
  if (m->stopped) {
    m->in_bytes += n;
    sluicep_emit(f, SLUICE_DROPPED, p, n);
    return f->err.status;
  }
  uint8_t carry[4];
  size_t ncarry = m->u8.npend;
  memcpy(carry, m->u8.pend, ncarry);
  for (size_t i = 0; i < n; i++) {
    uint64_t B = base + i;
    int npb = m->u8.npend;
    uint32_t cps[4];
    int k = sluicep_u8_step(&m->u8, (uint8_t)p[i], cps);
    int whole = npb > 0 && k == 1 && !(cps[0] & 0x80000000u);
    for (int j = 0; j < k; j++) {
      /* where this code point starts: a completed sequence began npb bytes
       * back; the bytes of a broken one are a code point each */
      m->cp_at = whole ? B - (uint64_t)npb : (j < npb ? B - (uint64_t)npb + (uint64_t)j : B);
      if (!add_cp(m, cps[j])) continue;
      if (f->err.status != SLUICE_OK) return f->err.status;
      uint64_t end = (whole || j >= npb) ? B + 1 : B - (uint64_t)npb + (uint64_t)j + 1;
      m->in_bytes = base + n;
      if (emit_range(m, SLUICE_TEXT, m->out_bytes, end, carry, ncarry, base, p)) return f->err.status;
      emit_range(m, SLUICE_DROPPED, end, base + n, carry, ncarry, base, p);
      free_history(m);
      return f->err.status;
    }
  }
  m->in_bytes = base + n;
  emit_range(m, SLUICE_TEXT, m->out_bytes, m->in_bytes - m->u8.npend, carry, ncarry, base, p);
  return f->err.status;
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
    uint64_t end = base;
    for (int j = 0; j < k; j++) {
      m->cp_at = start + (uint64_t)j;
      if (add_cp(m, cps[j])) {
        if (f->err.status != SLUICE_OK) return f->err.status;
        end = start + (uint64_t)j + 1;
        break;
      }
    }
    if (emit_range(m, SLUICE_TEXT, m->out_bytes, end, carry, ncarry, base, NULL))
      return f->err.status;
    emit_range(m, SLUICE_DROPPED, end, base, carry, ncarry, base, NULL);
  }
  free_history(m);
  return f->err.status;
}

static void monitor_destroy(sluice_filter *f) { free_history((monitor *)f); }

static const sluicep_vtable monitor_vt = {"monitor", monitor_feed, monitor_finish, monitor_destroy};

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
  m->p10 = powb(10);
  *out = f;
  return SLUICE_OK;
}

