/*
 * http.c: the HTTP pieces `sluice serve` and `sluice record` share.
 */
#include "http.h"

#include <arpa/inet.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bytes.h"

static atomic_int signalled;
static void on_signal(int sig) {
  (void)sig;
  atomic_store(&signalled, 1);
}

void http_catch_signals(void) {
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
}

int http_serve_until(struct MHD_Daemon *d, const struct sockaddr_in *addr, const char *cmd,
                     atomic_ulong *done, uint64_t max, double seconds) {
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  char host[64];
  inet_ntop(AF_INET, &addr->sin_addr, host, sizeof host);
  printf("listening on http://%s:%u\n", host, di ? di->port : ntohs(addr->sin_port));
  int rc = fflush_checked(cmd, stdout) ? 1 : 0;
  double end = seconds > 0 ? now_seconds() + seconds : 0;
  while (!rc && !atomic_load(&signalled) && (!max || atomic_load(done) < max) &&
         (!end || now_seconds() < end)) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return rc;
}

int http_parse_listen(const char *s, struct sockaddr_in *addr) {
  memset(addr, 0, sizeof *addr);
  addr->sin_family = AF_INET;
  const char *colon = strrchr(s, ':');
  if (!colon) return -1;
  char host[64];
  size_t hl = (size_t)(colon - s);
  if (hl == 0 || hl >= sizeof host) return -1;
  memcpy(host, s, hl);
  host[hl] = '\0';
  if (strcmp(host, "localhost") == 0) strcpy(host, "127.0.0.1");
  if (inet_pton(AF_INET, host, &addr->sin_addr) != 1) return -1;
  uint64_t port;
  if (parse_u64(colon + 1, &port) || port > 65535) return -1;
  addr->sin_port = htons((uint16_t)port);
  return 0;
}

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value) {
  (void)kind;
  json_t **o = cls;
  if (!*o) return MHD_NO;
  if (!wire_header_name_ok(key)) { /* a folded line may have merged a secret into it */
    json_t *n = json_object_get(*o, "[malformed names]");
    if (json_object_set_new(*o, "[malformed names]", json_integer(json_integer_value(n) + 1))) {
      json_decref(*o);
      *o = NULL;
      return MHD_NO;
    }
    return MHD_YES;
  }
  json_t *v = http_secret_header(key) ? json_string(WIRE_REDACTED)
                                      : wire_text(value ? value : "", value ? strlen(value) : 0);
  if (wire_set(*o, key, v)) {
    json_decref(*o);
    *o = NULL;
    return MHD_NO;
  }
  return MHD_YES;
}

json_t *http_headers_json(struct MHD_Connection *c) {
  json_t *o = json_object();
  MHD_get_connection_values(c, MHD_HEADER_KIND, add_header, &o);
  return o;
}

static enum MHD_Result check_name(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value) {
  (void)kind;
  (void)value;
  if (wire_header_name_ok(key)) return MHD_YES;
  *(int *)cls = 0;
  return MHD_NO;
}

int http_headers_ok(struct MHD_Connection *c) {
  int ok = 1;
  MHD_get_connection_values(c, MHD_HEADER_KIND, check_name, &ok);
  return ok;
}

int http_origin_form(const char *t) {
  if (t[0] != '/' || t[1] == '/') return 0;
  for (const unsigned char *p = (const unsigned char *)t; *p; p++)
    if (*p <= 0x20 || *p >= 0x7F || *p == '#' || *p == '\\') return 0;
  return 1;
}

/* ---------------- request bodies ---------------- */

static atomic_size_t held_total;
static size_t held_cap = (size_t)1 << 30;

void http_set_buffer_cap(size_t cap) { held_cap = cap; }

void http_req_init(http_req *r, const char *target) {
  memset(r, 0, sizeof *r);
  r->target = xstrdup(target ? target : "");
  wire_scan_init(&r->scan);
}

/* Counts n more bytes held; 0, or -1 past the process's cap. */
static int hold(http_req *r, size_t n) {
  size_t before = atomic_fetch_add(&held_total, n);
  if (before + n > held_cap) {
    atomic_fetch_sub(&held_total, n);
    return -1;
  }
  r->held += n;
  return 0;
}

static void drop_body(http_req *r) {
  atomic_fetch_sub(&held_total, (size_t)r->held);
  r->held = 0;
  tbuf_free(&r->head);
  if (r->spill) fclose(r->spill);
  r->spill = NULL;
}

