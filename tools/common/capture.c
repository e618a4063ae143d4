/*
 * capture.c: loading and writing recorded provider streams.
 */
#include "capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "bytes.h"
#include "jsonw.h"

static const char *const family_names[FAM_COUNT] = {
    "unknown",   "openai-chat", "openai-completions", "openai-responses", "anthropic",
    "gemini",    "ollama-chat", "ollama-generate",    "llamacpp"};

const char *cap_family_name(cap_family f) {
  return (unsigned)f < FAM_COUNT ? family_names[f] : "unknown";
}

cap_family cap_family_from_name(const char *s) {
  for (int f = 1; f < FAM_COUNT; f++)
    if (strcmp(family_names[f], s) == 0) return (cap_family)f;
  return FAM_UNKNOWN;
}

static int has(json_t *o, const char *key) { return json_object_get(o, key) != NULL; }

cap_family cap_family_of_json(json_t *c) {
  if (!json_is_object(c)) return FAM_UNKNOWN;
  json_t *type = json_object_get(c, "type");
  if (json_is_string(type)) {
    const char *t = json_string_value(type);
    if (strncmp(t, "response.", 9) == 0) return FAM_OPENAI_RESPONSES;
    if (strncmp(t, "message_", 8) == 0 || strncmp(t, "content_block_", 14) == 0 ||
        strcmp(t, "ping") == 0)
      return FAM_ANTHROPIC;
    if (strcmp(t, "error") == 0)
      return has(c, "sequence_number") ? FAM_OPENAI_RESPONSES : FAM_ANTHROPIC;
  }
  if (has(c, "candidates")) return FAM_GEMINI;
  json_t *choices = json_object_get(c, "choices");
  if (json_is_array(choices)) {
    json_t *c0 = json_array_get(choices, 0);
    if (has(c0, "text") && !has(c0, "delta")) return FAM_OPENAI_COMPLETIONS;
    return FAM_OPENAI_CHAT;
  }
  if (has(c, "done") && has(c, "message")) return FAM_OLLAMA_CHAT;
  if (has(c, "done") && has(c, "response")) return FAM_OLLAMA_GENERATE;
  if (has(c, "content") && has(c, "stop")) return FAM_LLAMACPP;
  return FAM_UNKNOWN;
}

/* ---------------- building the body ---------------- */

typedef struct builder {
  capture *c;
  tbuf body;
  size_t cap_pieces;
  size_t max;
} builder;

static int add_piece(builder *b, const char *p, size_t n, double t) {
  if (b->body.n + n > b->max) return -1;
  if (b->c->npieces == b->cap_pieces) {
    b->cap_pieces = b->cap_pieces ? b->cap_pieces * 2 : 64;
    b->c->pieces = xrealloc(b->c->pieces, xmul(b->cap_pieces, sizeof *b->c->pieces));
  }
  cap_piece *pc = &b->c->pieces[b->c->npieces++];
  pc->off = b->body.n;
  pc->len = n;
  pc->t = t;
  tbuf_xadd(&b->body, p, n);
  return 0;
}

/* The model named in a chunk, if any (first one wins). */
static void note_model(capture *c, json_t *chunk) {
  if (c->model || !json_is_object(chunk)) return;
  json_t *m = json_object_get(chunk, "model");
  if (!m) m = json_object_get(json_object_get(chunk, "message"), "model"); /* anthropic */
  if (!m) m = json_object_get(json_object_get(chunk, "response"), "model"); /* responses */
  if (!m) m = json_object_get(chunk, "modelVersion");                     /* gemini */
  if (json_is_string(m)) c->model = xstrdup(json_string_value(m));
}

static void note_json(capture *c, const char *p, size_t n) {
  json_t *j = json_loadb(p, n, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, NULL);
  if (!j) return;
  if (c->family == FAM_UNKNOWN) c->family = cap_family_of_json(j);
  note_model(c, j);
  json_decref(j);
}

/* The JSON payload of the first data line of an SSE event, for detection. */
static void note_sse_event(capture *c, const char *p, size_t n) {
  for (size_t i = 0; i < n;) {
    size_t e = i;
    while (e < n && p[e] != '\n' && p[e] != '\r') e++;
    if (e - i > 5 && memcmp(p + i, "data:", 5) == 0) {
      size_t s = i + 5;
      if (s < e && p[s] == ' ') s++;
      note_json(c, p + s, e - s);
      if (c->family != FAM_UNKNOWN && c->model) return;
    }
    i = e + 1;
  }
}

/* Splits a raw body into pieces: SSE events (ending at a blank line) or
 * NDJSON lines. */
