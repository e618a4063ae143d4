/*
 * cmd_capture.c: `sluice capture import`: recordings made with other tools
 * turned into sluice captures. VCR cassettes (YAML, read with libyaml, as
 * vcrpy and pytest-recording write them), HAR files from browser devtools
 * (JSON), and the AI SDK's .chunks.txt fixtures.
 */
#include "tools.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "common/gz.h"
#include "common/wire.h"

/* ---------------- what every importer produces ---------------- */

/* What an import may hold (capture import --help). */
typedef struct import_caps {
  size_t max_body;  /* a decoded response body */
  size_t max_input; /* an input file */
} import_caps;

typedef struct import_ctx {
  const char *file, *out, *base;
  const import_caps *caps;
} import_ctx;

#define IMPORT_KEEP_REQUEST ((size_t)1 << 20) /* a request body kept whole up to this */

typedef struct exchange_in {
  const char *method;
  char *method_buf; /* the method, when owned */
  char *path;        /* path and query, from the URL */
  json_t *req_headers, *resp_headers;
  tbytes req_body, resp_body;
  int status;
} exchange_in;

static int streams(json_t *headers) {
  const char *key;
  json_t *v;
  json_object_foreach(headers, key, v) {
    if (strcasecmp(key, "content-type") != 0 || !json_is_string(v)) continue;
    const char *t = json_string_value(v);
    return strstr(t, "text/event-stream") || strstr(t, "ndjson");
  }
  return 0;
}

/* The path and query of a URL ("https://host/v1/x?y" -> "/v1/x?y"). */
static char *url_path(const char *url) {
  const char *p = strstr(url, "://");
  p = p ? strchr(p + 3, '/') : url;
  char *path = xstrndup(p ? p : "/", p ? strcspn(p, "#") : 1);
  char *scrubbed = http_scrub_path(path);
  free(path);
  return scrubbed;
}

