/*
 * cmd_serve.c: `sluice serve`, a mock upstream (tools/common/upstream.c is
 * its engine, which `sluice gate` runs in process): recorded provider
 * streams served over HTTP/1.1 at each provider's streaming endpoint, with
 * the recorded pace or a chosen one, the model's deltas or the network's
 * writes re-cut, and with faults on demand.
 */
#include "tools.h"

#include <stdlib.h>
#include <string.h>

#include "common/http.h"
#include "common/resplit.h"
#include "common/upstream.h"

/* ---------------- options ---------------- */

/* What the command line says besides the server's own settings. */
typedef struct serve_args {
  const char *listen;
  uint64_t max_requests, log_size;
  double deadline;
  rs_spec resplit; /* the model's deltas cut again (recorded: as captured) */
  up_limits lim;
  size_t max_capture; /* a capture's decoded body, at most */
} serve_args;

static int rechunk_arg(void *base, const char *v, char *why, size_t wl) {
  return up_rechunk_parse(base, v, why, wl);
}

static int resplit_arg(void *base, const char *v, char *why, size_t wl) {
  return rs_parse(v, &((serve_args *)base)->resplit, why, wl);
}

static const opt listen_options[] = {
    {"listen", 0, "ADDR:PORT", OPT_STRING, OPT_AT(serve_args, listen, const char *),
     .help = "where to listen (default 127.0.0.1:0; port 0 picks a free port); the first "
             "line on stdout is \"listening on URL\""},
    {0}};

static const opt content_options[] = {
    {.kind = OPT_SECTION, .help = "The model's deltas"},
    {"resplit", 0, "HOW", OPT_CALL, 0, .fn = resplit_arg,
     .help = "the model's deltas cut again before they are written (OpenAI chat and Anthropic "
             "captures): whole (a delta per run), codepoint, random:SEED or at:P,... (cuts at "
             "content positions, counted in code points of the deltas' text); default recorded"},
    {0}};

static const opt server_options[] = {
    {.kind = OPT_SECTION, .help = "Timing (a recording's own pace when it has one)"},
    {"ttft", 0, "MS", OPT_MILLIS, OPT_AT(up_behave, ttft, double),
     .help = "before the first piece, when not recorded (default 0)"},
    {"gap", 0, "MS", OPT_MILLIS, OPT_AT(up_behave, gap, double),
     .help = "between pieces, when not recorded (default 0)"},
    {"speed", 0, "X", OPT_NUMBER, OPT_AT(up_behave, speed, double),
     .help = "divides every wait (2: twice as fast; 0: no waits)"},
    {"rechunk", 0, "HOW", OPT_CALL, 0, .fn = rechunk_arg,
     .help = "writes of this shape instead of the recorded pieces: bytes (one byte each), N "
             "(N bytes), random:SEED (1 to 64)"},
    {.kind = OPT_SECTION, .help = "Faults (byte counts are of the body, before --gzip)"},
    {"cut-after", 0, "N", OPT_I64, OPT_AT(up_behave, cut_after, int64_t),
     .help = "end the response cleanly after N bytes"},
    {"drop-after", 0, "N", OPT_I64, OPT_AT(up_behave, drop_after, int64_t),
     .help = "reset the connection after N bytes"},
    {"stall-after", 0, "N", OPT_I64, OPT_AT(up_behave, stall_after, int64_t),
     .help = "stop sending after N bytes, keeping the connection open"},
    {"stall-for", 0, "S", OPT_NUMBER, OPT_AT(up_behave, stall_for, double),
     .help = "how long a stall lasts before the connection is reset (default 30)"},
    {"error-after", 0, "N", OPT_I64, OPT_AT(up_behave, error_after, int64_t),
     .help = "at the first event boundary past N bytes, send the provider's in-stream error "
             "event and end"},
    {"status", 0, "CODE", OPT_INT, OPT_AT(up_behave, status, int), .min = 400, .max = 599,
     .help = "answer CODE (an error status) with the provider's JSON error body"},
    {"gzip", 0, NULL, OPT_FLAG, OPT_AT(up_behave, gzip, int),
     .help = "Content-Encoding: gzip, each piece flushed"},
    {0}};

