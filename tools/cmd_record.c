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
#include <ctype.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "common/http.h"
#include "common/wire.h"

typedef struct rec_limits {
  size_t max_body, max_capture, max_connections, idle_timeout, max_buffered;
} rec_limits;

typedef struct recorder {
  const char *upstream, *out;
  double timeout;
  rec_limits lim;
  CURLU *base;     /* the parsed --upstream */
  char *base_path; /* its path, without the trailing '/' */
  atomic_ulong seq, done;
  atomic_int stop;
} recorder;

/* One proxied exchange. */
typedef struct exchange {
  recorder *rec;
  http_req in;
  int started;
  CURLM *multi;
  CURL *easy;
  CURLU *url;
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
  uint64_t recorded; /* body bytes written to the capture */
  int capped;        /* past --max-capture: the exchange was ended */
  int client_end;    /* the client was given the end of the answer */
  char *path;
  const char *method;
  struct MHD_Connection *conn; /* the client's, once forwarded */
} exchange;

static int hop_by_hop(const char *name) {
  static const char *const hop[] = {"connection", "keep-alive", "transfer-encoding", "te",
                                    "trailer", "upgrade", "proxy-connection", "host",
                                    "content-length", "expect", NULL};
  for (size_t i = 0; hop[i]; i++)
    if (strcasecmp(name, hop[i]) == 0) return 1;
  return 0;
}

/* A response header line ("Name: value\r\n") into x->resp_headers, the
 * name trimmed and made valid UTF-8 (a folded line is left out). 0, or -1
 * when out of memory. */
static int keep_header(exchange *x, const char *p, size_t len) {
  const char *colon = memchr(p, ':', len);
  if (!colon || p[0] == ' ' || p[0] == '\t') return 0;
  size_t nl = (size_t)(colon - p);
  while (nl && (p[nl - 1] == ' ' || p[nl - 1] == '\t')) nl--;
  if (!nl) return 0;
  const char *v = colon + 1;
  while (v < p + len && (*v == ' ' || *v == '\t')) v++;
  size_t vl = (size_t)(p + len - v);
  while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n')) vl--;
  char *name = xstrndup(p, nl);
  int rc = json_object_size(x->resp_headers) < 200
               ? wire_set(x->resp_headers, name, wire_text(v, vl))
               : 0;
  free(name);
  return rc;
}

static size_t on_header(char *p, size_t size, size_t n, void *cls) {
  exchange *x = cls;
  size_t len = size * n;
  if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) { /* a new status line (after a 100) */
    json_decref(x->resp_headers);
    x->resp_headers = json_object();
    return x->resp_headers ? len : 0;
  }
  if (x->resp_headers && keep_header(x, p, len)) return 0; /* out of memory: ends it */
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
  if (x->recorded + len > x->rec->lim.max_capture) {
    x->capped = 1; /* ends the transfer (a write error) */
    return 0;
  }
  x->recorded += len;
  if (tbuf_add(&x->piece, p, len)) return 0;
  if (x->writing && !x->write_failed &&
      capw_piece(&x->w, now_seconds() - x->t0, p, len)) {
    x->write_failed = 1;
    fprintf(stderr, "sluice record: %s: cannot write: %s\n", x->path, strerror(errno));
  }
  return len;
}

/* The request body for the upstream, as curl asks for it. */
static size_t on_upload(char *buf, size_t size, size_t n, void *cls) {
  exchange *x = cls;
  long got = http_body_read(&x->in, buf, size * n);
  return got < 0 ? CURL_READFUNC_ABORT : (size_t)got;
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
    http_still_busy(x->conn, (unsigned)x->rec->lim.idle_timeout);
    return (ssize_t)n;
  }
  x->client_end = 1;
  return x->result == CURLE_OK ? MHD_CONTENT_READER_END_OF_STREAM
                               : MHD_CONTENT_READER_END_WITH_ERROR;
}

/* How the recorded exchange ended, for the capture's last line. */
static const char *ending(const exchange *x) {
  if (x->capped) return "max_capture";
  if (!x->client_end) return "client_closed";
  return x->result == CURLE_OK ? "complete" : curl_easy_strerror(x->result);
}

