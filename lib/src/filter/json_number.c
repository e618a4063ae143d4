/*
 * json_number.c: facts about number text the JSON sanitizer needs, as pure
 * functions (no locale, no strtod: the library needs libc only, and strtod
 * reads the decimal point of the current locale).
 */
#include "json_private.h"

/* 2^1024 - 2^970: the midpoint between DBL_MAX and 2^1024. A decimal value
 * at or above it rounds to infinity (ties go to the even 2^1024), which is
 * when strtod returns HUGE_VAL and jansson refuses the number. 309 digits. */
static const char overflow_digits[] =
    "17976931348623158079372897140530341507993413271003782693617377898044"
    "49682927647509466490179775872070963302864166928879109465555478519404"
    "02630657488671505820681908902000708383676273854845817711531764475730"
    "27006985557136695962284291481986083493647529271907416844436551070434"
    "2711559699508093042880177904174497792";

int sluicep_json_number_overflows(const char *p, size_t n) {
  if (n < 300 && !memchr(p, 'e', n) && !memchr(p, 'E', n)) return 0; /* < 10^300 */
  size_t i = 0;
  if (i < n && p[i] == '-') i++;
  size_t int_start = i;
  while (i < n && p[i] >= '0' && p[i] <= '9') i++;
  size_t int_end = i, frac_start = i, frac_end = i;
  if (i < n && p[i] == '.') {
    frac_start = ++i;
    while (i < n && p[i] >= '0' && p[i] <= '9') i++;
    frac_end = i;
  }
  long long exp = 0;
  if (i < n && (p[i] == 'e' || p[i] == 'E')) {
    int neg = 0;
    i++;
    if (i < n && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
      if (exp < 1000000000LL) exp = exp * 10 + (p[i] - '0'); /* saturates: far past 309 */
    if (neg) exp = -exp;
  }
  /* The value is 0.d1d2d3... x 10^e, d1 the first non-zero digit. */
  size_t f = int_start;
  while (f < int_end && p[f] == '0') f++;
  long long e;
  if (f < int_end) {
    e = (long long)(int_end - f) + exp;
  } else {
    f = frac_start;
    while (f < frac_end && p[f] == '0') f++;
    if (f == frac_end) return 0; /* zero */
    e = exp - (long long)(f - frac_start);
  }
  const long long max_e = (long long)sizeof overflow_digits - 1; /* 309 */
  if (e != max_e) return e > max_e;
  /* Same magnitude: compare the digits with the threshold's. */
  for (size_t k = 0; k < sizeof overflow_digits - 1; k++) {
    if (f == int_end) f = frac_start; /* past the decimal point */
    char d = f < frac_end ? p[f++] : '0';
    if (d != overflow_digits[k]) return d > overflow_digits[k];
  }
  return 1; /* at or above the midpoint */
}

size_t sluicep_json_hex_to_decimal(const char *h, size_t n, char out[24]) {
  if (n == 0 || n > 13) return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    char c = h[i];
    v = v * 16 + (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  char tmp[24];
  size_t k = 0;
  do {
    tmp[k++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (size_t i = 0; i < k; i++) out[i] = tmp[k - 1 - i];
  return k;
}
