/*
 * wire.h: what the network commands (serve, record, capture import, gate)
 * share that needs no server library: secrets scrubbed from headers, query
 * strings, form and JSON bodies by one rule, the two fields serve reads
 * from a request body taken from it as it streams, text made safe for
 * JSON and messages, and each endpoint's stream type and error shapes.
 */
#ifndef SLUICE_TOOLS_WIRE_H
#define SLUICE_TOOLS_WIRE_H

#include <jansson.h>
#include <stdint.h>

#include "sluice.h"
#include "util.h"

#define WIRE_REDACTED "[redacted]"

/* The rule: a name (of a header, a query or form parameter, a JSON key)
 * names a secret when, percent-decoded ('+' as a space), trimmed,
 * lowercased and with everything but ASCII letters and digits left out, it
 * contains auth, token, key, secret, cookie, sig (signature), passw, pwd,
 * session or credential. */
int wire_secret_name(const char *name, size_t len);
/* The same for a NUL-terminated header name (kept for its callers). */
int http_secret_header(const char *name);
/* 1 when name is an HTTP token (RFC 9110 tchar, 1 to 256 bytes): a header
 * name that is not one is refused with 400. */
int wire_header_name_ok(const char *name);

/* The path with the values of secret parameters of its query ('&' and ';'
 * separated) replaced by "[redacted]"; malloc'd. */
char *http_scrub_path(const char *path);
/* Form-encoded text (a=b&c=d) the same way; malloc'd, NUL-terminated. */
char *wire_scrub_form(const char *p, size_t n);
#define WIRE_MAX_DEPTH 64 /* a kept JSON body nested deeper is not parsed */

/* Every string or number under a secret key of j (top-level or nested,
 * and inside arrays and objects under it) replaced by "[redacted]", in
 * place; booleans and null are kept, and so is the number of a key ending
 * in "tokens" (a max_tokens is a count, no secret). 0, or -1 when jansson
 * refuses (out of memory) or j nests deeper than WIRE_MAX_DEPTH. */
int wire_scrub_json(json_t *j);

/* The longest prefix of s[0..n) of at most max bytes that does not end
 * inside a UTF-8 character. */
size_t wire_utf8_cut(const char *s, size_t n, size_t max);
/* A JSON string of p[0..n), invalid UTF-8 (and NUL) as U+FFFD; NULL only
 * when out of memory. */
json_t *wire_text(const char *p, size_t n);
/* o[key] = v (taken), the key made valid UTF-8 first; 0 or -1. */
int wire_set(json_t *o, const char *key, json_t *v);

/* The fields serve reads from a request body, taken as the body streams
 * past (no tree of it is built): the top-level "model" (a string) and
 * "stream" (true or false), as the last of each. */
typedef struct wire_scan {
  int depth, in_str, esc, state, top_object;
  int max_depth;      /* the deepest nesting seen */
  char key[16];       /* the current top-level key, when short */
  size_t key_n;
  int key_long;
  int which;          /* 1: model's value, 2: stream's value, being read */
  char val[1040];     /* its raw text (a string with its quotes) */
  size_t val_n;
  int val_long;
  char model[256];    /* decoded; "" when none */
  int has_model, stream; /* stream: -1 unset, 0 false, 1 true */
} wire_scan;

void wire_scan_init(wire_scan *s);
void wire_scan_feed(wire_scan *s, const char *p, size_t n);

/* The fields a log or a capture keeps of a request body of `total` bytes
 * whose first n bytes are p (all of it when n == total), set in dst: a
 * body of at most keep bytes as "body" (JSON nested at most WIRE_MAX_DEPTH
 * deep, scrubbed) or "body_text" (shaped like a form, form-scrubbed); any
 * other as "body_bytes" with the scanned "model" and "stream". 0, or -1
 * when out of memory. */
int wire_body_fields(json_t *dst, const char *p, size_t n, uint64_t total, size_t keep,
                     const wire_scan *s);

/* The content type of an endpoint's stream. */
const char *http_stream_type(sluice_endpoint f);
/* A provider-shaped error: the JSON body of an HTTP error with this status,
 * and the in-stream error event (with its SSE or NDJSON framing). The
 * message may be any bytes (invalid UTF-8 is replaced). malloc'd; NULL only
 * when out of memory. */
char *http_error_body(sluice_endpoint f, int status, const char *message);
char *http_error_event(sluice_endpoint f, const char *message);

#endif
