/*
 * test_core.c: the filter contract and the think filter, below the
 * conformance suites: statuses, sticky errors, callbacks that stop, the
 * failure-injection test over every allocation, randomized split invariance
 * and conservation, UTF-8 counting, the whitespace set, and sluice_reset
 * (a reset filter gives what a new one gives). Only libsluice:
 * it runs in a library-only build (filters by name are test_kit.c's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/src/core/sluice_private.h"
#include "sluice.h"
#include "outcmp.h"
#include "rng.h"
#include "testutil.h"

/* ---------------- a collector with per-channel strings ---------------- */

typedef struct result {
  sluice_output *out;
  sluice_status st;
} result;

/* The one comparison of two collectors (tools/common/outcmp.c). */
static int same_output(const sluice_output *a, const sluice_output *b) {
  char why[200];
  return output_compare(a, b, 1, why, sizeof why) == 0;
}

/* ---------------- statuses ---------------- */

static void test_statuses(void) {
  CHECK(strcmp(sluice_status_name(SLUICE_OK), "ok") == 0);
  CHECK(strcmp(sluice_status_name(SLUICE_NOMEM), "nomem") == 0);
  CHECK(strcmp(sluice_status_name(SLUICE_LIMIT), "limit") == 0);
  CHECK(strcmp(sluice_status_name((sluice_status)9999), "unknown") == 0);
  /* every status has a distinct name and a description */
  for (int i = 0; i < SLUICE_STATUS_COUNT; i++) {
    CHECK(sluice_status_str((sluice_status)i)[0] != '\0');
    for (int j = 0; j < i; j++)
      CHECK(strcmp(sluice_status_name((sluice_status)i), sluice_status_name((sluice_status)j)) != 0);
  }
  CHECK(strcmp(sluice_channel_name(SLUICE_DROPPED), "dropped") == 0);
}

/* ---------------- sticky errors and callbacks ---------------- */

static int stop_after;
static int stopping_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)user;
  (void)ch;
  (void)p;
  (void)n;
  return --stop_after <= 0;
}

static void test_sticky_errors(void) {
  sluice_filter *f;
  sluice_sink sink = {stopping_emit, NULL, NULL};
  stop_after = 2;
  CHECK(sluice_think_new(&f, NULL, &sink, NULL, NULL) == SLUICE_OK);
  CHECK(sluice_feed(f, "abc", 3) == SLUICE_OK);         /* first emit */
  CHECK(sluice_feed(f, "def", 3) == SLUICE_CALLBACK);   /* second emit stops */
  CHECK(sluice_get_error(f)->status == SLUICE_CALLBACK);
  CHECK(sluice_get_error(f)->offset == 3);              /* where the chunk began */
  CHECK(sluice_feed(f, "ghi", 3) == SLUICE_CALLBACK);   /* sticky */
  CHECK(sluice_finish(f) == SLUICE_CALLBACK);
  sluice_free(f);

  /* Token-sized chunks take short paths in think: a '<' that starts no
   * tag, and a '<' held at the end, stop as surely as plain text. */
  static const char *const stop_on[] = {"a<b", "ab<", "<", "x < y and"};
  for (size_t i = 0; i < sizeof stop_on / sizeof *stop_on; i++) {
    stop_after = 2;
    CHECK(sluice_think_new(&f, NULL, &sink, NULL, NULL) == SLUICE_OK);
    CHECK(sluice_feed(f, "abc", 3) == SLUICE_OK);
    sluice_status st = sluice_feed(f, stop_on[i], strlen(stop_on[i]));
    if (strcmp(stop_on[i], "<") == 0) { /* held: nothing emitted until the next byte */
      CHECK(st == SLUICE_OK);
      st = sluice_feed(f, "b", 1);
    }
    CHECK(st == SLUICE_CALLBACK);
    CHECK(sluice_get_error(f)->status == SLUICE_CALLBACK);
    sluice_free(f);
  }

  /* and so does the monitor's quick path for token-sized ASCII feeds */
  for (size_t n = 1; n <= 9; n++) {
    stop_after = 3;
    CHECK(sluice_monitor_new(&f, NULL, &sink, NULL, NULL) == SLUICE_OK);
    CHECK(sluice_feed(f, "abcdefghi", n) == SLUICE_OK); /* the general path sets up */
    CHECK(sluice_feed(f, "abcdefghi", n) == SLUICE_OK); /* quick */
    CHECK(sluice_feed(f, "abcdefghi", n) == SLUICE_CALLBACK);
    CHECK(sluice_get_error(f)->status == SLUICE_CALLBACK && sluice_get_error(f)->offset == 2 * n);
    sluice_free(f);
  }

  CHECK(sluice_think_new(&f, NULL, NULL, NULL, NULL) == SLUICE_OK); /* no sink: discard */
  CHECK(sluice_feed(f, NULL, 0) == SLUICE_OK);
  CHECK(sluice_feed(f, NULL, 5) == SLUICE_INVALID);
  CHECK(sluice_finish(f) == SLUICE_INVALID);
  sluice_free(f);

  CHECK(sluice_think_new(&f, NULL, NULL, NULL, NULL) == SLUICE_OK);
  CHECK(sluice_once(f, "x", 1) == SLUICE_OK);
  CHECK(sluice_feed(f, "y", 1) == SLUICE_FINISHED);
  CHECK(sluice_finish(f) == SLUICE_FINISHED);
  sluice_free(f);
  sluice_free(NULL);
}

