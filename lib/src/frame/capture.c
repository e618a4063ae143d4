/*
 * capture.c: the capture reader (sluice.h, "capture"): a capture file, fed
 * in any chunking, into the response body a client reads and the pieces it
 * came in. It is the one reader of captures: replay, serve, diff and the
 * import tests all read through it.
 *
 * It stands on the library's own framing, so a piece ends where the sse
 * and JSON-lines rules say a server's event or line ends:
 *
 *  - sse: an internal sse filter tells where each blank line ends
 *    (sluicep_sse_on_blank); ndjson: a piece ends after each LF;
 *  - chunks and recorded: an internal chunks filter splits the file into
 *    lines (its records), each read with jread;
 *  - a recorded capture that carries no times (an import) is cut again by
 *    an inner capture reader in sse or ndjson format, unless its body is
 *    gzip-encoded (the bytes are then not the body's text).
 *
 * Pieces of a raw body are emitted from the chunk being fed where they lie
 * in it; only a piece that spans chunks is copied (into `piece`).
 */
#include "../provider/jread.h"
#include "sluice_private.h"

#include <stdio.h>
#include <string.h>

#define DEFAULT_MAX_LINE ((size_t)64 << 20)
#define DEFAULT_MAX_PIECE ((size_t)8 << 20)

typedef struct capture {
  sluice_filter base;
  sluice_capture_format format; /* AUTO until the content tells */
  size_t max_line, max_piece;
  sluicep_buf head; /* AUTO: what was fed before the format was known */
  sluice_filter *frame; /* sse (sse format), chunks (chunks, recorded) */
  /* the chunk being fed, and the pieces of a raw body (sse, ndjson) */
  const char *chunk;
  uint64_t chunk_at;
  sluicep_buf piece;    /* the bytes of the piece in progress before the chunk */
  uint64_t piece_start; /* its first byte (stream offset) */
  uint64_t body;        /* bytes of body sent (chunks, recorded) */
  uint64_t source;      /* the file offset the piece being sent came from */
  uint64_t lf_before;   /* LFs fed before the chunk being fed: line numbers */
  /* chunks */
  sluice_endpoint endpoint;
  sluice_filter *pv; /* a provider over the lines: whether the stream ended */
  int pv_complete;
  /* recorded */
  int header, timed, gzip, ended;
  uint64_t line_at; /* the line being read (the split filter's errors are there) */
  int told;         /* the "format" META event was sent */
  sluice_filter *split; /* re-cuts an untimed body */
  sluicep_buf scratch;
} capture;

static const char *const format_names[] = {"auto", "sse", "ndjson", "chunks", "recorded"};

const char *sluice_capture_format_name(sluice_capture_format f) {
  return (unsigned)f <= SLUICE_CAPTURE_RECORDED ? format_names[f] : "unknown";
}

/* ---------------- helpers ---------------- */

static int lower(int ch) { return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch; }

/* 1 if p[0..n) equals the lower-case literal lit, ASCII case folded. */
static int ieq(const char *p, size_t n, const char *lit) {
  size_t k = strlen(lit);
  if (n != k) return 0;
  for (size_t i = 0; i < n; i++)
    if (lower((unsigned char)p[i]) != lit[i]) return 0;
  return 1;
}

/* 1 if the lower-case literal lit occurs in p[0..n), ASCII case folded. */
static int icontains(const char *p, size_t n, const char *lit) {
  size_t k = strlen(lit);
  for (size_t i = 0; i + k <= n; i++)
    if (ieq(p + i, k, lit)) return 1;
  return 0;
}

/* ---------------- events ---------------- */

static int meta(capture *c, const char *name, const char *p, size_t n) {
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_META;
  ev.name = name;
  ev.name_len = strlen(name);
  ev.data = p;
  ev.data_len = n;
  return sluicep_event(&c->base, &ev);
}

