/*
 * options.c: reading a filter's "options" object (the filter protocol's
 * JSON) into its typed options struct, so every filter reports a bad option
 * the same way: naming the key and what was expected. The values themselves
 * are checked once, by the typed constructor in libsluice.
 */
#include "kit_private.h"

#include <stdio.h>
#include <string.h>

static const char *type_name(json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER: return "an integer";
  case JSON_REAL: return "a number";
  case JSON_TRUE:
  case JSON_FALSE: return "a boolean";
  default: return "null";
  }
}

static int in_list(const char *const *list, const char *s) {
  for (size_t i = 0; list[i]; i++)
    if (strcmp(list[i], s) == 0) return 1;
  return 0;
}

int sluicep_opt_check_keys(json_t *opts, const char *const *known, sluice_error *err,
                           const char *where) {
  const char *key;
  json_t *v;
  json_object_foreach(opts, key, v) {
    if (!in_list(known, key)) {
      sluicep_bad_option(err, "unknown option \"%s\" for %s", key, where);
      return -1;
    }
  }
  return 0;
}

int sluicep_opt_bool(json_t *opts, const char *key, int *out, sluice_error *err) {
  json_t *v = json_object_get(opts, key);
  if (!v) return 0;
  if (!json_is_boolean(v)) {
    sluicep_bad_option(err, "option \"%s\" must be a boolean, not %s", key, type_name(v));
    return -1;
  }
  *out = json_is_true(v);
  return 0;
}

int sluicep_opt_uint(json_t *opts, const char *key, uint64_t *out, sluice_error *err) {
  json_t *v = json_object_get(opts, key);
  if (!v) return 0;
  if (!json_is_integer(v) || json_integer_value(v) < 0) {
    sluicep_bad_option(err, "option \"%s\" must be a non-negative integer, not %s", key,
                       json_is_integer(v) ? "a negative integer" : type_name(v));
    return -1;
  }
  *out = (uint64_t)json_integer_value(v);
  return 0;
}

int sluicep_opt_size(json_t *opts, const char *key, size_t *out, sluice_error *err) {
  uint64_t u = *out;
  if (sluicep_opt_uint(opts, key, &u, err)) return -1;
  if (u > SIZE_MAX) {
    sluicep_bad_option(err, "option \"%s\" is too large", key);
    return -1;
  }
  *out = (size_t)u;
  return 0;
}

int sluicep_opt_string(json_t *opts, const char *key, const char **out, sluice_error *err) {
  json_t *v = json_object_get(opts, key);
  if (!v) return 0;
  if (!json_is_string(v)) {
    sluicep_bad_option(err, "option \"%s\" must be a string, not %s", key, type_name(v));
    return -1;
  }
  if (strlen(json_string_value(v)) != json_string_length(v)) {
    sluicep_bad_option(err, "option \"%s\" must not contain a NUL byte", key);
    return -1;
  }
  *out = json_string_value(v);
  return 0;
}

