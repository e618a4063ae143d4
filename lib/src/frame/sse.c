/*
 * sse.c: the server-sent event stream parser (WHATWG HTML §9.2.6; DESIGN.md
 * §2 sse). The rules, in the order the spec gives them:
 *
 *  - one leading U+FEFF (EF BB BF) is stripped, only one;
 *  - a line ends at CRLF, at LF, or at a CR not followed by LF; a CR is a
 *    line end the moment it arrives, so the line is processed at once and
 *    only an LF at the start of the next chunk is swallowed;
 *  - an empty line dispatches; a line starting with ':' is a comment; else
 *    the field name runs to the first ':' and the value loses one leading
 *    U+0020 (a line without ':' is a name with an empty value);
 *  - data appends value + LF to the data buffer; event sets the type
 *    buffer; id sets the last event ID buffer unless the value holds NUL
 *    (the buffer persists across events); retry with only ASCII digits
 *    sets the reconnection time (a SLUICE_EV_RETRY event here); any other
 *    field is ignored;
 *  - dispatch: with an empty data buffer, clear data and type and do
 *    nothing; else drop one trailing LF and dispatch {type or "message",
 *    data, last event ID}, then clear data and type;
 *  - at the end of the stream pending data is discarded: an unfinished
 *    event is never dispatched, and a last line without its end is not a
 *    line at all (its bytes go to DROPPED, so the loss is visible).
 *
 * Lines that fit in a chunk are processed in place; only a line cut by the
 * end of a chunk is copied (into `line`), so large chunks cost one pass to
 * find line ends (memchr for LF and for CR, each searched once per chunk
 * while there are none) and a copy of each data value.
 */
#include "sluice_private.h"

#include <string.h>

static const char bom_bytes[3] = {'\xEF', '\xBB', '\xBF'};

typedef struct sse {
  sluice_filter base;
  sluicep_buf line; /* a line cut by the end of a chunk (its end not seen yet) */
  sluicep_buf data; /* the data buffer: every data value followed by LF */
  sluicep_buf type; /* the event type buffer */
  sluicep_buf id;   /* the last event ID buffer (persists across events) */
  uint64_t line_start; /* stream offset of the current line's first byte */
  uint64_t data_start; /* stream offset of the event's first data line */
  int cr;              /* the last line ended at a CR: an LF next belongs to it */
  int bom;             /* BOM bytes matched at the start (0 to 2); -1 once decided */
  size_t max_line, max_event;
  /* sluicep_sse_on_blank: where each blank line ends (the capture reader
   * cuts an SSE body into the pieces a server flushes there) */
  int (*on_blank)(void *user, uint64_t end);
  void *blank_user;
  int blank_pending; /* a blank line whose end is not told yet */
} sse;

/* Tells on_blank where the last blank line ended (line_start, once a CR
 * that ended it is known to be followed by an LF or not). */
static int blank_ended(sse *s) {
  s->blank_pending = 0;
  if (!s->on_blank(s->blank_user, s->line_start)) return 0;
  sluicep_fail(&s->base, SLUICE_CALLBACK, s->base.at, "a blank-line callback returned non-zero");
  return 1;
}

static int set_buf(sse *s, sluicep_buf *b, const char *p, size_t n) {
  b->len = 0;
  if (sluicep_buf_append(b, p, n) == 0) return 0;
  sluicep_fail(&s->base, SLUICE_NOMEM, s->base.at, "out of memory reading an event");
  return 1;
}

static int dispatch(sse *s) {
  if (s->data.len == 0) {
    s->type.len = 0;
    return 0;
  }
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_SSE;
  if (s->type.len) {
    ev.name = s->type.ptr;
    ev.name_len = s->type.len;
  } else {
    ev.name = "message";
    ev.name_len = 7;
  }
  ev.data = s->data.ptr;
  ev.data_len = s->data.len - 1; /* the last LF */
  ev.id = s->id.len ? s->id.ptr : "";
  ev.id_len = s->id.len;
  ev.offset = s->data_start;
  s->data.len = 0;
  s->type.len = 0;
  return sluicep_event(&s->base, &ev);
}

/* Where a data line's value starts, if l[0..len) is one ("data:" and an
 * optional space); 0 if it is not. */
static size_t data_value_at(const char *l, size_t len) {
  if (len < 5 || memcmp(l, "data:", 5) != 0) return 0;
  return (len > 5 && l[5] == ' ') ? 6 : 5;
}

/* A line longer than max_line (l holds at least max_line + 1 of its
 * bytes): the first byte beyond a cap. A data line may break the event
 * cap before the line cap. */
