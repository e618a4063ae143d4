/*
 * badimpl.c: a protocol server that is wrong on purpose, one way per mode,
 * so the tests can show that `sluice conform` reports each way correctly
 * (and survives it). It serves the reference library (common/proto.c) and
 * then misbehaves:
 *
 *   good         nothing wrong (the control)
 *   chunky       filters every chunk on its own (chunk-dependent output)
 *   buffer       in a streaming session, releases nothing until finish
 *   early        in a streaming session, releases the first byte of a tag
 *                (held back by the reference) one feed early
 *   crash-once   the first request whose input holds "<thinking>" crashes
 *                it (SIGSEGV), once: a marker file ($BADIMPL_MARKER) says so
 *   banner       prints a start-up banner line first
 *   duplicate    answers request 3 twice
 *   swap         answers requests 2 and 3 in the wrong order
 *   garbage      writes a line that is not JSON before the answer to request 2
 *   wrong-id     answers request 2 with another id
 *   missing      leaves the "thought" field out of every answer
 *   hang         at request 2 ignores SIGTERM, starts a child that does
 *                too, and never answers
 *   flood        writes 4 MiB to stderr before every answer
 *   noflush      never flushes its output (a full stdio buffer)
 *   endless      writes an endless line
 *   late-snap    in a streaming json session, sends each snapshot one feed
 *                late
 *   no-snap      in a streaming json session, sends no snapshot
 *   bad-snap     in a streaming json session, sends the first snapshot with
 *                one byte too many in its "prepend"
 *   early-event  in a streaming session, raises an event one feed early
 *   fail-early   in a streaming session whose answer is an error, fails at
 *                the first feed (the reference fails where it is fed the
 *                byte that shows the error)
 *   bad-value    writes every json value as 1e999, a number no double holds
 *                (the line is not JSON the runner can read)
 *   skip-feed    in a streaming session, leaves out the line of feed 1
 *   session-id   in a streaming session, answers feed 0 with another id
 *   extra-line   in a streaming session, writes its last line twice
 *   no-stream    answers "unsupported" to every streaming request
 *   batch-only   answers a streaming request with one batch answer (it does
 *                not implement streaming sessions)
 */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "answer.h"
#include "bytes.h"
#include "jsonw.h"
#include "proto.h"

static const char *mode;
static proto_server ps;
static long nreq;
static tstrs lines; /* the reference's answer lines to the current request */

static int collect(void *user, const char *line, size_t n) {
  (void)user;
  tstrs_push(&lines, xstrndup(line, n));
  return 0;
}

static void out_line(const char *s) {
  fputs(s, stdout);
  fputc('\n', stdout);
  if (strcmp(mode, "noflush") != 0) fflush(stdout);
}

static void serve(const char *line, size_t n) {
  for (size_t i = 0; i < lines.n; i++) free(lines.v[i]);
  lines.n = 0;
  proto_serve(&ps, line, n, collect, NULL);
}

static char *dump(json_t *o) {
  char *s = json_dumps(o, JSON_COMPACT);
  if (!s) abort();
  return s;
}

/* Serves a request given as JSON (a variant of the one received). */
static void serve_json(json_t *req) {
  char *s = dump(req);
  serve(s, strlen(s));
  free(s);
}

/* chunky: each chunk through the filter alone, the answers joined. */
static void chunky(json_t *req) {
  json_t *chunks = json_object_get(req, "chunks");
  const char *ck = chunks ? "chunks" : "chunks_b64";
  if (!chunks) chunks = json_object_get(req, "chunks_b64");
  tbuf acc[5] = {{0}};
  json_t *events = json_array(), *last = NULL;
  size_t i;
  json_t *c;
  json_array_foreach(chunks, i, c) {
    json_t *sub = json_deep_copy(req);
    json_t *one = json_array();
    json_array_append(one, c);
    json_object_set_new(sub, ck, one);
    json_object_del(sub, "stream");
    serve_json(sub);
    json_decref(sub);
    json_t *a = json_loads(lines.v[0], 0, NULL);
    if (!json_is_true(json_object_get(a, "ok"))) {
      json_decref(last);
      last = a;
      break;
    }
    for (int k = 0; k < 5; k++) {
      tbytes b;
      bytes_field_get(a, sluice_channel_name((sluice_channel)k), &b);
      tbuf_xadd(&acc[k], b.p, b.n);
      free(b.p);
    }
    json_array_extend(events, json_object_get(a, "events"));
    json_decref(last);
    last = a;
  }
  tbuf out = {0};
  jsonw w;
  jw_init(&w, &out);
  jw_begin_object(&w);
  char *id = json_dumps(json_object_get(req, "id"), JSON_ENCODE_ANY);
  jw_key(&w, "id");
  jw_raw(&w, id, strlen(id));
  free(id);
  if (last && !json_is_true(json_object_get(last, "ok"))) {
    char *e = json_dumps(json_object_get(last, "error"), JSON_COMPACT);
    jw_key(&w, "ok");
    jw_bool(&w, 0);
    jw_key(&w, "error");
    jw_raw(&w, e, strlen(e));
    free(e);
  } else {
    jw_key(&w, "ok");
    jw_bool(&w, 1);
    for (int k = 0; k < 5; k++) jw_bytes_field(&w, sluice_channel_name((sluice_channel)k), acc[k].p ? acc[k].p : "", acc[k].n);
    char *e = dump(events);
    jw_key(&w, "events");
    jw_raw(&w, e, strlen(e));
    free(e);
  }
  jw_end_object(&w);
  out_line(out.p);
  tbuf_free(&out);
  for (int k = 0; k < 5; k++) tbuf_free(&acc[k]);
  json_decref(events);
  json_decref(last);
}