static void test_held(void) {
  sluice_filter *f;
  CHECK(sluice_think_new(&f, NULL, NULL, NULL, NULL) == SLUICE_OK);
  CHECK(sluice_feed(f, "ab<thi", 6) == SLUICE_OK);
  CHECK(sluice_held(f) == 4);
  CHECK(sluice_feed(f, "nk>x", 4) == SLUICE_OK);
  CHECK(sluice_held(f) == 0);
  CHECK(sluice_fed(f) == 10);
  CHECK(strcmp(sluice_filter_name(f), "think") == 0);
  sluice_free(f);
}

static void test_invalid_options(void) {
  sluice_filter *f = (sluice_filter *)1;
  sluice_think_opts o;
  sluice_think_opts_init(&o);
  const char *bad_tags[] = {"ok", "no space"};
  o.tags = bad_tags;
  o.ntags = 2;
  CHECK(sluice_think_new(&f, &o, NULL, NULL, NULL) == SLUICE_BAD_OPTION);
  CHECK(f == NULL);
  sluice_think_opts_init(&o);
  o.mode = SLUICE_THINK_ANCHORED;
  o.start_tag = "\x80x"; /* a continuation byte cannot start a tag */
  CHECK(sluice_think_new(&f, &o, NULL, NULL, NULL) == SLUICE_BAD_OPTION);
}

/* ---------------- failure injection ---------------- */

/* Runs one configuration with the Nth allocation failing, for every N,
 * until a run sees no failure. Each run must end in SLUICE_OK or
 * SLUICE_NOMEM, never anything else, and free everything. */
