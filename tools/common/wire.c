/*
 * wire.c: secrets scrubbed, and the endpoints' stream types and error
 * shapes (wire.h).
 */
#include "wire.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

/* ---------------- the secret rule ---------------- */

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* name[0..len) percent-decoded, with only its ASCII letters (lowercased)
 * and digits kept, into out (at most cap - 1 bytes; a longer name is cut,
 * which keeps every match within its first cap - 1 kept bytes). */
static void normalize(const char *name, size_t len, char *out, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < len && k + 1 < cap; i++) {
    int c = (unsigned char)name[i];
    if (c == '%' && i + 2 < len && hexval(name[i + 1]) >= 0 && hexval(name[i + 2]) >= 0) {
      c = hexval(name[i + 1]) * 16 + hexval(name[i + 2]);
      i += 2;
    }
    if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out[k++] = (char)c;
  }
  out[k] = '\0';
}

int wire_secret_name(const char *name, size_t len) {
  static const char *const part[] = {"auth", "token", "key", "secret", "cookie", "sig",
                                     "passw", "pwd", "session", "credential", NULL};
  char norm[512];
  normalize(name, len, norm, sizeof norm);
  for (size_t i = 0; part[i]; i++)
    if (strstr(norm, part[i])) return 1;
  return 0;
}

int http_secret_header(const char *name) { return wire_secret_name(name, strlen(name)); }

int wire_header_name_ok(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > 256) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          strchr("!#$%&'*+-.^_`|~", c)))
      return 0;
  }
  return 1;
}

/* ---------------- query strings, forms, JSON ---------------- */

/* Appends the pairs of p[0..n) ('&' or ';' between them) to out, the
 * values of secret names redacted. */
static void scrub_pairs(tbuf *out, const char *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    while (j < n && p[j] != '&' && p[j] != ';') j++;
    const char *eq = memchr(p + i, '=', j - i);
    size_t name_len = eq ? (size_t)(eq - (p + i)) : j - i;
    if (eq && wire_secret_name(p + i, name_len)) {
      tbuf_xadd(out, p + i, name_len + 1);
      tbuf_xadds(out, WIRE_REDACTED);
    } else {
      tbuf_xadd(out, p + i, j - i);
    }
    if (j < n) tbuf_xadd(out, p + j, 1);
    i = j + 1;
  }
}

char *http_scrub_path(const char *path) {
  const char *q = strchr(path, '?');
  if (!q) return xstrdup(path);
  tbuf out = {0};
  tbuf_xadd(&out, path, (size_t)(q - path) + 1);
  scrub_pairs(&out, q + 1, strlen(q + 1));
  return tbuf_take(&out, NULL);
}

char *wire_scrub_form(const char *p, size_t n) {
  tbuf out = {0};
  scrub_pairs(&out, p, n);
  return tbuf_take(&out, NULL);
}

/* 1 when a name ends in "tokens": a count of tokens (max_tokens,
 * maxOutputTokens, budget_tokens), whose number is no secret. */
static int token_count(const char *name) {
  char norm[512];
  normalize(name, strlen(name), norm, sizeof norm);
  size_t n = strlen(norm);
  return n >= 6 && strcmp(norm + n - 6, "tokens") == 0;
}

/* A value under a secret name (the name it is under, or NULL in an array)
 * that is replaced whole: a string, or a number but a count of tokens
 * (true, false and null tell nothing). */
static int secret_scalar(const json_t *v, const char *name) {
  return json_is_string(v) || (json_is_number(v) && !(name && token_count(name)));
}

static int scrub_value(json_t *j, int hide, int depth) {
  if (depth > WIRE_MAX_DEPTH) return -1;
  if (json_is_array(j)) {
    for (size_t i = 0; i < json_array_size(j); i++) {
      json_t *v = json_array_get(j, i);
      if (hide && secret_scalar(v, NULL) ? json_array_set_new(j, i, json_string(WIRE_REDACTED))
                                   : scrub_value(v, hide, depth + 1))
        return -1;
    }
    return 0;
  }
  const char *key;
  json_t *v;
  json_object_foreach(j, key, v) {
    int h = hide || wire_secret_name(key, strlen(key));
    /* replacing the value of the current key does not disturb the iteration */
    if (h && secret_scalar(v, key) ? json_object_set_new(j, key, json_string(WIRE_REDACTED))
                              : scrub_value(v, h, depth + 1))
      return -1;
  }
  return 0;
}