static void line_too_long(sse *s, const char *l, size_t len) {
  uint64_t at = s->line_start + s->max_line;
  size_t v = data_value_at(l, len);
  if (v && s->max_event && v + (s->max_event - s->data.len) < s->max_line) {
    at = s->line_start + v + (s->max_event - s->data.len);
    sluicep_fail(&s->base, SLUICE_LIMIT, at,
                 "an event's data exceeded max_event (%zu bytes)", s->max_event);
    return;
  }
  sluicep_fail(&s->base, SLUICE_LIMIT, at, "a line exceeded max_line (%zu bytes)", s->max_line);
}

/* One complete line l[0..len) (its end excluded). Non-zero to stop. */
static int process_line(sse *s, const char *l, size_t len) {
  if (len == 0) {
    s->blank_pending = s->on_blank != NULL;
    return dispatch(s);
  }
  if (s->on_blank) return 0; /* only where events end is asked for */
  if (l[0] == ':') return 0; /* a comment */
  const char *colon = memchr(l, ':', len);
  size_t name_len = colon ? (size_t)(colon - l) : len;
  const char *v = colon ? colon + 1 : l + len;
  size_t vlen = (size_t)(l + len - v);
  if (vlen && v[0] == ' ') {
    v++;
    vlen--;
  }
  switch (name_len) {
  case 4:
    if (memcmp(l, "data", 4) != 0) return 0;
    if (s->max_event && s->data.len + vlen + 1 > s->max_event) {
      size_t room = s->max_event - s->data.len;
      uint64_t at = s->line_start + (uint64_t)(v - l) + (room < vlen ? room : vlen);
      sluicep_fail(&s->base, SLUICE_LIMIT, at,
                   "an event's data exceeded max_event (%zu bytes)", s->max_event);
      return 1;
    }
    if (s->data.len == 0) s->data_start = s->line_start;
    if (sluicep_buf_reserve(&s->data, vlen + 1)) {
      sluicep_fail(&s->base, SLUICE_NOMEM, s->base.at, "out of memory reading an event");
      return 1;
    }
    if (vlen) memcpy(s->data.ptr + s->data.len, v, vlen);
    s->data.ptr[s->data.len + vlen] = '\n';
    s->data.len += vlen + 1;
    return 0;
  case 5:
    if (memcmp(l, "event", 5) == 0) return set_buf(s, &s->type, v, vlen);
    if (memcmp(l, "retry", 5) == 0) {
      if (vlen == 0) return 0;
      for (size_t i = 0; i < vlen; i++)
        if (v[i] < '0' || v[i] > '9') return 0;
      sluice_event ev;
      memset(&ev, 0, sizeof ev);
      ev.type = SLUICE_EV_RETRY;
      ev.data = v;
      ev.data_len = vlen;
      ev.offset = s->line_start;
      return sluicep_event(&s->base, &ev);
    }
    return 0;
  case 2:
    if (memcmp(l, "id", 2) != 0 || memchr(v, '\0', vlen)) return 0;
    return set_buf(s, &s->id, v, vlen);
  default: return 0;
  }
}

/* Appends a piece of a line that the chunk's end cuts, within the line
 * cap. Non-zero to stop. */
static int hold_line(sse *s, const char *p, size_t n) {
  if (s->max_line && s->line.len + n > s->max_line) {
    /* Keep max_line + 1 bytes: enough to tell a data line's value. */
    size_t take = s->max_line + 1 - s->line.len;
    if (sluicep_buf_append(&s->line, p, take)) {
      sluicep_fail(&s->base, SLUICE_NOMEM, s->base.at, "out of memory holding a line");
      return 1;
    }
    line_too_long(s, s->line.ptr, s->line.len);
    return 1;
  }
  if (sluicep_buf_append(&s->line, p, n)) {
    sluicep_fail(&s->base, SLUICE_NOMEM, s->base.at, "out of memory holding a line");
    return 1;
  }
  return 0;
}

/* Past the line end at e (a CR or an LF); sets the CR flag when a CR ends
 * the chunk, and the start of the next line. */
static const char *past_eol(sse *s, const char *e, const char *end, const char *p, uint64_t base) {
  const char *q = e + 1;
  if (*e == '\r') {
    if (q == end) s->cr = 1;
    else if (*q == '\n') q++;
  }
  s->line_start = base + (uint64_t)(q - p);
  return q;
}

/* Matches the stream's first bytes against the BOM. Returns how many bytes
 * of p it consumed; bytes that turn out not to be a BOM start the first
 * line. */
static size_t bom_step(sse *s, const char *p, size_t n) {
  size_t i = 0;
  while (i < n && s->bom >= 0) {
    if (p[i] == bom_bytes[s->bom]) {
      i++;
      if (++s->bom == 3) {
        s->bom = -1;
        s->line_start = 3;
      }
      continue;
    }
    int matched = s->bom;
    s->bom = -1;
    s->line_start = 0;
    if (matched && hold_line(s, bom_bytes, (size_t)matched)) return n;
  }
  return i;
}

