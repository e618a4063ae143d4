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

/* jansson's verdict on a top-level value (DECODE_ANY). It also refuses
 * what the reader allows on purpose, numbers past int64 or a double and
 * nesting past 2048 (the reader's own limit is 1024): those count as
 * accepted when the reader's depth allows them. And its lexer takes a raw
 * NUL byte for the end of the text ("1\0x" passes), where RFC 8259 allows
 * none anywhere: a text with one is refused (found by fuzz_provider). */
static inline int jansson_accepts(const char *p, size_t n) {
  if (memchr(p, '\0', n)) return 0;
  json_error_t e;
  json_t *v = json_loadb(p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
  json_decref(v);
  return v || json_error_code(&e) == json_error_numeric_overflow;
}

#endif