/* buffer: the session's answer lines, with everything moved to finish. */
static void buffer(json_t *req) {
  json_t *batch = json_deep_copy(req);
  json_object_del(batch, "stream");
  serve_json(batch);
  json_decref(batch);
  json_t *whole = json_loads(lines.v[0], 0, NULL);
  size_t n = json_array_size(json_object_get(req, "chunks")) +
             json_array_size(json_object_get(req, "chunks_b64"));
  char *id = json_dumps(json_object_get(req, "id"), JSON_ENCODE_ANY);
  if (!json_is_true(json_object_get(whole, "ok"))) n = 0;
  for (size_t i = 0; i < n; i++) {
    char line[400];
    snprintf(line, sizeof line,
             "{\"id\":%s,\"feed\":%zu,\"ok\":true,\"text\":\"\",\"thought\":\"\",\"other\":\"\","
             "\"markup\":\"\",\"dropped\":\"\",\"events\":[]}",
             id, i);
    out_line(line);
  }
  json_object_set_new(whole, "feed", json_string("finish"));
  json_object_del(whole, "max_held");
  char *w = dump(whole);
  out_line(w);
  free(w);
  free(id);
  json_decref(whole);
}

/* early: the first markup a feed releases (a tag, complete only with that
 * feed's byte) loses its first byte to the previous feed's line: a partial
 * tag released one feed early. The whole output is unchanged. */
static void early(void) {
  json_t **a = calloc(lines.n, sizeof *a);
  for (size_t i = 0; i < lines.n; i++) a[i] = json_loads(lines.v[i], 0, NULL);
  for (size_t i = 1; i < lines.n; i++) {
    json_t *m0 = json_object_get(a[i - 1], "markup"), *m1 = json_object_get(a[i], "markup");
    if (!json_is_string(m0) || !json_is_string(m1) || json_string_length(m1) < 2) continue;
    const char *s1 = json_string_value(m1);
    tbuf b = {0};
    tbuf_xadd(&b, json_string_value(m0), json_string_length(m0));
    tbuf_xadd(&b, s1, 1);
    json_object_set_new(a[i - 1], "markup", json_stringn(b.p, b.n));
    json_object_set_new(a[i], "markup", json_stringn(s1 + 1, json_string_length(m1) - 1));
    tbuf_free(&b);
    break;
  }
  for (size_t i = 0; i < lines.n; i++) {
    char *s = dump(a[i]);
    out_line(s);
    free(s);
    json_decref(a[i]);
  }
  free(a);
}

/* late-snap: every snapshot event moves to the next feed's line. */
static void late_snap(void) {
  json_t *carry = json_array();
  for (size_t i = 0; i < lines.n; i++) {
    json_t *a = json_loads(lines.v[i], 0, NULL), *ev = json_object_get(a, "events");
    json_t *keep = json_array(), *moved = json_array();
    size_t k;
    json_t *e;
    json_array_foreach(ev, k, e) {
      json_t *t = json_object_get(e, "type");
      int snap = json_is_string(t) && strcmp(json_string_value(t), "snapshot") == 0;
      json_array_append(snap && i + 1 < lines.n ? moved : keep, e);
    }
    json_array_extend(carry, keep);
    if (ev) json_object_set(a, "events", carry);
    json_decref(carry);
    carry = moved;
    json_decref(keep);
    char *s = dump(a);
    out_line(s);
    free(s);
    json_decref(a);
  }
  json_decref(carry);
}

/* The session's lines as JSON, to be changed and written. */
typedef struct jlines {
  json_t **v;
  size_t n;
} jlines;

static void jl_load(jlines *a) {
  a->n = lines.n;
  a->v = calloc(lines.n ? lines.n : 1, sizeof *a->v);
  for (size_t i = 0; i < lines.n; i++) a->v[i] = json_loads(lines.v[i], 0, NULL);
}

