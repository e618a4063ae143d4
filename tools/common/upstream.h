/*
 * upstream.h: the mock upstream that `sluice serve` runs as a command and
 * `sluice gate` runs in process: recorded provider streams served over
 * HTTP/1.1 (libmicrohttpd) at each provider's streaming endpoint, with the
 * recorded pace or a chosen one, re-cut into writes of any shape, and with
 * faults, so a middleware under test meets the capture as it would meet the
 * provider.
 *
 * One thread per connection (libmicrohttpd's), so pacing and stalls are
 * plain bounded sleeps (up_limits.caller_runs has no thread at all: the
 * caller serves every connection with upstream_run, for entries that never
 * wait: the fuzz target). Entries (a capture and how to serve it) can be
 * added and removed while it runs: a request picks one by the header
 * X-Sluice-Capture (an entry's token or a capture's name), else by the
 * "model" it asks for (an entry's token, or the capture's model), else in
 * turn among the untokened entries of its endpoint.
 */
#ifndef SLUICE_TOOLS_UPSTREAM_H
#define SLUICE_TOOLS_UPSTREAM_H

#include <netinet/in.h>
#include <sys/select.h>
#include <stdint.h>

#include "capture.h"
#include "util.h"

enum up_rechunk { UP_RECORDED, UP_BYTES, UP_SIZE, UP_RANDOM };

/* How an entry is served. */
typedef struct up_behave {
  double ttft, gap, speed, stall_for; /* seconds; speed divides every wait (0: none) */
  int rechunk;                        /* enum up_rechunk: the writes' shape */
  size_t rechunk_n;
  uint64_t seed;
  /* faults, at body byte counts (-1: none) */
  int64_t cut_after, drop_after, stall_after, error_after;
  int status; /* answer this error status instead (0: none) */
  int gzip;
} up_behave;

void up_behave_default(up_behave *b);
/* "bytes", "random:SEED" or "N" into b's rechunk; -1 with the reason. */
int up_rechunk_parse(up_behave *b, const char *v, char *why, size_t wl);

typedef struct upstream upstream;
typedef struct up_entry up_entry;

/* quiet: libmicrohttpd's own messages (a connection reset on purpose, ...)
 * are not printed. */
upstream *upstream_new(size_t log_size, int quiet);
/* What the server holds at most (the caps `sluice serve --help` lists). */
typedef struct up_limits {
  size_t max_connections;   /* open at once; more are closed at once (default 512) */
  size_t idle_timeout;      /* seconds a connection may send nothing (default 60) */
  size_t max_body;          /* a request body past it is answered 413 (default 16 MiB) */
  size_t max_buffered;      /* body bytes held by all requests at once (default 1 GiB;
                               serve holds at most HTTP_LOG_BODY of each) */
  int caller_runs;          /* no thread of the server's own: the caller serves with
                               upstream_run (default 0); only for entries that never wait
                               (speed 0, no stall), as a wait would hold up the caller */
} up_limits;
void up_limits_default(up_limits *l);
/* Before upstream_start (upstream_new sets the defaults). */
void upstream_set_limits(upstream *u, const up_limits *l);
/* Serves c (taken: the caller's struct is cleared) as how says (NULL: the
 * defaults), chosen by token when not NULL. */
up_entry *upstream_add(upstream *u, capture *c, const up_behave *how, const char *token);
/* Stops choosing e; it is freed once no stream uses it. */
void upstream_remove(upstream *u, up_entry *e);
const capture *up_entry_capture(const up_entry *e);
/* How many requests chose e, and the endpoint the last one asked for. A
 * request that names e's token at another endpoint than its capture's is
 * answered 404 (and counted): the middleware asks elsewhere. */
void up_entry_stats(upstream *u, up_entry *e, int *requests, sluice_endpoint *asked);
/* Listens on addr (port 0: a free one) in threads of its own. 0, or -1
 * with the reason in err. */
int upstream_start(upstream *u, const struct sockaddr_in *addr, tbuf *err);
/* With caller_runs, the caller's select loop (libmicrohttpd's external
 * mode): upstream_fdset adds the server's sockets to the sets and raises
 * *max to the largest, and returns the milliseconds the server may wait at
 * most (-1: no limit; -2: not running that way, or a socket past
 * FD_SETSIZE); upstream_run then accepts, reads, answers and cleans up what
 * the sets say is ready, without waiting (0, or -1). */
long upstream_fdset(upstream *u, fd_set *r, fd_set *w, fd_set *e, int *max);
int upstream_run(upstream *u, fd_set *r, fd_set *w, fd_set *e);
/* "http://127.0.0.1:PORT" once started. */
const char *upstream_url(const upstream *u);
/* Provider requests completed so far. */
unsigned long upstream_done(upstream *u);
/* Connections the server holds: open, or closed and not yet cleaned up
 * (their thread joined, their memory freed). */
unsigned upstream_connections(upstream *u);
/* The command's wait (http_serve_until): prints "listening on URL" and
 * returns after max requests, seconds or a signal. */
int upstream_wait(upstream *u, const char *cmd, uint64_t max, double seconds);
/* Stops the server (streams in progress end) and frees everything. */
void upstream_free(upstream *u);

#endif
