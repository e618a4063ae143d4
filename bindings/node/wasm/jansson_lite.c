/*
 * jansson_lite.c: the reading half of jansson's API that the kit uses,
 * for the WebAssembly build (jansson.h says why). Values are built from the
 * library's own validating reader, jread.
 */
#include "jansson.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../lib/src/provider/jread.h"

/* Options nest a few levels; the cap keeps the builder's recursion (and the
 * module's stack) small. jread caps what it skips at JR_MAX_DEPTH. */
#define MAX_DEPTH 64

struct json_t {
  json_type type;
  size_t refs;
  union {
    struct {
      char *p; /* NUL-terminated, may hold NULs before len */
      size_t len;
    } str;
    json_int_t integer;
    double real;
    struct {
      json_t **items;
      char **keys; /* objects */
      size_t n, cap;
    } c;
  } u;
};

void json_get_alloc_funcs(json_malloc_t *m, json_free_t *f) {
  *m = malloc;
  *f = free;
}

static json_t *make(json_type t) {
  json_t *v = calloc(1, sizeof *v);
  if (v) {
    v->type = t;
    v->refs = 1;
  }
  return v;
}

json_type json_typeof(const json_t *v) { return v->type; }

json_t *json_incref(json_t *v) {
  if (v) v->refs++;
  return v;
}

void json_decref(json_t *v) {
  if (!v || --v->refs) return;
  if (v->type == JSON_STRING) free(v->u.str.p);
  if (v->type == JSON_OBJECT || v->type == JSON_ARRAY) {
    for (size_t i = 0; i < v->u.c.n; i++) {
      json_decref(v->u.c.items[i]);
      if (v->u.c.keys) free(v->u.c.keys[i]);
    }
    free(v->u.c.items);
    free(v->u.c.keys);
  }
  free(v);
}

json_t *json_object(void) { return make(JSON_OBJECT); }

static int find(const json_t *o, const char *key, size_t *at) {
  for (size_t i = 0; i < o->u.c.n; i++)
    if (strcmp(o->u.c.keys[i], key) == 0) {
      *at = i;
      return 1;
    }
  return 0;
}

/* Appends value (its reference taken) under key to an object, or to an
 * array when key is NULL; a repeated key replaces the earlier value in its
 * place. 0, or -1 when memory ran out (value released). */
static int add(json_t *c, const char *key, size_t klen, json_t *value) {
  size_t at;
  if (key && find(c, key, &at)) {
    json_decref(c->u.c.items[at]);
    c->u.c.items[at] = value;
    return 0;
  }
  if (c->u.c.n == c->u.c.cap) {
    size_t cap = c->u.c.cap ? c->u.c.cap * 2 : 4;
    json_t **items = realloc(c->u.c.items, cap * sizeof *items);
    if (items) c->u.c.items = items;
    char **keys = key ? realloc(c->u.c.keys, cap * sizeof *keys) : NULL;
    if (keys) c->u.c.keys = keys;
    if (!items || (key && !keys)) goto oom;
    c->u.c.cap = cap;
  }
  if (key) {
    char *k = malloc(klen + 1);
    if (!k) goto oom;
    memcpy(k, key, klen + 1);
    c->u.c.keys[c->u.c.n] = k;
  }
  c->u.c.items[c->u.c.n++] = value;
  return 0;
oom:
  json_decref(value);
  return -1;
}

json_t *json_object_get(const json_t *o, const char *key) {
  size_t at;
  return json_is_object(o) && find(o, key, &at) ? o->u.c.items[at] : NULL;
}

size_t json_object_size(const json_t *o) { return json_is_object(o) ? o->u.c.n : 0; }
const char *json_object_key_at(const json_t *o, size_t i) { return o->u.c.keys[i]; }
json_t *json_object_value_at(const json_t *o, size_t i) { return o->u.c.items[i]; }
size_t json_array_size(const json_t *a) { return json_is_array(a) ? a->u.c.n : 0; }

json_t *json_array_get(const json_t *a, size_t i) {
  return json_is_array(a) && i < a->u.c.n ? a->u.c.items[i] : NULL;
}

const char *json_string_value(const json_t *s) { return json_is_string(s) ? s->u.str.p : NULL; }
size_t json_string_length(const json_t *s) { return json_is_string(s) ? s->u.str.len : 0; }
json_int_t json_integer_value(const json_t *i) { return json_is_integer(i) ? i->u.integer : 0; }

