/*
 * util.c: bytes, base64, the case format's byte specs, and run_filter(), the
 * single path by which the protocol server and the conformance runner drive
 * the reference library.
 */
#include "tools.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int read_all(FILE *fp, tbytes *out) {
  size_t cap = 65536, n = 0;
  char *p = malloc(cap);
  if (!p) return -1;
  for (;;) {
    if (n == cap) {
      char *q = realloc(p, cap * 2);
      if (!q) {
        free(p);
        return -1;
      }
      p = q;
      cap *= 2;
    }
    size_t r = fread(p + n, 1, cap - n, fp);
    n += r;
    if (r == 0) break;
  }
  if (ferror(fp)) {
    free(p);
    return -1;
  }
  out->p = p;
  out->n = n;
  return 0;
}

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *b64_encode(const char *vp, size_t n) {
  const unsigned char *p = (const unsigned char *)vp;
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

static int b64val(unsigned char c) {
  const char *q = c ? strchr(b64chars, c) : NULL;
  return q ? (int)(q - b64chars) : -1;
}

int b64_decode(const char *s, size_t len, tbytes *out) {
  out->p = malloc(len / 4 * 3 + 3);
  out->n = 0;
  if (!out->p) return -1;
  uint32_t acc = 0;
  int bits = 0;
  size_t i = 0;
  for (; i < len && s[i] != '='; i++) {
    int v = b64val((unsigned char)s[i]);
    if (v < 0) goto bad;
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->p[out->n++] = (char)((acc >> bits) & 0xFF);
    }
  }
  for (; i < len; i++)
    if (s[i] != '=') goto bad;
  return 0;
bad:
  free(out->p);
  out->p = NULL;
  return -1;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int append(tbytes *b, const char *p, size_t n) {
  char *q = realloc(b->p, b->n + n + 1);
  if (!q) return -1;
  b->p = q;
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
  b->p[b->n] = '\0';
  return 0;
}

static int spec_part(json_t *spec, tbytes *out, char *why, size_t whylen) {
  if (json_is_string(spec)) return append(out, json_string_value(spec), json_string_length(spec));
  if (json_is_object(spec)) {
    json_t *hex = json_object_get(spec, "hex"), *b64 = json_object_get(spec, "b64");
    if (json_is_string(hex) && json_object_size(spec) == 1) {
      const char *h = json_string_value(hex);
      size_t n = json_string_length(hex);
      tbytes tmp = {NULL, 0};
      for (size_t i = 0; i < n; i++) {
        if (h[i] == ' ') continue;
        int a = hexval(h[i]), b = i + 1 < n ? hexval(h[i + 1]) : -1;
        if (a < 0 || b < 0) {
          free(tmp.p);
          snprintf(why, whylen, "bad hex digits in {\"hex\": \"%s\"}", h);
          return -1;
        }
        char c = (char)(a * 16 + b);
        if (append(&tmp, &c, 1)) return -1;
        i++;
      }
      int rc = append(out, tmp.p ? tmp.p : "", tmp.n);
      free(tmp.p);
      return rc;
    }
    if (json_is_string(b64) && json_object_size(spec) == 1) {
      tbytes tmp;
      if (b64_decode(json_string_value(b64), json_string_length(b64), &tmp)) {
        snprintf(why, whylen, "bad base64 in {\"b64\": ...}");
        return -1;
      }
      int rc = append(out, tmp.p, tmp.n);
      free(tmp.p);
      return rc;
    }
  }
  snprintf(why, whylen, "a byte string must be a string, {\"hex\": ...}, {\"b64\": ...} or an "
                        "array of those");
  return -1;
}

int bytes_from_spec(json_t *spec, tbytes *out, char *why, size_t whylen) {
  out->p = NULL;
  out->n = 0;
  if (append(out, "", 0)) return -1;
  int rc = 0;
  if (json_is_array(spec)) {
    size_t i;
    json_t *v;
    json_array_foreach(spec, i, v) {
      if (json_is_array(v) || spec_part(v, out, why, whylen)) {
        if (json_is_array(v)) snprintf(why, whylen, "byte-string arrays do not nest");
        rc = -1;
        break;
      }
    }
  } else {
    rc = spec_part(spec, out, why, whylen);
  }
  if (rc) {
    free(out->p);
    out->p = NULL;
    out->n = 0;
  }
  return rc;
}

void set_bytes_field(json_t *obj, const char *key, const char *p, size_t n) {
  if (sluice_utf8_valid(p, n)) {
    json_object_set_new(obj, key, json_stringn(p, n));
    return;
  }
  char k[64];
  snprintf(k, sizeof k, "%s_b64", key);
  char *s = b64_encode(p, n);
  json_object_set_new(obj, k, json_string(s ? s : ""));
  free(s);
}

int get_bytes_field(json_t *obj, const char *key, tbytes *out) {
  out->p = NULL;
  out->n = 0;
  json_t *v = json_object_get(obj, key);
  if (v) {
    if (!json_is_string(v)) return -1;
    return append(out, json_string_value(v), json_string_length(v));
  }
  char k[64];
  snprintf(k, sizeof k, "%s_b64", key);
  v = json_object_get(obj, k);
  if (!v) return append(out, "", 0);
  if (!json_is_string(v)) return -1;
  return b64_decode(json_string_value(v), json_string_length(v), out);
}

json_t *json_text(const char *s) {
  size_t n = strlen(s);
  if (sluice_utf8_valid(s, n)) return json_stringn(s, n);
  /* Invalid bytes become U+FFFD, so any text can be sent as a JSON string. */
  char *o = malloc(3 * n + 1);
  if (!o) return json_string("");
  size_t m = 0;
  for (size_t i = 0; i < n;) {
    size_t l = 1;
    while (l <= 4 && i + l <= n && !sluice_utf8_valid(s + i, l)) l++;
    if (l <= 4 && i + l <= n) {
      memcpy(o + m, s + i, l);
      m += l;
      i += l;
    } else {
      memcpy(o + m, "\xef\xbf\xbd", 3);
      m += 3;
      i++;
    }
  }
  json_t *j = json_stringn(o, m);
  free(o);
  return j;
}

json_t *error_answer(const char *code, const char *message, json_int_t offset) {
  json_t *e = json_object();
  json_object_set_new(e, "code", json_text(code));
  json_object_set_new(e, "message", json_text(message));
  json_object_set_new(e, "offset", json_integer(offset));
  json_t *a = json_object();
  json_object_set_new(a, "ok", json_false());
  json_object_set_new(a, "error", e);
  return a;
}

static json_t *event_json(const sluice_event *ev, const char *thought, size_t thought_len) {
  json_t *o = json_object();
  switch (ev->type) {
  case SLUICE_EV_THOUGHT: {
    json_object_set_new(o, "type", json_string("thought"));
    json_object_set_new(o, "tag", json_stringn(ev->name, ev->name_len));
    size_t off = ev->offset <= thought_len ? (size_t)ev->offset : thought_len;
    size_t len = ev->length <= thought_len - off ? (size_t)ev->length : thought_len - off;
    set_bytes_field(o, "text", thought + off, len);
    json_object_set_new(o, "complete", json_boolean(ev->complete));
    break;
  }
  case SLUICE_EV_STOP:
    json_object_set_new(o, "type", json_string("stop"));
    json_object_set_new(o, "reason", json_stringn(ev->name, ev->name_len));
    json_object_set_new(o, "offset", json_integer((json_int_t)ev->offset));
    break;
  case SLUICE_EV_SSE:
    json_object_set_new(o, "type", json_string("event"));
    set_bytes_field(o, "event", ev->name ? ev->name : "", ev->name_len);
    set_bytes_field(o, "data", ev->data ? ev->data : "", ev->data_len);
    set_bytes_field(o, "id", ev->id ? ev->id : "", ev->id_len);
    break;
  case SLUICE_EV_REPAIR:
    json_object_set_new(o, "type", json_string("repair"));
    json_object_set_new(o, "kind", json_stringn(ev->name, ev->name_len));
    json_object_set_new(o, "offset", json_integer((json_int_t)ev->offset));
    break;
  case SLUICE_EV_SNAPSHOT: /* a tail edit: FORMAT.md "json snapshots" */
    json_object_set_new(o, "type", json_string("snapshot"));
    json_object_set_new(o, "text_len", json_integer((json_int_t)ev->offset));
    json_object_set_new(o, "drop", json_integer((json_int_t)ev->length));
    set_bytes_field(o, "prepend", ev->data ? ev->data : "", ev->data_len);
    break;
  default:
    json_decref(o);
    return NULL;
  }
  return o;
}

json_t *run_filter(const char *filter, const char *options, size_t options_len,
                   const tbytes *chunks, size_t nchunks, sluice_output *out) {
  sluice_output_reset(out);
  sluice_sink sink = sluice_output_sink(out);
  sluice_filter *f = NULL;
  sluice_error err;
  sluice_status st = sluice_filter_new_json(&f, filter, options, options_len, &sink, NULL, &err);
  if (st != SLUICE_OK) {
    const char *code = sluice_status_name(st);
    return error_answer(code, err.message, (json_int_t)err.offset);
  }
  uint64_t max_held = 0;
  for (size_t i = 0; i < nchunks && st == SLUICE_OK; i++) {
    st = sluice_feed(f, chunks[i].p, chunks[i].n);
    uint64_t h = sluice_held(f);
    if (h > max_held) max_held = h;
  }
  if (st == SLUICE_OK) st = sluice_finish(f);
  if (st != SLUICE_OK) {
    const sluice_error *e = sluice_get_error(f);
    json_t *a = error_answer(sluice_status_name(st), e->message, (json_int_t)e->offset);
    sluice_free(f);
    return a;
  }
  sluice_free(f);
  if (sluice_output_status(out) != SLUICE_OK)
    return error_answer("nomem", "out of memory collecting the output", 0);

  json_t *a = json_object();
  json_object_set_new(a, "ok", json_true());
  static const char *const keys[] = {"text", "thought", "other", "markup", "dropped"};
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    size_t n;
    const char *p = sluice_output_channel(out, (sluice_channel)c, &n);
    set_bytes_field(a, keys[c], p, n);
  }
  size_t tl;
  const char *thought = sluice_output_channel(out, SLUICE_THOUGHT, &tl);
  json_t *events = json_array();
  for (size_t i = 0; i < sluice_output_event_count(out); i++) {
    const sluice_event *ev = sluice_output_event(out, i);
    if (ev->type == SLUICE_EV_VALUE) {
      json_t *v = json_loadb(ev->data, ev->data_len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
      /* An integer beyond json_int_t (kept exact in the text) loads as a real. */
      if (!v)
        v = json_loadb(ev->data, ev->data_len,
                       JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, NULL);
      json_object_set_new(a, "value", v ? v : json_null());
      json_object_set_new(a, "truncated", json_boolean(!ev->complete));
      continue;
    }
    json_t *e = event_json(ev, thought, tl);
    if (e) json_array_append_new(events, e);
  }
  json_object_set_new(a, "events", events);
  json_object_set_new(a, "max_held", json_integer((json_int_t)max_held));
  return a;
}

int wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return 1;
  return 0;
}

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
