/*
 * fuzz_common.c: the split-invariance and conservation checks shared by the
 * fuzz targets, with the options decoded once per distinct text and the
 * filters reset rather than rebuilt (fuzz_common.h).
 */
#include "fuzz_common.h"

#include "outcmp.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fuzz_every_chunking;
int fuzz_track_held;

void fuzz_fail(const char *what, const char *detail) {
  fprintf(stderr, "sluice fuzz: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  abort();
}

int fuzz_parse(const uint8_t *data, size_t size, fuzz_input *in) {
  if (size < 6) return 0;
  size_t l = (size_t)data[0] | ((size_t)data[1] << 8);
  if (l >= sizeof in->options || 2 + l + 4 > size) return 0;
  memcpy(in->options, data + 2, l);
  in->options[l] = '\0';
  in->options_len = l;
  uint32_t seed;
  memcpy(&seed, data + 2 + l, 4); /* memcpy: the input may be unaligned */
  in->seed = seed;
  in->content = (const char *)data + 2 + l + 4;
  in->content_len = size - (2 + l + 4);
  return 1;
}

/* Sets options[key] to a JSON value; 0 if the options are not a JSON
 * object (or grow too long). */
static int force_json(fuzz_input *in, const char *key, json_t *value) {
  json_t *o = json_loadb(in->options, in->options_len, JSON_ALLOW_NUL, NULL);
  if (!o) o = in->options_len == 0 ? json_object() : NULL;
  if (!json_is_object(o)) {
    json_decref(o);
    return 0;
  }
  json_object_set(o, key, value);
  char *s = json_dumps(o, JSON_COMPACT);
  json_decref(o);
  if (!s || strlen(s) >= sizeof in->options) {
    free(s);
    return 0;
  }
  in->options_len = strlen(s);
  memcpy(in->options, s, in->options_len + 1);
  free(s);
  return 1;
}

/* ---------------- options, decoded once per distinct text ---------------- */

/* The sink of a kept filter: what it emits goes to the collector of the run
 * in progress. */
static sluice_sink route;

static int route_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)user;
  return route.emit(route.user, ch, p, n);
}

static int route_event(void *user, const sluice_event *ev) {
  (void)user;
  return route.event(route.user, ev);
}

struct fuzz_opts {
  char filter[16];
  char key[16], value[32]; /* the forced key, or "" */
  char *text;              /* the input's options text, as it came */
  size_t len;
  int unusable;            /* the key could not be set */
  sluice_status st;        /* decoding, then construction */
  sluice_options *o;
  sluice_filter *kept;     /* a filter of these options that sluice_reset serves */
};

#define NOPTS 64
static fuzz_opts cache[NOPTS];
static size_t cache_next;

static void opts_clear(fuzz_opts *e) {
  free(e->text);
  sluice_options_free(e->o);
  sluice_free(e->kept);
  memset(e, 0, sizeof *e);
}

static int same_entry(const fuzz_opts *e, const char *filter, const fuzz_input *in,
                      const char *key, const char *value) {
  return e->text && e->len == in->options_len && strcmp(e->filter, filter) == 0 &&
         strcmp(e->key, key ? key : "") == 0 && strcmp(e->value, value ? value : "") == 0 &&
         memcmp(e->text, in->options, in->options_len) == 0;
}

fuzz_opts *fuzz_options(const char *filter, const fuzz_input *in, const char *key,
                        const char *value) {
  for (size_t i = 0; i < NOPTS; i++)
    if (same_entry(&cache[i], filter, in, key, value))
      return cache[i].unusable ? NULL : &cache[i];
  fuzz_opts *e = &cache[cache_next];
  cache_next = (cache_next + 1) % NOPTS;
  opts_clear(e);
  if (strlen(filter) >= sizeof e->filter || (key && strlen(key) >= sizeof e->key) ||
      (value && strlen(value) >= sizeof e->value))
    abort();
  strcpy(e->filter, filter);
  strcpy(e->key, key ? key : "");
  strcpy(e->value, value ? value : "");
  e->text = malloc(in->options_len + 1);
  if (!e->text) abort();
  memcpy(e->text, in->options, in->options_len + 1);
  e->len = in->options_len;
  const char *text = in->options;
  size_t len = in->options_len;
  static fuzz_input forced;
  if (key) {
    forced = *in;
    json_t *v = json_loads(value, JSON_DECODE_ANY, NULL);
    if (!v) abort();
    e->unusable = !force_json(&forced, key, v);
    json_decref(v);
    if (e->unusable) return NULL;
    text = forced.options;
    len = forced.options_len;
  }
  e->st = sluice_options_from_json(&e->o, filter, text, len, NULL);
  return e;
}

