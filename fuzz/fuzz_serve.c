/* fuzz_serve: serve's request handling in process (the upstream engine of
 * tools/common/upstream.c on 127.0.0.1, one capture). The input is a
 * request: method, target, header lines and body, separated by NUL bytes
 * (the headers one per '\n'), sent on a connection of its own. Every request
 * must be answered with a status line (or closed, when libmicrohttpd refuses
 * its syntax) within 5 s, and the server must then still answer GET
 * /_sluice/log with a JSON array: no request stops it, none breaks its log.
 *
 * The server has no thread here: this one runs it (upstream_run) between
 * its own non-blocking reads and writes, so an input is one thread's work
 * from its connect to its cleanup. With the server in threads of its own,
 * handing each step from one thread to the other (a wakeup on the other
 * core, then a wait for the cleanup) was about half of this target's time
 * (perf: scheduler and wakeup paths; the same run bound to one core took a
 * quarter less CPU). The handling fuzzed is the same: libmicrohttpd's
 * parser, serve's handler and log; what differs is who calls them. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "capture.h"
#include "upstream.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static upstream *srv;
static struct sockaddr_in where;
static CURL *log_h;   /* the log's request */
static CURLM *log_m;  /* its connection, kept alive between inputs */
static tbuf log_body;

static void start_log(const char *url);

/* The input before this one: a request that stopped the server from
 * accepting is seen at the next input's request, so a failure there names
 * both (libFuzzer saves only the current one). */
static tbuf prev;

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_serve: %s: %.200s\n", what, detail);
  abort();
}

static void fail_after(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_serve: the input before this one (%zu bytes, C escapes): \"", prev.n);
  for (size_t i = 0; i < prev.n; i++) {
    unsigned char c = (unsigned char)prev.p[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') fputc(c, stderr);
    else fprintf(stderr, "\\%03o", c);
  }
  fputs("\"\n", stderr);
  fail(what, detail);
}

static void start(void) {
  capture c;
  tbuf err = {0};
  if (capture_load(&c, FUZZ_CAPTURE, 0, &err)) fail("cannot load the capture", err.p);
  /* A log of two entries: the input's own and the one before it, so that
   * every input's dump also drops one (the ring wraps). Each entry is
   * checked in the dumps after its request; with sixteen, every input
   * loaded fourteen entries already checked again (perf: jansson loading
   * the log was 15% of the target's time). */
  srv = upstream_new(2, 1);
  /* Run by this thread, the capture served without waits (which would
   * hold it up). */
  up_limits lim;
  up_limits_default(&lim);
  lim.caller_runs = 1;
  upstream_set_limits(srv, &lim);
  up_behave how;
  up_behave_default(&how);
  how.speed = 0;
  upstream_add(srv, &c, &how, NULL);
  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (upstream_start(srv, &addr, &err)) fail("cannot listen", err.p);
  const char *url = upstream_url(srv), *colon = strrchr(url, ':');
  where = addr;
  where.sin_port = htons((uint16_t)atoi(colon + 1));
  start_log(url);
}

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* One turn of the loop: waits until the server's sockets, the log
 * request's (when with_log) or fd (-1: none; for reading, and writing when
 * want_write) are ready, or the server's own timeout, or until end (ms),
 * then serves what is ready. -1 once end has passed. */
static int turn(int fd, int want_write, int with_log, long long end) {
  fd_set r, w, e;
  FD_ZERO(&r);
  FD_ZERO(&w);
  FD_ZERO(&e);
  int max = -1;
  long wait = upstream_fdset(srv, &r, &w, &e, &max), cw = -1;
  if (wait == -2) fail("the server's sockets cannot be selected", "");
  if (with_log) {
    int cm = -1;
    if (curl_multi_fdset(log_m, &r, &w, &e, &cm) || curl_multi_timeout(log_m, &cw))
      fail("libcurl's sockets cannot be selected", "");
    if (cm > max) max = cm;
    if (cw >= 0 && (wait < 0 || cw < wait)) wait = cw;
  }
  if (fd >= 0) {
    if (fd >= FD_SETSIZE) fail("a socket past FD_SETSIZE", "");
    FD_SET(fd, &r);
    if (want_write) FD_SET(fd, &w);
    if (fd > max) max = fd;
  }
  long long left = end - now_ms();
  if (left <= 0) return -1;
  if (wait < 0 || wait > left) wait = (long)left;
  struct timeval tv = {wait / 1000, (wait % 1000) * 1000};
  if (select(max + 1, &r, &w, &e, &tv) < 0) {
    if (errno != EINTR) fail("select", strerror(errno));
    FD_ZERO(&r); /* libFuzzer's timer: nothing is known to be ready */
    FD_ZERO(&w);
    FD_ZERO(&e);
  }
  if (upstream_run(srv, &r, &w, &e)) fail_after("the server does not run", "");
  return 0;
}

/* Sends req on a connection of its own and reads the answer (at most cap
 * bytes) until the server closes; aborts when it neither answers nor closes
 * in 5 s. */