static void inject(const char *label, const sluice_think_opts *o, const char *input) {
  long n;
  int completed = 0;
  for (n = 0; n < 10000 && !completed; n++) {
    test_faulty fm;
    sluice_mem mem = test_faulty_mem(&fm, n);
    sluice_output *out = NULL;
    sluice_status st = sluice_output_new(&out, &mem);
    sluice_filter *f = NULL;
    if (st == SLUICE_OK) {
      sluice_sink sink = sluice_output_sink(out);
      st = sluice_think_new(&f, o, &sink, &mem, NULL);
    }
    size_t len = strlen(input);
    /* three-byte chunks, so hold-back and block buffers grow step by step */
    for (size_t i = 0; st == SLUICE_OK && i < len; i += 3)
      st = sluice_feed(f, input + i, len - i < 3 ? len - i : 3);
    if (st == SLUICE_OK) st = sluice_finish(f);
    if (st == SLUICE_CALLBACK && sluice_output_status(out) == SLUICE_NOMEM) st = SLUICE_NOMEM;
    if (st != SLUICE_OK && st != SLUICE_NOMEM) {
      fprintf(stderr, "%s: allocation %ld: status %s\n", label, n, sluice_status_name(st));
      failures++;
    }
    if (fm.failed != (st != SLUICE_OK)) {
      fprintf(stderr, "%s: allocation %ld: failure %s but status %s\n", label, n,
              fm.failed ? "injected" : "not injected", sluice_status_name(st));
      failures++;
    }
    if (f && st == SLUICE_NOMEM) CHECK(sluice_feed(f, "x", 1) != SLUICE_OK); /* sticky */
    sluice_free(f);
    sluice_output_free(out);
    if (fm.live != 0) {
      fprintf(stderr, "%s: allocation %ld: %ld allocations leaked\n", label, n, fm.live);
      failures++;
    }
    completed = !fm.failed;
  }
  CHECK(completed);
  CHECK(n > 3); /* the configuration really allocates */
}

static void test_failure_injection(void) {
  sluice_think_opts o;
  sluice_think_opts_init(&o);
  inject("channel", &o, "a<think>b</thi" "nk>c<reasoning>d</reasoning><thinking>unterminated");
  const sluice_pair pairs[] = {{"<|channel|>analysis<|message|>", "<|end|>"}, {"[[", "]]"}};
  o.pairs = pairs;
  o.npairs = 2;
  inject("pairs", &o, "x<|channel|>analysis<|message|>t<|end|>[[a]]y");
  sluice_think_opts_init(&o);
  o.mode = SLUICE_THINK_ANCHORED;
  inject("anchored", &o,
         "hello <think>a long block that must be held until its closing tag, which "
         "comes only now</think> bye");
  inject("anchored unterminated", &o, "<think>never closed, restored as text at the end");
  o.expect_only_closing = 1;
  o.missing_close = SLUICE_MISSING_CLOSE_KEEP;
  inject("expect_only_closing keep", &o, "held until the closing tag</think>text");
}

/* ---------------- randomized split invariance ---------------- */

static sluice_rng rng;
static uint64_t next(void) { return sluice_rng_next(&rng); }

static const char *const pieces[] = {
    "<", ">", "/", "think", "</think>", "<think>", "<thinking>", "</thinking>", "reasoning",
    "a", "b", " ", "\n", "é", "\xe2\x82", "\xff", "<THINK>", "</", "<|end|>", "<|channel|>",
    "analysis<|message|>", "<<", "thought>", "[[", "]]"};

static size_t random_input(char *buf, size_t cap) {
  size_t n = 0, k = next() % 24;
  for (size_t i = 0; i < k; i++) {
    const char *p = pieces[next() % (sizeof pieces / sizeof pieces[0])];
    size_t l = strlen(p);
    if (n + l >= cap) break;
    memcpy(buf + n, p, l);
    n += l;
  }
  return n;
}

static void random_opts(sluice_think_opts *o) {
  static const sluice_pair pairs[] = {{"<|channel|>analysis<|message|>", "<|end|>"},
                                      {"[[", "]]"},
                                      {"<|channel|>", "<|end|>"}};
  sluice_think_opts_init(o);
  switch (next() % 6) {
  case 0: break;
  case 1:
    o->pairs = pairs;
    o->npairs = 3;
    break;
  case 2:
    o->case_insensitive = 0;
    o->start_in = "think";
    break;
  case 3:
    o->mode = SLUICE_THINK_ANCHORED;
    o->grace_period = next() % 12;
    break;
  case 4:
    o->mode = SLUICE_THINK_ANCHORED;
    o->expect_only_closing = 1;
    o->missing_close = (next() & 1) ? SLUICE_MISSING_CLOSE_KEEP : SLUICE_MISSING_CLOSE_EMPTY;
    break;
  default:
    o->mode = SLUICE_THINK_ANCHORED;
    o->start_tag = "<|channel|>analysis<|message|>";
    o->end_tag = "<|end|>";
    break;
  }
}

