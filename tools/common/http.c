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
  json_t *o = cls;
  json_t *v = json_text(http_secret_header(key) ? "[redacted]" : value ? value : "");
  if (!v || json_object_set_new(o, key, v)) die("out of memory");
  return MHD_YES;
}

json_t *http_headers_json(struct MHD_Connection *c) {
  json_t *o = json_object();
  if (!o) die("out of memory");
  MHD_get_connection_values(c, MHD_HEADER_KIND, add_header, o);
  return o;
}

int http_collect(http_req *r, const char *data, size_t *size, size_t cap) {
  if (*size == 0) return 0;
  if (!r->too_big && r->body.n + *size > cap) {
    r->too_big = 1;
    tbuf_free(&r->body);
  }
  if (!r->too_big) tbuf_xadd(&r->body, data, *size);
  *size = 0;
  return 1;
}

enum MHD_Result http_reply(struct MHD_Connection *c, unsigned status, const char *json) {
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
  for (size_t i = 0; i < l->cap; i++) json_decref(l->v[i]);
  free(l->v);
  pthread_mutex_destroy(&l->mu);
}

void http_log_add(http_log *l, struct MHD_Connection *c, const char *method, const char *path,
                  const tbuf *body) {
  json_t *e = json_object();
  char *p = http_scrub_path(path);
  if (!e || json_object_set_new(e, "method", json_text(method)) ||
      json_object_set_new(e, "path", json_text(p)) ||
      json_object_set_new(e, "headers", http_headers_json(c)))
    die("out of memory");
  free(p);
  size_t n = body->n < 65536 ? body->n : 65536;
  json_t *parsed = n == body->n && n ? json_loadb(body->p, n, 0, NULL) : NULL;
  if (parsed) {
    json_object_set_new(e, "body", parsed);
  } else if (n) {
    char *text = xstrndup(body->p, n);
    json_object_set_new(e, "body_text", json_text(text));
    free(text);
    if (n < body->n) json_object_set_new(e, "body_bytes", json_integer((json_int_t)body->n));
  }
  pthread_mutex_lock(&l->mu);
  json_decref(l->v[l->next]);
  l->v[l->next] = e;
  l->next = (l->next + 1) % l->cap;
  if (l->n < l->cap) l->n++;
  l->total++;
  pthread_mutex_unlock(&l->mu);
}

char *http_log_dump(http_log *l) {
  json_t *a = json_array();
  if (!a) die("out of memory");
  pthread_mutex_lock(&l->mu);
  for (size_t i = 0; i < l->n; i++) {
    size_t k = (l->next + l->cap - l->n + i) % l->cap;
    json_array_append(a, l->v[k]);
  }
  pthread_mutex_unlock(&l->mu);
  char *text = json_dumps(a, JSON_COMPACT);
  json_decref(a);
  if (!text) die("out of memory");
  return text;
}
