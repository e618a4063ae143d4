/*
 * refwrap.c: mutants of conformance/mutants/ whose bug lives where a filter
 * meets its stream, not in its rules: the reference library (served by
 * common/proto.c, as `sluice proto` serves it) with one such bug around it.
 *
 *   refwrap                       the reference as it is: the control
 *   refwrap no-snapshots          json incremental: never sends a snapshot
 *                                 (only the value at the end)
 *   refwrap late-snapshots        json incremental: each feed's snapshots go
 *                                 out with the next feed's answer (one chunk
 *                                 late), the last ones at finish
 *   refwrap repairs-sorted        json: keeps the repair events until the end
 *                                 of the stream and sends them sorted by
 *                                 offset, not in the order they were made
 *   refwrap max-bytes-code-points json: enforces max_bytes itself, in front
 *                                 of the sanitizer, counting code points (lead
 *                                 bytes) where DESIGN counts bytes
 *
 * and the pipeline with its configuration read wrong (the options are
 * rewritten before the reference builds it, as a port that misreads them
 * would build it):
 *
 *   refwrap stages-reversed       runs the filters in reverse order
 *   refwrap harmony-substring     switches harmony on for any model name that
 *                                 contains "gpt-oss", not only llama.cpp/gpt-oss
 *   refwrap harmony-false-ignored ignores "harmony": false
 *   refwrap choice-zero           shows choice 0 on the channels whatever the
 *                                 provider's "choice" says
 *
 * The snapshot and repair mutants move or drop whole events, so they do not
 * depend on how a snapshot is encoded.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "proto.h"

static const char *mode = "";
static proto_server ps;

typedef struct lines {
  json_t **v;
  size_t n;
} lines;

static int collect(void *user, const char *line, size_t n) {
  lines *ls = user;
  json_t *a = json_loadb(line, n, JSON_ALLOW_NUL, NULL);
  if (!a) die("refwrap: the reference wrote a line that is not JSON");
  ls->v = xrealloc(ls->v, xmul(ls->n + 1, sizeof *ls->v));
  ls->v[ls->n++] = a;
  return 0;
}

static void put(json_t *a) {
  char *s = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
  if (!s) die("refwrap: out of memory");
  fputs(s, stdout);
  fputc('\n', stdout);
  fflush(stdout);
  free(s);
}

/* The events of answer a whose "type" is type, taken out of it (in order). */
static json_t *take_events(json_t *a, const char *type) {
  json_t *ev = json_object_get(a, "events"), *keep = json_array(), *taken = json_array();
  size_t i;
  json_t *e;
  json_array_foreach(ev, i, e) {
    const char *t = json_string_value(json_object_get(e, "type"));
    json_array_append(t && strcmp(t, type) == 0 ? taken : keep, e);
  }
  if (ev) json_object_set(a, "events", keep);
  json_decref(keep);
  return taken;
}

static json_int_t offset_of(json_t *e) { return json_integer_value(json_object_get(e, "offset")); }

/* A stable sort of repair events by offset (insertion: the lists are short). */
static void sort_by_offset(json_t *arr) {
  size_t n = json_array_size(arr);
  for (size_t i = 1; i < n; i++) {
    json_t *e = json_incref(json_array_get(arr, i));
    size_t j = i;
    while (j > 0 && offset_of(json_array_get(arr, j - 1)) > offset_of(e)) {
      json_array_set(arr, j, json_array_get(arr, j - 1));
      j--;
    }
    json_array_set_new(arr, j, e);
  }
}

/* One request's answers (one line, or one per feed and one for finish),
 * changed by the mode. */
static void mutate(lines *ls) {
  json_t *carry = json_array();
  for (size_t i = 0; i < ls->n; i++) {
    json_t *a = ls->v[i], *ev = json_object_get(a, "events");
    int last = i + 1 == ls->n;
    if (!ev) continue;
    if (strcmp(mode, "no-snapshots") == 0) {
      json_decref(take_events(a, "snapshot"));
    } else if (strcmp(mode, "late-snapshots") == 0) {
      json_t *own = take_events(a, "snapshot"), *now = json_array();
      json_array_extend(now, carry);
      json_array_extend(now, json_object_get(a, "events"));
      if (last) json_array_extend(now, own);
      json_object_set_new(a, "events", now);
      json_decref(carry);
      carry = last ? json_array() : json_incref(own);
      json_decref(own);
    } else if (strcmp(mode, "repairs-sorted") == 0) {
      json_t *rep = take_events(a, "repair");
      json_array_extend(carry, rep);
      json_decref(rep);
      if (last) {
        sort_by_offset(carry);
        json_array_extend(json_object_get(a, "events"), carry);
        json_array_clear(carry);
      }
    }
  }
  json_decref(carry);
}

/* max-bytes-code-points: the request with the library's cap taken off, and
 * the feed (chunk index) at which counted code points pass the cap, with the
 * byte offset reported; -1 when they do not. */