static sluice_status run_chunked(const sluice_think_opts *o, const char *in, size_t n,
                                 sluice_output *out, int chunked) {
  sluice_output_reset(out);
  sluice_sink sink = sluice_output_sink(out);
  sluice_filter *f;
  sluice_status st = sluice_think_new(&f, o, &sink, NULL, NULL);
  if (st != SLUICE_OK) return st;
  if (!chunked) {
    st = sluice_once(f, in, n);
  } else {
    size_t i = 0;
    while (st == SLUICE_OK && i <= n) {
      size_t k = next() % 6; /* 0 gives empty chunks */
      if (k > n - i) k = n - i;
      st = sluice_feed(f, in + i, k);
      i += k;
      if (i == n && (next() & 1)) break;
    }
    if (st == SLUICE_OK) st = sluice_finish(f);
  }
  sluice_free(f);
  return st;
}

static void test_random_split_invariance(void) {
  sluice_output *whole, *split;
  CHECK(sluice_output_new(&whole, NULL) == SLUICE_OK);
  CHECK(sluice_output_new(&split, NULL) == SLUICE_OK);
  char buf[512];
  int bad = 0;
  for (int iter = 0; iter < 20000 && bad < 5; iter++) {
    sluice_think_opts o;
    random_opts(&o);
    size_t n = random_input(buf, sizeof buf);
    CHECK(run_chunked(&o, buf, n, whole, 0) == SLUICE_OK);
    size_t total = 0;
    for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
      size_t l;
      sluice_output_channel(whole, (sluice_channel)c, &l);
      total += l;
    }
    if (total != n) {
      fprintf(stderr, "conservation broken on iteration %d: %zu of %zu bytes\n", iter, total, n);
      bad++;
    }
    for (int r = 0; r < 4; r++) {
      CHECK(run_chunked(&o, buf, n, split, 1) == SLUICE_OK);
      if (!same_output(whole, split)) {
        fprintf(stderr, "split invariance broken on iteration %d: input \"%.*s\"\n", iter,
                (int)n, buf);
        bad++;
        break;
      }
    }
  }
  failures += bad;
  sluice_output_free(whole);
  sluice_output_free(split);
}

/* ---------------- UTF-8 and whitespace ---------------- */

static void test_utf8(void) {
  CHECK(sluice_utf8_count("", 0) == 0);
  CHECK(sluice_utf8_count("abc", 3) == 3);
  CHECK(sluice_utf8_count("\xc3\xa9", 2) == 1);             /* é */
  CHECK(sluice_utf8_count("\xe2\x82\xac", 3) == 1);         /* € */
  CHECK(sluice_utf8_count("\xf0\x9f\xa4\x94", 4) == 1);     /* 🤔 */
  CHECK(sluice_utf8_count("\xe2\x82", 2) == 2);             /* cut off */
  CHECK(sluice_utf8_count("\xe2\x82x", 3) == 3);            /* broken by x */
  CHECK(sluice_utf8_count("\xed\xa0\x80", 3) == 3);         /* a surrogate */
  CHECK(sluice_utf8_count("\xc0\xaf", 2) == 2);             /* overlong */
  CHECK(sluice_utf8_count("\xf4\x90\x80\x80", 4) == 4);     /* above U+10FFFF */
  CHECK(sluice_utf8_count("\x80\x80", 2) == 2);             /* stray continuations */
  CHECK(sluice_utf8_valid("\xe2\x82\xac", 3));
  CHECK(!sluice_utf8_valid("\xe2\x82", 2));
  CHECK(!sluice_utf8_valid("\xed\xa0\x80", 3));

  /* Code points decoded byte by byte equal the whole count, for every split. */
  const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\xa4\x94\xff\xe2\x82z";
  size_t n = strlen(s);
  for (size_t cut = 0; cut <= n; cut++) {
    sluicep_u8 st = {{0}, 0, 0};
    uint64_t count = 0;
    for (size_t i = 0; i < n; i++) count += (uint64_t)sluicep_u8_step(&st, (uint8_t)s[i], NULL);
    count += (uint64_t)sluicep_u8_flush(&st, NULL);
    CHECK(count == sluice_utf8_count(s, n));
  }
  CHECK(sluice_utf8_count(s, n) == 8);
}