int wire_scrub_json(json_t *j) { return scrub_value(j, 0, 0); }

/* ---------------- text ---------------- */

size_t wire_utf8_cut(const char *s, size_t n, size_t max) {
  if (n <= max) return n;
  size_t k = max;
  /* back over continuation bytes to the start of the character cut */
  while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80 && max - k < 4) k--;
  return k;
}

json_t *wire_text(const char *p, size_t n) {
  if (sluice_utf8_valid(p, n) && !memchr(p, '\0', n)) return json_stringn(p, n);
  tbuf b = {0};
  for (size_t i = 0; i < n;) {
    size_t l = 1;
    while (l <= 4 && i + l <= n && !sluice_utf8_valid(p + i, l)) l++;
    int ok = l <= 4 && i + l <= n && p[i] != '\0';
    if (ok ? tbuf_add(&b, p + i, l) : tbuf_add(&b, "\xef\xbf\xbd", 3)) {
      tbuf_free(&b);
      return NULL;
    }
    i += ok ? l : 1;
  }
  json_t *j = json_stringn(b.p ? b.p : "", b.n);
  tbuf_free(&b);
  return j;
}

int wire_set(json_t *o, const char *key, json_t *v) {
  if (!v) return -1;
  size_t n = strlen(key);
  if (sluice_utf8_valid(key, n)) return json_object_set_new(o, key, v);
  json_t *k = wire_text(key, n);
  int rc = k ? json_object_set_new(o, json_string_value(k), v) : (json_decref(v), -1);
  json_decref(k);
  return rc;
}

/* ---------------- the fields serve reads ---------------- */

enum { SC_START, SC_KEY, SC_COLON, SC_VALUE, SC_AFTER, SC_OTHER };

void wire_scan_init(wire_scan *s) {
  memset(s, 0, sizeof *s);
  s->stream = -1;
}

/* A JSON string's raw text (with its quotes) decoded, or NULL. */
static json_t *decode_string(const char *raw, size_t n) {
  json_t *j = json_loadb(raw, n, JSON_DECODE_ANY, NULL);
  if (json_is_string(j)) return j;
  json_decref(j);
  return NULL;
}

/* A top-level key read whole: which value (if any) to keep. */
static void key_done(wire_scan *s) {
  s->which = 0;
  if (s->key_long) return;
  json_t *k = decode_string(s->key, s->key_n);
  const char *v = json_string_value(k);
  if (v && strcmp(v, "model") == 0) s->which = 1;
  else if (v && strcmp(v, "stream") == 0) s->which = 2;
  json_decref(k);
}

/* A top-level value read whole (its raw text in val). */
static void value_done(wire_scan *s) {
  if (s->which == 2 && !s->val_long) {
    if (s->val_n == 4 && memcmp(s->val, "true", 4) == 0) s->stream = 1;
    else if (s->val_n == 5 && memcmp(s->val, "false", 5) == 0) s->stream = 0;
    else s->stream = -1; /* not a boolean: as if not there */
  } else if (s->which == 1) {
    json_t *m = s->val_long ? NULL : decode_string(s->val, s->val_n);
    s->has_model = m != NULL;
    s->model[0] = '\0';
    if (m) {
      const char *v = json_string_value(m);
      size_t n = wire_utf8_cut(v, json_string_length(m), sizeof s->model - 1);
      memcpy(s->model, v, n);
      s->model[n] = '\0';
    }
    json_decref(m);
  }
  s->which = 0;
  s->val_n = 0;
  s->val_long = 0;
}

static void keep_byte(char *buf, size_t cap, size_t *n, int *too_long, char c) {
  if (*n < cap) buf[(*n)++] = c;
  else *too_long = 1;
}