int sluicep_opt_enum(json_t *opts, const char *key, const char *const *names, const int *values,
                     int *out, sluice_error *err) {
  const char *s = NULL;
  if (sluicep_opt_string(opts, key, &s, err)) return -1;
  if (!s) return 0;
  for (size_t i = 0; names[i]; i++)
    if (strcmp(names[i], s) == 0) {
      *out = values[i];
      return 0;
    }
  char allowed[160] = "";
  for (size_t i = 0; names[i]; i++) {
    size_t l = strlen(allowed);
    snprintf(allowed + l, sizeof allowed - l, "%s\"%s\"",
             i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
  }
  sluicep_bad_option(err, "option \"%s\" must be %s, not \"%s\"", key, allowed, s);
  return -1;
}

int sluicep_opt_strings(json_t *opts, const char *key, int one_ok, const char **list, size_t max,
                        size_t *count, sluice_error *err) {
  json_t *v = json_object_get(opts, key);
  if (!v) return 0;
  if (one_ok && json_is_string(v)) {
    if (sluicep_opt_string(opts, key, &list[0], err)) return -1;
    *count = 1;
    return 0;
  }
  if (!json_is_array(v) || json_array_size(v) > max) {
    sluicep_bad_option(err, "option \"%s\" must be %san array of at most %zu strings", key,
                       one_ok ? "a string or " : "", max);
    return -1;
  }
  for (size_t i = 0; i < json_array_size(v); i++) {
    json_t *s = json_array_get(v, i);
    if (!json_is_string(s) || strlen(json_string_value(s)) != json_string_length(s)) {
      sluicep_bad_option(err, "option \"%s\" must hold strings without NUL bytes (item %zu)", key,
                         i);
      return -1;
    }
    list[i] = json_string_value(s);
  }
  *count = json_array_size(v);
  return 0;
}

int sluicep_opt_missing_close(json_t *opts, const char *key, sluice_missing_close *out,
                              sluice_error *err) {
  static const char *const names[] = {"empty", "keep", NULL};
  static const int values[] = {SLUICE_MISSING_CLOSE_EMPTY, SLUICE_MISSING_CLOSE_KEEP};
  int v = (int)*out;
  if (sluicep_opt_enum(opts, key, names, values, &v, err)) return -1;
  *out = (sluice_missing_close)v;
  return 0;
}

/* ---------------- think ---------------- */

static const char *const think_keys[] = {
    "mode", "tags", "pairs", "case_insensitive", "start_in", "start_tag", "end_tag",
    "grace_period", "expect_only_closing", "missing_close", "max_block", "format", "thinking",
    NULL};
static const char *const think_format_keys[] = {"format", "thinking", "mode", NULL};

/* "format" and "thinking". A model family's format takes no other key (its
 * tags and start state are its own) but "mode": "channel", the mode whose
 * scanner reads it; "generic" is channel mode and takes channel mode's. */
static int think_format_json(json_t *opts, sluice_think_opts *o, int *family, sluice_error *err) {
  const char *name = NULL;
  *family = 0;
  if (sluicep_opt_string(opts, "format", &name, err)) return -1;
  if (name && sluice_think_format_from_name(name, &o->format)) {
    sluicep_bad_option(err, "option \"format\": no reasoning format \"%s\" (generic, "
                            "deepseek-r1, qwen3, ...: sluice_think_format_name)", name);
    return -1;
  }
  if (json_object_get(opts, "thinking")) {
    int on = 1;
    if (sluicep_opt_bool(opts, "thinking", &on, err)) return -1;
    o->thinking = on;
  }
  *family = o->format > SLUICE_THINK_FORMAT_GENERIC;
  if (*family) {
    const char *key;
    json_t *v;
    json_object_foreach(opts, key, v) {
      if (!in_list(think_format_keys, key)) {
        sluicep_bad_option(err, "option \"%s\" does not apply to format %s (it has its own "
                                "tags and start state)", key, name);
        return -1;
      }
    }
  }
  return 0;
}
static const char *const think_channel_only[] = {"tags", "pairs", "start_in", NULL};
static const char *const think_anchored_only[] = {"start_tag", "end_tag", "grace_period",
                                                  "expect_only_closing", "missing_close",
                                                  "max_block", NULL};

sluice_status sluicep_think_read(json_t *opts, sluice_options *so, sluice_error *err) {
  sluice_think_opts *op = &so->o.think, o;
  sluice_think_opts_init(&o);
  static const char *const modes[] = {"channel", "anchored", NULL};
  static const int mode_values[] = {SLUICE_THINK_CHANNEL, SLUICE_THINK_ANCHORED};
  int mode = (int)o.mode, family;
  if (sluicep_opt_check_keys(opts, think_keys, err, "filter think") ||
      think_format_json(opts, &o, &family, err) ||
      sluicep_opt_enum(opts, "mode", modes, mode_values, &mode, err))
    return SLUICE_BAD_OPTION;
  o.mode = (sluice_think_mode)mode;
  if (family) { /* the constructor refuses anchored, and gpt-oss */
    *op = o;
    return SLUICE_OK;
  }
  const char *const *wrong = o.mode == SLUICE_THINK_CHANNEL ? think_anchored_only
                                                            : think_channel_only;
  for (size_t i = 0; wrong[i]; i++)
    if (json_object_get(opts, wrong[i]))
      return sluicep_bad_option(err, "option \"%s\" does not apply to mode %s", wrong[i],
                                modes[o.mode == SLUICE_THINK_CHANNEL ? 0 : 1]);
  const char **tags = so->list[0];
  sluice_pair *pairs = so->pairs;
  if (sluicep_opt_bool(opts, "case_insensitive", &o.case_insensitive, err) ||
      sluicep_opt_string(opts, "start_in", &o.start_in, err) ||
      sluicep_opt_string(opts, "start_tag", &o.start_tag, err) ||
      sluicep_opt_string(opts, "end_tag", &o.end_tag, err) ||
      sluicep_opt_uint(opts, "grace_period", &o.grace_period, err) ||
      sluicep_opt_bool(opts, "expect_only_closing", &o.expect_only_closing, err) ||
      sluicep_opt_missing_close(opts, "missing_close", &o.missing_close, err) ||
      sluicep_opt_size(opts, "max_block", &o.max_block, err) ||
      sluicep_opt_strings(opts, "tags", 0, tags, SLUICE_THINK_MAX_TAGS, &o.ntags, err))
    return SLUICE_BAD_OPTION;
  if (json_object_get(opts, "tags")) o.tags = tags;
  json_t *jp = json_object_get(opts, "pairs");
  if (jp) {
    if (!json_is_array(jp) || json_array_size(jp) > SLUICE_THINK_MAX_TAGS)
      return sluicep_bad_option(
          err, "option \"pairs\" must be an array of at most %d [open, close] pairs",
          SLUICE_THINK_MAX_TAGS);
    for (size_t i = 0; i < json_array_size(jp); i++) {
      json_t *v = json_array_get(jp, i);
      json_t *a = json_array_get(v, 0), *b = json_array_get(v, 1);
      if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_string(a) ||
          !json_is_string(b) || strlen(json_string_value(a)) != json_string_length(a) ||
          strlen(json_string_value(b)) != json_string_length(b))
        return sluicep_bad_option(
            err, "option \"pairs\" must hold [open, close] pairs of strings (item %zu)", i);
      pairs[i].open = json_string_value(a);
      pairs[i].close = json_string_value(b);
    }
    o.pairs = pairs;
    o.npairs = json_array_size(jp);
  }
  *op = o;
  return SLUICE_OK;
}

