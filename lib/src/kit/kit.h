/*
 * kit.h: what libsluice-kit shares inside itself: reading a filter's
 * "options" object with jansson into the filter's typed options struct.
 * Nothing here is public; the kit's public API is in sluice.h.
 */
#ifndef SLUICE_KIT_H
#define SLUICE_KIT_H

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

/* One translator per filter: reads opts and calls the typed constructor. */
typedef sluice_status (*sluicep_from_json_fn)(sluice_filter **out, json_t *opts,
                                              const sluice_sink *sink, const sluice_mem *mem,
                                              sluice_error *err);
sluice_status sluicep_think_from_json(sluice_filter **, json_t *, const sluice_sink *,
                                      const sluice_mem *, sluice_error *);
sluice_status sluicep_clean_from_json(sluice_filter **, json_t *, const sluice_sink *,
                                      const sluice_mem *, sluice_error *);
sluice_status sluicep_harmony_from_json(sluice_filter **, json_t *, const sluice_sink *,
                                        const sluice_mem *, sluice_error *);
sluice_status sluicep_monitor_from_json(sluice_filter **, json_t *, const sluice_sink *,
                                        const sluice_mem *, sluice_error *);
sluice_status sluicep_json_from_json(sluice_filter **, json_t *, const sluice_sink *,
                                     const sluice_mem *, sluice_error *);
sluice_status sluicep_sse_from_json(sluice_filter **, json_t *, const sluice_sink *,
                                    const sluice_mem *, sluice_error *);
sluice_status sluicep_ndjson_from_json(sluice_filter **, json_t *, const sluice_sink *,
                                       const sluice_mem *, sluice_error *);
sluice_status sluicep_chunks_from_json(sluice_filter **, json_t *, const sluice_sink *,
                                       const sluice_mem *, sluice_error *);
sluice_status sluicep_provider_from_json(sluice_filter **, json_t *, const sluice_sink *,
                                         const sluice_mem *, sluice_error *);
sluice_status sluicep_pipeline_from_json(sluice_filter **, json_t *, const sluice_sink *,
                                         const sluice_mem *, sluice_error *);
/* The provider options of a protocol object into o. Non-zero on a bad
 * option (err says which). */
int sluicep_provider_opts(json_t *opts, sluice_provider_opts *o, sluice_error *err);

/* For `sluice clean`: 1 if key is a setting of the clean filter's options
 * section ("endpoint", "node", "globals", "sluice"), 0 if not, -1 if the
 * section is unknown. */
int sluicep_clean_known_key(const char *section, const char *key);

#endif
