/*
 * test_kit.c: libsluice-kit: filters built by name from JSON options (bad
 * options named in the message, never half a UTF-8 character), and their
 * construction under failure injection at every allocation, of the
 * instance's allocator and of jansson's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sluice_kit.h"
#include "testutil.h"

static void test_bad_options(void) {
  sluice_filter *f = NULL;
  sluice_error err;
  CHECK(sluice_filter_new_json(&f, "think", "{\"mode\": 3}", 11, NULL, NULL, &err) ==
        SLUICE_BAD_OPTION);
  CHECK(strstr(err.message, "\"mode\"") != NULL);
  CHECK(sluice_filter_new_json(&f, "think", "{bad", 4, NULL, NULL, &err) == SLUICE_BAD_OPTION);
  /* A message truncated to fit never ends inside a UTF-8 sequence (found by
   * fuzz_proto: the answer then lost its message). */
  for (int pad = 0; pad < 4; pad++) {
    char opts[600];
    int n = snprintf(opts, sizeof opts, "{\"%.*s", pad, "xxx");
    for (int i = 0; i < 100; i++) n += snprintf(opts + n, sizeof opts - (size_t)n, "\xd0\x9e");
    snprintf(opts + n, sizeof opts - (size_t)n, "\": 1}");
    CHECK(sluice_filter_new_json(&f, "think", opts, strlen(opts), NULL, NULL, &err) ==
          SLUICE_BAD_OPTION);
    CHECK(sluice_utf8_valid(err.message, strlen(err.message)));
    CHECK(strlen(err.message) >= 150);
  }
  CHECK(sluice_filter_new_json(&f, "nonesuch", NULL, 0, NULL, NULL, &err) == SLUICE_UNSUPPORTED);
  CHECK(strstr(err.message, "nonesuch") != NULL);
}

/* ---------------- construction by name, under failure injection ----------------
 * Building a filter from its name and JSON options allocates in two places:
 * the filter, through the instance's allocator, and the options, through
 * jansson's (global) allocator. Each is made to fail at every allocation in
 * turn: the result must be SLUICE_NOMEM with nothing leaked, until the
 * construction succeeds, and the filter must then work. */

static test_faulty *jansson_fa; /* jansson's allocator has no context */
static void *jansson_malloc(size_t n) { return test_faulty_malloc(jansson_fa, n); }
static void jansson_free(void *p) { test_faulty_free(jansson_fa, p); }

/* Options per filter: rich ones for the instance allocator; for jansson's,
 * only tokens shorter than 16 bytes, because jansson 2.14's lexer can
 * misread or crash when an allocation fails while a longer token grows. */
static const struct {
  const char *filter, *options, *short_options;
} by_name[] = {
    {"think", "{\"tags\":[\"scratchpad_thinking\",\"plan\"],\"case_insensitive\":false}",
     "{\"tags\":[\"plan\",\"x\"]}"},
    {"think", "{\"mode\":\"anchored\",\"start_tag\":\"<analysis>\",\"end_tag\":\"</analysis>\","
              "\"grace_period\":5,\"max_block\":1000}",
     "{\"mode\":\"anchored\"}"},
    {"clean", "{\"endpoint\":{\"removeThinking\":true,\"responseStartTextToRemoveEndpointWide\":"
              "[\"Assistant said this:\",\"Bot:\"],\"trimBeginningAndEndLineBreaks\":true},"
              "\"node\":{\"removeCustomTextFromResponseStart\":true,\"responseStartTextToRemove\":"
              "\"Note:\"},\"globals\":{\"chatCompleteAddUserAssistant\":true,"
              "\"chatCompleteAddMissingAssistant\":true},\"sluice\":{\"max_block\":100}}",
     "{\"sluice\":{\"max_block\":9}}"},
    {"harmony", "{\"commentary_preamble\":\"thought\",\"max_header\":64}", "{\"max_header\":64}"},
    {"monitor", "{\"profile\":\"current\",\"max_length\":100000,\"max_history\":50000}",
     "{\"profile\":\"current\"}"},
    {"json", "{\"incremental\":true,\"max_depth\":10,\"max_bytes\":4096}", "{\"max_depth\":9}"},
    {"sse", "{\"max_line\":1000,\"max_event\":2000}", "{\"max_line\":99}"},
    {"ndjson", "{\"max_line\":1000}", "{\"max_line\":99}"},
    {"chunks", "{\"max_line\":1000}", "{}"},
    {"provider", "{\"provider\":\"anthropic\",\"framing\":\"sse\",\"choice\":1,\"max_line\":4096}",
     "{\"choice\":1}"},
    {"pipeline", "{\"provider\":{\"provider\":\"openai\"},\"filters\":[{\"filter\":\"think\","
                 "\"options\":{\"tags\":[\"reasoning\"]}},{\"filter\":\"clean\"}],\"arguments\":"
                 "{\"max_depth\":64},\"model\":\"llama.cpp/gpt-oss\"}",
     "{\"harmony\":true}"},
    {"detect", "{\"framing\":\"sse\",\"max_line\":4096}", "{}"},
    {"capture", "{\"format\":\"ndjson\",\"max_line\":4096,\"max_piece\":100}",
     "{\"format\":\"sse\"}"},
};

