/*
 * cmd_record.c: `sluice record`, a recording proxy. Each request is sent on
 * to the upstream (libcurl); the answer streams back to the client as it
 * arrives, unchanged, and is written to a capture (.capture.jsonl) with the
 * time of every piece and the request, secrets scrubbed.
 *
 * One thread per client connection (libmicrohttpd's); in it, a curl multi
 * handle is pumped from the response's content reader, so the answer flows
 * through with at most one received piece held.
 */
#include "tools.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "common/http.h"

typedef struct recorder {
  const char *upstream, *out;
  double timeout;
  atomic_ulong seq, done;
  atomic_int stop;
} recorder;

/* One proxied exchange. */
typedef struct exchange {
  recorder *rec;
  http_req in;
  CURLM *multi;
  CURL *easy;
  struct curl_slist *send_headers;
  long status;
  int headers_done, finished;
  CURLcode result;
  json_t *resp_headers;
  tbuf piece; /* received and not yet passed on */
  size_t piece_off;
  double t0;
  capture_writer w;
  int writing, write_failed;
  char *path;
} exchange;

static int hop_by_hop(const char *name) {
  static const char *const hop[] = {"connection", "keep-alive", "transfer-encoding", "te",
                                    "trailer", "upgrade", "proxy-connection", "host",
                                    "content-length", NULL};
  for (size_t i = 0; hop[i]; i++)
    if (strcasecmp(name, hop[i]) == 0) return 1;
  return 0;
}

static size_t on_header(char *p, size_t size, size_t n, void *cls) {
  exchange *x = cls;
  size_t len = size * n;
  if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) { /* a new status line (after a 100) */
    json_decref(x->resp_headers);
    x->resp_headers = json_object();
    return len;
  }
  const char *colon = memchr(p, ':', len);
  if (colon && x->resp_headers) {
    char *name = xstrndup(p, (size_t)(colon - p));
    const char *v = colon + 1;
    while (v < p + len && (*v == ' ' || *v == '\t')) v++;
    size_t vl = (size_t)(p + len - v);
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n')) vl--;
    char *value = xstrndup(v, vl);
    json_object_set_new(x->resp_headers, name, json_text(value));
    free(name);
    free(value);
  }
  if (len <= 2 && x->resp_headers && (p[0] == '\r' || p[0] == '\n')) {
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
    if (x->status >= 200) x->headers_done = 1;
  }
  return len;
}

static size_t on_body(char *p, size_t size, size_t n, void *cls) {
  exchange *x = cls;
  size_t len = size * n;
  if (x->piece.n - x->piece_off > 0 && x->piece.n > ((size_t)1 << 20))
    return CURL_WRITEFUNC_PAUSE; /* the client is slow: hold the upstream */
  tbuf_xadd(&x->piece, p, len);
  if (x->writing && !x->write_failed &&
      capw_piece(&x->w, now_seconds() - x->t0, p, len)) {
    x->write_failed = 1;
    fprintf(stderr, "sluice record: %s: cannot write: %s\n", x->path, strerror(errno));
  }
  return len;
}