/* An HTTP status read from a file: 100 to 599, else -1. */
static int status_of(const char *s, size_t n) {
  if (n != 3) return -1;
  int v = 0;
  for (size_t i = 0; i < 3; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v >= 100 && v <= 599 ? v : -1;
}

static int collect_decoded(void *user, const char *p, size_t n) {
  tbuf_xadd(user, p, n);
  return 0;
}

/* Decodes a gzip (or deflate) body in place, within the body cap and gz's
 * ratio cap; -1 with the reason in why. */
static int gunzip(tbytes *b, size_t max, char *why, size_t wl) {
  gz *z = gz_new(max);
  tbuf out = {0};
  int r = gz_feed(z, b->p, b->n, collect_decoded, &out, why, wl);
  if (r == 0 && z && !gz_done(z)) {
    snprintf(why, wl, "the gzip-encoded body is cut short");
    r = -1;
  }
  gz_free(z);
  if (r) {
    tbuf_free(&out);
    return -1;
  }
  free(b->p);
  b->p = tbuf_take(&out, &b->n);
  return 0;
}

/* The response headers as stored: a gzip or deflate body decoded (the
 * coding dropped), lengths and transfer coding dropped, secrets redacted;
 * the request's secrets too. 0, or -1 after a message. */
static int clean_headers(exchange_in *x, const import_ctx *ic, size_t n) {
  const char *key;
  json_t *v, *tmp;
  json_object_foreach_safe(x->resp_headers, tmp, key, v) {
    if (strcasecmp(key, "content-encoding") == 0 && json_is_string(v) &&
        (strstr(json_string_value(v), "gzip") || strstr(json_string_value(v), "deflate"))) {
      char why[200];
      if (gunzip(&x->resp_body, ic->caps->max_body, why, sizeof why)) {
        fprintf(stderr, "sluice capture: %s: entry %zu: %s\n", ic->file, n, why);
        return -1;
      }
      json_object_del(x->resp_headers, key); /* stored decoded */
    } else if (strcasecmp(key, "content-length") == 0 || strcasecmp(key, "transfer-encoding") == 0) {
      json_object_del(x->resp_headers, key);
    } else if (http_secret_header(key)) {
      if (json_object_set_new(x->resp_headers, key, json_string(WIRE_REDACTED)))
        die("out of memory");
    }
  }
  if (x->resp_body.n > ic->caps->max_body) {
    fprintf(stderr, "sluice capture: %s: entry %zu: the response body is over %zu bytes "
                    "(--max-body)\n", ic->file, n, ic->caps->max_body);
    return -1;
  }
  json_object_foreach(x->req_headers, key, v)
    if (http_secret_header(key)) json_object_set_new(x->req_headers, key, json_string(WIRE_REDACTED));
  return 0;
}

/* The capture's header line; NULL when out of memory. */
static json_t *exchange_header(exchange_in *x, const char *from) {
  json_t *req = json_object(), *h = json_object(), *resp = json_object();
  wire_scan scan;
  wire_scan_init(&scan);
  if (x->req_body.n > IMPORT_KEEP_REQUEST) wire_scan_feed(&scan, x->req_body.p, x->req_body.n);
  int bad = !req || !h || !resp ||
            wire_set(req, "method", wire_text(x->method, strlen(x->method))) ||
            wire_set(req, "path", wire_text(x->path, strlen(x->path))) ||
            wire_set(req, "headers", json_incref(x->req_headers)) ||
            wire_body_fields(req, x->req_body.p, x->req_body.n, x->req_body.n,
                             IMPORT_KEEP_REQUEST, &scan) ||
            wire_set(resp, "status", json_integer(x->status)) ||
            wire_set(resp, "headers", json_incref(x->resp_headers)) ||
            wire_set(h, "request", json_incref(req)) || wire_set(h, "response", json_incref(resp)) ||
            wire_set(h, "endpoint", json_string(sluice_endpoint_name(
                                        sluice_endpoint_of_path(x->path, strlen(x->path))))) ||
            wire_set(h, "timed", json_false()) ||
            wire_set(h, "imported_from", wire_text(from, strlen(from)));
  json_decref(req);
  json_decref(resp);
  if (bad) json_decref(h);
  return bad ? NULL : h;
}

/* Writes one exchange as a capture: the body decoded, one piece, no times;
 * written whole or not at all. Returns 0, or -1 after a message. */
static int write_exchange(exchange_in *x, const import_ctx *ic, size_t n) {
  const char *slash = strrchr(ic->file, '/'), *from = slash ? slash + 1 : ic->file;
  if (clean_headers(x, ic, n)) return -1;
  json_t *h = exchange_header(x, from);
  tbuf path = {0};
  tbuf_xprintf(&path, "%s/%s-%zu.capture.jsonl", ic->out, ic->base, n);
  capture_writer w;
  int rc = h ? capw_open_part(&w, path.p, h) : -1;
  if (!rc && capw_piece(&w, 0, x->resp_body.p ? x->resp_body.p : "", x->resp_body.n)) {
    rc = -1;
    capw_abort(&w);
  } else if (!rc && capw_close(&w, 0, "complete")) {
    rc = -1;
  }
  if (rc) fprintf(stderr, "sluice capture: cannot write %s: %s\n", path.p,
                  h ? strerror(errno) : "out of memory");
  else printf("%s\n", path.p);
  json_decref(h);
  tbuf_free(&path);
  return rc;
}

static void exchange_free(exchange_in *x) {
  free(x->path);
  free(x->method_buf);
  json_decref(x->req_headers);
  json_decref(x->resp_headers);
  free(x->req_body.p);
  free(x->resp_body.p);
}

/* ---------------- VCR cassettes ---------------- */

#define YAML_MAX_DEPTH 64     /* nested collections, at most */
#define YAML_MAX_ALIASES 1024 /* aliases in a cassette, at most */

typedef struct ydoc {
  yaml_document_t d;
  const char *file;
  uint64_t budget; /* what may still be read: each scalar byte and mapping pair costs one */
  int over;        /* the budget ran out (aliases expanding) */
} ydoc;

static yaml_node_t *ynode(ydoc *y, int id) { return yaml_document_get_node(&y->d, id); }

/* Charges n to the budget; 0, or -1 (and y->over) once it has run out. */
static int ycharge(ydoc *y, size_t n) {
  if (y->over || n > y->budget) {
    y->over = 1;
    return -1;
  }
  y->budget -= n;
  return 0;
}

/* A mapping's value for key, or NULL. */
static yaml_node_t *yget(ydoc *y, yaml_node_t *map, const char *key) {
  if (!map || map->type != YAML_MAPPING_NODE) return NULL;
  size_t pairs = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
  if (ycharge(y, pairs)) return NULL;
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = ynode(y, p->key);
    if (k && k->type == YAML_SCALAR_NODE && strlen(key) == k->data.scalar.length &&
        memcmp(k->data.scalar.value, key, k->data.scalar.length) == 0)
      return ynode(y, p->value);
  }
  return NULL;
}