/* Keeps data[0..n) (the head first, then the spill file). */
static void keep(http_req *r, const char *data, size_t n, const http_caps *caps) {
  size_t room = caps->keep > r->head.n ? caps->keep - r->head.n : 0;
  size_t k = n < room ? n : room;
  if (!caps->spill) n = k;
  if (hold(r, n)) {
    r->over_total = 1;
    drop_body(r);
    return;
  }
  if (k && tbuf_add(&r->head, data, k)) r->over_total = 1;
  if (n > k && !r->spill && !(r->spill = tmpfile())) r->io_error = 1;
  if (n > k && r->spill && fwrite(data + k, 1, n - k, r->spill) != n - k) r->io_error = 1;
  if (r->over_total || r->io_error) drop_body(r);
}

int http_collect(http_req *r, const char *data, size_t *size, const http_caps *caps) {
  if (*size == 0) return 0;
  size_t n = *size;
  *size = 0;
  r->bytes += n;
  /* Over --max-body is the answer (413) even once the body was dropped for
   * the total or a spill error. */
  if (!r->too_big && caps->max_body && r->bytes > caps->max_body) {
    r->too_big = 1;
    drop_body(r);
  }
  if (r->too_big || r->over_total || r->io_error) return 1;
  wire_scan_feed(&r->scan, data, n);
  keep(r, data, n, caps);
  return 1;
}

long http_body_read(http_req *r, char *buf, size_t max) {
  if (r->read_off < r->head.n) {
    size_t n = r->head.n - (size_t)r->read_off < max ? r->head.n - (size_t)r->read_off : max;
    memcpy(buf, r->head.p + r->read_off, n);
    r->read_off += n;
    return (long)n;
  }
  if (!r->spill) return 0;
  if (r->read_off == r->head.n && fflush(r->spill) == 0) rewind(r->spill);
  size_t got = fread(buf, 1, max, r->spill);
  r->read_off += got;
  return got == 0 && ferror(r->spill) ? -1 : (long)got;
}

void http_req_free(http_req *r) {
  drop_body(r);
  free(r->target);
  r->target = NULL;
}

void http_still_busy(struct MHD_Connection *c, unsigned idle) {
  /* setting a timeout after none restarts the timer (microhttpd.h) */
  MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
  MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, idle);
}

enum MHD_Result http_reply(struct MHD_Connection *c, unsigned status, const char *json) {
  if (!json) json = "{\"error\":{\"message\":\"sluice: out of memory\",\"type\":\"server_error\"}}";
  struct MHD_Response *r =
      MHD_create_response_from_buffer(strlen(json), (void *)json, MHD_RESPMEM_MUST_COPY);
  if (!r) return MHD_NO;
  MHD_add_response_header(r, "Content-Type", "application/json");
  enum MHD_Result rc = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return rc;
}

/* ---------------- the request log ---------------- */

void http_log_init(http_log *l, size_t cap) {
  memset(l, 0, sizeof *l);
  pthread_mutex_init(&l->mu, NULL);
  l->cap = cap ? cap : 1;
  l->v = xcalloc(l->cap, sizeof *l->v);
}

void http_log_free(http_log *l) {
  for (size_t i = 0; i < l->cap; i++) free(l->v[i]);
  free(l->v);
  pthread_mutex_destroy(&l->mu);
}

/* A request's log entry as JSON text, or NULL when out of memory. */
static char *log_entry(struct MHD_Connection *c, const char *method, const http_req *r) {
  json_t *e = json_object();
  char *p = http_scrub_path(r->target);
  int bad = !e || wire_set(e, "method", wire_text(method, strlen(method))) ||
            wire_set(e, "path", wire_text(p, strlen(p))) ||
            wire_set(e, "headers", http_headers_json(c)) ||
            wire_body_fields(e, r->head.p, r->head.n, r->bytes, HTTP_LOG_BODY, &r->scan);
  free(p);
  char *text = bad ? NULL : json_dumps(e, JSON_COMPACT);
  json_decref(e);
  return text;
}

void http_log_add(http_log *l, struct MHD_Connection *c, const char *method, const http_req *r) {
  char *text = log_entry(c, method, r);
  if (!text) return;
  pthread_mutex_lock(&l->mu);
  free(l->v[l->next]);
  l->v[l->next] = text;
  l->next = (l->next + 1) % l->cap;
  if (l->n < l->cap) l->n++;
  l->total++;
  pthread_mutex_unlock(&l->mu);
}

char *http_log_dump(http_log *l) {
  tbuf b = {0};
  int bad = tbuf_adds(&b, "[");
  pthread_mutex_lock(&l->mu);
  for (size_t i = 0; i < l->n && !bad; i++) {
    size_t k = (l->next + l->cap - l->n + i) % l->cap;
    bad = (i && tbuf_adds(&b, ",")) || tbuf_adds(&b, l->v[k]);
  }
  pthread_mutex_unlock(&l->mu);
  if (bad || tbuf_adds(&b, "]")) {
    tbuf_free(&b);
    return NULL;
  }
  return tbuf_take(&b, NULL);
}