/* A piece of the body at `start` (its bytes on TEXT too). */
static int send_piece(capture *c, const char *p, size_t n, uint64_t start, uint64_t t) {
  if (c->format == SLUICE_CAPTURE_SSE || c->format == SLUICE_CAPTURE_NDJSON) c->source = start;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_PIECE;
  ev.data = p;
  ev.data_len = n;
  ev.offset = start;
  ev.length = t;
  return sluicep_emit(&c->base, SLUICE_TEXT, p, n) || sluicep_event(&c->base, &ev);
}

/* ---------------- errors ---------------- */

/* The 1-based line of stream offset at (in the chunk being fed, or the
 * line that ends in it). */
static uint64_t line_of(const capture *c, uint64_t at) {
  uint64_t line = 1 + c->lf_before;
  if (at <= c->chunk_at || !c->chunk) return line;
  const char *p = c->chunk, *end = c->chunk + (at - c->chunk_at);
  while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
    line++;
    p++;
  }
  return line;
}

static int bad_line(capture *c, uint64_t line_at, size_t byte, const char *why) {
  sluicep_fail(&c->base, SLUICE_CAPTURE_FORMAT, line_at + byte, "line %llu: %s",
               (unsigned long long)line_of(c, line_at), why);
  return 1;
}

static int nomem(capture *c) {
  sluicep_fail(&c->base, SLUICE_NOMEM, c->base.at, "out of memory reading a capture");
  return 1;
}

/* An inner filter's error as ours (its offsets count the same stream, but
 * the split filter's, which count the body: said in the message). */
static int take_inner(capture *c, sluice_filter *inner) {
  if (c->base.err.status != SLUICE_OK) return 1;
  const sluice_error *e = sluice_get_error(inner);
  sluicep_fail(&c->base, e->status, inner == c->split ? c->line_at : e->offset, "%s%s",
               inner == c->split ? "in the recorded body: " : "", e->message);
  return 1;
}

/* ---------------- raw bodies: sse and ndjson ---------------- */

static int too_big(capture *c) {
  sluicep_fail(&c->base, SLUICE_LIMIT, c->piece_start + c->max_piece,
               "a piece exceeded max_piece (%zu bytes)", c->max_piece);
  return 1;
}

/* The piece in progress ends at stream offset end (in the chunk). */
static int cut(capture *c, uint64_t end) {
  if (end <= c->piece_start) return 0;
  if (c->max_piece && end - c->piece_start > c->max_piece) return too_big(c);
  const char *p;
  size_t n;
  if (c->piece.len) {
    if (sluicep_buf_append(&c->piece, c->chunk, (size_t)(end - c->chunk_at))) return nomem(c);
    p = c->piece.ptr;
    n = c->piece.len;
  } else {
    p = c->chunk + (c->piece_start - c->chunk_at);
    n = (size_t)(end - c->piece_start);
  }
  int rc = send_piece(c, p, n, c->piece_start, UINT64_MAX);
  c->piece.len = 0;
  c->piece_start = end;
  return rc;
}

/* After a chunk: what is left of it starts or continues the next piece. */
static int keep_tail(capture *c, size_t n) {
  uint64_t from = c->piece_start > c->chunk_at ? c->piece_start - c->chunk_at : 0;
  if (c->max_piece && c->chunk_at + n - c->piece_start > c->max_piece) return too_big(c);
  if (sluicep_buf_append(&c->piece, c->chunk + from, (size_t)(n - from))) return nomem(c);
  return 0;
}

static int on_blank(void *user, uint64_t end) { return cut(user, end); }

static int raw_feed(capture *c, const char *p, size_t n) {
  if (c->format == SLUICE_CAPTURE_SSE) {
    if (sluice_feed(c->frame, p, n) != SLUICE_OK) {
      /* the piece went past max_piece before the byte the framing refused:
       * that is the first error, as feeding a byte at a time finds it */
      if (c->base.err.status == SLUICE_OK && c->max_piece &&
          sluice_get_error(c->frame)->offset > c->piece_start + c->max_piece)
        return too_big(c);
      return take_inner(c, c->frame);
    }
  } else {
    for (const char *q = p, *e; (e = memchr(q, '\n', (size_t)(p + n - q))) != NULL; q = e + 1)
      if (cut(c, c->chunk_at + (uint64_t)(e + 1 - p))) return 1;
  }
  return keep_tail(c, n);
}

