/*
 * registry.c: filters by protocol name, and the helpers that read a
 * filter's "options" object so that every filter reports a bad option the
 * same way: naming the key and what was expected.
 */
#include "sluice_private.h"

#include <string.h>

/* One line per filter. A filter that is not listed answers
 * "unsupported_filter" in the protocol. */
static const struct {
  const char *name;
  sluicep_from_json_fn make;
} filters[] = {
    {"think", sluicep_think_from_json},
    {"clean", sluicep_clean_from_json},
    {"harmony", sluicep_harmony_from_json},
    {"monitor", sluicep_monitor_from_json},
    {"json", sluicep_json_from_json},
};

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

int sluicep_opt_check_keys(json_t *opts, const char *const *known, sluice_error *err,
                           const char *filter) {
  const char *key;
  json_t *v;
  json_object_foreach(opts, key, v) {
    int ok = 0;
    for (size_t i = 0; known[i]; i++)
      if (strcmp(known[i], key) == 0) ok = 1;
    if (!ok) {
      sluicep_set_error(err, SLUICE_INVALID, 0, "unknown option \"%s\" for filter %s", key,
                        filter);
      return -1;
    }
  }
  return 0;
}

int sluicep_opt_bool(json_t *opts, const char *key, int *out, sluice_error *err) {
  json_t *v = json_object_get(opts, key);
  if (!v) return 0;
  if (!json_is_boolean(v)) {
    sluicep_set_error(err, SLUICE_INVALID, 0, "option \"%s\" must be a boolean, not %s", key,
                      type_name(v));
    return -1;
  }
  *out = json_is_true(v);
  return 0;
}

int sluicep_opt_uint(json_t *opts, const char *key, uint64_t *out, sluice_error *err) {
  json_t *v = json_object_get(opts, key);
  if (!v) return 0;
  if (!json_is_integer(v) || json_integer_value(v) < 0) {
    sluicep_set_error(err, SLUICE_INVALID, 0,
                      "option \"%s\" must be a non-negative integer, not %s", key,
                      json_is_integer(v) ? "a negative integer" : type_name(v));
    return -1;
  }
  *out = (uint64_t)json_integer_value(v);
  return 0;
}

int sluicep_opt_string(json_t *opts, const char *key, const char **out, sluice_error *err) {
  json_t *v = json_object_get(opts, key);
  if (!v) return 0;
  if (!json_is_string(v)) {
    sluicep_set_error(err, SLUICE_INVALID, 0, "option \"%s\" must be a string, not %s", key,
                      type_name(v));
    return -1;
  }
  if (strlen(json_string_value(v)) != json_string_length(v)) {
    sluicep_set_error(err, SLUICE_INVALID, 0, "option \"%s\" must not contain a NUL byte", key);
    return -1;
  }
  *out = json_string_value(v);
  return 0;
}

sluice_status sluice_filter_new_json(sluice_filter **out, const char *filter,
                                     const char *options_json, size_t options_len,
                                     const sluice_sink *sink, const sluice_mem *mem,
                                     sluice_error *err) {
  *out = NULL;
  if (err) {
    err->status = SLUICE_OK;
    err->offset = 0;
    err->message[0] = '\0';
  }
  if (!filter) {
    sluicep_set_error(err, SLUICE_INVALID, 0, "no filter name");
    return SLUICE_INVALID;
  }
  sluicep_from_json_fn make = NULL;
  for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++)
    if (strcmp(filters[i].name, filter) == 0) make = filters[i].make;
  if (!make) {
    sluicep_set_error(err, SLUICE_UNSUPPORTED, 0, "filter \"%s\" is not supported", filter);
    return SLUICE_UNSUPPORTED;
  }
  json_t *opts;
  if (!options_json || options_len == 0) {
    opts = json_object();
  } else {
    json_error_t jerr;
    opts = json_loadb(options_json, options_len, JSON_ALLOW_NUL, &jerr);
    if (!opts) {
      sluicep_set_error(err, SLUICE_INVALID, (uint64_t)jerr.position,
                        "options are not valid JSON: %s", jerr.text);
      return SLUICE_INVALID;
    }
  }
  if (!opts) {
    sluicep_set_error(err, SLUICE_NOMEM, 0, "out of memory");
    return SLUICE_NOMEM;
  }
  if (!json_is_object(opts)) {
    json_decref(opts);
    sluicep_set_error(err, SLUICE_INVALID, 0, "options must be a JSON object");
    return SLUICE_INVALID;
  }
  sluice_status st = make(out, opts, sink, mem, err);
  if (st != SLUICE_OK && err && err->status == SLUICE_OK)
    sluicep_set_error(err, st, 0, "%s", sluice_status_str(st));
  json_decref(opts);
  return st;
}
