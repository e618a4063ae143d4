/*
 * jread_check.h: the provider's chunk reader (lib/src/provider/jread.c)
 * against jansson: the same verdict on any text. Shared by test_stream and
 * fuzz_provider.
 */
#ifndef SLUICE_JREAD_CHECK_H
#define SLUICE_JREAD_CHECK_H

#include <jansson.h>
#include <string.h>

#include "jread.h"

static inline int jr_accepts(const char *p, size_t n) {
  jr r;
  jr_init(&r, p, n);
  return jr_skip(&r) && jr_end(&r);
}

/* jansson's verdict on a top-level value (DECODE_ANY): 1 accepted, 0
 * refused, -1 when it cannot tell. Integers past int64 are read again as
 * reals (the reader takes numbers of any size, by the grammar); a number
 * past a double's range stays "cannot tell". jansson's lexer also takes a
 * raw NUL byte for the end of the text ("1\0x" passes), where RFC 8259
 * allows none anywhere: such a text is refused (found by fuzz_provider). */
static inline int jansson_verdict(const char *p, size_t n) {
  if (memchr(p, '\0', n)) return 0;
  json_error_t e;
  json_t *v = json_loadb(p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
  if (!v && json_error_code(&e) == json_error_numeric_overflow)
    v = json_loadb(p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &e);
  json_decref(v);
  if (v) return 1;
  return json_error_code(&e) == json_error_numeric_overflow ? -1 : 0;
}

/* 1 when the reader and jansson agree (or jansson cannot tell). */
static inline int jr_agrees_with_jansson(const char *p, size_t n) {
  int j = jansson_verdict(p, n);
  return j < 0 || j == jr_accepts(p, n);
}

#endif