static void test_whitespace(void) {
  static const uint32_t spaces[] = {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F,
                                    0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x200A, 0x2028,
                                    0x2029, 0x202F, 0x205F, 0x3000};
  for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) CHECK(sluicep_is_space_cp(spaces[i]));
  static const uint32_t not_spaces[] = {0x08, 0x0E, 0x1B, 0x21, 0x84, 0x180E, 0x200B, 0x2060,
                                        0xFEFF, 0x3001};
  for (size_t i = 0; i < sizeof not_spaces / sizeof not_spaces[0]; i++)
    CHECK(!sluicep_is_space_cp(not_spaces[i]));
  int partial;
  CHECK(sluicep_space_len((const unsigned char *)"\xe3\x80\x80x", 4, &partial) == 3 && !partial);
  CHECK(sluicep_space_len((const unsigned char *)"\xe3\x80", 2, &partial) == 0 && partial);
  CHECK(sluicep_space_len((const unsigned char *)"\xe3\x81", 2, &partial) == 0 && !partial);
  CHECK(sluicep_space_len((const unsigned char *)"\xc2", 1, &partial) == 0 && partial);
  CHECK(sluicep_space_len((const unsigned char *)"\xc2\xa0", 2, &partial) == 2);
  CHECK(sluicep_space_len((const unsigned char *)"\xc2\xa1", 2, &partial) == 0 && !partial);
  CHECK(sluicep_space_len((const unsigned char *)" ", 1, &partial) == 1);
}

/* ---------------- sluice_reset ---------------- */

/* A reused filter writes into whichever collector the run names. */
static sluice_output *reset_cur;

static int reset_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)user;
  sluice_sink s = sluice_output_sink(reset_cur);
  return s.emit(s.user, ch, p, n);
}

static int reset_event(void *user, const sluice_event *ev) {
  (void)user;
  sluice_sink s = sluice_output_sink(reset_cur);
  return s.event(s.user, ev);
}

typedef sluice_status (*make_fn)(sluice_filter **f, const sluice_sink *sink);

/* Feeds s in chunks of `chunk` bytes (0: whole) and finishes when asked. */
static sluice_status feed_in(sluice_filter *f, const char *s, size_t chunk, int finish) {
  size_t n = strlen(s);
  sluice_status st = SLUICE_OK;
  for (size_t i = 0; i < n && st == SLUICE_OK; i += chunk ? chunk : n)
    st = sluice_feed(f, s + i, chunk && n - i > chunk ? chunk : n - i);
  return st == SLUICE_OK && finish ? sluice_finish(f) : st;
}

/* `input` on a new filter, and on one filter reset after each way of
 * leaving it dirty (`dirty` fed and left open, finished, or stopped by a
 * sticky error): the same status, error offset, output and counters. */