static long count_cap(json_t *req, json_int_t *off) {
  json_t *opts = json_object_get(req, "options");
  json_int_t cap = json_integer_value(json_object_get(opts, "max_bytes"));
  const char *filter = json_string_value(json_object_get(req, "filter"));
  if (cap <= 0 || !filter || strcmp(filter, "json") != 0) return -1;
  json_object_set_new(opts, "max_bytes", json_integer(0));
  json_t *chunks = json_object_get(req, "chunks");
  int b64 = chunks == NULL;
  if (b64) chunks = json_object_get(req, "chunks_b64");
  json_int_t cps = 0, bytes = 0;
  size_t i;
  json_t *c;
  json_array_foreach(chunks, i, c) {
    tbytes b = {0};
    const char *p = json_string_value(c);
    size_t n = json_string_length(c);
    if (b64) {
      if (b64_decode(p, n, &b)) return -1; /* the server will say bad_request */
      p = b.p;
      n = b.n;
    }
    for (size_t k = 0; k < n; k++, bytes++) {
      if (((unsigned char)p[k] & 0xC0) == 0x80) continue; /* not a new character */
      if (++cps > cap) {
        *off = bytes;
        free(b.p);
        return (long)i;
      }
    }
    free(b.p);
  }
  return -1;
}

/* The pipeline modes: the request's options as the port reads them. 1 if
 * the request is one they change. */
static int misread_pipeline(json_t *req) {
  const char *filter = json_string_value(json_object_get(req, "filter"));
  json_t *opts = json_object_get(req, "options");
  if (!filter || strcmp(filter, "pipeline") != 0 || !json_is_object(opts)) return 0;
  if (strcmp(mode, "stages-reversed") == 0) {
    json_t *f = json_object_get(opts, "filters"), *r = json_array();
    for (size_t i = json_array_size(f); i > 0; i--) json_array_append(r, json_array_get(f, i - 1));
    if (json_is_array(f)) json_object_set(opts, "filters", r);
    json_decref(r);
  } else if (strcmp(mode, "harmony-substring") == 0) {
    const char *model = json_string_value(json_object_get(opts, "model"));
    if (model && strstr(model, "gpt-oss") && !json_object_get(opts, "harmony"))
      json_object_set_new(opts, "harmony", json_true());
  } else if (strcmp(mode, "harmony-false-ignored") == 0) {
    if (json_is_false(json_object_get(opts, "harmony"))) json_object_del(opts, "harmony");
  } else if (strcmp(mode, "choice-zero") == 0) {
    json_t *pv = json_object_get(opts, "provider");
    if (json_is_object(pv)) json_object_del(pv, "choice");
  } else {
    return 0;
  }
  return 1;
}

static void serve_line(char *line, size_t n) {
  lines ls = {0};
  json_t *req = json_loadb(line, n, 0, NULL);
  long at = -1;
  json_int_t off = 0;
  int changed = req && misread_pipeline(req);
  if (req && (changed || strcmp(mode, "max-bytes-code-points") == 0)) {
    if (!changed) at = count_cap(req, &off);
    char *s = json_dumps(req, JSON_COMPACT);
    if (s) proto_serve(&ps, s, strlen(s), collect, &ls);
    free(s);
  } else {
    proto_serve(&ps, line, n, collect, &ls);
  }
  mutate(&ls);
  int stream = json_is_true(json_object_get(req, "stream"));
  for (size_t i = 0; i < ls.n; i++) {
    json_t *a = ls.v[i];
    if (at >= 0 && (!stream || (size_t)at == i)) {
      json_t *err = json_pack("{s:o, s:b, s:{s:s, s:s, s:I}}", "id",
                              json_incref(json_object_get(req, "id")), "ok", 0, "error", "code",
                              "limit", "message", "the input passed max_bytes", "offset", off);
      if (stream) json_object_set_new(err, "feed", json_integer(at));
      put(err);
      json_decref(err);
      at = -2; /* nothing more for this request */
    } else if (at != -2) {
      put(a);
    }
  }
  for (size_t i = 0; i < ls.n; i++) json_decref(ls.v[i]);
  free(ls.v);
  json_decref(req);
}

int main(int argc, char **argv) {
  if (argc > 1) mode = argv[1];
  static const char *const modes[] = {"",
                                      "no-snapshots",
                                      "late-snapshots",
                                      "repairs-sorted",
                                      "max-bytes-code-points",
                                      "stages-reversed",
                                      "harmony-substring",
                                      "harmony-false-ignored",
                                      "choice-zero",
                                      NULL};
  size_t m = 0;
  while (modes[m] && strcmp(modes[m], mode) != 0) m++;
  if (!modes[m]) {
    fprintf(stderr, "refwrap: no mode \"%s\"\n", mode);
    return 2;
  }
  if (proto_server_init(&ps, (size_t)256 << 20)) return 1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) >= 0) {
    size_t n = (size_t)len;
    if (n && line[n - 1] == '\n') n--;
    serve_line(line, n);
  }
  free(line);
  proto_server_free(&ps);
  return 0;
}
