/*
 * test_stream.c: the stream codec below the golden suites: the writer's
 * exact output (OpenAI chunks and Anthropic events, UTF-8 never cut, no
 * clean end for a truncated stream), the framings, provider and pipeline
 * under failure injection at every allocation while feeding, and the
 * provider's JSON reader against jansson on hostile texts.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#ifdef SLUICE_HAVE_ZLIB
#include <zlib.h>
#endif

#include "capread.h"
#include "bytes.h"
#include "capsrc.h"
#include "resplit.h"
#include "sluice_kit.h"
#include "jread_check.h"
#include "rng.h"
#include "util.h"
#include "testutil.h"

/* ---------------- the writer ---------------- */

typedef struct wout {
  char buf[8192];
  size_t n;
  int events; /* write calls: one per SSE event */
} wout;

static int collect(void *user, const char *p, size_t n) {
  wout *o = user;
  if (o->n + n >= sizeof o->buf) return 1;
  memcpy(o->buf + o->n, p, n);
  o->n += n;
  o->buf[o->n] = '\0';
  o->events++;
  return 0;
}

/* A provider stream through a provider filter into a writer. */
static void write_stream(sluice_write_format fmt, const char *stream, wout *o) {
  memset(o, 0, sizeof *o);
  sluice_writer_opts wo;
  sluice_writer_opts_init(&wo);
  wo.format = fmt;
  sluice_writer *w;
  CHECK(sluice_writer_new(&w, &wo, collect, o, NULL, NULL) == SLUICE_OK);
  sluice_sink sink = sluice_writer_sink(w);
  sluice_filter *f;
  CHECK(sluice_provider_new(&f, NULL, &sink, NULL, NULL) == SLUICE_OK);
  CHECK(sluice_once(f, stream, strlen(stream)) == SLUICE_OK);
  CHECK(sluice_writer_status(w) == SLUICE_OK);
  sluice_free(f);
  sluice_writer_free(w);
}

static void test_writer_openai(void) {
  wout o;
  write_stream(SLUICE_WRITE_OPENAI_SSE,
               "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
               "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
               "\"thinking_delta\",\"thinking\":\"hm\"}}\n\n"
               "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":"
               "\"text_delta\",\"text\":\"a\\\"b\\n\"}}\n\n"
               "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n"
               "data: {\"type\":\"message_stop\"}\n\n",
               &o);
  static const char want[] =
      "data: {\"id\":\"chatcmpl-sluice\",\"object\":\"chat.completion.chunk\",\"created\":0,"
      "\"model\":\"sluice\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
      "\"reasoning_content\":\"hm\"},\"finish_reason\":null}]}\n\n"
      "data: {\"id\":\"chatcmpl-sluice\",\"object\":\"chat.completion.chunk\",\"created\":0,"
      "\"model\":\"sluice\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\\"b\\n\"},"
      "\"finish_reason\":null}]}\n\n"
      "data: {\"id\":\"chatcmpl-sluice\",\"object\":\"chat.completion.chunk\",\"created\":0,"
      "\"model\":\"sluice\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"
      "\n\ndata: [DONE]\n\n";
  CHECKF(strcmp(o.buf, want) == 0, "openai writer wrote:\n%s", o.buf);
}

static void test_writer_anthropic(void) {
  wout o;
  write_stream(SLUICE_WRITE_ANTHROPIC_SSE,
               "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"r\"}}]}\n\n"
               "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t\"}}]}\n\n"
               "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":"
               "\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n"
               "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}"
               "\n\ndata: [DONE]\n\n",
               &o);
  static const char *const order[] = {
      "event: message_start", "\"type\":\"thinking\"", "\"thinking_delta\",\"thinking\":\"r\"",
      "content_block_stop\",\"index\":0", "\"index\":1,\"content_block\":{\"type\":\"text\"",
      "\"text_delta\",\"text\":\"t\"", "content_block_stop\",\"index\":1",
      "\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"c\",\"name\":\"f\"",
      "\"input_json_delta\",\"partial_json\":\"{}\"", "content_block_stop\",\"index\":2",
      "\"stop_reason\":\"tool_use\"", "event: message_stop"};
  const char *at = o.buf;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    const char *next = strstr(at, order[i]);
    CHECKF(next != NULL, "anthropic writer: \"%s\" missing or out of order in:\n%s", order[i],
           o.buf);
    if (next) at = next;
  }
}