static int raw_finish(capture *c) {
  if (c->frame && sluice_finish(c->frame) != SLUICE_OK) return take_inner(c, c->frame);
  if (!c->piece.len) return 0;
  int rc = send_piece(c, c->piece.ptr, c->piece.len, c->piece_start, UINT64_MAX);
  c->piece.len = 0;
  return rc;
}

/* ---------------- JSON lines ---------------- */

/* Checks that line p[0..n) is one JSON object; 1 if so, else 0 after the
 * error (its byte in the line). */
static int one_object(capture *c, const char *p, size_t n, uint64_t at) {
  jr r;
  jr_init(&r, p, n);
  if (jr_peek(&r) != JR_OBJECT) return !bad_line(c, at, 0, "not a JSON object");
  if (jr_skip(&r) && jr_end(&r)) return 1;
  char why[96];
  jr_error(&r, why, sizeof why);
  return !bad_line(c, at, r.at, r.why ? r.why : "not a JSON object");
}

/* The string value of top-level member `key` of an object (valid JSON),
 * decoded into scratch; NULL when absent or not a string. */
static const char *member_str(capture *c, const char *p, size_t n, const char *key, size_t *len) {
  jr r;
  jr_str k, v;
  size_t count = 0;
  jr_init(&r, p, n);
  jr_enter_object(&r);
  while (jr_member(&r, &count, &k)) {
    if (jr_is(&k, key) && jr_peek(&r) == JR_STRING && jr_string(&r, &v)) {
      c->scratch.len = 0;
      if (sluicep_buf_reserve(&c->scratch, v.n + 1)) {
        nomem(c);
        return NULL;
      }
      *len = v.esc ? jr_decode(&v, c->scratch.ptr) : v.n;
      if (!v.esc) memcpy(c->scratch.ptr, v.p, v.n);
      return c->scratch.ptr;
    }
    if (!jr_skip(&r)) break;
  }
  return NULL;
}

/* ---------------- chunks: each line as its server framed it ---------------- */

static int on_pv_event(void *user, const sluice_event *ev) {
  capture *c = user;
  if (ev->type == SLUICE_EV_END) c->pv_complete = ev->complete;
  return 0;
}

/* One line's event on the wire: "event: TYPE\n" for Anthropic and the
 * Responses API, "data: LINE" and a blank line (CRLF for Gemini), or the
 * bare line and LF for Ollama. */
static int wrap_line(capture *c, const char *p, size_t n) {
  sluicep_buf w;
  sluicep_buf_init(&w, &c->base.mem);
  int rc = 0;
  if (c->endpoint == SLUICE_ENDPOINT_OLLAMA_CHAT || c->endpoint == SLUICE_ENDPOINT_OLLAMA_GENERATE) {
    rc = sluicep_buf_append(&w, p, n) || sluicep_buf_append(&w, "\n", 1);
  } else {
    if (c->endpoint == SLUICE_ENDPOINT_ANTHROPIC ||
        c->endpoint == SLUICE_ENDPOINT_OPENAI_RESPONSES) {
      size_t tn = 0;
      const char *t = member_str(c, p, n, "type", &tn);
      if (c->base.err.status != SLUICE_OK) return 1;
      rc = sluicep_buf_append(&w, "event: ", 7) ||
           sluicep_buf_append(&w, t ? t : "message", t ? tn : 7) ||
           sluicep_buf_append(&w, "\n", 1);
    }
    const char *end = c->endpoint == SLUICE_ENDPOINT_GEMINI ? "\r\n\r\n" : "\n\n";
    rc = rc || sluicep_buf_append(&w, "data: ", 6) || sluicep_buf_append(&w, p, n) ||
         sluicep_buf_append(&w, end, strlen(end));
  }
  if (!rc) {
    rc = send_piece(c, w.ptr, w.len, c->body, UINT64_MAX);
    c->body += w.len;
  } else {
    nomem(c);
  }
  sluicep_buf_free(&w);
  return rc;
}