/* Runs the transfer until something to pass on, the headers, or the end. */
static void pump(exchange *x, int want_headers) {
  while (!x->finished) {
    if (want_headers ? x->headers_done : x->piece.n > x->piece_off) return;
    if (atomic_load(&x->rec->stop)) {
      x->finished = 1;
      x->result = CURLE_ABORTED_BY_CALLBACK;
      return;
    }
    curl_easy_pause(x->easy, CURLPAUSE_CONT);
    int running = 0;
    curl_multi_perform(x->multi, &running);
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(x->multi, &left)))
      if (m->msg == CURLMSG_DONE) {
        x->finished = 1;
        x->result = m->data.result;
        if (!x->headers_done) curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
        x->headers_done = 1;
      }
    if (!running) x->finished = 1;
    if (!x->finished && !(want_headers ? x->headers_done : x->piece.n > x->piece_off))
      curl_multi_poll(x->multi, NULL, 0, 100, NULL);
  }
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max) {
  (void)pos;
  exchange *x = cls;
  pump(x, 0);
  if (x->piece.n > x->piece_off) {
    size_t n = x->piece.n - x->piece_off < max ? x->piece.n - x->piece_off : max;
    memcpy(buf, x->piece.p + x->piece_off, n);
    x->piece_off += n;
    if (x->piece_off == x->piece.n) x->piece.n = x->piece_off = 0;
    return (ssize_t)n;
  }
  return x->result == CURLE_OK ? MHD_CONTENT_READER_END_OF_STREAM
                               : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void free_exchange(void *cls) {
  exchange *x = cls;
  if (x->writing) {
    const char *how = x->result == CURLE_OK ? "complete" : curl_easy_strerror(x->result);
    if (capw_close(&x->w, now_seconds() - x->t0, how) && !x->write_failed)
      fprintf(stderr, "sluice record: %s: cannot write: %s\n", x->path, strerror(errno));
    fprintf(stderr, "sluice record: wrote %s (%s)\n", x->path, how);
  }
  if (x->multi) {
    curl_multi_remove_handle(x->multi, x->easy);
    curl_multi_cleanup(x->multi);
  }
  curl_easy_cleanup(x->easy);
  curl_slist_free_all(x->send_headers);
  json_decref(x->resp_headers);
  tbuf_free(&x->piece);
  tbuf_free(&x->in.body);
  free(x->path);
  atomic_fetch_add(&x->rec->done, 1);
  free(x);
}

typedef struct fwd {
  exchange *x;
  tbuf query;
} fwd;

static enum MHD_Result copy_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value) {
  (void)kind;
  exchange *x = cls;
  if (hop_by_hop(key)) return MHD_YES;
  tbuf h = {0};
  tbuf_xprintf(&h, "%s: %s", key, value ? value : "");
  struct curl_slist *l = curl_slist_append(x->send_headers, h.p);
  tbuf_free(&h);
  if (!l) die("out of memory");
  x->send_headers = l;
  return MHD_YES;
}

static enum MHD_Result copy_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *value) {
  (void)kind;
  fwd *f = cls;
  char *k = curl_easy_escape(NULL, key, 0), *v = value ? curl_easy_escape(NULL, value, 0) : NULL;
  if (!k || (value && !v)) die("out of memory");
  tbuf_xprintf(&f->query, "%s%s%s%s", f->query.n ? "&" : "?", k, v ? "=" : "", v ? v : "");
  curl_free(k);
  curl_free(v);
  return MHD_YES;
}

/* The capture's header: the request and the response, secrets scrubbed. */
static json_t *capture_header(exchange *x, struct MHD_Connection *c, const char *method,
                              const char *path) {
  json_t *req = json_object(), *resp = json_object(), *h = json_object();
  if (!req || !resp || !h) die("out of memory");
  char *scrubbed = http_scrub_path(path);
  json_object_set_new(req, "method", json_text(method));
  json_object_set_new(req, "path", json_text(scrubbed));
  json_object_set_new(req, "headers", http_headers_json(c));
  free(scrubbed);
  json_t *body = x->in.body.n ? json_loadb(x->in.body.p, x->in.body.n, 0, NULL) : NULL;
  if (body) json_object_set_new(req, "body", body);
  else if (x->in.body.n) json_object_set_new(req, "body_text", json_text(x->in.body.p));
  json_object_set_new(resp, "status", json_integer(x->status));
  const char *key;
  json_t *v;
  json_t *rh = json_object();
  json_object_foreach(x->resp_headers, key, v) {
    if (hop_by_hop(key)) continue; /* how it travelled, not what it was */
    json_object_set_new(rh, key, http_secret_header(key) ? json_string("[redacted]") : json_incref(v));
  }
  json_object_set_new(resp, "headers", rh);
  json_object_set_new(h, "request", req);
  json_object_set_new(h, "response", resp);
  json_object_set_new(h, "endpoint", json_string(sluice_endpoint_name(sluice_endpoint_of_path(path, strlen(path)))));
  json_object_set_new(h, "recorded_by", json_string("sluice record " SLUICE_VERSION_STRING));
  return h;
}

/* The upstream transfer of an exchange, to dest (libcurl, pumped by the
 * response's reader). */
