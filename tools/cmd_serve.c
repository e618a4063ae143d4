/*
 * cmd_serve.c: `sluice serve`, a mock upstream: recorded provider streams
 * served over HTTP/1.1 (libmicrohttpd) at each provider's streaming
 * endpoint, with the recorded pace or a chosen one, re-cut into writes of
 * any shape, and with faults on demand, so a middleware under test meets
 * the capture as it would meet the provider.
 *
 * One thread per connection (libmicrohttpd's), so pacing and stalls are
 * plain bounded sleeps. The captures are loaded once and shared read-only:
 * a connection holds only its position and a piece being written.
 */
#include "tools.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#ifdef SLUICE_HAVE_ZLIB
#include <zlib.h>
#endif

#include "common/http.h"

enum rechunk { RC_NONE, RC_BYTES, RC_SIZE, RC_RANDOM };
enum ending { GO_ON, END_CLEAN, END_RESET, END_STALL };

typedef struct server {
  capture *caps;
  size_t ncaps;
  double ttft, gap, speed, stall_for; /* seconds */
  enum rechunk rechunk;
  size_t rechunk_n;
  uint64_t seed;
  int64_t cut_after, drop_after, stall_after, error_after;
  int status, gzip;
  http_log log;
  atomic_ulong done; /* provider requests completed */
  atomic_ulong turn[SLUICE_ENDPOINT_COUNT];
  atomic_int stop;
} server;

/* ---------------- one streamed response ---------------- */