static int yscalar(ydoc *y, yaml_node_t *n, const char **s, size_t *len) {
  if (!n || n->type != YAML_SCALAR_NODE || ycharge(y, n->data.scalar.length)) return 0;
  *s = (const char *)n->data.scalar.value;
  *len = n->data.scalar.length;
  return 1;
}

/* A body: a string, {string: ...}, or !!binary (base64, spaces ignored). */
static int ybody(ydoc *y, yaml_node_t *n, tbytes *out) {
  out->p = NULL;
  out->n = 0;
  yaml_node_t *s = n && n->type == YAML_MAPPING_NODE ? yget(y, n, "string") : n;
  const char *v;
  size_t len;
  if (!yscalar(y, s, &v, &len)) return 0;
  const char *tag = (const char *)s->tag;
  if (len == 4 && memcmp(v, "null", 4) == 0 && s->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
    return 0;
  if (tag && strcmp(tag, "tag:yaml.org,2002:binary") == 0) { /* !!binary */
    tbuf clean = {0};
    for (size_t i = 0; i < len; i++)
      if (v[i] != ' ' && v[i] != '\n' && v[i] != '\r' && v[i] != '\t') tbuf_xadd(&clean, v + i, 1);
    int rc = b64_decode(clean.p ? clean.p : "", clean.n, out);
    tbuf_free(&clean);
    return rc ? -1 : 0;
  }
  out->p = xstrndup(v, len);
  out->n = len;
  return 0;
}

/* Headers: name -> [values] (vcrpy) or name -> value; the last value wins. */
static json_t *yheaders(ydoc *y, yaml_node_t *map) {
  json_t *o = json_object();
  if (!o) die("out of memory");
  if (!map || map->type != YAML_MAPPING_NODE) return o;
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    const char *k, *v = NULL;
    size_t kl, vl = 0;
    if (!yscalar(y, ynode(y, p->key), &k, &kl)) continue;
    yaml_node_t *val = ynode(y, p->value);
    if (val && val->type == YAML_SEQUENCE_NODE && val->data.sequence.items.top > val->data.sequence.items.start)
      val = ynode(y, val->data.sequence.items.top[-1]);
    if (!yscalar(y, val, &v, &vl)) continue;
    char *key = xstrndup(k, kl);
    if (wire_set(o, key, wire_text(v, vl))) die("out of memory");
    free(key);
  }
  return o;
}

/* The cassette read once as events: nesting and aliases within their caps,
 * before any document is built (libyaml's loader is slow on deep nesting).
 * 0, or -1 after a message with the line and column. */
static int ycheck(FILE *fp, const char *file) {
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) die("out of memory");
  yaml_parser_set_input_file(&parser, fp);
  int depth = 0, aliases = 0, rc = 0;
  const char *why = NULL;
  for (int done = 0; !done && !rc;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev)) break; /* the loader reports it */
    yaml_mark_t at = ev.start_mark;
    if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) depth++;
    else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) depth--;
    else if (ev.type == YAML_ALIAS_EVENT) aliases++;
    done = ev.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&ev);
    if (depth > YAML_MAX_DEPTH) why = "nested deeper than 64 levels";
    else if (aliases > YAML_MAX_ALIASES) why = "more than 1024 aliases";
    if (why) {
      fprintf(stderr, "sluice capture: %s:%zu:%zu: %s (refused)\n", file, at.line + 1,
              at.column + 1, why);
      rc = -1;
    }
  }
  yaml_parser_delete(&parser);
  rewind(fp);
  return rc;
}

/* One interaction into x (its request, response and bodies). 0, or -1
 * after a message. */