static void reset_case(const char *label, make_fn make, const char *dirty, const char *input,
                       size_t chunk) {
  sluice_sink sink = {reset_emit, reset_event, NULL};
  sluice_output *want, *got;
  CHECK(sluice_output_new(&want, NULL) == SLUICE_OK && sluice_output_new(&got, NULL) == SLUICE_OK);
  sluice_filter *fresh, *reused;
  reset_cur = want;
  CHECK(make(&fresh, &sink) == SLUICE_OK);
  sluice_status st = feed_in(fresh, input, chunk, 1);
  CHECK(make(&reused, &sink) == SLUICE_OK);
  for (int way = 0; way < 3; way++) {
    reset_cur = got;
    sluice_output_reset(got);
    if (way) CHECK(sluice_reset(reused) == SLUICE_OK); /* after the last way's input */
    feed_in(reused, dirty, 3, way == 1);
    if (way == 2) { /* a sticky error */
      sluice_status e1 = sluice_feed(reused, NULL, 1);
      CHECKF(e1 == SLUICE_INVALID, "%s: %s\n", label, sluice_status_name(e1));
      CHECK(sluice_feed(reused, "x", 1) == SLUICE_INVALID);
    }
    CHECKF(sluice_reset(reused) == SLUICE_OK, "%s: reset\n", label);
    CHECK(sluice_get_error(reused)->status == SLUICE_OK);
    CHECK(sluice_fed(reused) == 0 && sluice_held(reused) == 0);
    sluice_output_reset(got);
    sluice_status st2 = feed_in(reused, input, chunk, 1);
    CHECKF(st2 == st, "%s, way %d: status %s, a new filter's %s\n", label, way,
           sluice_status_name(st2), sluice_status_name(st));
    CHECKF(sluice_get_error(reused)->offset == sluice_get_error(fresh)->offset,
           "%s, way %d: error offset\n", label, way);
    CHECKF(sluice_fed(reused) == sluice_fed(fresh) && sluice_held(reused) == sluice_held(fresh),
           "%s, way %d: counters\n", label, way);
    char why[200] = "";
    CHECKF(output_compare(want, got, 1, why, sizeof why) == 0, "%s, way %d: %s\n", label, way,
           why);
  }
  sluice_free(fresh);
  sluice_free(reused);
  sluice_output_free(want);
  sluice_output_free(got);
}

static sluice_status make_think_channel(sluice_filter **f, const sluice_sink *sink) {
  sluice_think_opts o;
  sluice_think_opts_init(&o);
  o.start_in = "think";
  return sluice_think_new(f, &o, sink, NULL, NULL);
}

static sluice_status make_think_anchored(sluice_filter **f, const sluice_sink *sink) {
  sluice_think_opts o;
  sluice_think_opts_init(&o);
  o.mode = SLUICE_THINK_ANCHORED;
  o.expect_only_closing = 1;
  o.max_block = 40;
  return sluice_think_new(f, &o, sink, NULL, NULL);
}

/* format mode, thinking on, in the family reset_format names (qwen3 starts
 * inside the block its template opened; granite's block may open only
 * first, and an answer wrapper follows it) */
static sluice_think_format reset_format;
static sluice_status make_think_format(sluice_filter **f, const sluice_sink *sink) {
  sluice_think_opts o;
  sluice_think_opts_init(&o);
  o.format = reset_format;
  o.thinking = 1;
  return sluice_think_new(f, &o, sink, NULL, NULL);
}

static sluice_status make_clean(sluice_filter **f, const sluice_sink *sink) {
  static const char *const node[] = {"Hello:"};
  sluice_clean_opts o;
  sluice_clean_opts_init(&o);
  o.remove_thinking = 1;
  o.remove_node_prefixes = 1;
  o.node_prefixes = node;
  o.n_node_prefixes = 1;
  o.remove_timestamp = 1;
  o.trim = 1;
  o.max_whitespace = 8;
  return sluice_clean_new(f, &o, sink, NULL, NULL);
}

static sluice_status make_harmony(sluice_filter **f, const sluice_sink *sink) {
  return sluice_harmony_new(f, NULL, sink, NULL, NULL);
}

