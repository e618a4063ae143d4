/*
 * cmd_replay.c: `sluice replay CAPTURE`: its options, turned into the
 * pipeline's options and a replay (tools/common/replay.c, which `sluice
 * bench replay` runs too).
 */
#include "tools.h"

#include "common/replay.h"

#include <stdlib.h>
#include <string.h>

/* ---------------- the pipeline ---------------- */

typedef struct popts {
  const char *pipeline, *provider, *framing, *model;
  const char *format; /* --format: the think filter's (--think: "auto") */
  int thinking;       /* --thinking on|off: 1, 0; -1 unset */
  int harmony, arguments, explain;
  int choice; /* -1: the pipeline's default */
  const char *filters[SLUICE_PIPELINE_MAX_STAGES];
  int nfilters;
} popts;

/* A --think or --format filter: its options come from --format and
 * --thinking, which may follow it. */
static const char think_by_format[] = "think";

/* The stage --think or --format adds: a think filter of the format named
 * (the model's, "auto", unless --format says). */
static json_t *format_stage(const popts *po) {
  json_t *o = json_pack("{ss}", "format", po->format ? po->format : "auto");
  if (o && po->thinking >= 0 && json_object_set_new(o, "thinking", json_boolean(po->thinking)))
    die("out of memory");
  json_t *st = o ? json_pack("{ssso}", "filter", "think", "options", o) : NULL;
  if (!st) die("out of memory");
  return st;
}

/* The pipeline's options as JSON text (malloc'd); NULL after a message. */
static char *pipeline_spec(const popts *po) {
  json_t *spec;
  if (po->pipeline) {
    json_error_t jerr;
    spec = json_load_file(po->pipeline, 0, &jerr);
    if (!spec) {
      fprintf(stderr, "sluice replay: %s:%d:%d: %s\n", po->pipeline, jerr.line, jerr.column,
              jerr.text);
      return NULL;
    }
    if (!json_is_object(spec)) {
      fprintf(stderr, "sluice replay: %s: the pipeline must be a JSON object\n", po->pipeline);
      json_decref(spec);
      return NULL;
    }
  } else {
    spec = json_object();
  }
  if (!spec) die("out of memory");
  if (po->provider || po->framing || po->choice >= 0) {
    json_t *pv = json_object_get(spec, "provider");
    json_t *obj = json_is_object(pv) ? json_incref(pv) : json_object();
    if (json_is_string(pv)) json_object_set(obj, "provider", pv);
    if (po->provider) json_object_set_new(obj, "provider", json_string(po->provider));
    if (po->framing) json_object_set_new(obj, "framing", json_string(po->framing));
    if (po->choice >= 0) json_object_set_new(obj, "choice", json_integer(po->choice));
    json_object_set_new(spec, "provider", obj);
  }
  if (po->model) json_object_set_new(spec, "model", json_string(po->model));
  if (po->harmony) json_object_set_new(spec, "harmony", json_true());
  if (po->arguments) json_object_set_new(spec, "arguments", json_true());
  if (po->nfilters) {
    json_t *fl = json_object_get(spec, "filters");
    if (!json_is_array(fl)) {
      fl = json_array();
      json_object_set_new(spec, "filters", fl);
    }
    for (int i = 0; i < po->nfilters; i++) {
      if (po->filters[i] == think_by_format) {
        if (json_array_append_new(fl, format_stage(po))) die("out of memory");
        continue;
      }
      const char *eq = strchr(po->filters[i], '=');
      json_t *st = json_object();
      char *name =
          xstrndup(po->filters[i], eq ? (size_t)(eq - po->filters[i]) : strlen(po->filters[i]));
      json_object_set_new(st, "filter", json_string(name));
      free(name);
      if (eq) {
        json_error_t jerr;
        json_t *o = json_loads(eq + 1, 0, &jerr);
        if (!o) {
          fprintf(stderr, "sluice replay: --filter %s: the options are not JSON: %s\n",
                  po->filters[i], jerr.text);
          json_decref(st);
          json_decref(spec);
          return NULL;
        }
        json_object_set_new(st, "options", o);
      }
      json_array_append_new(fl, st);
    }
  }
  char *text = json_dumps(spec, JSON_COMPACT);
  json_decref(spec);
  if (!text) die("out of memory");
  return text;
}

/* ---------------- options ---------------- */

