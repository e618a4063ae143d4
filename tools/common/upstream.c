/*
 * upstream.c: the mock upstream (upstream.h): serve's engine, moved here so
 * that `sluice gate` runs it in process.
 */
#include "upstream.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#ifdef SLUICE_HAVE_ZLIB
#include <zlib.h>
#endif

#include <jansson.h>

#include "http.h"
#include "wire.h"
#include "rng.h"

enum ending { GO_ON, END_CLEAN, END_RESET, END_STALL };

struct up_entry {
  capture cap;
  up_behave how;
  char *token;
  int refs;     /* streams using it, and the list while it is in it */
  int requests; /* requests that chose it (under the upstream's lock) */
  sluice_endpoint asked;
};

struct upstream {
  pthread_mutex_t mu; /* guards the entries and their references */
  up_entry **v;
  size_t n, cap;
  http_log log;
  atomic_ulong done; /* provider requests completed */
  atomic_ulong turn[SLUICE_ENDPOINT_COUNT];
  atomic_int stop;
  struct MHD_Daemon *d;
  struct sockaddr_in addr;
  char url[96];
  up_limits lim;
  int quiet;
};

void up_behave_default(up_behave *b) {
  memset(b, 0, sizeof *b);
  b->speed = 1;
  b->stall_for = 30;
  b->cut_after = b->drop_after = b->stall_after = b->error_after = -1;
}

int up_rechunk_parse(up_behave *b, const char *v, char *why, size_t wl) {
  uint64_t u;
  if (strcmp(v, "bytes") == 0) b->rechunk = UP_BYTES;
  else if (strncmp(v, "random:", 7) == 0 && !parse_u64(v + 7, &b->seed)) b->rechunk = UP_RANDOM;
  else if (!parse_u64(v, &u) && u > 0) {
    b->rechunk = UP_SIZE;
    b->rechunk_n = (size_t)u;
  } else {
    snprintf(why, wl, "must be bytes, N or random:SEED, not \"%.60s\"", v);
    return -1;
  }
  return 0;
}

/* ---------------- entries ---------------- */

static void entry_free(up_entry *e) {
  capture_free(&e->cap);
  free(e->token);
  free(e);
}

static void entry_release(upstream *u, up_entry *e) {
  pthread_mutex_lock(&u->mu);
  int last = --e->refs == 0;
  pthread_mutex_unlock(&u->mu);
  if (last) entry_free(e);
}

up_entry *upstream_add(upstream *u, capture *c, const up_behave *how, const char *token) {
  up_entry *e = xcalloc(1, sizeof *e);
  e->cap = *c;
  memset(c, 0, sizeof *c);
  if (how) e->how = *how;
  else up_behave_default(&e->how);
  e->token = token ? xstrdup(token) : NULL;
  e->refs = 1;
  pthread_mutex_lock(&u->mu);
  if (u->n == u->cap) {
    u->cap = u->cap ? u->cap * 2 : 16;
    u->v = xrealloc(u->v, xmul(u->cap, sizeof *u->v));
  }
  u->v[u->n++] = e;
  pthread_mutex_unlock(&u->mu);
  return e;
}

void upstream_remove(upstream *u, up_entry *e) {
  pthread_mutex_lock(&u->mu);
  for (size_t i = 0; i < u->n; i++)
    if (u->v[i] == e) {
      u->v[i] = u->v[--u->n];
      break;
    }
  pthread_mutex_unlock(&u->mu);
  entry_release(u, e);
}

const capture *up_entry_capture(const up_entry *e) { return &e->cap; }

void up_entry_stats(upstream *u, up_entry *e, int *requests, sluice_endpoint *asked) {
  pthread_mutex_lock(&u->mu);
  *requests = e->requests;
  *asked = e->asked;
  pthread_mutex_unlock(&u->mu);
}

/* ---------------- one streamed response ---------------- */


typedef struct stream {
  upstream *u;
  up_entry *e; /* held (a reference) while the stream lives */
  const up_behave *sv;
  const capture *cap;
  size_t off;   /* the next body byte */
  size_t piece; /* the piece holding off */
  sluice_rng rng;
  double t0, last;
  int fd;
  struct MHD_Connection *conn;
#ifdef SLUICE_HAVE_ZLIB
  z_stream z;
#endif
  int gz;
  tbuf out; /* what is ready to go, handed out as libmicrohttpd asks */
  size_t out_off;
  enum ending ending;
  int errored; /* the error event was sent */
} stream;