/* ---------------- clean ----------------
 * {"endpoint": {...}, "node": {...}, "globals": {...}, "sluice": {...}}: the
 * proxy's own keys, so its users can point at their settings; "sluice" holds
 * what the proxy has no key for. */

static const char *const clean_top_keys[] = {"endpoint", "node", "globals", "sluice", NULL};
static const char *const clean_endpoint_keys[] = {"removeThinking",
                                                  "startThinkTag",
                                                  "endThinkTag",
                                                  "openingTagGracePeriod",
                                                  "expectOnlyClosingThinkTag",
                                                  "removeCustomTextFromResponseStartEndpointWide",
                                                  "responseStartTextToRemoveEndpointWide",
                                                  "trimBeginningAndEndLineBreaks",
                                                  NULL};
static const char *const clean_node_keys[] = {"removeCustomTextFromResponseStart",
                                              "responseStartTextToRemove",
                                              "addDiscussionIdTimestampsForLLM", NULL};
static const char *const clean_globals_keys[] = {"chatCompleteAddUserAssistant",
                                                 "chatCompleteAddMissingAssistant", NULL};
static const char *const clean_sluice_keys[] = {"missing_close", "max_block", "max_whitespace",
                                                NULL};

static const struct {
  const char *name;
  const char *const *keys;
} clean_sections[] = {{"endpoint", clean_endpoint_keys},
                      {"node", clean_node_keys},
                      {"globals", clean_globals_keys},
                      {"sluice", clean_sluice_keys}};

