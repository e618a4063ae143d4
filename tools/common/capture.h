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
 * for a recording, else one per event or line.
 */
#ifndef SLUICE_TOOLS_CAPTURE_H
#define SLUICE_TOOLS_CAPTURE_H

#include <jansson.h>
#include <stdio.h>

#include "answer.h"
#include "util.h"

/* The provider family, from the content: what endpoint, headers and error
 * shape a capture answers with. */
typedef enum cap_family {
  FAM_UNKNOWN,
  FAM_OPENAI_CHAT,        /* /v1/chat/completions (and OpenAI-compatible servers) */
  FAM_OPENAI_COMPLETIONS, /* /v1/completions */
  FAM_OPENAI_RESPONSES,   /* /v1/responses */
  FAM_ANTHROPIC,          /* /v1/messages */
  FAM_GEMINI,             /* /v1beta/models/M:streamGenerateContent?alt=sse */
  FAM_OLLAMA_CHAT,        /* /api/chat */
  FAM_OLLAMA_GENERATE,    /* /api/generate */
  FAM_LLAMACPP,           /* /completion */
  FAM_COUNT
} cap_family;

const char *cap_family_name(cap_family f);
/* FAM_UNKNOWN when the name is none of them. */
cap_family cap_family_from_name(const char *s);
/* The family of a provider chunk's JSON (a data payload or an NDJSON line). */
cap_family cap_family_of_json(json_t *chunk);

typedef enum cap_format { CAP_SSE, CAP_NDJSON, CAP_CHUNKS_JSONL, CAP_RECORDED } cap_format;

typedef struct cap_piece {
  size_t off, len;
  double t; /* seconds after the request, as recorded; < 0 when not recorded */
} cap_piece;

typedef struct capture {
  char *path, *name; /* name: the file name without its folder */
  cap_format format;
  cap_family family;
  tbytes body;
  cap_piece *pieces;
  size_t npieces;
  int timed;     /* the pieces carry recorded times */
  int status;    /* the HTTP status recorded (200 otherwise) */
  tstrs headers; /* recorded response headers, "Name: value" */
  char *model;   /* the model named in the stream, or NULL */
} capture;

/* Loads a capture (at most max_bytes of body; 0 = 256 MiB). On failure,
 * -1 with "FILE:LINE: reason" (or "FILE: reason") in err. */
int capture_load(capture *c, const char *path, size_t max_bytes, tbuf *err);
void capture_free(capture *c);

/* Writing a recording (.capture.jsonl): the header line first, then the
 * pieces as they arrive, then the end. Every write is checked; -1 with
 * errno on failure. */
typedef struct capture_writer {
  FILE *fp;
  tbuf line;
} capture_writer;

/* header: {"request": {...}, "response": {"status", "headers"}} (secrets
 * already scrubbed), written with "sluice_capture": 1 added. */
int capw_open(capture_writer *w, const char *path, json_t *header);
int capw_piece(capture_writer *w, double t, const char *p, size_t n);
/* how: "complete", or why the stream ended early. */
int capw_close(capture_writer *w, double t, const char *how);

#endif