static void start_transfer(exchange *x, const char *dest, const char *method) {
  x->easy = curl_easy_init();
  x->multi = curl_multi_init();
  if (!x->easy || !x->multi) die("out of memory");
  curl_easy_setopt(x->easy, CURLOPT_URL, dest);
  curl_easy_setopt(x->easy, CURLOPT_CUSTOMREQUEST, method);
  if (x->in.body.n || strcmp(method, "POST") == 0) {
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, x->in.body.p ? x->in.body.p : "");
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->in.body.n);
  }
  curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->send_headers);
  curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
  curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
  curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, (long)(x->rec->timeout * 1000));
  curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
  curl_multi_add_handle(x->multi, x->easy);
}

/* The exchange's capture file, begun once the status and headers are
 * known: its header, then the piece received so far. */
static void open_capture(exchange *x, struct MHD_Connection *c, const char *url,
                         const char *method, const char *path) {
  recorder *rec = x->rec;
  x->path = NULL;
  tbuf name = {0};
  tbuf_xprintf(&name, "%s/%04lu-%s.capture.jsonl", rec->out,
               (unsigned long)atomic_fetch_add(&rec->seq, 1) + 1,
               sluice_endpoint_name(sluice_endpoint_of_path(url, strlen(url))));
  x->path = tbuf_take(&name, NULL);
  json_t *header = capture_header(x, c, method, path);
  if (capw_open(&x->w, x->path, header) == 0) {
    x->writing = 1;
    if (x->piece.n && capw_piece(&x->w, now_seconds() - x->t0, x->piece.p, x->piece.n))
      x->write_failed = 1;
  } else {
    fprintf(stderr, "sluice record: cannot write %s: %s\n", x->path, strerror(errno));
  }
  json_decref(header);
}

/* The upstream's answer passed on as it arrives (or a 502 when there is
 * none); the response owns x from here. */
static enum MHD_Result pass_on(exchange *x, struct MHD_Connection *c) {
  if (x->finished && x->result != CURLE_OK && x->status == 0) {
    char msg[300];
    snprintf(msg, sizeof msg, "sluice record: the upstream failed: %s",
             curl_easy_strerror(x->result));
    char *body = http_error_body(SLUICE_ENDPOINT_OPENAI_CHAT, 502, msg);
    enum MHD_Result rc = http_reply(c, MHD_HTTP_BAD_GATEWAY, body);
    free(body);
    free_exchange(x);
    return rc;
  }
  struct MHD_Response *resp =
      MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536, reader, x, free_exchange);
  if (!resp) {
    free_exchange(x);
    return MHD_NO;
  }
  const char *key;
  json_t *v;
  json_object_foreach(x->resp_headers, key, v)
    if (!hop_by_hop(key)) MHD_add_response_header(resp, key, json_string_value(v));
  enum MHD_Result rc = MHD_queue_response(c, (unsigned)x->status, resp);
  MHD_destroy_response(resp);
  return rc;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls) {
  (void)version;
  recorder *rec = cls;
  exchange *x = *con_cls;
  if (!x) {
    x = xcalloc(1, sizeof *x);
    x->rec = rec;
    *con_cls = x;
    return MHD_YES;
  }
  if (http_collect(&x->in, upload, upload_size, (size_t)64 << 20)) return MHD_YES;
  *con_cls = NULL; /* from here the response owns it (free_exchange) */
  fwd f = {x, {0}};
  MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, copy_arg, &f);
  tbuf dest = {0}, path = {0};
  tbuf_xprintf(&path, "%s%s", url, f.query.p ? f.query.p : "");
  tbuf_xprintf(&dest, "%s%s", rec->upstream, path.p);
  tbuf_free(&f.query);
  MHD_get_connection_values(c, MHD_HEADER_KIND, copy_header, x);
  start_transfer(x, dest.p, method);
  x->t0 = now_seconds();
  pump(x, 1);
  /* The capture begins once the status and headers are known. */
  open_capture(x, c, url, method, path.p);
  tbuf_free(&dest);
  tbuf_free(&path);
  return pass_on(x, c);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
  (void)cls;
  (void)c;
  (void)toe;
  exchange *x = *con_cls;
  if (x) { /* ended before it was forwarded */
    tbuf_free(&x->in.body);
    free(x);
    *con_cls = NULL;
  }
}

/* ---------------- the command ---------------- */