/* Everything an exchange holds, freed with it. */
static void drop_exchange(exchange *x) {
  if (x->multi) {
    curl_multi_remove_handle(x->multi, x->easy);
    curl_multi_cleanup(x->multi);
  }
  curl_easy_cleanup(x->easy);
  curl_url_cleanup(x->url);
  curl_slist_free_all(x->send_headers);
  json_decref(x->resp_headers);
  tbuf_free(&x->piece);
  http_req_free(&x->in);
  free(x->path);
  free(x);
}

/* A forwarded exchange's end: its capture closed, counted. */
static void free_exchange(void *cls) {
  exchange *x = cls;
  if (x->writing) {
    const char *how = ending(x);
    if (capw_close(&x->w, now_seconds() - x->t0, how) && !x->write_failed)
      fprintf(stderr, "sluice record: %s: cannot write: %s\n", x->path, strerror(errno));
    fprintf(stderr, "sluice record: wrote %s (%s)\n", x->path, how);
  }
  atomic_fetch_add(&x->rec->done, 1);
  drop_exchange(x);
}

static enum MHD_Result copy_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value) {
  (void)kind;
  exchange *x = cls;
  if (hop_by_hop(key)) return MHD_YES;
  tbuf h = {0};
  if (tbuf_printf(&h, "%s: %s", key, value ? value : "")) return MHD_NO;
  struct curl_slist *l = curl_slist_append(x->send_headers, h.p);
  tbuf_free(&h);
  if (!l) return MHD_NO;
  x->send_headers = l;
  return MHD_YES;
}

/* The capture's header: the request and the response, secrets scrubbed.
 * NULL when out of memory. */
static json_t *capture_header(exchange *x, struct MHD_Connection *c, const char *method,
                              const char *url) {
  json_t *req = json_object(), *rh = json_object();
  char *scrubbed = http_scrub_path(x->in.target);
  int bad = !req || !rh || wire_set(req, "method", wire_text(method, strlen(method))) ||
            wire_set(req, "path", wire_text(scrubbed, strlen(scrubbed))) ||
            wire_set(req, "headers", http_headers_json(c)) ||
            wire_body_fields(req, x->in.head.p, x->in.head.n, x->in.bytes, 65536, &x->in.scan);
  free(scrubbed);
  const char *key;
  json_t *v;
  json_object_foreach(x->resp_headers, key, v) {
    if (hop_by_hop(key)) continue; /* how it travelled, not what it was */
    bad = bad || json_object_set_new(rh, key, http_secret_header(key) ? json_string(WIRE_REDACTED)
                                                                      : json_incref(v));
  }
  json_t *h = bad ? NULL
                  : json_pack("{s:o,s:{s:i,s:o},s:s,s:s}", "request", req, "response", "status",
                              (int)x->status, "headers", rh, "endpoint",
                              sluice_endpoint_name(sluice_endpoint_of_path(url, strlen(url))),
                              "recorded_by", "sluice record " SLUICE_VERSION_STRING);
  if (bad) {
    json_decref(req);
    json_decref(rh);
  }
  return h;
}

/* The upstream URL: --upstream's scheme, host and port (never the
 * client's), its path followed by the request's origin-form target. 0, or
 * -1 when libcurl refuses it. */
static int upstream_url(exchange *x) {
  const char *t = x->in.target, *q = strchr(t, '?');
  tbuf path = {0};
  tbuf_xprintf(&path, "%s%.*s", x->rec->base_path, (int)(q ? (size_t)(q - t) : strlen(t)), t);
  x->url = curl_url_dup(x->rec->base);
  int bad = !x->url || curl_url_set(x->url, CURLUPART_PATH, path.p, 0) != CURLUE_OK ||
            curl_url_set(x->url, CURLUPART_QUERY, q ? q + 1 : NULL, 0) != CURLUE_OK;
  tbuf_free(&path);
  return bad ? -1 : 0;
}

/* The upstream transfer of an exchange (libcurl, pumped by the response's
 * reader). 0, or -1 when libcurl cannot start it. */