static void construct_with_faults(const char *filter, const char *options, int jansson_side) {
  test_faulty fa;
  int done = 0;
  for (long at = 0; at < 10000 && !done; at++) {
    sluice_mem m = test_faulty_mem(&fa, at);
    if (jansson_side) {
      jansson_fa = &fa;
      json_set_alloc_funcs(jansson_malloc, jansson_free);
    }
    sluice_output *out;
    sluice_mem plain = test_faulty_mem(&(test_faulty){0}, -1);
    CHECK(sluice_output_new(&out, &plain) == SLUICE_OK);
    sluice_sink sink = sluice_output_sink(out);
    sluice_filter *f = NULL;
    sluice_error err;
    sluice_status st = sluice_filter_new_json(&f, filter, options, strlen(options), &sink,
                                              jansson_side ? NULL : &m, &err);
    if (jansson_side) json_set_alloc_funcs(malloc, free);
    if (st == SLUICE_OK) {
      CHECKF(!fa.failed, "%s %s: succeeded although allocation %ld failed", filter, options, at);
      fa.fail_at = -1; /* built: now it must work */
      const char *in = strcmp(filter, "json") == 0 ? "[1,2]" : "a<think>b</think>";
      CHECKF(sluice_once(f, in, strlen(in)) == SLUICE_OK, "%s: %s", filter,
             sluice_get_error(f)->message);
      sluice_free(f);
      done = 1;
    } else {
      CHECKF(st == SLUICE_NOMEM && err.status == SLUICE_NOMEM,
             "%s (%s allocation %ld failed): %s: %s", filter,
             jansson_side ? "jansson's" : "the instance's", at, sluice_status_name(st),
             err.message);
      CHECK(f == NULL);
    }
    CHECKF(fa.live == 0, "%s: %ld blocks leaked when allocation %ld failed", filter, fa.live, at);
    sluice_output_free(out);
  }
  CHECKF(done, "%s: never succeeded", filter);
}

static void test_construction_by_name_faults(void) {
  for (size_t i = 0; i < sizeof by_name / sizeof by_name[0]; i++) {
    construct_with_faults(by_name[i].filter, by_name[i].options, 0);
    construct_with_faults(by_name[i].filter, by_name[i].short_options, 1);
  }
}

/* ---------------- typed options from JSON ---------------- */

static void test_options_handle(void) {
  sluice_options *o;
  sluice_error err;
  const char *js = "{\"filters\":[{\"filter\":\"think\",\"options\":{\"tags\":[\"plan\"]}}],"
                   "\"arguments\":{\"max_depth\":7},\"model\":\"m\"}";
  CHECK(sluice_options_from_json(&o, "pipeline", js, strlen(js), &err) == SLUICE_OK);
  CHECK(sluice_options_kind(o) == SLUICE_FILTER_PIPELINE);
  const sluice_pipeline_opts *po = sluice_options_get(o);
  CHECK(po->nstages == 1 && po->stages[0].kind == SLUICE_FILTER_THINK);
  const sluice_think_opts *to = po->stages[0].opts;
  CHECK(to->ntags == 1 && strcmp(to->tags[0], "plan") == 0);
  CHECK(po->arguments && po->arguments->max_depth == 7 && strcmp(po->model, "m") == 0);
  sluice_options_free(o);
  js = "{\"filters\":[{\"filter\":\"think\",\"options\":{\"tagz\":1}}]}";
  CHECK(sluice_options_from_json(&o, "pipeline", js, strlen(js), &err) == SLUICE_BAD_OPTION);
  CHECKF(strstr(err.message, "pipeline filter 0") && strstr(err.message, "tagz"), "%s",
         err.message);
  CHECK(o == NULL);
  CHECK(sluice_options_from_json(&o, "nope", NULL, 0, &err) == SLUICE_UNSUPPORTED);
}

int main(void) {
  test_bad_options();
  test_construction_by_name_faults();
  test_options_handle();
  return test_report("test_kit");
}
