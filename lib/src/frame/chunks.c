/*
 * chunks.c: the .chunks.jsonl recording format (one provider chunk per
 * line: the JSON that came after "data: ", as a recorder saved it). Lines
 * are split as NDJSON's (ndjson.c); the one difference is the last line:
 * a recorder joins chunks with LF and writes none after the last, so a
 * last line without its LF is a record too, marked complete = 0 (a
 * provider adapter that cannot read it takes it for the cut-off end of a
 * truncated recording).
 */
#include "lines.h"

static sluice_status chunks_finish(sluice_filter *f) {
  sluicep_lines *l = (sluicep_lines *)f;
  const char *p = l->line.ptr;
  size_t n = l->line.len;
  if (n && p[n - 1] == '\r') n--;
  sluicep_lines_record(l, p, n, l->line_start, 0);
  return f->err.status;
}

static const sluicep_vtable chunks_vt = {"chunks", sluicep_lines_feed, chunks_finish,
                                         sluicep_lines_destroy, sluicep_lines_reset};

sluice_status sluice_chunks_new(sluice_filter **out, const sluice_lines_opts *o,
                                const sluice_sink *sink, const sluice_mem *mem,
                                sluice_error *err) {
  return sluicep_lines_new(out, &chunks_vt, o, sink, mem, err);
}