static int chunks_line(capture *c, const char *p, size_t n, uint64_t at) {
  if (!one_object(c, p, n, at)) return 1;
  if (c->endpoint == SLUICE_ENDPOINT_UNKNOWN) {
    sluice_detection d;
    if (sluice_detect_chunk(p, n, &d) == SLUICE_OK) c->endpoint = d.endpoint;
  }
  /* The provider sees the chunks framing's lines: an OpenAI stream whose
   * choices all finished is complete without the [DONE] a recorder drops. */
  if (c->pv && (sluice_feed(c->pv, p, n) != SLUICE_OK || sluice_feed(c->pv, "\n", 1) != SLUICE_OK)) {
    if (sluice_get_error(c->pv)->status == SLUICE_NOMEM) return take_inner(c, c->pv);
    sluice_free(c->pv); /* it cannot read the stream: no [DONE] is made up */
    c->pv = NULL;
  }
  return wrap_line(c, p, n);
}

static int chunks_finish(capture *c) {
  if (!c->pv) return 0;
  sluice_status st = sluice_finish(c->pv);
  if (st == SLUICE_NOMEM) return take_inner(c, c->pv);
  int complete = st == SLUICE_OK && c->pv_complete;
  if (!complete || (c->endpoint != SLUICE_ENDPOINT_OPENAI_CHAT &&
                    c->endpoint != SLUICE_ENDPOINT_OPENAI_COMPLETIONS))
    return 0;
  static const char done[] = "data: [DONE]\n\n";
  int rc = send_piece(c, done, sizeof done - 1, c->body, UINT64_MAX);
  c->body += sizeof done - 1;
  return rc;
}

/* ---------------- recorded: sluice record's .capture.jsonl ---------------- */

typedef struct span {
  const char *p;
  size_t n;
} span;

/* The raw values of chosen members of the object p[0..n) (valid JSON). */
static void members(const char *p, size_t n, const char *const *keys, span *out) {
  size_t nk = 0, count = 0;
  while (keys[nk]) out[nk++].p = NULL;
  jr r;
  jr_str k;
  jr_init(&r, p, n);
  jr_enter_object(&r);
  while (jr_member(&r, &count, &k)) {
    size_t i = 0;
    while (i < nk && !jr_is(&k, keys[i])) i++;
    if (i < nk) jr_raw(&r, &out[i].p, &out[i].n);
    else jr_skip(&r);
  }
}

static int is_str(const span *s) { return s->p && s->p[0] == '"'; }

/* A string span decoded into scratch. */
static const char *str_of(capture *c, const span *s, size_t *len) {
  jr r;
  jr_str v;
  jr_init(&r, s->p, s->n);
  jr_string(&r, &v);
  c->scratch.len = 0;
  if (sluicep_buf_reserve(&c->scratch, v.n + 1)) {
    nomem(c);
    return NULL;
  }
  *len = v.esc ? jr_decode(&v, c->scratch.ptr) : v.n;
  if (!v.esc) memcpy(c->scratch.ptr, v.p, v.n);
  c->scratch.ptr[*len] = '\0';
  return c->scratch.ptr;
}

/* Seconds as written ("%.6f", or any JSON number >= 0) into microseconds;
 * 0 when it is not a number of that form. */
static int micros(const span *s, uint64_t *us) {
  const char *p = s->p, *end = s->p + s->n;
  uint64_t v = 0;
  int digits = 0, frac = 0;
  if (p == end || *p == '-') return 0;
  for (; p < end && *p >= '0' && *p <= '9'; p++, digits++)
    if (v > UINT64_MAX / 10 / 1000000) return 0;
    else v = v * 10 + (uint64_t)(*p - '0');
  if (!digits) return 0;
  v *= 1000000;
  if (p < end && *p == '.') {
    uint64_t scale = 100000;
    for (p++; p < end && *p >= '0' && *p <= '9'; p++, frac++) {
      v += (uint64_t)(*p - '0') * scale;
      scale /= 10;
    }
    if (!frac) return 0;
  }
  if (p != end) return 0; /* an exponent: not what a recorder writes */
  *us = v;
  return 1;
}

