/*
 * sluice_bind.c: one call's output of a filter, for the bindings
 * (sluice_bind.h).
 */
#include "sluice_bind.h"

#include <stdlib.h>
#include <string.h>

typedef struct buf {
  char *p;
  size_t n, cap;
} buf;

/* 0, or -1 when memory ran out. */
static int buf_add(buf *b, const void *p, size_t n) {
  if (n == 0) return 0;
  if (b->cap - b->n < n) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->n < n) {
      if (cap > SIZE_MAX / 2) return -1;
      cap *= 2;
    }
    char *q = realloc(b->p, cap);
    if (!q) return -1;
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
  return 0;
}

/* An event of this call, its bytes as offsets into the call's arena (which
 * may move as it grows). */
typedef struct stored_event {
  sluice_event_type type;
  size_t name, name_len, data, data_len, id, id_len;
  int data_in_thought; /* data is in this call's THOUGHT bytes, not the arena */
  uint64_t offset, length;
  int complete;
} stored_event;

typedef struct run {
  int kind;
  size_t n;
} run;

struct sb_filter {
  sluice_filter *f;
  buf chan[SLUICE_CHANNEL_COUNT]; /* this call's bytes */
  buf arena;                      /* this call's event bytes */
  stored_event *ev;
  size_t nev, cap_ev;
  run *runs;
  size_t nruns, cap_runs;
  /* A thought record (think's, and clean's step 1) names a span of THOUGHT,
   * which can have come in earlier calls. Those calls' THOUGHT bytes from
   * the end of the last record on are kept in `earlier` (the open block's:
   * every THOUGHT byte of those two filters is in a block); a record within
   * this call's bytes points into them and costs no copy. Other filters'
   * THOUGHT is not kept. Offsets are THOUGHT bytes since the start. */
  int keep_thought;
  buf earlier;
  uint64_t earlier_at; /* offset of earlier.p[0] */
  uint64_t named_to;   /* end of the last record: no record names what is before it */
  int oom;
  sluice_error err;
};

static int add_run(sb_filter *b, int kind, size_t n) {
  if (b->nruns && kind != SB_RUN_EVENT && b->runs[b->nruns - 1].kind == kind) {
    b->runs[b->nruns - 1].n += n;
    return 0;
  }
  if (b->nruns == b->cap_runs) {
    size_t cap = b->cap_runs ? b->cap_runs * 2 : 16;
    run *r = realloc(b->runs, cap * sizeof *r);
    if (!r) return -1;
    b->runs = r;
    b->cap_runs = cap;
  }
  b->runs[b->nruns].kind = kind;
  b->runs[b->nruns].n = n;
  b->nruns++;
  return 0;
}

static int on_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  sb_filter *b = user;
  if (buf_add(&b->chan[ch], p, n) || add_run(b, (int)ch, n)) {
    b->oom = 1;
    return 1;
  }
  return 0;
}

/* Copies n bytes into the arena; *at gets their offset. */
static int keep(sb_filter *b, const char *p, size_t n, size_t *at) {
  *at = b->arena.n;
  return buf_add(&b->arena, p, n);
}

