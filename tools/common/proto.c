/*
 * proto.c: serving one protocol request.
 */
#include "proto.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "jsonw.h"
#include "reference.h"

static const char *const request_keys[] = {"id", "filter", "options", "chunks", "chunks_b64",
                                           "stream", NULL};

int proto_server_init(proto_server *s, size_t max_answer) {
  s->max_answer = max_answer;
  return sluice_output_new(&s->out, NULL) == SLUICE_OK ? 0 : -1;
}

void proto_server_free(proto_server *s) {
  sluice_output_free(s->out);
  s->out = NULL;
}

/* A message made readable: every byte that does not belong to a
 * well-formed UTF-8 sequence becomes '?' (jansson's error text quotes the
 * input "near" the error and can cut a character in two). */
static void readable_text(char *out, const char *p) {
  size_t n = strlen(p), o = 0;
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)p[i];
    size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len && i + len <= n && sluice_utf8_valid(p + i, len)) {
      memcpy(out + o, p + i, len);
      o += len;
      i += len;
    } else {
      out[o++] = '?';
      i++;
    }
  }
  out[o] = '\0';
}

/* A fixed line for when an answer cannot be built at all. */
static int emit_fixed(proto_emit_fn emit, void *user, const char *id, const char *code,
                      const char *message) {
  tbuf b = {0};
  jsonw w;
  jw_init(&w, &b);
  jw_begin_object(&w);
  jw_key(&w, "id");
  jw_raw(&w, id, strlen(id));
  jw_key(&w, "ok");
  jw_bool(&w, 0);
  jw_key(&w, "error");
  jw_begin_object(&w);
  jw_key(&w, "code");
  jw_string(&w, code, strlen(code));
  jw_key(&w, "message");
  char *text = malloc(strlen(message) + 1);
  if (text) {
    readable_text(text, message);
    jw_string(&w, text, strlen(text));
    free(text);
  } else {
    w.failed = 1;
  }
  jw_key(&w, "offset");
  jw_int(&w, 0);
  jw_end_object(&w);
  jw_end_object(&w);
  int rc;
  if (w.failed) {
    static const char nomem[] =
        "{\"id\":null,\"ok\":false,\"error\":{\"code\":\"nomem\",\"message\":\"out of memory\","
        "\"offset\":0}}";
    rc = emit(user, nomem, sizeof nomem - 1);
  } else {
    rc = emit(user, b.p, b.n);
  }
  tbuf_free(&b);
  return rc;
}

int proto_line_nomem(proto_emit_fn emit, void *user) {
  return emit_fixed(emit, user, "null", "nomem", "out of memory reading the request line");
}

/* ---------------- jansson's memory ---------------- */

static _Atomic unsigned long jansson_failures;

static void *counting_malloc(size_t n) {
  void *p = malloc(n);
  if (!p) jansson_failures++;
  return p;
}

void proto_watch_jansson_memory(void) { json_set_alloc_funcs(counting_malloc, free); }

/* Whether the lexer's memory for a line of n bytes is there: its token
 * buffer doubles, and the value is copied, so a few times n at once. The
 * probe is freed at once (large blocks go back to the system), so this is
 * a check, not a reservation. */
static int room_to_parse(size_t n) {
  if (n < ((size_t)1 << 20)) return 1;
  if (n > (SIZE_MAX - ((size_t)1 << 20)) / 6) return 0;
  void *p = malloc(6 * n + ((size_t)1 << 20));
  free(p);
  return p != NULL;
}

int proto_line_too_long(proto_emit_fn emit, void *user, size_t max_line) {
  char msg[160];
  snprintf(msg, sizeof msg, "the request line is longer than %zu bytes (--max-line)", max_line);
  return emit_fixed(emit, user, "null", "limit", msg);
}