static void test_writer_truncated(void) {
  wout o;
  write_stream(SLUICE_WRITE_OPENAI_SSE, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n",
               &o);
  CHECKF(strstr(o.buf, "[DONE]") == NULL && strstr(o.buf, "\"stream_truncated\"") != NULL,
         "a truncated stream: %s", o.buf);
  write_stream(SLUICE_WRITE_ANTHROPIC_SSE,
               "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
               "\"text_delta\",\"text\":\"x\"}}\n\n",
               &o);
  CHECKF(strstr(o.buf, "message_stop") == NULL && strstr(o.buf, "stream_truncated") != NULL,
         "a truncated stream: %s", o.buf);
}

/* Deltas that cut a character (a filter may release half of one): no
 * written event holds a partial character, and the text comes out whole. */
static void test_writer_utf8(void) {
  wout o;
  memset(&o, 0, sizeof o);
  sluice_writer *w;
  CHECK(sluice_writer_new(&w, NULL, collect, &o, NULL, NULL) == SLUICE_OK);
  sluice_sink sink = sluice_writer_sink(w);
  static const char *const pieces[] = {"caf\xc3", "\xa9 \xf0\x9f", "\x98", "\x80!", "\xff",
                                       "end\xe2\x82"};
  for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
    sluice_event ev = {SLUICE_EV_DELTA, "text", 4, pieces[i], strlen(pieces[i]), NULL, 0, 0, 0, 0};
    CHECK(sink.event(sink.user, &ev) == 0);
  }
  sluice_event end = {SLUICE_EV_END, NULL, 0, NULL, 0, NULL, 0, 0, 0, 1};
  CHECK(sink.event(sink.user, &end) == 0);
  CHECKF(sluice_utf8_valid(o.buf, o.n), "invalid UTF-8 written: %s", o.buf);
  /* every event is whole: the text joined, invalid bytes as U+FFFD */
  tbuf text = {0};
  for (const char *p = o.buf; (p = strstr(p, "\"content\":\"")); p++) {
    p += 11;
    const char *q = strchr(p, '"');
    tbuf_xadd(&text, p, (size_t)(q - p));
  }
  CHECKF(text.p && strcmp(text.p,
                          "caf\xc3\xa9 \xf0\x9f\x98\x80!\xef\xbf\xbd"
                          "end\xef\xbf\xbd") == 0,
         "joined text: %s", text.p ? text.p : "(none)");
  tbuf_free(&text);
  sluice_writer_free(w);
}

/* ---------------- failure injection while feeding ---------------- */

static const char stream_openai[] =
    ": keep-alive\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<think>plan\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":1,\"delta\":{\"reasoning_content\":\"r\\u00e9\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"</think>Hi \\\"there\\\"\","
    "\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":"
    "\"{'a': 1,\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],"
    "\"usage\":{\"total_tokens\":3}}\n\ndata: [DONE]\n\n";

/* A filter built by name, fed in 7-byte chunks with the Nth allocation of
 * its allocator failing, for every N: SLUICE_OK or SLUICE_NOMEM, nothing
 * leaked. */
