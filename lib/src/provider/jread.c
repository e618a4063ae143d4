/*
 * jread.c: the provider chunks' JSON reader (jread.h).
 */
#include "jread.h"

#include <stdio.h>
#include <string.h>

static int fail(jr *r, const char *at, const char *why) {
  if (!r->why) {
    r->why = why;
    r->at = (size_t)(at - r->start);
  }
  r->p = r->end;
  return 0;
}

void jr_init(jr *r, const char *p, size_t n) {
  r->p = r->start = p;
  r->end = p ? p + n : p; /* no arithmetic on NULL (an empty payload may have none) */
  r->why = NULL;
  r->at = 0;
}

static void ws(jr *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
    r->p++;
}

int jr_peek(jr *r) {
  if (r->why) return JR_ERROR;
  ws(r);
  if (r->p == r->end) return fail(r, r->p, "a value was expected"), JR_ERROR;
  switch (*r->p) {
  case '{': return JR_OBJECT;
  case '[': return JR_ARRAY;
  case '"': return JR_STRING;
  case 't': return JR_TRUE;
  case 'f': return JR_FALSE;
  case 'n': return JR_NULL;
  default:
    if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9')) return JR_NUMBER;
    return fail(r, r->p, "a value was expected"), JR_ERROR;
  }
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The 4 hex digits at p (p + 4 <= end checked by the caller); -1 if not. */
static long hex4(const char *p) {
  long v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexval(p[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/* Length of the well-formed UTF-8 sequence (2 to 4 bytes) at p, 0 if none
 * (RFC 3629: no overlongs, no surrogates, at most U+10FFFF). */
static size_t utf8_len(const unsigned char *p, size_t n) {
  unsigned char c = p[0];
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) len = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else return 0;
  if (n < len || p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < len; i++)
    if (p[i] < 0x80 || p[i] > 0xBF) return 0;
  return len;
}

/* Reads a string at r->p (a quote), validating it. */
static int read_string(jr *r, jr_str *s) {
  const char *p = r->p + 1, *end = r->end;
  int esc = 0;
  s->p = p;
  for (;;) {
    /* the common bytes in a tight loop */
    while (p < end && (unsigned char)*p >= 0x20 && *p != '"' && *p != '\\' &&
           (unsigned char)*p < 0x80)
      p++;
    if (p == end) return fail(r, p, "an unterminated string");
    unsigned char c = (unsigned char)*p;
    if (c == '"') break;
    if (c < 0x20) return fail(r, p, "a control character in a string");
    if (c >= 0x80) {
      size_t l = utf8_len((const unsigned char *)p, (size_t)(end - p));
      if (!l) return fail(r, p, "invalid UTF-8 in a string");
      p += l;
      continue;
    }
    /* an escape */
    esc = 1;
    if (end - p < 2) return fail(r, p, "an unterminated string");
    switch (p[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
      p += 2;
      break;
    case 'u': {
      if (end - p < 6) return fail(r, p, "a short \\u escape");
      long u = hex4(p + 2);
      if (u < 0) return fail(r, p, "a bad \\u escape");
      if (u >= 0xDC00 && u <= 0xDFFF) return fail(r, p, "a lone low surrogate");
      if (u >= 0xD800 && u <= 0xDBFF) {
        long lo = (end - p >= 12 && p[6] == '\\' && p[7] == 'u') ? hex4(p + 8) : -1;
        if (lo < 0xDC00 || lo > 0xDFFF) return fail(r, p, "a lone high surrogate");
        p += 12;
      } else {
        p += 6;
      }
      break;
    }
    default: return fail(r, p, "a bad escape");
    }
  }
  s->n = (size_t)(p - s->p);
  s->esc = esc;
  r->p = p + 1;
  return 1;
}

static int read_number(jr *r) {
  const char *p = r->p, *end = r->end;
  if (p < end && *p == '-') p++;
  if (p == end) return fail(r, p, "a bad number");
  if (*p == '0') {
    p++;
  } else if (*p >= '1' && *p <= '9') {
    while (p < end && *p >= '0' && *p <= '9') p++;
  } else {
    return fail(r, p, "a bad number");
  }
  if (p < end && *p == '.') {
    p++;
    if (p == end || *p < '0' || *p > '9') return fail(r, p, "a bad number");
    while (p < end && *p >= '0' && *p <= '9') p++;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (p == end || *p < '0' || *p > '9') return fail(r, p, "a bad number");
    while (p < end && *p >= '0' && *p <= '9') p++;
  }
  r->p = p;
  return 1;
}

static int read_literal(jr *r, const char *lit, size_t n) {
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, lit, n) != 0)
    return fail(r, r->p, "a value was expected");
  r->p += n;
  return 1;
}

/* One scalar value at r->p (after jr_peek). */
static int scalar(jr *r, int t) {
  jr_str s;
  switch (t) {
  case JR_STRING: return read_string(r, &s);
  case JR_NUMBER: return read_number(r);
  case JR_TRUE: return read_literal(r, "true", 4);
  case JR_FALSE: return read_literal(r, "false", 5);
  case JR_NULL: return read_literal(r, "null", 4);
  default: return 0;
  }
}

int jr_skip(jr *r) {
  /* Iterative, with one bit per open container (1 = object), so the depth
   * of the input never reaches the C stack. */
  unsigned char kinds[JR_MAX_DEPTH / 8];
  size_t depth = 0;
  int t = jr_peek(r);
  if (t != JR_OBJECT && t != JR_ARRAY) return t != JR_ERROR && scalar(r, t);
  for (;;) {
    /* at the start of a value */
    t = jr_peek(r);
    if (t == JR_ERROR) return 0;
    if (t == JR_OBJECT || t == JR_ARRAY) {
      if (depth == JR_MAX_DEPTH) return fail(r, r->p, "nesting deeper than 1024");
      int obj = t == JR_OBJECT;
      if (obj) kinds[depth / 8] |= (unsigned char)(1u << (depth % 8));
      else kinds[depth / 8] &= (unsigned char)~(1u << (depth % 8));
      depth++;
      r->p++;
      ws(r);
      if (r->p < r->end && *r->p == (obj ? '}' : ']')) {
        r->p++;
        depth--;
      } else if (obj) {
        jr_str k;
        if (r->p == r->end || *r->p != '"') return fail(r, r->p, "a key was expected");
        if (!read_string(r, &k)) return 0;
        ws(r);
        if (r->p == r->end || *r->p != ':') return fail(r, r->p, "':' was expected");
        r->p++;
        continue;
      } else {
        continue;
      }
    } else if (!scalar(r, t)) {
      return 0;
    }
    /* after a value: close containers or go to the next member/element */
    for (;;) {
      if (depth == 0) return 1;
      int obj = (kinds[(depth - 1) / 8] >> ((depth - 1) % 8)) & 1;
      ws(r);
      if (r->p == r->end) return fail(r, r->p, "an unterminated container");
      if (*r->p == (obj ? '}' : ']')) {
        r->p++;
        depth--;
        continue;
      }
      if (*r->p != ',')
        return fail(r, r->p, obj ? "',' or '}' was expected" : "',' or ']' was expected");
      r->p++;
      if (obj) {
        jr_str k;
        ws(r);
        if (r->p == r->end || *r->p != '"') return fail(r, r->p, "a key was expected");
        if (!read_string(r, &k)) return 0;
        ws(r);
        if (r->p == r->end || *r->p != ':') return fail(r, r->p, "':' was expected");
        r->p++;
      }
      break;
    }
  }
}

int jr_enter_object(jr *r) {
  if (jr_peek(r) != JR_OBJECT) return 0;
  r->p++;
  return 1;
}

int jr_enter_array(jr *r) {
  if (jr_peek(r) != JR_ARRAY) return 0;
  r->p++;
  return 1;
}

/* After a member or element (or the opening bracket): the closing
 * bracket (0) or the separator before the next one (1). */
static int next_item(jr *r, size_t *count, char close) {
  if (r->why) return 0;
  ws(r);
  if (r->p == r->end) return fail(r, r->p, "an unterminated container");
  if (*r->p == close) {
    r->p++;
    return 0;
  }
  if (*count > 0) {
    if (*r->p != ',') return fail(r, r->p, close == '}' ? "',' or '}' was expected"
                                                       : "',' or ']' was expected");
    r->p++;
  }
  (*count)++;
  return 1;
}

int jr_member(jr *r, size_t *count, jr_str *key) {
  if (!next_item(r, count, '}')) return 0;
  ws(r);
  if (r->p == r->end || *r->p != '"') return fail(r, r->p, "a key was expected");
  if (!read_string(r, key)) return 0;
  ws(r);
  if (r->p == r->end || *r->p != ':') return fail(r, r->p, "':' was expected");
  r->p++;
  return 1;
}

int jr_element(jr *r, size_t *count) {
  if (!next_item(r, count, ']')) return 0;
  return jr_peek(r) != JR_ERROR;
}

int jr_string(jr *r, jr_str *s) {
  if (jr_peek(r) != JR_STRING) return 0;
  return read_string(r, s);
}

int jr_uint(jr *r, uint64_t *v) {
  if (jr_peek(r) != JR_NUMBER) {
    jr_skip(r);
    return 0;
  }
  const char *p = r->p;
  if (!read_number(r)) return 0;
  uint64_t x = 0;
  for (; p < r->p; p++) {
    if (*p < '0' || *p > '9' || x > (UINT64_MAX >> 1) / 10) return 0;
    x = x * 10 + (uint64_t)(*p - '0');
  }
  *v = x;
  return 1;
}

int jr_raw(jr *r, const char **p, size_t *n) {
  if (jr_peek(r) == JR_ERROR) return 0;
  const char *s = r->p;
  if (!jr_skip(r)) return 0;
  *p = s;
  *n = (size_t)(r->p - s);
  return 1;
}

int jr_end(jr *r) {
  if (r->why) return 0;
  ws(r);
  if (r->p != r->end) return fail(r, r->p, "text after the value");
  return 1;
}

const char *jr_error(const jr *r, char *buf, size_t n) {
  if (!r->why) return NULL;
  snprintf(buf, n, "%s at byte %zu", r->why, r->at);
  return buf;
}

/* UTF-8 of code point u into out; its length. */
static size_t put_utf8(char *out, unsigned long u) {
  if (u < 0x80) {
    out[0] = (char)u;
    return 1;
  }
  if (u < 0x800) {
    out[0] = (char)(0xC0 | (u >> 6));
    out[1] = (char)(0x80 | (u & 0x3F));
    return 2;
  }
  if (u < 0x10000) {
    out[0] = (char)(0xE0 | (u >> 12));
    out[1] = (char)(0x80 | ((u >> 6) & 0x3F));
    out[2] = (char)(0x80 | (u & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (u >> 18));
  out[1] = (char)(0x80 | ((u >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((u >> 6) & 0x3F));
  out[3] = (char)(0x80 | (u & 0x3F));
  return 4;
}

size_t jr_decode(const jr_str *s, char *out) {
  if (!s->esc) {
    if (s->n) memcpy(out, s->p, s->n);
    return s->n;
  }
  const char *p = s->p, *end = s->p + s->n;
  size_t o = 0;
  while (p < end) {
    const char *q = memchr(p, '\\', (size_t)(end - p));
    size_t run = (size_t)((q ? q : end) - p);
    memcpy(out + o, p, run);
    o += run;
    if (!q) break;
    p = q;
    char c = p[1];
    switch (c) {
    case 'b': out[o++] = '\b'; p += 2; break;
    case 'f': out[o++] = '\f'; p += 2; break;
    case 'n': out[o++] = '\n'; p += 2; break;
    case 'r': out[o++] = '\r'; p += 2; break;
    case 't': out[o++] = '\t'; p += 2; break;
    case 'u': {
      unsigned long u = (unsigned long)hex4(p + 2);
      p += 6;
      if (u >= 0xD800 && u <= 0xDBFF) { /* validated: a low surrogate follows */
        unsigned long lo = (unsigned long)hex4(p + 2);
        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
        p += 6;
      }
      o += put_utf8(out + o, u);
      break;
    }
    default: out[o++] = c; p += 2; break; /* " \ / */
    }
  }
  return o;
}

int jr_is(const jr_str *s, const char *lit) {
  if (!s->esc) {
    /* most keys differ in their first byte: no strlen for those */
    if (s->n == 0 || s->p[0] != lit[0]) return s->n == 0 && lit[0] == '\0';
    return strlen(lit) == s->n && memcmp(s->p, lit, s->n) == 0;
  }
  size_t n = strlen(lit);
  if (s->n > 256) return 0; /* no literal here is that long, even escaped */
  char buf[256];
  return jr_decode(s, buf) == n && memcmp(buf, lit, n) == 0;
}

size_t jr_compact(const char *p, size_t n, char *out) {
  size_t o = 0;
  int in_str = 0;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (in_str) {
      out[o++] = c;
      if (c == '\\') out[o++] = p[++i];
      else if (c == '"') in_str = 0;
    } else if (c == '"') {
      in_str = 1;
      out[o++] = c;
    } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      out[o++] = c;
    }
  }
  return o;
}