/* Sleeps until `when` (monotonic seconds), in steps, so a stopping server
 * is not kept waiting. 0, or -1 when the server stops meanwhile. */
static int wait_until(upstream *u, double when) {
  for (;;) {
    if (atomic_load(&u->stop)) return -1;
    double left = when - now_seconds();
    if (left <= 0) return 0;
    double step = left < 0.05 ? left : 0.05;
    struct timespec ts = {0, (long)(step * 1e9)};
    nanosleep(&ts, NULL);
  }
}

/* The length of the next write starting at s->off. */
static size_t next_len(stream *s) {
  const capture *c = s->cap;
  size_t rest = c->body.n - s->off;
  switch (s->sv->rechunk) {
  case UP_BYTES: return 1;
  case UP_SIZE: return s->sv->rechunk_n < rest ? s->sv->rechunk_n : rest;
  case UP_RANDOM: {
    size_t n = 1 + (size_t)sluice_rng_below(&s->rng, 64);
    return n < rest ? n : rest;
  }
  default: {
    const cap_piece *p = &c->pieces[s->piece];
    return p->off + p->len - s->off;
  }
  }
}

/* When the write starting at s->off may go. */
static double due(stream *s) {
  const up_behave *sv = s->sv;
  if (sv->speed == 0) return 0;
  const capture *c = s->cap;
  if (c->timed && c->pieces[s->piece].t >= 0) return s->t0 + c->pieces[s->piece].t / sv->speed;
  double wait = s->off == 0 ? sv->ttft : sv->gap;
  return (s->off == 0 ? s->t0 : s->last) + wait / sv->speed;
}

static void emit(stream *s, const char *p, size_t n, int finish) {
  if (!s->gz) {
    tbuf_xadd(&s->out, p, n);
    return;
  }
#ifdef SLUICE_HAVE_ZLIB
  s->z.next_in = (Bytef *)p;
  s->z.avail_in = (uInt)n;
  do { /* flushed, so each piece can be decoded as it arrives */
    unsigned char buf[16384];
    s->z.next_out = buf;
    s->z.avail_out = sizeof buf;
    deflate(&s->z, finish ? Z_FINISH : Z_SYNC_FLUSH);
    tbuf_xadd(&s->out, buf, sizeof buf - s->z.avail_out);
  } while (s->z.avail_out == 0);
#else
  (void)finish;
#endif
}

/* The smallest fault threshold still ahead of off, and what it does. */
static int64_t next_fault(const stream *s, enum ending *what) {
  const up_behave *sv = s->sv;
  int64_t at = -1, off = (int64_t)s->off;
  struct { int64_t n; enum ending e; } f[] = {
      {sv->cut_after, END_CLEAN}, {sv->drop_after, END_RESET}, {sv->stall_after, END_STALL}};
  for (size_t i = 0; i < 3; i++)
    if (f[i].n >= off && (at < 0 || f[i].n < at)) {
      at = f[i].n;
      *what = f[i].e;
    }
  return at;
}

/* Prepares the next piece of the response in s->out. */
static void advance(stream *s) {
  const up_behave *sv = s->sv;
  const capture *c = s->cap;
  enum ending fault = GO_ON;
  int64_t stop_at = next_fault(s, &fault);
  if (stop_at == (int64_t)s->off) {
    s->ending = fault;
    return;
  }
  if (sv->error_after >= 0 && !s->errored && (int64_t)s->off >= sv->error_after &&
      (s->piece == 0 || c->pieces[s->piece].off == s->off)) {
    char *ev = http_error_event(c->family, "sluice serve: an error injected by --error-after");
    if (!ev) {
      s->ending = END_RESET;
      return;
    }
    emit(s, ev, strlen(ev), 0);
    free(ev);
    s->errored = 1;
    s->ending = END_CLEAN;
    return;
  }
  if (s->off >= c->body.n) {
    if (s->gz) emit(s, "", 0, 1);
    s->ending = END_CLEAN;
    return;
  }
  size_t len = next_len(s);
  if (stop_at >= 0 && (int64_t)(s->off + len) > stop_at) len = (size_t)(stop_at - (int64_t)s->off);
  if (wait_until(s->u, due(s))) {
    s->ending = END_RESET;
    return;
  }
  emit(s, c->body.p + s->off, len, 0);
  s->off += len;
  s->last = now_seconds();
  while (s->piece + 1 < c->npieces && c->pieces[s->piece + 1].off <= s->off) s->piece++;
}

