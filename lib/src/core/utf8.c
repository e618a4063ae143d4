/*
 * utf8.c: code-point counting across chunk boundaries, and the whitespace
 * set of the strip rules (Python's str.isspace()).
 */
#include "sluice_private.h"

#include <string.h>

/* The expected length of a sequence from its lead byte, 0 if not a lead. */
static int lead_len(uint8_t b) {
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return 2;
  if (b >= 0xE0 && b <= 0xEF) return 3;
  if (b >= 0xF0 && b <= 0xF4) return 4;
  return 0;
}

/* Is b a valid byte at index i (>= 1) of a sequence that starts with lead? */
static int cont_ok(uint8_t lead, size_t i, uint8_t b) {
  if (i == 1) {
    switch (lead) {
    case 0xE0: return b >= 0xA0 && b <= 0xBF; /* no overlongs */
    case 0xED: return b >= 0x80 && b <= 0x9F; /* no surrogates */
    case 0xF0: return b >= 0x90 && b <= 0xBF; /* no overlongs */
    case 0xF4: return b >= 0x80 && b <= 0x8F; /* at most U+10FFFF */
    default: break;
    }
  }
  return b >= 0x80 && b <= 0xBF;
}

static uint32_t decode(const uint8_t *s, int n) {
  switch (n) {
  case 1: return s[0];
  case 2: return ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
  case 3: return ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
  default:
    return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
           ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
  }
}

#define INVALID_CP(b) (0x80000000u | (uint32_t)(b))

int sluicep_u8_step(sluicep_u8 *st, uint8_t b, uint32_t cps[4]) {
  int out = 0;
  if (st->npend > 0) {
    if (cont_ok(st->pend[0], st->npend, b)) {
      st->pend[st->npend++] = b;
      if (st->npend == st->need) {
        if (cps) cps[0] = decode(st->pend, st->need);
        st->npend = 0;
        return 1;
      }
      return 0;
    }
    /* The pending sequence is broken: each of its bytes is one code point,
     * and b starts afresh. */
    for (int i = 0; i < st->npend; i++) {
      if (cps) cps[out] = INVALID_CP(st->pend[i]);
      out++;
    }
    st->npend = 0;
  }
  int len = lead_len(b);
  if (len == 1 || len == 0) {
    if (cps) cps[out] = len ? b : INVALID_CP(b);
    return out + 1;
  }
  st->pend[0] = b;
  st->npend = 1;
  st->need = (uint8_t)len;
  return out;
}

int sluicep_u8_flush(sluicep_u8 *st, uint32_t cps[4]) {
  int out = st->npend;
  for (int i = 0; i < st->npend; i++)
    if (cps) cps[i] = INVALID_CP(st->pend[i]);
  st->npend = 0;
  return out;
}

size_t sluicep_u8_seq_len(const unsigned char *p, size_t n) {
  if (n == 0) return 0;
  int len = lead_len(p[0]);
  if (len == 0 || (size_t)len > n) return 0;
  for (int i = 1; i < len; i++)
    if (!cont_ok(p[0], (size_t)i, p[i])) return 0;
  return (size_t)len;
}

uint32_t sluicep_u8_decode(const unsigned char *p, size_t len) { return decode(p, (int)len); }

size_t sluicep_u8_encode(uint32_t cp, unsigned char out[4]) {
  if (cp < 0x80) {
    out[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (unsigned char)(0xC0 | (cp >> 6));
    out[1] = (unsigned char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (unsigned char)(0xE0 | (cp >> 12));
    out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (unsigned char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (unsigned char)(0xF0 | (cp >> 18));
  out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (unsigned char)(0x80 | (cp & 0x3F));
  return 4;
}

uint64_t sluice_utf8_count(const void *vp, size_t n) {
  const uint8_t *p = vp;
  sluicep_u8 st = {{0}, 0, 0};
  uint64_t count = 0;
  for (size_t i = 0; i < n; i++) count += (uint64_t)sluicep_u8_step(&st, p[i], NULL);
  return count + (uint64_t)sluicep_u8_flush(&st, NULL);
}

int sluice_utf8_valid(const void *vp, size_t n) {
  const unsigned char *p = vp;
  size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      i++;
      continue;
    }
    size_t l = sluicep_u8_seq_len(p + i, n - i);
    if (l == 0) return 0;
    i += l;
  }
  return 1;
}

size_t sluice_utf8_tail(const void *vp, size_t n) {
  const uint8_t *p = vp;
  for (size_t k = 1; k <= 3 && k <= n; k++) {
    uint8_t c = p[n - k];
    if ((c & 0xC0) == 0x80) continue;
    if (lead_len(c) <= (int)k) return 0; /* ASCII, not a lead, or complete */
    for (size_t j = 1; j < k; j++)
      if (!cont_ok(c, j, p[n - k + j])) return 0;
    return k;
  }
  return 0;
}

/* ---------------- whitespace ---------------- */

int sluicep_is_space_cp(uint32_t cp) {
  if (cp >= 0x09 && cp <= 0x0D) return 1;
  if (cp >= 0x1C && cp <= 0x20) return 1;
  switch (cp) {
  case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F:
  case 0x3000:
    return 1;
  default:
    break;
  }
  return cp >= 0x2000 && cp <= 0x200A;
}

size_t sluicep_space_len(const unsigned char *p, size_t n, int *partial) {
  *partial = 0;
  if (n == 0) return 0;
  if (p[0] < 0x80) return sluicep_is_space_cp(p[0]) ? 1 : 0;
  int len = lead_len(p[0]);
  if (len < 2) return 0;
  /* Only C2, E1, E2 and E3 lead a whitespace code point. */
  if (p[0] != 0xC2 && p[0] != 0xE1 && p[0] != 0xE2 && p[0] != 0xE3) return 0;
  size_t have = n < (size_t)len ? n : (size_t)len;
  for (size_t i = 1; i < have; i++)
    if (!cont_ok(p[0], i, p[i])) return 0;
  if (have < (size_t)len) {
    /* A proper prefix: could it still become a space? Check every
     * completion's leading bytes against the set. */
    static const uint8_t spaces[][3] = {
        {0xC2, 0x85, 0}, {0xC2, 0xA0, 0}, {0xE1, 0x9A, 0x80}, {0xE2, 0x80, 0x80},
        {0xE2, 0x80, 0x81}, {0xE2, 0x80, 0x82}, {0xE2, 0x80, 0x83}, {0xE2, 0x80, 0x84},
        {0xE2, 0x80, 0x85}, {0xE2, 0x80, 0x86}, {0xE2, 0x80, 0x87}, {0xE2, 0x80, 0x88},
        {0xE2, 0x80, 0x89}, {0xE2, 0x80, 0x8A}, {0xE2, 0x80, 0xA8}, {0xE2, 0x80, 0xA9},
        {0xE2, 0x80, 0xAF}, {0xE2, 0x81, 0x9F}, {0xE3, 0x80, 0x80}};
    for (size_t s = 0; s < sizeof spaces / sizeof spaces[0]; s++)
      if (memcmp(spaces[s], p, have) == 0) {
        *partial = 1;
        return 0;
      }
    return 0;
  }
  return sluicep_is_space_cp(decode(p, len)) ? (size_t)len : 0;
}
