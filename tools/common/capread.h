/*
 * capread.h: a captured provider stream (corpus/captures/: .sse bodies,
 * .ndjson bodies, .chunks.jsonl recordings) read from a file as it goes and
 * cut into the chunks a replay feeds: the capture's own boundaries (one
 * chunk per SSE event or per line, as servers flush), a split mode of
 * chunking.h, or a cutter. Only the read block and the largest chunk are
 * held, never the capture.
 */
#ifndef SLUICE_TOOLS_CAPREAD_H
#define SLUICE_TOOLS_CAPREAD_H

#include <stdint.h>

#include "chunking.h"
#include "util.h"

typedef enum rd_cut { RD_RECORDED, RD_SPLIT, RD_CUTTER } rd_cut;

typedef struct capread {
  int fd, own;
  uint64_t size; /* bytes in the file; UINT64_MAX when not a regular file */
  uint64_t off;  /* bytes handed out */
  char *blk;
  size_t blen, bpos;
  int eof;
  tbuf big;         /* a chunk that spans blocks */
  size_t max_chunk; /* a longer chunk is an error (EFBIG) */
  rd_cut how;
  split_iter *split; /* RD_SPLIT: a started chunking */
  cutter cut;        /* RD_CUTTER */
  int lines;         /* recorded: JSON lines when the first byte that is not
                        whitespace is '{', else SSE */
  uint32_t last4;    /* recorded SSE: the last four bytes scanned */
  int err;           /* errno of the failure */
} capread;

/* Opens path ("-": standard input). -1 with errno on failure. */
int capread_open(capread *c, const char *path, size_t max_chunk);
void capread_close(capread *c);
/* Back to the first byte, for another chunking (a regular file only). */
int capread_rewind(capread *c);
/* How the next chunks are cut (from the current position). */
void capread_cut_recorded(capread *c);
void capread_cut_split(capread *c, split_iter *started);
void capread_cut_cutter(capread *c, const cutter *cut);
/* The next chunk: 1 with *p and *n (n may be 0), 0 at the end, -1 on a
 * read error or a chunk over max_chunk (c->err). The bytes stay valid
 * until the next call. */
int capread_next(capread *c, const char **p, size_t *n);
/* The 1-based line of byte `offset`, by reading the file again (0 when it
 * cannot: not a regular file, or a read error). */
uint64_t capread_line_of(const capread *c, uint64_t offset);

#endif
