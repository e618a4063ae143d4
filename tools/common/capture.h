/*
 * capture.h: recorded provider streams, as `sluice serve` sends them and
 * `sluice record` and `sluice capture import` write them.
 *
 * Formats (corpus/captures/ATTRIBUTION.md describes the first three):
 *   .sse            the raw text/event-stream body
 *   .ndjson         the raw application/x-ndjson body
 *   .chunks.jsonl   one provider chunk (the JSON after "data: ") per line
 *   .capture.jsonl  written here: a header line, then one line per piece
 *                   of the body as it arrived, with its time (FORMAT.md,
 *                   "Recorded captures")
 *
 * A loaded capture is its response body as a client reads it (decoded, when
 * it was recorded gzip-encoded) and the pieces it is cut into: as it arrived
 * for a recording, else one per event or line. Reading is capsrc's; this
 * file keeps a capture whole for serve, and writes recordings.
 */
#ifndef SLUICE_TOOLS_CAPTURE_H
#define SLUICE_TOOLS_CAPTURE_H

#include <jansson.h>
#include <stdio.h>

#include "answer.h"
#include "capsrc.h"
#include "util.h"

typedef struct cap_piece {
  size_t off, len;
  double t; /* seconds after the request, as recorded; < 0 when not recorded */
} cap_piece;

/* A capture loaded whole (serve answers every request from memory), read
 * through the one reader (capsrc.h: libsluice's capture reader, a gzip body
 * decoded, the endpoint and model told by the library's detector). */
typedef struct capture {
  char *path, *name; /* name: the file name without its folder */
  sluice_capture_format format;
  sluice_endpoint family; /* the endpoint it answers */
  tbytes body;            /* as a client reads it (decoded) */
  cap_piece *pieces;
  size_t npieces;
  int timed;     /* the pieces carry recorded times */
  int status;    /* the HTTP status recorded (200 otherwise) */
  tstrs headers; /* recorded response headers, "Name: value" */
  char *model;   /* the model named in the stream, or NULL */
} capture;

/* Loads a capture (at most max_bytes of body; 0 = 256 MiB). On failure,
 * -1 with "FILE: line L, byte B: reason" (or "FILE: reason") in err. */
int capture_load(capture *c, const char *path, size_t max_bytes, tbuf *err);
void capture_free(capture *c);
/* Replaces c's body by body (taken) and its pieces by the n pieces that end
 * at ends[0..n) (ascending), untimed: a body written here (resplit.h,
 * framings). */
void capture_set_body(capture *c, tbuf *body, const size_t *ends, size_t n);

/* Writing a recording (.capture.jsonl): the header line first, then the
 * pieces as they arrive, then the end. Every write is checked; -1 with
 * errno on failure. */
typedef struct capture_writer {
  FILE *fp;
  tbuf line;
  char *path, *part; /* capw_open_part: written as PATH.part, renamed at the end */
} capture_writer;

/* header: {"request": {...}, "response": {"status", "headers"}} (secrets
 * already scrubbed), written with "sluice_capture": 1 added. */
int capw_open(capture_writer *w, const char *path, json_t *header);
/* The same, written to PATH.part and renamed to PATH by a successful
 * capw_close; a failed close or capw_abort removes it (no partial file). */
int capw_open_part(capture_writer *w, const char *path, json_t *header);
void capw_abort(capture_writer *w);
int capw_piece(capture_writer *w, double t, const char *p, size_t n);
/* how: "complete", or why the stream ended early. */
int capw_close(capture_writer *w, double t, const char *how);

#endif
