/*
 * test_tools.c: the shared tool code below the commands: canonical base64,
 * readable bytes, the JSON writer, split modes, the minimizer, the answer
 * comparison, the collector comparison and the gate's protocol mapping
 * (norm.h, one check per rule).
 */
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "bytes.h"
#include "chunking.h"
#include "jsonw.h"
#include "norm.h"
#include "outcmp.h"
#include "testutil.h"

static void test_base64(void) {
  static const char *const good[][2] = {{"", ""}, {"Zg==", "f"}, {"Zm8=", "fo"},
                                        {"Zm9v", "foo"}, {"/w==", "\xff"}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    tbytes b;
    CHECKF(b64_decode(good[i][0], strlen(good[i][0]), &b) == 0, "decode %s", good[i][0]);
    CHECK(b.n == strlen(good[i][1]) && memcmp(b.p, good[i][1], b.n) == 0);
    char *e = b64_encode(b.p, b.n);
    CHECK(e && strcmp(e, good[i][0]) == 0);
    free(e);
    free(b.p);
  }
  /* Non-canonical encodings: every byte string has exactly one. */
  static const char *const bad[] = {"Zg", "Zh==", "Zm9=", "Zg=a", "Z===", "Zm9v\n", "Zm 9"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tbytes b;
    CHECKF(b64_decode(bad[i], strlen(bad[i]), &b) != 0, "accepted %s", bad[i]);
  }
}

static void test_show(void) {
  tbuf b = {0};
  bytes_show(&b, "a\xff\n\"\xc3\xa9", 6, 0);
  CHECKF(strcmp(b.p, "\"a\\xff\\n\\\"\xc3\xa9\"") == 0, "got %s", b.p);
  b.n = 0;
  char big[1000];
  memset(big, 'x', sizeof big);
  bytes_show(&b, big, sizeof big, 60);
  CHECKF(strstr(b.p, "(940 bytes)") != NULL, "got %s", b.p);
  tbuf_free(&b);
}

static void test_writer(void) {
  tbuf b = {0};
  jsonw w;
  jw_init(&w, &b);
  jw_begin_object(&w);
  jw_key(&w, "s");
  jw_string(&w, "a\"\\\n\x01", 5);
  jw_key(&w, "a");
  jw_begin_array(&w);
  jw_int(&w, -3);
  jw_bool(&w, 1);
  jw_null(&w);
  jw_end_array(&w);
  jw_bytes_field(&w, "t", "\xff", 1);
  jw_end_object(&w);
  CHECKF(strcmp(b.p, "{\"s\":\"a\\\"\\\\\\n\\u0001\",\"a\":[-3,true,null],\"t_b64\":\"/w==\"}") == 0,
         "got %s", b.p);
  /* A limit makes it fail instead of growing. */
  tbuf small = {0};
  small.limit = 8;
  jw_init(&w, &small);
  jw_string(&w, "0123456789", 10);
  CHECK(w.failed);
  tbuf_free(&b);
  tbuf_free(&small);
}

static size_t count_mode(split_mode m, size_t n, const split_params *p) {
  split_iter it;
  split_begin(&it, m, n, p, 7, NULL);
  chunking k = {0};
  size_t count = 0;
  while (split_next(&it, &k)) {
    CHECKF(chunking_total(&k) == n, "mode %s: a chunking of %zu bytes for %zu",
           split_mode_names[m], chunking_total(&k), n);
    count++;
  }
  chunking_free(&k);
  return count;
}

