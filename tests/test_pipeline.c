/*
 * test_pipeline.c: the stream path of libsluice below the suites, with
 * typed options only (it runs in a library-only build): the pipeline's
 * stages as kinds and options structs, every kind by sluice_filter_new,
 * the endpoints, the chunk detector, and the capture reader and detector
 * under failure injection at every allocation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "testutil.h"

/* ---------------- the typed pipeline ----------------
 * A pipeline built from typed stages keeps copies of their options: the
 * caller's structs and strings are overwritten after construction, and the
 * pipeline must still think with the tags and strip the prefixes it was
 * given (the kit's JSON translation is test_kit.c's). */

static void run_stream(sluice_filter *f, const char *in) {
  size_t len = strlen(in);
  for (size_t i = 0; i < len; i += 5)
    CHECK(sluice_feed(f, in + i, len - i < 5 ? len - i : 5) == SLUICE_OK);
  CHECK(sluice_finish(f) == SLUICE_OK);
}

static void test_typed_pipeline(void) {
  char tag[16], start_in[16];
  strcpy(tag, "plan");
  strcpy(start_in, "plan");
  const char *tags[1] = {tag};
  sluice_think_opts think;
  sluice_think_opts_init(&think);
  think.tags = tags;
  think.ntags = 1;
  char prefix[16];
  strcpy(prefix, "Bot:");
  const char *prefixes[1] = {prefix};
  sluice_clean_opts clean;
  sluice_clean_opts_init(&clean);
  clean.remove_endpoint_prefixes = 1;
  clean.endpoint_prefixes = prefixes;
  clean.n_endpoint_prefixes = 1;
  sluice_json_opts args;
  sluice_json_opts_init(&args);
  sluice_stage stages[2] = {{SLUICE_FILTER_THINK, &think}, {SLUICE_FILTER_CLEAN, &clean}};
  sluice_pipeline_opts po;
  sluice_pipeline_opts_init(&po);
  po.stages = stages;
  po.nstages = 2;
  po.arguments = &args;
  sluice_output *typed;
  CHECK(sluice_output_new(&typed, NULL) == SLUICE_OK);
  sluice_sink ts = sluice_output_sink(typed);
  sluice_filter *f;
  CHECK(sluice_filter_new(&f, SLUICE_FILTER_PIPELINE, &po, &ts, NULL, NULL) == SLUICE_OK);
  /* the caller's options go away */
  memset(tag, 'x', sizeof tag - 1);
  memset(prefix, 'y', sizeof prefix - 1);
  memset(&think, 0xA5, sizeof think);
  memset(&clean, 0x5A, sizeof clean);
  memset(stages, 0, sizeof stages);
  (void)start_in;
  const char *in =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Bot: <pl\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"an>x</plan>hi\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"<plan>y</plan>Bot: z\","
      "\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{'a':1\"}}]}}]}\n\n"
      "data: [DONE]\n\n";
  run_stream(f, in);
  size_t t;
  const char *text = sluice_output_channel(typed, SLUICE_TEXT, &t);
  CHECKF(t == 2 && memcmp(text, "hi", 2) == 0, "typed pipeline text: %.*s", (int)t, text);
  size_t ne = sluice_output_event_count(typed);
  char argbuf[64];
  size_t an = 0;
  for (size_t i = 0; i < ne; i++) {
    const sluice_event *e = sluice_output_event(typed, i);
    if (e->type == SLUICE_EV_DELTA && e->name_len == 9 && memcmp(e->name, "arguments", 9) == 0 &&
        an + e->data_len < sizeof argbuf) {
      memcpy(argbuf + an, e->data, e->data_len);
      an += e->data_len;
    }
  }
  /* the json filter repaired them */
  CHECKF(an == 7 && memcmp(argbuf, "{\"a\":1}", 7) == 0, "typed pipeline arguments: %.*s",
         (int)an, argbuf);
  size_t th;
  const char *thought = sluice_output_channel(typed, SLUICE_THOUGHT, &th);
  CHECKF(th == 1 && thought[0] == 'x', "typed pipeline thought: %.*s", (int)th, thought);
  sluice_free(f);
  sluice_output_free(typed);
  /* a stage that is no text filter, and an unknown kind */
  sluice_stage bad[1] = {{SLUICE_FILTER_JSON, NULL}};
  sluice_pipeline_opts_init(&po);
  po.stages = bad;
  po.nstages = 1;
  sluice_error err;
  CHECK(sluice_pipeline_new(&f, &po, NULL, NULL, &err) == SLUICE_BAD_OPTION);
  CHECKF(strstr(err.message, "not a text filter") != NULL, "%s", err.message);
  CHECK(sluice_filter_new(&f, (sluice_filter_kind)99, NULL, NULL, NULL, &err) ==
        SLUICE_UNSUPPORTED);
  for (int k = 1; k < SLUICE_FILTER_KIND_COUNT; k++) {
    CHECK((int)sluice_filter_kind_from_name(sluice_filter_kind_name((sluice_filter_kind)k)) == k);
    CHECKF(sluice_filter_new(&f, (sluice_filter_kind)k, NULL, NULL, NULL, &err) == SLUICE_OK,
           "kind %d: %s", k, err.message);
    CHECK(strcmp(sluice_filter_name(f), sluice_filter_kind_name((sluice_filter_kind)k)) == 0);
    sluice_free(f);
  }
  CHECK(sluice_filter_kind_from_name("nope") == SLUICE_FILTER_NONE);
}