static int split_raw(builder *b, const char *p, size_t n, int sse) {
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    size_t end = 0;
    if (!sse && p[i] == '\n') end = i + 1;
    if (sse && p[i] == '\n' && i + 1 < n && p[i + 1] == '\n') end = i + 2;
    if (sse && p[i] == '\r' && i + 3 < n && memcmp(p + i, "\r\n\r\n", 4) == 0) end = i + 4;
    if (!end) continue;
    if (sse) note_sse_event(b->c, p + start, end - start);
    else note_json(b->c, p + start, end - start);
    if (add_piece(b, p + start, end - start, -1)) return -1;
    start = end;
    i = end - 1;
  }
  if (start < n) {
    if (sse) note_sse_event(b->c, p + start, n - start);
    else note_json(b->c, p + start, n - start);
    return add_piece(b, p + start, n - start, -1);
  }
  return 0;
}

/* .chunks.jsonl: each line as the provider framed it on the wire. */
static int wrap_chunk(builder *b, json_t *chunk, const char *line, size_t n) {
  tbuf ev = {0};
  cap_family f = b->c->family;
  if (f == FAM_ANTHROPIC || f == FAM_OPENAI_RESPONSES) {
    json_t *type = json_object_get(chunk, "type");
    tbuf_xprintf(&ev, "event: %s\n", json_is_string(type) ? json_string_value(type) : "message");
  }
  tbuf_xadds(&ev, "data: ");
  tbuf_xadd(&ev, line, n);
  tbuf_xadds(&ev, f == FAM_GEMINI ? "\r\n\r\n" : "\n\n"); /* Gemini frames with CRLF */
  int rc = add_piece(b, ev.p, ev.n, -1);
  tbuf_free(&ev);
  return rc;
}

/* ---------------- reading lines ---------------- */

typedef struct lines {
  FILE *fp;
  char *buf;
  size_t cap;
  size_t lineno;
} lines;

/* The next line without its newline; -1 at the end. */
static ssize_t next_line(lines *l, char **out) {
  ssize_t n = getline(&l->buf, &l->cap, l->fp);
  if (n < 0) return -1;
  l->lineno++;
  if (n && l->buf[n - 1] == '\n') l->buf[--n] = '\0';
  if (n && l->buf[n - 1] == '\r') l->buf[--n] = '\0';
  *out = l->buf;
  return n;
}

static void fail(tbuf *err, const capture *c, size_t line, const char *fmt, const char *arg) {
  if (line) tbuf_xprintf(err, "%s:%zu: ", c->path, line);
  else tbuf_xprintf(err, "%s: ", c->path);
  tbuf_xprintf(err, fmt, arg);
}

static int header_value(const capture *c, const char *name, const char **value) {
  size_t nl = strlen(name);
  for (size_t i = 0; i < c->headers.n; i++) {
    const char *h = c->headers.v[i];
    if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
      *value = h + nl + 1 + (h[nl + 1] == ' ');
      return 1;
    }
  }
  return 0;
}

/* A recorded body that was gzip-encoded: each piece decoded in turn, so a
 * piece keeps its time (a piece may decode to nothing, or to more). */
static int gunzip_pieces(builder *b, tbuf *err) {
  capture *c = b->c;
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 32) != Z_OK) die("out of memory");
  tbytes raw;
  raw.p = tbuf_take(&b->body, &raw.n);
  cap_piece *old = c->pieces;
  size_t nold = c->npieces;
  c->pieces = NULL;
  c->npieces = b->cap_pieces = 0;
  int rc = 0, done = 0;
  for (size_t i = 0; i < nold && !rc && !done; i++) {
    z.next_in = (Bytef *)raw.p + old[i].off;
    z.avail_in = (uInt)old[i].len;
    tbuf piece = {0};
    while (z.avail_in && !done) {
      unsigned char out[16384];
      z.next_out = out;
      z.avail_out = sizeof out;
      int zr = inflate(&z, Z_SYNC_FLUSH);
      if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
        tbuf_xprintf(err, "%s: the gzip-encoded body is corrupt (%s)", c->path,
                     z.msg ? z.msg : "inflate failed");
        rc = -1;
        break;
      }
      tbuf_xadd(&piece, out, sizeof out - z.avail_out);
      if (zr == Z_STREAM_END) done = 1;
      if (zr == Z_BUF_ERROR) break;
    }
    if (!rc && add_piece(b, piece.p ? piece.p : "", piece.n, old[i].t)) {
      tbuf_xprintf(err, "%s: the body is larger than the limit", c->path);
      rc = -1;
    }
    tbuf_free(&piece);
  }
  inflateEnd(&z);
  free(old);
  free(raw.p);
  return rc;
}

