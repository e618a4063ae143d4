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
#include <yaml.h>

#include "common/gz.h"
#include "common/wire.h"

/* ---------------- what every importer produces ---------------- */

typedef struct exchange_in {
  const char *method;
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
  return http_scrub_path(p ? p : "/");
}

static int collect_decoded(void *user, const char *p, size_t n) {
  tbuf_xadd(user, p, n);
  return 0;
}

/* Decodes a gzip (or deflate) body in place, within the body cap and gz's
 * ratio cap; -1 with the reason in why. */
static int gunzip(tbytes *b, char *why, size_t wl) {
  gz *z = gz_new(CAPSRC_MAX_BODY);
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

/* Writes one exchange as a capture: the body decoded, one piece, no times.
 * Returns 0, or -1 after a message. */
static int write_exchange(exchange_in *x, const char *out_dir, const char *base, size_t n,
                          const char *file) {
  const char *slash = strrchr(file, '/'), *from = slash ? slash + 1 : file;
  const char *key;
  json_t *v, *tmp;
  json_object_foreach_safe(x->resp_headers, tmp, key, v) {
    if (strcasecmp(key, "content-encoding") == 0 && json_is_string(v) &&
        (strstr(json_string_value(v), "gzip") || strstr(json_string_value(v), "deflate"))) {
      char why[160];
      if (gunzip(&x->resp_body, why, sizeof why)) {
        fprintf(stderr, "sluice capture: %s: entry %zu: %s\n", file, n, why);
        return -1;
      }
      json_object_del(x->resp_headers, key); /* stored decoded */
    } else if (strcasecmp(key, "content-length") == 0 || strcasecmp(key, "transfer-encoding") == 0) {
      json_object_del(x->resp_headers, key);
    } else if (http_secret_header(key)) {
      json_object_set_new(x->resp_headers, key, json_string("[redacted]"));
    }
  }
  json_object_foreach(x->req_headers, key, v)
    if (http_secret_header(key)) json_object_set_new(x->req_headers, key, json_string("[redacted]"));
  json_t *req = json_pack("{s:s,s:s,s:O}", "method", x->method, "path", x->path, "headers",
                          x->req_headers);
  json_t *body = x->req_body.n ? json_loadb(x->req_body.p, x->req_body.n, 0, NULL) : NULL;
  if (body) json_object_set_new(req, "body", body);
  else if (x->req_body.n) {
    char *text = xstrndup(x->req_body.p, x->req_body.n);
    json_object_set_new(req, "body_text", json_text(text));
    free(text);
  }
  json_t *h = json_pack("{s:o,s:{s:i,s:O},s:s,s:b,s:s}", "request", req, "response", "status",
                        x->status, "headers", x->resp_headers, "endpoint",
                        sluice_endpoint_name(sluice_endpoint_of_path(x->path, strlen(x->path))),
                        "timed", 0,
                        "imported_from", from);
  if (!h) die("out of memory");
  tbuf path = {0};
  tbuf_xprintf(&path, "%s/%s-%zu.capture.jsonl", out_dir, base, n);
  capture_writer w;
  int rc = capw_open(&w, path.p, h);
  if (!rc) rc = capw_piece(&w, 0, x->resp_body.p ? x->resp_body.p : "", x->resp_body.n);
  if (capw_close(&w, 0, "complete")) rc = -1;
  if (rc) fprintf(stderr, "sluice capture: cannot write %s: %s\n", path.p, strerror(errno));
  else printf("%s\n", path.p);
  json_decref(h);
  tbuf_free(&path);
  return rc;
}

static void exchange_free(exchange_in *x) {
  free(x->path);
  json_decref(x->req_headers);
  json_decref(x->resp_headers);
  free(x->req_body.p);
  free(x->resp_body.p);
}

/* ---------------- VCR cassettes ---------------- */

typedef struct ydoc {
  yaml_document_t d;
  const char *file;
} ydoc;

static yaml_node_t *ynode(ydoc *y, int id) { return yaml_document_get_node(&y->d, id); }

/* A mapping's value for key, or NULL. */
static yaml_node_t *yget(ydoc *y, yaml_node_t *map, const char *key) {
  if (!map || map->type != YAML_MAPPING_NODE) return NULL;
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = ynode(y, p->key);
    if (k && k->type == YAML_SCALAR_NODE && strlen(key) == k->data.scalar.length &&
        memcmp(k->data.scalar.value, key, k->data.scalar.length) == 0)
      return ynode(y, p->value);
  }
  return NULL;
}