/* An abrupt close: the peer sees a reset, not an end. */
static void reset_connection(int fd) {
  struct linger lg = {1, 0};
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max) {
  (void)pos;
  stream *s = cls;
  for (;;) {
    if (s->out_off < s->out.n) {
      size_t n = s->out.n - s->out_off < max ? s->out.n - s->out_off : max;
      memcpy(buf, s->out.p + s->out_off, n);
      s->out_off += n;
      if (s->out_off == s->out.n) s->out.n = s->out_off = 0;
      http_still_busy(s->conn, (unsigned)s->u->lim.idle_timeout);
      return (ssize_t)n;
    }
    switch (s->ending) {
    case END_CLEAN: return MHD_CONTENT_READER_END_OF_STREAM;
    case END_STALL:
      /* Silent, connection open, until the stall ends (or the server). */
      wait_until(s->u, now_seconds() + s->sv->stall_for);
      s->ending = END_RESET;
      /* fall through */
    case END_RESET: reset_connection(s->fd); return MHD_CONTENT_READER_END_WITH_ERROR;
    default: break;
    }
    advance(s);
  }
}

static void free_stream(void *cls) {
  stream *s = cls;
  entry_release(s->u, s->e);
#ifdef SLUICE_HAVE_ZLIB
  if (s->gz) deflateEnd(&s->z);
#endif
  tbuf_free(&s->out);
  free(s);
}


/* ---------------- requests ---------------- */

typedef struct request {
  http_req in;
  int started; /* the handler has seen the headers */
  int counted; /* a provider request: counts toward the server's end */
} request;

/* A capture's file name without its extensions: "a.chunks.jsonl" -> "a". */
static int same_name(const char *file, const char *asked) {
  size_t n = strlen(asked);
  return strncmp(file, asked, n) == 0 && (file[n] == '\0' || file[n] == '.');
}

/* What the request body says: its model and whether it asks for a stream
 * (Ollama streams unless told not to; Gemini and llama.cpp by the path). */
typedef struct asked {
  char model[256];
  int stream;
} asked;

static void read_request(sluice_endpoint fam, const char *url, const wire_scan *scan, asked *a) {
  memset(a, 0, sizeof *a);
  if (scan->has_model) snprintf(a->model, sizeof a->model, "%s", scan->model);
  if (fam == SLUICE_ENDPOINT_GEMINI) { /* the model is in the path */
    const char *p = strstr(url, "/models/"), *colon = p ? strrchr(p, ':') : NULL;
    if (p && colon && colon > p + 8) {
      size_t n = wire_utf8_cut(p + 8, (size_t)(colon - (p + 8)), sizeof a->model - 1);
      memcpy(a->model, p + 8, n);
      a->model[n] = '\0';
    }
  }
  if (fam == SLUICE_ENDPOINT_GEMINI || fam == SLUICE_ENDPOINT_LLAMACPP) a->stream = 1;
  else if (fam == SLUICE_ENDPOINT_OLLAMA_CHAT || fam == SLUICE_ENDPOINT_OLLAMA_GENERATE)
    a->stream = scan->stream != 0;
  else a->stream = scan->stream == 1;
}