/* A recording's header line: the response's status and headers, the
 * family, and whether the pieces are timed (*timed). 0, or -1 after fail(). */
static int recorded_header(builder *b, lines *l, tbuf *err, int *timed) {
  capture *c = b->c;
  char *line;
  ssize_t n = next_line(l, &line);
  json_error_t jerr;
  json_t *h = n < 0 ? NULL : json_loadb(line, (size_t)n, 0, &jerr);
  if (!json_is_object(h) || !json_is_integer(json_object_get(h, "sluice_capture"))) {
    fail(err, c, 1, "%s", "the first line must be the header {\"sluice_capture\": 1, ...}");
    json_decref(h);
    return -1;
  }
  json_t *resp = json_object_get(h, "response");
  json_t *status = json_object_get(resp, "status");
  if (json_is_integer(status)) c->status = (int)json_integer_value(status);
  const char *key;
  json_t *v;
  json_object_foreach(json_object_get(resp, "headers"), key, v) {
    if (!json_is_string(v)) continue;
    tbuf hv = {0};
    tbuf_xprintf(&hv, "%s: %s", key, json_string_value(v));
    tstrs_push(&c->headers, tbuf_take(&hv, NULL));
  }
  json_t *fam = json_object_get(h, "family");
  if (json_is_string(fam)) c->family = cap_family_from_name(json_string_value(fam));
  /* Imported recordings carry no times ("timed": false). */
  *timed = !json_is_false(json_object_get(h, "timed"));
  json_decref(h);
  return 0;
}

/* A recording's pieces, each {"t": seconds, "data": text}, to its end.
 * 0, or -1 after fail(). */
static int recorded_pieces(builder *b, lines *l, tbuf *err) {
  capture *c = b->c;
  char *line;
  ssize_t n;
  json_error_t jerr;
  int ended = 0;
  while ((n = next_line(l, &line)) >= 0) {
    if (n == 0) continue;
    json_t *p = json_loadb(line, (size_t)n, 0, &jerr);
    json_t *t = json_object_get(p, "t");
    if (!json_is_object(p) || !json_is_number(t)) {
      fail(err, c, l->lineno, "%s", "a piece must be {\"t\": seconds, \"data\": text} (or \"data_b64\")");
      json_decref(p);
      return -1;
    }
    if (json_object_get(p, "end")) {
      ended = 1;
      json_decref(p);
      continue;
    }
    tbytes data;
    if (bytes_field_get(p, "data", &data) != 1) {
      fail(err, c, l->lineno, "%s", "a piece needs \"data\" or \"data_b64\" (canonical base64)");
      json_decref(p);
      return -1;
    }
    int rc = add_piece(b, data.p, data.n, json_number_value(t));
    free(data.p);
    json_decref(p);
    if (rc) {
      fail(err, c, l->lineno, "%s", "the body is larger than the limit");
      return -1;
    }
  }
  (void)ended;
  return 0;
}