json_t *json_pack(const char *fmt, ...) {
  if (strcmp(fmt, "{sO}") != 0) return NULL; /* the one form the kit packs */
  va_list ap;
  va_start(ap, fmt);
  const char *key = va_arg(ap, const char *);
  json_t *value = va_arg(ap, json_t *);
  va_end(ap);
  json_t *o = json_object();
  if (!o || add(o, key, strlen(key), json_incref(value))) {
    json_decref(o);
    return NULL;
  }
  return o;
}

/* ---- reading ---- */

typedef struct reader {
  jr r;
  json_error_t *err;
  int oom;
} reader;

static json_t *oom(reader *rd) {
  rd->oom = 1;
  return NULL;
}

static char *decoded(reader *rd, const jr_str *s, size_t *len) {
  char *p = malloc(s->n + 1);
  if (!p) return oom(rd), NULL;
  *len = jr_decode(s, p);
  p[*len] = '\0';
  return p;
}

/* A number's text: an integer when it has no fraction or exponent (one
 * that does not fit is an error, as jansson's "too big integer"). */
static json_t *number(reader *rd, const char *p, size_t n) {
  char text[64];
  if (n >= sizeof text) n = sizeof text - 1; /* a longer number: digits enough to tell */
  memcpy(text, p, n);
  text[n] = '\0';
  int integer = strpbrk(text, ".eE") == NULL;
  json_t *v = make(integer ? JSON_INTEGER : JSON_REAL);
  if (!v) return oom(rd);
  errno = 0;
  if (integer) v->u.integer = strtoll(text, NULL, 10);
  else v->u.real = strtod(text, NULL);
  if (integer && errno == ERANGE) {
    json_decref(v);
    rd->r.why = "too big integer";
    rd->r.at = (size_t)(p - rd->r.start);
    return NULL;
  }
  return v;
}

static json_t *value(reader *rd, int depth) {
  int t = jr_peek(&rd->r);
  if (t == JR_ERROR) return NULL;
  if (depth > MAX_DEPTH) {
    rd->r.why = "nesting too deep";
    rd->r.at = (size_t)(rd->r.p - rd->r.start);
    return NULL;
  }
  if (t == JR_OBJECT || t == JR_ARRAY) {
    json_t *c = make(t == JR_OBJECT ? JSON_OBJECT : JSON_ARRAY);
    if (!c) return oom(rd);
    size_t count = 0;
    jr_str key;
    if (t == JR_OBJECT ? !jr_enter_object(&rd->r) : !jr_enter_array(&rd->r)) goto fail;
    while (t == JR_OBJECT ? jr_member(&rd->r, &count, &key) : jr_element(&rd->r, &count)) {
      size_t klen = 0;
      char *k = t == JR_OBJECT ? decoded(rd, &key, &klen) : NULL;
      json_t *item = (t == JR_ARRAY || k) ? value(rd, depth + 1) : NULL;
      int bad = !item || add(c, k, klen, item);
      free(k);
      if (bad) {
        if (item) rd->oom = 1;
        goto fail;
      }
    }
    if (rd->r.why || rd->oom) goto fail;
    return c;
  fail:
    json_decref(c);
    return NULL;
  }
  if (t == JR_STRING) {
    jr_str s;
    if (!jr_string(&rd->r, &s)) return NULL;
    json_t *v = make(JSON_STRING);
    if (!v) return oom(rd);
    if (!(v->u.str.p = decoded(rd, &s, &v->u.str.len))) {
      free(v);
      return NULL;
    }
    return v;
  }
  const char *p;
  size_t n;
  if (!jr_raw(&rd->r, &p, &n)) return NULL;
  if (t == JR_NUMBER) return number(rd, p, n);
  json_t *v = make(t == JR_TRUE ? JSON_TRUE : t == JR_FALSE ? JSON_FALSE : JSON_NULL);
  return v ? v : oom(rd);
}

json_t *json_loadb(const char *buf, size_t len, size_t flags, json_error_t *err) {
  (void)flags; /* NUL in strings is always allowed; the kit checks for it */
  reader rd = {.err = err};
  jr_init(&rd.r, buf, len);
  json_t *v = value(&rd, 0);
  if (v && !jr_end(&rd.r)) {
    json_decref(v);
    v = NULL;
  }
  if (!v && err) {
    memset(err, 0, sizeof *err);
    err->code = rd.oom ? json_error_out_of_memory : json_error_invalid_syntax;
    err->position = (int)rd.r.at;
    if (rd.oom) snprintf(err->text, sizeof err->text, "out of memory");
    else snprintf(err->text, sizeof err->text, "%s", rd.r.why ? rd.r.why : "invalid JSON");
  }
  return v;
}