/* What the command line says besides the recorder's own settings. */
typedef struct record_args {
  const char *listen;
  uint64_t max_requests;
  double deadline;
} record_args;

static const opt recorder_options[] = {
    {"upstream", 0, "URL", OPT_STRING, OPT_AT(recorder, upstream, const char *),
     .help = "where every request is forwarded (required)"},
    {"out", 0, "DIR", OPT_STRING, OPT_AT(recorder, out, const char *),
     .help = "where the captures are written (required; created if missing)"},
    {"timeout", 0, "S", OPT_POSITIVE, OPT_AT(recorder, timeout, double),
     .help = "give up on an upstream answer after S seconds (default 300)"},
    {0}};

static const opt record_options[] = {
    {"listen", 0, "ADDR:PORT", OPT_STRING, OPT_AT(record_args, listen, const char *),
     .help = "where to listen (default 127.0.0.1:0; the first line on stdout is \"listening "
             "on URL\")"},
    {"max-requests", 0, "N", OPT_U64, OPT_AT(record_args, max_requests, uint64_t),
     .help = "stop after N requests"},
    {"deadline", 0, "S", OPT_POSITIVE, OPT_AT(record_args, deadline, double),
     .help = "stop after S seconds"},
    {0}};

static const opt_cmd record_cmd = {
    .name = "record",
    .synopsis = "--upstream URL --out DIR [options]",
    .intro =
        "A recording proxy: every request is forwarded to URL (its path and query\n"
        "appended), the answer streams back unchanged as it arrives, and each exchange\n"
        "is written to DIR/NNNN-FAMILY.capture.jsonl: the request and the response\n"
        "status and headers (authorization, API keys and cookies scrubbed), then every\n"
        "piece of the body with its time. Replay one with `sluice replay` or serve it\n"
        "with `sluice serve`.\n",
    .tables = {recorder_options, record_options},
};

/* The options, and the folder of the captures. -1 to go on, else the exit
 * status. */
static int setup(recorder *rec, record_args *a, struct sockaddr_in *addr, int argc, char **argv) {
  memset(rec, 0, sizeof *rec);
  rec->timeout = 300;
  memset(a, 0, sizeof *a);
  a->listen = "127.0.0.1:0";
  void *bases[] = {rec, a};
  int rc = opt_parse(&record_cmd, bases, argc, argv, NULL);
  if (rc >= 0) return rc;
  if (!rec->upstream || !rec->out)
    return opt_error(&record_cmd, NULL, "needs --upstream URL and --out DIR (see --help)");
  if (http_parse_listen(a->listen, addr))
    return opt_error(&record_cmd, "--listen", "must be ADDRESS:PORT, like 127.0.0.1:0");
  if (mkdir(rec->out, 0777) && errno != EEXIST) {
    fprintf(stderr, "sluice record: cannot create %s: %s\n", rec->out, strerror(errno));
    return 2;
  }
  return -1;
}

int cmd_record(int argc, char **argv) {
  recorder rec;
  record_args a;
  struct sockaddr_in addr;
  int rc = setup(&rec, &a, &addr, argc, argv);
  if (rc >= 0) return rc;
  size_t ul = strlen(rec.upstream);
  char *upstream = xstrndup(rec.upstream, ul && rec.upstream[ul - 1] == '/' ? ul - 1 : ul);
  rec.upstream = upstream;
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) die("cannot start libcurl");
  http_catch_signals();
  struct MHD_Daemon *d = MHD_start_daemon(
      MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0,
      NULL, NULL, handler, &rec, MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_NOTIFY_COMPLETED,
      completed, &rec, MHD_OPTION_THREAD_STACK_SIZE, (size_t)256 << 10, MHD_OPTION_END);
  if (!d) {
    fprintf(stderr, "sluice record: cannot listen on %s: %s\n", a.listen, strerror(errno));
    free(upstream);
    curl_global_cleanup();
    return 2;
  }
  rc = http_serve_until(d, &addr, "record", &rec.done, a.max_requests, a.deadline);
  atomic_store(&rec.stop, 1);
  MHD_stop_daemon(d);
  fprintf(stderr, "sluice record: %lu exchanges recorded\n", (unsigned long)atomic_load(&rec.done));
  free(upstream);
  curl_global_cleanup();
  return rc;
}
