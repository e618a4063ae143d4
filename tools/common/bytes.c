/*
 * bytes.c: base64, byte specs, byte fields and their readable rendering.
 */
#include "bytes.h"

#include <string.h>

#include "sluice.h"

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *b64_encode(const char *vp, size_t n) {
  const unsigned char *p = (const unsigned char *)vp;
  if (n > (SIZE_MAX - 1) / 4 * 3 - 3) return NULL;
  char *s = malloc(4 * ((n + 2) / 3) + 1), *o = s;
  if (!s) return NULL;
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    uint32_t v = ((uint32_t)p[i] << 16) | ((uint32_t)p[i + 1] << 8) | p[i + 2];
    *o++ = b64chars[v >> 18];
    *o++ = b64chars[(v >> 12) & 63];
    *o++ = b64chars[(v >> 6) & 63];
    *o++ = b64chars[v & 63];
  }
  if (i < n) {
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
    *o++ = b64chars[v >> 18];
    *o++ = b64chars[(v >> 12) & 63];
    *o++ = i + 1 < n ? b64chars[(v >> 6) & 63] : '=';
    *o++ = '=';
  }
  *o = '\0';
  return s;
}

/* libsluice's decoder (canonical base64 only), into a malloc'd buffer. */
int b64_decode(const char *s, size_t len, tbytes *out) {
  out->p = malloc(len / 4 * 3 + 1);
  out->n = 0;
  if (!out->p) return -1;
  if (sluice_base64_decode(s, len, out->p, &out->n)) {
    free(out->p);
    out->p = NULL;
    return -1;
  }
  out->p[out->n] = '\0';
  return 0;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int spec_part(json_t *spec, tbuf *out, char *why, size_t whylen) {
  if (json_is_string(spec)) return tbuf_add(out, json_string_value(spec), json_string_length(spec));
  if (json_is_object(spec) && json_object_size(spec) == 1) {
    json_t *hex = json_object_get(spec, "hex"), *b64 = json_object_get(spec, "b64");
    if (json_is_string(hex)) {
      const char *h = json_string_value(hex);
      size_t n = json_string_length(hex);
      for (size_t i = 0; i < n; i++) {
        if (h[i] == ' ') continue;
        int a = hexval(h[i]), b = i + 1 < n ? hexval(h[i + 1]) : -1;
        if (a < 0 || b < 0) {
          snprintf(why, whylen, "bad hex digits in {\"hex\": \"%.60s\"}", h);
          return -1;
        }
        if (tbuf_addc(out, (char)(a * 16 + b))) return -1;
        i++;
      }
      return 0;
    }
    if (json_is_string(b64)) {
      tbytes tmp;
      if (b64_decode(json_string_value(b64), json_string_length(b64), &tmp)) {
        snprintf(why, whylen, "bad base64 in {\"b64\": ...}");
        return -1;
      }
      int rc = tbuf_add(out, tmp.p, tmp.n);
      free(tmp.p);
      return rc;
    }
  }
  snprintf(why, whylen, "a byte string must be a string, {\"hex\": ...}, {\"b64\": ...} or an "
                        "array of those");
  return -1;
}

int bytes_from_spec(json_t *spec, tbytes *out, char *why, size_t whylen) {
  tbuf b = {0};
  int rc = tbuf_add(&b, "", 0);
  if (json_is_array(spec)) {
    size_t i;
    json_t *v;
    json_array_foreach(spec, i, v) {
      if (json_is_array(v)) {
        snprintf(why, whylen, "byte-string arrays do not nest");
        rc = -1;
      }
      if (rc || (rc = spec_part(v, &b, why, whylen))) break;
    }
  } else if (!rc) {
    rc = spec_part(spec, &b, why, whylen);
  }
  if (rc) {
    tbuf_free(&b);
    out->p = NULL;
    out->n = 0;
    return -1;
  }
  out->p = tbuf_take(&b, &out->n);
  return 0;
}

int bytes_field_get(json_t *obj, const char *key, tbytes *out) {
  out->p = NULL;
  out->n = 0;
  char k[64];
  snprintf(k, sizeof k, "%s_b64", key);
  json_t *v = json_object_get(obj, key), *b = json_object_get(obj, k);
  if (v && b) return -1;
  if (v) {
    if (!json_is_string(v)) return -1;
    out->p = xstrndup(json_string_value(v), json_string_length(v));
    out->n = json_string_length(v);
    return 1;
  }
  if (!b) {
    out->p = xstrdup("");
    return 0;
  }
  if (!json_is_string(b)) return -1;
  if (b64_decode(json_string_value(b), json_string_length(b), out)) return -1;
  return 1;
}

json_t *json_text(const char *s) {
  size_t n = strlen(s);
  if (sluice_utf8_valid(s, n)) return json_stringn(s, n);
  tbuf b = {0};
  for (size_t i = 0; i < n;) {
    size_t l = 1;
    while (l <= 4 && i + l <= n && !sluice_utf8_valid(s + i, l)) l++;
    int rc = (l <= 4 && i + l <= n) ? tbuf_add(&b, s + i, l) : tbuf_add(&b, "\xef\xbf\xbd", 3);
    if (rc) {
      tbuf_free(&b);
      return NULL;
    }
    i += (l <= 4 && i + l <= n) ? l : 1;
  }
  json_t *j = json_stringn(b.p ? b.p : "", b.n);
  tbuf_free(&b);
  return j;
}

/* One rendered unit at p (at most n bytes): how many bytes it takes. */
static size_t show_unit(tbuf *b, const unsigned char *p, size_t n) {
  unsigned char c = p[0];
  switch (c) {
  case '\n': tbuf_xadds(b, "\\n"); return 1;
  case '\r': tbuf_xadds(b, "\\r"); return 1;
  case '\t': tbuf_xadds(b, "\\t"); return 1;
  case '\\': tbuf_xadds(b, "\\\\"); return 1;
  case '"': tbuf_xadds(b, "\\\""); return 1;
  default: break;
  }
  if (c >= 0x20 && c < 0x7F) {
    tbuf_xadd(b, p, 1);
    return 1;
  }
  if (c >= 0x80) {
    size_t l = 2;
    while (l <= 4 && l <= n && !sluice_utf8_valid(p, l)) l++;
    if (l <= 4 && l <= n) {
      tbuf_xadd(b, p, l);
      return l;
    }
  }
  tbuf_xprintf(b, "\\x%02x", c);
  return 1;
}

void bytes_show(tbuf *b, const char *s, size_t n, size_t max) {
  const unsigned char *p = (const unsigned char *)s;
  tbuf_xadds(b, "\"");
  size_t head = n, tail_from = n;
  if (max && n > max) {
    head = max * 2 / 3;
    tail_from = n - (max - head);
  }
  size_t i = 0;
  while (i < head) i += show_unit(b, p + i, n - i);
  if (tail_from < n) {
    if (i < tail_from) tbuf_xprintf(b, "\" ... (%zu bytes) ... \"", tail_from - i);
    else tail_from = i;
    for (size_t j = tail_from; j < n;) j += show_unit(b, p + j, n - j);
  }
  tbuf_xadds(b, "\"");
}

void markup_escape(tbuf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '<': tbuf_xadds(b, "&lt;"); break;
    case '>': tbuf_xadds(b, "&gt;"); break;
    case '&': tbuf_xadds(b, "&amp;"); break;
    case '"': tbuf_xadds(b, "&quot;"); break;
    default:
      if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') tbuf_xadds(b, "?");
      else tbuf_xadd(b, s + i, 1);
    }
  }
}
