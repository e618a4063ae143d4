/*
 * test_think_formats.c: the reasoning formats of the think filter.
 *
 * - The model-name table: real model names, as model pages, provider APIs
 *   and Ollama write them, each to the format and thinking value it must
 *   get and the pattern that must say why; the caller's rules first.
 * - The format option in C: names, the family defaults, the options a
 *   format refuses (gpt-oss names harmony), a struct from an older header.
 * - Every format over texts dense in its delimiters and their fragments:
 *   each chunking (one call, byte at a time, token-sized, 64 KiB) and each
 *   prefilter implementation gives the one-call answer; every byte lands in
 *   one channel; the hold-back never reaches the longest delimiter.
 * - Every allocation of a format's construction and run fails in turn:
 *   SLUICE_NOMEM, nothing leaked.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../lib/src/core/sluice_private.h"
#include "rng.h"
#include "testutil.h"

static sluice_rng rng = {0x2545F4914F6CDD1DULL};
static uint32_t rnd(uint32_t n) { return (uint32_t)sluice_rng_below(&rng, n); }

/* ---------------- the model-name table ---------------- */

static void model_names(void) {
  static const struct {
    const char *model;
    sluice_think_format format;
    int thinking;
    const char *pattern; /* the rule that must match; NULL: none */
  } want[] = {
      {"deepseek-reasoner", SLUICE_THINK_FORMAT_DEEPSEEK_R1, -1, "deepseek-reasoner"},
      {"deepseek-chat", SLUICE_THINK_FORMAT_DEEPSEEK_V3_1, 0, "deepseek-chat"},
      {"deepseek-ai/DeepSeek-R1-0528", SLUICE_THINK_FORMAT_DEEPSEEK_R1, -1, "deepseek-r1*"},
      {"deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", SLUICE_THINK_FORMAT_DEEPSEEK_R1, -1,
       "deepseek-r1*"},
      {"openrouter/deepseek/deepseek-r1:free", SLUICE_THINK_FORMAT_DEEPSEEK_R1, -1, "deepseek-r1*"},
      {"deepseek-r1:7b", SLUICE_THINK_FORMAT_DEEPSEEK_R1, -1, "deepseek-r1*"},
      {"deepseek-ai/DeepSeek-V3.1-Terminus", SLUICE_THINK_FORMAT_DEEPSEEK_V3_1, -1,
       "deepseek-v3.1*"},
      {"Qwen/QwQ-32B", SLUICE_THINK_FORMAT_QWEN3, -1, "qwq*"},
      {"Qwen/Qwen3-235B-A22B-Instruct-2507", SLUICE_THINK_FORMAT_QWEN3, 0, "qwen3*instruct-2507*"},
      {"Qwen/Qwen3-235B-A22B-Thinking-2507-FP8", SLUICE_THINK_FORMAT_QWEN3, 1, "qwen3*thinking*"},
      {"Qwen/Qwen3-Coder-480B-A35B-Instruct", SLUICE_THINK_FORMAT_QWEN3, 0, "qwen3-coder*"},
      {"qwen3:8b", SLUICE_THINK_FORMAT_QWEN3, -1, "qwen3*"},
      {"Qwen/Qwen3-32B", SLUICE_THINK_FORMAT_QWEN3, -1, "qwen3*"},
      {"zai-org/GLM-4.5-Air", SLUICE_THINK_FORMAT_GLM_4_5, -1, "glm-4.5*"},
      {"z-ai/glm-4.6", SLUICE_THINK_FORMAT_GLM_4_5, -1, "glm-4.6*"},
      {"moonshotai/Kimi-K2-Thinking", SLUICE_THINK_FORMAT_KIMI_K2, 1, "kimi-k2*thinking*"},
      {"moonshotai/Kimi-K2-Instruct-0905", SLUICE_THINK_FORMAT_KIMI_K2, 0, "kimi-k2*"},
      {"MiniMaxAI/MiniMax-M2", SLUICE_THINK_FORMAT_MINIMAX_M2, -1, "minimax-m2*"},
      {"mistralai/Magistral-Small-2509", SLUICE_THINK_FORMAT_MISTRAL, -1, "magistral*"},
      {"magistral-medium-latest", SLUICE_THINK_FORMAT_MISTRAL, -1, "magistral*"},
      {"ibm-granite/granite-3.2-8b-instruct", SLUICE_THINK_FORMAT_GRANITE, -1, "granite-3.2*"},
      {"tencent/Hunyuan-A13B-Instruct", SLUICE_THINK_FORMAT_HUNYUAN, -1, "hunyuan*"},
      {"baidu/ERNIE-4.5-21B-A3B-Thinking", SLUICE_THINK_FORMAT_ERNIE_4_5, -1,
       "ernie-4.5*thinking*"},
      {"allenai/Olmo-3-7B-Think", SLUICE_THINK_FORMAT_OLMO3, -1, "olmo-3*think*"},
      {"ByteDance-Seed/Seed-OSS-36B-Instruct", SLUICE_THINK_FORMAT_SEED_OSS, -1, "seed-oss*"},
      {"stepfun-ai/step3", SLUICE_THINK_FORMAT_STEP3, -1, "step3*"},
      {"CohereLabs/command-a-reasoning-08-2025", SLUICE_THINK_FORMAT_COHERE_COMMAND, -1,
       "command-a-reasoning*"},
      {"openai/gpt-oss-120b", SLUICE_THINK_FORMAT_GPT_OSS, -1, "gpt-oss*"},
      {"llama.cpp/gpt-oss", SLUICE_THINK_FORMAT_GPT_OSS, -1, "gpt-oss*"},
      /* no reasoning format: the pipeline keeps its own default */
      {"gpt-4o-mini", SLUICE_THINK_FORMAT_NONE, -1, NULL},
      {"claude-sonnet-4-5", SLUICE_THINK_FORMAT_NONE, -1, NULL},
      {"ERNIE-4.5-300B-A47B", SLUICE_THINK_FORMAT_NONE, -1, NULL},
      {"ibm-granite/granite-3.3-8b-instruct", SLUICE_THINK_FORMAT_NONE, -1, NULL},
      {"meta-llama/Llama-3.3-70B-Instruct", SLUICE_THINK_FORMAT_NONE, -1, NULL},
      {"", SLUICE_THINK_FORMAT_NONE, -1, NULL},
      /* a name that only ends in a family's pattern is not that family */
      {"my-deepseek-r1", SLUICE_THINK_FORMAT_NONE, -1, NULL},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    sluice_model_match m;
    int hit = sluice_think_format_for_model(want[i].model, NULL, 0, &m);
    CHECKF(hit == (want[i].pattern != NULL) && m.format == want[i].format &&
               m.thinking == want[i].thinking,
           "%s: format %s thinking %d (rule %s), want %s thinking %d", want[i].model,
           sluice_think_format_name(m.format), m.thinking, m.rule ? m.rule->pattern : "none",
           sluice_think_format_name(want[i].format), want[i].thinking);
    if (want[i].pattern)
      CHECKF(m.rule && m.builtin && strcmp(m.rule->pattern, want[i].pattern) == 0 &&
                 m.rule == &sluice_think_model_rules(NULL)[m.index],
             "%s: matched %s, want %s", want[i].model, m.rule ? m.rule->pattern : "nothing",
             want[i].pattern);
    else
      CHECK(m.rule == NULL);
  }
  sluice_model_match m;
  CHECK(sluice_think_format_for_model(NULL, NULL, 0, &m) == 0 &&
        m.format == SLUICE_THINK_FORMAT_NONE);

  /* what --explain prints */
  char why[160];
  CHECK(sluice_think_format_for_model("Qwen/Qwen3-30B-A3B-Instruct-2507", NULL, 0, &m));
  size_t need = sluice_model_match_describe(&m, why, sizeof why);
  CHECKF(need < sizeof why && strstr(why, "format qwen3, thinking off: rule \"qwen3*instruct-2507*\" "
                                          "(built-in ") && strstr(why, "never think"),
         "%s", why);
  CHECK(sluice_think_format_for_model("deepseek-reasoner", NULL, 0, &m));
  sluice_model_match_describe(&m, why, sizeof why);
  CHECKF(strncmp(why, "format deepseek-r1, thinking on: rule \"deepseek-reasoner\"", 55) == 0, "%s",
         why);
  CHECK(sluice_think_format_for_model("openai/gpt-oss-20b", NULL, 0, &m));
  sluice_model_match_describe(&m, why, sizeof why);
  CHECKF(strstr(why, "gpt-oss (the harmony filter)") != NULL, "%s", why);
  CHECK(!sluice_think_format_for_model("gpt-4o", NULL, 0, &m));
  CHECK(sluice_model_match_describe(&m, why, 8) > 8 && strlen(why) == 7); /* truncated */

  /* the caller's rules come first; a pattern with '/' sees the whole name;
   * '?' is one byte; case is folded */
  static const sluice_model_rule mine[] = {
      {"my-org/*", SLUICE_THINK_FORMAT_STEP3, -1, "ours"},
      {"qwen3-?b", SLUICE_THINK_FORMAT_DEEPSEEK_R1, 0, NULL},
  };
  CHECK(sluice_think_format_for_model("my-org/qwen3-8b", mine, 2, &m) == 1 &&
        m.format == SLUICE_THINK_FORMAT_STEP3 && !m.builtin && m.index == 0 &&
        m.rule == &mine[0]);
  CHECK(sluice_think_format_for_model("other/QWEN3-8B", mine, 2, &m) == 1 &&
        m.format == SLUICE_THINK_FORMAT_DEEPSEEK_R1 && m.thinking == 0 && m.index == 1);
  CHECK(sluice_think_format_for_model("other/qwen3-14b", mine, 2, &m) == 1 && m.builtin &&
        m.format == SLUICE_THINK_FORMAT_QWEN3);
  CHECK(sluice_think_format_for_model("my-org", mine, 2, &m) == 0); /* the rule wants a '/' */

  /* every built-in rule names a format, and is reachable: the first rule
   * its own pattern (stars and '?' read literally as one letter) matches */
  size_t n;
  const sluice_model_rule *rules = sluice_think_model_rules(&n);
  CHECK(n >= 20);
  for (size_t i = 0; i < n; i++) {
    char name[128];
    size_t k = 0;
    for (const char *p = rules[i].pattern; *p && k + 2 < sizeof name; p++)
      name[k++] = *p == '*' || *p == '?' ? 'x' : *p;
    name[k] = '\0';
    CHECKF(rules[i].format > SLUICE_THINK_FORMAT_GENERIC &&
               rules[i].format < SLUICE_THINK_FORMAT_COUNT && rules[i].why,
           "rule %zu", i);
    CHECKF(sluice_think_format_for_model(name, NULL, 0, &m) == 1 && m.index == i,
           "rule %zu (%s) is shadowed by rule %zu (%s)", i, rules[i].pattern, m.index,
           m.rule ? m.rule->pattern : "none");
  }
}

