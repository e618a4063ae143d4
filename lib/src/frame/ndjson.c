/*
 * ndjson.c: JSON lines as Ollama streams them (application/x-ndjson), and
 * the line splitter that chunks.c shares (lines.h).
 *
 * A record is a line ended by LF, without the LF and without one CR before
 * it; lines of only spaces, tabs and CRs are skipped (they hold no JSON).
 * A Go server ends every line with LF, so a last line without one is the
 * cut-off end of a truncated stream: not a record, its bytes go to DROPPED
 * at finish. Only a line cut by the end of a chunk is copied.
 */
#include "lines.h"

#include <string.h>

int sluicep_lines_record(sluicep_lines *l, const char *p, size_t n, uint64_t at, int complete) {
  size_t i = 0;
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
  if (i == n) return 0;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_RECORD;
  ev.data = p;
  ev.data_len = n;
  ev.offset = at;
  ev.complete = complete;
  return sluicep_event(&l->base, &ev);
}

static int too_long(sluicep_lines *l) {
  sluicep_fail(&l->base, SLUICE_LIMIT, l->line_start + l->max_line,
               "a line exceeded max_line (%zu bytes)", l->max_line);
  return 1;
}

static int hold(sluicep_lines *l, const char *p, size_t n) {
  if (l->max_line && l->line.len + n > l->max_line) return too_long(l);
  if (sluicep_buf_append(&l->line, p, n) == 0) return 0;
  sluicep_fail(&l->base, SLUICE_NOMEM, l->base.at, "out of memory holding a line");
  return 1;
}

/* A complete line (its LF excluded). */
static int line(sluicep_lines *l, const char *p, size_t n) {
  if (l->max_line && n > l->max_line) return too_long(l);
  if (n && p[n - 1] == '\r') n--;
  return sluicep_lines_record(l, p, n, l->line_start, 1);
}

sluice_status sluicep_lines_feed(sluice_filter *f, const char *p, size_t n) {
  sluicep_lines *l = (sluicep_lines *)f;
  const char *q = p, *end = p + n;
  while (q < end) {
    const char *e = memchr(q, '\n', (size_t)(end - q));
    if (!e) {
      hold(l, q, (size_t)(end - q));
      break;
    }
    int stop;
    if (l->line.len) {
      stop = hold(l, q, (size_t)(e - q)) || line(l, l->line.ptr, l->line.len);
      l->line.len = 0;
    } else {
      stop = line(l, q, (size_t)(e - q));
    }
    if (stop) break;
    q = e + 1;
    l->line_start = f->at + (uint64_t)(q - p);
  }
  return f->err.status;
}

void sluicep_lines_destroy(sluice_filter *f) { sluicep_buf_free(&((sluicep_lines *)f)->line); }

void sluicep_lines_reset(sluice_filter *f) {
  sluicep_lines *l = (sluicep_lines *)f;
  l->line.len = 0;
  l->line_start = 0;
}

static sluice_status ndjson_finish(sluice_filter *f) {
  sluicep_lines *l = (sluicep_lines *)f;
  sluicep_emit(f, SLUICE_DROPPED, l->line.ptr, l->line.len);
  return f->err.status;
}

static const sluicep_vtable ndjson_vt = {"ndjson", sluicep_lines_feed, ndjson_finish,
                                         sluicep_lines_destroy, sluicep_lines_reset};

void sluice_lines_opts_init_size(sluice_lines_opts *o, size_t size) {
  sluice_lines_opts d;
  memset(&d, 0, sizeof d);
  d.max_line = SLUICE_FRAME_DEFAULT_MAX;
  sluicep_opts_init(o, size, &d, sizeof d);
}

sluice_status sluicep_lines_new(sluice_filter **out, const sluicep_vtable *vt,
                                const sluice_lines_opts *opts, const sluice_sink *sink,
                                const sluice_mem *mem, sluice_error *err) {
  *out = NULL;
  sluice_lines_opts o;
  sluice_lines_opts_init(&o);
  sluice_status st =
      opts ? sluicep_opts_take(&o, sizeof o, opts, "sluice_lines_opts", err) : SLUICE_OK;
  if (st != SLUICE_OK) return st;
  sluice_filter *f;
  st = sluicep_filter_alloc(&f, sizeof(sluicep_lines), vt, sink, mem, err);
  if (st != SLUICE_OK) return st;
  sluicep_lines *l = (sluicep_lines *)f;
  sluicep_buf_init(&l->line, &f->mem);
  l->max_line = o.max_line;
  *out = f;
  return SLUICE_OK;
}

sluice_status sluice_ndjson_new(sluice_filter **out, const sluice_lines_opts *o,
                                const sluice_sink *sink, const sluice_mem *mem,
                                sluice_error *err) {
  return sluicep_lines_new(out, &ndjson_vt, o, sink, mem, err);
}