static void inject_by_name(const char *filter, const char *options, const char *input) {
  long n;
  int completed = 0;
  for (n = 0; n < 20000 && !completed; n++) {
    test_faulty fm;
    sluice_mem mem = test_faulty_mem(&fm, n);
    sluice_output *out;
    sluice_mem plain = test_faulty_mem(&(test_faulty){0}, -1);
    CHECK(sluice_output_new(&out, &plain) == SLUICE_OK);
    sluice_sink sink = sluice_output_sink(out);
    sluice_filter *f = NULL;
    sluice_status st =
        sluice_filter_new_json(&f, filter, options, strlen(options), &sink, &mem, NULL);
    size_t len = strlen(input);
    for (size_t i = 0; st == SLUICE_OK && i < len; i += 7)
      st = sluice_feed(f, input + i, len - i < 7 ? len - i : 7);
    if (st == SLUICE_OK) st = sluice_finish(f);
    CHECKF(st == SLUICE_OK || st == SLUICE_NOMEM, "%s: allocation %ld: %s", filter, n,
           sluice_status_name(st));
    CHECKF(fm.failed == (st != SLUICE_OK), "%s: allocation %ld: failure %s, status %s", filter, n,
           fm.failed ? "injected" : "not injected", sluice_status_name(st));
    sluice_free(f);
    sluice_output_free(out);
    CHECKF(fm.live == 0, "%s: allocation %ld: %ld blocks leaked", filter, n, fm.live);
    completed = !fm.failed;
  }
  CHECKF(completed && n > 3, "%s: %ld runs", filter, n);
}

static void test_feeding_faults(void) {
  inject_by_name("sse", "{}", stream_openai);
  inject_by_name("chunks", "{}",
                 "{\"a\":\"a line longer than the line buffer's first allocation of sixty-four "
                 "bytes\"}\n\n{\"b\":2}");
  inject_by_name("provider", "{}", stream_openai);
  inject_by_name("pipeline",
                 "{\"filters\":[{\"filter\":\"think\"},{\"filter\":\"monitor\"}],\"arguments\":{}}",
                 stream_openai);
  /* the writer's own allocations */
  long n;
  int completed = 0;
  for (n = 0; n < 1000 && !completed; n++) {
    test_faulty fm;
    sluice_mem mem = test_faulty_mem(&fm, n);
    wout o;
    memset(&o, 0, sizeof o);
    sluice_writer *w = NULL;
    sluice_status st = sluice_writer_new(&w, NULL, collect, &o, &mem, NULL);
    if (st == SLUICE_OK) {
      sluice_sink sink = sluice_writer_sink(w);
      sluice_filter *f;
      CHECK(sluice_provider_new(&f, NULL, &sink, NULL, NULL) == SLUICE_OK);
      st = sluice_once(f, stream_openai, strlen(stream_openai));
      if (st == SLUICE_CALLBACK) st = sluice_writer_status(w);
      sluice_free(f);
    }
    CHECKF(st == SLUICE_OK || st == SLUICE_NOMEM, "writer: allocation %ld: %s", n,
           sluice_status_name(st));
    sluice_writer_free(w);
    CHECKF(fm.live == 0, "writer: allocation %ld: %ld blocks leaked", n, fm.live);
    completed = !fm.failed;
  }
  CHECK(completed && n > 2);
}


/* ---------------- the JSON reader against jansson ---------------- */

