/* fuzz_monitor: the stream monitor. Split invariance and conservation (TEXT
 * plus DROPPED is the input) with the options the input carries; then the
 * fast detector against the slow, literal model of tests/monitor_model.c on
 * the same text, with a configuration drawn from the split seed (profile,
 * quasi, weighting, intervals down to 1 so that every position is a
 * checkpoint, max_length), the filter fed a byte at a time or whole as the
 * seed's bit 29 chooses (both in a replay). Any verdict or offset that
 * differs aborts. */
#include <stdlib.h>
#include <string.h>

#include "../lib/src/core/sluice_private.h"
#include "../tests/monitor_model.h"
#include "fuzz_common.h"

static int collect(void *user, sluice_channel ch, const char *p, size_t n) {
  size_t *text = user;
  (void)p;
  if (ch == SLUICE_TEXT) *text += n;
  return 0;
}

typedef struct stop {
  int seen;
  char reason[16];
  uint64_t offset;
} stop;

static int on_event(void *user, const sluice_event *ev) {
  stop *s = (stop *)((size_t *)user + 1);
  if (ev->type != SLUICE_EV_STOP) return 0;
  if (s->seen) fuzz_fail("a second stop event", NULL);
  s->seen = 1;
  size_t l = ev->name_len < sizeof s->reason - 1 ? ev->name_len : sizeof s->reason - 1;
  memcpy(s->reason, ev->name, l);
  s->reason[l] = '\0';
  s->offset = ev->offset;
  return 0;
}

/* The filter checked against the model: kept from one input to the next
 * and reset while the configuration the seed draws stays the same (a
 * campaign mutates the content far more often than the seed), rather than
 * built and freed for every input. */
static sluice_filter *kept;
static sluice_monitor_opts kept_opts;
static struct {
  size_t text;
  stop st;
} res; /* what the filter gave: its sink's user, so it outlives the input */

/* Runs the filter with options o on the content, a byte at a time or
 * whole, and compares it with the model's verdict v. fresh: a new filter,
 * not the kept one. Returns what differs, or NULL. */
static const char *against_model(const sluice_monitor_opts *o, const fuzz_input *in, int whole,
                                 const monitor_verdict *v, const size_t *ends, int fresh) {
  static const sluice_sink sink = {collect, on_event, &res};
  sluice_filter *f;
  if (!fresh && kept && memcmp(o, &kept_opts, sizeof *o) == 0) {
    if (sluice_reset(kept) != SLUICE_OK) abort(); /* it could be reset before */
    f = kept;
  } else if (sluice_monitor_new(&f, o, &sink, NULL, NULL) != SLUICE_OK) {
    abort();
  } else if (!fresh) {
    sluice_free(kept);
    kept = f;
    kept_opts = *o;
  }
  res.text = 0;
  res.st.seen = 0;
  if (whole) sluice_feed(f, in->content, in->content_len);
  else
    for (size_t i = 0; i < in->content_len; i++) sluice_feed(f, in->content + i, 1);
  sluice_status st = sluice_finish(f);
  if (f != kept) sluice_free(f);
  if (st != SLUICE_OK) return "monitor finish failed";
  if (!v->reason) {
    if (res.st.seen) return "the filter stops where the model does not";
    if (res.text != in->content_len) return "text cut without a stop";
  } else {
    if (!res.st.seen) return "the model stops where the filter does not";
    if (strcmp(res.st.reason, v->reason) != 0 || res.st.offset != v->offset)
      return "the filter's stop differs from the model's";
    if (res.text != ends[v->offset]) return "TEXT does not end at the stop offset";
  }
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in)) return 0;
  fuzz_check_filter("monitor", &in, 1);

  /* The text as code points, with the library's rule: a well-formed
   * sequence is one code point, any other byte one of its own (mapped above
   * U+10FFFF, so it equals only the same byte, as in the filter). */
  size_t n = 0;
  static uint32_t *cps;
  static size_t *ends, cap; /* ends: the byte offset after each code point */
  if (in.content_len + 2 > cap) {
    free(cps);
    free(ends);
    cap = in.content_len + 2 > 4096 ? in.content_len + 2 : 4096;
    cps = malloc(cap * sizeof *cps);
    ends = malloc(cap * sizeof *ends);
    if (!cps || !ends) abort();
  }
  ends[0] = 0;
  for (size_t off = 0; off < in.content_len;) {
    const unsigned char *q = (const unsigned char *)in.content + off;
    if (q[0] < 0x80) { /* most of the text: a code point of its own */
      cps[n] = q[0];
      ends[++n] = ++off;
      continue;
    }
    size_t l = sluicep_u8_seq_len(q, in.content_len - off);
    if (l == 0) {
      cps[n] = 0x110000u + q[0];
      l = 1;
    } else {
      sluicep_u8 st = {{0}, 0, 0};
      uint32_t got[4];
      for (size_t j = 0; j < l; j++)
        if (sluicep_u8_step(&st, q[j], got) == 1) cps[n] = got[0];
    }
    off += l;
    ends[++n] = off;
  }

  uint32_t s = in.seed;
  static const uint64_t rep_iv[] = {1, 7, 64, 512};
  static const uint64_t ws_iv[] = {0, 1, 16, 128};
  sluice_monitor_opts o;
  sluice_monitor_opts_init(&o);
  o.profile = (s & 1) ? SLUICE_MONITOR_CURRENT : SLUICE_MONITOR_SEED;
  o.quasi = (int)((s >> 1) & 1);
  o.weighted = (int)((s >> 2) & 1);
  o.repetition_interval = rep_iv[(s >> 3) & 3];
  o.whitespace_interval = ws_iv[(s >> 5) & 3];
  o.whitespace_threshold = 1 + ((s >> 7) & 255);
  o.max_length = (s >> 15) & 1 ? (s >> 16) % 2048 : 0;
  /* the model is slow: keep it to what a fuzz run can afford */
  if (n > (o.repetition_interval == 1 ? 600 : 4096)) return 0;
  monitor_model_opts mo = {o.profile == SLUICE_MONITOR_CURRENT, o.quasi, o.weighted,
                           (size_t)o.whitespace_threshold, (size_t)o.max_length,
                           (size_t)o.whitespace_interval, (size_t)o.repetition_interval};
  monitor_verdict v = monitor_model(cps, n, &mo);

  /* The filter a byte at a time (the verdict must not wait for a chunk
   * boundary) or whole (one call: the stop must still fall at its offset),
   * as the seed's bit 29 chooses; a replay checks both. A byte at a time
   * was most of this target's time. */
  int first = fuzz_every_chunking ? 0 : (int)(s >> 29 & 1);
  int last = fuzz_every_chunking ? 1 : first;
  for (int whole = first; whole <= last; whole++) {
    const char *bad = against_model(&o, &in, whole, &v, ends, 0);
    /* again with a new filter: a difference only the reset one shows is
     * sluice_reset's (and this input alone would not reproduce it) */
    if (bad && !against_model(&o, &in, whole, &v, ends, 1))
      fuzz_fail("sluice_reset left state behind (a new filter agrees with the model)", bad);
    if (bad) fuzz_fail(bad, v.reason ? v.reason : res.st.reason);
  }
  return 0;
}