static sluice_status make_json(sluice_filter **f, const sluice_sink *sink) {
  sluice_json_opts o;
  sluice_json_opts_init(&o);
  o.incremental = 1;
  o.max_bytes = 64;
  return sluice_json_new(f, &o, sink, NULL, NULL);
}

static sluice_status make_sse(sluice_filter **f, const sluice_sink *sink) {
  sluice_sse_opts o;
  sluice_sse_opts_init(&o);
  o.max_line = 32;
  return sluice_sse_new(f, &o, sink, NULL, NULL);
}

/* the monitor at checkpoints every 8 code points: a short text stops */
static sluice_status make_monitor(sluice_filter **f, const sluice_sink *sink) {
  sluice_monitor_opts o;
  sluice_monitor_opts_init(&o);
  o.profile = SLUICE_MONITOR_CURRENT;
  o.whitespace_interval = 8;
  o.repetition_interval = 8;
  o.whitespace_threshold = 12;
  o.max_length = 200;
  return sluice_monitor_new(f, &o, sink, NULL, NULL);
}

/* the provider: detected from the stream (reset_framing AUTO), or Ollama
 * over NDJSON as the options say */
static sluice_framing reset_framing;
static sluice_status make_provider(sluice_filter **f, const sluice_sink *sink) {
  sluice_provider_opts o;
  sluice_provider_opts_init(&o);
  o.framing = reset_framing;
  if (reset_framing == SLUICE_FRAMING_NDJSON) o.provider = SLUICE_PROVIDER_OLLAMA;
  return sluice_provider_new(f, &o, sink, NULL, NULL);
}

static sluice_status make_ndjson(sluice_filter **f, const sluice_sink *sink) {
  return sluice_ndjson_new(f, NULL, sink, NULL, NULL);
}

static sluice_status make_chunks(sluice_filter **f, const sluice_sink *sink) {
  return sluice_chunks_new(f, NULL, sink, NULL, NULL);
}

static void test_reset(void) {
  static const size_t chunks[] = {0, 1, 5};
  for (size_t c = 0; c < 3; c++) {
    size_t k = chunks[c];
    reset_case("think channel", make_think_channel, "a</think>b<think>c</thi",
               "hidden</think>x<thinking>y</thinking>z<th", k);
    reset_case("think anchored", make_think_anchored, "abc</think>rest",
               "hidden</think>shown", k);
    reset_case("think anchored limit", make_think_anchored, "x</think>",
               "a block longer than forty bytes, which max_block refuses", k);
    reset_format = SLUICE_THINK_FORMAT_QWEN3;
    reset_case("think qwen3", make_think_format, "r</think>a<tool_call>x",
               "reasoning</think>answer<tool_call>{}</tool_call>", k);
    reset_format = SLUICE_THINK_FORMAT_GRANITE;
    reset_case("think granite", make_think_format,
               "Here is my thought process: t Here is my response: a",
               "Here is my thought process: x Here is my resp", k);
    reset_case("clean", make_clean, "  <think>x</think> Hello: body  \n",
               " <think>t</think>\n[Sent less than a minute ago] Hello: answer \n", k);
    reset_case("clean limit", make_clean, "Hel", "Hello: a run             of spaces", k);
    reset_case("harmony", make_harmony, "<|channel|>analysis<|mess",
               "<|channel|>final<|message|>hi<|end|>after<|", k);
    reset_case("json", make_json, "{\"a\": [1, 2", "```json\n{'k': tru, \"x\": [1,]}\n```", k);
    reset_case("json closers", make_json, "{\"a\": [{\"b", "[\"x}\", {\"y\": \"a]b\"]", k);
    reset_case("json limit", make_json, "[", "[\"a string longer than the sixty-four bytes max_bytes allows\"]", k);
    reset_case("sse", make_sse, "\xEF\xBB\xBF" "data: x\nid: 7\nevent: e\n\ndata: part\r",
               "data: y\n\n: c\nretry: 5\ndata: z", k);
    reset_case("sse limit", make_sse, "data: x\n", "data: a line longer than the thirty-two bytes\n", k);
    reset_case("monitor", make_monitor, "abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc",
               "a text that does not repeat itself, with words and then more words", k);
    reset_case("monitor whitespace", make_monitor, "x                    y",
               "xyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxy and the rest", k);
    reset_framing = SLUICE_FRAMING_AUTO;
    reset_case("provider detected", make_provider,
               "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
               "\"model\":\"claude\"}}\n\ndata: {\"type\":\"content_block_delta\",\"ind",
               "data: {\"id\":\"c\",\"model\":\"gpt\",\"choices\":[{\"index\":0,\"delta\":"
               "{\"content\":\"hi\"},\"finish_reason\":null}]}\n\ndata: {\"id\":\"c\",\"choices\":"
               "[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", k);
    reset_framing = SLUICE_FRAMING_NDJSON;
    reset_case("provider ollama", make_provider,
               "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"a\"},\"done\":fa",
               "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"b\"},"
               "\"done\":false}\n{\"model\":\"m\",\"message\":{\"role\":\"assistant\","
               "\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\"}\n", k);
    reset_case("ndjson", make_ndjson, "{\"a\":1}\n{\"b\"", "{\"c\":2}\r\n \n{\"d\"", k);
    reset_case("chunks", make_chunks, "{\"a\":1}\n{\"b\"", "{\"c\":2}\n{\"d\"", k);
  }
  /* a filter that rebuilds rather than resets (pipeline), and NULL */
  sluice_filter *f;
  CHECK(sluice_pipeline_new(&f, NULL, NULL, NULL, NULL) == SLUICE_OK);
  CHECK(sluice_feed(f, "abc", 3) == SLUICE_OK);
  CHECK(sluice_reset(f) == SLUICE_INVALID);
  CHECK(sluice_fed(f) == 3); /* unchanged */
  sluice_free(f);
  CHECK(sluice_reset(NULL) == SLUICE_INVALID);
}