static int start_transfer(exchange *x, const char *method) {
  x->easy = curl_easy_init();
  x->multi = curl_multi_init();
  struct curl_slist *l = curl_slist_append(x->send_headers, "Expect:");
  if (!x->easy || !x->multi || !l) return -1;
  x->send_headers = l;
  curl_easy_setopt(x->easy, CURLOPT_CURLU, x->url);
  curl_easy_setopt(x->easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(x->easy, CURLOPT_CUSTOMREQUEST, method);
  if (x->in.bytes || strcmp(method, "POST") == 0) {
    curl_easy_setopt(x->easy, CURLOPT_POST, 1L);
    curl_easy_setopt(x->easy, CURLOPT_READFUNCTION, on_upload);
    curl_easy_setopt(x->easy, CURLOPT_READDATA, x);
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->in.bytes);
  }
  curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->send_headers);
  curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
  curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
  curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, (long)(x->rec->timeout * 1000));
  curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
  return curl_multi_add_handle(x->multi, x->easy) == CURLM_OK ? 0 : -1;
}

/* The highest N of the DIR/N-FAMILY.capture.jsonl already there: a new run
 * numbers its captures after them instead of writing over them. */
static unsigned long last_number(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  unsigned long last = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    if (!isdigit((unsigned char)e->d_name[0])) continue;
    unsigned long n = strtoul(e->d_name, &end, 10);
    if (*end == '-' && strstr(end, ".capture.jsonl") && n > last && n < ULONG_MAX / 2) last = n;
  }
  closedir(d);
  return last;
}

/* The exchange's capture file, begun once the status and headers are
 * known: its header, then the piece received so far. */
static void open_capture(exchange *x, struct MHD_Connection *c, const char *url,
                         const char *method) {
  recorder *rec = x->rec;
  tbuf name = {0};
  tbuf_xprintf(&name, "%s/%04lu-%s.capture.jsonl", rec->out,
               (unsigned long)atomic_fetch_add(&rec->seq, 1) + 1,
               sluice_endpoint_name(sluice_endpoint_of_path(url, strlen(url))));
  x->path = tbuf_take(&name, NULL);
  json_t *header = capture_header(x, c, method, url);
  if (header && capw_open(&x->w, x->path, header) == 0) {
    x->writing = 1;
    if (x->piece.n && capw_piece(&x->w, now_seconds() - x->t0, x->piece.p, x->piece.n))
      x->write_failed = 1;
  } else {
    fprintf(stderr, "sluice record: cannot write %s: %s\n", x->path,
            header ? strerror(errno) : "out of memory");
  }
  json_decref(header);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *msg) {
  char *body = http_error_body(SLUICE_ENDPOINT_OPENAI_CHAT, (int)status, msg);
  enum MHD_Result rc = http_reply(c, status, body);
  free(body);
  return rc;
}

/* The upstream's answer passed on as it arrives (or a 502 when there is
 * none); the response owns x from here. */
