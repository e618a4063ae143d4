/*
 * jsonw.c: the JSON writer.
 */
#include "jsonw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "sluice.h"

void jw_init(jsonw *w, tbuf *b) {
  w->b = b;
  w->need_comma = 0;
  w->failed = 0;
}

static int put(jsonw *w, const char *p, size_t n) {
  if (!w->failed && tbuf_add(w->b, p, n)) w->failed = 1;
  return w->failed ? -1 : 0;
}

/* Before a value or key: the comma between members. */
static int sep(jsonw *w) {
  int rc = w->need_comma ? put(w, ",", 1) : 0;
  w->need_comma = 1;
  return rc;
}

/* An opening bracket is a value (after a comma if need be) whose members
 * start afresh; a closing one ends a value. */
static int open_with(jsonw *w, const char *c) {
  sep(w);
  w->need_comma = 0;
  return put(w, c, 1);
}

static int close_with(jsonw *w, const char *c) {
  w->need_comma = 1;
  return put(w, c, 1);
}

int jw_begin_object(jsonw *w) { return open_with(w, "{"); }
int jw_end_object(jsonw *w) { return close_with(w, "}"); }
int jw_begin_array(jsonw *w) { return open_with(w, "["); }
int jw_end_array(jsonw *w) { return close_with(w, "]"); }

static int put_string(jsonw *w, const char *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  if (put(w, "\"", 1)) return -1;
  size_t run = 0; /* bytes copied as they are, written in one go */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    char esc[6];
    size_t el = 0;
    if (c == '"' || c == '\\') {
      esc[0] = '\\';
      esc[1] = (char)c;
      el = 2;
    } else if (c < 0x20) {
      esc[0] = '\\';
      el = 2;
      switch (c) {
      case '\n': esc[1] = 'n'; break;
      case '\r': esc[1] = 'r'; break;
      case '\t': esc[1] = 't'; break;
      case '\b': esc[1] = 'b'; break;
      case '\f': esc[1] = 'f'; break;
      default:
        memcpy(esc, "\\u00", 4);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        el = 6;
      }
    } else {
      continue;
    }
    if (put(w, p + run, i - run) || put(w, esc, el)) return -1;
    run = i + 1;
  }
  if (put(w, p + run, n - run)) return -1;
  return put(w, "\"", 1);
}

int jw_key(jsonw *w, const char *key) {
  sep(w);
  if (put_string(w, key, strlen(key)) || put(w, ":", 1)) return -1;
  w->need_comma = 0;
  return 0;
}

int jw_string(jsonw *w, const char *p, size_t n) {
  sep(w);
  return put_string(w, p, n);
}

int jw_int(jsonw *w, int64_t v) {
  char tmp[32];
  int n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
  sep(w);
  return put(w, tmp, (size_t)n);
}

int jw_bool(jsonw *w, int v) {
  sep(w);
  return v ? put(w, "true", 4) : put(w, "false", 5);
}

int jw_null(jsonw *w) {
  sep(w);
  return put(w, "null", 4);
}

int jw_kstring(jsonw *w, const char *key, const char *s) {
  if (jw_key(w, key)) return -1;
  return s ? jw_string(w, s, strlen(s)) : jw_null(w);
}

int jw_raw(jsonw *w, const char *p, size_t n) {
  sep(w);
  return put(w, p, n);
}

int jw_bytes_field(jsonw *w, const char *key, const char *p, size_t n) {
  if (sluice_utf8_valid(p, n)) return jw_key(w, key) || jw_string(w, p, n) ? -1 : 0;
  char k[64];
  snprintf(k, sizeof k, "%s_b64", key);
  char *s = b64_encode(p, n);
  if (!s) {
    w->failed = 1;
    return -1;
  }
  int rc = jw_key(w, k) || jw_string(w, s, strlen(s)) ? -1 : 0;
  free(s);
  return rc;
}
