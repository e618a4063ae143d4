/*
 * kit_private.h: what libsluice-kit shares inside itself: reading a filter's
 * "options" object with jansson into the filter's typed options struct.
 * Nothing here is public; the kit's public API is in sluice_kit.h.
 */
#ifndef SLUICE_KIT_PRIVATE_H
#define SLUICE_KIT_PRIVATE_H

#include "sluice_kit.h"
#include "sluice_private.h"

#include <jansson.h>

/* Options from JSON. Each reports a bad key into err (SLUICE_BAD_OPTION,
 * naming the key and what was expected) and returns non-zero; a missing key
 * leaves *out unchanged. */
int sluicep_opt_check_keys(json_t *opts, const char *const *known, sluice_error *err,
                           const char *where);
int sluicep_opt_bool(json_t *opts, const char *key, int *out, sluice_error *err);
int sluicep_opt_uint(json_t *opts, const char *key, uint64_t *out, sluice_error *err);
/* size_t, refusing values that do not fit. */
int sluicep_opt_size(json_t *opts, const char *key, size_t *out, sluice_error *err);
/* *out points into the JSON value (valid while opts lives); NUL bytes are
 * rejected. */
int sluicep_opt_string(json_t *opts, const char *key, const char **out, sluice_error *err);
/* One of names[] (NULL-terminated); *out = values[i]. */
int sluicep_opt_enum(json_t *opts, const char *key, const char *const *names, const int *values,
                     int *out, sluice_error *err);
/* A string, or an array of at most max strings (when one_ok), into
 * list[]; *count is how many. */
int sluicep_opt_strings(json_t *opts, const char *key, int one_ok, const char **list,
                        size_t max, size_t *count, sluice_error *err);
/* missing_close: "empty" or "keep". */
int sluicep_opt_missing_close(json_t *opts, const char *key, sluice_missing_close *out,
                              sluice_error *err);

/* What sluice_options_from_json returns: the typed options struct of a
 * kind and the storage it points into (lists, pairs, a pipeline's stages
 * and its stages' own handles); strings point into `json`, which the
 * handle keeps. */
#define SLUICEP_MAX_MODEL_RULES 64 /* a pipeline's own model-name rules */

struct sluice_options {
  sluice_filter_kind kind;
  json_t *json;
  union {
    sluice_think_opts think;
    sluice_clean_opts clean;
    sluice_harmony_opts harmony;
    sluice_monitor_opts monitor;
    sluice_json_opts json;
    sluice_sse_opts sse;
    sluice_lines_opts lines;
    sluice_provider_opts provider;
    sluice_pipeline_opts pipeline;
    sluice_capture_opts capture;
  } o;
  const char *list[2][SLUICE_CLEAN_MAX_PREFIXES]; /* think tags; clean prefixes */
  sluice_pair pairs[SLUICE_THINK_MAX_TAGS];
  /* a pipeline's */
  sluice_provider_opts provider;
  sluice_stage stages[SLUICE_PIPELINE_MAX_STAGES];
  struct sluice_options *sub[SLUICE_PIPELINE_MAX_STAGES + 1]; /* stages', arguments' */
  size_t nsub;
  sluice_model_rule models[SLUICEP_MAX_MODEL_RULES]; /* "models": its rules */
};

/* Reads opts (an object) into a new handle of kind k (registry.c). */
sluice_status sluicep_options_read(sluice_options **out, sluice_filter_kind k, json_t *opts,
                                   sluice_error *err);

/* One reader per filter: opts into so->o (so->kind is set). SLUICE_OK, or
 * SLUICE_BAD_OPTION (or NOMEM) with err set. */
typedef sluice_status (*sluicep_read_fn)(json_t *opts, sluice_options *so, sluice_error *err);
sluice_status sluicep_think_read(json_t *, sluice_options *, sluice_error *);
sluice_status sluicep_clean_read(json_t *, sluice_options *, sluice_error *);
sluice_status sluicep_harmony_read(json_t *, sluice_options *, sluice_error *);
sluice_status sluicep_monitor_read(json_t *, sluice_options *, sluice_error *);
sluice_status sluicep_json_read(json_t *, sluice_options *, sluice_error *);
sluice_status sluicep_sse_read(json_t *, sluice_options *, sluice_error *);
sluice_status sluicep_lines_read(json_t *, sluice_options *, sluice_error *);
sluice_status sluicep_provider_read(json_t *, sluice_options *, sluice_error *);
sluice_status sluicep_pipeline_read(json_t *, sluice_options *, sluice_error *);
sluice_status sluicep_capture_read(json_t *, sluice_options *, sluice_error *);
/* The provider options of a protocol object into o. Non-zero on a bad
 * option (err says which). */
int sluicep_provider_opts(json_t *opts, sluice_provider_opts *o, sluice_error *err);

/* For `sluice clean`: 1 if key is a setting of the clean filter's options
 * section ("endpoint", "node", "globals", "sluice"), 0 if not, -1 if the
 * section is unknown. */
int sluicep_clean_known_key(const char *section, const char *key);

#endif