static void test_reader(void) {
  static const char *const texts[] = {
      "{}", "[]", "{\"a\":[1,2,{\"b\":null}],\"c\":\"\\u00e9\\ud83d\\ude00\"}", "  {\"a\" : 1 }  ",
      "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{a:1}", "\"\\ud800\"", "\"\\udc00x\"", "\"a\\x\"",
      "\"\\u12g4\"", "-", "01", "1.", "1e", "-0", "1E+2", "tru", "nul", "\"\x01\"", "\"\xc3\"",
      "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe0\x80\x80\"", "{\"a\":1}x", "[1 2]", "",
      "\"\\u0000\"", "123456789012345678901234567890", "[[[[[]]]]]", "{\"a\":{\"b\":{}}}",
      "\"\xef\xbb\xbf\"", "\xef\xbb\xbf{}", "[\"a\",\"b\",]", "{\"\":\"\"}", "[true,false,null]"};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    size_t n = strlen(texts[i]);
    CHECKF(jr_agrees_with_jansson(texts[i], n), "reader and jansson part on %s", texts[i]);
  }
  /* Random mutations of a chunk: the same verdict as jansson's. */
  static const char base[] =
      "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\\"\\n\\u00e9\"},\"x\":[1.5e3,-0,"
      "true,null]}],\"usage\":{\"n\":1}}";
  static const char alphabet[] = "{}[]\":,\\u0123456789.eE+-tfnrl \x80\xc3\xa9";
  sluice_rng rng = sluice_rng_seed(11);
  for (int t = 0; t < 20000; t++) {
    char buf[sizeof base + 8];
    size_t n = sizeof base - 1;
    memcpy(buf, base, n);
    int edits = 1 + (int)sluice_rng_below(&rng, 3);
    for (int e = 0; e < edits; e++) {
      size_t at = (size_t)sluice_rng_below(&rng, n);
      char c = alphabet[sluice_rng_below(&rng, sizeof alphabet - 1)];
      if (sluice_rng_below(&rng, 2) && n + 1 < sizeof buf) {
        memmove(buf + at + 1, buf + at, n - at);
        n++;
      }
      buf[at] = c;
    }
    if (!jr_agrees_with_jansson(buf, n)) {
      CHECKF(0, "reader and jansson part on a mutation: %.*s", (int)n, buf);
      break;
    }
  }
  /* Deep nesting is refused, never recursed into. */
  size_t deep = 100000;
  char *d = malloc(2 * deep);
  memset(d, '[', deep);
  memset(d + deep, ']', deep);
  CHECK(!jr_accepts(d, 2 * deep));
  free(d);
}

/* ---------------- the capture reader ---------------- */

/* The recorded chunks of a capture written to a file: one per piece (an SSE
 * event, an NDJSON line, a .chunks.jsonl line framed as its server sent
 * it); and a cutter's chunks join to the same body. */
static void recorded_chunks(const char *file, const char *const *want, size_t nwant) {
  char path[] = "/tmp/sluice-test-capread-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0 && write_all(fd, file, strlen(file)) == 0);
  tbuf body = {0};
  for (size_t i = 0; i < nwant; i++) tbuf_xadds(&body, want[i]);
  close(fd);
  capread c;
  CHECK(capread_open(&c, path, 1 << 20) == 0);
  const char *p;
  size_t n, k = 0;
  int r;
  while ((r = capread_next(&c, &p, &n)) > 0) {
    CHECKF(k < nwant && n == strlen(want[k]) && memcmp(p, want[k], n) == 0,
           "recorded chunk %zu: %.*s", k, (int)n, p);
    k++;
  }
  CHECK(r == 0 && k == nwant);
  /* random sizes, empty chunks among them, join to the body */
  cutter cut;
  cutter_init(&cut, CUT_RANDOM, 5, 3);
  CHECK(capread_rewind(&c) == 0);
  capread_cut_cutter(&c, &cut);
  tbuf all = {0};
  while ((r = capread_next(&c, &p, &n)) > 0) tbuf_xadd(&all, p, n);
  CHECK(r == 0 && all.n == body.n && memcmp(all.p, body.p, all.n) == 0);
  CHECK(capread_size(&c) == body.n);
  tbuf_free(&all);
  tbuf_free(&body);
  capread_close(&c);
  unlink(path);
}

static void test_capread(void) {
  static const char *const sse[] = {": hi\n\n", "data: a\n\n", "event: x\r\ndata: b\r\n\r\n",
                                    "data: c\r\r", "data: d"};
  recorded_chunks(": hi\n\ndata: a\n\nevent: x\r\ndata: b\r\n\r\ndata: c\r\rdata: d", sse, 5);
  static const char *const lines[] = {"{\"done\":false,\"response\":\"a\"}\n", "\n",
                                      "{\"done\":true}\r\n", "{}"};
  recorded_chunks("{\"done\":false,\"response\":\"a\"}\n\n{\"done\":true}\r\n{}", lines, 4);
  static const char *const chunks[] = {"data: {\"choices\":[]}\n\n", "data: {\"b\":\"\\r\"}\n\n"};
  recorded_chunks("\n{\"choices\":[]}\n{\"b\":\"\\r\"}", chunks, 2);
}


