/*
 * test_clean.c: properties of the clean filter on random inputs and
 * configurations: split invariance against the one-call result,
 * conservation, the prefix stage's hold-back bound, and out-of-memory
 * handling at every allocation site.
 */
#include "sluice.h"
#include "outcmp.h"
#include "rng.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Seeded, so every run sees the same cases. */
static sluice_rng rng_state;
static unsigned rnd(unsigned n) { return (unsigned)sluice_rng_below(&rng_state, n); }

/* Pieces that exercise every rule, including cut UTF-8 sequences. */
static const char *const pieces[] = {
    "<think>", "</think>", "<THINK>", "</thi", "Note:", "Note", "Bot:", "Bo", "Assistant:",
    "Assis", "[Sent less than a minute ago]", "[Sent", " ", "  ", "\n", "\t", "\xc2\xa0",
    "\xe3\x80\x80", "\xe2\x80\xa8", "\xc2\x85", "\xc2", "\xe3\x80", "\xff", "a", "hi",
    "x y", "\xc3\xa9", "\xe2\x80\x8b", ":", "Hello", "Hello World"};
#define NPIECES (sizeof pieces / sizeof pieces[0])

static const char *const cands[] = {"Note:", "Note: ", "Bot:", "  Bot:  ", "Hello",
                                    "Hello World", "", "\343\200\200Bot:", "No", "Assistant:"};
#define NCANDS (sizeof cands / sizeof cands[0])

typedef struct config {
  sluice_clean_opts o;
  const char *node[4], *ep[4];
} config;

static void random_config(config *c) {
  sluice_clean_opts_init(&c->o);
  c->o.remove_thinking = rnd(2);
  c->o.grace_period = rnd(3) == 0 ? rnd(8) : 100;
  c->o.expect_only_closing = rnd(5) == 0;
  c->o.missing_close = rnd(2) ? SLUICE_MISSING_CLOSE_KEEP : SLUICE_MISSING_CLOSE_EMPTY;
  c->o.remove_node_prefixes = rnd(2);
  c->o.n_node_prefixes = rnd(4);
  for (size_t i = 0; i < c->o.n_node_prefixes; i++) c->node[i] = cands[rnd(NCANDS)];
  c->o.node_prefixes = c->node;
  c->o.remove_endpoint_prefixes = rnd(2);
  c->o.n_endpoint_prefixes = rnd(4);
  for (size_t i = 0; i < c->o.n_endpoint_prefixes; i++) c->ep[i] = cands[rnd(NCANDS)];
  c->o.endpoint_prefixes = c->ep;
  c->o.remove_timestamp = rnd(2);
  c->o.add_user_assistant = rnd(3) != 0;
  c->o.add_missing_assistant = rnd(3) != 0;
  c->o.trim = rnd(2);
}

static size_t random_input(char *buf, size_t cap) {
  size_t n = 0, parts = rnd(12);
  for (size_t i = 0; i < parts; i++) {
    const char *p = pieces[rnd(NPIECES)];
    size_t l = strlen(p);
    if (n + l > cap) break;
    memcpy(buf + n, p, l);
    n += l;
  }
  return n;
}

/* The longest candidate in bytes (what the prefix stage may hold). */
static size_t longest(const config *c) {
  size_t m = 10; /* "Assistant:" */
  if (c->o.remove_timestamp) m = strlen("[Sent less than a minute ago]");
  for (size_t i = 0; c->o.remove_node_prefixes && i < c->o.n_node_prefixes; i++)
    if (strlen(c->node[i]) > m) m = strlen(c->node[i]);
  for (size_t i = 0; c->o.remove_endpoint_prefixes && i < c->o.n_endpoint_prefixes; i++)
    if (strlen(c->ep[i]) > m) m = strlen(c->ep[i]);
  return m;
}

/* Runs the filter on in[0..n) cut at the given positions. Returns the status;
 * *max_held gets the largest hold-back after a feed call. */