/* Writes every line (but the one at `skip`, and line `twice` twice). */
static void jl_write(jlines *a, size_t skip, size_t twice) {
  for (size_t i = 0; i < a->n; i++) {
    char *s = dump(a->v[i]);
    if (i != skip) out_line(s);
    if (i == twice) out_line(s);
    free(s);
    json_decref(a->v[i]);
  }
  free(a->v);
}

/* no-snap, bad-snap: the snapshot events dropped, or the first changed. */
static void snapshots(int drop) {
  jlines a;
  jl_load(&a);
  int changed = 0;
  for (size_t i = 0; i < a.n; i++) {
    json_t *ev = json_object_get(a.v[i], "events"), *keep = json_array(), *e;
    size_t k;
    json_array_foreach(ev, k, e) {
      json_t *t = json_object_get(e, "type");
      int snap = json_is_string(t) && strcmp(json_string_value(t), "snapshot") == 0;
      json_t *p = json_object_get(e, "prepend");
      if (snap && !drop && !changed && json_is_string(p)) {
        tbuf b = {0};
        tbuf_xadd(&b, json_string_value(p), json_string_length(p));
        tbuf_xadds(&b, " ");
        json_object_set_new(e, "prepend", json_stringn(b.p, b.n));
        tbuf_free(&b);
        changed = 1;
      }
      if (!snap || !drop) json_array_append(keep, e);
    }
    if (ev) json_object_set(a.v[i], "events", keep);
    json_decref(keep);
  }
  jl_write(&a, (size_t)-1, (size_t)-1);
}

/* early-event: the first event of a line after the first moves to the
 * line before. */
static void early_event(void) {
  jlines a;
  jl_load(&a);
  for (size_t i = 1; i < a.n; i++) {
    json_t *ev = json_object_get(a.v[i], "events"), *prev = json_object_get(a.v[i - 1], "events");
    if (!json_array_size(ev) || !prev) continue;
    json_array_append(prev, json_array_get(ev, 0));
    json_array_remove(ev, 0);
    break;
  }
  jl_write(&a, (size_t)-1, (size_t)-1);
}

/* fail-early: an error answer's line comes at the first feed. */
static void fail_early(json_t *req) {
  json_t *last = json_loads(lines.v[lines.n - 1], 0, NULL);
  if (json_is_true(json_object_get(last, "ok"))) {
    json_decref(last);
    for (size_t i = 0; i < lines.n; i++) out_line(lines.v[i]);
    return;
  }
  size_t n = json_array_size(json_object_get(req, "chunks")) +
             json_array_size(json_object_get(req, "chunks_b64"));
  json_object_set_new(last, "feed", n ? json_integer(0) : json_string("finish"));
  char *s = dump(last);
  out_line(s);
  free(s);
  json_decref(last);
}

/* bad-value: the answer's "value" as 1e999. */
static void bad_value(const char *l) {
  json_t *a = json_loads(l, 0, NULL);
  if (!json_object_get(a, "value")) {
    out_line(l);
    json_decref(a);
    return;
  }
  json_object_set_new(a, "value", json_string("@VALUE@"));
  char *s = dump(a);
  char *at = strstr(s, "\"@VALUE@\"");
  tbuf b = {0};
  tbuf_xadd(&b, s, (size_t)(at - s));
  tbuf_xadds(&b, "1e999");
  tbuf_xadds(&b, at + 9);
  out_line(b.p);
  tbuf_free(&b);
  free(s);
  json_decref(a);
}

/* The streaming modes that change a session's lines. 1 if handled. */
static int session_mode(json_t *req) {
  jlines a;
  if (strcmp(mode, "early") == 0) early();
  else if (strcmp(mode, "late-snap") == 0) late_snap();
  else if (strcmp(mode, "no-snap") == 0) snapshots(1);
  else if (strcmp(mode, "bad-snap") == 0) snapshots(0);
  else if (strcmp(mode, "early-event") == 0) early_event();
  else if (strcmp(mode, "fail-early") == 0) fail_early(req);
  else if (strcmp(mode, "skip-feed") == 0 || strcmp(mode, "extra-line") == 0) {
    jl_load(&a);
    int skip = strcmp(mode, "skip-feed") == 0;
    jl_write(&a, skip && a.n > 2 ? 1 : (size_t)-1, skip ? (size_t)-1 : a.n - 1);
  } else if (strcmp(mode, "session-id") == 0) {
    jl_load(&a);
    json_object_set_new(a.v[0], "id", json_integer(json_integer_value(json_object_get(a.v[0], "id")) + 1000));
    jl_write(&a, (size_t)-1, (size_t)-1);
  } else {
    return 0;
  }
  return 1;
}