/* "Name: value" of each response header, and what the body needs. */
static int header_fields(capture *c, const span *headers) {
  if (!headers->p || headers->p[0] != '{') return 0;
  jr r;
  jr_str k, v;
  size_t count = 0;
  jr_init(&r, headers->p, headers->n);
  jr_enter_object(&r);
  while (jr_member(&r, &count, &k)) {
    if (jr_peek(&r) != JR_STRING) {
      jr_skip(&r);
      continue;
    }
    jr_string(&r, &v);
    sluicep_buf h;
    sluicep_buf_init(&h, &c->base.mem);
    if (sluicep_buf_reserve(&h, k.n + v.n + 3)) return nomem(c);
    h.len = k.esc ? jr_decode(&k, h.ptr) : (memcpy(h.ptr, k.p, k.n), k.n);
    size_t name_len = h.len;
    memcpy(h.ptr + h.len, ": ", 2);
    h.len += 2;
    h.len += v.esc ? jr_decode(&v, h.ptr + h.len) : (memcpy(h.ptr + h.len, v.p, v.n), v.n);
    const char *val = h.ptr + name_len + 2;
    size_t vl = h.len - name_len - 2;
    if (ieq(h.ptr, name_len, "content-encoding") && icontains(val, vl, "gzip")) c->gzip = 1;
    if (ieq(h.ptr, name_len, "content-type") && icontains(val, vl, "ndjson"))
      c->format = SLUICE_CAPTURE_NDJSON;
    int rc = meta(c, "header", h.ptr, h.len);
    sluicep_buf_free(&h);
    if (rc) return 1;
  }
  return 0;
}

static int on_split_event(void *user, const sluice_event *ev) {
  capture *c = user;
  if (ev->type != SLUICE_EV_PIECE) return 0;
  /* c->source is the line being read, which completes the piece */
  return send_piece(c, ev->data, ev->data_len, ev->offset, UINT64_MAX);
}

/* The inner reader that cuts an untimed body (an import) into events or
 * lines; c->format says which for now (header_fields saw the type). */
static int open_split(capture *c) {
  sluice_capture_opts o;
  sluice_capture_opts_init(&o);
  o.format = c->format == SLUICE_CAPTURE_NDJSON ? SLUICE_CAPTURE_NDJSON : SLUICE_CAPTURE_SSE;
  o.max_piece = c->max_piece;
  sluice_sink sink = {NULL, on_split_event, c};
  sluice_error err;
  if (sluice_capture_new(&c->split, &o, &sink, &c->base.mem, &err) == SLUICE_OK) return 0;
  sluicep_fail(&c->base, err.status, c->base.at, "%s", err.message);
  return 1;
}

static int header_line(capture *c, const char *p, size_t n, uint64_t at) {
  static const char *const keys[] = {"sluice_capture", "request", "response", "endpoint",
                                     "family", "timed", NULL};
  static const char *const rkeys[] = {"status", "headers", NULL};
  enum { MAGIC, REQUEST, RESPONSE, ENDPOINT, FAMILY, TIMED };
  span m[6], r[2] = {{NULL, 0}, {NULL, 0}};
  members(p, n, keys, m);
  if (!m[MAGIC].p || m[MAGIC].p[0] < '0' || m[MAGIC].p[0] > '9')
    return bad_line(c, at, 0, "the first line must be the header {\"sluice_capture\": 1, ...}");
  c->header = 1;
  c->timed = !(m[TIMED].p && m[TIMED].n == 5 && memcmp(m[TIMED].p, "false", 5) == 0);
  if (m[RESPONSE].p && m[RESPONSE].p[0] == '{') members(m[RESPONSE].p, m[RESPONSE].n, rkeys, r);
  uint64_t status = 200;
  if (r[0].p) {
    jr sr;
    jr_init(&sr, r[0].p, r[0].n);
    if (!jr_uint(&sr, &status) || status < 100 || status > 599)
      return bad_line(c, at, 0, "response.status must be an integer from 100 to 599");
  }
  char num[8];
  int nl = snprintf(num, sizeof num, "%u", (unsigned)status);
  int fail = meta(c, "status", num, (size_t)nl);
  c->format = SLUICE_CAPTURE_SSE; /* until a Content-Type says ndjson */
  if (!fail) fail = header_fields(c, &r[1]);
  if (!fail && m[REQUEST].p) fail = meta(c, "request", m[REQUEST].p, m[REQUEST].n);
  const span *ep = is_str(&m[ENDPOINT]) ? &m[ENDPOINT] : &m[FAMILY];
  size_t el;
  const char *e = is_str(ep) ? str_of(c, ep, &el) : NULL;
  if (!fail && e) fail = meta(c, "endpoint", e, el);
  if (!fail && !c->timed && !c->gzip) fail = open_split(c);
  c->format = SLUICE_CAPTURE_RECORDED;
  return fail || c->base.err.status != SLUICE_OK;
}

