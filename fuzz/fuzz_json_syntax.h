/* fuzz_json_syntax.h: is a text JSON by the grammar of RFC 8259 alone?
 *
 * The json filter's text may be valid JSON that jansson cannot load (a
 * number past a double's range, a NUL in an object key, nesting past 2048
 * levels); the filter then marks it (sluice.h, json). The fuzz targets and
 * test_json check such a text with json_text_check: jansson, or else the
 * grammar (an explicit stack, any depth, numbers of any size, every escape,
 * valid UTF-8) with a refusal that fits a mark. Header-only, for the two
 * users. */
#ifndef SLUICE_FUZZ_JSON_SYNTAX_H
#define SLUICE_FUZZ_JSON_SYNTAX_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"

static size_t jsx_ws(const char *p, size_t n, size_t i) {
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) i++;
  return i;
}

static int jsx_digit(char c) { return c >= '0' && c <= '9'; }

static int jsx_hex(char c) {
  return jsx_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string at p[i] == '"': the index past it, or 0. */
static size_t jsx_string(const char *p, size_t n, size_t i) {
  for (i++; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c == '"') return i + 1;
    if (c < 0x20) return 0;
    if (c != '\\') continue;
    if (++i == n) return 0;
    if (p[i] == 'u') {
      for (int k = 1; k <= 4; k++)
        if (i + (size_t)k >= n || !jsx_hex(p[i + (size_t)k])) return 0;
      i += 4;
    } else if (!strchr("\"\\/bfnrt", p[i]) || !p[i]) {
      return 0;
    }
  }
  return 0;
}

/* A number at p[i]: the index past it, or 0. */
static size_t jsx_number(const char *p, size_t n, size_t i) {
  if (i < n && p[i] == '-') i++;
  if (i < n && p[i] == '0') i++;
  else if (i < n && p[i] >= '1' && p[i] <= '9') while (i < n && jsx_digit(p[i])) i++;
  else return 0;
  if (i < n && p[i] == '.') {
    size_t d = ++i;
    while (i < n && jsx_digit(p[i])) i++;
    if (i == d) return 0;
  }
  if (i < n && (p[i] == 'e' || p[i] == 'E')) {
    i++;
    if (i < n && (p[i] == '+' || p[i] == '-')) i++;
    size_t d = i;
    while (i < n && jsx_digit(p[i])) i++;
    if (i == d) return 0;
  }
  return i;
}

static int json_syntax_ok(const char *p, size_t n) {
  if (!sluice_utf8_valid(p, n)) return 0;
  char *stack = malloc(n + 1);
  if (!stack) abort();
  size_t d = 0, i = jsx_ws(p, n, 0);
  int ok = 0;
  for (;;) { /* a value is expected at p[i] */
    if (i >= n) break;
    if (p[i] == '{' || p[i] == '[') {
      stack[d++] = p[i++];
      i = jsx_ws(p, n, i);
      if (i < n && p[i] == (stack[d - 1] == '{' ? '}' : ']')) {
        d--;
        i++;
        goto after;
      }
      if (stack[d - 1] == '[') continue;
      goto key;
    }
    size_t e = 0;
    if (p[i] == '"') e = jsx_string(p, n, i);
    else if (p[i] == '-' || jsx_digit(p[i])) e = jsx_number(p, n, i);
    else
      for (int k = 0; k < 3 && !e; k++) {
        static const char *const lits[] = {"true", "false", "null"};
        size_t l = strlen(lits[k]);
        if (n - i >= l && memcmp(p + i, lits[k], l) == 0) e = i + l;
      }
    if (!e) break;
    i = e;
  after: /* a value ended */
    i = jsx_ws(p, n, i);
    if (d == 0) {
      ok = i == n;
      break;
    }
    if (i < n && p[i] == (stack[d - 1] == '{' ? '}' : ']')) {
      d--;
      i++;
      goto after;
    }
    if (i >= n || p[i] != ',') break;
    i = jsx_ws(p, n, i + 1);
    if (stack[d - 1] == '[') continue;
  key:
    if (i >= n || p[i] != '"' || !(i = jsx_string(p, n, i))) break;
    i = jsx_ws(p, n, i);
    if (i >= n || p[i] != ':') break;
    i = jsx_ws(p, n, i + 1);
  }
  free(stack);
  return ok;
}

/* Is the text JSON? Loaded by jansson (an integer past int64 as a real: the
 * repair keeps its digits), or else JSON by the grammar that jansson refuses
 * only for what the filter marks: a number past a double, a NUL in an object
 * key, nesting past its 2048 levels (when deep_ok: the options allow it).
 * why, if not NULL, gets that reason ("" when jansson loads the text). */
static int json_text_check(const char *p, size_t n, int deep_ok, const char **why) {
  json_error_t e;
  const size_t flags = JSON_DECODE_ANY | JSON_ALLOW_NUL;
  json_t *v = json_loadb(p, n, flags, &e);
  if (!v) v = json_loadb(p, n, flags | JSON_DECODE_INT_AS_REAL, &e);
  if (why) *why = "";
  if (v) {
    json_decref(v);
    return 1;
  }
  enum json_error_code c = json_error_code(&e);
  const char *w = c == json_error_numeric_overflow  ? "number_overflow"
                  : c == json_error_null_byte_in_key ? "nul_in_key"
                  : deep_ok && c == json_error_stack_overflow ? "depth"
                                                              : NULL;
  if (!w || !json_syntax_ok(p, n)) return 0;
  if (why) *why = w;
  return 1;
}

#endif