/* ---------------- the option in C ---------------- */

static void option_checks(void) {
  for (int f = 0; f < SLUICE_THINK_FORMAT_COUNT; f++) {
    const char *name = sluice_think_format_name((sluice_think_format)f);
    sluice_think_format back;
    CHECKF(name && sluice_think_format_from_name(name, &back) == 0 && (int)back == f,
           "format %d", f);
  }
  sluice_think_format x;
  CHECK(sluice_think_format_name(SLUICE_THINK_FORMAT_COUNT) == NULL);
  CHECK(sluice_think_format_from_name("Qwen3", &x) == -1); /* names are exact */
  CHECK(sluice_think_format_thinking_default(SLUICE_THINK_FORMAT_QWEN3) == 1);
  CHECK(sluice_think_format_thinking_default(SLUICE_THINK_FORMAT_DEEPSEEK_V3_1) == 0);

  static const struct {
    const char *why;
    sluice_think_format format;
    int thinking, mode, start_in, tags;
    const char *says; /* in the message */
  } bad[] = {
      {"gpt-oss", SLUICE_THINK_FORMAT_GPT_OSS, -1, 0, 0, 0, "harmony"},
      {"out of range", SLUICE_THINK_FORMAT_COUNT, -1, 0, 0, 0, "format"},
      {"thinking without a family", SLUICE_THINK_FORMAT_NONE, 1, 0, 0, 0, "thinking"},
      {"thinking with generic", SLUICE_THINK_FORMAT_GENERIC, 0, 0, 0, 0, "thinking"},
      {"thinking 2", SLUICE_THINK_FORMAT_QWEN3, 2, 0, 0, 0, "thinking"},
      {"anchored", SLUICE_THINK_FORMAT_QWEN3, -1, 1, 0, 0, "qwen3"},
      {"start_in", SLUICE_THINK_FORMAT_DEEPSEEK_R1, -1, 0, 1, 0, "start_in"},
      {"tags", SLUICE_THINK_FORMAT_MISTRAL, -1, 0, 0, 1, "tags"},
      {"generic anchored", SLUICE_THINK_FORMAT_GENERIC, -1, 1, 0, 0, "channel"},
  };
  static const char *const tags[] = {"think"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    sluice_think_opts o;
    sluice_think_opts_init(&o);
    o.format = bad[i].format;
    o.thinking = bad[i].thinking;
    if (bad[i].mode) o.mode = SLUICE_THINK_ANCHORED;
    if (bad[i].start_in) o.start_in = "think";
    if (bad[i].tags) o.tags = tags, o.ntags = 1;
    sluice_filter *f = NULL;
    sluice_error err;
    CHECKF(sluice_think_new(&f, &o, NULL, NULL, &err) == SLUICE_BAD_OPTION && !f &&
               strstr(err.message, bad[i].says),
           "%s: %s", bad[i].why, f ? "accepted" : err.message);
    sluice_free(f);
  }

  /* A struct from a header before the format fields: its size ends at
   * max_block, and the constructor takes the defaults (no format). */
  sluice_think_opts o;
  sluice_think_opts_init_size(&o, offsetof(sluice_think_opts, format));
  CHECK(o.size == offsetof(sluice_think_opts, format));
  o.format = SLUICE_THINK_FORMAT_GPT_OSS; /* beyond its size: never read */
  sluice_output *out;
  CHECK(sluice_output_new(&out, NULL) == SLUICE_OK);
  sluice_sink sink = sluice_output_sink(out);
  sluice_filter *f;
  CHECK(sluice_think_new(&f, &o, &sink, NULL, NULL) == SLUICE_OK);
  CHECK(sluice_once(f, "a<reasoning>b</reasoning>", 25) == SLUICE_OK);
  size_t l;
  const char *t = sluice_output_channel(out, SLUICE_TEXT, &l);
  CHECK(l == 1 && t[0] == 'a'); /* channel mode's default tags */
  sluice_free(f);
  sluice_output_free(out);
}