/* The entry for a request, with a reference taken; NULL with why. */
static up_entry *choose(upstream *u, struct MHD_Connection *c, sluice_endpoint fam,
                        const asked *a, char *why, size_t wl) {
  const char *named = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Sluice-Capture");
  up_entry *pick = NULL;
  pthread_mutex_lock(&u->mu);
  if (named) {
    for (size_t i = 0; i < u->n && !pick; i++)
      if ((u->v[i]->token && strcmp(u->v[i]->token, named) == 0) ||
          same_name(u->v[i]->cap.name, named))
        pick = u->v[i];
    if (!pick)
      snprintf(why, wl, "no capture named \"%.*s\"",
               (int)wire_utf8_cut(named, strlen(named), 100), named);
  } else {
    for (size_t i = 0; i < u->n && !pick && a->model[0]; i++)
      if (u->v[i]->token && strcmp(u->v[i]->token, a->model) == 0) pick = u->v[i];
    for (size_t i = 0; i < u->n && !pick && a->model[0]; i++)
      if (!u->v[i]->token && u->v[i]->cap.family == fam && u->v[i]->cap.model &&
          strcmp(u->v[i]->cap.model, a->model) == 0)
        pick = u->v[i];
    size_t count = 0;
    for (size_t i = 0; i < u->n && !pick; i++)
      count += !u->v[i]->token && u->v[i]->cap.family == fam;
    if (!pick && count) {
      size_t k = atomic_fetch_add(&u->turn[fam], 1) % count;
      for (size_t i = 0; i < u->n && !pick; i++)
        if (!u->v[i]->token && u->v[i]->cap.family == fam && k-- == 0) pick = u->v[i];
    }
    if (!pick) snprintf(why, wl, "no capture for the %s endpoint", sluice_endpoint_name(fam));
  }
  if (pick) {
    pick->refs++;
    pick->requests++;
    pick->asked = fam;
  }
  pthread_mutex_unlock(&u->mu);
  return pick;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, sluice_endpoint fam, unsigned st,
                                   const char *msg) {
  char *body = http_error_body(fam, (int)st, msg);
  enum MHD_Result rc = http_reply(c, st, body);
  free(body);
  return rc;
}

/* The recorded headers that describe the content (not its length, coding
 * or type, which are ours, and no secret). */
static void add_recorded_headers(struct MHD_Response *resp, const capture *cap) {
  for (size_t i = 0; i < cap->headers.n; i++) {
    const char *h = cap->headers.v[i], *colon = strchr(h, ':');
    if (!colon) continue;
    char name[128];
    size_t nl = (size_t)(colon - h) < sizeof name - 1 ? (size_t)(colon - h) : sizeof name - 1;
    memcpy(name, h, nl);
    name[nl] = '\0';
    static const char *const skip[] = {"content-length", "transfer-encoding", "connection",
                                       "content-encoding", "content-type", "date", NULL};
    int keep = !http_secret_header(name);
    for (size_t k = 0; skip[k] && keep; k++) keep = strcasecmp(name, skip[k]) != 0;
    if (keep) MHD_add_response_header(resp, name, colon + 1 + (colon[1] == ' '));
  }
}

/* The streamed answer: the entry's capture from its first byte, paced,
 * re-cut and faulted as the entry says. The stream holds the reference. */
static enum MHD_Result stream_capture(upstream *u, struct MHD_Connection *c, sluice_endpoint fam,
                                      up_entry *e) {
  stream *s = xcalloc(1, sizeof *s);
  s->u = u;
  s->e = e;
  s->sv = &e->how;
  s->cap = &e->cap;
  s->rng = sluice_rng_seed(e->how.seed);
  s->t0 = s->last = now_seconds();
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  s->fd = ci ? ci->connect_fd : -1;
  s->conn = c;
  /* Each piece goes out when it is due, not when Nagle's algorithm lets a
   * small write go (after the peer's delayed ACK). */
  int one = 1;
  if (s->fd >= 0) setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
#ifdef SLUICE_HAVE_ZLIB
  if (e->how.gzip) {
    if (deflateInit2(&s->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
      entry_release(u, e);
      tbuf_free(&s->out);
      free(s);
      return MHD_NO;
    }
    s->gz = 1;
  }
#endif
  struct MHD_Response *resp =
      MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536, reader, s, free_stream);
  if (!resp) {
    free_stream(s);
    return MHD_NO;
  }
  /* The recorded headers that describe the content, then ours. */
  add_recorded_headers(resp, &e->cap);
  MHD_add_response_header(resp, "Content-Type", http_stream_type(fam));
  MHD_add_response_header(resp, "Cache-Control", "no-cache");
  MHD_add_response_header(resp, "X-Sluice-Capture", e->token ? e->token : e->cap.name);
  if (s->gz) MHD_add_response_header(resp, "Content-Encoding", "gzip");
  enum MHD_Result rc = MHD_queue_response(c, (unsigned)e->cap.status, resp);
  MHD_destroy_response(resp);
  return rc;
}