static int on_event(void *user, const sluice_event *ev) {
  sb_filter *b = user;
  if (b->nev == b->cap_ev) {
    size_t cap = b->cap_ev ? b->cap_ev * 2 : 8;
    stored_event *e = realloc(b->ev, cap * sizeof *e);
    if (!e) goto oom;
    b->ev = e;
    b->cap_ev = cap;
  }
  stored_event *s = &b->ev[b->nev];
  s->type = ev->type;
  s->offset = ev->offset;
  s->length = ev->length;
  s->complete = ev->complete;
  s->name_len = ev->name_len;
  s->id_len = ev->id_len;
  if (keep(b, ev->name, ev->name_len, &s->name) || keep(b, ev->id, ev->id_len, &s->id))
    goto oom;
  s->data_in_thought = 0;
  if (ev->type == SLUICE_EV_THOUGHT && b->keep_thought) {
    /* The record's span [o, end) of THOUGHT: this call's bytes start at
     * call_at. Records come in order, each at or after the last one's end,
     * so the span is always kept; clamped all the same. */
    uint64_t call_at = b->earlier_at + b->earlier.n, end = ev->offset + ev->length;
    uint64_t o = ev->offset < b->earlier_at ? b->earlier_at : ev->offset;
    uint64_t limit = call_at + b->chan[SLUICE_THOUGHT].n;
    if (end > limit) end = limit;
    if (o > end) o = end;
    s->data_len = (size_t)(end - o);
    if (o >= call_at) { /* all in this call: no copy */
      s->data_in_thought = 1;
      s->data = (size_t)(o - call_at);
    } else { /* the part from earlier calls, then this call's */
      size_t head = (size_t)((end < call_at ? end : call_at) - o);
      if (keep(b, b->earlier.p + (o - b->earlier_at), head, &s->data) ||
          buf_add(&b->arena, b->chan[SLUICE_THOUGHT].p, s->data_len - head))
        goto oom;
    }
    b->named_to = end;
  } else {
    s->data_len = ev->data_len;
    if (keep(b, ev->data, ev->data_len, &s->data)) goto oom;
  }
  if (add_run(b, SB_RUN_EVENT, b->nev)) goto oom;
  b->nev++;
  return 0;
oom:
  b->oom = 1;
  return 1;
}

sluice_status sb_new(sb_filter **out, const char *name, const char *opts, size_t len,
                     sluice_error *err) {
  *out = NULL;
  sb_filter *b = calloc(1, sizeof *b);
  if (!b) {
    if (err) {
      err->status = SLUICE_NOMEM;
      err->offset = 0;
      strcpy(err->message, "out of memory");
    }
    return SLUICE_NOMEM;
  }
  sluice_sink sink = {on_emit, on_event, b};
  sluice_status st = sluice_filter_new_json(&b->f, name, opts, len, &sink, NULL, err);
  if (st != SLUICE_OK) {
    free(b);
    return st;
  }
  sluice_filter_kind k = sluice_filter_kind_from_name(sluice_filter_name(b->f));
  b->keep_thought = k == SLUICE_FILTER_THINK || k == SLUICE_FILTER_CLEAN;
  *out = b;
  return SLUICE_OK;
}

void sb_free(sb_filter *b) {
  if (!b) return;
  sluice_free(b->f);
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) free(b->chan[c].p);
  free(b->arena.p);
  free(b->earlier.p);
  free(b->ev);
  free(b->runs);
  free(b);
}

static void clear(sb_filter *b) {
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) b->chan[c].n = 0;
  b->arena.n = 0;
  b->nev = 0;
  b->nruns = 0;
}

/* After a call: this call's THOUGHT bytes that a later record may name
 * join `earlier`, and what no record will name any more leaves it. */
static int keep_for_records(sb_filter *b) {
  uint64_t call_at = b->earlier_at + b->earlier.n;
  const buf *now = &b->chan[SLUICE_THOUGHT];
  if (now->n == 0) return 0;
  if (b->named_to >= call_at) {
    size_t skip = (size_t)(b->named_to - call_at);
    b->earlier.n = 0;
    b->earlier_at = b->named_to;
    return buf_add(&b->earlier, now->p + skip, now->n - skip);
  }
  size_t drop = (size_t)(b->named_to > b->earlier_at ? b->named_to - b->earlier_at : 0);
  memmove(b->earlier.p, b->earlier.p + drop, b->earlier.n - drop);
  b->earlier.n -= drop;
  b->earlier_at += drop;
  return buf_add(&b->earlier, now->p, now->n);
}

/* The status of a call, with the collector's own failure said as itself. */
static sluice_status after(sb_filter *b, sluice_status st) {
  if (st == SLUICE_OK && b->keep_thought && keep_for_records(b)) {
    b->err.status = SLUICE_NOMEM;
    b->err.offset = sluice_fed(b->f);
    strcpy(b->err.message, "out of memory keeping a thought block's text");
    return SLUICE_NOMEM;
  }
  if (st == SLUICE_OK) return st;
  if (b->err.status == SLUICE_OK) {
    b->err = *sluice_get_error(b->f);
    if (b->oom) {
      b->err.status = SLUICE_NOMEM;
      strcpy(b->err.message, "out of memory collecting the output");
    }
  }
  return b->err.status;
}

