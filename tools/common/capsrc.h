/*
 * capsrc.h: a capture file as the commands read it: through libsluice's
 * capture reader (the one reader of .sse, .ndjson, .chunks.jsonl and
 * .capture.jsonl), a gzip-encoded recorded body decoded, and the body's
 * endpoint and model told by the library's detector. The file is read as
 * it goes: only a block, a piece and its decoding are held.
 */
#ifndef SLUICE_TOOLS_CAPSRC_H
#define SLUICE_TOOLS_CAPSRC_H

#include <stdint.h>

#include "answer.h"
#include "sluice.h"
#include "util.h"

#define CAPSRC_MAX_BODY ((size_t)256 << 20) /* the default cap on a decoded body */

/* What a capture says of itself, filled before its first piece (the
 * header's fields) and at its end (the rest). */
typedef struct capsrc_info {
  sluice_capture_format format;
  int status;             /* the recorded HTTP status; 200 otherwise */
  tstrs headers;          /* recorded response headers, "Name: value" */
  char *request;          /* the recorded request (JSON text), or NULL */
  sluice_endpoint endpoint; /* the recording's, else what the body tells */
  char model[256];        /* the model the body names ("" when none) */
  int timed;              /* the pieces carry recorded times */
  int gzip;               /* the body was recorded gzip-encoded */
  char end[64];           /* how a recording ended ("" when it does not say) */
  uint64_t body_bytes;    /* of the decoded body */
  uint64_t pieces;
} capsrc_info;

/* One piece of the decoded body; t is microseconds after the request, or
 * UINT64_MAX when not recorded; source is the offset in the file of what it
 * was read from (sluice_capture_source), for messages. Non-zero stops the
 * reading (capsrc_read then returns 1). */
typedef int (*capsrc_piece_fn)(void *user, const char *p, size_t n, uint64_t t,
                               uint64_t source);

/* The reading, a block at a time, for a caller that pulls (capread.c):
 * capsrc_open (NULL with a message in err), capsrc_step (1: more to come,
 * 0: read whole, -1: failed with a message in err, 2: fn stopped it), and
 * capsrc_close. info must outlive the reading. */
typedef struct capsrc capsrc;
capsrc *capsrc_open(const char *path, size_t max_body, capsrc_piece_fn fn, void *user,
                    capsrc_info *info, tbuf *err);
int capsrc_step(capsrc *cs);
void capsrc_close(capsrc *cs);
/* 1 if p[0..n) lies in the block the last capsrc_step read: such bytes stay
 * put until the next step (other pieces' bytes last only for their call). */
int capsrc_in_block(const capsrc *cs, const char *p, size_t n);

/* Reads path ("-": standard input) and calls fn (which may be NULL) for
 * each piece of the body. max_body caps the decoded body (0: the
 * default). 0 when read whole, 1 when fn stopped it, -1 on failure with
 * "PATH: reason" in err (a malformed line: "PATH: line L, byte B: ...").
 * info is always filled as far as the reading got; free it with
 * capsrc_info_free. */
int capsrc_read(const char *path, size_t max_body, capsrc_piece_fn fn, void *user,
                capsrc_info *info, tbuf *err);
void capsrc_info_free(capsrc_info *info);

/* The value of header `name` (ASCII case-insensitive), or NULL. */
const char *capsrc_header(const capsrc_info *info, const char *name);

#endif