/* ---------------- capsrc: a file through the one reader ---------------- */

typedef struct collected {
  tbuf body;
  size_t pieces;
  uint64_t last_t, last_source;
  size_t stop_after; /* 0: never */
} collected;

static int collect_piece(void *user, const char *p, size_t n, uint64_t t, uint64_t source) {
  collected *c = user;
  tbuf_xadd(&c->body, p, n);
  c->pieces++;
  c->last_t = t;
  c->last_source = source;
  return c->stop_after && c->pieces == c->stop_after;
}

static void write_tmp(char *path, const void *p, size_t n) {
  int fd = mkstemp(path);
  CHECK(fd >= 0 && write(fd, p, n) == (ssize_t)n);
  close(fd);
}

#ifdef SLUICE_HAVE_ZLIB
/* a .capture.jsonl whose body is `body` gzip-encoded, in two pieces */
static void gzip_recording(char *path, const char *body, size_t n, int timed) {
  unsigned char gz[1 << 16];
  z_stream z;
  memset(&z, 0, sizeof z);
  CHECK(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  z.next_in = (Bytef *)(uintptr_t)body;
  z.avail_in = (uInt)n;
  z.next_out = gz;
  z.avail_out = sizeof gz;
  CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
  size_t gn = sizeof gz - z.avail_out;
  deflateEnd(&z);
  tbuf f = {0};
  tbuf_xprintf(&f, "{\"sluice_capture\":1,\"timed\":%s,\"response\":{\"status\":201,"
               "\"headers\":{\"Content-Encoding\":\"gzip\"}}}\n", timed ? "true" : "false");
  size_t half = gn / 2;
  for (int k = 0; k < 2; k++) {
    char *b64 = b64_encode((const char *)gz + (k ? half : 0), k ? gn - half : half);
    tbuf_xprintf(&f, "{\"t\":0.%d,\"data_b64\":\"%s\"}\n", k + 1, b64);
    free(b64);
  }
  tbuf_xadds(&f, "{\"t\":0.3,\"end\":\"complete\"}\n");
  write_tmp(path, f.p, f.n);
  tbuf_free(&f);
}

/* gzip-encoded recordings: decoded, detected, and a bomb stopped */
static void test_capsrc_gzip(void) {
  capsrc_info info;
  tbuf err = {0};
  collected c;
  /* a gzip-encoded recording, decoded; the detector names the body */
  const char *body = "data: {\"object\":\"chat.completion.chunk\",\"model\":\"gz-model\","
                     "\"choices\":[]}\n\ndata: [DONE]\n\n";
  char path[] = "/tmp/sluice-test-capsrc-XXXXXX";
  gzip_recording(path, body, strlen(body), 1);
  memset(&c, 0, sizeof c);
  CHECK(capsrc_read(path, 0, collect_piece, &c, &info, &err) == 0);
  CHECKF(c.body.n == strlen(body) && memcmp(c.body.p, body, c.body.n) == 0, "gzip body: %.*s",
         (int)c.body.n, c.body.p);
  CHECK(info.gzip && info.timed && info.status == 201 && info.format == SLUICE_CAPTURE_RECORDED);
  CHECKF(info.endpoint == SLUICE_ENDPOINT_OPENAI_CHAT && strcmp(info.model, "gz-model") == 0,
         "detected %s %s", sluice_endpoint_name(info.endpoint), info.model);
  CHECK(strcmp(info.end, "complete") == 0 && c.last_t == 200000);
  capsrc_info_free(&info);
  tbuf_free(&c.body);
  unlink(path);
  /* a gzip bomb: 64 MiB of zeros is refused by the ratio cap, cleanly */
  size_t big = (size_t)64 << 20;
  char *zeros = calloc(1, big);
  strcpy(path, "/tmp/sluice-test-capsrc-XXXXXX");
  gzip_recording(path, zeros, big, 0);
  free(zeros);
  memset(&c, 0, sizeof c);
  err.n = 0;
  CHECK(capsrc_read(path, 0, collect_piece, &c, &info, &err) == -1);
  CHECKF(err.n && strstr(err.p, "times its size"), "bomb: %.*s", (int)err.n, err.p);
  CHECK(c.body.n < ((size_t)1 << 20));
  capsrc_info_free(&info);
  tbuf_free(&c.body);
  unlink(path);
  tbuf_free(&err);
}
#endif

static void test_capsrc(void) {
  capsrc_info info;
  tbuf err = {0};
  collected c;
  char path[] = "/tmp/sluice-test-capsrc-XXXXXX";
#ifdef SLUICE_HAVE_ZLIB
  test_capsrc_gzip();
#endif
  /* a malformed line: the file, the line and the byte */
  const char *bad = "{\"a\":1}\n{\"b\":}\n";
  strcpy(path, "/tmp/sluice-test-capsrc-XXXXXX");
  write_tmp(path, bad, strlen(bad));
  err.n = 0;
  memset(&c, 0, sizeof c);
  CHECK(capsrc_read(path, 0, collect_piece, &c, &info, &err) == -1);
  tbuf_xadd(&err, "", 1);
  CHECKF(strstr(err.p, path) && strstr(err.p, "line 2, byte 13: capture_format:"), "%s", err.p);
  capsrc_info_free(&info);
  tbuf_free(&c.body);
  /* the caller stops it */
  memset(&c, 0, sizeof c);
  c.stop_after = 1;
  const char *two = "data: 1\n\ndata: 2\n\n";
  int fd = open(path, O_WRONLY | O_TRUNC);
  CHECK(fd >= 0 && write(fd, two, strlen(two)) == (ssize_t)strlen(two));
  close(fd);
  CHECK(capsrc_read(path, 0, collect_piece, &c, &info, &err) == 1 && c.pieces == 1);
  capsrc_info_free(&info);
  tbuf_free(&c.body);
  /* the body cap */
  memset(&c, 0, sizeof c);
  err.n = 0;
  CHECK(capsrc_read(path, 8, collect_piece, &c, &info, &err) == -1);
  tbuf_xadd(&err, "", 1);
  CHECKF(strstr(err.p, "larger than the limit"), "%s", err.p);
  capsrc_info_free(&info);
  tbuf_free(&c.body);
  unlink(path);
  err.n = 0;
  CHECK(capsrc_read("/nonexistent/sluice", 0, NULL, NULL, &info, &err) == -1);
  capsrc_info_free(&info);
  tbuf_free(&err);
}

/* ---------------- resplit: the content with other delta boundaries ---------------- */

/* The text deltas of body read back: their count and their concatenation. */
static size_t text_deltas(const char *body, size_t n, tbuf *text, int *complete) {
  sluice_output *o;
  CHECK(sluice_output_new(&o, NULL) == SLUICE_OK);
  sluice_sink sink = sluice_output_sink(o);
  sluice_filter *f;
  CHECK(sluice_provider_new(&f, NULL, &sink, NULL, NULL) == SLUICE_OK);
  CHECK(sluice_once(f, body, n) == SLUICE_OK);
  size_t count = 0;
  text->n = 0;
  for (size_t i = 0; i < sluice_output_event_count(o); i++) {
    const sluice_event *ev = sluice_output_event(o, i);
    if (ev->type == SLUICE_EV_DELTA && ev->name_len == 4 && memcmp(ev->name, "text", 4) == 0) {
      tbuf_xadd(text, ev->data, ev->data_len);
      count++;
    }
    if (ev->type == SLUICE_EV_END) *complete = ev->complete;
  }
  sluice_free(f);
  sluice_output_free(o);
  return count;
}

static void test_resplit(void) {
  const char *body =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a<th\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ink>\\u00e9</think>\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n";
  static const char want[] = "a<think>\xc3\xa9</think>";
  char why[200];
  rs_content c;
  CHECK(rs_load(&c, body, strlen(body), SLUICE_ENDPOINT_OPENAI_CHAT, "m", why, sizeof why) == 0);
  CHECKF(c.points == 2 + 17, "content positions: %llu", (unsigned long long)c.points);
  static const struct {
    const char *spec;
    size_t deltas;
  } modes[] = {{"whole", 1},     {"codepoint", 17}, {"at:3", 2}, {"at:3,5,7", 4},
               /* 2 is where the text's run begins: no cut there */
               {"at:2,3,17", 3}, {"random:7", 0}};
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    rs_spec spec;
    CHECK(rs_parse(modes[m].spec, &spec, why, sizeof why) == 0);
    char back[64];
    rs_format(&spec, back, sizeof back);
    CHECKF(strcmp(back, modes[m].spec) == 0, "%s formats as %s", modes[m].spec, back);
    tbuf out = {0}, text = {0};
    size_t *ends = NULL, n_ends = 0;
    CHECK(rs_write(&c, &spec, &out, &ends, &n_ends) == 0);
    int complete = 0;
    size_t d = text_deltas(out.p, out.n, &text, &complete);
    CHECKF(text.n == strlen(want) && memcmp(text.p, want, text.n) == 0, "%s: text %.*s",
           modes[m].spec, (int)text.n, text.p);
    CHECKF(complete, "%s: not complete", modes[m].spec);
    /* positions 0 and 1 are the reasoning's; 2 the text's first */
    if (modes[m].deltas) CHECKF(d == modes[m].deltas, "%s: %zu text deltas", modes[m].spec, d);
    else CHECKF(d > 1 && d < 17, "%s: %zu text deltas", modes[m].spec, d);
    CHECK(n_ends > 0 && ends[n_ends - 1] == out.n);
    free(ends);
    tbuf_free(&out);
    tbuf_free(&text);
    rs_spec_free(&spec);
  }
  rs_free(&c);
  /* Anthropic content is written as Anthropic events */
  const char *an =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"c\"}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"Answer\\n\"}}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"end_turn\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  CHECK(rs_load(&c, an, strlen(an), SLUICE_ENDPOINT_ANTHROPIC, "c", why, sizeof why) == 0);
  rs_spec spec;
  CHECK(rs_parse("at:6", &spec, why, sizeof why) == 0);
  tbuf out = {0}, text = {0};
  size_t *ends = NULL, n_ends = 0;
  CHECK(rs_write(&c, &spec, &out, &ends, &n_ends) == 0);
  int complete = 0;
  CHECK(text_deltas(out.p, out.n, &text, &complete) == 2 && complete);
  CHECK(strstr(out.p, "\"text\":\"\\n\"") != NULL); /* the whitespace-only last delta */
  rs_spec_free(&spec);
  free(ends);
  tbuf_free(&out);
  tbuf_free(&text);
  rs_free(&c);
  /* bad specs */
  CHECK(rs_parse("at:5,3", &spec, why, sizeof why) == -1);
  CHECK(rs_parse("at:", &spec, why, sizeof why) == -1);
  CHECK(rs_parse("sometimes", &spec, why, sizeof why) == -1);
  CHECK(!rs_supported(SLUICE_ENDPOINT_GEMINI));
}

int main(void) {
  test_writer_openai();
  test_writer_anthropic();
  test_writer_truncated();
  test_writer_utf8();
  test_feeding_faults();

  test_reader();
  test_capread();
  test_capsrc();
  test_resplit();
  return test_report("test_stream");
}