int sluicep_clean_known_key(const char *section, const char *key) {
  for (size_t i = 0; i < sizeof clean_sections / sizeof clean_sections[0]; i++)
    if (strcmp(clean_sections[i].name, section) == 0)
      return in_list(clean_sections[i].keys, key);
  return -1;
}

sluice_status sluicep_clean_read(json_t *opts, sluice_options *so, sluice_error *err) {
  sluice_clean_opts o;
  sluice_clean_opts_init(&o);
  if (sluicep_opt_check_keys(opts, clean_top_keys, err, "filter clean")) return SLUICE_BAD_OPTION;
  /* A missing section reads as {}: every getter then leaves its default. */
  json_t *sec[4];
  for (size_t i = 0; i < 4; i++) {
    sec[i] = json_object_get(opts, clean_sections[i].name);
    if (!sec[i]) continue;
    if (!json_is_object(sec[i]))
      return sluicep_bad_option(err, "option \"%s\" must be an object", clean_sections[i].name);
    char where[48];
    snprintf(where, sizeof where, "filter clean (in \"%s\")", clean_sections[i].name);
    if (sluicep_opt_check_keys(sec[i], clean_sections[i].keys, err, where))
      return SLUICE_BAD_OPTION;
  }
  json_t *ep = sec[0], *nd = sec[1], *gl = sec[2], *sl = sec[3];
  const char **node_list = so->list[0], **ep_list = so->list[1];
  int rc = sluicep_opt_bool(ep, "removeThinking", &o.remove_thinking, err) ||
           sluicep_opt_string(ep, "startThinkTag", &o.start_think_tag, err) ||
           sluicep_opt_string(ep, "endThinkTag", &o.end_think_tag, err) ||
           sluicep_opt_uint(ep, "openingTagGracePeriod", &o.grace_period, err) ||
           sluicep_opt_bool(ep, "expectOnlyClosingThinkTag", &o.expect_only_closing, err) ||
           sluicep_opt_bool(ep, "removeCustomTextFromResponseStartEndpointWide",
                            &o.remove_endpoint_prefixes, err) ||
           sluicep_opt_strings(ep, "responseStartTextToRemoveEndpointWide", 1, ep_list,
                               SLUICE_CLEAN_MAX_PREFIXES, &o.n_endpoint_prefixes, err) ||
           sluicep_opt_bool(ep, "trimBeginningAndEndLineBreaks", &o.trim, err) ||
           sluicep_opt_bool(nd, "removeCustomTextFromResponseStart", &o.remove_node_prefixes,
                            err) ||
           sluicep_opt_strings(nd, "responseStartTextToRemove", 1, node_list,
                               SLUICE_CLEAN_MAX_PREFIXES, &o.n_node_prefixes, err) ||
           sluicep_opt_bool(nd, "addDiscussionIdTimestampsForLLM", &o.remove_timestamp, err) ||
           sluicep_opt_bool(gl, "chatCompleteAddUserAssistant", &o.add_user_assistant, err) ||
           sluicep_opt_bool(gl, "chatCompleteAddMissingAssistant", &o.add_missing_assistant,
                            err) ||
           sluicep_opt_missing_close(sl, "missing_close", &o.missing_close, err) ||
           sluicep_opt_size(sl, "max_block", &o.max_block, err) ||
           sluicep_opt_size(sl, "max_whitespace", &o.max_whitespace, err);
  if (rc) return SLUICE_BAD_OPTION;
  o.node_prefixes = node_list;
  o.endpoint_prefixes = ep_list;
  so->o.clean = o;
  return SLUICE_OK;
}

/* ---------------- harmony ---------------- */

static const char *const harmony_keys[] = {"commentary_preamble", "max_header", NULL};

sluice_status sluicep_harmony_read(json_t *opts, sluice_options *so, sluice_error *err) {
  sluice_harmony_opts o;
  sluice_harmony_opts_init(&o);
  static const char *const names[] = {"text", "thought", "other", NULL};
  static const int values[] = {SLUICE_TEXT, SLUICE_THOUGHT, SLUICE_OTHER};
  int pre = (int)o.preamble;
  if (sluicep_opt_check_keys(opts, harmony_keys, err, "filter harmony") ||
      sluicep_opt_enum(opts, "commentary_preamble", names, values, &pre, err) ||
      sluicep_opt_size(opts, "max_header", &o.max_header, err))
    return SLUICE_BAD_OPTION;
  o.preamble = (sluice_channel)pre;
  so->o.harmony = o;
  return SLUICE_OK;
}