static int yexchange(ydoc *y, yaml_node_t *inter, size_t n, exchange_in *x) {
  yaml_node_t *req = yget(y, inter, "request"), *resp = yget(y, inter, "response");
  const char *uri, *method, *code;
  size_t ul, ml, cl;
  if (!yscalar(y, yget(y, req, "uri"), &uri, &ul) ||
      !yscalar(y, yget(y, req, "method"), &method, &ml) ||
      !yscalar(y, yget(y, yget(y, resp, "status"), "code"), &code, &cl)) {
    if (!y->over)
      fprintf(stderr, "sluice capture: %s: interaction %zu: needs request.uri, request.method "
                      "and response.status.code\n", y->file, n);
    return -1;
  }
  if ((x->status = status_of(code, cl)) < 0) {
    fprintf(stderr, "sluice capture: %s: interaction %zu: response.status.code \"%.*s\" is not "
                    "an HTTP status (100 to 599)\n", y->file, n,
            (int)wire_utf8_cut(code, cl, 20), code);
    return -1;
  }
  char *u = xstrndup(uri, ul);
  x->path = url_path(u);
  free(u);
  x->method_buf = xstrndup(method, ml);
  x->method = x->method_buf;
  x->req_headers = yheaders(y, yget(y, req, "headers"));
  x->resp_headers = yheaders(y, yget(y, resp, "headers"));
  if (ybody(y, yget(y, req, "body"), &x->req_body) ||
      ybody(y, yget(y, resp, "body"), &x->resp_body)) {
    fprintf(stderr, "sluice capture: %s: interaction %zu: a !!binary body is not base64\n",
            y->file, n);
    return -1;
  }
  return y->over ? -1 : 0;
}

/* Every interaction that streams, written. 0, or -1 after a message. */
static int yinteractions(ydoc *y, yaml_node_t *list, const import_ctx *ic) {
  size_t n = 0, written = 0;
  int rc = 0;
  for (yaml_node_item_t *it = list->data.sequence.items.start;
       it < list->data.sequence.items.top && !rc; it++) {
    exchange_in x;
    memset(&x, 0, sizeof x);
    rc = yexchange(y, ynode(y, *it), ++n, &x);
    if (!rc && streams(x.resp_headers)) {
      rc = write_exchange(&x, ic, n);
      written++;
    }
    exchange_free(&x);
  }
  if (y->over)
    fprintf(stderr, "sluice capture: %s: interaction %zu: its aliases expand to more than twice "
                    "the file (refused)\n", y->file, n);
  if (!rc && !written)
    fprintf(stderr, "sluice capture: %s: no interaction streams (text/event-stream or ndjson)\n",
            y->file);
  return rc;
}

static int import_cassette(const import_ctx *ic, FILE *fp, uint64_t size) {
  if (ycheck(fp, ic->file)) return -1;
  yaml_parser_t parser;
  ydoc y;
  memset(&y, 0, sizeof y);
  y.file = ic->file;
  y.budget = 2 * size + ((uint64_t)1 << 20);
  if (!yaml_parser_initialize(&parser)) die("out of memory");
  yaml_parser_set_input_file(&parser, fp);
  if (!yaml_parser_load(&parser, &y.d)) {
    fprintf(stderr, "sluice capture: %s:%zu:%zu: %s\n", ic->file, parser.problem_mark.line + 1,
            parser.problem_mark.column + 1, parser.problem ? parser.problem : "not YAML");
    yaml_parser_delete(&parser);
    return -1;
  }
  yaml_node_t *list = yget(&y, yaml_document_get_root_node(&y.d), "interactions");
  int rc = -1;
  if (!list || list->type != YAML_SEQUENCE_NODE)
    fprintf(stderr, "sluice capture: %s: not a VCR cassette (no \"interactions\" list)\n",
            ic->file);
  else rc = yinteractions(&y, list, ic);
  yaml_document_delete(&y.d);
  yaml_parser_delete(&parser);
  return rc;
}

/* ---------------- HAR ---------------- */

static json_t *har_headers(json_t *list) {
  json_t *o = json_object();
  if (!o) die("out of memory");
  size_t i;
  json_t *h;
  json_array_foreach(list, i, h) {
    json_t *name = json_object_get(h, "name"), *value = json_object_get(h, "value");
    if (json_is_string(name) && json_is_string(value))
      if (wire_set(o, json_string_value(name), json_incref(value))) die("out of memory");
  }
  return o;
}