static const opt ending_options[] = {
    {.kind = OPT_SECTION, .help = "Ending (network tests must end by themselves)"},
    {"max-requests", 0, "N", OPT_U64, OPT_AT(serve_args, max_requests, uint64_t),
     .help = "stop after N requests to a provider endpoint"},
    {"deadline", 0, "S", OPT_NUMBER, OPT_AT(serve_args, deadline, double),
     .help = "stop after S seconds"},
    {"log-size", 0, "N", OPT_U64, OPT_AT(serve_args, log_size, uint64_t), .min = 1,
     .max = 4096, .help = "requests kept for /_sluice/log (default 256, at most 4096); each "
                          "keeps its headers and a body of at most 8 KiB (a larger one: its "
                          "size, model and stream flag)"},
    {.kind = OPT_SECTION, .help = "Caps (what a client or a capture can make it hold)"},
    {"max-connections", 0, "N", OPT_SIZE, OPT_AT(serve_args, lim.max_connections, size_t),
     .min = 1, .max = 100000,
     .help = "connections open at once; more are closed at once (default 512)"},
    {"idle-timeout", 0, "S", OPT_SIZE, OPT_AT(serve_args, lim.idle_timeout, size_t), .min = 1,
     .max = 86400, .help = "close a connection whose client sends nothing, or reads nothing of "
                             "the answer, for S seconds (default 60; the recording's own "
                             "pauses do not count)"},
    {"max-body", 0, "BYTES", OPT_SIZE, OPT_AT(serve_args, lim.max_body, size_t), .min = 1,
     .help = "a request body over BYTES is answered 413 (default 16 MiB); a body is read as "
             "it streams, only its \"model\" and \"stream\" taken, at most 8 KiB held"},
    {"max-buffered", 0, "BYTES", OPT_SIZE, OPT_AT(serve_args, lim.max_buffered, size_t),
     .min = 1, .help = "request body bytes held by all requests at once; past it a request "
                       "is answered 503 (default 1 GiB)"},
    {"max-capture", 0, "BYTES", OPT_SIZE, OPT_AT(serve_args, max_capture, size_t), .min = 1,
     .help = "a capture whose decoded body is larger is refused at load (default 64 MiB; a "
             "gzip-encoded one is also stopped past 256 times its size)"},
    {0}};

static const opt_cmd serve_cmd = {
    .name = "serve",
    .synopsis = "CAPTURE... [options]",
    .intro =
        "Serves recorded provider streams over HTTP/1.1 (chunked), at the streaming\n"
        "endpoint of each capture's provider: POST /v1/chat/completions,\n"
        "/v1/completions, /v1/responses, /v1/messages, /api/chat, /api/generate,\n"
        "/completion, /v2/chat and\n"
        "/v1beta/models/MODEL:streamGenerateContent?alt=sse. A request picks a capture\n"
        "by the header X-Sluice-Capture: NAME, else by the \"model\" it asks for, else\n"
        "in turn. GET /_sluice/log lists the requests received (secrets redacted).\n",
    .tables = {listen_options, content_options, server_options, ending_options},
    .operands = "CAPTURE...",
    .min_operands = 1,
};

/* ---------------- the command ---------------- */

/* A capture's content written again with other delta boundaries, in
 * place. -1 after a message. */