/* ---------------- monitor ---------------- */

static const char *const monitor_keys[] = {
    "profile", "max_length", "whitespace_interval", "repetition_interval", "whitespace_threshold",
    "quasi",   "weighted",   "max_history",         NULL};

sluice_status sluicep_monitor_read(json_t *opts, sluice_options *so, sluice_error *err) {
  sluice_monitor_opts o;
  sluice_monitor_opts_init(&o);
  static const char *const names[] = {"seed", "current", NULL};
  static const int values[] = {SLUICE_MONITOR_SEED, SLUICE_MONITOR_CURRENT};
  int profile = (int)o.profile;
  if (sluicep_opt_check_keys(opts, monitor_keys, err, "filter monitor") ||
      sluicep_opt_enum(opts, "profile", names, values, &profile, err) ||
      sluicep_opt_uint(opts, "max_length", &o.max_length, err) ||
      sluicep_opt_uint(opts, "whitespace_interval", &o.whitespace_interval, err) ||
      sluicep_opt_uint(opts, "repetition_interval", &o.repetition_interval, err) ||
      sluicep_opt_uint(opts, "whitespace_threshold", &o.whitespace_threshold, err) ||
      sluicep_opt_uint(opts, "max_history", &o.max_history, err) ||
      sluicep_opt_bool(opts, "quasi", &o.quasi, err) ||
      sluicep_opt_bool(opts, "weighted", &o.weighted, err))
    return SLUICE_BAD_OPTION;
  o.profile = (sluice_monitor_profile)profile;
  so->o.monitor = o;
  return SLUICE_OK;
}

/* ---------------- json ---------------- */

static const char *const json_keys[] = {"incremental", "max_depth", "max_bytes", "ndjson", NULL};

sluice_status sluicep_json_read(json_t *opts, sluice_options *so, sluice_error *err) {
  sluice_json_opts *o = &so->o.json;
  sluice_json_opts_init(o);
  if (sluicep_opt_check_keys(opts, json_keys, err, "filter json") ||
      sluicep_opt_bool(opts, "incremental", &o->incremental, err) ||
      sluicep_opt_size(opts, "max_depth", &o->max_depth, err) ||
      sluicep_opt_size(opts, "max_bytes", &o->max_bytes, err) ||
      sluicep_opt_bool(opts, "ndjson", &o->ndjson, err))
    return SLUICE_BAD_OPTION;
  return SLUICE_OK;
}

/* ---------------- sse, ndjson, chunks ---------------- */

static const char *const sse_keys[] = {"max_line", "max_event", NULL};

sluice_status sluicep_sse_read(json_t *opts, sluice_options *so, sluice_error *err) {
  sluice_sse_opts *o = &so->o.sse;
  sluice_sse_opts_init(o);
  if (sluicep_opt_check_keys(opts, sse_keys, err, "filter sse") ||
      sluicep_opt_size(opts, "max_line", &o->max_line, err) ||
      sluicep_opt_size(opts, "max_event", &o->max_event, err))
    return SLUICE_BAD_OPTION;
  return SLUICE_OK;
}

static const char *const lines_keys[] = {"max_line", NULL};

/* ndjson and chunks: only the line cap. */
sluice_status sluicep_lines_read(json_t *opts, sluice_options *so, sluice_error *err) {
  sluice_lines_opts *o = &so->o.lines;
  char where[32];
  snprintf(where, sizeof where, "filter %s", sluice_filter_kind_name(so->kind));
  sluice_lines_opts_init(o);
  if (sluicep_opt_check_keys(opts, lines_keys, err, where) ||
      sluicep_opt_size(opts, "max_line", &o->max_line, err))
    return SLUICE_BAD_OPTION;
  return SLUICE_OK;
}