sluice_status fuzz_opts_status(const fuzz_opts *o) { return o->st; }

const void *fuzz_opts_struct(const fuzz_opts *o) {
  return o->st == SLUICE_OK ? sluice_options_get(o->o) : NULL;
}

sluice_status fuzz_filter_new(const fuzz_opts *o, const sluice_sink *sink, sluice_filter **f) {
  *f = NULL;
  if (o->st != SLUICE_OK) return o->st;
  return sluice_filter_new(f, sluice_options_kind(o->o), sluice_options_get(o->o), sink, NULL,
                           NULL);
}

/* The filter for a run into `out`: the kept one, reset, or a new one (kept
 * when it can be reset). fresh: always a new one, not kept. */
static sluice_status filter_for(fuzz_opts *e, sluice_output *out, int fresh, sluice_filter **f) {
  *f = NULL;
  route = sluice_output_sink(out);
  if (e->kept && !fresh) {
    if (sluice_reset(e->kept) != SLUICE_OK) abort(); /* it could be reset before */
    *f = e->kept;
    return SLUICE_OK;
  }
  sluice_sink sink = {route_emit, route_event, NULL};
  sluice_status st = fuzz_filter_new(e, &sink, f);
  if (st != SLUICE_OK) {
    if (e->st == SLUICE_OK) e->st = st; /* the constructor refused the options */
    return st;
  }
  /* a new filter is at the state reset gives; INVALID: it cannot be reset */
  if (!fresh && sluice_reset(*f) == SLUICE_OK) e->kept = *f;
  return SLUICE_OK;
}

static int drop_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)user, (void)ch, (void)p, (void)n;
  return 0;
}

static int drop_event(void *user, const sluice_event *ev) {
  (void)user, (void)ev;
  return 0;
}

sluice_filter *fuzz_filter_reset(fuzz_opts *e, const sluice_sink *sink) {
  if (!e || !e->kept) return NULL;
  route = *sink;
  if (!route.emit) route.emit = drop_emit;
  if (!route.event) route.event = drop_event;
  if (sluice_reset(e->kept) != SLUICE_OK) abort(); /* it could be reset before */
  return e->kept;
}

/* ---------------- the runs ---------------- */

typedef struct run {
  sluice_output *out;
  sluice_status st;
  uint64_t err_offset;
  uint64_t max_held;
} run;

/* Feeds the content cut as `lens` says (NULL: whole, in one call; a zero
 * length is an empty chunk). */
static void run_filter(fuzz_opts *e, const fuzz_input *in, const size_t *lens, size_t nlens,
                       int fresh, run *r) {
  sluice_output_reset(r->out);
  r->max_held = 0;
  r->err_offset = 0;
  sluice_filter *f;
  r->st = filter_for(e, r->out, fresh, &f);
  if (r->st != SLUICE_OK) return;
  if (!lens) {
    r->st = sluice_once(f, in->content, in->content_len);
  } else {
    size_t off = 0;
    for (size_t i = 0; i < nlens && r->st == SLUICE_OK; i++) {
      r->st = sluice_feed(f, in->content + off, lens[i]);
      off += lens[i];
      if (!fuzz_track_held) continue;
      uint64_t h = sluice_held(f);
      if (h > r->max_held) r->max_held = h;
    }
    if (r->st == SLUICE_OK) r->st = sluice_finish(f);
  }
  r->err_offset = sluice_get_error(f)->offset;
  if (f != e->kept) sluice_free(f);
}

/* 0 when the runs agree, else the difference in msg. */
static int differ(const run *a, const run *b, const char *how, char *msg, size_t cap) {
  char why[200];
  if (a->st != b->st) {
    snprintf(msg, cap, "%s: status %s, whole %s", how, sluice_status_name(b->st),
             sluice_status_name(a->st));
    return 1;
  }
  if (a->st != SLUICE_OK) {
    if (a->err_offset == b->err_offset) return 0; /* output before an error is not compared */
    snprintf(msg, cap, "%s: error offset %llu, whole %llu", how,
             (unsigned long long)b->err_offset, (unsigned long long)a->err_offset);
    return 1;
  }
  /* Snapshots are one per chunk by nature; everything else must agree. */
  if (!output_compare(a->out, b->out, 0, why, sizeof why)) return 0;
  snprintf(msg, cap, "%s: %s", how, why);
  return 1;
}