typedef struct stream {
  server *sv;
  const capture *cap;
  size_t off;   /* the next body byte */
  size_t piece; /* the piece holding off */
  sluice_rng rng;
  double t0, last;
  int fd;
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
static int wait_until(server *sv, double when) {
  for (;;) {
    if (atomic_load(&sv->stop)) return -1;
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
  case RC_BYTES: return 1;
  case RC_SIZE: return s->sv->rechunk_n < rest ? s->sv->rechunk_n : rest;
  case RC_RANDOM: {
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
  server *sv = s->sv;
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
  const server *sv = s->sv;
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
  server *sv = s->sv;
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
  if (wait_until(sv, due(s))) {
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
      return (ssize_t)n;
    }
    switch (s->ending) {
    case END_CLEAN: return MHD_CONTENT_READER_END_OF_STREAM;
    case END_STALL:
      /* Silent, connection open, until the stall ends (or the server). */
      wait_until(s->sv, now_seconds() + s->sv->stall_for);
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
#ifdef SLUICE_HAVE_ZLIB
  if (s->gz) deflateEnd(&s->z);
#endif
  tbuf_free(&s->out);
  free(s);
}

/* ---------------- requests ---------------- */

typedef struct request {
  http_req in;
  int counted; /* a provider request: counts toward --max-requests */
} request;

/* Strips a capture file's extensions: "a.chunks.jsonl" -> "a". */
static int same_name(const char *file, const char *asked) {
  size_t n = strlen(asked);
  return strncmp(file, asked, n) == 0 && (file[n] == '\0' || file[n] == '.');
}

static const capture *choose(server *sv, struct MHD_Connection *c, sluice_endpoint fam,
                             const tbuf *body, char *why, size_t wl) {
  const char *asked = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Sluice-Capture");
  if (asked) {
    for (size_t i = 0; i < sv->ncaps; i++)
      if (same_name(sv->caps[i].name, asked)) return &sv->caps[i];
    snprintf(why, wl, "no capture named \"%.100s\"", asked);
    return NULL;
  }
  json_t *req = body->n ? json_loadb(body->p, body->n, 0, NULL) : NULL;
  json_t *model = json_object_get(req, "model");
  const capture *pick = NULL;
  for (size_t i = 0; i < sv->ncaps && json_is_string(model); i++)
    if (sv->caps[i].family == fam && sv->caps[i].model &&
        strcmp(sv->caps[i].model, json_string_value(model)) == 0)
      pick = &sv->caps[i];
  json_decref(req);
  if (pick) return pick;
  size_t count = 0;
  for (size_t i = 0; i < sv->ncaps; i++) count += sv->caps[i].family == fam;
  if (!count) {
    snprintf(why, wl, "no capture for the %s endpoint", sluice_endpoint_name(fam));
    return NULL;
  }
  size_t k = atomic_fetch_add(&sv->turn[fam], 1) % count;
  for (size_t i = 0; i < sv->ncaps; i++)
    if (sv->caps[i].family == fam && k-- == 0) return &sv->caps[i];
  return NULL;
}

/* The request asks for a stream (Ollama streams unless told not to). */
static int wants_stream(sluice_endpoint fam, const tbuf *body) {
  if (fam == SLUICE_ENDPOINT_GEMINI || fam == SLUICE_ENDPOINT_LLAMACPP) return 1;
  json_t *req = body->n ? json_loadb(body->p, body->n, 0, NULL) : NULL;
  json_t *st = json_object_get(req, "stream");
  int yes = fam == SLUICE_ENDPOINT_OLLAMA_CHAT || fam == SLUICE_ENDPOINT_OLLAMA_GENERATE ? !json_is_false(st)
                                                                 : json_is_true(st);
  json_decref(req);
  return yes;
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

/* The streamed answer: the capture from its first byte, paced, re-cut and
 * faulted as the options say. */
static enum MHD_Result stream_capture(server *sv, struct MHD_Connection *c, sluice_endpoint fam,
                                      const capture *cap) {
  stream *s = xcalloc(1, sizeof *s);
  s->sv = sv;
  s->cap = cap;
  s->rng = sluice_rng_seed(sv->seed);
  s->t0 = s->last = now_seconds();
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  s->fd = ci ? ci->connect_fd : -1;
  /* Each piece goes out when it is due, not when Nagle's algorithm lets a
   * small write go (after the peer's delayed ACK). */
  int one = 1;
  if (s->fd >= 0) setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
#ifdef SLUICE_HAVE_ZLIB
  if (sv->gzip) {
    if (deflateInit2(&s->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
      die("out of memory");
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
  add_recorded_headers(resp, cap);
  MHD_add_response_header(resp, "Content-Type", http_stream_type(fam));
  MHD_add_response_header(resp, "Cache-Control", "no-cache");
  MHD_add_response_header(resp, "X-Sluice-Capture", cap->name);
  if (sv->gzip) MHD_add_response_header(resp, "Content-Encoding", "gzip");
  enum MHD_Result rc = MHD_queue_response(c, (unsigned)cap->status, resp);
  MHD_destroy_response(resp);
  return rc;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls) {
  (void)version;
  server *sv = cls;
  request *r = *con_cls;
  if (!r) {
    *con_cls = xcalloc(1, sizeof *r);
    return MHD_YES;
  }
  if (http_collect(&r->in, upload, upload_size, (size_t)16 << 20)) return MHD_YES;
  if (strcmp(url, "/_sluice/log") == 0) {
    char *log = http_log_dump(&sv->log);
    enum MHD_Result rc = http_reply(c, MHD_HTTP_OK, log);
    free(log);
    return rc;
  }
  tbuf full = {0};
  tbuf_xadds(&full, url);
  const char *alt = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "alt");
  if (alt) tbuf_xprintf(&full, "?alt=%s", alt);
  if (MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "key"))
    tbuf_xprintf(&full, "%skey=[redacted]", alt ? "&" : "?");
  http_log_add(&sv->log, c, method, full.p, &r->in.body);
  tbuf_free(&full);
  sluice_endpoint fam = sluice_endpoint_of_path(url, strlen(url));
  if (fam == SLUICE_ENDPOINT_UNKNOWN)
    return reply_error(c, SLUICE_ENDPOINT_OPENAI_CHAT, MHD_HTTP_NOT_FOUND, "no provider endpoint here");
  r->counted = 1;
  if (strcmp(method, "POST") != 0)
    return reply_error(c, fam, MHD_HTTP_METHOD_NOT_ALLOWED, "streaming endpoints take POST");
  if (r->in.too_big)
    return reply_error(c, fam, MHD_HTTP_CONTENT_TOO_LARGE, "the request body is over 16 MiB");
  char why[200];
  const capture *cap = choose(sv, c, fam, &r->in.body, why, sizeof why);
  if (!cap) return reply_error(c, fam, MHD_HTTP_NOT_FOUND, why);
  if (sv->status) return reply_error(c, fam, (unsigned)sv->status, "sluice serve: --status");
  if (!wants_stream(fam, &r->in.body))
    return reply_error(c, fam, MHD_HTTP_BAD_REQUEST,
                       "sluice serve answers streaming requests only (set \"stream\": true)");
  return stream_capture(sv, c, fam, cap);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
  (void)c;
  (void)toe;
  server *sv = cls;
  request *r = *con_cls;
  if (!r) return;
  if (r->counted) atomic_fetch_add(&sv->done, 1);
  tbuf_free(&r->in.body);
  free(r);
  *con_cls = NULL;
}

/* ---------------- options ---------------- */

/* What the command line says besides the server's own settings. */
typedef struct serve_args {
  const char *listen;
  uint64_t max_requests, log_size;
  double deadline;
} serve_args;

static int rechunk_arg(void *base, const char *v, char *why, size_t wl) {
  server *sv = base;
  uint64_t u;
  if (strcmp(v, "bytes") == 0) sv->rechunk = RC_BYTES;
  else if (strncmp(v, "random:", 7) == 0 && !parse_u64(v + 7, &sv->seed)) sv->rechunk = RC_RANDOM;
  else if (!parse_u64(v, &u) && u > 0) {
    sv->rechunk = RC_SIZE;
    sv->rechunk_n = (size_t)u;
  } else {
    snprintf(why, wl, "must be bytes, N or random:SEED, not \"%.60s\"", v);
    return -1;
  }
  return 0;
}

static const opt listen_options[] = {
    {"listen", 0, "ADDR:PORT", OPT_STRING, OPT_AT(serve_args, listen, const char *),
     .help = "where to listen (default 127.0.0.1:0; port 0 picks a free port); the first "
             "line on stdout is \"listening on URL\""},
    {0}};

static const opt server_options[] = {
    {.kind = OPT_SECTION, .help = "Timing (a recording's own pace when it has one)"},
    {"ttft", 0, "MS", OPT_MILLIS, OPT_AT(server, ttft, double),
     .help = "before the first piece, when not recorded (default 0)"},
    {"gap", 0, "MS", OPT_MILLIS, OPT_AT(server, gap, double),
     .help = "between pieces, when not recorded (default 0)"},
    {"speed", 0, "X", OPT_NUMBER, OPT_AT(server, speed, double),
     .help = "divides every wait (2: twice as fast; 0: no waits)"},
    {"rechunk", 0, "HOW", OPT_CALL, 0, .fn = rechunk_arg,
     .help = "writes of this shape instead of the recorded pieces: bytes (one byte each), N "
             "(N bytes), random:SEED (1 to 64)"},
    {.kind = OPT_SECTION, .help = "Faults (byte counts are of the body, before --gzip)"},
    {"cut-after", 0, "N", OPT_I64, OPT_AT(server, cut_after, int64_t),
     .help = "end the response cleanly after N bytes"},
    {"drop-after", 0, "N", OPT_I64, OPT_AT(server, drop_after, int64_t),
     .help = "reset the connection after N bytes"},
    {"stall-after", 0, "N", OPT_I64, OPT_AT(server, stall_after, int64_t),
     .help = "stop sending after N bytes, keeping the connection open"},
    {"stall-for", 0, "S", OPT_NUMBER, OPT_AT(server, stall_for, double),
     .help = "how long a stall lasts before the connection is reset (default 30)"},
    {"error-after", 0, "N", OPT_I64, OPT_AT(server, error_after, int64_t),
     .help = "at the first event boundary past N bytes, send the provider's in-stream error "
             "event and end"},
    {"status", 0, "CODE", OPT_INT, OPT_AT(server, status, int), .min = 400, .max = 599,
     .help = "answer CODE (an error status) with the provider's JSON error body"},
    {"gzip", 0, NULL, OPT_FLAG, OPT_AT(server, gzip, int),
     .help = "Content-Encoding: gzip, each piece flushed"},
    {0}};

static const opt ending_options[] = {
    {.kind = OPT_SECTION, .help = "Ending (network tests must end by themselves)"},
    {"max-requests", 0, "N", OPT_U64, OPT_AT(serve_args, max_requests, uint64_t),
     .help = "stop after N requests to a provider endpoint"},
    {"deadline", 0, "S", OPT_NUMBER, OPT_AT(serve_args, deadline, double),
     .help = "stop after S seconds"},
    {"log-size", 0, "N", OPT_U64, OPT_AT(serve_args, log_size, uint64_t), .min = 1,
     .help = "requests kept for /_sluice/log (default 256)"},
    {0}};

static const opt_cmd serve_cmd = {
    .name = "serve",
    .synopsis = "CAPTURE... [options]",
    .intro =
        "Serves recorded provider streams over HTTP/1.1 (chunked), at the streaming\n"
        "endpoint of each capture's provider: POST /v1/chat/completions,\n"
        "/v1/completions, /v1/responses, /v1/messages, /api/chat, /api/generate,\n"
        "/completion, and /v1beta/models/MODEL:streamGenerateContent?alt=sse. A request\n"
        "picks a capture by the header X-Sluice-Capture: NAME, else by the \"model\" it\n"
        "asks for, else in turn. GET /_sluice/log lists the requests received (secrets\n"
        "redacted).\n",
    .tables = {listen_options, server_options, ending_options},
    .operands = "CAPTURE...",
    .min_operands = 1,
};

/* ---------------- the command ---------------- */

static void free_captures(server *sv) {
  for (size_t i = 0; i < sv->ncaps; i++) capture_free(&sv->caps[i]);
  free(sv->caps);
}

/* Every capture named, loaded once. -1 after a message. */
static int load_captures(server *sv, const strlist *paths) {
  sv->caps = xcalloc(paths->n, sizeof *sv->caps);
  for (size_t i = 0; i < paths->n; i++) {
    tbuf err = {0};
    if (capture_load(&sv->caps[i], paths->v[i], 0, &err)) {
      fprintf(stderr, "sluice serve: %s\n", err.p);
      tbuf_free(&err);
      capture_free(&sv->caps[i]);
      free_captures(sv);
      return -1;
    }
    sv->ncaps++;
    if (sv->caps[i].family == SLUICE_ENDPOINT_UNKNOWN)
      fprintf(stderr, "sluice serve: %s: the provider could not be told from the content; it "
                      "is served only to requests that name it (X-Sluice-Capture)\n",
              paths->v[i]);
  }
  return 0;
}

/* The options and the captures. -1 to go on, else the exit status. */
static int setup(server *sv, serve_args *a, struct sockaddr_in *addr, int argc, char **argv) {
  memset(sv, 0, sizeof *sv);
  sv->speed = 1;
  sv->stall_for = 30;
  sv->cut_after = sv->drop_after = sv->stall_after = sv->error_after = -1;
  memset(a, 0, sizeof *a);
  a->listen = "127.0.0.1:0";
  a->log_size = 256;
  strlist paths = {0};
  void *bases[] = {a, sv, a};
  int rc = opt_parse(&serve_cmd, bases, argc, argv, &paths);
  if (rc < 0 && http_parse_listen(a->listen, addr))
    rc = opt_error(&serve_cmd, "--listen", "must be ADDRESS:PORT, like 127.0.0.1:0");
#ifndef SLUICE_HAVE_ZLIB
  if (rc < 0 && sv->gzip)
    rc = opt_error(&serve_cmd, "--gzip", "this sluice was built without zlib");
#endif
  if (rc < 0 && load_captures(sv, &paths)) rc = 2;
  strlist_free(&paths);
  return rc;
}

static struct MHD_Daemon *start_daemon(server *sv, const struct sockaddr_in *addr) {
  return MHD_start_daemon(
      MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0,
      NULL, NULL, handler, sv, MHD_OPTION_SOCK_ADDR, addr, MHD_OPTION_NOTIFY_COMPLETED,
      completed, sv, MHD_OPTION_THREAD_STACK_SIZE, (size_t)256 << 10,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120, MHD_OPTION_END);
}

/* The captures served, on stderr. */
static void list_captures(const server *sv) {
  for (size_t i = 0; i < sv->ncaps; i++)
    fprintf(stderr, "sluice serve: %s (%s, %zu pieces%s%s%s)\n", sv->caps[i].name,
            sluice_endpoint_name(sv->caps[i].family), sv->caps[i].npieces,
            sv->caps[i].timed ? ", recorded pace" : "", sv->caps[i].model ? ", model " : "",
            sv->caps[i].model ? sv->caps[i].model : "");
}

int cmd_serve(int argc, char **argv) {
  server sv;
  serve_args a;
  struct sockaddr_in addr;
  int rc = setup(&sv, &a, &addr, argc, argv);
  if (rc >= 0) return rc;
  http_log_init(&sv.log, (size_t)a.log_size);
  http_catch_signals();
  struct MHD_Daemon *d = start_daemon(&sv, &addr);
  if (!d) {
    fprintf(stderr, "sluice serve: cannot listen on %s: %s\n", a.listen, strerror(errno));
    free_captures(&sv);
    http_log_free(&sv.log);
    return 2;
  }
  list_captures(&sv);
  rc = http_serve_until(d, &addr, "serve", &sv.done, a.max_requests, a.deadline);
  atomic_store(&sv.stop, 1);
  MHD_stop_daemon(d);
  fprintf(stderr, "sluice serve: %lu requests answered\n", (unsigned long)atomic_load(&sv.done));
  free_captures(&sv);
  http_log_free(&sv.log);
  return rc;
}
