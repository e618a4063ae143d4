/*
 * test_think.c: the think filter's prefilter implementations give the same
 * output, byte for byte.
 *
 * think.c scans for the next possible tag with a portable loop, with SSE2
 * or with AVX2 (chosen at run time). Each implementation is forced in turn
 * (sluicep_think_prefilter) over random texts dense in tag fragments, with
 * several option sets (default tags, case-sensitive names, pairs whose
 * first bytes are too many for the vector test, a one-byte pair), fed whole,
 * in large, mid-sized and token-sized chunks; every run must equal the
 * portable implementation's one-call result. The portable loop runs on
 * every build; the vector ones wherever the machine has them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "../lib/src/core/sluice_private.h"
#include "testutil.h"

static sluice_rng rng = {0x9E3779B97F4A7C15ULL};
static uint32_t rnd(uint32_t n) { return (uint32_t)sluice_rng_below(&rng, n); }

/* Text made of pieces that come close to tags and are tags. */
static size_t gen(char *p, size_t cap) {
  static const char *const pieces[] = {
      "<think>", "</think>", "<THINK>", "</Think>", "<thinking>", "</thinking>", "<reasoning>",
      "</reasoning>", "<thought>", "</thought>", "<reflection>", "</reflection>", "<th", "</t",
      "<", "</", "<b>", "</b>", "a < b", "<<think>>", "</thin", "<r", "<re", "<|", "|>", "[[",
      "]]", "@@", "#", "x", "word ", "café ", "日本", "\n", "<|channel|>", "<|end|>", "é"};
  size_t n = 0;
  while (n + 16 < cap) {
    size_t k = rnd(4) ? 1 + rnd(60) : 0; /* plain text between pieces */
    while (k-- && n + 16 < cap) n += (size_t)snprintf(p + n, cap - n, "%c", 'a' + rnd(26));
    const char *w = pieces[rnd(sizeof pieces / sizeof pieces[0])];
    size_t l = strlen(w);
    if (n + l >= cap) break;
    memcpy(p + n, w, l);
    n += l;
  }
  return n;
}

/* Every channel and event of one run, as one string to compare. The first
 * chunk has `first` bytes when that is non-zero. */
static size_t run_from(const sluice_think_opts *o, const char *p, size_t n, size_t first,
                       size_t chunk, char *out, size_t cap) {
  sluice_output *res;
  if (sluice_output_new(&res, NULL) != SLUICE_OK) return 0;
  sluice_sink sink = sluice_output_sink(res);
  sluice_filter *f;
  size_t len = 0;
  if (sluice_think_new(&f, o, &sink, NULL, NULL) == SLUICE_OK) {
    sluice_status st = SLUICE_OK;
    for (size_t off = 0; off < n && st == SLUICE_OK;) {
      size_t k = chunk == 0 ? n : chunk == 7 ? 1 + rnd(9) : chunk; /* 7: token-sized, uneven */
      if (off == 0 && first) k = first;
      if (k > n - off) k = n - off;
      st = sluice_feed(f, p + off, k);
      off += k;
    }
    if (st == SLUICE_OK) st = sluice_finish(f);
    len += (size_t)snprintf(out + len, cap - len, "status %d\n", (int)st);
    sluice_free(f);
  }
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    size_t l;
    const char *b = sluice_output_channel(res, (sluice_channel)c, &l);
    if (len + l + 32 >= cap) break;
    len += (size_t)snprintf(out + len, cap - len, "channel %d %zu:", c, l);
    memcpy(out + len, b, l);
    len += l;
  }
  for (size_t i = 0; i < sluice_output_event_count(res) && len + 64 < cap; i++) {
    const sluice_event *ev = sluice_output_event(res, i);
    len += (size_t)snprintf(out + len, cap - len, "event %d %.*s %llu %llu %d\n", (int)ev->type,
                            (int)ev->name_len, ev->name, (unsigned long long)ev->offset,
                            (unsigned long long)ev->length, ev->complete);
  }
  sluice_output_free(res);
  return len;
}

static size_t run(const sluice_think_opts *o, const char *p, size_t n, size_t chunk, char *out,
                  size_t cap) {
  return run_from(o, p, n, 0, chunk, out, cap);
}