/* ---------------- chunkings ---------------- */

enum { CUT_SMALL, CUT_BYTES, CUT_ONE, CUT_LARGE, CUT_MODES };
static const char *const cut_names[CUT_MODES] = {"cuts of 0 to 15 bytes", "a byte at a time",
                                                 "one cut", "cuts of 0 to 255 bytes"};

/* Lengths of 0 to max - 1 bytes from the seed (xorshift32), then the rest:
 * at most 2 n + 2 of them. */
static size_t random_cuts(uint32_t seed, size_t n, size_t max, size_t *lens) {
  size_t cap = 2 * n + 2, m = 0, off = 0;
  uint32_t s = seed | 1;
  while (off < n && m + 1 < cap) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    size_t k = s % max;
    if (k > n - off) k = n - off;
    lens[m++] = k;
    off += k;
  }
  if (off < n) lens[m++] = n - off;
  return m;
}

/* The chunking of the given mode for the seed, in lens (room for 2 n + 3). */
static size_t chunking(int mode, uint32_t seed, size_t n, size_t *lens) {
  switch (mode) {
  case CUT_BYTES:
    if (n > 4096) break; /* a feed call per byte: long inputs take cuts */
    for (size_t i = 0; i < n; i++) lens[i] = 1;
    return n;
  case CUT_ONE: {
    size_t at = (seed & 0x3FFFFFFFu) % (n + 1);
    lens[0] = at, lens[1] = 0, lens[2] = n - at; /* an empty chunk at the cut */
    return 3;
  }
  case CUT_LARGE: return random_cuts(seed, n, 256, lens);
  }
  return random_cuts(seed, n, 16, lens);
}

static run runs[2];
static uint64_t last_max_held;

sluice_status fuzz_check(fuzz_opts *e, const fuzz_input *in, int routing) {
  last_max_held = 0;
  if (!e) return SLUICE_BAD_OPTION;
  for (int k = 0; k < 2; k++)
    if (!runs[k].out && sluice_output_new(&runs[k].out, NULL) != SLUICE_OK) abort();
  run_filter(e, in, NULL, 0, 0, &runs[0]);
  if (runs[0].st == SLUICE_BAD_OPTION || runs[0].st == SLUICE_UNSUPPORTED) return runs[0].st;
  if (routing && runs[0].st == SLUICE_OK) {
    size_t total = 0;
    for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
      size_t n;
      sluice_output_channel(runs[0].out, (sluice_channel)c, &n);
      total += n;
    }
    if (total != in->content_len) fuzz_fail("conservation broken", e->filter);
  }
  static size_t *lens, cap;
  size_t n = in->content_len;
  if (2 * n + 3 > cap) {
    free(lens);
    cap = 2 * n + 3 > 4096 ? 2 * n + 3 : 4096;
    lens = malloc(cap * sizeof *lens);
    if (!lens) abort();
  }
  int first = fuzz_every_chunking ? 0 : (int)(in->seed >> 30);
  int last = fuzz_every_chunking ? CUT_MODES - 1 : first;
  for (int mode = first; mode <= last; mode++) {
    size_t m = chunking(mode, in->seed, n, lens);
    run_filter(e, in, lens, m, 0, &runs[1]);
    if (runs[1].max_held > last_max_held) last_max_held = runs[1].max_held;
    char msg[300];
    if (!differ(&runs[0], &runs[1], cut_names[mode], msg, sizeof msg)) continue;
    if (e->kept) {
      /* again with new filters: a difference only the reset filter shows
       * is sluice_reset's (and this input alone will not reproduce it) */
      char again[300];
      run_filter(e, in, NULL, 0, 1, &runs[0]);
      run_filter(e, in, lens, m, 1, &runs[1]);
      if (!differ(&runs[0], &runs[1], cut_names[mode], again, sizeof again))
        fuzz_fail("sluice_reset left state behind (a new filter agrees)", msg);
    }
    fuzz_fail("split invariance broken", msg);
  }
  return runs[0].st;
}

sluice_status fuzz_check_filter(const char *filter, const fuzz_input *in, int routing) {
  return fuzz_check(fuzz_options(filter, in, NULL, NULL), in, routing);
}

uint64_t fuzz_max_held(void) { return last_max_held; }

const sluice_output *fuzz_whole_output(void) { return runs[0].out; }