/* ---------------- every chunking, every prefilter ---------------- */

/* Text made of a format's delimiters, their fragments, near-misses and the
 * other families' delimiters, with prose and whitespace between. */
static size_t gen(const sluicep_think_format_def *d, char *p, size_t cap) {
  static const char *const other[] = {
      "<think>", "</think>", "<tool_call>", "[THINK]", "[/THINK]", "<|START_TEXT|>",
      "<answer>", "</answer>", "<response>", "Here is my response:", "<seed:think>", "<", "</",
      "<|", "[", "Here", "\n", " ", "\t", "é", "日本", "a < b", "<<", "<thi", "</thi",
      "\xff", "\xff\xff<" /* 0xFF: what an empty set's quick test looks for */};
  const char *const *lists[] = {d->open, d->close, d->end, d->aopen, d->aclose};
  size_t n = 0;
  if (d->open[0] && rnd(4)) { /* granite's marker counts only first */
    if (rnd(2)) p[n++] = '\n';
    memcpy(p + n, d->open[0], strlen(d->open[0]));
    n += strlen(d->open[0]);
  }
  while (n + 64 < cap) {
    size_t k = rnd(3) ? rnd(40) : 0;
    while (k-- && n + 64 < cap) p[n++] = (char)('a' + rnd(26));
    const char *w = other[rnd(sizeof other / sizeof other[0])];
    const char *const *list = lists[rnd(5)];
    size_t nl = 0;
    while (list[nl]) nl++;
    if (nl && rnd(3)) w = list[rnd((uint32_t)nl)];
    size_t l = strlen(w);
    if (rnd(4) == 0 && l > 1) l = 1 + rnd((uint32_t)l - 1); /* a fragment */
    if (n + l >= cap) break;
    memcpy(p + n, w, l);
    n += l;
  }
  return n;
}

