/*
 * http.h: what `sluice serve` and `sluice record` share around
 * libmicrohttpd: collecting a request (body capped), the request log, the
 * listen address and the serving loop (what needs no server library is in
 * wire.h).
 */
#ifndef SLUICE_TOOLS_HTTP_H
#define SLUICE_TOOLS_HTTP_H

#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>

#include "capture.h"
#include "util.h"
#include "wire.h"

/* "127.0.0.1:8080" (port 0: any free port) into addr. 0, or -1. */
int http_parse_listen(const char *s, struct sockaddr_in *addr);

/* A server's life: SIGPIPE ignored, SIGINT and SIGTERM caught (they end
 * http_serve_until), before the daemon starts. */
void http_catch_signals(void);
/* Prints "listening on http://HOST:PORT" (the port the daemon bound, for
 * port 0) on standard output, then waits until a signal, `max` requests
 * counted in *done (0: no limit) or `seconds` (0: none). Returns 0, or 1
 * when standard output cannot be written ("sluice CMD: ..."). */
int http_serve_until(struct MHD_Daemon *d, const struct sockaddr_in *addr, const char *cmd,
                     atomic_ulong *done, uint64_t max, double seconds);


/* The request headers of a connection as a JSON object: names made valid
 * UTF-8, the values of secret names (wire.h's rule) redacted. NULL when out
 * of memory. */
json_t *http_headers_json(struct MHD_Connection *c);
/* 1 when every request header name is an HTTP token (else: 400). */
int http_headers_ok(struct MHD_Connection *c);

/* How a request body is received. */
typedef struct http_caps {
  size_t max_body; /* past it, too_big (413); 0: no cap */
  size_t keep;     /* the first bytes kept in memory */
  int spill;       /* keep all of it: past `keep` in an unlinked temporary file */
} http_caps;

/* A request being received: its target as sent, its body read as a stream
 * (counted, scanned for model and stream, the first bytes kept, the rest
 * spilled to a file or dropped). */
typedef struct http_req {
  char *target; /* the request target before any decoding (path and query) */
  tbuf head;    /* the first caps->keep bytes of the body */
  FILE *spill;  /* the rest, with caps->spill */
  uint64_t bytes, held; /* received; held in memory or the file (counted in the total) */
  int too_big;      /* over caps->max_body: answer 413 */
  int over_total;   /* over the server's total (http_set_buffer_cap): answer 503 */
  int io_error;     /* the spill file failed: answer 500 */
  wire_scan scan;
  uint64_t read_off; /* http_body_read's position */
} http_req;

/* The cap on the body bytes all requests of the process hold at once
 * (memory and spill files together); default 1 GiB. */
void http_set_buffer_cap(size_t cap);
void http_req_init(http_req *r, const char *target);
/* Feeds MHD's upload data into r; returns 1 while more is coming (the
 * handler returns MHD_YES), 0 when the whole request is in. */
int http_collect(http_req *r, const char *data, size_t *size, const http_caps *caps);
/* Reads the kept body from its start (head, then the spill file): bytes
 * read, 0 at the end, -1 on a read error. */
long http_body_read(http_req *r, char *buf, size_t max);
void http_req_free(http_req *r);
/* 1 when a request target is origin-form: "/" then no "/", and only
 * visible ASCII (no '#' and no backslash). */
int http_origin_form(const char *target);

/* Restarts c's idle timer (--idle-timeout, `idle` seconds): called as a
 * streamed answer hands out bytes, so that the server's own waits (a
 * recorded pause, an upstream's silence) do not count as the client's
 * idleness, while a client that stops reading still times out. */
void http_still_busy(struct MHD_Connection *c, unsigned idle);

/* Queues a complete response (a JSON body; NULL: a fixed out-of-memory
 * error). */
enum MHD_Result http_reply(struct MHD_Connection *c, unsigned status, const char *json);

#define HTTP_LOG_BODY 8192 /* a logged body kept whole up to this size */

/* The log of requests received (GET /_sluice/log): the last `cap` ones,
 * each kept as its JSON text (bounded: headers by libmicrohttpd's memory
 * limit, the body whole only up to HTTP_LOG_BODY, else its size, model and
 * stream flag). */
typedef struct http_log {
  pthread_mutex_t mu;
  char **v;
  size_t cap, n, next;
  unsigned long total;
} http_log;

void http_log_init(http_log *l, size_t cap);
void http_log_free(http_log *l);
/* Records a request, secrets redacted (dropped quietly when out of memory). */
void http_log_add(http_log *l, struct MHD_Connection *c, const char *method, const http_req *r);
/* The log as JSON text (malloc'd), oldest first; NULL when out of memory. */
char *http_log_dump(http_log *l);

#endif