/* The request's id, as JSON text to echo (malloc'd); "null" without one. */
static char *id_text(json_t *req) {
  json_t *id = json_is_object(req) ? json_object_get(req, "id") : NULL;
  if (!id) return strdup("null");
  return json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* One answer line: {"id": ..., ["feed": ...,] <the run's fields>}. */
static int emit_run(proto_server *s, refrun *r, const char *id, long feed, int final, int delta,
                    proto_emit_fn emit, void *user) {
  tbuf b = {0};
  b.limit = s->max_answer;
  jsonw w;
  jw_init(&w, &b);
  jw_begin_object(&w);
  jw_key(&w, "id");
  jw_raw(&w, id, strlen(id));
  if (delta) {
    jw_key(&w, "feed");
    if (final) jw_string(&w, "finish", 6);
    else jw_int(&w, feed);
  }
  refrun_write(r, &w, delta);
  jw_end_object(&w);
  int rc;
  if (w.failed) {
    int past_limit = s->max_answer && b.n + 4096 > s->max_answer;
    char msg[160];
    snprintf(msg, sizeof msg, "the answer would be longer than %zu bytes (--max-answer)",
             s->max_answer);
    /* The session ends here: nothing more is sent for this request. */
    r->st = SLUICE_LIMIT;
    rc = emit_fixed(emit, user, id, past_limit ? "limit" : "nomem",
                    past_limit ? msg : "out of memory building the answer");
  } else {
    rc = emit(user, b.p, b.n);
  }
  tbuf_free(&b);
  return rc;
}

/* Checks the request and collects its chunks (pointing into req, or
 * decoded base64 in *owned). NULL on success, else the reason. */
static const char *check_request(json_t *req, tbytes **chunks, size_t *nchunks, int *b64,
                                 int *stream, char *msg, size_t ml) {
  if (!json_is_object(req)) return "a request must be a JSON object";
  const char *key;
  json_t *v;
  json_object_foreach(req, key, v) {
    int known = 0;
    for (size_t i = 0; request_keys[i]; i++)
      if (strcmp(key, request_keys[i]) == 0) known = 1;
    if (!known) {
      snprintf(msg, ml, "unknown request field \"%.80s\"", key);
      return msg;
    }
  }
  json_t *filter = json_object_get(req, "filter");
  if (!json_is_string(filter)) return "\"filter\" must be a string";
  if (strlen(json_string_value(filter)) != json_string_length(filter))
    return "\"filter\" must not contain a NUL character";
  json_t *opts = json_object_get(req, "options");
  if (opts && !json_is_object(opts)) return "\"options\" must be an object";
  json_t *st = json_object_get(req, "stream");
  if (st && !json_is_boolean(st)) return "\"stream\" must be a boolean";
  *stream = json_is_true(st);
  json_t *jc = json_object_get(req, "chunks"), *jb = json_object_get(req, "chunks_b64");
  if ((jc != NULL) == (jb != NULL)) return "give exactly one of \"chunks\" and \"chunks_b64\"";
  json_t *arr = jc ? jc : jb;
  *b64 = jb != NULL;
  if (!json_is_array(arr)) return "\"chunks\" must be an array of strings";
  *nchunks = json_array_size(arr);
  *chunks = calloc(*nchunks ? *nchunks : 1, sizeof **chunks);
  if (!*chunks) return NULL; /* the caller answers nomem */
  for (size_t i = 0; i < *nchunks; i++) {
    json_t *c = json_array_get(arr, i);
    if (!json_is_string(c)) {
      snprintf(msg, ml, "chunk %zu is not a string", i);
      return msg;
    }
    if (!*b64) {
      (*chunks)[i].p = (char *)json_string_value(c);
      (*chunks)[i].n = json_string_length(c);
    } else if (b64_decode(json_string_value(c), json_string_length(c), &(*chunks)[i])) {
      snprintf(msg, ml, "chunk %zu is not canonical base64 (RFC 4648, with padding)", i);
      return msg;
    }
  }
  return NULL;
}

int proto_serve(proto_server *s, const char *line, size_t n, proto_emit_fn emit, void *user) {
  json_error_t jerr;
  if (!room_to_parse(n)) return emit_fixed(emit, user, "null", "nomem", "out of memory reading the request");
  unsigned long failures = jansson_failures;
  json_t *req = json_loadb(line, n, JSON_ALLOW_NUL, &jerr);
  if (jansson_failures != failures) {
    /* Whatever jansson made of it, part of the line was lost. */
    json_decref(req);
    return emit_fixed(emit, user, "null", "nomem", "out of memory reading the request");
  }
  if (!req) {
    if (json_error_code(&jerr) == json_error_out_of_memory)
      return emit_fixed(emit, user, "null", "nomem", "out of memory reading the request");
    char msg[300];
    snprintf(msg, sizeof msg, "invalid JSON at column %d: %s", jerr.column, jerr.text);
    return emit_fixed(emit, user, "null", "bad_request", msg);
  }
  char *id = id_text(req);
  tbytes *chunks = NULL;
  size_t nchunks = 0;
  int b64 = 0, stream = 0, rc = 0;
  char msg[200];
  if (!id) {
    rc = emit_fixed(emit, user, "null", "nomem", "out of memory echoing the id");
    goto done;
  }
  const char *why = check_request(req, &chunks, &nchunks, &b64, &stream, msg, sizeof msg);
  if (why || !chunks) {
    rc = emit_fixed(emit, user, id, why ? "bad_request" : "nomem",
                    why ? why : "out of memory reading the chunks");
    goto done;
  }
  json_t *opts = json_object_get(req, "options");
  char *otext = opts ? json_dumps(opts, JSON_COMPACT) : NULL;
  if (opts && !otext) {
    rc = emit_fixed(emit, user, id, "nomem", "out of memory reading the options");
    goto done;
  }
  refrun r;
  refrun_open(&r, s->out, json_string_value(json_object_get(req, "filter")), otext,
              otext ? strlen(otext) : 0);
  free(otext);
  if (r.st != SLUICE_OK) {
    /* The filter could not be built: in a session, at the first feed. */
    rc = emit_run(s, &r, id, 0, nchunks == 0, stream, emit, user);
  } else {
    for (size_t i = 0; i < nchunks && r.st == SLUICE_OK && rc == 0; i++) {
      refrun_feed(&r, chunks[i].p, chunks[i].n);
      if (stream) rc = emit_run(s, &r, id, (long)i, 0, 1, emit, user);
    }
    if (r.st == SLUICE_OK && rc == 0) {
      refrun_finish(&r);
      rc = emit_run(s, &r, id, (long)nchunks, 1, stream, emit, user);
    } else if (!stream && rc == 0) {
      rc = emit_run(s, &r, id, 0, 1, 0, emit, user); /* the error */
    }
  }
  refrun_close(&r);
done:
  if (b64 && chunks)
    for (size_t i = 0; i < nchunks; i++) free(chunks[i].p);
  free(chunks);
  free(id);
  json_decref(req);
  return rc;
}
