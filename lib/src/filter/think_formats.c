/*
 * think_formats.c: the reasoning formats of model families, as data, and the
 * table that chooses one by model name (DESIGN.md "think formats").
 *
 * A format says what the think scanner (think.c) looks for in each part of
 * a stream; think.c has one scanner for every format and for channel mode.
 * The facts come from each family's chat template and the serving stacks'
 * parsers (vLLM vllm/reasoning/, SGLang reasoning_parser.py, llama.cpp
 * common/chat.cpp); docs/SOURCES.md "think formats" names them, and
 * conformance/suites/think/format-*.json pins each rule with its source.
 * Where the stacks disagree with each other, or a stack's streaming and
 * one-call paths disagree, the choice made here is written beside the row.
 */
#include "sluice_private.h"

#include <stdio.h>
#include <string.h>

#define L(...) {__VA_ARGS__, NULL}
#define NONE_ {NULL}

static const sluicep_think_format_def formats[SLUICE_THINK_FORMAT_COUNT] = {
    [SLUICE_THINK_FORMAT_NONE] = {"none", NONE_, NONE_, NONE_, NONE_, 0, 0, 1, 0, NONE_},
    [SLUICE_THINK_FORMAT_GENERIC] = {"generic", NONE_, NONE_, NONE_, NONE_, 0, 0, 1, 0, NONE_},
    /* The template opens <think> (R1-0528 and later), older checkpoints
     * write it: an opening tag first in the block is markup. No </think>
     * means the whole stream was reasoning. After </think> the stream is
     * answer, tags and all (vLLM and SGLang take only the first block). */
    [SLUICE_THINK_FORMAT_DEEPSEEK_R1] = {"deepseek-r1", L("<think>"), L("</think>"), NONE_, NONE_,
                                         SLUICEP_FS_INSIDE, SLUICEP_FL_TEXT, 1, 0, NONE_},
    /* As R1, and <tool_call> ends reasoning without </think> (Qwen3.5 and
     * later; vLLM and SGLang both) and stays in TEXT for the tool parser.
     * enable_thinking=false: the template wrote an empty block, the output
     * is answer. vLLM also wants "<function" after <tool_call>; sluice ends
     * at the tag, as SGLang does (a bounded hold-back). */
    [SLUICE_THINK_FORMAT_QWEN3] = {"qwen3", L("<think>"), L("</think>"), L("<tool_call>"), NONE_,
                                   SLUICEP_FS_INSIDE, SLUICEP_FL_TEXT, 1, 0, NONE_},
    /* R1's shape when the template's thinking flag is on, plain answer when
     * off; the template's default is off (vLLM deepseek_v3, SGLang
     * deepseek-v3: explicit thinking=True). */
    [SLUICE_THINK_FORMAT_DEEPSEEK_V3_1] = {"deepseek-v3.1", L("<think>"), L("</think>"), NONE_,
                                           NONE_, SLUICEP_FS_INSIDE, SLUICEP_FL_TEXT, 0, 0, NONE_},
    /* The model writes <think> itself (the template writes <think></think>
     * when thinking is off); text before it is answer; <tool_call> ends
     * reasoning (SGLang glm45). */
    [SLUICE_THINK_FORMAT_GLM_4_5] = {"glm-4.5", L("<think>"), L("</think>"), L("<tool_call>"),
                                     NONE_, SLUICEP_FS_OUTSIDE, SLUICEP_FL_TEXT, 1, 0, NONE_},
    /* <think> optional (vLLM kimi_k2: "thinking may begin without"), the
     * tool-call section begin ends reasoning, in both spellings vLLM's tool
     * parser accepts. thinking=false pre-fills an empty block. */
    [SLUICE_THINK_FORMAT_KIMI_K2] = {"kimi-k2", L("<think>"), L("</think>"),
                                     L("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"),
                                     NONE_, SLUICEP_FS_INSIDE, SLUICEP_FL_TEXT, 1, 0, NONE_},
    /* The template ends the prompt with <think> (vLLM's append-think parser
     * puts it back; SGLang forces reasoning): R1's shape. */
    [SLUICE_THINK_FORMAT_MINIMAX_M2] = {"minimax-m2", L("<think>"), L("</think>"), NONE_, NONE_,
                                        SLUICEP_FS_INSIDE, SLUICEP_FL_TEXT, 1, 0, NONE_},
    /* Magistral 2509 and later: [THINK] and [/THINK] control tokens, written
     * by the model; text before [THINK] is answer (vLLM mistral). */
    [SLUICE_THINK_FORMAT_MISTRAL] = {"mistral", L("[THINK]"), L("[/THINK]"), NONE_, NONE_,
                                     SLUICEP_FS_OUTSIDE, SLUICEP_FL_TEXT, 1, 0, NONE_},
    /* Granite 3.2: prose markers, "Here is" or "Here's" (vLLM granite). The
     * thought marker counts only at the start of the output (vLLM's
     * streaming path; sluice lets whitespace come first). */
    [SLUICE_THINK_FORMAT_GRANITE] = {"granite",
                                     L("Here is my thought process:", "Here's my thought process:"),
                                     L("Here is my response:", "Here's my response:"), NONE_, NONE_,
                                     SLUICEP_FS_OUTSIDE_FIRST, SLUICEP_FL_TEXT, 1, 0, NONE_},
    /* Hunyuan-A13B: <think>...</think> then the answer in <answer> ...
     * </answer> (vLLM hunyuan_a13b); <tool_calls> ends reasoning (SGLang
     * hunyuan). The newlines the template puts around the tags are content. */
    [SLUICE_THINK_FORMAT_HUNYUAN] = {"hunyuan", L("<think>"), L("</think>"), L("<tool_calls>"),
                                     L("<answer>"), SLUICEP_FS_OUTSIDE, SLUICEP_FL_TEXT, 1, 0,
                                     L("</answer>")},
    /* ERNIE-4.5 thinking: reasoning first, </think>, the answer optionally
     * in <response> ... </response> (vLLM ernie45). Like every answer
     * wrapper, <response> counts only as the answer's first thing but
     * whitespace, and </response> only after it: anywhere else they are the
     * answer's text. */
    [SLUICE_THINK_FORMAT_ERNIE_4_5] = {"ernie-4.5", L("<think>"), L("</think>"), NONE_,
                                       L("<response>"), SLUICEP_FS_INSIDE, SLUICEP_FL_TEXT, 1, 0,
                                       L("</response>")},
    /* OLMo 3 Think: plain-text tags, the first <think> optional (some
     * templates write it), and a later <think> starts reasoning again (vLLM
     * olmo3's buffer). */
    [SLUICE_THINK_FORMAT_OLMO3] = {"olmo3", L("<think>"), L("</think>"), NONE_, NONE_,
                                   SLUICEP_FS_INSIDE, SLUICEP_FL_BLOCKS, 1, 0, NONE_},
    /* Seed-OSS: <seed:think> ... </seed:think>, the opening tag optional
     * (vLLM seed_oss: "similar to DeepSeek R1"). */
    [SLUICE_THINK_FORMAT_SEED_OSS] = {"seed-oss", L("<seed:think>"), L("</seed:think>"), NONE_,
                                      NONE_, SLUICEP_FS_INSIDE, SLUICEP_FL_TEXT, 1, 0, NONE_},
    /* Step3: only </think>; everything before it is reasoning, a <think> in
     * it included (vLLM step3; SGLang maps step3 to R1 and would drop a
     * leading <think>). */
    [SLUICE_THINK_FORMAT_STEP3] = {"step3", NONE_, L("</think>"), NONE_, NONE_, SLUICEP_FS_INSIDE,
                                   SLUICEP_FL_TEXT, 1, 0, NONE_},
    /* Command A Reasoning: the template opens <|START_THINKING|> (some
     * checkpoints echo it); the answer block or an action block ends
     * reasoning even without <|END_THINKING|> (SGLang cohere_command4); the
     * answer's wrappers, <|START_RESPONSE|> (Command A) or <|START_TEXT|>
     * (Command A Plus), are markup; an action block stays in TEXT. */
    [SLUICE_THINK_FORMAT_COHERE_COMMAND] =
        {"cohere-command", L("<|START_THINKING|>"), L("<|END_THINKING|>"),
         L("<|START_RESPONSE|>", "<|START_TEXT|>", "<|START_ACTION|>"),
         L("<|START_RESPONSE|>", "<|START_TEXT|>"), SLUICEP_FS_INSIDE, SLUICEP_FL_TEXT, 1, 0,
         L("<|END_RESPONSE|>", "<|END_TEXT|>")},
    /* Harmony: its own filter (harmony.c). */
    [SLUICE_THINK_FORMAT_GPT_OSS] = {"gpt-oss", NONE_, NONE_, NONE_, NONE_, 0, 0, 1, 1, NONE_},
};