static void test_split_modes(void) {
  split_params p;
  split_params_default(&p);
  CHECK(count_mode(M_WHOLE, 10, &p) == 1);
  CHECK(count_mode(M_SINGLE, 10, &p) == 9);
  CHECK(count_mode(M_PAIRS, 10, &p) == 36);
  CHECK(count_mode(M_EXHAUSTIVE, 10, &p) == 512);
  CHECK(count_mode(M_EXHAUSTIVE, 17, &p) == 0); /* past --max-exhaustive */
  CHECK(count_mode(M_RANDOM, 10, &p) == 32);
  CHECK(count_mode(M_EMPTY, 10, &p) == 10);
  CHECK(count_mode(M_BYTES, 0, &p) == 0);
  CHECK(count_mode(M_STREAM_BYTES, 0, &p) == 1); /* an empty session still streams */
  CHECK(count_mode(M_STREAM_RANDOM, 10, &p) == 1);
  p.max_single = 100;
  CHECK(count_mode(M_SINGLE, 100000, &p) == 100);
}

/* The minimizer: a failure that needs a cut at 7 and one at 20 of a
 * 4096-byte input cut a byte at a time. */
static size_t tries;
static int needs_7_and_20(const chunking *k, void *ctx) {
  (void)ctx;
  tries++;
  int c7 = 0, c20 = 0;
  size_t pos = 0;
  for (size_t i = 0; i + 1 < k->n; i++) {
    pos += k->len[i];
    c7 |= pos == 7;
    c20 |= pos == 20;
  }
  return c7 && c20;
}

static void test_minimizer(void) {
  chunking k = {0};
  for (int i = 0; i < 4096; i++) chunking_push(&k, 1);
  tries = 0;
  minimize_chunking(&k, needs_7_and_20, NULL, 2000);
  CHECKF(k.n == 3 && k.len[0] == 7 && k.len[1] == 13 && k.len[2] == 4076,
         "minimized to %zu chunks", k.n);
  /* Logarithmic in the number of chunks, not linear. */
  CHECKF(tries < 300, "%zu tries", tries);
  chunking_free(&k);
}