/* A body held as a HAR string, or its base64. 0, or -1 (not base64). */
static int har_body(json_t *text, json_t *enc, tbytes *out) {
  if (!json_is_string(text)) return 0;
  if (json_is_string(enc) && strcmp(json_string_value(enc), "base64") == 0)
    return b64_decode(json_string_value(text), json_string_length(text), out) ? -1 : 0;
  out->n = json_string_length(text);
  out->p = xstrndup(json_string_value(text), out->n);
  return 0;
}

/* Entry n of a HAR file into x. 0, or -1 after a message. */
static int har_entry(json_t *e, size_t n, const char *file, exchange_in *x) {
  json_t *req = json_object_get(e, "request"), *resp = json_object_get(e, "response");
  json_t *url = json_object_get(req, "url"), *method = json_object_get(req, "method");
  json_t *content = json_object_get(resp, "content"), *st = json_object_get(resp, "status");
  if (!json_is_string(url) || !json_is_string(method) || !json_is_integer(st)) {
    fprintf(stderr, "sluice capture: %s: entry %zu: needs request.url, request.method and "
                    "response.status\n", file, n);
    return -1;
  }
  if (json_integer_value(st) < 100 || json_integer_value(st) > 599) {
    fprintf(stderr, "sluice capture: %s: entry %zu: response.status %" JSON_INTEGER_FORMAT
                    " is not an HTTP status (100 to 599)\n", file, n, json_integer_value(st));
    return -1;
  }
  x->path = url_path(json_string_value(url));
  x->method = json_string_value(method);
  x->status = (int)json_integer_value(st);
  x->req_headers = har_headers(json_object_get(req, "headers"));
  x->resp_headers = har_headers(json_object_get(resp, "headers"));
  json_t *mime = json_object_get(content, "mimeType");
  if (json_is_string(mime) && !json_object_get(x->resp_headers, "content-type") &&
      !json_object_get(x->resp_headers, "Content-Type"))
    if (json_object_set(x->resp_headers, "Content-Type", mime)) die("out of memory");
  /* Browsers store the body decoded already: no content coding applies. */
  json_object_del(x->resp_headers, "content-encoding");
  json_object_del(x->resp_headers, "Content-Encoding");
  har_body(json_object_get(json_object_get(req, "postData"), "text"), NULL, &x->req_body);
  if (har_body(json_object_get(content, "text"), json_object_get(content, "encoding"),
               &x->resp_body)) {
    fprintf(stderr, "sluice capture: %s: entry %zu: content.text is not base64\n", file, n);
    return -1;
  }
  return 0;
}

static int import_har(const import_ctx *ic, FILE *fp, uint64_t size) {
  (void)size;
  json_error_t jerr;
  json_t *har = json_loadf(fp, 0, &jerr);
  if (!har) {
    fprintf(stderr, "sluice capture: %s:%d:%d: %s\n", ic->file, jerr.line, jerr.column, jerr.text);
    return -1;
  }
  json_t *entries = json_object_get(json_object_get(har, "log"), "entries");
  int rc = 0;
  size_t written = 0;
  if (!json_is_array(entries)) {
    fprintf(stderr, "sluice capture: %s: not a HAR file (no log.entries)\n", ic->file);
    rc = -1;
  }
  size_t i;
  json_t *e;
  json_array_foreach(entries, i, e) {
    if (rc) break;
    exchange_in x;
    memset(&x, 0, sizeof x);
    rc = har_entry(e, i + 1, ic->file, &x);
    if (!rc && streams(x.resp_headers)) {
      rc = write_exchange(&x, ic, i + 1);
      written++;
    }
    x.method = NULL;
    exchange_free(&x);
  }
  if (!rc && !written)
    fprintf(stderr, "sluice capture: %s: no entry streams (text/event-stream or ndjson)\n",
            ic->file);
  json_decref(har);
  return rc;
}

/* ---------------- AI SDK fixtures ---------------- */