/* Token-sized chunks decide most chunks from a word test of where a tag's
 * first byte stands and what follows it; a short text of tags, near-tags
 * and '<' in prose, fed in chunks of every size from 1 to 9 at every
 * alignment, puts each of them at every position of a chunk. */
static void every_alignment(void) {
  static const char text[] =
      "a<b x<think>hid</b>den<</think>y <br>z<r <thinking>q</t</thinking> <T<TH<tHiNk>w<"
      "/think>a < b<<reasoning>r</reasoning><";
  static char want[4096], got[4096];
  static const char *const tags[] = {"think"};
  size_t n = sizeof text - 1, bad = 0;
  for (int opt = 0; opt < 3; opt++) {
    sluice_think_opts o;
    sluice_think_opts_init(&o);
    if (opt == 1) o.tags = tags, o.ntags = 1;
    if (opt == 2) o.case_insensitive = 0;
    size_t wl = run(&o, text, n, 0, want, sizeof want);
    for (size_t k = 1; k <= 9; k++)
      for (size_t s = 1; s <= k; s++) {
        size_t gl = run_from(&o, text, n, s, k, got, sizeof got);
        if (gl != wl || memcmp(got, want, wl) != 0) {
          if (bad++ < 3) fprintf(stderr, "options %d, chunks of %zu after %zu: differs\n", opt, k, s);
        }
      }
  }
  CHECKF(bad == 0, "every alignment of token-sized chunks equals the one-call result (%zu differ)", bad);
}

int main(void) {
  enum { CAP = 1 << 17 };
  static char text[CAP], want[4 * CAP], got[4 * CAP];
  static const char *const case_tags[] = {"think", "Reason"};
  static const char *const many_first[][2] = {{"[[", "]]"}, {"@@", "##"}, {"<|channel|>", "<|end|>"},
                                              {"{{", "}}"}, {"((", "))"}};
  sluice_pair pairs[5], one_byte[1] = {{"#", "@"}};
  for (int i = 0; i < 5; i++) pairs[i].open = many_first[i][0], pairs[i].close = many_first[i][1];
  int best = sluicep_think_prefilter_best(), ran[3] = {0, 0, 0};
  size_t hidden = 0;
  for (int it = 0; it < 60; it++) {
    size_t n = gen(text, it % 3 ? 4096 + rnd(CAP - 8192) : 2 + rnd(200));
    sluice_think_opts o;
    sluice_think_opts_init(&o);
    switch (it % 5) {
    case 1: o.tags = case_tags, o.ntags = 2, o.case_insensitive = 0; break;
    case 2: o.pairs = pairs, o.npairs = 5; break; /* five first bytes: no vector test */
    case 3: o.pairs = one_byte, o.npairs = 1; break; /* any byte may follow '#' */
    case 4: o.mode = SLUICE_THINK_ANCHORED, o.grace_period = 100000; break;
    default: break;
    }
    sluicep_think_prefilter = SLUICEP_PREFILTER_PORTABLE;
    size_t wl = run(&o, text, n, 0, want, sizeof want);
    const char *th = strstr(want, "channel 1 ");
    if (th && strncmp(th, "channel 1 0:", 12) != 0) hidden++;
    static const size_t chunks[] = {0, 65536, 4096, 100, 40, 7};
    for (int impl = SLUICEP_PREFILTER_PORTABLE; impl <= best; impl++) {
      sluicep_think_prefilter = impl;
      ran[impl] = 1;
      for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        size_t gl = run(&o, text, n, chunks[c], got, sizeof got);
        CHECKF(gl == wl && memcmp(got, want, wl) == 0,
               "input %d (%zu bytes, options %d): prefilter %d with chunks of %zu differs from "
               "the portable one-call result",
               it, n, it % 5, impl, chunks[c]);
      }
    }
  }
  sluicep_think_prefilter = -1;
  printf("prefilters compared: portable%s%s; %zu of 60 inputs hid a block\n",
         ran[SLUICEP_PREFILTER_SSE2] ? ", sse2" : "", ran[SLUICEP_PREFILTER_AVX2] ? ", avx2" : "",
         hidden);
  CHECKF(hidden > 20, "the inputs exercise the tags (%zu hid a block)", hidden);
  every_alignment();
#if SLUICEP_HAVE_X86_DISPATCH
  CHECKF(ran[SLUICEP_PREFILTER_SSE2], "SSE2 is compared on x86-64");
#endif
  return test_report("test_think");
}
