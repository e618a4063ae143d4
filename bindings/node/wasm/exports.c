/*
 * exports.c: what the WebAssembly module exports to JavaScript
 * (bindings/node/src/wasm.mjs), over bindings/common/sluice_bind.c.
 *
 * JavaScript reads results out of linear memory rather than through a call
 * per value: after each feed or finish, sw_result() describes the call's
 * output in one block of 32-bit words, so a 4-byte chunk costs a few calls,
 * not one per channel. Every pointer and length is a 32-bit word (wasm32).
 */
#include <stdlib.h>
#include <string.h>

#include "sluice_bind.h"

#define EXPORT(name) __attribute__((export_name(#name)))

/* The result block of the last call:
 *   [0]       status (sluice_status)
 *   [1..5]    pointer of each channel's bytes
 *   [6..10]   length of each channel's bytes
 *   [11]      number of runs
 *   [12]      pointer to the runs: (kind, n) word pairs
 *   [13]      number of events
 */
static uint32_t result[14];
static uint32_t *runs;
static size_t cap_runs;

static sluice_error new_error; /* a constructor's failure */

EXPORT(sw_alloc) void *sw_alloc(size_t n) { return malloc(n ? n : 1); }
EXPORT(sw_free) void sw_free(void *p) { free(p); }

/* A filter, or NULL with sw_error(NULL) saying why. */
EXPORT(sw_new) sb_filter *sw_new(const char *name, const char *opts, size_t len) {
  sb_filter *b;
  memset(&new_error, 0, sizeof new_error);
  return sb_new(&b, name, opts, len, &new_error) == SLUICE_OK ? b : NULL;
}

EXPORT(sw_delete) void sw_delete(sb_filter *b) { sb_free(b); }

static uint32_t *describe(sb_filter *b, sluice_status st) {
  memset(result, 0, sizeof result);
  result[0] = (uint32_t)st;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    size_t n;
    result[1 + c] = (uint32_t)(uintptr_t)sb_channel(b, (sluice_channel)c, &n);
    result[6 + c] = (uint32_t)n;
  }
  size_t nr = sb_run_count(b);
  if (nr > cap_runs) {
    uint32_t *r = realloc(runs, nr * 2 * sizeof *r);
    if (!r) { /* the runs are an aid to order; without them, channel by channel */
      nr = 0;
    } else {
      runs = r;
      cap_runs = nr;
    }
  }
  for (size_t i = 0; i < nr; i++) {
    int kind;
    size_t n;
    sb_run(b, i, &kind, &n);
    runs[2 * i] = (uint32_t)kind;
    runs[2 * i + 1] = (uint32_t)n;
  }
  result[11] = (uint32_t)nr;
  result[12] = (uint32_t)(uintptr_t)runs;
  result[13] = (uint32_t)sb_event_count(b);
  return result;
}

EXPORT(sw_feed) uint32_t *sw_feed(sb_filter *b, const void *p, size_t n) {
  return describe(b, sb_feed(b, p, n));
}

EXPORT(sw_finish) uint32_t *sw_finish(sb_filter *b) { return describe(b, sb_finish(b)); }

/* The error of a filter (NULL: of the last sw_new): status, offset (as a
 * double: it may pass 2^32) and message. */
static const sluice_error *error_of(const sb_filter *b) { return b ? sb_error(b) : &new_error; }
EXPORT(sw_error_status) int sw_error_status(const sb_filter *b) { return (int)error_of(b)->status; }
EXPORT(sw_error_offset) double sw_error_offset(const sb_filter *b) { return (double)error_of(b)->offset; }
EXPORT(sw_error_message) const char *sw_error_message(const sb_filter *b) { return error_of(b)->message; }
EXPORT(sw_status_name) const char *sw_status_name(int s) { return sluice_status_name((sluice_status)s); }
EXPORT(sw_filter_name) const char *sw_filter_name(const sb_filter *b) {
  return sluice_filter_name(sb_filter_of(b));
}
/* Bytes held back and fed so far (doubles: they may pass 2^32). */
EXPORT(sw_held) double sw_held(const sb_filter *b) { return (double)sluice_held(sb_filter_of(b)); }
EXPORT(sw_fed) double sw_fed(const sb_filter *b) { return (double)sluice_fed(sb_filter_of(b)); }
/* The bytes at the end of p[0..n) that begin a character not yet complete
 * (sluice_utf8_tail): the string results keep them for the next call. */
EXPORT(sw_utf8_tail) size_t sw_utf8_tail(const void *p, size_t n) { return sluice_utf8_tail(p, n); }
EXPORT(sw_version) const char *sw_version(void) { return sluice_version(); }

/* Event i of the last call in the protocol's form: how many fields, each
 * six words at sw_fields(): key pointer, kind (SB_BYTES, ...), bytes
 * pointer, length, and the integer as two words (low, high). */
static uint32_t fields[SB_MAX_FIELDS * 6];

EXPORT(sw_fields) uint32_t *sw_fields(void) { return fields; }

EXPORT(sw_event) uint32_t sw_event(sb_filter *b, size_t i) {
  sluice_event ev;
  sb_field f[SB_MAX_FIELDS];
  sb_event(b, i, &ev);
  size_t n = sb_describe(&ev, f);
  for (size_t k = 0; k < n; k++) {
    uint32_t *w = &fields[6 * k];
    w[0] = (uint32_t)(uintptr_t)f[k].key;
    w[1] = (uint32_t)f[k].kind;
    w[2] = (uint32_t)(uintptr_t)f[k].p;
    w[3] = (uint32_t)f[k].n;
    w[4] = (uint32_t)((uint64_t)f[k].i & 0xffffffffu);
    w[5] = (uint32_t)((uint64_t)f[k].i >> 32);
  }
  return (uint32_t)n;
}