static int piece_line(capture *c, const char *p, size_t n, uint64_t at) {
  static const char *const keys[] = {"t", "data", "data_b64", "end", NULL};
  enum { T, DATA, B64, END };
  span m[4];
  members(p, n, keys, m);
  uint64_t us;
  if (!m[T].p || !micros(&m[T], &us))
    return bad_line(c, at, 0, "a piece must be {\"t\": seconds, \"data\": text} (or \"data_b64\")");
  int have = !!m[DATA].p + !!m[B64].p + !!m[END].p;
  if (have != 1 || (m[DATA].p && !is_str(&m[DATA])) || (m[B64].p && !is_str(&m[B64])) ||
      (m[END].p && !is_str(&m[END])))
    return bad_line(c, at, 0, "a piece needs one of \"data\", \"data_b64\" (strings) or \"end\"");
  if (c->ended) return bad_line(c, at, 0, "a piece after the end line");
  size_t len;
  const char *s = str_of(c, m[END].p ? &m[END] : m[DATA].p ? &m[DATA] : &m[B64], &len);
  if (!s) return 1;
  if (m[END].p) {
    c->ended = 1;
    return meta(c, "end", s, len);
  }
  if (m[B64].p) {
    /* decoded in place: decoding only shortens */
    if (sluice_base64_decode(s, len, c->scratch.ptr, &len))
      return bad_line(c, at, (size_t)(m[B64].p - p), "data_b64 is not canonical base64");
  }
  if (c->split) {
    if (sluice_feed(c->split, s, len) != SLUICE_OK) return take_inner(c, c->split);
    return 0;
  }
  if (c->max_piece && len > c->max_piece) {
    sluicep_fail(&c->base, SLUICE_LIMIT, at, "line %llu: a piece exceeded max_piece (%zu bytes)",
                 (unsigned long long)line_of(c, at), c->max_piece);
    return 1;
  }
  int rc = send_piece(c, s, len, c->body, c->timed ? us : UINT64_MAX);
  c->body += len;
  return rc;
}

/* ---------------- lines ---------------- */

static int on_line(void *user, const sluice_event *ev) {
  capture *c = user;
  if (ev->type != SLUICE_EV_RECORD) return 0;
  const char *p = ev->data;
  size_t n = ev->data_len;
  c->line_at = c->source = ev->offset;
  if (c->format == SLUICE_CAPTURE_CHUNKS) return chunks_line(c, p, n, ev->offset);
  if (!one_object(c, p, n, ev->offset)) return 1;
  return c->header ? piece_line(c, p, n, ev->offset) : header_line(c, p, n, ev->offset);
}

static int recorded_finish(capture *c) {
  if (!c->header) {
    sluicep_fail(&c->base, SLUICE_CAPTURE_FORMAT, c->base.fed,
                 "the capture has no header line");
    return 1;
  }
  if (c->split && sluice_finish(c->split) != SLUICE_OK) return take_inner(c, c->split);
  return 0;
}

/* ---------------- the format ---------------- */