/* One byte outside a string. */
static void scan_structure(wire_scan *s, char c) {
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return;
  int top = s->depth == 1 && s->top_object;
  if (c == '"') {
    s->in_str = 1;
    if (top && s->state == SC_KEY) s->key_n = 0, s->key_long = 0;
  } else if (c == '{' || c == '[') {
    if (s->depth == 0 && s->state == SC_START) s->top_object = c == '{', s->state = SC_KEY;
    else if (top && s->state == SC_VALUE) s->which = 0, s->state = SC_AFTER;
    if (++s->depth > s->max_depth) s->max_depth = s->depth;
    return;
  } else if (c == '}' || c == ']') {
    if (top && s->state == SC_VALUE) value_done(s);
    if (s->depth > 0) s->depth--;
    if (s->depth == 0) s->state = SC_OTHER;
    return;
  } else if (top && c == ':' && s->state == SC_COLON) {
    s->state = SC_VALUE;
    return;
  } else if (top && c == ',') {
    if (s->state == SC_VALUE) value_done(s);
    s->state = SC_KEY;
    return;
  } else if (s->depth == 0) {
    s->state = SC_OTHER; /* not an object */
    return;
  }
  if (top && (s->state == SC_KEY || s->state == SC_VALUE)) {
    if (s->state == SC_KEY) keep_byte(s->key, sizeof s->key, &s->key_n, &s->key_long, c);
    else if (s->which) keep_byte(s->val, sizeof s->val, &s->val_n, &s->val_long, c);
  }
}

void wire_scan_feed(wire_scan *s, const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (!s->in_str) {
      scan_structure(s, c);
      continue;
    }
    int top = s->depth == 1 && s->top_object;
    if (top && s->state == SC_KEY) keep_byte(s->key, sizeof s->key, &s->key_n, &s->key_long, c);
    else if (top && s->state == SC_VALUE && s->which)
      keep_byte(s->val, sizeof s->val, &s->val_n, &s->val_long, c);
    if (s->esc) s->esc = 0;
    else if (c == '\\') s->esc = 1;
    else if (c == '"') {
      s->in_str = 0;
      if (top && s->state == SC_KEY) key_done(s), s->state = SC_COLON;
    }
  }
}

/* ---------------- what a log or capture keeps of a body ---------------- */

/* 1 when p[0..n) is shaped like a form: name=value pairs ('&' or ';'
 * between them) of visible ASCII without JSON's or markup's punctuation.
 * Only such a body that is not JSON is kept as text: in any other text a
 * secret could stand under no name the rule can see. */
static int form_like(const char *p, size_t n) {
  int has_eq = 0;
  for (size_t i = 0; i <= n; i++) {
    unsigned char c = i < n ? (unsigned char)p[i] : '&';
    if (c == '&' || c == ';') {
      if (!has_eq && i > 0 && p[i - 1] != '&' && p[i - 1] != ';') return 0;
      has_eq = 0;
    } else if (c == '=') {
      has_eq = 1;
    } else if (c <= 0x20 || c >= 0x7F || strchr("\"{}<>\\`", c)) {
      return 0;
    }
  }
  return 1;
}

static int set_body_text(json_t *dst, const char *p, size_t n) {
  char *form = wire_scrub_form(p, n);
  int rc = wire_set(dst, "body_text", wire_text(form, strlen(form)));
  free(form);
  return rc;
}

int wire_body_fields(json_t *dst, const char *p, size_t n, uint64_t total, size_t keep,
                     const wire_scan *s) {
  if (total == 0) return 0;
  if (n == total && n <= keep) {
    /* jansson parses recursively, and a server thread's stack is small */
    wire_scan depth;
    wire_scan_init(&depth);
    wire_scan_feed(&depth, p, n);
    json_t *j = depth.max_depth <= WIRE_MAX_DEPTH ? json_loadb(p, n, 0, NULL) : NULL;
    if (j && wire_scrub_json(j) == 0) return json_object_set_new(dst, "body", j);
    json_decref(j);
    if (form_like(p, n)) return set_body_text(dst, p, n);
  }
  if (json_object_set_new(dst, "body_bytes", json_integer((json_int_t)total))) return -1;
  if (s && s->has_model && json_object_set_new(dst, "model", wire_text(s->model, strlen(s->model))))
    return -1;
  if (s && s->stream >= 0 && json_object_set_new(dst, "stream", json_boolean(s->stream)))
    return -1;
  return 0;
}

const char *http_stream_type(sluice_endpoint f) {
  if (f == SLUICE_ENDPOINT_OLLAMA_CHAT || f == SLUICE_ENDPOINT_OLLAMA_GENERATE) return "application/x-ndjson";
  return "text/event-stream; charset=utf-8";
}

