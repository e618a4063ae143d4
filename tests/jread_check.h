/*
 * jread_check.h: the provider's chunk reader (lib/src/provider/jread.c)
 * against jansson: the same verdict on any text. Shared by test_stream and
 * fuzz_provider.
 */
#ifndef SLUICE_JREAD_CHECK_H
#define SLUICE_JREAD_CHECK_H

#include <jansson.h>

#include "jread.h"

static inline int jr_accepts(const char *p, size_t n) {
  jr r;
  jr_init(&r, p, n);
  return jr_skip(&r) && jr_end(&r);
}

/* jansson's verdict on a top-level value (DECODE_ANY). It also refuses
 * what the reader allows on purpose, numbers past int64 or a double and
 * nesting past 2048 (the reader's own limit is 1024): those count as
 * accepted when the reader's depth allows them. */
static inline int jansson_accepts(const char *p, size_t n) {
  json_error_t e;
  json_t *v = json_loadb(p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
  json_decref(v);
  return v || json_error_code(&e) == json_error_numeric_overflow;
}

#endif