static sluice_status run(const config *c, const char *in, size_t n, const size_t *cuts,
                         size_t ncuts, sluice_output *out, unsigned long long *max_held) {
  sluice_output_reset(out);
  sluice_sink sink = sluice_output_sink(out);
  sluice_filter *f;
  sluice_status st = sluice_clean_new(&f, &c->o, &sink, NULL, NULL);
  if (st != SLUICE_OK) return st;
  size_t at = 0;
  *max_held = 0;
  for (size_t i = 0; i <= ncuts && st == SLUICE_OK; i++) {
    size_t end = i < ncuts ? cuts[i] : n;
    st = sluice_feed(f, in + at, end - at);
    at = end;
    unsigned long long h = sluice_held(f);
    if (h > *max_held) *max_held = h;
  }
  if (st == SLUICE_OK) st = sluice_finish(f);
  sluice_free(f);
  return st;
}

/* The one comparison of two collectors (tools/common/outcmp.c). */
static int same_output(const sluice_output *a, const sluice_output *b) {
  char why[200];
  return output_compare(a, b, 1, why, sizeof why) == 0;
}

static size_t total_out(const sluice_output *o) {
  size_t t = 0;
  for (int ch = 0; ch < SLUICE_CHANNEL_COUNT; ch++) {
    size_t l;
    sluice_output_channel(o, (sluice_channel)ch, &l);
    t += l;
  }
  return t;
}

static void test_random_splits(void) {
  sluice_output *whole, *split;
  if (sluice_output_new(&whole, NULL) != SLUICE_OK || sluice_output_new(&split, NULL) != SLUICE_OK) {
    CHECKF(0, "output collector");
    return;
  }
  char in[512];
  size_t cuts[64];
  int trimmed_something = 0, dropped_prefix = 0;
  for (int iter = 0; iter < 4000; iter++) {
    config c;
    random_config(&c);
    size_t n = random_input(in, sizeof in);
    unsigned long long held = 0;
    sluice_status st = run(&c, in, n, NULL, 0, whole, &held);
    CHECKF(st == SLUICE_OK, "iteration %d: one-call status %s", iter, sluice_status_name(st));
    CHECKF(total_out(whole) == n, "iteration %d: conservation: %zu bytes out of %zu", iter,
          total_out(whole), n);
    size_t dl;
    sluice_output_channel(whole, SLUICE_DROPPED, &dl);
    if (dl) dropped_prefix = 1;
    if (c.o.trim && dl) trimmed_something = 1;
    for (int k = 0; k < 8; k++) {
      size_t ncuts = 0;
      if (k == 0) { /* one byte at a time */
        for (size_t i = 1; i < n && ncuts < 64; i++) cuts[ncuts++] = i;
      } else {
        size_t want = rnd(12);
        size_t at = 0;
        for (size_t i = 0; i < want && ncuts < 64; i++) {
          at += rnd(6); /* repeated positions are empty chunks */
          if (at > n) at = n;
          cuts[ncuts++] = at;
        }
      }
      st = run(&c, in, n, cuts, ncuts, split, &held);
      CHECKF(st == SLUICE_OK, "iteration %d split %d: status %s", iter, k, sluice_status_name(st));
      CHECKF(same_output(whole, split), "iteration %d split %d: differs from the one-call result",
            iter, k);
      /* Without think removal and trim, only the prefix stage holds. */
      if (!c.o.remove_thinking && !c.o.trim)
        CHECKF(held < longest(&c),
              "iteration %d: held %llu bytes, bound %zu", iter, held, longest(&c));
    }
  }
  CHECKF(dropped_prefix && trimmed_something, "the random configurations never removed anything");
  sluice_output_free(whole);
  sluice_output_free(split);
}

/* ---- failure injection ---- */

