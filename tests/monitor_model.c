/*
 * monitor_model.c: the stream monitor written straight from DESIGN.md §2's
 * definition, slowly and literally, on an array of code points (the quasi
 * match is the original's rfind loop). The unit test and the fuzz target
 * compare the real, linear-time filter with it.
 */
#include "monitor_model.h"

/* ---------------- the literal model ---------------- */

static size_t reps(int current, size_t L) {
  static const size_t table[20] = {340, 170, 114, 86, 69, 58, 50, 44, 40, 36,
                                   33,  31,  29,  27, 26, 25, 24, 23, 22, 21};
  if (!current) return L <= 30 ? (100 + 8 * (L - 1)) / L : 10;
  return L <= 20 ? table[L - 1] : 20;
}

static int same(const uint32_t *s, size_t a, size_t b, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (s[a + i] != s[b + i]) return 0;
  return 1;
}

/* Python's s.rfind(pattern, start, end): the last q with start <= q and
 * q + L <= end. A candidate's last and first code points are compared
 * before the rest (the same answer): on the repetitive text the fuzz
 * target feeds it, most candidates agree for a long stretch and differ at
 * an end, and this search was the model's largest cost. */
static long rfind(const uint32_t *s, size_t pat, size_t L, size_t start, size_t end) {
  uint32_t first = s[pat], last = s[pat + L - 1];
  for (size_t q = end >= L ? end - L + 1 : 0; q-- > start;)
    if (s[q + L - 1] == last && s[q] == first && same(s, q, pat, L)) return (long)q;
  return -1;
}

/* Does s[0..n) end with s[n-L..n) repeated r times (exactly, or quasi)? */
static int match(const uint32_t *s, size_t n, size_t L, size_t r, int quasi) {
  /* r copies that do not overlap (each q + L <= pos) need r * L code
   * points: a shorter s cannot hold them, exact or quasi, and the walk
   * below would only find that out copy by copy */
  if (r * L > n) return 0;
  if (!quasi) {
    for (size_t k = 1; k < r; k++)
      if (!same(s, n - L - k * L, n - L, L)) return 0;
    return 1;
  }
  size_t count = 1, pos = n - L;
  while (count < r && pos > 0) {
    /* The original searches all of s[0..pos). A q below pos - 2L + 1
     * leaves a gap of L or more, which ends the loop just as finding none
     * does, so the search starts there: the same verdict, without reading
     * the whole prefix again at every checkpoint (which made the fuzz
     * target's model cubic in the length). */
    long q = rfind(s, n - L, L, pos + 1 >= 2 * L ? pos + 1 - 2 * L : 0, pos);
    if (q < 0) break;
    if (pos - ((size_t)q + L) >= L) break;
    count++;
    pos = (size_t)q;
  }
  return count >= r;
}

int monitor_model_detect(const uint32_t *s, size_t n, int current, int quasi) {
  size_t thr = n / 10;
  for (size_t L = 1; L <= 10 && L <= thr; L++) {
    if (L * reps(current, L) > n) break;
    if (match(s, n, L, reps(current, L), quasi)) return 1;
  }
  if (thr <= 10) return 0;
  size_t lo = n >= 10 + thr ? n - 10 - thr : 0;
  for (size_t pos = n - 11 + 1; pos-- > lo;) {
    if (!same(s, pos, n - 10, 10)) continue;
    size_t L = n - pos - 10;
    if (match(s, n, L, reps(current, L), quasi)) return 1;
  }
  return 0;
}

static int is_space(uint32_t c) {
  if ((c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20)) return 1;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Trailing whitespace of s[0..n): count, or weight as the current profile. */
static size_t slow_ws(const uint32_t *s, size_t n, int weighted) {
  size_t i = n;
  while (i > 0 && is_space(s[i - 1])) i--;
  if (!weighted) return n - i;
  size_t w = 0;
  for (size_t k = i; k < n; k++) {
    if (s[k] == '\r') w += 8; /* a \r\n pair weighs 8 in all: the \n adds 0 */
    else if (s[k] == '\n') w += (k > i && s[k - 1] == '\r') ? 0 : 8;
    else if (s[k] == '\t') w += 4;
    else w += 1;
  }
  return w;
}

monitor_verdict monitor_model(const uint32_t *s, size_t n, const monitor_model_opts *o) {
  monitor_verdict v = {NULL, 0};
  for (size_t p = 1; p <= n; p++) {
    v.offset = p;
    if (o->max_length && p == o->max_length) v.reason = "max_length";
    else if (o->ws_interval && p % o->ws_interval == 0 &&
             slow_ws(s, p, o->weighted) >= o->ws_threshold)
      v.reason = "whitespace";
    else if (o->rep_interval && p % o->rep_interval == 0 &&
             monitor_model_detect(s, p, o->current, o->quasi))
      v.reason = "repetition";
    if (v.reason) return v;
  }
  return v;
}