static int open_format(capture *c, sluice_capture_format fmt) {
  c->format = fmt;
  sluice_error err;
  sluice_status st = SLUICE_OK;
  if (fmt == SLUICE_CAPTURE_SSE) {
    sluice_sse_opts o;
    sluice_sse_opts_init(&o);
    o.max_line = o.max_event = c->max_piece;
    st = sluice_sse_new(&c->frame, &o, NULL, &c->base.mem, &err);
    if (st == SLUICE_OK) sluicep_sse_on_blank(c->frame, on_blank, c);
  } else if (fmt == SLUICE_CAPTURE_CHUNKS || fmt == SLUICE_CAPTURE_RECORDED) {
    sluice_lines_opts o;
    sluice_lines_opts_init(&o);
    o.max_line = c->max_line;
    sluice_sink sink = {NULL, on_line, c};
    st = sluice_chunks_new(&c->frame, &o, &sink, &c->base.mem, &err);
    if (st == SLUICE_OK && fmt == SLUICE_CAPTURE_CHUNKS) {
      sluice_provider_opts po;
      sluice_provider_opts_init(&po);
      po.framing = SLUICE_FRAMING_CHUNKS;
      po.max_line = c->max_line;
      sluice_sink ps = {NULL, on_pv_event, c};
      st = sluice_provider_new(&c->pv, &po, &ps, &c->base.mem, &err);
    }
  }
  if (st == SLUICE_OK) return 0;
  sluicep_fail(&c->base, st, c->base.at, "%s", err.message);
  return 1;
}

/* AUTO: the format of the content in p[0..n) (what was fed so far), or
 * AUTO while it cannot tell: not JSON lines (the first byte that is not
 * whitespace is not '{') is sse; a first line with a "sluice_capture"
 * member is recorded; lines from Ollama are ndjson, others chunks. */
static sluice_capture_format tell_format(const char *p, size_t n, int final) {
  size_t i = 0;
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) i++;
  if (i == n) return final ? SLUICE_CAPTURE_SSE : SLUICE_CAPTURE_AUTO;
  if (p[i] != '{') return SLUICE_CAPTURE_SSE;
  const char *lf = memchr(p + i, '\n', n - i);
  if (!lf && !final) return SLUICE_CAPTURE_AUTO;
  size_t len = lf ? (size_t)(lf - (p + i)) : n - i;
  static const char *const keys[] = {"sluice_capture", NULL};
  span m[1];
  jr v;
  jr_init(&v, p + i, len);
  if (jr_skip(&v) && jr_end(&v)) {
    members(p + i, len, keys, m);
    if (m[0].p) return SLUICE_CAPTURE_RECORDED;
  }
  sluice_detection d;
  if (sluice_detect_chunk(p + i, len, &d) == SLUICE_OK &&
      (d.endpoint == SLUICE_ENDPOINT_OLLAMA_CHAT || d.endpoint == SLUICE_ENDPOINT_OLLAMA_GENERATE))
    return SLUICE_CAPTURE_NDJSON;
  return SLUICE_CAPTURE_CHUNKS;
}

/* Bytes of the file, the format known. */
static int feed_known(capture *c, const char *p, size_t n) {
  if (!c->told) {
    const char *name = format_names[c->format];
    c->told = 1;
    if (meta(c, "format", name, strlen(name))) return 1;
  }
  c->chunk = p;
  c->chunk_at = c->base.at;
  int rc;
  if (c->format == SLUICE_CAPTURE_SSE || c->format == SLUICE_CAPTURE_NDJSON)
    rc = raw_feed(c, p, n);
  else
    rc = sluice_feed(c->frame, p, n) != SLUICE_OK && take_inner(c, c->frame);
  for (const char *q = p, *e; !rc && (e = memchr(q, '\n', (size_t)(p + n - q))) != NULL; q = e + 1)
    c->lf_before++;
  c->chunk = NULL;
  return rc;
}

/* AUTO: the format told from the first max_line bytes (all of them at
 * the end of the file), so the answer does not depend on the chunking. */
static sluice_capture_format tell_bounded(const capture *c, int final) {
  size_t n = c->head.len;
  if (c->max_line && n >= c->max_line) {
    n = c->max_line;
    final = 1;
  }
  return tell_format(c->head.ptr ? c->head.ptr : "", n, final);
}