typedef struct result {
  char buf[1 << 20];
  size_t len;
  uint64_t max_held, bytes;
} result;

/* chunk: 0 one call, 7 token-sized and uneven, else that size. */
static void run(const sluice_think_opts *o, const char *p, size_t n, size_t chunk, result *r) {
  sluice_output *out;
  r->len = 0;
  r->max_held = 0;
  r->bytes = 0;
  if (sluice_output_new(&out, NULL) != SLUICE_OK) return;
  sluice_sink sink = sluice_output_sink(out);
  sluice_filter *f;
  CHECK(sluice_think_new(&f, o, &sink, NULL, NULL) == SLUICE_OK);
  sluice_status st = SLUICE_OK;
  for (size_t off = 0; off < n && st == SLUICE_OK;) {
    size_t k = chunk == 0 ? n : chunk == 7 ? 1 + rnd(9) : chunk;
    if (k > n - off) k = n - off;
    st = sluice_feed(f, p + off, k);
    off += k;
    if (sluice_held(f) > r->max_held) r->max_held = sluice_held(f);
  }
  if (st == SLUICE_OK) st = sluice_finish(f);
  CHECK(st == SLUICE_OK);
  CHECK(sluice_held(f) == 0);
  sluice_free(f);
  size_t cap = sizeof r->buf;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    size_t l;
    const char *b = sluice_output_channel(out, (sluice_channel)c, &l);
    r->bytes += l;
    if (r->len + l + 32 >= cap) break;
    r->len += (size_t)snprintf(r->buf + r->len, cap - r->len, "channel %d %zu:", c, l);
    memcpy(r->buf + r->len, b, l);
    r->len += l;
  }
  for (size_t i = 0; i < sluice_output_event_count(out) && r->len + 64 < cap; i++) {
    const sluice_event *ev = sluice_output_event(out, i);
    r->len += (size_t)snprintf(r->buf + r->len, cap - r->len, "event %.*s %llu %llu %d\n",
                               (int)ev->name_len, ev->name, (unsigned long long)ev->offset,
                               (unsigned long long)ev->length, ev->complete);
  }
  sluice_output_free(out);
}