const sluicep_think_format_def *sluicep_think_format_def_of(sluice_think_format f) {
  if ((int)f < 0 || f >= SLUICE_THINK_FORMAT_COUNT) return NULL;
  return &formats[f];
}

const char *sluice_think_format_name(sluice_think_format f) {
  if (f == SLUICE_THINK_FORMAT_AUTO) return "auto";
  const sluicep_think_format_def *d = sluicep_think_format_def_of(f);
  return d ? d->name : NULL;
}

int sluice_think_format_from_name(const char *name, sluice_think_format *out) {
  if (name && strcmp(name, "auto") == 0) {
    *out = SLUICE_THINK_FORMAT_AUTO;
    return 0;
  }
  for (int i = 0; name && i < SLUICE_THINK_FORMAT_COUNT; i++)
    if (strcmp(formats[i].name, name) == 0) {
      *out = (sluice_think_format)i;
      return 0;
    }
  return -1;
}

int sluice_think_format_thinking_default(sluice_think_format f) {
  const sluicep_think_format_def *d = sluicep_think_format_def_of(f);
  return d ? d->thinking : 1;
}

/* ---------------- by model name ----------------
 * Most specific first: a family's non-thinking variants before the family.
 * Names as the model pages, the providers' APIs and Ollama's library write
 * them (deepseek-ai/DeepSeek-R1-0528, deepseek-reasoner, qwen3:8b, ...). */
