/*
 * fuzz_common.c: the split-invariance and conservation checks shared by the
 * fuzz targets.
 */
#include "fuzz_common.h"

#include "outcmp.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int fuzz_force_key(fuzz_input *in, const char *key, const char *value) {
  json_t *v = json_string(value);
  int rc = fuzz_force_json(in, key, v);
  json_decref(v);
  return rc;
}

int fuzz_force_json(fuzz_input *in, const char *key, json_t *value) {
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

typedef struct run {
  sluice_output *out;
  sluice_status st;
  uint64_t err_offset;
  uint64_t max_held;
} run;

/* Feeds the content cut as `lens` says (NULL: whole; a zero length is an
 * empty chunk). */
static void run_filter(const char *filter, const fuzz_input *in, const size_t *lens, size_t nlens,
                       run *r) {
  sluice_output_reset(r->out);
  sluice_sink sink = sluice_output_sink(r->out);
  sluice_filter *f;
  r->max_held = 0;
  r->err_offset = 0;
  r->st = sluice_filter_new_json(&f, filter, in->options, in->options_len, &sink, NULL, NULL);
  if (r->st != SLUICE_OK) return;
  if (!lens) {
    r->st = sluice_once(f, in->content, in->content_len);
  } else {
    size_t off = 0;
    for (size_t i = 0; i < nlens && r->st == SLUICE_OK; i++) {
      r->st = sluice_feed(f, in->content + off, lens[i]);
      off += lens[i];
      uint64_t h = sluice_held(f);
      if (h > r->max_held) r->max_held = h;
    }
    if (r->st == SLUICE_OK) r->st = sluice_finish(f);
  }
  r->err_offset = sluice_get_error(f)->offset;
  sluice_free(f);
}

static void compare(const run *a, const run *b, const char *how) {
  char msg[300], why[200];
  if (a->st != b->st) {
    snprintf(msg, sizeof msg, "%s: status %s, whole %s", how, sluice_status_name(b->st),
             sluice_status_name(a->st));
    fuzz_fail("split invariance broken", msg);
  }
  if (a->st != SLUICE_OK) {
    if (a->err_offset != b->err_offset) fuzz_fail("split invariance broken: error offset", how);
    return; /* output before an error is not compared */
  }
  /* Snapshots are one per chunk by nature; everything else must agree. */
  if (output_compare(a->out, b->out, 0, why, sizeof why)) {
    snprintf(msg, sizeof msg, "%s: %s", how, why);
    fuzz_fail("split invariance broken", msg);
  }
}

static run runs[3];

sluice_status fuzz_check_filter(const char *filter, const fuzz_input *in, int routing) {
  for (int k = 0; k < 3; k++)
    if (!runs[k].out && sluice_output_new(&runs[k].out, NULL) != SLUICE_OK) abort();
  run_filter(filter, in, NULL, 0, &runs[0]);
  if (runs[0].st == SLUICE_BAD_OPTION || runs[0].st == SLUICE_UNSUPPORTED) return runs[0].st;
  if (routing && runs[0].st == SLUICE_OK) {
    size_t total = 0;
    for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
      size_t n;
      sluice_output_channel(runs[0].out, (sluice_channel)c, &n);
      total += n;
    }
    if (total != in->content_len) fuzz_fail("conservation broken", filter);
  }
  /* a chunking from the seed: lengths 0 to 15, empty chunks included */
  size_t n = in->content_len, cap = 2 * n + 2, m = 0, off = 0;
  size_t *lens = calloc(cap, sizeof *lens);
  if (!lens) abort();
  uint32_t s = in->seed | 1;
  while (off < n && m + 1 < cap) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    size_t k = s % 16;
    if (k > n - off) k = n - off;
    lens[m++] = k;
    off += k;
  }
  if (off < n) lens[m++] = n - off;
  run_filter(filter, in, lens, m, &runs[1]);
  compare(&runs[0], &runs[1], "seeded chunking");
  if (n <= 4096) {
    for (size_t i = 0; i < n; i++) lens[i] = 1;
    run_filter(filter, in, lens, n, &runs[2]);
    compare(&runs[0], &runs[2], "byte at a time");
  }
  free(lens);
  return runs[0].st;
}

uint64_t fuzz_max_held(void) {
  return runs[1].max_held > runs[2].max_held ? runs[1].max_held : runs[2].max_held;
}
