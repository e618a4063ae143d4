/*
 * registry.c: filters by protocol name, their JSON options read into typed
 * options structs (sluice_options), and filters built from them. A filter
 * that is not listed answers "unsupported_filter" in the protocol.
 */
#include "kit_private.h"

#include <stdlib.h>
#include <string.h>

static const sluicep_read_fn readers[SLUICE_FILTER_KIND_COUNT] = {
    [SLUICE_FILTER_THINK] = sluicep_think_read,       [SLUICE_FILTER_CLEAN] = sluicep_clean_read,
    [SLUICE_FILTER_HARMONY] = sluicep_harmony_read,   [SLUICE_FILTER_MONITOR] = sluicep_monitor_read,
    [SLUICE_FILTER_JSON] = sluicep_json_read,         [SLUICE_FILTER_SSE] = sluicep_sse_read,
    [SLUICE_FILTER_NDJSON] = sluicep_lines_read,      [SLUICE_FILTER_CHUNKS] = sluicep_lines_read,
    [SLUICE_FILTER_PROVIDER] = sluicep_provider_read, [SLUICE_FILTER_PIPELINE] = sluicep_pipeline_read,
    [SLUICE_FILTER_DETECT] = sluicep_provider_read,   [SLUICE_FILTER_CAPTURE] = sluicep_capture_read,
};

/* The handle is allocated with jansson's allocator, as the JSON it holds
 * is: one allocator for everything the kit reads. */
static void *kit_alloc(size_t n) {
  json_malloc_t m;
  json_free_t f;
  json_get_alloc_funcs(&m, &f);
  return m(n);
}

static void kit_free(void *p) {
  json_malloc_t m;
  json_free_t f;
  json_get_alloc_funcs(&m, &f);
  if (p) f(p);
}

sluice_status sluicep_options_read(sluice_options **out, sluice_filter_kind k, json_t *opts,
                                   sluice_error *err) {
  *out = NULL;
  sluice_options *so = kit_alloc(sizeof *so);
  if (!so) return sluicep_nomem(err, sluice_filter_kind_name(k));
  memset(so, 0, sizeof *so);
  so->kind = k;
  so->json = json_incref(opts);
  sluice_status st = readers[k](opts, so, err);
  if (st != SLUICE_OK) {
    sluice_options_free(so);
    return st;
  }
  *out = so;
  return SLUICE_OK;
}

static void clear_error(sluice_error *err) {
  if (!err) return;
  err->status = SLUICE_OK;
  err->offset = 0;
  err->message[0] = '\0';
}

/* The options text parsed into an object; NULL with err set. */
static json_t *parse(const char *text, size_t len, sluice_error *err) {
  if (!text || len == 0) {
    json_t *o = json_object();
    if (!o) sluicep_set_error(err, SLUICE_NOMEM, 0, "out of memory reading the options");
    return o;
  }
  json_error_t jerr;
  json_t *opts = json_loadb(text, len, JSON_ALLOW_NUL, &jerr);
  if (!opts && json_error_code(&jerr) != json_error_out_of_memory) {
    /* jansson 2.14 reports some failed allocations as a parse error. It is
     * deterministic, so a second parse that succeeds shows the first failed
     * for lack of memory, not because the text is wrong. */
    json_t *again = json_loadb(text, len, JSON_ALLOW_NUL, NULL);
    if (!again) {
      sluicep_set_error(err, SLUICE_BAD_OPTION, (uint64_t)jerr.position,
                        "options are not valid JSON: %s", jerr.text);
      return NULL;
    }
    json_decref(again);
  }
  if (!opts) {
    sluicep_set_error(err, SLUICE_NOMEM, 0, "out of memory reading the options");
    return NULL;
  }
  if (!json_is_object(opts)) {
    json_decref(opts);
    sluicep_bad_option(err, "options must be a JSON object");
    return NULL;
  }
  return opts;
}

sluice_status sluice_options_from_json(sluice_options **out, const char *filter,
                                       const char *json, size_t len, sluice_error *err) {
  *out = NULL;
  clear_error(err);
  if (!filter) {
    sluicep_set_error(err, SLUICE_INVALID, 0, "no filter name");
    return SLUICE_INVALID;
  }
  sluice_filter_kind k = sluice_filter_kind_from_name(filter);
  if (k == SLUICE_FILTER_NONE || !readers[k]) {
    sluicep_set_error(err, SLUICE_UNSUPPORTED, 0, "filter \"%s\" is not supported", filter);
    return SLUICE_UNSUPPORTED;
  }
  json_t *opts = parse(json, len, err);
  if (!opts) return err ? err->status : SLUICE_BAD_OPTION;
  sluice_status st = sluicep_options_read(out, k, opts, err);
  json_decref(opts);
  return st;
}

sluice_filter_kind sluice_options_kind(const sluice_options *o) {
  return o ? o->kind : SLUICE_FILTER_NONE;
}

const void *sluice_options_get(const sluice_options *o) { return o ? &o->o : NULL; }

void sluice_options_free(sluice_options *o) {
  if (!o) return;
  for (size_t i = 0; i < o->nsub; i++) sluice_options_free(o->sub[i]);
  json_decref(o->json);
  kit_free(o);
}

sluice_status sluice_filter_new_json(sluice_filter **out, const char *filter,
                                     const char *options_json, size_t options_len,
                                     const sluice_sink *sink, const sluice_mem *mem,
                                     sluice_error *err) {
  *out = NULL;
  sluice_options *o;
  sluice_status st = sluice_options_from_json(&o, filter, options_json, options_len, err);
  if (st != SLUICE_OK) return st;
  st = sluice_filter_new(out, o->kind, &o->o, sink, mem, err);
  if (st != SLUICE_OK && err && err->status == SLUICE_OK)
    sluicep_set_error(err, st, 0, "%s", sluice_status_str(st));
  sluice_options_free(o);
  return st;
}