/* A provider request, whole. */
static enum MHD_Result answer_request(upstream *u, struct MHD_Connection *c, const char *url,
                              const char *method, request *r) {
  sluice_endpoint fam = sluice_endpoint_of_path(url, strlen(url));
  if (fam == SLUICE_ENDPOINT_UNKNOWN)
    return reply_error(c, SLUICE_ENDPOINT_OPENAI_CHAT, MHD_HTTP_NOT_FOUND,
                       "no provider endpoint here");
  r->counted = 1;
  if (strcmp(method, "POST") != 0)
    return reply_error(c, fam, MHD_HTTP_METHOD_NOT_ALLOWED, "streaming endpoints take POST");
  if (r->in.too_big) {
    char msg[80];
    snprintf(msg, sizeof msg, "the request body is over %zu bytes (--max-body)", u->lim.max_body);
    return reply_error(c, fam, MHD_HTTP_CONTENT_TOO_LARGE, msg);
  }
  if (r->in.over_total || r->in.io_error)
    return reply_error(c, fam, MHD_HTTP_SERVICE_UNAVAILABLE,
                       "the server holds too many request bodies now (--max-buffered)");
  asked a;
  read_request(fam, url, &r->in.scan, &a);
  char why[200];
  up_entry *e = choose(u, c, fam, &a, why, sizeof why);
  if (!e) return reply_error(c, fam, MHD_HTTP_NOT_FOUND, why);
  enum MHD_Result rc;
  if (e->cap.family != SLUICE_ENDPOINT_UNKNOWN && e->cap.family != fam) {
    snprintf(why, sizeof why, "capture %s answers %s, not %s", e->cap.name,
             sluice_endpoint_name(e->cap.family), sluice_endpoint_name(fam));
    rc = reply_error(c, fam, MHD_HTTP_NOT_FOUND, why);
  } else if (e->how.status)
    rc = reply_error(c, fam, (unsigned)e->how.status, "sluice serve: an injected error status");
  else if (!a.stream)
    rc = reply_error(c, fam, MHD_HTTP_BAD_REQUEST,
                     "sluice serve answers streaming requests only (set \"stream\": true)");
  else
    return stream_capture(u, c, fam, e); /* the stream keeps the reference */
  entry_release(u, e);
  return rc;
}

/* A request begins: its target as sent (before libmicrohttpd decodes it). */
static void *begin(void *cls, const char *uri, struct MHD_Connection *c) {
  (void)cls;
  (void)c;
  request *r = xcalloc(1, sizeof *r);
  http_req_init(&r->in, uri);
  return r;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls) {
  (void)version;
  upstream *u = cls;
  request *r = *con_cls;
  if (!r) *con_cls = r = begin(NULL, url, c);
  if (!r->started) { /* the headers are in; the body follows */
    r->started = 1;
    return MHD_YES;
  }
  http_caps caps = {u->lim.max_body, HTTP_LOG_BODY, 0};
  if (http_collect(&r->in, upload, upload_size, &caps)) return MHD_YES;
  if (strcmp(url, "/_sluice/log") == 0) {
    char *log = http_log_dump(&u->log);
    enum MHD_Result rc = http_reply(c, MHD_HTTP_OK, log);
    free(log);
    return rc;
  }
  http_log_add(&u->log, c, method, &r->in);
  if (!http_headers_ok(c))
    return reply_error(c, SLUICE_ENDPOINT_OPENAI_CHAT, MHD_HTTP_BAD_REQUEST,
                       "a header name is not an HTTP token");
  return answer_request(u, c, url, method, r);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
  (void)c;
  (void)toe;
  upstream *u = cls;
  request *r = *con_cls;
  if (!r) return;
  if (r->counted) atomic_fetch_add(&u->done, 1);
  http_req_free(&r->in);
  free(r);
  *con_cls = NULL;
}