static int add_filter(popts *po, const char *f, char *why, size_t wl) {
  if (po->nfilters == SLUICE_PIPELINE_MAX_STAGES) {
    snprintf(why, wl, "at most %d filters", SLUICE_PIPELINE_MAX_STAGES);
    return -1;
  }
  po->filters[po->nfilters++] = f;
  return 0;
}

static int filter_arg(void *base, const char *v, char *why, size_t wl) {
  return add_filter(base, v, why, wl);
}

/* --think, and --format when no --think came before it. */
static int think_arg(void *base, const char *v, char *why, size_t wl) {
  (void)v;
  popts *po = base;
  for (int i = 0; i < po->nfilters; i++)
    if (po->filters[i] == think_by_format) return 0;
  return add_filter(base, think_by_format, why, wl);
}

static int format_arg(void *base, const char *v, char *why, size_t wl) {
  sluice_think_format f;
  if (sluice_think_format_from_name(v, &f) || f == SLUICE_THINK_FORMAT_NONE ||
      f == SLUICE_THINK_FORMAT_GPT_OSS) {
    snprintf(why, wl, "no reasoning format \"%.60s\" (auto, generic, deepseek-r1, qwen3, ...; "
                      "gpt-oss is --harmony)", v);
    return -1;
  }
  ((popts *)base)->format = v;
  return think_arg(base, v, why, wl);
}

static int thinking_arg(void *base, const char *v, char *why, size_t wl) {
  popts *po = base;
  if (strcmp(v, "on") && strcmp(v, "off")) {
    snprintf(why, wl, "must be on or off, not \"%.60s\"", v);
    return -1;
  }
  po->thinking = strcmp(v, "on") == 0;
  return think_arg(base, v, why, wl);
}

static int channel_arg(void *base, const char *v, char *why, size_t wl) {
  int c = 0;
  while (c < SLUICE_CHANNEL_COUNT && strcmp(v, sluice_channel_name((sluice_channel)c))) c++;
  if (c == SLUICE_CHANNEL_COUNT) {
    snprintf(why, wl, "must be text, thought, other, markup or dropped, not \"%.60s\"", v);
    return -1;
  }
  ((replay_opts *)base)->channel = (sluice_channel)c;
  return 0;
}

static const opt pipeline_options[] = {
    {.kind = OPT_SECTION, .help = "The pipeline (DESIGN.md §2; the protocol's \"pipeline\" options)"},
    {"pipeline", 0, "FILE", OPT_STRING, OPT_AT(popts, pipeline, const char *),
     .help = "the pipeline as JSON; the flags below add to it"},
    {"provider", 0, "NAME", OPT_STRING, OPT_AT(popts, provider, const char *),
     .help = "auto (default), openai, completions, responses, anthropic, ollama, gemini, "
             "cohere, llamacpp"},
    {"framing", 0, "NAME", OPT_STRING, OPT_AT(popts, framing, const char *),
     .help = "auto (default), sse, ndjson, chunks"},
    {"choice", 0, "N", OPT_INT, OPT_AT(popts, choice, int), .max = 63,
     .help = "the choice to show (default 0)"},
    {"filter", 0, "NAME[=JSON]", OPT_CALL, 0, .fn = filter_arg,
     .help = "add a text filter (think, clean, monitor, harmony) with its options"},
    {"think", 0, NULL, OPT_CALL, 0, .fn = think_arg,
     .help = "a think filter in the reasoning format the model's name selects (--model; "
             "--explain says which); channel mode when none does"},
    {"format", 0, "NAME", OPT_CALL, 0, .fn = format_arg,
     .help = "a think filter in this reasoning format: deepseek-r1, qwen3, deepseek-v3.1, "
             "glm-4.5, kimi-k2, minimax-m2, mistral, granite, hunyuan, ernie-4.5, olmo3, "
             "seed-oss, step3, cohere-command, generic, or auto (by the model, as --think)"},
    {"thinking", 0, "on|off", OPT_CALL, 0, .fn = thinking_arg,
     .help = "whether the chat template left reasoning on (its enable_thinking); default: "
             "the family's, or the model rule's"},
    {"model", 0, "NAME", OPT_STRING, OPT_AT(popts, model, const char *),
     .help = "the model asked for: it selects the reasoning format of --think "
             "(deepseek-reasoner, qwen3-8b, ...); llama.cpp/gpt-oss: harmony"},
    {"explain", 0, NULL, OPT_FLAG, OPT_AT(popts, explain, int),
     .help = "say on standard error what the model chose (which format, by which rule)"},
    {"harmony", 0, NULL, OPT_FLAG, OPT_AT(popts, harmony, int),
     .help = "the harmony filter first"},
    {"arguments", 0, NULL, OPT_FLAG, OPT_AT(popts, arguments, int),
     .help = "tool-call arguments through the json filter"},
    {0}};