static void test_answers(void) {
  json_t *ex = json_loads("{\"text\": \"ac\", \"events\": [{\"type\": \"thought\", \"tag\": \"think\","
                          " \"text\": {\"hex\": \"62\"}, \"complete\": true}]}", 0, NULL);
  answer e, a;
  char why[200];
  CHECK(answer_from_expect(&e, ex, why, sizeof why) == 0);
  json_t *ok = json_loads("{\"ok\": true, \"text\": \"ac\", \"thought\": \"b\", \"other\": \"\", "
                          "\"markup\": \"\", \"dropped\": \"\", \"events\": [{\"complete\": true, "
                          "\"text_b64\": \"Yg==\", \"tag\": \"think\", \"type\": \"thought\"}]}",
                          0, NULL);
  answer_from_json(&a, ok);
  diff_opts d = {.offsets = 1};
  /* thought differs ("b" against none): one field */
  CHECK(answer_diff(&e, &a, &d, NULL, "") == 1);
  tbuf out = {0};
  answer_diff(&e, &a, &d, &out, "");
  CHECKF(strstr(out.p, "thought") && strstr(out.p, "expected \"\""), "diff: %s", out.p);
  answer_free(&a);
  /* a missing channel is a difference even when it would be empty */
  json_object_del(ok, "dropped");
  json_object_set_new(ok, "thought", json_string(""));
  answer_from_json(&a, ok);
  CHECK(answer_diff(&e, &a, &d, NULL, "") == 1);
  out.n = 0;
  answer_diff(&e, &a, &d, &out, "");
  CHECKF(strstr(out.p, "dropped") && strstr(out.p, "missing"), "diff: %s", out.p);
  answer_free(&a);
  json_object_set_new(ok, "dropped", json_string(""));
  answer_from_json(&a, ok);
  CHECK(answer_diff(&e, &a, &d, NULL, "") == 0);
  answer_free(&a);
  /* What another implementation can express (sluice diff): an answer of
   * text and thought alone is compared in those fields only. */
  json_t *peer = json_loads("{\"ok\": true, \"text\": \"ac\", \"thought\": \"\"}", 0, NULL);
  answer_from_json(&a, peer);
  CHECKF(answer_fields(&a) == ((1u << SLUICE_TEXT) | (1u << SLUICE_THOUGHT)), "fields %x",
         answer_fields(&a));
  diff_opts masked = {.fields = answer_fields(&a)};
  CHECK(answer_diff(&e, &a, &masked, NULL, "") == 0);
  CHECK(answer_diff(&e, &a, &d, NULL, "") > 0); /* unmasked: channels and events missing */
  answer_free(&a);
  json_object_set_new(peer, "thought", json_string("B"));
  answer_from_json(&a, peer);
  CHECK(answer_diff(&e, &a, &masked, NULL, "") == 1);
  answer_free(&a);
  json_decref(peer);
  /* Events projected on what an implementation reports. */
  tstrs evs = {0}, types = {0}, keys = {0};
  tstrs_push(&evs, xstrdup("{\"data\":\"x\",\"event\":\"message\",\"id\":\"7\",\"type\":\"event\"}"));
  tstrs_push(&evs, xstrdup("{\"retry\":\"10\",\"type\":\"retry\"}"));
  tstrs_push(&evs, xstrdup("{\"data_b64\":\"/w==\",\"event\":\"m\",\"id\":\"\",\"type\":\"event\"}"));
  events_project(&evs, &types, &keys); /* empty lists: unchanged */
  CHECK(evs.n == 3);
  tstrs_push(&types, xstrdup("event"));
  tstrs_push(&keys, xstrdup("data"));
  tstrs_push(&keys, xstrdup("event"));
  events_project(&evs, &types, &keys);
  CHECKF(evs.n == 2 && strcmp(evs.v[0], "{\"data\":\"x\",\"event\":\"message\",\"type\":\"event\"}") == 0 &&
             strcmp(evs.v[1], "{\"data_b64\":\"/w==\",\"event\":\"m\",\"type\":\"event\"}") == 0,
         "projected: %zu %s", evs.n, evs.n ? evs.v[0] : "");
  tstrs_free(&evs);
  tstrs_free(&types);
  tstrs_free(&keys);
  /* Error codes: compared unless ignore_codes (each names its errors). */
  answer x, y;
  answer_init(&x);
  answer_init(&y);
  answer_set_error(&x, "invalid_json", "", 3);
  answer_set_error(&y, "SyntaxError", "Unexpected token", 5);
  CHECK(answer_diff(&x, &y, &d, NULL, "") == 1);
  diff_opts any = {.offsets = 1, .ignore_codes = 1};
  CHECK(answer_diff(&x, &y, &any, NULL, "") == 0);
  answer_free(&x);
  answer_free(&y);
  answer_free(&e);
  tbuf_free(&out);
  json_decref(ok);
  json_decref(ex);
}

static void test_output_compare(void) {
  sluice_output *a = NULL, *b = NULL;
  CHECK(sluice_output_new(&a, NULL) == SLUICE_OK && sluice_output_new(&b, NULL) == SLUICE_OK);
  if (!a || !b) return;
  sluice_sink sa = sluice_output_sink(a), sb = sluice_output_sink(b);
  sluice_event ev = {SLUICE_EV_SSE, "message", 7, "x", 1, "1", 1, 0, 0, 0};
  sa.emit(sa.user, SLUICE_TEXT, "hi", 2);
  sb.emit(sb.user, SLUICE_TEXT, "hi", 2);
  sa.event(sa.user, &ev);
  ev.data = "y"; /* the data differs: the helpers that ignored data missed this */
  sb.event(sb.user, &ev);
  char why[200];
  CHECK(output_compare(a, b, 1, why, sizeof why) == 1);
  sluice_output_reset(b);
  sb.emit(sb.user, SLUICE_TEXT, "hi", 2);
  ev.data = "x";
  ev.id = "2"; /* and the id */
  sb.event(sb.user, &ev);
  CHECK(output_compare(a, b, 1, why, sizeof why) == 1);
  sluice_output_reset(b);
  sb.emit(sb.user, SLUICE_TEXT, "hi", 2);
  ev.id = "1";
  sb.event(sb.user, &ev);
  CHECK(output_compare(a, b, 1, why, sizeof why) == 0);
  /* Event pointers stay put while more events arrive. */
  const sluice_event *first = sluice_output_event(a, 0);
  const char *data = first->data;
  for (int i = 0; i < 10000; i++) sa.event(sa.user, &ev);
  CHECK(sluice_output_event(a, 0) == first && first->data == data && data[0] == 'x');
  sluice_output_free(a);
  sluice_output_free(b);
}