/* Writes bytes to path, whole or not at all (PATH.part renamed). 0 or -1. */
static int write_whole(const char *path, const char *p, size_t n) {
  tbuf part = {0};
  tbuf_xprintf(&part, "%s.part", path);
  FILE *o = fopen(part.p, "wb");
  int rc = o && fwrite(p, 1, n, o) == n ? 0 : -1;
  if (o && fclose(o) != 0) rc = -1;
  if (!rc && rename(part.p, path) != 0) rc = -1;
  if (rc) {
    int saved = errno;
    unlink(part.p);
    errno = saved;
  }
  tbuf_free(&part);
  return rc;
}

static int import_chunks(const import_ctx *ic, FILE *fp, uint64_t size) {
  (void)size; /* within --max-input: the whole file is held */
  tbuf out = {0};
  char *line = NULL;
  size_t cap = 0, lineno = 0;
  ssize_t len;
  int rc = 0;
  while (!rc && (len = getline(&line, &cap, fp)) >= 0) {
    lineno++;
    size_t n = (size_t)len;
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
    if (!n) continue;
    json_error_t jerr;
    json_t *j = json_loadb(line, n, 0, &jerr);
    if (!json_is_object(j)) {
      fprintf(stderr, "sluice capture: %s:%zu: byte %d: not a JSON object%s%s\n", ic->file,
              lineno, j ? 0 : jerr.position, j ? "" : ": ", j ? "" : jerr.text);
      rc = -1;
    }
    json_decref(j);
    if (out.n) tbuf_xadds(&out, "\n"); /* the corpus format: no newline after the last */
    tbuf_xadd(&out, line, n);
  }
  if (!rc && ferror(fp)) {
    fprintf(stderr, "sluice capture: %s: %s\n", ic->file, strerror(errno));
    rc = -1;
  }
  free(line);
  if (!rc) {
    tbuf path = {0};
    tbuf_xprintf(&path, "%s/%s.chunks.jsonl", ic->out, ic->base);
    if (write_whole(path.p, out.p ? out.p : "", out.n)) {
      fprintf(stderr, "sluice capture: cannot write %s: %s\n", path.p, strerror(errno));
      rc = -1;
    } else {
      printf("%s\n", path.p);
    }
    tbuf_free(&path);
  }
  tbuf_free(&out);
  return rc;
}

/* ---------------- the command ---------------- */

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

typedef struct capture_args {
  const char *out;
  import_caps caps;
} capture_args;

static const opt capture_options[] = {
    {"out", 0, "DIR", OPT_STRING, OPT_AT(capture_args, out, const char *),
     .help = "where the captures are written (required; created if missing)"},
    {"max-input", 0, "BYTES", OPT_SIZE, OPT_AT(capture_args, caps.max_input, size_t), .min = 1,
     .help = "an input file over BYTES is refused (default 64 MiB)"},
    {"max-body", 0, "BYTES", OPT_SIZE, OPT_AT(capture_args, caps.max_body, size_t), .min = 1,
     .help = "a response body that decodes to more is refused (default 32 MiB; gzip is also "
             "stopped past 256 times its encoded size)"},
    {0}};

static const opt_cmd capture_cmd = {
    .name = "capture import",
    .synopsis = "FILE... --out DIR",
    .intro =
        "Turns recordings made with other tools into sluice captures:\n"
        "  *.yaml, *.yml   VCR cassettes (vcrpy, pytest-recording): one capture per\n"
        "                  interaction whose answer streams (text/event-stream or\n"
        "                  application/x-ndjson); gzip-encoded bodies are decoded.\n"
        "                  Nesting past 64 levels, more than 1024 aliases, or aliases\n"
        "                  that expand past twice the file are refused\n"
        "  *.har           HAR files from browser devtools: one capture per entry that\n"
        "                  streams\n"
        "  *.chunks.txt    AI SDK fixtures (one provider chunk per line): checked line\n"
        "                  by line and written as .chunks.jsonl\n"
        "Captures are written as DIR/NAME-N.capture.jsonl (N: the interaction or entry,\n"
        "from 1; two inputs of the same NAME get NAME, NAME~2, ...), each whole or not\n"
        "at all, without recorded times (`sluice serve` then paces them with --ttft and\n"
        "--gap). Statuses must be 100 to 599. Secrets are redacted by one rule: a\n"
        "header, query or form parameter or JSON key whose name contains auth, token,\n"
        "key, secret, cookie, sig, passw, pwd, session or credential. Each file written\n"
        "is printed.\n",
    .tables = {capture_options},
    .operands = "FILE...",
    .min_operands = 1,
};

