/*
 * capread.h: a capture's body, pulled in the chunks a replay feeds: the
 * pieces it came in (as recorded, or as its server framed them), a split
 * mode of chunking.h, or a cutter. The body comes from capsrc (libsluice's
 * capture reader, a gzip body decoded), read a block at a time: only the
 * pieces of the block being read and the largest chunk are held, never
 * the capture.
 */
#ifndef SLUICE_TOOLS_CAPREAD_H
#define SLUICE_TOOLS_CAPREAD_H

#include <stdint.h>

#include "capsrc.h"
#include "chunking.h"
#include "util.h"

typedef enum rd_cut { RD_RECORDED, RD_SPLIT, RD_CUTTER } rd_cut;

#define CAPREAD_RECENT 64 /* pieces remembered to point errors into the file */

typedef struct capread {
  char *path;
  capsrc *src;
  capsrc_info info;
  int eof;     /* the reader has read the whole file */
  tbuf fifo;   /* body bytes read and not yet handed out: fifo.p[fpos..] */
  const char *run;  /* pieces in the read block, one after the other, not yet */
  size_t run_n;     /* copied to fifo: copied once, at the end of the step */
  size_t fpos;
  uint64_t fifo_at;      /* the body offset of fifo.p[0] */
  uint64_t *ends;        /* piece ends (body offsets) not yet handed out */
  size_t nends, end0, cap_ends;
  struct {
    uint64_t body, source;
  } recent[CAPREAD_RECENT]; /* the last pieces' first bytes and their file offsets */
  size_t nrecent;
  uint64_t size;    /* the body's length; UINT64_MAX until known (capread_size) */
  uint64_t off;     /* body bytes handed out */
  size_t max_chunk; /* a longer chunk is an error (EFBIG) */
  rd_cut how;
  split_iter *split; /* RD_SPLIT: a started chunking */
  cutter cut;        /* RD_CUTTER */
  int err;           /* errno of a failure: EFBIG, or EINVAL with the message in errmsg */
  tbuf errmsg;       /* a malformed capture: "PATH: line L, byte B: reason" */
} capread;

/* Opens path ("-": standard input). -1 with errno on failure. */
int capread_open(capread *c, const char *path, size_t max_chunk);
void capread_close(capread *c);
/* Back to the first byte, for another chunking (a regular file only). */
int capread_rewind(capread *c);
/* The body's length, read once through (and the reading rewound) when not
 * known; UINT64_MAX for a pipe or when it cannot be read (c->err). */
uint64_t capread_size(capread *c);
/* How the next chunks are cut (from the current position). */
void capread_cut_recorded(capread *c);
void capread_cut_split(capread *c, split_iter *started);
void capread_cut_cutter(capread *c, const cutter *cut);
/* The next chunk: 1 with *p and *n (n may be 0), 0 at the end, -1 on a
 * read error, a malformed capture (c->errmsg) or a chunk over max_chunk
 * (c->err). The bytes stay valid until the next call. */
int capread_next(capread *c, const char **p, size_t *n);
/* Where body offset `at` came from in the file: itself in an sse or ndjson
 * body, else the line that held its piece. */
uint64_t capread_source(const capread *c, uint64_t at);
/* The 1-based line of file offset `offset`, by reading the file again (0
 * when it cannot: not a regular file, or a read error). */
uint64_t capread_line_of(const capread *c, uint64_t offset);

#endif
