/*
 * kinds.c: filters by kind (sluice_filter_new) and the deep copy of an
 * options struct that a filter keeps to build others later (the pipeline
 * builds a chain per choice, long after its caller's options are gone).
 */
#include "sluice_private.h"

#include <string.h>

static const char *const kind_names[SLUICE_FILTER_KIND_COUNT] = {
    "", "think", "clean", "harmony", "monitor", "json", "sse", "ndjson", "chunks",
    "provider", "pipeline", "detect", "capture"};

const char *sluice_filter_kind_name(sluice_filter_kind k) {
  return (unsigned)k < SLUICE_FILTER_KIND_COUNT ? kind_names[k] : "";
}

sluice_filter_kind sluice_filter_kind_from_name(const char *name) {
  if (!name) return SLUICE_FILTER_NONE;
  for (int k = 1; k < SLUICE_FILTER_KIND_COUNT; k++)
    if (strcmp(kind_names[k], name) == 0) return (sluice_filter_kind)k;
  return SLUICE_FILTER_NONE;
}

sluice_status sluice_filter_new(sluice_filter **out, sluice_filter_kind k, const void *o,
                                const sluice_sink *sink, const sluice_mem *mem,
                                sluice_error *err) {
  switch (k) {
  case SLUICE_FILTER_THINK: return sluice_think_new(out, o, sink, mem, err);
  case SLUICE_FILTER_CLEAN: return sluice_clean_new(out, o, sink, mem, err);
  case SLUICE_FILTER_HARMONY: return sluice_harmony_new(out, o, sink, mem, err);
  case SLUICE_FILTER_MONITOR: return sluice_monitor_new(out, o, sink, mem, err);
  case SLUICE_FILTER_JSON: return sluice_json_new(out, o, sink, mem, err);
  case SLUICE_FILTER_SSE: return sluice_sse_new(out, o, sink, mem, err);
  case SLUICE_FILTER_NDJSON: return sluice_ndjson_new(out, o, sink, mem, err);
  case SLUICE_FILTER_CHUNKS: return sluice_chunks_new(out, o, sink, mem, err);
  case SLUICE_FILTER_PROVIDER: return sluice_provider_new(out, o, sink, mem, err);
  case SLUICE_FILTER_PIPELINE: return sluice_pipeline_new(out, o, sink, mem, err);
  case SLUICE_FILTER_DETECT: return sluice_detect_new(out, o, sink, mem, err);
  case SLUICE_FILTER_CAPTURE: return sluice_capture_new(out, o, sink, mem, err);
  default:
    if (out) *out = NULL;
    sluicep_set_error(err, SLUICE_UNSUPPORTED, 0, "no filter of kind %d", (int)k);
    return SLUICE_UNSUPPORTED;
  }
}

/* ---------------- copying options ----------------
 * One block holds the struct, the arrays it points to and their strings,
 * so the copy is freed with one call. Two passes: the first (out NULL)
 * only counts the bytes. */

typedef struct packer {
  char *out;  /* NULL while counting */
  size_t len; /* bytes used so far */
} packer;

#define PACK_ALIGN (sizeof(void *) > sizeof(uint64_t) ? sizeof(void *) : sizeof(uint64_t))

static void *pack_raw(packer *pk, const void *src, size_t n) {
  size_t at = (pk->len + PACK_ALIGN - 1) / PACK_ALIGN * PACK_ALIGN;
  pk->len = at + n;
  if (!pk->out) return NULL;
  if (n) memcpy(pk->out + at, src, n);
  return pk->out + at;
}

static const char *pack_str(packer *pk, const char *s) {
  return s ? pack_raw(pk, s, strlen(s) + 1) : NULL;
}

static const char *const *pack_strs(packer *pk, const char *const *v, size_t n) {
  if (!v) return NULL;
  const char **copy = pack_raw(pk, v, n * sizeof *v);
  for (size_t i = 0; i < n; i++) {
    const char *s = pack_str(pk, v[i]);
    if (copy) copy[i] = s;
  }
  return copy;
}