sluice_status sb_feed(sb_filter *b, const void *p, size_t n) {
  clear(b);
  if (b->err.status != SLUICE_OK) return b->err.status;
  return after(b, sluice_feed(b->f, p, n));
}

sluice_status sb_finish(sb_filter *b) {
  clear(b);
  if (b->err.status != SLUICE_OK) return b->err.status;
  return after(b, sluice_finish(b->f));
}

const sluice_error *sb_error(const sb_filter *b) { return &b->err; }
sluice_filter *sb_filter_of(const sb_filter *b) { return b->f; }

const char *sb_channel(const sb_filter *b, sluice_channel ch, size_t *n) {
  *n = b->chan[ch].n;
  return b->chan[ch].p ? b->chan[ch].p : "";
}

size_t sb_event_count(const sb_filter *b) { return b->nev; }

void sb_event(const sb_filter *b, size_t i, sluice_event *ev) {
  const stored_event *s = &b->ev[i];
  const char *a = b->arena.p ? b->arena.p : "";
  memset(ev, 0, sizeof *ev);
  ev->type = s->type;
  ev->name = a + s->name;
  ev->name_len = s->name_len;
  const char *t = b->chan[SLUICE_THOUGHT].p ? b->chan[SLUICE_THOUGHT].p : "";
  ev->data = (s->data_in_thought ? t : a) + s->data;
  ev->data_len = s->data_len;
  ev->id = a + s->id;
  ev->id_len = s->id_len;
  ev->offset = s->offset;
  ev->length = s->length;
  ev->complete = s->complete;
}

size_t sb_run_count(const sb_filter *b) { return b->nruns; }

void sb_run(const sb_filter *b, size_t i, int *kind, size_t *n) {
  *kind = b->runs[i].kind;
  *n = b->runs[i].n;
}

/* ---- events in the protocol's form (FORMAT.md "Events"; the reference
 * writes the same in tools/common/reference.c) ---- */

typedef struct fields {
  sb_field *f;
  size_t n;
} fields;

static void put(fields *fs, const char *key, int kind, const char *p, size_t n, int64_t i) {
  sb_field *f = &fs->f[fs->n++];
  f->key = key;
  f->kind = kind;
  f->p = p ? p : "";
  f->n = p ? n : 0;
  f->i = i;
}

static void put_type(fields *fs, const char *type) { put(fs, "type", SB_NAME, type, strlen(type), 0); }
static void put_int(fields *fs, const char *key, uint64_t v) { put(fs, key, SB_INT, NULL, 0, (int64_t)v); }
static void put_bool(fields *fs, const char *key, int v) { put(fs, key, SB_BOOL, NULL, 0, v != 0); }