/* Reads body as endpoint e into o and settles it for client; the body
 * must read. */
static void norm_read(outcome *o, const char *body, sluice_endpoint e, sluice_endpoint client) {
  char why[200] = "";
  outcome_init(o);
  CHECK(outcome_read(o, body, strlen(body), e, why, sizeof why) == 0);
  outcome_settle(o, client);
}

/* 1 when a (read as ea) and b (as eb) differ for a client of eb's protocol. */
static int norm_differ(const char *a, sluice_endpoint ea, const char *b, sluice_endpoint eb,
                       char *why, size_t wl) {
  outcome x, y;
  norm_read(&x, a, ea, eb);
  norm_read(&y, b, eb, eb);
  int d = outcome_compare(&x, &y, why, wl);
  outcome_free(&x);
  outcome_free(&y);
  return d;
}

#define OA(delta, fin)                                                                  \
  "data: {\"choices\":[{\"index\":0,\"delta\":" delta ",\"finish_reason\":" fin "}]}\n\n"
#define AN(type, json) "event: " type "\ndata: {\"type\":\"" type "\"" json "}\n\n"
#define AN_START AN("message_start", ",\"message\":{\"id\":\"m\",\"role\":\"assistant\",\"content\":[]}")
#define AN_STOP(reason)                                                                   \
  AN("message_delta", ",\"delta\":{\"stop_reason\":\"" reason "\"}") AN("message_stop", "")