static int yscalar(yaml_node_t *n, const char **s, size_t *len) {
  if (!n || n->type != YAML_SCALAR_NODE) return 0;
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
  if (!yscalar(s, &v, &len)) return 0;
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
    if (!yscalar(ynode(y, p->key), &k, &kl)) continue;
    yaml_node_t *val = ynode(y, p->value);
    if (val && val->type == YAML_SEQUENCE_NODE && val->data.sequence.items.top > val->data.sequence.items.start)
      val = ynode(y, val->data.sequence.items.top[-1]);
    if (!yscalar(val, &v, &vl)) continue;
    char *key = xstrndup(k, kl), *value = xstrndup(v, vl);
    json_object_set_new(o, key, json_text(value));
    free(key);
    free(value);
  }
  return o;
}

static int import_cassette(const char *file, const char *out_dir, const char *base) {
  FILE *fp = fopen(file, "rb");
  if (!fp) {
    fprintf(stderr, "sluice capture: %s: %s\n", file, strerror(errno));
    return -1;
  }
  yaml_parser_t parser;
  ydoc y;
  y.file = file;
  if (!yaml_parser_initialize(&parser)) die("out of memory");
  yaml_parser_set_input_file(&parser, fp);
  int rc = 0;
  if (!yaml_parser_load(&parser, &y.d)) {
    fprintf(stderr, "sluice capture: %s:%zu:%zu: %s\n", file, parser.problem_mark.line + 1,
            parser.problem_mark.column + 1, parser.problem ? parser.problem : "not YAML");
    yaml_parser_delete(&parser);
    fclose(fp);
    return -1;
  }
  yaml_node_t *root = yaml_document_get_root_node(&y.d);
  yaml_node_t *list = yget(&y, root, "interactions");
  if (!list || list->type != YAML_SEQUENCE_NODE) {
    fprintf(stderr, "sluice capture: %s: not a VCR cassette (no \"interactions\" list)\n", file);
    rc = -1;
  }
  size_t n = 0, written = 0;
  for (yaml_node_item_t *it = list && !rc ? list->data.sequence.items.start : NULL;
       it && it < list->data.sequence.items.top && !rc; it++) {
    n++;
    yaml_node_t *inter = ynode(&y, *it);
    yaml_node_t *req = yget(&y, inter, "request"), *resp = yget(&y, inter, "response");
    exchange_in x;
    memset(&x, 0, sizeof x);
    const char *uri, *method, *code;
    size_t ul, ml, cl;
    if (!yscalar(yget(&y, req, "uri"), &uri, &ul) || !yscalar(yget(&y, req, "method"), &method, &ml) ||
        !yscalar(yget(&y, yget(&y, resp, "status"), "code"), &code, &cl)) {
      fprintf(stderr, "sluice capture: %s: interaction %zu: needs request.uri, request.method "
                      "and response.status.code\n", file, n);
      rc = -1;
      break;
    }
    char *u = xstrndup(uri, ul), *m = xstrndup(method, ml), *c = xstrndup(code, cl);
    x.path = url_path(u);
    x.method = m;
    x.status = atoi(c);
    x.req_headers = yheaders(&y, yget(&y, req, "headers"));
    x.resp_headers = yheaders(&y, yget(&y, resp, "headers"));
    if (ybody(&y, yget(&y, req, "body"), &x.req_body) ||
        ybody(&y, yget(&y, resp, "body"), &x.resp_body)) {
      fprintf(stderr, "sluice capture: %s: interaction %zu: a !!binary body is not base64\n", file, n);
      rc = -1;
    } else if (streams(x.resp_headers)) {
      rc = write_exchange(&x, out_dir, base, n, file);
      written++;
    }
    exchange_free(&x);
    free(u);
    free(m);
    free(c);
  }
  if (!rc && !written)
    fprintf(stderr, "sluice capture: %s: no interaction streams (text/event-stream or ndjson)\n", file);
  yaml_document_delete(&y.d);
  yaml_parser_delete(&parser);
  fclose(fp);
  return rc;
}

