/*
 * lines.h: the JSON-lines splitter that ndjson.c and chunks.c share. They
 * differ in one rule only, each in its own file: what a last line without
 * its LF is (ndjson: the cut-off end of a truncated stream; chunks: the
 * last record of a recording).
 */
#ifndef SLUICE_FRAME_LINES_H
#define SLUICE_FRAME_LINES_H

#include "sluice_private.h"

typedef struct sluicep_lines {
  sluice_filter base;
  sluicep_buf line;    /* a line cut by the end of a chunk */
  uint64_t line_start; /* stream offset of the current line */
  size_t max_line;
} sluicep_lines;

sluice_status sluicep_lines_new(sluice_filter **out, const sluicep_vtable *vt,
                                const sluice_lines_opts *o, const sluice_sink *sink,
                                const sluice_mem *mem, sluice_error *err);
sluice_status sluicep_lines_feed(sluice_filter *f, const char *p, size_t n);
void sluicep_lines_destroy(sluice_filter *f);
/* sluice_reset: a new stream, the line buffer kept. */
void sluicep_lines_reset(sluice_filter *f);
/* The record of one line (a CR before its LF already removed by the
 * caller, or not: see ndjson.c); blank lines are skipped. Non-zero to stop. */
int sluicep_lines_record(sluicep_lines *l, const char *p, size_t n, uint64_t at, int complete);

#endif
