/*
 * test_bounds.c: inputs built to make a filter's buffers grow without end
 * (endless partial tags, a tag restarted forever, an endless harmony header,
 * endless whitespace, an endless unterminated JSON string, an endless
 * monitor history), streamed in many chunk sizes, with the hold-back checked
 * after every feed against the bound each filter documents, and the memory
 * the filter allocates counted. Where the semantics must hold (an anchored
 * block, trailing whitespace while trimming, a JSON value, the monitor's
 * history) the cap must fail cleanly with SLUICE_LIMIT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice_kit.h"
#include "testutil.h"


/* An allocator that tracks the bytes live and their peak. */
typedef struct counting {
  size_t live, peak;
} counting;

typedef struct hdr {
  size_t n;
  size_t pad; /* keeps the payload 16-byte aligned */
} hdr;

static void *c_malloc(void *ctx, size_t n) {
  counting *c = ctx;
  hdr *h = malloc(sizeof(hdr) + n);
  if (!h) return NULL;
  h->n = n;
  c->live += n;
  if (c->live > c->peak) c->peak = c->live;
  return h + 1;
}
static void *c_realloc(void *ctx, void *p, size_t n) {
  counting *c = ctx;
  if (!p) return c_malloc(ctx, n);
  hdr *h = (hdr *)p - 1;
  size_t old = h->n;
  hdr *q = realloc(h, sizeof(hdr) + n);
  if (!q) return NULL;
  q->n = n;
  c->live = c->live - old + n;
  if (c->live > c->peak) c->peak = c->live;
  return q + 1;
}
static void c_free(void *ctx, void *p) {
  counting *c = ctx;
  if (!p) return;
  hdr *h = (hdr *)p - 1;
  c->live -= h->n;
  free(h);
}

static int discard(void *u, sluice_channel ch, const char *p, size_t n) {
  (void)u;
  (void)ch;
  (void)p;
  (void)n;
  return 0;
}

/* Streams `total` bytes made of `unit` repeated, in chunks of `chunk` bytes,
 * and returns the largest hold-back; *peak gets the peak of live memory. */
static uint64_t stream(const char *filter, const char *options, const char *lead,
                       const char *unit, size_t total, size_t chunk, size_t *peak,
                       sluice_status *st) {
  counting cnt = {0, 0};
  sluice_mem mem = {c_malloc, c_realloc, c_free, &cnt};
  sluice_sink sink = {discard, NULL, NULL};
  sluice_filter *f;
  sluice_error err;
  *st = sluice_filter_new_json(&f, filter, options, strlen(options), &sink, &mem, &err);
  if (*st != SLUICE_OK) {
    fprintf(stderr, "%s %s: %s\n", filter, options, err.message);
    return 0;
  }
  size_t ul = strlen(unit), bl = chunk + ul;
  char *buf = malloc(bl * 2);
  for (size_t i = 0; i < bl * 2; i++) buf[i] = unit[i % ul];
  uint64_t max_held = 0;
  *st = sluice_feed(f, lead, strlen(lead));
  for (size_t off = 0; off < total && *st == SLUICE_OK; off += chunk) {
    /* keep the pattern's phase: start at off % ul */
    *st = sluice_feed(f, buf + off % ul, chunk);
    uint64_t h = sluice_held(f);
    if (h > max_held) max_held = h;
  }
  if (*st == SLUICE_OK) *st = sluice_finish(f);
  sluice_free(f);
  free(buf);
  *peak = cnt.peak;
  CHECK(cnt.live == 0);
  return max_held;
}

typedef struct bound_case {
  const char *filter, *options, *unit;
  uint64_t max_held; /* the documented bound on the hold-back */
  size_t max_peak;   /* the bound on live memory, bytes: the filter's fixed
                        tables plus the hold, whatever the input length */
} bound_case;