static void test_nomem(void) {
  static const char *const node[] = {"Note:", "Hello World"};
  static const char *const ep[] = {"  Bot: "};
  sluice_clean_opts o;
  sluice_clean_opts_init(&o);
  o.remove_thinking = 1;
  o.remove_node_prefixes = 1;
  o.node_prefixes = node;
  o.n_node_prefixes = 2;
  o.remove_endpoint_prefixes = 1;
  o.endpoint_prefixes = ep;
  o.n_endpoint_prefixes = 1;
  o.remove_timestamp = 1;
  o.add_user_assistant = o.add_missing_assistant = 1;
  o.trim = 1;
  /* A long block and a long trailing run make the buffers grow. */
  char in[4096];
  size_t n = 0;
  n += (size_t)sprintf(in + n, " \n<think>");
  for (int i = 0; i < 300; i++) n += (size_t)sprintf(in + n, "th%d ", i);
  n += (size_t)sprintf(in + n, "</think>Note: Bot: Assistant: hi");
  for (int i = 0; i < 200; i++) in[n++] = i % 2 ? ' ' : '\n';
  in[n++] = 'x';
  for (int i = 0; i < 200; i++) in[n++] = ' ';
  int saw_ok = 0;
  long sites = 0;
  for (long k = 0; k < 10000 && !saw_ok; k++) {
    test_faulty fm;
    sluice_mem mem = test_faulty_mem(&fm, k);
    sluice_filter *f = NULL;
    sluice_status st = sluice_clean_new(&f, &o, NULL, &mem, NULL);
    if (st == SLUICE_OK) {
      for (size_t at = 0; at < n && st == SLUICE_OK; at += 7)
        st = sluice_feed(f, in + at, n - at < 7 ? n - at : 7);
      if (st == SLUICE_OK) st = sluice_finish(f);
      CHECKF(st == SLUICE_OK || st == SLUICE_NOMEM, "fail at %ld: status %s", k,
            sluice_status_name(st));
      CHECKF(sluice_get_error(f)->status == st, "fail at %ld: the error is not sticky", k);
      sluice_free(f);
    } else {
      CHECKF(st == SLUICE_NOMEM && f == NULL, "fail at %ld: new gave %s", k,
            sluice_status_name(st));
    }
    CHECKF(fm.live == 0, "fail at %ld: %ld blocks leaked", k, fm.live);
    if (st == SLUICE_OK) {
      saw_ok = 1;
      sites = k;
      CHECKF(fm.calls == k, "a run that succeeded after %ld allocations made %ld", k, fm.calls);
    }
  }
  CHECKF(saw_ok, "never succeeded");
  CHECKF(sites > 5, "only %ld allocation sites were reached", sites);
}

/* A callback that refuses stops the filter with SLUICE_CALLBACK, also when
 * the refused bytes come out of the composed think filter. */
static int refuse_text(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)user;
  (void)p;
  (void)n;
  return ch == SLUICE_TEXT;
}

static void test_callback_stop(void) {
  sluice_clean_opts o;
  sluice_clean_opts_init(&o);
  o.remove_thinking = 1;
  sluice_sink sink = {refuse_text, NULL, NULL};
  sluice_filter *f;
  CHECKF(sluice_clean_new(&f, &o, &sink, NULL, NULL) == SLUICE_OK, "new");
  sluice_status st = sluice_feed(f, "<think>a</think>", 16);
  CHECKF(st == SLUICE_OK, "nothing visible yet: %s", sluice_status_name(st));
  st = sluice_feed(f, "hello", 5);
  CHECKF(st == SLUICE_CALLBACK, "refused text: %s", sluice_status_name(st));
  CHECKF(sluice_finish(f) == SLUICE_CALLBACK, "sticky");
  sluice_free(f);
}

int main(void) {
  rng_state = sluice_rng_seed(1);
  test_random_splits();
  test_nomem();
  test_callback_stop();
  return test_report("test_clean");
}