static size_t exchange(const char *req, size_t n, char *out, size_t cap) {
  int fd = socket(AF_INET, SOCK_STREAM, 0), fl;
  /* Closed with a reset, so neither end keeps the pair in TIME_WAIT: at a
   * couple of thousand exchanges a second a campaign ran out of loopback
   * ports within half a minute (connect: EADDRNOTAVAIL). */
  struct linger now = {1, 0};
  if (fd < 0 || (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) ||
      setsockopt(fd, SOL_SOCKET, SO_LINGER, &now, sizeof now))
    fail("cannot make a socket", strerror(errno));
  long long end = now_ms() + 5000;
  if (connect(fd, (struct sockaddr *)&where, sizeof where) && errno != EINPROGRESS &&
      errno != EINTR)
    fail_after("cannot connect", strerror(errno));
  size_t sent = 0, got = 0;
  int connected = 0;
  for (;;) {
    if (!connected) {
      struct pollfd p = {fd, POLLOUT, 0};
      int err = 0;
      socklen_t l = sizeof err;
      if (poll(&p, 1, 0) == 1) {
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) || err)
          fail_after("cannot connect", strerror(err ? err : errno));
        connected = 1;
      }
    }
    if (connected) {
      while (sent < n) {
        ssize_t w = send(fd, req + sent, n - sent, MSG_NOSIGNAL);
        if (w > 0) sent += (size_t)w;
        else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
        else sent = n; /* the server may close on a malformed head */
      }
      ssize_t r = -1;
      while (got < cap && (r = recv(fd, out + got, cap - got, 0)) > 0) got += (size_t)r;
      if (got == cap || r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        break; /* a reset is a close too */
    }
    /* A server that stopped accepting still lets the kernel take the
     * connection: it shows as silence, never as an answer or a close. */
    if (turn(fd, !connected || sent < n, 0, end))
      fail_after(connected ? "no answer and no close in 5 s" : "cannot connect: no answer in 5 s",
                 req);
  }
  close(fd);
  return got;
}

/* Serves (at most a second) until the server has cleaned up every
 * connection of this input. An input that returned before then had
 * allocated more blocks than it freed, which libFuzzer answers by running
 * the input again and then a leak check that stops every thread (perf: 70%
 * of this target's time went to those checks). What a leak keeps stays
 * unfreed however long this waits, so libFuzzer still checks then. */
static void settle(void) {
  long long end = now_ms() + 1000;
  /* at most one left: the log's, kept alive */
  while (upstream_connections(srv) > 1 && turn(-1, 0, 0, end) == 0) continue;
}

/* The next NUL-separated field of the input. */
static const char *field(const uint8_t **p, const uint8_t *end, size_t *len) {
  const uint8_t *s = *p, *z = memchr(s, 0, (size_t)(end - s));
  *len = (size_t)((z ? z : end) - s);
  *p = z ? z + 1 : end;
  return (const char *)s;
}

static size_t log_write(char *p, size_t size, size_t n, void *user) {
  (void)user;
  if (log_body.n + n > (size_t)1 << 20) return 0; /* two entries are far less */
  tbuf_xadd(&log_body, p, n);
  return size * n;
}

/* The log is asked for on a connection libcurl keeps alive from one input
 * to the next (a new one when the server closed it): a third connection
 * made and closed per input, after the request's own, was a quarter of this
 * target's time (perf: connect, accept and close on loopback). Every input's
 * request still comes on a new connection, so the server must still accept.
 * libcurl's multi interface, so that this thread serves while it asks. */
static void start_log(const char *url) {
  char u[160];
  snprintf(u, sizeof u, "%s/_sluice/log", url);
  if (curl_global_init(CURL_GLOBAL_NOTHING) || !(log_h = curl_easy_init()) ||
      !(log_m = curl_multi_init()))
    fail("cannot start libcurl", "");
  /* no signals of curl's own (libFuzzer has its timer); 5 s at most */
  if (curl_easy_setopt(log_h, CURLOPT_URL, u) || curl_easy_setopt(log_h, CURLOPT_NOSIGNAL, 1L) ||
      curl_easy_setopt(log_h, CURLOPT_TIMEOUT_MS, 5000L) ||
      curl_easy_setopt(log_h, CURLOPT_PROXY, "") ||
      curl_easy_setopt(log_h, CURLOPT_WRITEFUNCTION, log_write))
    fail("cannot set up libcurl", u);
}

/* One request for the log, served meanwhile; libcurl's result. */
static CURLcode fetch_log(void) {
  CURLcode rc = CURLE_OPERATION_TIMEDOUT;
  long long end = now_ms() + 5000;
  int running = 1, q;
  log_body.n = 0;
  if (curl_multi_add_handle(log_m, log_h)) fail("libcurl does not take the log request", "");
  do {
    if (curl_multi_perform(log_m, &running)) fail("libcurl fails", "");
  } while (running && turn(-1, 0, 1, end) == 0);
  for (CURLMsg *m; (m = curl_multi_info_read(log_m, &q));)
    if (m->msg == CURLMSG_DONE) rc = m->data.result;
  if (curl_multi_remove_handle(log_m, log_h)) fail("libcurl does not give the log request back", "");
  return rc;
}