/* ---------------- provider ---------------- */

static const char *const provider_keys[] = {"provider", "framing", "choice", "max_line",
                                            "max_event", NULL};

int sluicep_provider_opts(json_t *opts, sluice_provider_opts *o, sluice_error *err) {
  /* the servers that send OpenAI's chunks are accepted by their names */
  static const char *const names[] = {"auto", "openai", "completions", "responses", "anthropic",
                                      "ollama", "gemini", "cohere", "llamacpp", "mistral",
                                      "deepseek", "groq", "vllm", "openrouter", NULL};
  static const int values[] = {SLUICE_PROVIDER_AUTO,      SLUICE_PROVIDER_OPENAI,
                               SLUICE_PROVIDER_COMPLETIONS, SLUICE_PROVIDER_RESPONSES,
                               SLUICE_PROVIDER_ANTHROPIC, SLUICE_PROVIDER_OLLAMA,
                               SLUICE_PROVIDER_GEMINI,    SLUICE_PROVIDER_COHERE,
                               SLUICE_PROVIDER_LLAMACPP,  SLUICE_PROVIDER_OPENAI,
                               SLUICE_PROVIDER_OPENAI,    SLUICE_PROVIDER_OPENAI,
                               SLUICE_PROVIDER_OPENAI,    SLUICE_PROVIDER_OPENAI};
  static const char *const framings[] = {"auto", "sse", "ndjson", "chunks", NULL};
  static const int framing_values[] = {SLUICE_FRAMING_AUTO, SLUICE_FRAMING_SSE,
                                       SLUICE_FRAMING_NDJSON, SLUICE_FRAMING_CHUNKS};
  sluice_provider_opts_init(o);
  int kind = (int)o->provider, framing = (int)o->framing;
  if (sluicep_opt_check_keys(opts, provider_keys, err, "filter provider") ||
      sluicep_opt_enum(opts, "provider", names, values, &kind, err) ||
      sluicep_opt_enum(opts, "framing", framings, framing_values, &framing, err) ||
      sluicep_opt_size(opts, "choice", &o->choice, err) ||
      sluicep_opt_size(opts, "max_line", &o->max_line, err) ||
      sluicep_opt_size(opts, "max_event", &o->max_event, err))
    return -1;
  o->provider = (sluice_provider_kind)kind;
  o->framing = (sluice_framing)framing;
  return 0;
}

sluice_status sluicep_provider_read(json_t *opts, sluice_options *so, sluice_error *err) {
  return sluicep_provider_opts(opts, &so->o.provider, err) ? SLUICE_BAD_OPTION : SLUICE_OK;
}

/* ---------------- pipeline ----------------
 * {"provider": NAME or {provider options}, "filters": [{"filter": NAME,
 * "options": {...}}, ...], "arguments": true or {json options}, "model":
 * NAME, "harmony": BOOL} */

static const char *const pipeline_keys[] = {"provider", "filters", "arguments", "model",
                                            "harmony", "models", NULL};
static const char *const model_rule_keys[] = {"pattern", "format", "thinking", "why", NULL};
static const char *const stage_keys[] = {"filter", "options", NULL};

/* A stage's or the arguments' options: a sub-handle of the pipeline's. */
static sluice_status sub_options(sluice_options *so, sluice_filter_kind kind, json_t *opts,
                                 const char *where, const void **out, sluice_error *err) {
  if (so->nsub == sizeof so->sub / sizeof so->sub[0])
    return sluicep_bad_option(err, "too many filters in a pipeline");
  json_t *empty = opts ? NULL : json_object();
  if (!opts && !empty) return sluicep_nomem(err, "pipeline");
  sluice_options *sub;
  sluice_status st = sluicep_options_read(&sub, kind, opts ? opts : empty, err);
  json_decref(empty);
  if (st == SLUICE_BAD_OPTION && err) {
    /* say which stage (the message is cut to fit) */
    char msg[sizeof err->message];
    size_t w = (size_t)snprintf(msg, sizeof msg, "%s: ", where);
    size_t k = strlen(err->message);
    if (k > sizeof msg - 1 - w) {
      k = sizeof msg - 1 - w;
      k -= sluice_utf8_tail(err->message, k); /* never half a character */
    }
    memcpy(msg + w, err->message, k);
    msg[w + k] = '\0';
    memcpy(err->message, msg, sizeof msg);
  }
  if (st != SLUICE_OK) return st;
  so->sub[so->nsub++] = sub;
  *out = sluice_options_get(sub);
  return SLUICE_OK;
}