/* The held head, the format now known, fed as the file's first bytes. */
static int feed_head(capture *c, sluice_capture_format fmt) {
  if (open_format(c, fmt)) return 1;
  uint64_t at = c->base.at;
  c->base.at = 0;
  int rc = feed_known(c, c->head.ptr ? c->head.ptr : "", c->head.len);
  c->base.at = at;
  sluicep_buf_free(&c->head);
  return rc;
}

static sluice_status capture_feed(sluice_filter *f, const char *p, size_t n) {
  capture *c = (capture *)f;
  if (c->format != SLUICE_CAPTURE_AUTO) {
    feed_known(c, p, n);
    return f->err.status;
  }
  if (sluicep_buf_append(&c->head, p, n)) return sluicep_fail(f, SLUICE_NOMEM, f->at, "out of memory");
  sluice_capture_format fmt = tell_bounded(c, 0);
  if (fmt != SLUICE_CAPTURE_AUTO) feed_head(c, fmt);
  return f->err.status;
}

static sluice_status capture_finish(sluice_filter *f) {
  capture *c = (capture *)f;
  if (c->format == SLUICE_CAPTURE_AUTO && feed_head(c, tell_bounded(c, 1))) return f->err.status;
  if (!c->told && feed_known(c, "", 0)) return f->err.status;
  c->chunk = NULL;
  c->chunk_at = f->fed;
  if (c->format == SLUICE_CAPTURE_SSE || c->format == SLUICE_CAPTURE_NDJSON) {
    raw_finish(c);
    return f->err.status;
  }
  if (sluice_finish(c->frame) != SLUICE_OK) {
    take_inner(c, c->frame);
    return f->err.status;
  }
  if (c->format == SLUICE_CAPTURE_CHUNKS) chunks_finish(c);
  else recorded_finish(c);
  return f->err.status;
}

static void capture_destroy(sluice_filter *f) {
  capture *c = (capture *)f;
  sluice_free(c->frame);
  sluice_free(c->pv);
  sluice_free(c->split);
  sluicep_buf_free(&c->head);
  sluicep_buf_free(&c->piece);
  sluicep_buf_free(&c->scratch);
}

static const sluicep_vtable capture_vt = {"capture", capture_feed, capture_finish,
                                          capture_destroy, NULL};

uint64_t sluice_capture_source(const sluice_filter *f) {
  return f && f->vt == &capture_vt ? ((const capture *)f)->source : 0;
}

void sluice_capture_opts_init_size(sluice_capture_opts *o, size_t size) {
  sluice_capture_opts d;
  memset(&d, 0, sizeof d);
  d.max_line = DEFAULT_MAX_LINE;
  d.max_piece = DEFAULT_MAX_PIECE;
  sluicep_opts_init(o, size, &d, sizeof d);
}

sluice_status sluice_capture_new(sluice_filter **out, const sluice_capture_opts *opts,
                                 const sluice_sink *sink, const sluice_mem *mem,
                                 sluice_error *err) {
  *out = NULL;
  sluice_capture_opts o;
  sluice_capture_opts_init(&o);
  sluice_status st =
      opts ? sluicep_opts_take(&o, sizeof o, opts, "sluice_capture_opts", err) : SLUICE_OK;
  if (st != SLUICE_OK) return st;
  if ((unsigned)o.format > SLUICE_CAPTURE_RECORDED)
    return sluicep_bad_option(err, "format must be auto, sse, ndjson, chunks or recorded");
  sluice_filter *f;
  st = sluicep_filter_alloc(&f, sizeof(capture), &capture_vt, sink, mem, err);
  if (st != SLUICE_OK) return st;
  capture *c = (capture *)f;
  sluicep_buf_init(&c->head, &f->mem);
  sluicep_buf_init(&c->piece, &f->mem);
  sluicep_buf_init(&c->scratch, &f->mem);
  c->max_line = o.max_line;
  c->max_piece = o.max_piece;
  if (o.format != SLUICE_CAPTURE_AUTO && open_format(c, o.format)) {
    st = f->err.status;
    if (err) *err = f->err;
    sluice_free(f);
    return st;
  }
  *out = f;
  return SLUICE_OK;
}