static void check_log(void) {
  /* A failed request is asked again, twice (a new connection each): a
   * campaign once saw the log request closed unanswered (once in some
   * 100,000 inputs; the input alone passes), while a server that stopped
   * answers none of the three. */
  CURLcode rc = CURLE_OK;
  long status = 0;
  for (int tries = 0; tries < 3; tries++)
    if ((rc = fetch_log()) == CURLE_OK) break;
  if (rc != CURLE_OK) fail_after("the log is not answered", curl_easy_strerror(rc));
  if (curl_easy_getinfo(log_h, CURLINFO_RESPONSE_CODE, &status) || status != 200)
    fail("the log is not answered 200", log_body.n ? log_body.p : "");
  json_t *j = json_loadb(log_body.n ? log_body.p : "", log_body.n, 0, NULL);
  if (!json_is_array(j)) fail("the log is not a JSON array", log_body.n ? log_body.p : "");
  json_decref(j);
}

/* The streaming scan of a body reads what jansson reads from it, when it
 * is a JSON object: the last top-level "model" string and "stream" flag. */
static void check_scan(const char *body, size_t n) {
  wire_scan s;
  wire_scan_init(&s);
  for (size_t i = 0; i < n; i += 7) wire_scan_feed(&s, body + i, n - i < 7 ? n - i : 7);
  /* A NUL byte is not JSON anywhere, but jansson's lexer drops one right
   * after a number or a literal (its unget refetches past it): it reads
   * {"stream":true<NUL>} as {"stream":true}, where the scan sees a value
   * that is not a boolean. Such a body is not JSON, as the scan says. */
  json_t *j = memchr(body, 0, n) ? NULL : json_loadb(body, n, 0, NULL);
  if (!json_is_object(j)) {
    json_decref(j);
    return;
  }
  json_t *m = json_object_get(j, "model"), *st = json_object_get(j, "stream");
  char want[256] = "";
  if (json_is_string(m)) {
    size_t k = wire_utf8_cut(json_string_value(m), json_string_length(m), sizeof want - 1);
    memcpy(want, json_string_value(m), k);
    want[k] = '\0';
  }
  if (json_is_string(m) != s.has_model || strcmp(want, s.model) != 0)
    fail("the scanned model differs from jansson's", s.model);
  int flag = json_is_true(st) ? 1 : json_is_false(st) ? 0 : -1;
  if (flag != s.stream) fail("the scanned stream flag differs from jansson's", body);
  json_decref(j);
}

/* Is the header line s[0..n) one of those the harness writes itself? */
static int framing_header(const char *s, size_t n) {
  static const char *const names[] = {"connection", "content-length", "transfer-encoding"};
  size_t k = 0;
  while (k < n && s[k] != ':') k++;
  while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t')) k--;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strlen(names[i]) == k && strncasecmp(s, names[i], k) == 0) return 1;
  return 0;
}

/* The input's header lines ('\n' between them), each ended by CRLF, less
 * those that frame the request or the connection, and the folded lines
 * (starting with a space or a tab) that continue them. The harness frames
 * both itself, after the input's lines: it reads each answer to the
 * server's close, so an input that kept the connection open (a folded line
 * continuing "Connection: close", its own keep-alive, a chunked body never
 * sent) left it waiting out its read timeout, which AFL++ reported as a
 * hang (corpus/fuzz/serve/regress-folded-connection-header). */
static void add_headers(tbuf *req, const char *h, size_t hl) {
  int dropped = 0;
  for (size_t i = 0; i < hl;) {
    const char *nl = memchr(h + i, '\n', hl - i);
    size_t n = nl ? (size_t)(nl - (h + i)) : hl - i;
    int folded = n > 0 && (h[i] == ' ' || h[i] == '\t');
    if (!folded) dropped = framing_header(h + i, n);
    if (!dropped) {
      tbuf_xadd(req, h + i, n);
      tbuf_xadds(req, "\r\n");
    }
    i += n + 1;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!srv) start();
  const uint8_t *p = data, *end = data + size;
  size_t ml, tl, hl;
  const char *m = field(&p, end, &ml), *t = field(&p, end, &tl), *h = field(&p, end, &hl);
  size_t bl = (size_t)(end - p);
  check_scan((const char *)p, bl);
  tbuf req = {0};
  tbuf_xprintf(&req, "%.*s %.*s HTTP/1.1\r\nHost: x\r\n", (int)ml, m, (int)tl, t);
  add_headers(&req, h, hl);
  tbuf_xprintf(&req, "Connection: close\r\nContent-Length: %zu\r\n\r\n", bl);
  tbuf_xadd(&req, p, bl);
  static char out[1 << 16];
  size_t n = exchange(req.p, req.n, out, sizeof out);
  tbuf_free(&req);
  if (n && (n < 12 || strncmp(out, "HTTP/1.", 7) != 0 || out[8] != ' ' || out[9] < '1' ||
            out[9] > '5'))
    fail("an answer without a status line", out);
  check_log();
  settle();
  prev.n = 0;
  tbuf_xadd(&prev, data, size);
  return 0;
}