static sluice_status pipeline_stages(json_t *fl, sluice_options *so, sluice_error *err) {
  if (!json_is_array(fl) || json_array_size(fl) > SLUICE_PIPELINE_MAX_STAGES)
    return sluicep_bad_option(err, "option \"filters\" must be an array of at most %d "
                                   "{\"filter\", \"options\"} objects",
                              SLUICE_PIPELINE_MAX_STAGES);
  for (size_t i = 0; i < json_array_size(fl); i++) {
    json_t *s = json_array_get(fl, i), *name = json_object_get(s, "filter"),
           *so_json = json_object_get(s, "options");
    char where[48];
    snprintf(where, sizeof where, "pipeline filter %zu", i);
    if (!json_is_object(s) || !json_is_string(name) || (so_json && !json_is_object(so_json)))
      return sluicep_bad_option(err, "filters[%zu] must be {\"filter\": NAME, \"options\": {...}}",
                                i);
    if (sluicep_opt_check_keys(s, stage_keys, err, where)) return SLUICE_BAD_OPTION;
    sluice_filter_kind k = sluice_filter_kind_from_name(json_string_value(name));
    /* The pipeline's constructor names a filter that is not a text filter;
     * a name that is no filter at all is said here. */
    if (k == SLUICE_FILTER_NONE)
      return sluicep_bad_option(err, "filter %zu (\"%s\") is not a text filter: think, clean, "
                                     "monitor or harmony",
                                i, json_string_value(name));
    so->stages[i].kind = k;
    sluice_status st = k == SLUICE_FILTER_THINK || k == SLUICE_FILTER_CLEAN ||
                               k == SLUICE_FILTER_MONITOR || k == SLUICE_FILTER_HARMONY
                           ? sub_options(so, k, so_json, where, &so->stages[i].opts, err)
                           : SLUICE_OK;
    if (st != SLUICE_OK) return st;
  }
  so->o.pipeline.stages = so->stages;
  so->o.pipeline.nstages = json_array_size(fl);
  return SLUICE_OK;
}

/* "models": [{"pattern": GLOB, "format": NAME, "thinking": BOOL, "why":
 * TEXT}, ...], the rules tried before the built-in table for a think
 * stage of format "auto". */
static sluice_status pipeline_models(json_t *ml, sluice_options *so, sluice_error *err) {
  if (!json_is_array(ml) || json_array_size(ml) > SLUICEP_MAX_MODEL_RULES)
    return sluicep_bad_option(err, "option \"models\" must be an array of at most %d "
                                   "{\"pattern\", \"format\"} objects",
                              SLUICEP_MAX_MODEL_RULES);
  for (size_t i = 0; i < json_array_size(ml); i++) {
    json_t *r = json_array_get(ml, i);
    sluice_model_rule *m = &so->models[i];
    const char *format = NULL;
    char where[32];
    int on = 1;
    snprintf(where, sizeof where, "models[%zu]", i);
    m->thinking = -1;
    if (!json_is_object(r))
      return sluicep_bad_option(err, "models[%zu] must be {\"pattern\": GLOB, \"format\": NAME}",
                                i);
    if (sluicep_opt_check_keys(r, model_rule_keys, err, where) ||
        sluicep_opt_string(r, "pattern", &m->pattern, err) ||
        sluicep_opt_string(r, "format", &format, err) ||
        sluicep_opt_string(r, "why", &m->why, err) || sluicep_opt_bool(r, "thinking", &on, err))
      return SLUICE_BAD_OPTION;
    if (json_object_get(r, "thinking")) m->thinking = on;
    if (!m->pattern || !*m->pattern || !format)
      return sluicep_bad_option(err, "models[%zu] needs a non-empty \"pattern\" and a \"format\"",
                                i);
    if (sluice_think_format_from_name(format, &m->format) || m->format == SLUICE_THINK_FORMAT_AUTO)
      return sluicep_bad_option(err, "models[%zu]: no reasoning format \"%s\"", i, format);
  }
  so->o.pipeline.model_rules = so->models;
  so->o.pipeline.nmodel_rules = json_array_size(ml);
  return SLUICE_OK;
}