size_t sb_describe(const sluice_event *ev, sb_field f[SB_MAX_FIELDS]) {
  fields fs = {f, 0};
  switch (ev->type) {
  case SLUICE_EV_THOUGHT:
    put_type(&fs, "thought");
    put(&fs, "tag", SB_NAME, ev->name, ev->name_len, 0);
    put(&fs, "text", SB_BYTES, ev->data, ev->data_len, 0);
    put_bool(&fs, "complete", ev->complete);
    break;
  case SLUICE_EV_STOP:
    put_type(&fs, "stop");
    put(&fs, "reason", SB_NAME, ev->name, ev->name_len, 0);
    put_int(&fs, "offset", ev->offset);
    break;
  case SLUICE_EV_REPAIR:
    put_type(&fs, "repair");
    put(&fs, "kind", SB_NAME, ev->name, ev->name_len, 0);
    put_int(&fs, "offset", ev->offset);
    break;
  case SLUICE_EV_SSE:
    put_type(&fs, "event");
    put(&fs, "event", SB_BYTES, ev->name, ev->name_len, 0);
    put(&fs, "data", SB_BYTES, ev->data, ev->data_len, 0);
    put(&fs, "id", SB_BYTES, ev->id, ev->id_len, 0);
    break;
  case SLUICE_EV_RETRY:
    put_type(&fs, "retry");
    put(&fs, "retry", SB_NAME, ev->data, ev->data_len, 0);
    break;
  case SLUICE_EV_RECORD:
    put_type(&fs, "record");
    put(&fs, "data", SB_BYTES, ev->data, ev->data_len, 0);
    put_bool(&fs, "complete", ev->complete);
    break;
  case SLUICE_EV_DELTA:
    put_type(&fs, "delta");
    put_int(&fs, "choice", ev->offset);
    put(&fs, "kind", SB_NAME, ev->name, ev->name_len, 0);
    if (ev->name_len == 9 && memcmp(ev->name, "arguments", 9) == 0) put_int(&fs, "index", ev->length);
    put(&fs, "text", SB_BYTES, ev->data, ev->data_len, 0);
    break;
  case SLUICE_EV_TOOL_CALL:
    put_type(&fs, "tool_call");
    put_int(&fs, "choice", ev->offset);
    put_int(&fs, "index", ev->length);
    put(&fs, "id", SB_BYTES, ev->id, ev->id_len, 0);
    put(&fs, "name", SB_BYTES, ev->name, ev->name_len, 0);
    break;
  case SLUICE_EV_FINISH:
    put_type(&fs, "finish");
    put_int(&fs, "choice", ev->offset);
    put(&fs, "reason", SB_BYTES, ev->name, ev->name_len, 0);
    break;
  case SLUICE_EV_USAGE:
    put_type(&fs, "usage");
    put(&fs, "data", SB_BYTES, ev->data, ev->data_len, 0);
    break;
  case SLUICE_EV_ERROR:
    put_type(&fs, "error");
    put(&fs, "code", SB_BYTES, ev->name, ev->name_len, 0);
    put(&fs, "message", SB_BYTES, ev->data, ev->data_len, 0);
    break;
  case SLUICE_EV_END:
    put_type(&fs, "end");
    put_bool(&fs, "truncated", !ev->complete);
    break;
  case SLUICE_EV_PROVIDER:
    put_type(&fs, "provider");
    put(&fs, "endpoint", SB_NAME, ev->name, ev->name_len, 0);
    put(&fs, "model", SB_BYTES, ev->data, ev->data_len, 0);
    put(&fs, "framing", SB_NAME, ev->id, ev->id_len, 0);
    put_int(&fs, "offset", ev->offset);
    put_bool(&fs, "complete", ev->complete);
    break;
  case SLUICE_EV_PIECE:
    put_type(&fs, "piece");
    put_int(&fs, "offset", ev->offset);
    if (ev->length == UINT64_MAX) put(&fs, "t", SB_NULL, NULL, 0, 0);
    else put_int(&fs, "t", ev->length);
    put(&fs, "data", SB_BYTES, ev->data, ev->data_len, 0);
    break;
  case SLUICE_EV_META:
    put_type(&fs, "meta");
    put(&fs, "name", SB_BYTES, ev->name, ev->name_len, 0);
    put(&fs, "data", SB_BYTES, ev->data, ev->data_len, 0);
    break;
  case SLUICE_EV_SNAPSHOT: /* a tail edit: FORMAT.md "json snapshots" */
    put_type(&fs, "snapshot");
    put_int(&fs, "text_len", ev->offset);
    put_int(&fs, "drop", ev->length);
    put(&fs, "prepend", SB_BYTES, ev->data, ev->data_len, 0);
    break;
  case SLUICE_EV_VALUE:
    put_type(&fs, "value");
    put(&fs, "value", SB_RAW, ev->data, ev->data_len, 0);
    put_bool(&fs, "truncated", !ev->complete);
    if (ev->name_len) { /* valid JSON a reader with doubles cannot load */
      put(&fs, "reason", SB_NAME, ev->name, ev->name_len, 0);
      put_int(&fs, "offset", ev->offset);
    }
    break;
  default: break;
  }
  return fs.n;
}