static int resplit_capture(capture *c, const rs_spec *spec) {
  char why[200];
  rs_content rc;
  if (!rs_supported(c->family)) {
    fprintf(stderr, "sluice serve: %s: --resplit writes OpenAI chat and Anthropic streams, not "
                    "%s\n", c->path, sluice_endpoint_name(c->family));
    return -1;
  }
  if (rs_load(&rc, c->body.p, c->body.n, c->family, c->model, why, sizeof why)) {
    fprintf(stderr, "sluice serve: %s: %s\n", c->path, why);
    return -1;
  }
  tbuf body = {0};
  size_t *ends = NULL, n = 0;
  int bad = rs_write(&rc, spec, &body, &ends, &n);
  rs_free(&rc);
  if (bad) {
    fprintf(stderr, "sluice serve: %s: the stream could not be written again\n", c->path);
    free(ends);
    tbuf_free(&body);
    return -1;
  }
  capture_set_body(c, &body, ends, n);
  free(ends);
  return 0;
}

/* Every capture named, loaded once and given to u. -1 after a message. */
static int load_captures(upstream *u, const up_behave *how, const serve_args *a,
                         const strlist *paths) {
  for (size_t i = 0; i < paths->n; i++) {
    capture c;
    tbuf err = {0};
    int bad = capture_load(&c, paths->v[i], a->max_capture, &err);
    if (bad) fprintf(stderr, "sluice serve: %s\n", err.p);
    tbuf_free(&err);
    if (!bad && a->resplit.mode != RS_RECORDED) bad = resplit_capture(&c, &a->resplit);
    if (bad) {
      capture_free(&c);
      return -1;
    }
    if (c.family == SLUICE_ENDPOINT_UNKNOWN)
      fprintf(stderr, "sluice serve: %s: the provider could not be told from the content; it "
                      "is served only to requests that name it (X-Sluice-Capture)\n",
              paths->v[i]);
    fprintf(stderr, "sluice serve: %s (%s, %zu pieces%s%s%s)\n", c.name,
            sluice_endpoint_name(c.family), c.npieces, c.timed ? ", recorded pace" : "",
            c.model ? ", model " : "", c.model ? c.model : "");
    upstream_add(u, &c, how, NULL);
  }
  return 0;
}

/* The options. -1 to go on, else the exit status. */
static int setup(up_behave *how, serve_args *a, struct sockaddr_in *addr, strlist *paths,
                 int argc, char **argv) {
  up_behave_default(how);
  memset(a, 0, sizeof *a);
  a->listen = "127.0.0.1:0";
  a->log_size = 256;
  up_limits_default(&a->lim);
  a->max_capture = (size_t)64 << 20;
  a->resplit.mode = RS_RECORDED;
  void *bases[] = {a, a, how, a};
  int rc = opt_parse(&serve_cmd, bases, argc, argv, paths);
  if (rc < 0 && http_parse_listen(a->listen, addr))
    rc = opt_error(&serve_cmd, "--listen", "must be ADDRESS:PORT, like 127.0.0.1:0");
#ifndef SLUICE_HAVE_ZLIB
  if (rc < 0 && how->gzip)
    rc = opt_error(&serve_cmd, "--gzip", "this sluice was built without zlib");
#endif
  return rc;
}

int cmd_serve(int argc, char **argv) {
  up_behave how;
  serve_args a;
  struct sockaddr_in addr;
  strlist paths = {0};
  int rc = setup(&how, &a, &addr, &paths, argc, argv);
  if (rc >= 0) {
    strlist_free(&paths);
    return rc;
  }
  upstream *u = upstream_new((size_t)a.log_size, 0);
  upstream_set_limits(u, &a.lim);
  rc = load_captures(u, &how, &a, &paths);
  strlist_free(&paths);
  tbuf err = {0};
  if (rc == 0 && upstream_start(u, &addr, &err)) {
    fprintf(stderr, "sluice serve: cannot listen on %s: %s\n", a.listen, err.p);
    rc = -1;
  }
  tbuf_free(&err);
  if (rc == 0) {
    http_catch_signals();
    rc = upstream_wait(u, "serve", a.max_requests, a.deadline);
    fprintf(stderr, "sluice serve: %lu requests answered\n", upstream_done(u));
  } else {
    rc = 2;
  }
  upstream_free(u);
  rs_spec_free(&a.resplit);
  return rc;
}