static size_t longest(const sluicep_think_format_def *d) {
  const char *const *lists[] = {d->open, d->close, d->end, d->aopen, d->aclose};
  size_t m = 0;
  for (int i = 0; i < 5; i++)
    for (size_t j = 0; lists[i][j]; j++)
      if (strlen(lists[i][j]) > m) m = strlen(lists[i][j]);
  return m;
}

static void every_chunking(void) {
  enum { CAP = 1 << 16 };
  static char text[CAP];
  static result want, got;
  int best = sluicep_think_prefilter_best();
  size_t longest_all = 0;
  for (int fi = SLUICE_THINK_FORMAT_GENERIC + 1; fi < SLUICE_THINK_FORMAT_COUNT; fi++) {
    const sluicep_think_format_def *d = sluicep_think_format_def_of((sluice_think_format)fi);
    if (d->harmony) continue;
    size_t lim = longest(d);
    if (lim > longest_all) longest_all = lim;
    size_t hidden = 0, wrapped = 0;
    for (int it = 0; it < 12; it++) {
      size_t n = gen(d, text, it % 3 ? 1024 + rnd(CAP - 1024) : 2 + rnd(300));
      sluice_think_opts o;
      sluice_think_opts_init(&o);
      o.format = (sluice_think_format)fi;
      o.thinking = it % 4 == 3 ? 0 : 1;
      sluicep_think_prefilter = SLUICEP_PREFILTER_PORTABLE;
      run(&o, text, n, 0, &want);
      CHECKF(want.bytes == n, "%s: conservation: %llu of %zu bytes", d->name,
             (unsigned long long)want.bytes, n);
      if (strstr(want.buf, "channel 1 0:") == NULL) hidden++;
      if (strstr(want.buf, "channel 3 0:") == NULL) wrapped++;
      static const size_t sizes[] = {1, 7, 4, 64, 65536};
      for (int impl = SLUICEP_PREFILTER_PORTABLE; impl <= best; impl++) {
        sluicep_think_prefilter = impl;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
          run(&o, text, n, sizes[s], &got);
          CHECKF(got.len == want.len && memcmp(got.buf, want.buf, want.len) == 0,
                 "%s, input %d (%zu bytes), prefilter %d, chunks of %zu: differs from one call",
                 d->name, it, n, impl, sizes[s]);
          if (sizes[s] == 1)
            CHECKF(got.max_held < lim, "%s: held %llu bytes, the longest delimiter is %zu",
                   d->name, (unsigned long long)got.max_held, lim);
        }
      }
    }
    CHECKF(hidden >= 4 && wrapped >= 3, "%s: the inputs exercise the format (%zu hid, %zu marked)",
           d->name, hidden, wrapped);
  }
  sluicep_think_prefilter = -1;
  /* sluice.h documents the bound: a hold-back of at most 27 bytes */
  CHECKF(longest_all == 28, "the longest delimiter is %zu bytes; sluice.h says 28", longest_all);
}

