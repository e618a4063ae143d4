/* fuzz_json_util.h: running the json filter once and loading its text, for
 * the two json targets. */
#ifndef SLUICE_FUZZ_JSON_UTIL_H
#define SLUICE_FUZZ_JSON_UTIL_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

typedef struct json_run {
  sluice_status st;
  char *value; /* the VALUE event's text */
  size_t value_len;
  size_t repairs;
  char **snaps; /* snapshots, in order */
  size_t nsnaps;
} json_run;

static int jr_event(void *user, const sluice_event *ev) {
  json_run *r = user;
  if (ev->type == SLUICE_EV_REPAIR) r->repairs++;
  char *copy = malloc(ev->data_len + 1);
  if (!copy) abort();
  if (ev->data_len) memcpy(copy, ev->data, ev->data_len); /* data may be NULL */
  copy[ev->data_len] = '\0';
  if (ev->type == SLUICE_EV_VALUE) {
    free(r->value);
    r->value = copy;
    r->value_len = ev->data_len;
  } else if (ev->type == SLUICE_EV_SNAPSHOT) {
    r->snaps = realloc(r->snaps, (r->nsnaps + 1) * sizeof *r->snaps);
    if (!r->snaps) abort();
    r->snaps[r->nsnaps++] = copy;
  } else {
    free(copy);
  }
  return 0;
}

/* Feeds p[0..n) cut by the seed (0: whole). */
static void json_run_once(const char *options, size_t olen, const char *p, size_t n,
                          uint32_t seed, json_run *r) {
  memset(r, 0, sizeof *r);
  sluice_sink sink = {NULL, jr_event, r};
  sluice_filter *f;
  r->st = sluice_filter_new_json(&f, "json", options, olen, &sink, NULL, NULL);
  if (r->st != SLUICE_OK) return;
  size_t off = 0;
  uint32_t s = seed | 1;
  while (r->st == SLUICE_OK && off < n) {
    size_t k = n - off;
    if (seed) {
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      k = s % 16 < k ? s % 16 : k;
    }
    r->st = sluice_feed(f, p + off, k);
    off += k;
  }
  if (r->st == SLUICE_OK) r->st = sluice_finish(f);
  sluice_free(f);
}

static void json_run_free(json_run *r) {
  free(r->value);
  for (size_t i = 0; i < r->nsnaps; i++) free(r->snaps[i]);
  free(r->snaps);
}

/* Does the options object lift the depth limit above jansson's (0 or more
 * than 2048)? Then a result may be JSON that jansson is too shallow for. */
static int depth_unlimited(const char *options, size_t olen) {
  json_t *o = json_loadb(options, olen, JSON_ALLOW_NUL, NULL);
  json_t *d = json_object_get(o, "max_depth");
  int r = json_is_integer(d) && (json_integer_value(d) == 0 || json_integer_value(d) > 2048);
  json_decref(o);
  return r;
}

/* Is the text JSON? jansson refuses integers past int64 and reals past
 * double, which the repair keeps exact; those count as JSON too, and so do a
 * \u0000 in an object key and nesting past jansson's 2048 levels when the
 * options allow it. */
static int deep_ok;
static int is_json(const char *p, size_t n) {
  json_error_t e;
  const size_t flags = JSON_DECODE_ANY | JSON_ALLOW_NUL;
  json_t *v = json_loadb(p, n, flags, &e);
  if (!v) v = json_loadb(p, n, flags | JSON_DECODE_INT_AS_REAL, &e);
  if (v) {
    json_decref(v);
    return 1;
  }
  /* jansson also refuses \u0000 in an object key, even with JSON_ALLOW_NUL */
  return strstr(e.text, "overflow") != NULL || strstr(e.text, "too big") != NULL ||
         strstr(e.text, "NUL byte in object key") != NULL ||
         (deep_ok && strstr(e.text, "depth") != NULL);
}

#endif