static int load_recorded(builder *b, lines *l, tbuf *err) {
  capture *c = b->c;
  int timed;
  if (recorded_header(b, l, err, &timed) || recorded_pieces(b, l, err)) return -1;
  c->timed = timed;
  const char *enc;
  if (header_value(c, "Content-Encoding", &enc) && strstr(enc, "gzip") && gunzip_pieces(b, err))
    return -1;
  if (!timed) {
    /* No recorded pieces worth keeping: one per event or line, as for a
     * raw body. */
    const char *type;
    int ndjson = header_value(c, "Content-Type", &type) && strstr(type, "ndjson");
    tbytes raw;
    raw.p = tbuf_take(&b->body, &raw.n);
    free(c->pieces);
    c->pieces = NULL;
    c->npieces = b->cap_pieces = 0;
    int rc = split_raw(b, raw.p, raw.n, !ndjson);
    free(raw.p);
    if (rc) fail(err, c, 0, "%s", "the body is larger than the limit");
    return rc;
  }
  /* Detection from the content of the decoded body. */
  for (size_t i = 0; i < c->npieces && (c->family == FAM_UNKNOWN || !c->model) && i < 64; i++) {
    const char *bp = b->body.p + c->pieces[i].off;
    if (memchr(bp, ':', c->pieces[i].len)) note_sse_event(c, bp, c->pieces[i].len);
  }
  return 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

int capture_load(capture *c, const char *path, size_t max_bytes, tbuf *err) {
  memset(c, 0, sizeof *c);
  c->path = xstrdup(path);
  const char *slash = strrchr(path, '/');
  c->name = xstrdup(slash ? slash + 1 : path);
  c->status = 200;
  builder b = {c, {0}, 0, max_bytes ? max_bytes : (size_t)256 << 20};
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    tbuf_xprintf(err, "%s: %s", path, strerror(errno));
    return -1;
  }
  lines l = {fp, NULL, 0, 0};
  int rc = 0;
  if (ends_with(path, ".capture.jsonl")) {
    c->format = CAP_RECORDED;
    rc = load_recorded(&b, &l, err);
  } else if (ends_with(path, ".chunks.jsonl") || ends_with(path, ".chunks.txt")) {
    c->format = CAP_CHUNKS_JSONL;
    char *line;
    ssize_t n;
    while (!rc && (n = next_line(&l, &line)) >= 0) {
      if (n == 0) continue;
      json_error_t jerr;
      json_t *j = json_loadb(line, (size_t)n, 0, &jerr);
      if (!json_is_object(j)) {
        tbuf_xprintf(err, "%s:%zu: byte %d: not a JSON object: %s", path, l.lineno,
                     jerr.position, j ? "another JSON value" : jerr.text);
        rc = -1;
      } else {
        if (c->family == FAM_UNKNOWN) c->family = cap_family_of_json(j);
        note_model(c, j);
        rc = wrap_chunk(&b, j, line, (size_t)n);
        if (rc) fail(err, c, l.lineno, "%s", "the body is larger than the limit");
      }
      json_decref(j);
    }
    /* OpenAI-compatible servers end with [DONE] (the recorder left it out). */
    if (!rc && (c->family == FAM_OPENAI_CHAT || c->family == FAM_OPENAI_COMPLETIONS))
      rc = add_piece(&b, "data: [DONE]\n\n", 14, -1);
  } else {
    int sse = !ends_with(path, ".ndjson");
    c->format = sse ? CAP_SSE : CAP_NDJSON;
    tbytes raw;
    if (read_all(fp, &raw, b.max)) {
      tbuf_xprintf(err, "%s: %s", path, errno == EFBIG ? "larger than the limit" : strerror(errno));
      rc = -1;
    } else {
      rc = split_raw(&b, raw.p, raw.n, sse);
      if (rc) tbuf_xprintf(err, "%s: larger than the limit", path);
      free(raw.p);
    }
  }
  if (!rc && ferror(fp)) {
    tbuf_xprintf(err, "%s: read error: %s", path, strerror(errno));
    rc = -1;
  }
  free(l.buf);
  fclose(fp);
  c->body.p = tbuf_take(&b.body, &c->body.n);
  if (!rc && c->npieces == 0) {
    tbuf_xprintf(err, "%s: the capture is empty", path);
    rc = -1;
  }
  return rc;
}

void capture_free(capture *c) {
  free(c->path);
  free(c->name);
  free(c->body.p);
  free(c->pieces);
  tstrs_free(&c->headers);
  free(c->model);
  memset(c, 0, sizeof *c);
}

/* ---------------- writing ---------------- */

static int write_line(capture_writer *w) {
  tbuf_xadds(&w->line, "\n");
  int rc = fwrite(w->line.p, 1, w->line.n, w->fp) == w->line.n && fflush(w->fp) == 0 ? 0 : -1;
  w->line.n = 0;
  return rc;
}

int capw_open(capture_writer *w, const char *path, json_t *header) {
  memset(w, 0, sizeof *w);
  w->fp = fopen(path, "wb");
  if (!w->fp) return -1;
  json_t *h = json_deep_copy(header);
  if (!h || json_object_set_new(h, "sluice_capture", json_integer(1))) die("out of memory");
  char *s = json_dumps(h, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(h);
  if (!s) die("out of memory");
  tbuf_xadds(&w->line, s);
  free(s);
  return write_line(w);
}

/* A capture line's start: the object and its time offset. */
static void line_at(jsonw *j, capture_writer *w, double t) {
  jw_init(j, &w->line);
  jw_begin_object(j);
  char num[40];
  snprintf(num, sizeof num, "%.6f", t);
  jw_key(j, "t");
  jw_raw(j, num, strlen(num));
}

int capw_piece(capture_writer *w, double t, const char *p, size_t n) {
  jsonw j;
  line_at(&j, w, t);
  jw_bytes_field(&j, "data", p, n);
  jw_end_object(&j);
  if (j.failed) die("out of memory");
  return write_line(w);
}

int capw_close(capture_writer *w, double t, const char *how) {
  int rc = 0;
  if (w->fp) {
    jsonw j;
    line_at(&j, w, t);
    jw_key(&j, "end");
    jw_string(&j, how, strlen(how));
    jw_end_object(&j);
    rc = write_line(w);
    if (fclose(w->fp) != 0) rc = -1;
  }
  tbuf_free(&w->line);
  w->fp = NULL;
  return rc;
}