static void pack_think(packer *pk, const sluice_think_opts *src) {
  sluice_think_opts *o = pack_raw(pk, src, sizeof *src);
  const char *const *tags = pack_strs(pk, src->tags, src->ntags);
  sluice_pair *pairs = src->pairs ? pack_raw(pk, src->pairs, src->npairs * sizeof *pairs) : NULL;
  for (size_t i = 0; src->pairs && i < src->npairs; i++) {
    const char *a = pack_str(pk, src->pairs[i].open), *b = pack_str(pk, src->pairs[i].close);
    if (pairs) {
      pairs[i].open = a;
      pairs[i].close = b;
    }
  }
  const char *start_in = pack_str(pk, src->start_in);
  const char *start_tag = pack_str(pk, src->start_tag), *end_tag = pack_str(pk, src->end_tag);
  if (!o) return;
  o->tags = tags;
  o->pairs = pairs;
  o->start_in = start_in;
  o->start_tag = start_tag;
  o->end_tag = end_tag;
}

static void pack_clean(packer *pk, const sluice_clean_opts *src) {
  sluice_clean_opts *o = pack_raw(pk, src, sizeof *src);
  const char *start = pack_str(pk, src->start_think_tag), *end = pack_str(pk, src->end_think_tag);
  const char *const *node = pack_strs(pk, src->node_prefixes, src->n_node_prefixes);
  const char *const *ep = pack_strs(pk, src->endpoint_prefixes, src->n_endpoint_prefixes);
  if (!o) return;
  o->start_think_tag = start;
  o->end_think_tag = end;
  o->node_prefixes = node;
  o->endpoint_prefixes = ep;
}

/* The full-size struct of kind k with the defaults, then the caller's
 * fields (sluicep_opts_take), into `full`. */
static sluice_status take_full(sluice_filter_kind k, const void *src, void *full, size_t *size,
                               sluice_error *err) {
  switch (k) {
  case SLUICE_FILTER_THINK: sluice_think_opts_init((sluice_think_opts *)full); break;
  case SLUICE_FILTER_CLEAN: sluice_clean_opts_init((sluice_clean_opts *)full); break;
  case SLUICE_FILTER_HARMONY: sluice_harmony_opts_init((sluice_harmony_opts *)full); break;
  case SLUICE_FILTER_MONITOR: sluice_monitor_opts_init((sluice_monitor_opts *)full); break;
  case SLUICE_FILTER_JSON: sluice_json_opts_init((sluice_json_opts *)full); break;
  default:
    sluicep_set_error(err, SLUICE_BAD_OPTION, 0, "a %s filter cannot be a stage",
                      sluice_filter_kind_name(k));
    return SLUICE_BAD_OPTION;
  }
  *size = *(const size_t *)full;
  return src ? sluicep_opts_take(full, *size, src, "options struct", err) : SLUICE_OK;
}

sluice_status sluicep_opts_copy(sluice_filter_kind k, const void *src, const sluice_mem *m,
                                void **out, sluice_error *err) {
  *out = NULL;
  union {
    sluice_think_opts think;
    sluice_clean_opts clean;
    sluice_harmony_opts harmony;
    sluice_monitor_opts monitor;
    sluice_json_opts json;
  } full;
  size_t size;
  sluice_status st = take_full(k, src, &full, &size, err);
  if (st != SLUICE_OK) return st;
  for (int pass = 0; pass < 2; pass++) {
    packer pk = {pass ? *out : NULL, 0};
    if (k == SLUICE_FILTER_THINK) pack_think(&pk, &full.think);
    else if (k == SLUICE_FILTER_CLEAN) pack_clean(&pk, &full.clean);
    else pack_raw(&pk, &full, size);
    if (!pass && !(*out = sluicep_alloc(m, pk.len))) {
      sluicep_set_error(err, SLUICE_NOMEM, 0, "out of memory copying %s options",
                        sluice_filter_kind_name(k));
      return SLUICE_NOMEM;
    }
  }
  return SLUICE_OK;
}