static const char *const outputs[] = {"text", "jsonl", "sse", "anthropic-sse", NULL};

static const opt replay_options[] = {
    {.kind = OPT_SECTION, .help = "Output"},
    {"output", 0, "FORMAT", OPT_CHOICE, OPT_AT(replay_opts, output, int),
     .choices = outputs,
     .help = "text: the chosen choice's visible text (default);\njsonl: every event, one "
             "JSON object per line (protocol form);\nsse: OpenAI chat.completion.chunk "
             "events, data: [DONE] at a complete end;\nanthropic-sse: Anthropic Messages "
             "events"},
    {"channel", 0, "NAME", OPT_CALL, 0, .fn = channel_arg,
     .help = "text output: text, thought, other, markup or dropped"},
    {"quiet", 'q', NULL, OPT_FLAG, OPT_AT(replay_opts, quiet, int), .help = "no summary"},
    {.kind = OPT_SECTION, .help = "Chunking"},
    {"rechunk", 0, "HOW", OPT_STRING, OPT_AT(replay_opts, rechunk, const char *),
     .help = "recorded (default: one chunk per event or line, as servers flush), whole, "
             "bytes, random:SEED (0 to 64 bytes, empty chunks too), or N (N bytes each)"},
    {"check", 0, NULL, OPT_FLAG, OPT_AT(replay_opts, check, int),
     .help = "run the recorded chunking and every re-chunking mode (whole, single cuts, a "
             "byte at a time, empty chunks, random cuts, random sizes, fixed sizes) and "
             "compare their output; exits 1 with the first difference"},
    {"max-chunk", 0, "BYTES", OPT_SIZE, OPT_AT(replay_opts, max_chunk, size_t), .min = 1,
     .max = SIZE_MAX / 2,
     .help = "the largest chunk held (default 64 MiB); a chunking with a larger chunk "
             "(whole, for a larger capture) is refused, or skipped by --check"},
    {0}};

static const opt_cmd replay_cmd = {
    .name = "replay",
    .synopsis = "CAPTURE [options]",
    .intro = "Replays a captured provider stream (an SSE body, an NDJSON body, a\n"
             ".chunks.jsonl recording or what record and capture import write,\n"
             ".capture.jsonl; \"-\" for standard input) through the pipeline: the\n"
             "provider (detected from the content), the filters, a writer. Prints the\n"
             "visible text, and a summary on standard error.\n",
    .outro = "A malformed capture stops with its file, line, byte offset and reason, and\n"
             "exit status 1.\n",
    .tables = {pipeline_options, replay_options},
    .operands = "CAPTURE",
    .min_operands = 1,
    .max_operands = 1,
};

/* --explain: the pipeline built once, without a sink, for what the model
 * chose. Non-zero after a message when it cannot be built. */
static int explain(const popts *po, const char *spec) {
  sluice_filter *f;
  sluice_error err;
  if (sluice_filter_new_json(&f, "pipeline", spec, strlen(spec), NULL, NULL, &err) != SLUICE_OK) {
    fprintf(stderr, "sluice replay: the pipeline: %s\n", err.message);
    return -1;
  }
  char text[1024];
  sluice_pipeline_explain(f, text, sizeof text);
  sluice_free(f);
  if (po->model) fprintf(stderr, "sluice replay: model \"%s\": %s\n", po->model, text);
  else fprintf(stderr, "sluice replay: no --model: %s\n", text);
  return 0;
}

int cmd_replay(int argc, char **argv) {
  popts po;
  memset(&po, 0, sizeof po);
  po.choice = -1;
  po.thinking = -1;
  replay_opts o;
  replay_opts_init(&o);
  strlist operands = {0};
  void *bases[] = {&po, &o};
  int rc = opt_parse(&replay_cmd, bases, argc, argv, &operands);
  if (rc >= 0) {
    strlist_free(&operands);
    return rc;
  }
  o.path = operands.v[0];
  strlist_free(&operands);
  char *spec = pipeline_spec(&po);
  if (!spec) return 2;
  if (po.explain && explain(&po, spec)) {
    free(spec);
    return 2;
  }
  o.spec = spec;
  o.model = po.model;
  o.choice = po.choice;
  rc = replay_run(&o);
  free(spec);
  return rc;
}
