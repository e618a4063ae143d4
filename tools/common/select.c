/*
 * select.c: features and shards (select.h).
 */
#include "select.h"

#include <stdlib.h>
#include <string.h>

/* A comma-separated list into l, each name a copy (case_filter_free). */
static int add_names(strlist *l, const char *list, char *why, size_t wl) {
  char *copy = xstrdup(list), *save = NULL;
  size_t before = l->n;
  for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
    strlist_add(l, xstrdup(w));
  free(copy);
  if (l->n == before) {
    snprintf(why, wl, "needs a comma-separated list of feature names");
    return -1;
  }
  return 0;
}

static int features_arg(void *base, const char *v, char *why, size_t wl) {
  return add_names(&((case_filter *)base)->features, v, why, wl);
}

static int exclude_arg(void *base, const char *v, char *why, size_t wl) {
  return add_names(&((case_filter *)base)->exclude, v, why, wl);
}

/* K/N with 1 <= K <= N. */
static int shard_arg(void *base, const char *v, char *why, size_t wl) {
  case_filter *f = base;
  const char *slash = strchr(v, '/');
  uint64_t k, n;
  char kbuf[24];
  if (slash && (size_t)(slash - v) < sizeof kbuf) {
    memcpy(kbuf, v, (size_t)(slash - v));
    kbuf[slash - v] = '\0';
  }
  if (!slash || (size_t)(slash - v) >= sizeof kbuf || parse_u64(kbuf, &k) || parse_u64(slash + 1, &n) ||
      n < 1 || n > 100000 || k < 1 || k > n) {
    snprintf(why, wl, "needs K/N with 1 <= K <= N <= 100000, not \"%.40s\"", v);
    return -1;
  }
  f->shard_k = (unsigned)k;
  f->shard_n = (unsigned)n;
  return 0;
}

const opt select_options[] = {
    {"features", 0, "LIST", OPT_CALL, 0, .fn = features_arg,
     .help = "only cases with one of these features (comma-separated; repeatable): the rule "
             "classes of conformance/suites/suites.json and the ones the runner derives "
             "(utf8, invalid-utf8, error, recorded, max-held)"},
    {"exclude-features", 0, "LIST", OPT_CALL, 0, .fn = exclude_arg,
     .help = "no case with any of these features"},
    {"shard", 0, "K/N", OPT_CALL, 0, .fn = shard_arg,
     .help = "only the Kth of N shards of the selected cases (by a hash of SUITE/ID: the N "
             "shards together are the whole run, each case in one)"},
    {0}};

/* FNV-1a over the bytes of s, from h. */
static uint64_t fnv_str(uint64_t h, const char *s) {
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

unsigned case_shard(const tcase *c, unsigned n) {
  /* a hash of SUITE/ID: fixed by the case, whatever else is selected */
  uint64_t h = fnv_str(fnv_str(14695981039346656037ull, c->suite), "/");
  return (unsigned)(fnv_str(h, c->id) % n);
}

unsigned name_shard(const char *name, unsigned n) {
  return (unsigned)(fnv_str(14695981039346656037ull, name) % n);
}

static int any_feature(const tcase *c, const strlist *l) {
  for (size_t i = 0; i < l->n; i++)
    if (tcase_has_feature(c, l->v[i])) return 1;
  return 0;
}

/* A name the suites or the runner know. */
static int known_feature(const caselist *cl, const char *name) {
  for (size_t i = 0; derived_features[i]; i++)
    if (strcmp(derived_features[i], name) == 0) return 1;
  return cl->features && json_object_get(cl->features, name);
}

static int check_names(const caselist *cl, const strlist *l, const char *flag, const char *cmd) {
  for (size_t i = 0; i < l->n; i++)
    if (!known_feature(cl, l->v[i])) {
      fprintf(stderr, "sluice %s: --%s: unknown feature \"%s\" (the suites' suites.json lists "
                      "them, with the derived ones in conformance/FORMAT.md)\n",
              cmd, flag, l->v[i]);
      return -1;
    }
  return 0;
}

int caselist_select(caselist *cl, const case_filter *f, const char *cmd) {
  if (check_names(cl, &f->features, "features", cmd) ||
      check_names(cl, &f->exclude, "exclude-features", cmd))
    return -1;
  size_t kept = 0;
  for (size_t i = 0; i < cl->n; i++) {
    tcase *c = &cl->v[i];
    int take = (!f->features.n || any_feature(c, &f->features)) && !any_feature(c, &f->exclude);
    if (take && f->shard_n) take = case_shard(c, f->shard_n) == f->shard_k - 1;
    if (take) {
      if (kept != i) cl->v[kept] = *c;
      kept++;
    } else {
      tcase_free(c);
    }
  }
  cl->n = kept;
  return 0;
}

void case_filter_free(case_filter *f) {
  for (size_t i = 0; i < f->features.n; i++) free((void *)f->features.v[i]);
  for (size_t i = 0; i < f->exclude.n; i++) free((void *)f->exclude.v[i]);
  strlist_free(&f->features);
  strlist_free(&f->exclude);
}
