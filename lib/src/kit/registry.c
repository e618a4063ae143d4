/*
 * registry.c: filters by protocol name. A filter that is not listed answers
 * "unsupported_filter" in the protocol.
 */
#include "kit.h"

#include <string.h>

static const struct {
  const char *name;
  sluicep_from_json_fn make;
} filters[] = {
    {"think", sluicep_think_from_json},     {"clean", sluicep_clean_from_json},
    {"harmony", sluicep_harmony_from_json}, {"monitor", sluicep_monitor_from_json},
    {"json", sluicep_json_from_json},
};

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
  json_error_t jerr;
  if (!options_json || options_len == 0) opts = json_object();
  else opts = json_loadb(options_json, options_len, JSON_ALLOW_NUL, &jerr);
  if (!opts && options_json && options_len && json_error_code(&jerr) != json_error_out_of_memory) {
    /* jansson 2.14 reports some failed allocations as a parse error. It is
     * deterministic, so a second parse that succeeds shows the first failed
     * for lack of memory, not because the text is wrong. */
    json_t *again = json_loadb(options_json, options_len, JSON_ALLOW_NUL, NULL);
    if (!again) {
      sluicep_set_error(err, SLUICE_BAD_OPTION, (uint64_t)jerr.position,
                        "options are not valid JSON: %s", jerr.text);
      return SLUICE_BAD_OPTION;
    }
    json_decref(again);
  }
  if (!opts) {
    sluicep_set_error(err, SLUICE_NOMEM, 0, "out of memory reading the options");
    return SLUICE_NOMEM;
  }
  if (!json_is_object(opts)) {
    json_decref(opts);
    return sluicep_bad_option(err, "options must be a JSON object");
  }
  sluice_status st = make(out, opts, sink, mem, err);
  if (st != SLUICE_OK && err && err->status == SLUICE_OK)
    sluicep_set_error(err, st, 0, "%s", sluice_status_str(st));
  json_decref(opts);
  return st;
}