/* ---------------- HAR ---------------- */

static json_t *har_headers(json_t *list) {
  json_t *o = json_object();
  size_t i;
  json_t *h;
  json_array_foreach(list, i, h) {
    json_t *name = json_object_get(h, "name"), *value = json_object_get(h, "value");
    if (json_is_string(name) && json_is_string(value))
      json_object_set(o, json_string_value(name), value);
  }
  return o;
}

static int import_har(const char *file, const char *out_dir, const char *base) {
  json_error_t jerr;
  json_t *har = json_load_file(file, 0, &jerr);
  if (!har) {
    fprintf(stderr, "sluice capture: %s:%d:%d: %s\n", file, jerr.line, jerr.column, jerr.text);
    return -1;
  }
  json_t *entries = json_object_get(json_object_get(har, "log"), "entries");
  int rc = 0;
  size_t written = 0;
  if (!json_is_array(entries)) {
    fprintf(stderr, "sluice capture: %s: not a HAR file (no log.entries)\n", file);
    rc = -1;
  }
  size_t i;
  json_t *e;
  json_array_foreach(entries, i, e) {
    if (rc) break;
    json_t *req = json_object_get(e, "request"), *resp = json_object_get(e, "response");
    json_t *url = json_object_get(req, "url"), *method = json_object_get(req, "method");
    json_t *content = json_object_get(resp, "content");
    json_t *text = json_object_get(content, "text");
    if (!json_is_string(url) || !json_is_string(method) || !json_is_integer(json_object_get(resp, "status"))) {
      fprintf(stderr, "sluice capture: %s: entry %zu: needs request.url, request.method and "
                      "response.status\n", file, i + 1);
      rc = -1;
      break;
    }
    exchange_in x;
    memset(&x, 0, sizeof x);
    x.path = url_path(json_string_value(url));
    x.method = json_string_value(method);
    x.status = (int)json_integer_value(json_object_get(resp, "status"));
    x.req_headers = har_headers(json_object_get(req, "headers"));
    x.resp_headers = har_headers(json_object_get(resp, "headers"));
    json_t *mime = json_object_get(content, "mimeType");
    if (json_is_string(mime) && !json_object_get(x.resp_headers, "content-type") &&
        !json_object_get(x.resp_headers, "Content-Type"))
      json_object_set(x.resp_headers, "Content-Type", mime);
    /* Browsers store the body decoded already: no content coding applies. */
    json_object_del(x.resp_headers, "content-encoding");
    json_object_del(x.resp_headers, "Content-Encoding");
    json_t *post = json_object_get(json_object_get(req, "postData"), "text");
    if (json_is_string(post)) {
      x.req_body.n = json_string_length(post);
      x.req_body.p = xstrndup(json_string_value(post), x.req_body.n);
    }
    if (json_is_string(text)) {
      json_t *enc = json_object_get(content, "encoding");
      if (json_is_string(enc) && strcmp(json_string_value(enc), "base64") == 0) {
        if (b64_decode(json_string_value(text), json_string_length(text), &x.resp_body)) {
          fprintf(stderr, "sluice capture: %s: entry %zu: content.text is not base64\n", file, i + 1);
          rc = -1;
        }
      } else {
        x.resp_body.n = json_string_length(text);
        x.resp_body.p = xstrndup(json_string_value(text), x.resp_body.n);
      }
    }
    if (!rc && streams(x.resp_headers)) {
      rc = write_exchange(&x, out_dir, base, i + 1, file);
      written++;
    }
    x.method = NULL;
    exchange_free(&x);
  }
  if (!rc && !written)
    fprintf(stderr, "sluice capture: %s: no entry streams (text/event-stream or ndjson)\n", file);
  json_decref(har);
  return rc;
}