static enum MHD_Result pass_on(exchange *x, struct MHD_Connection *c) {
  if (x->finished && x->result != CURLE_OK && x->status == 0) {
    char msg[300];
    snprintf(msg, sizeof msg, "sluice record: the upstream failed: %s",
             curl_easy_strerror(x->result));
    enum MHD_Result rc = reply(c, MHD_HTTP_BAD_GATEWAY, msg);
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

/* Why a received request is not forwarded (its status in *st), or NULL. */
static const char *refusal(exchange *x, struct MHD_Connection *c, unsigned *st) {
  *st = MHD_HTTP_BAD_REQUEST;
  if (!http_origin_form(x->in.target))
    return "sluice record: the request target must be a path (origin-form: /path?query)";
  if (!http_headers_ok(c)) return "sluice record: a header name is not an HTTP token";
  *st = MHD_HTTP_CONTENT_TOO_LARGE;
  if (x->in.too_big) return "sluice record: the request body is over --max-body";
  *st = MHD_HTTP_SERVICE_UNAVAILABLE;
  if (x->in.over_total) return "sluice record: too many request bodies held now (--max-buffered)";
  *st = MHD_HTTP_INTERNAL_SERVER_ERROR;
  if (x->in.io_error) return "sluice record: the request body could not be kept";
  *st = MHD_HTTP_BAD_REQUEST;
  if (upstream_url(x)) return "sluice record: the request target is not a valid path";
  *st = MHD_HTTP_INTERNAL_SERVER_ERROR;
  if (MHD_get_connection_values(c, MHD_HEADER_KIND, copy_header, x) < 0 ||
      start_transfer(x, x->method))
    return "sluice record: out of memory";
  return NULL;
}

/* A request begins: its target as sent (before libmicrohttpd decodes it). */
static void *begin(void *cls, const char *uri, struct MHD_Connection *c) {
  (void)c;
  exchange *x = xcalloc(1, sizeof *x);
  x->rec = cls;
  http_req_init(&x->in, uri);
  return x;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls) {
  (void)version;
  recorder *rec = cls;
  exchange *x = *con_cls;
  if (!x) *con_cls = x = begin(rec, url, c);
  if (!x->started) {
    x->started = 1;
    return MHD_YES;
  }
  http_caps caps = {rec->lim.max_body, 65536, 1};
  if (http_collect(&x->in, upload, upload_size, &caps)) return MHD_YES;
  x->method = method;
  unsigned st;
  const char *why = refusal(x, c, &st);
  if (why) return reply(c, st, why); /* completed() frees x */
  *con_cls = NULL; /* from here the response owns it (free_exchange) */
  x->t0 = now_seconds();
  x->conn = c;
  pump(x, 1);
  http_still_busy(c, (unsigned)rec->lim.idle_timeout); /* waiting for the upstream is not idling */
  /* The capture begins once the status and headers are known. */
  open_capture(x, c, url, method);
  return pass_on(x, c);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
  (void)cls;
  (void)c;
  (void)toe;
  exchange *x = *con_cls;
  if (x) { /* ended before it was forwarded */
    drop_exchange(x);
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
     .help = "where every request is forwarded (required): http:// or https://, a host, and "
             "a path the request's path is appended to"},
    {"out", 0, "DIR", OPT_STRING, OPT_AT(recorder, out, const char *),
     .help = "where the captures are written (required; created if missing)"},
    {"timeout", 0, "S", OPT_POSITIVE, OPT_AT(recorder, timeout, double),
     .help = "give up on an upstream answer after S seconds (default 300)"},
    {.kind = OPT_SECTION, .help = "Caps (what a client can make it hold)"},
    {"max-body", 0, "BYTES", OPT_SIZE, OPT_AT(recorder, lim.max_body, size_t), .min = 1,
     .help = "a request body over BYTES is answered 413 (default 64 MiB); the first 64 KiB "
             "of a body are held in memory, the rest in an unlinked temporary file"},
    {"max-buffered", 0, "BYTES", OPT_SIZE, OPT_AT(recorder, lim.max_buffered, size_t),
     .min = 1, .help = "request body bytes held by all requests at once; past it a request "
                       "is answered 503 (default 1 GiB)"},
    {"max-capture", 0, "BYTES", OPT_SIZE, OPT_AT(recorder, lim.max_capture, size_t), .min = 1,
     .help = "a response body over BYTES ends the exchange; its capture ends "
             "\"max_capture\" (default 256 MiB)"},
    {"max-connections", 0, "N", OPT_SIZE, OPT_AT(recorder, lim.max_connections, size_t),
     .min = 1, .max = 100000, .help = "client connections open at once; more are closed "
                                      "at once (default 256)"},
    {"idle-timeout", 0, "S", OPT_SIZE, OPT_AT(recorder, lim.idle_timeout, size_t), .min = 1,
     .max = 86400, .help = "close a client connection whose client sends nothing, or reads "
                           "nothing of the answer, for S seconds (default 60; the "
                           "upstream's silences do not count)"},
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
        "is written to DIR/NNNN-FAMILY.capture.jsonl (numbered after those already in\n"
        "DIR): the request and the response status and headers, then every piece of\n"
        "the body with its time, and how it ended (complete, client_closed,\n"
        "max_capture or the upstream's error). Secrets are redacted by one rule: a\n"
        "header, query or form parameter or JSON key whose name contains auth, token,\n"
        "key, secret, cookie, sig, passw, pwd, session or credential. A request body is\n"
        "kept whole in the capture up to 64 KiB, else as its size, model and stream\n"
        "flag. Only origin-form targets (/path?query) are forwarded (400 otherwise),\n"
        "always to --upstream's host. Replay one with `sluice replay` or serve it with\n"
        "`sluice serve`.\n",
    .tables = {recorder_options, record_options},
};

/* --upstream parsed once (libcurl's URL API): http or https, a host, no
 * query or fragment; its path kept without the trailing '/'. 0 or -1. */
static int parse_upstream(recorder *rec) {
  char *scheme = NULL, *path = NULL, *query = NULL, *frag = NULL, *host = NULL;
  rec->base = curl_url();
  int bad = !rec->base || curl_url_set(rec->base, CURLUPART_URL, rec->upstream, 0) != CURLUE_OK ||
            curl_url_get(rec->base, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
            curl_url_get(rec->base, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
            curl_url_get(rec->base, CURLUPART_PATH, &path, 0) != CURLUE_OK;
  bad = bad || (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) ||
        curl_url_get(rec->base, CURLUPART_QUERY, &query, 0) == CURLUE_OK ||
        curl_url_get(rec->base, CURLUPART_FRAGMENT, &frag, 0) == CURLUE_OK;
  if (!bad) {
    size_t n = strlen(path);
    rec->base_path = xstrndup(path, n && path[n - 1] == '/' ? n - 1 : n);
  }
  curl_free(scheme);
  curl_free(host);
  curl_free(path);
  curl_free(query);
  curl_free(frag);
  return bad ? -1 : 0;
}

/* The options, and the folder of the captures. -1 to go on, else the exit
 * status. */
static int setup(recorder *rec, record_args *a, struct sockaddr_in *addr, int argc, char **argv) {
  memset(rec, 0, sizeof *rec);
  rec->timeout = 300;
  rec->lim = (rec_limits){(size_t)64 << 20, (size_t)256 << 20, 256, 60, (size_t)1 << 30};
  memset(a, 0, sizeof *a);
  a->listen = "127.0.0.1:0";
  void *bases[] = {rec, a};
  int rc = opt_parse(&record_cmd, bases, argc, argv, NULL);
  if (rc >= 0) return rc;
  if (!rec->upstream || !rec->out)
    return opt_error(&record_cmd, NULL, "needs --upstream URL and --out DIR (see --help)");
  if (http_parse_listen(a->listen, addr))
    return opt_error(&record_cmd, "--listen", "must be ADDRESS:PORT, like 127.0.0.1:0");
  if (parse_upstream(rec))
    return opt_error(&record_cmd, "--upstream", "must be an http:// or https:// URL with a host "
                                                "and no query or fragment");
  if (mkdir(rec->out, 0777) && errno != EEXIST) {
    fprintf(stderr, "sluice record: cannot create %s: %s\n", rec->out, strerror(errno));
    return 2;
  }
  atomic_store(&rec->seq, last_number(rec->out));
  return -1;
}

static void recorder_free(recorder *rec) {
  curl_url_cleanup(rec->base);
  free(rec->base_path);
}

int cmd_record(int argc, char **argv) {
  recorder rec;
  record_args a;
  struct sockaddr_in addr;
  int rc = setup(&rec, &a, &addr, argc, argv);
  if (rc >= 0) {
    recorder_free(&rec);
    return rc;
  }
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) die("cannot start libcurl");
  http_catch_signals();
  http_set_buffer_cap(rec.lim.max_buffered);
  struct MHD_Daemon *d = MHD_start_daemon(
      MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
          MHD_USE_ERROR_LOG, 0,
      NULL, NULL, handler, &rec, MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_NOTIFY_COMPLETED,
      completed, &rec, MHD_OPTION_URI_LOG_CALLBACK, begin, &rec, MHD_OPTION_THREAD_STACK_SIZE,
      (size_t)256 << 10, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)rec.lim.idle_timeout,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)rec.lim.max_connections, MHD_OPTION_END);
  if (!d) {
    fprintf(stderr, "sluice record: cannot listen on %s: %s\n", a.listen, strerror(errno));
    recorder_free(&rec);
    curl_global_cleanup();
    return 2;
  }
  rc = http_serve_until(d, &addr, "record", &rec.done, a.max_requests, a.deadline);
  atomic_store(&rec.stop, 1);
  MHD_stop_daemon(d);
  fprintf(stderr, "sluice record: %lu exchanges recorded\n", (unsigned long)atomic_load(&rec.done));
  recorder_free(&rec);
  curl_global_cleanup();
  return rc;
}
