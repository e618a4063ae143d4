/*
 * test_harmony.c: properties of the harmony filter on random streams built
 * from token fragments: conservation (every input byte in exactly one
 * channel) and split invariance (random chunkings give the one-call result).
 */
#include "rng.h"
#include "sluice.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static sluice_rng rng = {0x9E3779B97F4A7C15ULL};
static uint32_t rnd(uint32_t n) { return (uint32_t)sluice_rng_below(&rng, n); }

static const char *const pieces[] = {
    "<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|return|>", "<|call|>",
    "<|constrain|>", "<|", "|>", "<", "analysis", "final", "commentary", "assistant",
    " to=functions.f", " json", " ", "\n", "Hello", "é", "\xff", "<|chan", "x"};

static size_t gen(char *buf, size_t cap) {
  size_t n = 0, k = rnd(40);
  for (size_t i = 0; i < k; i++) {
    const char *p = pieces[rnd(sizeof pieces / sizeof pieces[0])];
    size_t l = strlen(p);
    if (n + l > cap) break;
    memcpy(buf + n, p, l);
    n += l;
  }
  return n;
}

/* Runs the filter over buf cut at random places; fills out. */
static void run(const sluice_harmony_opts *o, const char *buf, size_t n, int cuts,
                sluice_output *out) {
  sluice_output_reset(out);
  sluice_sink sink = sluice_output_sink(out);
  sluice_filter *f;
  CHECKF(sluice_harmony_new(&f, o, &sink, NULL, NULL) == SLUICE_OK, "new");
  size_t off = 0;
  while (off < n) {
    size_t step = cuts ? 1 + rnd(cuts) : n - off;
    if (step > n - off) step = n - off;
    CHECKF(sluice_feed(f, buf + off, step) == SLUICE_OK, "feed");
    CHECKF(sluice_held(f) <= 12 + o->max_header, "hold-back %llu over the bound",
          (unsigned long long)sluice_held(f));
    off += step;
  }
  CHECKF(sluice_finish(f) == SLUICE_OK, "finish");
  sluice_free(f);
}


/* ---------------- failure injection ----------------
 * An allocator that fails at the k-th call: for every k until a run makes
 * no failing call, the filter must answer SLUICE_NOMEM (never crash, never
 * claim success after a lost allocation). */
static void inject(void) {
  const char *in = "<|channel|>analysis<|message|>think<|end|><|start|>assistant to=functions.f"
                   "<|channel|>commentary json<|message|>{}<|call|>tail<|chan";
  for (long k = 0;; k++) {
    test_faulty fa;
    sluice_mem mem = test_faulty_mem(&fa, k);
    sluice_filter *f = NULL;
    sluice_status st = sluice_harmony_new(&f, NULL, NULL, &mem, NULL);
    if (st == SLUICE_OK) {
      for (size_t i = 0; in[i] && st == SLUICE_OK; i += 3)
        st = sluice_feed(f, in + i, strlen(in + i) < 3 ? strlen(in + i) : 3);
      if (st == SLUICE_OK) st = sluice_finish(f);
      sluice_free(f);
    }
    CHECKF(fa.failed ? st == SLUICE_NOMEM : st == SLUICE_OK, "allocation %ld: status %s", k,
          sluice_status_name(st));
    CHECKF(fa.live == 0, "allocation %ld: %ld blocks leaked", k, fa.live);
    if (!fa.failed) break;
  }
}

int main(void) {
  inject();
  sluice_output *a, *b;
  if (sluice_output_new(&a, NULL) != SLUICE_OK || sluice_output_new(&b, NULL) != SLUICE_OK)
    return 1;
  char buf[1024];
  for (int iter = 0; iter < 20000; iter++) {
    sluice_harmony_opts o;
    sluice_harmony_opts_init(&o);
    if (iter % 3 == 1) o.max_header = 32;
    if (iter % 5 == 2) o.preamble = SLUICE_OTHER;
    size_t n = gen(buf, sizeof buf);
    run(&o, buf, n, 0, a);
    size_t total = 0;
    for (int ch = 0; ch < SLUICE_CHANNEL_COUNT; ch++) {
      size_t l;
      sluice_output_channel(a, (sluice_channel)ch, &l);
      total += l;
    }
    CHECKF(total == n, "conservation: %zu bytes in, %zu out", n, total);
    run(&o, buf, n, 1 + (int)rnd(16), b);
    for (int ch = 0; ch < SLUICE_CHANNEL_COUNT; ch++) {
      size_t la, lb;
      const char *pa = sluice_output_channel(a, (sluice_channel)ch, &la);
      const char *pb = sluice_output_channel(b, (sluice_channel)ch, &lb);
      CHECKF(la == lb && memcmp(pa, pb, la) == 0, "split invariance, channel %d, input %.*s", ch,
            (int)n, buf);
    }
    if (failures > 10) break;
  }
  sluice_output_free(a);
  sluice_output_free(b);
  return test_report("test_harmony");
}