static void test_norm(void) {
  const sluice_endpoint OAI = SLUICE_ENDPOINT_OPENAI_CHAT, ANT = SLUICE_ENDPOINT_ANTHROPIC,
                        OLL = SLUICE_ENDPOINT_OLLAMA_CHAT;
  char why[300];
  /* Rule 1: each protocol's words for the same end. */
  char out[48];
  norm_finish(ANT, "end_turn", 8, out, sizeof out);
  CHECK(strcmp(out, "stop") == 0);
  norm_finish(SLUICE_ENDPOINT_GEMINI, "MAX_TOKENS", 10, out, sizeof out);
  CHECK(strcmp(out, "length") == 0);
  norm_finish(SLUICE_ENDPOINT_COHERE, "TOOL_CALL", 9, out, sizeof out);
  CHECK(strcmp(out, "tool_calls") == 0);
  norm_finish(OAI, "end_turn", 8, out, sizeof out); /* not OpenAI's word */
  CHECK(strncmp(out, "raw:", 4) == 0);
  /* Rules 1 and 3: reasoning and text through OpenAI chat and Anthropic agree. */
  const char *oai = OA("{\"reasoning_content\":\"hm\"}", "null") OA("{\"content\":\"Hi\"}", "null")
      OA("{}", "\"stop\"") "data: [DONE]\n\n";
  const char *ant = AN_START
      AN("content_block_start", ",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}")
      AN("content_block_delta", ",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}")
      AN("content_block_stop", ",\"index\":0")
      AN("content_block_start", ",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}")
      AN("content_block_delta", ",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}")
      AN("content_block_stop", ",\"index\":1") AN_STOP("end_turn");
  CHECK(norm_differ(oai, OAI, ant, ANT, why, sizeof why) == 0);
  /* ... and reasoning carried as text is not reasoning. */
  const char *leaked = OA("{\"content\":\"hmHi\"}", "null") OA("{}", "\"stop\"") "data: [DONE]\n\n";
  CHECK(norm_differ(oai, OAI, leaked, OAI, why, sizeof why) == 1 && strstr(why, "text of choice 0"));
  /* Rule 1: a reason outside the protocol's vocabulary differs. */
  const char *wrong = OA("{\"reasoning_content\":\"hm\"}", "null") OA("{\"content\":\"Hi\"}", "null")
      OA("{}", "\"end_turn\"") "data: [DONE]\n\n";
  CHECK(norm_differ(oai, OAI, wrong, OAI, why, sizeof why) == 1 && strstr(why, "finish"));
  /* Rules 2 and 4: Ollama's stop after a call is tool_calls; ids aside,
   * arguments compared as JSON values. */
  const char *calls = OA("{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\","
                         "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\": 1, \\\"b\\\": [2]}\"}}]}",
                         "null") OA("{}", "\"tool_calls\"") "data: [DONE]\n\n";
  const char *ollama =
      "{\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":"
      "{\"name\":\"f\",\"arguments\":{\"b\":[2],\"a\":1}}}]},\"done\":false}\n"
      "{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\"}\n";
  CHECK(norm_differ(calls, OAI, ollama, OLL, why, sizeof why) == 0);
  const char *other_id = OA("{\"tool_calls\":[{\"index\":0,\"id\":\"call_zz\",\"type\":\"function\","
                            "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"b\\\":[2],\\\"a\\\":1}\"}}]}",
                            "null") OA("{}", "\"tool_calls\"") "data: [DONE]\n\n";
  CHECK(norm_differ(calls, OAI, other_id, OAI, why, sizeof why) == 0);
  const char *other_args = OA("{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\","
                              "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":2,\\\"b\\\":[2]}\"}}]}",
                              "null") OA("{}", "\"tool_calls\"") "data: [DONE]\n\n";
  CHECK(norm_differ(calls, OAI, other_args, OAI, why, sizeof why) == 1 && strstr(why, "argument"));
  /* Rule 6: a refusal is text for an Anthropic client, a field for OpenAI's. */
  const char *refusal = OA("{\"refusal\":\"No.\"}", "null") OA("{}", "\"stop\"") "data: [DONE]\n\n";
  const char *ant_text = AN_START
      AN("content_block_start", ",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}")
      AN("content_block_delta", ",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"No.\"}")
      AN("content_block_stop", ",\"index\":0") AN_STOP("end_turn");
  CHECK(norm_differ(refusal, OAI, ant_text, ANT, why, sizeof why) == 0);
  const char *oai_text = OA("{\"content\":\"No.\"}", "null") OA("{}", "\"stop\"") "data: [DONE]\n\n";
  CHECK(norm_differ(refusal, OAI, oai_text, OAI, why, sizeof why) == 1);
  /* Rule 7: a stream cut before its end, or with an error, failed; the
   * content before it still counts. */
  outcome o;
  norm_read(&o, OA("{\"content\":\"Hi\"}", "null"), OAI, OAI);
  CHECK(o.failed && !o.complete && o.ch[0].text.n == 2);
  outcome_free(&o);
  norm_read(&o, AN_START AN("error", ",\"error\":{\"type\":\"overloaded_error\",\"message\":\"x\"}"),
            ANT, ANT);
  CHECK(o.failed && o.errors == 1);
  outcome_free(&o);
  CHECK(norm_differ(oai, OAI, OA("{\"reasoning_content\":\"hm\"}", "null"), OAI, why, sizeof why) == 1);
}

int main(void) {
  test_base64();
  test_show();
  test_writer();
  test_split_modes();
  test_minimizer();
  test_answers();
  test_output_compare();
  test_norm();
  return test_report("test_tools");
}