static int input_has(json_t *req, const char *needle) {
  json_t *chunks = json_object_get(req, "chunks");
  tbuf all = {0};
  size_t i;
  json_t *c;
  json_array_foreach(chunks, i, c) tbuf_xadd(&all, json_string_value(c), json_string_length(c));
  int found = all.p && strstr(all.p, needle) != NULL;
  tbuf_free(&all);
  return found;
}

int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "good";
  if (proto_server_init(&ps, (size_t)256 << 20)) return 1;
  if (strcmp(mode, "noflush") == 0) setvbuf(stdout, NULL, _IOFBF, 1 << 20);
  if (strcmp(mode, "banner") == 0) out_line("badimpl 1.0 ready");
  if (strcmp(mode, "endless") == 0) {
    char zeros[65536] = {0};
    for (;;)
      if (fwrite(zeros, 1, sizeof zeros, stdout) != sizeof zeros) return 1;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  char *held = NULL; /* swap: the answer held back */
  while ((len = getline(&line, &cap, stdin)) >= 0) {
    size_t n = (size_t)len;
    if (n && line[n - 1] == '\n') n--;
    nreq++;
    json_t *req = json_loadb(line, n, 0, NULL);
    /* Misbehaving by request id (the runner numbers every request of a run
     * from 1, across restarts) makes each misdeed happen once. */
    json_int_t rid = json_integer_value(json_object_get(req, "id"));
    int stream = json_is_true(json_object_get(req, "stream"));
    if (strcmp(mode, "flood") == 0) {
      static char junk[4096];
      memset(junk, 'e', sizeof junk - 1);
      junk[sizeof junk - 1] = '\n';
      for (int i = 0; i < 1024; i++)
        if (fwrite(junk, 1, sizeof junk, stderr) != sizeof junk) break;
    }
    if (strcmp(mode, "hang") == 0 && rid == 2) {
      signal(SIGTERM, SIG_IGN);
      if (fork() == 0) {
        for (;;) pause(); /* a child that outlives its parent, unless its group is ended */
      }
      for (;;) pause();
    }
    if (strcmp(mode, "crash-once") == 0 && input_has(req, "<thinking>")) {
      const char *marker = getenv("BADIMPL_MARKER");
      if (marker && access(marker, F_OK) != 0) {
        FILE *m = fopen(marker, "w");
        if (m) fclose(m);
        fprintf(stderr, "badimpl: crashing on request %ld now\n", nreq);
        fflush(stderr);
        signal(SIGSEGV, SIG_DFL); /* not a sanitizer's report: a plain crash */
        raise(SIGSEGV);
      }
    }
    if (strcmp(mode, "chunky") == 0 && !stream) {
      chunky(req);
    } else if (strcmp(mode, "buffer") == 0 && stream) {
      buffer(req);
    } else if (strcmp(mode, "batch-only") == 0 && stream) {
      json_object_del(req, "stream");
      serve_json(req);
      out_line(lines.v[0]);
    } else if (strcmp(mode, "no-stream") == 0 && stream) {
      char *id = json_dumps(json_object_get(req, "id"), JSON_ENCODE_ANY);
      printf("{\"id\":%s,\"feed\":0,\"ok\":false,\"error\":{\"code\":\"unsupported\","
             "\"message\":\"no streaming sessions here\",\"offset\":0}}\n", id);
      fflush(stdout);
      free(id);
    } else {
      serve(line, n);
      if (stream && session_mode(req)) {
        /* written */
      } else {
        for (size_t i = 0; i < lines.n; i++) {
          char *l = lines.v[i];
          if (strcmp(mode, "garbage") == 0 && rid == 2 && i == 0) out_line("oops, not json");
          if (strcmp(mode, "wrong-id") == 0 && rid == 2) {
            json_t *a = json_loads(l, 0, NULL);
            json_object_set_new(a, "id", json_integer(json_integer_value(json_object_get(a, "id")) + 100));
            char *s = dump(a);
            out_line(s);
            free(s);
            json_decref(a);
            continue;
          }
          if (strcmp(mode, "bad-value") == 0) {
            bad_value(l);
            continue;
          }
          if (strcmp(mode, "missing") == 0) {
            json_t *a = json_loads(l, 0, NULL);
            json_object_del(a, "thought");
            char *s = dump(a);
            out_line(s);
            free(s);
            json_decref(a);
            continue;
          }
          if (strcmp(mode, "swap") == 0 && rid == 2 && !stream) {
            held = xstrdup(l);
            continue;
          }
          out_line(l);
          if (strcmp(mode, "duplicate") == 0 && rid == 3) out_line(l);
          if (held && strcmp(mode, "swap") == 0 && rid == 3) {
            out_line(held);
            free(held);
            held = NULL;
          }
        }
      }
    }
    json_decref(req);
  }
  free(line);
  proto_server_free(&ps);
  return 0;
}