/* ---------------- the server ---------------- */

static void mhd_log(void *cls, const char *fmt, va_list ap) {
  const upstream *u = cls;
  if (!u->quiet) vfprintf(stderr, fmt, ap);
}

upstream *upstream_new(size_t log_size, int quiet) {
  upstream *u = xcalloc(1, sizeof *u);
  u->quiet = quiet;
  pthread_mutex_init(&u->mu, NULL);
  http_log_init(&u->log, log_size ? log_size : 256);
  up_limits_default(&u->lim);
  return u;
}

void up_limits_default(up_limits *l) {
  l->max_connections = 512;
  l->idle_timeout = 60;
  l->max_body = (size_t)16 << 20;
  l->max_buffered = (size_t)1 << 30;
  l->caller_runs = 0;
}

void upstream_set_limits(upstream *u, const up_limits *l) { u->lim = *l; }

int upstream_start(upstream *u, const struct sockaddr_in *addr, tbuf *err) {
  u->addr = *addr;
  http_set_buffer_cap(u->lim.max_buffered);
  /* The caller's loop: reads, writes and accepts are tried before checking
   * readiness (each connection's request is there at once). */
  unsigned flags = MHD_USE_ERROR_LOG;
  flags |= u->lim.caller_runs ? MHD_USE_TURBO
                              : MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                                    MHD_USE_THREAD_PER_CONNECTION;
  u->d = MHD_start_daemon(
      flags, 0,
      NULL, NULL, handler, u, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, u, /* first, or MHD says so */
      MHD_OPTION_SOCK_ADDR, addr, MHD_OPTION_NOTIFY_COMPLETED, completed, u,
      MHD_OPTION_URI_LOG_CALLBACK, begin, u, MHD_OPTION_THREAD_STACK_SIZE, (size_t)256 << 10,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)u->lim.idle_timeout, MHD_OPTION_CONNECTION_LIMIT,
      (unsigned)u->lim.max_connections, MHD_OPTION_END);
  if (!u->d) {
    tbuf_xprintf(err, "cannot listen: %s", strerror(errno));
    return -1;
  }
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(u->d, MHD_DAEMON_INFO_BIND_PORT);
  char host[64];
  inet_ntop(AF_INET, &addr->sin_addr, host, sizeof host);
  snprintf(u->url, sizeof u->url, "http://%s:%u", host, di ? di->port : ntohs(addr->sin_port));
  return 0;
}

long upstream_fdset(upstream *u, fd_set *r, fd_set *w, fd_set *e, int *max) {
  MHD_socket m = *max;
  MHD_UNSIGNED_LONG_LONG t;
  if (!u->d || !u->lim.caller_runs || MHD_get_fdset(u->d, r, w, e, &m) != MHD_YES) return -2;
  *max = m;
  if (MHD_get_timeout(u->d, &t) != MHD_YES) return -1;
  return t > LONG_MAX ? LONG_MAX : (long)t;
}

int upstream_run(upstream *u, fd_set *r, fd_set *w, fd_set *e) {
  return u->d && u->lim.caller_runs && MHD_run_from_select(u->d, r, w, e) == MHD_YES ? 0 : -1;
}

const char *upstream_url(const upstream *u) { return u->url; }

unsigned long upstream_done(upstream *u) { return (unsigned long)atomic_load(&u->done); }

unsigned upstream_connections(upstream *u) {
  /* libmicrohttpd counts a connection down only after its cleanup (thread
   * joined, pool and struct freed) */
  const union MHD_DaemonInfo *di =
      u->d ? MHD_get_daemon_info(u->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS) : NULL;
  return di ? di->num_connections : 0;
}

int upstream_wait(upstream *u, const char *cmd, uint64_t max, double seconds) {
  return http_serve_until(u->d, &u->addr, cmd, &u->done, max, seconds);
}

void upstream_free(upstream *u) {
  if (!u) return;
  atomic_store(&u->stop, 1);
  if (u->d) MHD_stop_daemon(u->d);
  for (size_t i = 0; i < u->n; i++) entry_release(u, u->v[i]);
  free(u->v);
  http_log_free(&u->log);
  pthread_mutex_destroy(&u->mu);
  free(u);
}