typedef int (*importer)(const import_ctx *ic, FILE *fp, uint64_t size);

/* The importer for a file name, or NULL. */
static importer importer_of(const char *f) {
  if (ends_with(f, ".yaml") || ends_with(f, ".yml")) return import_cassette;
  if (ends_with(f, ".har")) return import_har;
  if (ends_with(f, ".chunks.txt")) return import_chunks;
  return NULL;
}

/* A name for f's captures no earlier input of this run has: its file name
 * without extensions, then NAME~2, NAME~3, ... (kept in used, which owns
 * it). */
static char *unique_base(const char *f, strlist *used) {
  const char *slash = strrchr(f, '/');
  char *base = xstrdup(slash ? slash + 1 : f);
  char *dot = strchr(base, '.');
  if (dot && dot != base) *dot = '\0';
  tbuf name = {0};
  tbuf_xadds(&name, base);
  for (unsigned k = 2;; k++) {
    int taken = 0;
    for (size_t i = 0; i < used->n && !taken; i++) taken = strcmp(used->v[i], name.p) == 0;
    if (!taken) break;
    name.n = 0;
    tbuf_xprintf(&name, "%s~%u", base, k);
  }
  free(base);
  char *taken = tbuf_take(&name, NULL);
  strlist_add(used, taken);
  return taken;
}

/* One recording, by its name. 0, or -1 after a message. */
static int import_file(const char *f, const char *out, const import_caps *caps, strlist *used) {
  importer fn = importer_of(f);
  if (!fn) {
    fprintf(stderr, "sluice capture: %s: not a cassette (.yaml), a HAR file (.har) or AI SDK "
                    "chunks (.chunks.txt)\n", f);
    return -1;
  }
  FILE *fp = fopen(f, "rb");
  struct stat st;
  if (!fp || fstat(fileno(fp), &st) != 0) {
    fprintf(stderr, "sluice capture: %s: %s\n", f, strerror(errno));
    if (fp) fclose(fp);
    return -1;
  }
  int r = -1;
  if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > caps->max_input) {
    fprintf(stderr, "sluice capture: %s: the file is over %zu bytes (--max-input)\n", f,
            caps->max_input);
  } else {
    import_ctx ic = {f, out, unique_base(f, used), caps};
    r = fn(&ic, fp, (uint64_t)st.st_size);
  }
  fclose(fp);
  return r;
}

int cmd_capture(int argc, char **argv) {
  /* one subcommand, import: "sluice capture --help" is its help */
  int help = argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
  if (argc < 2 || (!help && strcmp(argv[1], "import") != 0)) {
    fprintf(stderr, "sluice capture: %s%s%s (see sluice capture --help)\n",
            argc < 2 ? "needs a subcommand: import" : "unknown subcommand \"",
            argc < 2 ? "" : argv[1], argc < 2 ? "" : "\"; the only one is import");
    return 2;
  }
  capture_args a = {NULL, {(size_t)32 << 20, (size_t)64 << 20}};
  strlist files = {0};
  void *bases[] = {&a};
  int rc = help ? opt_parse(&capture_cmd, bases, argc, argv, &files)
                : opt_parse(&capture_cmd, bases, argc - 1, argv + 1, &files);
  if (rc < 0 && !a.out) rc = opt_error(&capture_cmd, NULL, "needs --out DIR (see --help)");
  if (rc < 0 && mkdir(a.out, 0777) && errno != EEXIST) {
    fprintf(stderr, "sluice capture: cannot create %s: %s\n", a.out, strerror(errno));
    rc = 2;
  }
  if (rc >= 0) {
    strlist_free(&files);
    return rc;
  }
  rc = 0;
  strlist used = {0};
  for (size_t i = 0; i < files.n; i++)
    if (import_file(files.v[i], a.out, &a.caps, &used)) rc = 1;
  for (size_t i = 0; i < used.n; i++) free((void *)used.v[i]);
  strlist_free(&used);
  strlist_free(&files);
  if (fflush_checked("capture", stdout)) rc = 1;
  return rc;
}