/* A collector reset between streams keeps its blocks for the next ones,
 * but no more of them than one stream used: streams whose largest event
 * grows every time once left every outgrown block on the spare list (a
 * thousand streams, a thousand blocks held), and each such stream
 * allocated a block more than it freed. */
static void test_output_reset_blocks(void) {
  test_faulty fm;
  sluice_mem mem = test_faulty_mem(&fm, -1);
  sluice_output *out;
  CHECK(sluice_output_new(&out, &mem) == SLUICE_OK);
  static char big[16000];
  memset(big, 'x', sizeof big);
  long most = 0;
  for (size_t i = 0; i < 1000; i++) {
    sluice_output_reset(out);
    sluice_sink sink = sluice_output_sink(out);
    sluice_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = SLUICE_EV_REPAIR;
    ev.name = "small";
    ev.name_len = 5;
    CHECK(sink.event(sink.user, &ev) == 0);
    ev.type = SLUICE_EV_VALUE;
    ev.data = big;
    ev.data_len = 5000 + i * 10; /* larger than any block the last stream left */
    CHECK(sink.event(sink.user, &ev) == 0);
    CHECK(sluice_output_event_count(out) == 2);
    CHECK(sluice_output_event(out, 1)->data_len == ev.data_len);
    if (i >= 10 && fm.live > most) most = fm.live;
  }
  /* the collector, its event page and index, and a few blocks */
  CHECKF(most <= 8, "a reset collector holds %ld allocations after 1000 streams\n", most);
  sluice_output_free(out);
  CHECK(fm.live == 0);
}

int main(void) {
  rng = sluice_rng_seed(0x243F6A8885A308D3ULL);
  test_statuses();
  test_sticky_errors();
  test_held();
  test_invalid_options();
  test_failure_injection();
  test_random_split_invariance();
  test_utf8();
  test_whitespace();
  test_reset();
  test_output_reset_blocks();
  return test_report("test_core");
}