static const sluice_model_rule builtin[] = {
    {"gpt-oss*", SLUICE_THINK_FORMAT_GPT_OSS, -1, "OpenAI's open-weight models speak harmony"},
    {"deepseek-reasoner", SLUICE_THINK_FORMAT_DEEPSEEK_R1, -1,
     "DeepSeek's API name for its thinking mode"},
    {"deepseek-chat", SLUICE_THINK_FORMAT_DEEPSEEK_V3_1, 0,
     "DeepSeek's API name for its non-thinking mode"},
    {"deepseek-r1*", SLUICE_THINK_FORMAT_DEEPSEEK_R1, -1, "DeepSeek-R1 and its distills"},
    {"deepseek-v3.1*", SLUICE_THINK_FORMAT_DEEPSEEK_V3_1, -1, "hybrid: thinking off unless asked"},
    {"deepseek-v3.2*", SLUICE_THINK_FORMAT_DEEPSEEK_V3_1, -1, "V3.1's template and tags"},
    {"qwq*", SLUICE_THINK_FORMAT_QWEN3, -1, "QwQ: the template opens <think>"},
    {"qwen3*instruct-2507*", SLUICE_THINK_FORMAT_QWEN3, 0, "the 2507 Instruct models never think"},
    {"qwen3-coder*", SLUICE_THINK_FORMAT_QWEN3, 0, "Qwen3-Coder does not think"},
    {"qwen3*thinking*", SLUICE_THINK_FORMAT_QWEN3, 1, "the template opens <think>"},
    {"qwen3*", SLUICE_THINK_FORMAT_QWEN3, -1, "hybrid: enable_thinking defaults on"},
    {"glm-4.5*", SLUICE_THINK_FORMAT_GLM_4_5, -1, "GLM-4.5, -Air, -V"},
    {"glm-4.6*", SLUICE_THINK_FORMAT_GLM_4_5, -1, "GLM-4.6 keeps GLM-4.5's format"},
    {"kimi-k2*thinking*", SLUICE_THINK_FORMAT_KIMI_K2, 1, "Kimi K2 Thinking"},
    {"kimi-k2*", SLUICE_THINK_FORMAT_KIMI_K2, 0, "Kimi K2 Instruct does not think"},
    {"minimax-m2*", SLUICE_THINK_FORMAT_MINIMAX_M2, -1, "the template opens <think>"},
    {"magistral*", SLUICE_THINK_FORMAT_MISTRAL, -1, "[THINK] ... [/THINK]"},
    {"granite-3.2*", SLUICE_THINK_FORMAT_GRANITE, -1, "Granite 3.2's prose markers"},
    {"hunyuan*", SLUICE_THINK_FORMAT_HUNYUAN, -1, "<think> then <answer>"},
    {"ernie-4.5*thinking*", SLUICE_THINK_FORMAT_ERNIE_4_5, -1, "ERNIE-4.5 thinking models"},
    {"olmo-3*think*", SLUICE_THINK_FORMAT_OLMO3, -1, "OLMo 3 Think"},
    {"seed-oss*", SLUICE_THINK_FORMAT_SEED_OSS, -1, "<seed:think>"},
    {"step3*", SLUICE_THINK_FORMAT_STEP3, -1, "only </think>"},
    {"step-3*", SLUICE_THINK_FORMAT_STEP3, -1, "only </think>"},
    {"command-a-reasoning*", SLUICE_THINK_FORMAT_COHERE_COMMAND, -1,
     "<|START_THINKING|> ... <|END_THINKING|>"},
};