/* The type names each provider gives an HTTP status. */
static const char *openai_type(int st) {
  return st == 429 ? "requests" : st >= 500 ? "server_error" : "invalid_request_error";
}
static const char *anthropic_type(int st) {
  switch (st) {
  case 401: return "authentication_error";
  case 403: return "permission_error";
  case 404: return "not_found_error";
  case 413: return "request_too_large";
  case 429: return "rate_limit_error";
  case 529: return "overloaded_error";
  default: return st >= 500 ? "api_error" : "invalid_request_error";
  }
}
static const char *gemini_status(int st) {
  switch (st) {
  case 400: return "INVALID_ARGUMENT";
  case 401: return "UNAUTHENTICATED";
  case 403: return "PERMISSION_DENIED";
  case 404: return "NOT_FOUND";
  case 429: return "RESOURCE_EXHAUSTED";
  case 503: return "UNAVAILABLE";
  default: return st >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

/* The text of j (taken); NULL when out of memory. */
static char *dump(json_t *j) {
  char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  return s;
}

/* The message as a JSON string, at most 2000 bytes cut at a character. */
static json_t *message(const char *msg) {
  size_t n = strlen(msg);
  return wire_text(msg, wire_utf8_cut(msg, n, 2000));
}

char *http_error_body(sluice_endpoint f, int st, const char *msg) {
  json_t *m = message(msg);
  if (!m) return NULL;
  switch (f) {
  case SLUICE_ENDPOINT_ANTHROPIC:
    return dump(json_pack("{s:s,s:{s:s,s:o}}", "type", "error", "error", "type",
                          anthropic_type(st), "message", m));
  case SLUICE_ENDPOINT_GEMINI:
    return dump(json_pack("{s:{s:i,s:o,s:s}}", "error", "code", st, "message", m, "status",
                          gemini_status(st)));
  case SLUICE_ENDPOINT_OLLAMA_CHAT:
  case SLUICE_ENDPOINT_OLLAMA_GENERATE: return dump(json_pack("{s:o}", "error", m));
  default:
    return dump(json_pack("{s:{s:o,s:s,s:n,s:s}}", "error", "message", m, "type",
                          openai_type(st), "param", "code",
                          st == 429 ? "rate_limit_exceeded" : st == 401 ? "invalid_api_key"
                                                                       : openai_type(st)));
  }
}

/* The in-stream error's JSON (without framing); NULL when out of memory. */
static char *error_json(sluice_endpoint f, json_t *m) {
  switch (f) {
  case SLUICE_ENDPOINT_ANTHROPIC:
    return dump(json_pack("{s:s,s:{s:s,s:o}}", "type", "error", "error", "type",
                          "overloaded_error", "message", m));
  case SLUICE_ENDPOINT_OPENAI_RESPONSES:
    return dump(json_pack("{s:s,s:s,s:o,s:n}", "type", "error", "code", "server_error",
                          "message", m, "param"));
  case SLUICE_ENDPOINT_GEMINI:
    return dump(json_pack("{s:{s:i,s:o,s:s}}", "error", "code", 500, "message", m, "status",
                          "INTERNAL"));
  case SLUICE_ENDPOINT_OLLAMA_CHAT:
  case SLUICE_ENDPOINT_OLLAMA_GENERATE: return dump(json_pack("{s:o}", "error", m));
  default:
    return dump(json_pack("{s:{s:o,s:s,s:n,s:n}}", "error", "message", m, "type",
                          "server_error", "param", "code"));
  }
}

char *http_error_event(sluice_endpoint f, const char *msg) {
  json_t *m = message(msg);
  char *j = m ? error_json(f, m) : NULL;
  if (!j) return NULL;
  tbuf b = {0};
  int rc;
  if (f == SLUICE_ENDPOINT_ANTHROPIC || f == SLUICE_ENDPOINT_OPENAI_RESPONSES)
    rc = tbuf_printf(&b, "event: error\ndata: %s\n\n", j);
  else if (f == SLUICE_ENDPOINT_GEMINI) rc = tbuf_printf(&b, "data: %s\r\n\r\n", j);
  else if (f == SLUICE_ENDPOINT_OLLAMA_CHAT || f == SLUICE_ENDPOINT_OLLAMA_GENERATE)
    rc = tbuf_printf(&b, "%s\n", j);
  else rc = tbuf_printf(&b, "data: %s\n\n", j);
  free(j);
  if (rc) {
    tbuf_free(&b);
    return NULL;
  }
  return tbuf_take(&b, NULL);
}