/* ---------------- AI SDK fixtures ---------------- */

static int import_chunks(const char *file, const char *out_dir, const char *base) {
  FILE *fp = fopen(file, "rb");
  if (!fp) {
    fprintf(stderr, "sluice capture: %s: %s\n", file, strerror(errno));
    return -1;
  }
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
      fprintf(stderr, "sluice capture: %s:%zu: byte %d: not a JSON object%s%s\n", file, lineno,
              j ? 0 : jerr.position, j ? "" : ": ", j ? "" : jerr.text);
      rc = -1;
    }
    json_decref(j);
    if (out.n) tbuf_xadds(&out, "\n"); /* the corpus format: no newline after the last */
    tbuf_xadd(&out, line, n);
  }
  if (!rc && ferror(fp)) {
    fprintf(stderr, "sluice capture: %s: %s\n", file, strerror(errno));
    rc = -1;
  }
  free(line);
  fclose(fp);
  if (!rc) {
    tbuf path = {0};
    tbuf_xprintf(&path, "%s/%s.chunks.jsonl", out_dir, base);
    FILE *o = fopen(path.p, "wb");
    if (!o || fwrite(out.p ? out.p : "", 1, out.n, o) != out.n || fclose(o) != 0) {
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
} capture_args;

static const opt capture_options[] = {
    {"out", 0, "DIR", OPT_STRING, OPT_AT(capture_args, out, const char *),
     .help = "where the captures are written (required; created if missing)"},
    {0}};

static const opt_cmd capture_cmd = {
    .name = "capture import",
    .synopsis = "FILE... --out DIR",
    .intro =
        "Turns recordings made with other tools into sluice captures:\n"
        "  *.yaml, *.yml   VCR cassettes (vcrpy, pytest-recording): one capture per\n"
        "                  interaction whose answer streams (text/event-stream or\n"
        "                  application/x-ndjson); gzip-encoded bodies are decoded\n"
        "  *.har           HAR files from browser devtools: one capture per entry that\n"
        "                  streams\n"
        "  *.chunks.txt    AI SDK fixtures (one provider chunk per line): checked line\n"
        "                  by line and written as .chunks.jsonl\n"
        "Captures are written as DIR/NAME-N.capture.jsonl (N: the interaction or entry,\n"
        "from 1), secrets scrubbed, without recorded times (`sluice serve` then paces\n"
        "them with --ttft and --gap). Each file written is printed.\n",
    .tables = {capture_options},
    .operands = "FILE...",
    .min_operands = 1,
};

/* One recording, by its name. 0, or -1 after a message. */
static int import_file(const char *f, const char *out) {
  const char *slash = strrchr(f, '/');
  char *base = xstrdup(slash ? slash + 1 : f);
  char *dot = strchr(base, '.');
  if (dot && dot != base) *dot = '\0';
  int r;
  if (ends_with(f, ".yaml") || ends_with(f, ".yml")) r = import_cassette(f, out, base);
  else if (ends_with(f, ".har")) r = import_har(f, out, base);
  else if (ends_with(f, ".chunks.txt")) r = import_chunks(f, out, base);
  else {
    fprintf(stderr, "sluice capture: %s: not a cassette (.yaml), a HAR file (.har) or AI SDK "
                    "chunks (.chunks.txt)\n", f);
    r = -1;
  }
  free(base);
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
  capture_args a = {NULL};
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
  for (size_t i = 0; i < files.n; i++)
    if (import_file(files.v[i], a.out)) rc = 1;
  strlist_free(&files);
  if (fflush_checked("capture", stdout)) rc = 1;
  return rc;
}