int main(void) {
  static const bound_case cases[] = {
      /* a partial opening tag restarted forever: held < the longest tag */
      {"think", "{}", "<thin", 10, 16384},
      {"think", "{}", "<", 10, 16384},
      {"think", "{}", "<reflectio", 10, 16384},
      /* inside a block, a partial closing tag restarted forever */
      {"think", "{\"start_in\":\"think\"}", "</thin", 8, 16384},
      /* pairs: a long literal almost matched, forever */
      {"think", "{\"pairs\":[[\"<|channel|>analysis<|message|>\",\"<|end|>\"]]}",
       "<|channel|>analysis<|message", 30, 16384},
      /* anchored: past the grace window nothing is held */
      {"think", "{\"mode\":\"anchored\"}", "<thin", 6, 16384},
      /* expect_only_closing, missing_close empty: hidden text streams */
      {"think", "{\"mode\":\"anchored\",\"expect_only_closing\":true}", "</thin", 8, 16384},
      /* clean: endless whitespace before any text, with every prefix rule on:
       * the left strip drops it as it comes */
      {"clean",
       "{\"node\":{\"removeCustomTextFromResponseStart\":true,\"responseStartTextToRemove\":"
       "[\"Response:\"]},\"globals\":{\"chatCompleteAddUserAssistant\":true,"
       "\"chatCompleteAddMissingAssistant\":true}}",
       " \n\t", 3, 16384},
      /* clean: a prefix candidate almost matched is decided within its length */
      {"clean",
       "{\"node\":{\"removeCustomTextFromResponseStart\":true,\"responseStartTextToRemove\":"
       "[\"Response:\"]}}",
       "Respons!", 8, 16384},
      /* harmony: an endless header is resolved at max_header (256), and a
       * '<|' that never becomes a token is text at once */
      {"harmony", "{}", "<|start|>assistant to=functions.x json ", 256 + 13, 16384},
      {"harmony", "{}", "<|", 13, 16384},
      {"harmony", "{\"max_header\":32}", "<|channel|>analysis ", 32 + 13, 16384},
      /* monitor without repetition checks keeps no history */
      {"monitor", "{\"repetition_interval\":0}", "ab ", 3, 16384},
  };
  static const size_t chunks[] = {1, 3, 7, 64, 4096};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
      size_t peak;
      sluice_status st;
      /* 8 MiB for byte-sized chunks would be slow under ASan; 1 MiB shows
       * the same (the bound does not grow with the input) */
      size_t total = chunks[k] < 64 ? (1u << 20) : (8u << 20);
      uint64_t held = stream(cases[i].filter, cases[i].options, "", cases[i].unit, total,
                             chunks[k], &peak, &st);
      if (st != SLUICE_OK || held > cases[i].max_held || peak > cases[i].max_peak) {
        fprintf(stderr, "%s %s unit \"%s\" chunk %zu: status %s, held %llu (bound %llu), "
                        "peak memory %zu (bound %zu)\n",
                cases[i].filter, cases[i].options, cases[i].unit, chunks[k],
                sluice_status_name(st), (unsigned long long)held,
                (unsigned long long)cases[i].max_held, peak, cases[i].max_peak);
        failures++;
      }
    }
  }
  /* The caps that fail cleanly where the semantics must hold: an endless
   * anchored block, endless trailing whitespace while trimming. */
  size_t peak;
  sluice_status st;
  stream("think", "{\"mode\":\"anchored\",\"max_block\":65536}", "", "<think>x", 8u << 20, 4096,
         &peak, &st);
  CHECK(st == SLUICE_LIMIT);
  CHECK(peak < 4 * 65536);
  stream("clean",
         "{\"endpoint\":{\"trimBeginningAndEndLineBreaks\":true},\"sluice\":{\"max_whitespace\":"
         "65536}}",
         "", "x                                                                  ", 8u << 20, 4096,
         &peak, &st);
  CHECK(st == SLUICE_OK); /* runs of 66 spaces are fine */
  stream("clean",
         "{\"endpoint\":{\"trimBeginningAndEndLineBreaks\":true},\"sluice\":{\"max_whitespace\":"
         "65536}}",
         "x", " ", 8u << 20, 4096, &peak, &st);
  CHECK(st == SLUICE_LIMIT);
  CHECK(peak < 4 * 65536);
  /* json holds the whole repaired text for its value: an endless string
   * is bounded only by max_bytes, which fails cleanly */
  stream("json", "{\"max_bytes\":1048576}", "[\"", "endless string ", 8u << 20, 4096, &peak, &st);
  CHECK(st == SLUICE_LIMIT);
  CHECK(peak < 8 * 1048576);
  /* the monitor keeps its history while repetition checks are on (here with
   * no checkpoint before the cap, so no stop ends it): capped */
  stream("monitor", "{\"max_history\":100000,\"repetition_interval\":1000000000}", "",
         "abcdefghij ", 8u << 20, 4096, &peak, &st);
  CHECK(st == SLUICE_LIMIT);
  CHECK(peak < 64 * 100000);
  return test_report("test_bounds");
}
