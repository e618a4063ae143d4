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


/* The request headers of a connection as a JSON object, secrets redacted. */
json_t *http_headers_json(struct MHD_Connection *c);


/* A request being received: its body, capped. */
typedef struct http_req {
  tbuf body;
  int too_big;
} http_req;

/* Feeds MHD's upload data into r; returns 1 while more is coming (the
 * handler returns MHD_YES), 0 when the whole request is in. */
int http_collect(http_req *r, const char *data, size_t *size, size_t cap);

/* Queues a complete response (a JSON body). */
enum MHD_Result http_reply(struct MHD_Connection *c, unsigned status, const char *json);

/* The log of requests received (GET /_sluice/log): the last `cap` ones. */
typedef struct http_log {
  pthread_mutex_t mu;
  json_t **v;
  size_t cap, n, next;
  unsigned long total;
} http_log;

void http_log_init(http_log *l, size_t cap);
void http_log_free(http_log *l);
/* Records a request (secrets redacted, the body capped at 64 KiB). */
void http_log_add(http_log *l, struct MHD_Connection *c, const char *method, const char *path,
                  const tbuf *body);
/* The log as JSON text (malloc'd), oldest first. */
char *http_log_dump(http_log *l);

#endif