/* ---------------- endpoints and the chunk detector ---------------- */

static void test_endpoints(void) {
  for (int e = 1; e < SLUICE_ENDPOINT_COUNT; e++) {
    const char *name = sluice_endpoint_name((sluice_endpoint)e);
    CHECK((int)sluice_endpoint_from_name(name) == e);
    const char *path = sluice_endpoint_path((sluice_endpoint)e);
    if (e != SLUICE_ENDPOINT_GEMINI)
      CHECKF((int)sluice_endpoint_of_path(path, strlen(path)) == e, "%s", path);
  }
  static const struct {
    const char *path;
    sluice_endpoint e;
  } paths[] = {{"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                SLUICE_ENDPOINT_GEMINI},
               {"/openai/v1/chat/completions", SLUICE_ENDPOINT_OPENAI_CHAT},
               {"/v1/completions?x=1", SLUICE_ENDPOINT_OPENAI_COMPLETIONS},
               {"/completion", SLUICE_ENDPOINT_LLAMACPP},
               {"/v1/models", SLUICE_ENDPOINT_UNKNOWN}};
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
    CHECKF(sluice_endpoint_of_path(paths[i].path, strlen(paths[i].path)) == paths[i].e, "%s",
           paths[i].path);
  CHECK(sluice_endpoint_framing(SLUICE_ENDPOINT_OLLAMA_CHAT) == SLUICE_FRAMING_NDJSON);
  CHECK(sluice_endpoint_provider(SLUICE_ENDPOINT_OLLAMA_GENERATE) == SLUICE_PROVIDER_OLLAMA);
  sluice_detection d;
  const char *c = "{\"type\":\"message_start\",\"message\":{\"model\":\"m\\u00e9\"}}";
  CHECK(sluice_detect_chunk(c, strlen(c), &d) == SLUICE_OK);
  CHECK(d.endpoint == SLUICE_ENDPOINT_ANTHROPIC && strcmp(d.model, "m\xc3\xa9") == 0);
  CHECK(sluice_detect_chunk("[1]", 3, &d) == SLUICE_PROVIDER_FORMAT);
  CHECK(sluice_detect_chunk("{\"a\":", 5, &d) == SLUICE_PROVIDER_FORMAT);
  CHECK(sluice_detect_chunk("{\"error\":{}}", 12, &d) == SLUICE_OK &&
        d.endpoint == SLUICE_ENDPOINT_UNKNOWN);
}


/* ---------------- failure injection ----------------
 * A filter fed in 7-byte chunks with the Nth allocation failing, for every
 * N: SLUICE_OK or SLUICE_NOMEM, nothing leaked. */

static void inject(const char *label, sluice_filter_kind k, const void *opts, const char *input) {
  long n;
  int completed = 0;
  for (n = 0; n < 20000 && !completed; n++) {
    test_faulty fm;
    sluice_mem mem = test_faulty_mem(&fm, n);
    sluice_filter *f = NULL;
    sluice_status st = sluice_filter_new(&f, k, opts, NULL, &mem, NULL);
    size_t len = strlen(input);
    for (size_t i = 0; st == SLUICE_OK && i < len; i += 7)
      st = sluice_feed(f, input + i, len - i < 7 ? len - i : 7);
    if (st == SLUICE_OK) st = sluice_finish(f);
    CHECKF(st == SLUICE_OK || st == SLUICE_NOMEM, "%s: allocation %ld: %s", label, n,
           sluice_status_name(st));
    CHECKF(fm.failed == (st != SLUICE_OK), "%s: allocation %ld: failure %s, status %s", label, n,
           fm.failed ? "injected" : "not injected", sluice_status_name(st));
    sluice_free(f);
    CHECKF(fm.live == 0, "%s: allocation %ld: %ld blocks leaked", label, n, fm.live);
    completed = !fm.failed;
  }
  CHECKF(completed && n > 3, "%s: %ld runs", label, n);
}

static const char chunks_stream[] =
    "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
    "{\"content\":\"<think>a</think>b\"},\"finish_reason\":\"stop\"}]}\n{\"type\":\"ping\"}";

static const char recorded_stream[] =
    "{\"sluice_capture\":1,\"timed\":false,\"response\":{\"status\":200,\"headers\":"
    "{\"Content-Type\":\"text/event-stream\"}},\"request\":{\"path\":\"/v1/chat/completions\"}}\n"
    "{\"t\":0.1,\"data\":\"data: {\\\"a\\\":1}\\n\\ndata: [DO\"}\n"
    "{\"t\":0.2,\"data_b64\":\"TkVdCgo=\"}\n{\"t\":0.3,\"end\":\"complete\"}\n";

static void test_faults(void) {
  inject("detect", SLUICE_FILTER_DETECT, NULL, chunks_stream);
  inject("capture chunks", SLUICE_FILTER_CAPTURE, NULL, chunks_stream);
  inject("capture recorded", SLUICE_FILTER_CAPTURE, NULL, recorded_stream);
  sluice_think_opts think;
  sluice_think_opts_init(&think);
  sluice_stage stage = {SLUICE_FILTER_THINK, &think};
  sluice_pipeline_opts po;
  sluice_pipeline_opts_init(&po);
  po.stages = &stage;
  po.nstages = 1;
  inject("pipeline", SLUICE_FILTER_PIPELINE, &po, chunks_stream);
}

/* ---------------- the format a model selects ----------------
 * A think stage of format AUTO takes the format its pipeline's model
 * names: the caller's rules first, then the built-in table; none, and the
 * stage's own options decide. A lone filter, which knows no model,
 * refuses AUTO. */

/* The text and thought of one pipeline run over an R1-shaped stream
 * (the template opened <think>: the output starts inside it). */
static void by_model(const char *model, const sluice_model_rule *rules, size_t nrules,
                     const char *want_text, const char *want_thought, const char *explains) {
  sluice_think_opts think;
  sluice_think_opts_init(&think);
  think.format = SLUICE_THINK_FORMAT_AUTO;
  sluice_stage stage = {SLUICE_FILTER_THINK, &think};
  sluice_pipeline_opts po;
  sluice_pipeline_opts_init(&po);
  po.stages = &stage;
  po.nstages = 1;
  po.model = model;
  po.model_rules = rules;
  po.nmodel_rules = nrules;
  sluice_output *out;
  CHECK(sluice_output_new(&out, NULL) == SLUICE_OK);
  sluice_sink sink = sluice_output_sink(out);
  sluice_filter *f;
  sluice_error err;
  CHECKF(sluice_pipeline_new(&f, &po, &sink, NULL, &err) == SLUICE_OK, "%s: %s", model,
         err.message);
  run_stream(f, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"why</th\"}}]}\n\n"
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ink>4\"}}]}\n\n"
                "data: [DONE]\n\n");
  size_t t, th;
  const char *text = sluice_output_channel(out, SLUICE_TEXT, &t);
  const char *thought = sluice_output_channel(out, SLUICE_THOUGHT, &th);
  CHECKF(t == strlen(want_text) && memcmp(text, want_text, t) == 0, "%s: text %.*s", model,
         (int)t, text);
  CHECKF(th == strlen(want_thought) && memcmp(thought, want_thought, th) == 0,
         "%s: thought %.*s", model, (int)th, thought);
  char why[512];
  sluice_pipeline_explain(f, why, sizeof why);
  CHECKF(strstr(why, explains) != NULL, "%s: explained as %s", model, why);
  sluice_free(f);
  sluice_output_free(out);
}

static void test_format_by_model(void) {
  by_model("deepseek-reasoner", NULL, 0, "4", "why", "format deepseek-r1");
  by_model("deepseek-ai/DeepSeek-R1-0528", NULL, 0, "4", "why", "format deepseek-r1");
  /* no rule: channel mode, where a close with no open is text */
  by_model("gpt-4o", NULL, 0, "why</think>4", "", "no rule matches");
  by_model(NULL, NULL, 0, "why</think>4", "", "no rule matches");
  /* the caller's rule first: a name the table does not know */
  sluice_model_rule mine[1] = {{"house-reasoner-*", SLUICE_THINK_FORMAT_DEEPSEEK_R1, -1, "ours"}};
  by_model("house-reasoner-7b", mine, 1, "4", "why", "yours 0: ours");
  /* thinking off by the rule: the stream is all answer */
  mine[0].thinking = 0;
  mine[0].format = SLUICE_THINK_FORMAT_QWEN3;
  by_model("house-reasoner-7b", mine, 1, "why</think>4", "", "format qwen3, thinking off");
  /* a lone filter has no model */
  sluice_think_opts think;
  sluice_think_opts_init(&think);
  think.format = SLUICE_THINK_FORMAT_AUTO;
  sluice_filter *f;
  sluice_error err;
  CHECK(sluice_think_new(&f, &think, NULL, NULL, &err) == SLUICE_BAD_OPTION &&
        strstr(err.message, "auto") != NULL);
  CHECK(strcmp(sluice_think_format_name(SLUICE_THINK_FORMAT_AUTO), "auto") == 0);
  sluice_think_format fm;
  CHECK(sluice_think_format_from_name("auto", &fm) == 0 && fm == SLUICE_THINK_FORMAT_AUTO);
  /* rules without their count's array */
  sluice_pipeline_opts po;
  sluice_pipeline_opts_init(&po);
  po.nmodel_rules = 2;
  CHECK(sluice_pipeline_new(&f, &po, NULL, NULL, &err) == SLUICE_BAD_OPTION);
}

int main(void) {
  test_typed_pipeline();
  test_format_by_model();
  test_endpoints();
  test_faults();
  return test_report("test_pipeline");
}