/* ---------------- failure injection ---------------- */

static void inject(sluice_think_format fmt, const char *input) {
  int completed = 0;
  long at;
  for (at = 0; at < 1000 && !completed; at++) {
    test_faulty fa;
    sluice_mem m = test_faulty_mem(&fa, at);
    sluice_think_opts o;
    sluice_think_opts_init(&o);
    o.format = fmt;
    sluice_filter *f = NULL;
    sluice_status st = sluice_think_new(&f, &o, NULL, &m, NULL);
    size_t n = strlen(input);
    for (size_t i = 0; st == SLUICE_OK && i < n; i += 3)
      st = sluice_feed(f, input + i, n - i < 3 ? n - i : 3);
    if (st == SLUICE_OK) st = sluice_finish(f);
    CHECKF(st == (fa.failed ? SLUICE_NOMEM : SLUICE_OK), "%s, allocation %ld: %s",
           sluice_think_format_name(fmt), at, sluice_status_name(st));
    sluice_free(f);
    CHECKF(fa.live == 0, "%s, allocation %ld: %ld blocks leaked", sluice_think_format_name(fmt),
           at, fa.live);
    completed = !fa.failed;
  }
  CHECK(completed && at > 3);
}

int main(void) {
  model_names();
  option_checks();
  every_chunking();
  inject(SLUICE_THINK_FORMAT_QWEN3, "<think>a</thi" "nk>b<tool_call>c");
  inject(SLUICE_THINK_FORMAT_COHERE_COMMAND, "r<|START_TEXT|>a<|END_TEXT|>");
  inject(SLUICE_THINK_FORMAT_GRANITE, "Here is my thought process: a Here's my response: b");
  return test_report("test_think_formats");
}
