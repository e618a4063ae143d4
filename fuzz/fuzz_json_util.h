/* fuzz_json_util.h: running the json filter once and loading its text, for
 * the two json targets. */
#ifndef SLUICE_FUZZ_JSON_UTIL_H
#define SLUICE_FUZZ_JSON_UTIL_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "util.h"
#include "fuzz_jansson_arena.h"
#include "fuzz_json_push.h"
#include "fuzz_json_syntax.h"

typedef struct json_run {
  sluice_status st;
  char *value; /* the VALUE event's text */
  size_t value_len;
  char unload[32]; /* the VALUE event's reason when it is not loadable, or "" */
  size_t repairs;
  size_t nsnaps;    /* snapshots seen; each was JSON when it came */
  tbuf snap;        /* the last one, rebuilt */
  size_t snap_text; /* how much of TEXT snap holds already: TEXT only grows */
  tbuf text;        /* TEXT so far */
  tbuf tail;        /* the last snapshot's tail */
  tbuf spare;       /* where the next tail is built */
  jpush at_text;    /* the grammar read over TEXT so far (strict) */
  size_t at_fed;    /* how much of TEXT it has read */
  jpush at_snap;    /* then over a snapshot's tail */
} json_run;

static int deep_ok; /* the options lift the depth limit above jansson's */

static int jr_text_check(const char *p, size_t n, const char **why) {
  fuzz_jansson_arena(1);
  int ok = json_text_check(p, n, deep_ok, why);
  fuzz_jansson_arena(0);
  return ok;
}

static inline int is_json(const char *p, size_t n) { return jr_text_check(p, n, NULL); }

static int jr_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  json_run *r = user;
  if (ch == SLUICE_TEXT && n) tbuf_xadd(&r->text, p, n);
  return 0;
}

/* A snapshot event edits the previous tail (drop `length` bytes from its
 * front, prepend `data`); the snapshot is TEXT[0..offset) + tail. Each is
 * checked as it comes, so that a run holds one, not all of them (a copy of
 * every snapshot, the square of the input's length, was most of
 * fuzz_json_incremental's allocations). */
static void jr_snapshot(json_run *r, const sluice_event *ev) {
  if (ev->offset != r->text.n || ev->length > r->tail.n)
    fuzz_fail("a snapshot edit out of bounds", NULL);
  size_t keep = r->tail.n - (size_t)ev->length;
  r->spare.n = 0;
  if (ev->data_len) tbuf_xadd(&r->spare, ev->data, ev->data_len); /* data may be NULL */
  if (keep) tbuf_xadd(&r->spare, r->tail.p + ev->length, keep);
  tbuf t = r->tail;
  r->tail = r->spare;
  r->spare = t;
  /* only the TEXT that came since the last snapshot is copied (copying the
   * whole of it for each was the square of the input's length) */
  r->snap.n = r->snap_text;
  if (r->text.n > r->snap_text)
    tbuf_xadd(&r->snap, r->text.p + r->snap_text, r->text.n - r->snap_text);
  r->snap_text = r->text.n;
  if (r->tail.n) tbuf_xadd(&r->snap, r->tail.p, r->tail.n);
  if (tbuf_reserve(&r->snap, 0)) abort(); /* an empty snapshot still has its NUL */
  r->snap.p[r->snap.n] = '\0';
  r->nsnaps++;
  /* The grammar reads TEXT once, as it comes, and then each snapshot's
   * tail from a copy of its state: loading every snapshot whole with
   * jansson was the square of the input's length (half of
   * fuzz_json_incremental's time, perf). Where it is sure, json_text_check
   * would accept too (fuzz_json_push.h); where it refuses, json_text_check
   * decides. The replay (every chunking) runs both and checks the first. */
  if (r->text.n > r->at_fed) jp_feed(&r->at_text, r->text.p + r->at_fed, r->text.n - r->at_fed);
  r->at_fed = r->text.n;
  jp_copy(&r->at_snap, &r->at_text);
  jp_feed(&r->at_snap, r->tail.p, r->tail.n);
  int ok = jp_complete(&r->at_snap) && (r->at_snap.peak <= 2048 || deep_ok);
  if (fuzz_every_chunking) {
    int full = is_json(r->snap.p, r->snap.n);
    if (ok && !full) fuzz_fail("the grammar a byte at a time accepts what jansson refuses", r->snap.p);
    ok = full;
  } else if (!ok) {
    ok = is_json(r->snap.p, r->snap.n);
  }
  if (!ok) fuzz_fail("a snapshot is not JSON", r->snap.p);
}

static int jr_event(void *user, const sluice_event *ev) {
  json_run *r = user;
  if (ev->type == SLUICE_EV_REPAIR) r->repairs++;
  if (ev->type == SLUICE_EV_SNAPSHOT) jr_snapshot(r, ev);
  if (ev->type == SLUICE_EV_VALUE) {
    free(r->value);
    r->value = malloc(ev->data_len + 1);
    if (!r->value) abort();
    if (ev->data_len) memcpy(r->value, ev->data, ev->data_len); /* data may be NULL */
    r->value[ev->data_len] = '\0';
    r->value_len = ev->data_len;
    snprintf(r->unload, sizeof r->unload, "%.*s", (int)(ev->name_len < 31 ? ev->name_len : 31),
             ev->name ? ev->name : "");
  }
  return 0;
}

/* Feeds p[0..n) cut by the seed (0: whole) to a json filter of options o
 * (NULL: they could not be decoded, and st says why). */
static void json_run_once(sluice_status st, const sluice_json_opts *o, const char *p, size_t n,
                          uint32_t seed, json_run *r) {
  memset(r, 0, sizeof *r);
  jp_init(&r->at_text, 1);
  sluice_sink sink = {jr_emit, jr_event, r};
  sluice_filter *f;
  r->st = o ? sluice_json_new(&f, o, &sink, NULL, NULL) : st;
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

/* The whole-input run of the last fuzz_check, whose status was st, read
 * as json_run_once would have run it (the same filter, options and bytes):
 * the value, its unloadable mark and the repairs. Not the snapshots or the
 * text. */
static void json_run_of_check(sluice_status st, json_run *r) {
  memset(r, 0, sizeof *r);
  r->st = st;
  const sluice_output *o = fuzz_whole_output();
  for (size_t i = 0, n = sluice_output_event_count(o); i < n; i++) {
    const sluice_event *ev = sluice_output_event(o, i);
    if (ev->type == SLUICE_EV_REPAIR || ev->type == SLUICE_EV_VALUE) jr_event(r, ev);
  }
}

static void json_run_free(json_run *r) {
  free(r->value);
  tbuf_free(&r->snap);
  tbuf_free(&r->text);
  tbuf_free(&r->tail);
  tbuf_free(&r->spare);
  jp_free(&r->at_text);
  jp_free(&r->at_snap);
}

/* Do the options lift the depth limit above jansson's (0 or more than
 * 2048)? Then a result may be JSON that jansson is too shallow for. */
static int depth_unlimited(const sluice_json_opts *o) {
  return o && (o->max_depth == 0 || o->max_depth > 2048);
}

/* The value is JSON, and marked not loadable exactly when jansson refuses
 * it (with the first reason jansson meets: the filter names the earliest
 * byte, which is the one jansson stops at). */
static inline int value_ok(const json_run *r) {
  const char *why;
  return jr_text_check(r->value, r->value_len, &why) && strcmp(why, r->unload) == 0;
}

#endif
