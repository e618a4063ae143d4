/*
 * jsonw.h: a small JSON writer into a tbuf, for the answers the tools send.
 * It writes, never parses (reading JSON is jansson's job). Every function
 * returns 0, or -1 once the buffer could not grow (out of memory or past its
 * limit); after a failure the buffer's content is undefined and the caller
 * answers with a fixed error line instead.
 */
#ifndef SLUICE_TOOLS_JSONW_H
#define SLUICE_TOOLS_JSONW_H

#include <stdint.h>

#include "util.h"

typedef struct jsonw {
  tbuf *b;
  int need_comma; /* inside an object or array, after a member */
  int failed;
} jsonw;

void jw_init(jsonw *w, tbuf *b);
int jw_begin_object(jsonw *w);
int jw_end_object(jsonw *w);
int jw_begin_array(jsonw *w);
int jw_end_array(jsonw *w);
/* A key, before its value (inside an object). */
int jw_key(jsonw *w, const char *key);
/* A string of valid UTF-8 bytes (the caller checks; see jw_bytes_field). */
int jw_string(jsonw *w, const char *p, size_t n);
int jw_int(jsonw *w, int64_t v);
int jw_bool(jsonw *w, int v);
int jw_null(jsonw *w);
/* key and its string s (valid UTF-8), or null when s is NULL. */
int jw_kstring(jsonw *w, const char *key, const char *s);
/* JSON text written as it is (a value the caller knows is valid JSON). */
int jw_raw(jsonw *w, const char *p, size_t n);
/* key: the bytes as a string when they are valid UTF-8, else key_b64:
 * their base64 (the protocol's rule for channels and event bytes). */
int jw_bytes_field(jsonw *w, const char *key, const char *p, size_t n);

#endif