static sluice_status sse_feed(sluice_filter *f, const char *p, size_t n) {
  sse *s = (sse *)f;
  uint64_t base = f->at; /* the stream offset of p[0] */
  const char *q = p, *end = p + n;
  if (s->bom >= 0) {
    q += bom_step(s, p, n);
    if (f->err.status != SLUICE_OK || q == end) return f->err.status;
  }
  if (s->cr) {
    s->cr = 0;
    if (*q == '\n') {
      q++;
      s->line_start++;
    }
    if (s->blank_pending && blank_ended(s)) return f->err.status;
  }
  /* The next LF and CR at or after q (end when there is none). */
  const char *lf = q, *cr = q;
  int lf_known = 0, cr_known = 0;
  while (q < end) {
    if (!lf_known || lf < q) {
      lf = memchr(q, '\n', (size_t)(end - q));
      if (!lf) lf = end;
      lf_known = 1;
    }
    if (!cr_known || cr < q) {
      cr = memchr(q, '\r', (size_t)(end - q));
      if (!cr) cr = end;
      cr_known = 1;
    }
    const char *e = lf < cr ? lf : cr;
    size_t len = (size_t)(e - q);
    if (e == end) {
      hold_line(s, q, len);
      return f->err.status;
    }
    if (s->line.len) {
      /* the end of a line that began in an earlier chunk */
      if (hold_line(s, q, len)) return f->err.status;
      int stop = process_line(s, s->line.ptr, s->line.len);
      s->line.len = 0;
      if (stop) return f->err.status;
    } else {
      if (s->max_line && len > s->max_line) {
        line_too_long(s, q, len);
        return f->err.status;
      }
      if (process_line(s, q, len)) return f->err.status;
    }
    q = past_eol(s, e, end, p, base);
    if (s->blank_pending && !s->cr && blank_ended(s)) return f->err.status;
  }
  return f->err.status;
}

static sluice_status sse_finish(sluice_filter *f) {
  sse *s = (sse *)f;
  if (s->blank_pending && blank_ended(s)) return f->err.status; /* a CR at the very end */
  /* A BOM prefix, or a last line without its end: never a line. */
  if (s->bom > 0 && sluicep_emit(f, SLUICE_DROPPED, bom_bytes, (size_t)s->bom))
    return f->err.status;
  sluicep_emit(f, SLUICE_DROPPED, s->line.ptr, s->line.len);
  return f->err.status;
}

static void sse_destroy(sluice_filter *f) {
  sse *s = (sse *)f;
  sluicep_buf_free(&s->line);
  sluicep_buf_free(&s->data);
  sluicep_buf_free(&s->type);
  sluicep_buf_free(&s->id);
}

/* sluice_reset: a new stream (its BOM undecided, no last event ID); the
 * buffers and the on_blank hook stay. */
static void sse_reset(sluice_filter *f) {
  sse *s = (sse *)f;
  s->line.len = s->data.len = s->type.len = s->id.len = 0;
  s->line_start = s->data_start = 0;
  s->cr = 0;
  s->bom = 0;
  s->blank_pending = 0;
}

static const sluicep_vtable sse_vt = {"sse", sse_feed, sse_finish, sse_destroy, sse_reset};

void sluice_sse_opts_init_size(sluice_sse_opts *o, size_t size) {
  sluice_sse_opts d;
  memset(&d, 0, sizeof d);
  d.max_line = SLUICE_FRAME_DEFAULT_MAX;
  d.max_event = SLUICE_FRAME_DEFAULT_MAX;
  sluicep_opts_init(o, size, &d, sizeof d);
}

sluice_status sluice_sse_new(sluice_filter **out, const sluice_sse_opts *opts,
                             const sluice_sink *sink, const sluice_mem *mem, sluice_error *err) {
  *out = NULL;
  sluice_sse_opts o;
  sluice_sse_opts_init(&o);
  sluice_status st =
      opts ? sluicep_opts_take(&o, sizeof o, opts, "sluice_sse_opts", err) : SLUICE_OK;
  if (st != SLUICE_OK) return st;
  sluice_filter *f;
  st = sluicep_filter_alloc(&f, sizeof(sse), &sse_vt, sink, mem, err);
  if (st != SLUICE_OK) return st;
  sse *s = (sse *)f;
  sluicep_buf_init(&s->line, &f->mem);
  sluicep_buf_init(&s->data, &f->mem);
  sluicep_buf_init(&s->type, &f->mem);
  sluicep_buf_init(&s->id, &f->mem);
  s->max_line = o.max_line;
  s->max_event = o.max_event;
  *out = f;
  return SLUICE_OK;
}

void sluicep_sse_on_blank(sluice_filter *f, int (*fn)(void *user, uint64_t end), void *user) {
  sse *s = (sse *)f;
  s->on_blank = fn;
  s->blank_user = user;
}