static sluice_status pipeline_provider(json_t *pv, sluice_options *so, sluice_error *err) {
  if (json_is_string(pv)) {
    json_t *wrap = json_pack("{sO}", "provider", pv);
    if (!wrap) return sluicep_nomem(err, "pipeline");
    int bad = sluicep_provider_opts(wrap, &so->provider, err);
    json_decref(wrap);
    if (bad) return SLUICE_BAD_OPTION;
  } else if (json_is_object(pv)) {
    if (sluicep_provider_opts(pv, &so->provider, err)) return SLUICE_BAD_OPTION;
  } else if (pv) {
    return sluicep_bad_option(err, "option \"provider\" must be a provider name or an object");
  } else {
    sluice_provider_opts_init(&so->provider);
  }
  so->o.pipeline.provider = &so->provider;
  return SLUICE_OK;
}

sluice_status sluicep_pipeline_read(json_t *opts, sluice_options *so, sluice_error *err) {
  sluice_pipeline_opts *o = &so->o.pipeline;
  sluice_pipeline_opts_init(o);
  int harmony = 0;
  if (sluicep_opt_check_keys(opts, pipeline_keys, err, "filter pipeline") ||
      sluicep_opt_string(opts, "model", &o->model, err) ||
      sluicep_opt_bool(opts, "harmony", &harmony, err))
    return SLUICE_BAD_OPTION;
  if (json_object_get(opts, "harmony")) o->harmony = harmony;
  sluice_status st = pipeline_provider(json_object_get(opts, "provider"), so, err);
  json_t *fl = json_object_get(opts, "filters");
  if (st == SLUICE_OK && fl) st = pipeline_stages(fl, so, err);
  json_t *ml = json_object_get(opts, "models");
  if (st == SLUICE_OK && ml) st = pipeline_models(ml, so, err);
  if (st != SLUICE_OK) return st;
  json_t *args = json_object_get(opts, "arguments");
  const void *ao = NULL;
  if (json_is_true(args)) st = sub_options(so, SLUICE_FILTER_JSON, NULL, "arguments", &ao, err);
  else if (json_is_object(args))
    st = sub_options(so, SLUICE_FILTER_JSON, args, "arguments", &ao, err);
  else if (args && !json_is_false(args))
    st = sluicep_bad_option(err,
                            "option \"arguments\" must be a boolean or the json filter's options");
  o->arguments = ao;
  return st;
}

/* ---------------- capture ---------------- */

static const char *const capture_keys[] = {"format", "max_line", "max_piece", NULL};

sluice_status sluicep_capture_read(json_t *opts, sluice_options *so, sluice_error *err) {
  static const char *const names[] = {"auto", "sse", "ndjson", "chunks", "recorded", NULL};
  static const int values[] = {SLUICE_CAPTURE_AUTO, SLUICE_CAPTURE_SSE, SLUICE_CAPTURE_NDJSON,
                               SLUICE_CAPTURE_CHUNKS, SLUICE_CAPTURE_RECORDED};
  sluice_capture_opts *o = &so->o.capture;
  sluice_capture_opts_init(o);
  int format = (int)o->format;
  if (sluicep_opt_check_keys(opts, capture_keys, err, "filter capture") ||
      sluicep_opt_enum(opts, "format", names, values, &format, err) ||
      sluicep_opt_size(opts, "max_line", &o->max_line, err) ||
      sluicep_opt_size(opts, "max_piece", &o->max_piece, err))
    return SLUICE_BAD_OPTION;
  o->format = (sluice_capture_format)format;
  return SLUICE_OK;
}
