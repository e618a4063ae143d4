/*
 * proto.h: the filter protocol's server side (conformance/FORMAT.md): one
 * request line in, one answer line out, or one line per feed and one for
 * finish in a streaming session ("stream": true). `sluice proto` sends the
 * lines to stdout; `sluice conform` without --impl queues them in memory,
 * so the reference is checked through the very bytes the server sends.
 *
 * Hostile input gets an answer, never a crash: malformed JSON, wrong
 * fields, non-canonical base64, a NUL in the filter name, an answer past the
 * size cap (code "limit"), memory running out ("nomem").
 */
#ifndef SLUICE_TOOLS_PROTO_H
#define SLUICE_TOOLS_PROTO_H

#include "sluice.h"
#include "util.h"

typedef struct proto_server {
  sluice_output *out; /* reused across requests */
  size_t max_answer;  /* bytes of one answer line */
} proto_server;

/* Where answer lines go (without their newline). Returns 0, or -1 to stop
 * (a write error): proto_serve then returns -1. */
typedef int (*proto_emit_fn)(void *user, const char *line, size_t n);

/* 0, or -1 when out of memory for the collector. */
int proto_server_init(proto_server *s, size_t max_answer);
void proto_server_free(proto_server *s);
/* Serves one request line (without its newline). 0, or -1 if emit failed. */
int proto_serve(proto_server *s, const char *line, size_t n, proto_emit_fn emit, void *user);
/* The answer to a line longer than the server accepts (its id unknown). */
int proto_line_too_long(proto_emit_fn emit, void *user, size_t max_line);
/* The answer to a line that could not be read for lack of memory. */
int proto_line_nomem(proto_emit_fn emit, void *user);

/* Routes jansson's allocations through a wrapper that counts failures, so
 * that a request jansson could not read for lack of memory is answered
 * "nomem" (jansson 2.14's lexer ignores some failed allocations and then
 * reports a wrong parse error, or crashes; proto_serve also checks that a
 * large line's memory is there before parsing it). Call once, before any
 * other jansson call; for a server process. */
void proto_watch_jansson_memory(void);

#endif