const sluice_model_rule *sluice_think_model_rules(size_t *count) {
  if (count) *count = sizeof builtin / sizeof builtin[0];
  return builtin;
}

static unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Glob match of s against pat: '*' any run, '?' one byte, ASCII case
 * folded. Greedy with one backtrack point (the last '*'): a later star
 * never needs an earlier one to move, so this is exact. */
static int glob(const char *pat, const char *s) {
  const char *star = NULL, *resume = NULL;
  while (*s) {
    if (*pat == '*') {
      star = ++pat;
      resume = s;
    } else if (*pat && (*pat == '?' || lower((unsigned char)*pat) == lower((unsigned char)*s))) {
      pat++;
      s++;
    } else if (star) {
      pat = star;
      s = ++resume;
    } else {
      return 0;
    }
  }
  while (*pat == '*') pat++;
  return *pat == '\0';
}

static int rule_matches(const sluice_model_rule *r, const char *model) {
  if (!r->pattern) return 0;
  const char *base = strrchr(model, '/');
  return glob(r->pattern, strchr(r->pattern, '/') || !base ? model : base + 1);
}

int sluice_think_format_for_model(const char *model, const sluice_model_rule *rules,
                                  size_t nrules, sluice_model_match *out) {
  memset(out, 0, sizeof *out);
  out->format = SLUICE_THINK_FORMAT_NONE;
  out->thinking = -1;
  if (!model || !*model) return 0;
  for (int pass = 0; pass < 2; pass++) {
    const sluice_model_rule *t = pass ? builtin : rules;
    size_t n = pass ? sizeof builtin / sizeof builtin[0] : rules ? nrules : 0;
    for (size_t i = 0; i < n; i++)
      if (rule_matches(&t[i], model)) {
        out->format = t[i].format;
        out->thinking = t[i].thinking;
        out->rule = &t[i];
        out->index = i;
        out->builtin = pass;
        return 1;
      }
  }
  return 0;
}

size_t sluice_model_match_describe(const sluice_model_match *m, char *buf, size_t n) {
  if (!m->rule) return (size_t)snprintf(buf, n, "no reasoning format: no rule matches");
  int on = m->thinking >= 0 ? m->thinking : sluice_think_format_thinking_default(m->format);
  int r = snprintf(buf, n, "format %s%s: rule \"%s\" (%s %zu%s%s)",
                   sluice_think_format_name(m->format),
                   m->format == SLUICE_THINK_FORMAT_GPT_OSS ? " (the harmony filter)"
                   : on                                     ? ", thinking on"
                                                            : ", thinking off",
                   m->rule->pattern, m->builtin ? "built-in" : "yours", m->index,
                   m->rule->why ? ": " : "", m->rule->why ? m->rule->why : "");
  return r < 0 ? 0 : (size_t)r;
}

int sluice_think_opts_for_model(sluice_think_opts *o, const char *model,
                                const sluice_model_rule *rules, size_t nrules,
                                sluice_model_match *m) {
  sluice_model_match mine;
  if (!m) m = &mine;
  sluice_think_format_for_model(model, rules, nrules, m);
  if (o->format != SLUICE_THINK_FORMAT_AUTO) return 0;
  if (m->format <= SLUICE_THINK_FORMAT_GENERIC || m->format == SLUICE_THINK_FORMAT_GPT_OSS) {
    /* no family: the stage's own options decide, as with no format */
    o->format = SLUICE_THINK_FORMAT_NONE;
    o->thinking = -1;
    return 0;
  }
  o->format = m->format;
  if (o->thinking < 0) o->thinking = m->thinking;
  o->mode = SLUICE_THINK_CHANNEL;
  o->tags = NULL;
  o->ntags = 0;
  o->pairs = NULL;
  o->npairs = 0;
  o->start_in = NULL;
  o->start_tag = NULL;
  o->end_tag = NULL;
  o->expect_only_closing = 0;
  return 1;
}
