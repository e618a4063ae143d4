/*
 * conform.c: `sluice conform`, the conformance runner.
 *
 * Every case of the golden suites runs in every split mode of DESIGN.md §3,
 * against the reference library (in process) or any command that serves the
 * filter protocol (--impl). Every chunking must give the case's expected
 * answer (y_ and n_ cases) or the whole-input answer (i_ cases, whose
 * outcome is recorded but never fails). A failing chunking is reduced to the
 * smallest chunking that still fails.
 */
#include "tools.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char conform_usage[] =
    "usage: sluice conform [options]\n"
    "\n"
    "Runs the golden conformance suites in every split mode and prints a table\n"
    "per filter and split mode, then a line \"N passed, N failed\". Exits 1 if\n"
    "any case failed, 2 on a usage or suite error.\n"
    "\n"
    "  --suite NAME        run only conformance/suites/NAME (repeatable)\n"
    "  --suites DIR        the suites directory (default: the source tree's, or\n"
    "                      the installed one)\n"
    "  --case TEXT         run only cases whose id contains TEXT\n"
    "  --impl \"COMMAND\"    check COMMAND, which serves the filter protocol on\n"
    "                      stdin/stdout (e.g. \"sluice proto\"), instead of the\n"
    "                      reference library\n"
    "  --format FMT        text (default), tap or junit (XML on stdout; the\n"
    "                      closing line then goes to stderr)\n"
    "  --max-exhaustive N  try all 2^(n-1) cuttings of inputs up to N bytes\n"
    "                      (default 16, 0 = never)\n"
    "  --max-pairs N       try every pair of cuts for inputs up to N bytes\n"
    "                      (default 48)\n"
    "  --random N          seeded random cuttings per case (default 32)\n"
    "  --seed N            seed for the random cuttings (default 1)\n"
    "  --quiet             print only failing cases and the tables\n"
    "  -h, --help          this text\n"
    "\n"
    "Split modes: whole, single-cut, pair-cuts, byte-at-a-time, empty-chunks,\n"
    "random, exhaustive, recorded (a case's own \"chunks\").\n";

/* The runner is a tool, not the library: out of memory ends it. */
static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fprintf(stderr, "sluice conform: out of memory\n");
    exit(2);
  }
  return q;
}

/* ---------------- split modes ---------------- */

enum mode { M_WHOLE, M_SINGLE, M_PAIRS, M_BYTES, M_EMPTY, M_RANDOM, M_EXHAUSTIVE, M_RECORDED,
            M_COUNT };
static const char *const mode_names[M_COUNT] = {"whole",          "single-cut",   "pair-cuts",
                                                "byte-at-a-time", "empty-chunks", "random",
                                                "exhaustive",     "recorded"};

/* A chunking: the lengths of the chunks, in order; zero lengths allowed. */
typedef struct chunking {
  size_t *len;
  size_t n;
} chunking;

typedef struct chunklist {
  chunking *v;
  size_t n, cap;
} chunklist;

static void cl_push(chunklist *cl, const size_t *len, size_t n) {
  if (cl->n == cl->cap) {
    cl->cap = cl->cap ? cl->cap * 2 : 64;
    cl->v = xrealloc(cl->v, cl->cap * sizeof *cl->v);
  }
  chunking *c = &cl->v[cl->n++];
  c->n = n;
  c->len = malloc((n ? n : 1) * sizeof *c->len);
  if (!c->len) abort();
  memcpy(c->len, len, n * sizeof *len);
}

static void cl_free(chunklist *cl) {
  for (size_t i = 0; i < cl->n; i++) free(cl->v[i].len);
  free(cl->v);
  memset(cl, 0, sizeof *cl);
}

static uint64_t rng_next(uint64_t *s) {
  /* xorshift64*: reproducible across platforms. */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

typedef struct opts {
  const char *suites_dir;
  const char **suites;
  size_t nsuites;
  const char *case_filter;
  const char *impl;
  int format; /* 0 text, 1 tap, 2 junit */
  size_t max_exhaustive, max_pairs, nrandom;
  uint64_t seed;
  int quiet;
} opts;

/* Random cut positions: k distinct sorted cuts in (0, n). */
static void random_chunking(chunklist *cl, size_t n, uint64_t *rng, int with_empty) {
  size_t maxk = n - 1 < 32 ? n - 1 : 32;
  size_t k = maxk ? 1 + (size_t)(rng_next(rng) % maxk) : 0;
  size_t *cuts = malloc((k + 2) * sizeof *cuts), nc = 0;
  for (size_t i = 0; i < k; i++) cuts[nc++] = 1 + (size_t)(rng_next(rng) % (n - 1));
  /* sort and dedupe (k is small) */
  for (size_t i = 1; i < nc; i++)
    for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
      size_t t = cuts[j];
      cuts[j] = cuts[j - 1];
      cuts[j - 1] = t;
    }
  size_t *len = malloc((2 * nc + 3) * sizeof *len), m = 0, prev = 0;
  for (size_t i = 0; i <= nc; i++) {
    size_t c = i < nc ? cuts[i] : n;
    if (i < nc && i > 0 && cuts[i] == cuts[i - 1]) continue;
    if (with_empty) len[m++] = 0;
    len[m++] = c - prev;
    prev = c;
  }
  if (with_empty) len[m++] = 0;
  cl_push(cl, len, m);
  free(len);
  free(cuts);
}

static void gen_mode(chunklist *cl, enum mode md, size_t n, const opts *o, uint64_t seed,
                     const chunking *recorded) {
  size_t l3[3];
  switch (md) {
  case M_WHOLE:
    l3[0] = n;
    cl_push(cl, l3, 1);
    break;
  case M_SINGLE: {
    /* every cut; for long inputs, at most 4096 evenly spread cuts */
    size_t step = n > 4096 ? n / 4096 : 1;
    for (size_t i = 1; i < n; i += step) {
      l3[0] = i;
      l3[1] = n - i;
      cl_push(cl, l3, 2);
    }
    break;
  }
  case M_PAIRS:
    if (n > o->max_pairs) break;
    for (size_t i = 1; i < n; i++)
      for (size_t j = i + 1; j < n; j++) {
        l3[0] = i;
        l3[1] = j - i;
        l3[2] = n - j;
        cl_push(cl, l3, 3);
      }
    break;
  case M_BYTES: {
    size_t *len = malloc((n ? n : 1) * sizeof *len);
    for (size_t i = 0; i < n; i++) len[i] = 1;
    cl_push(cl, len, n);
    free(len);
    break;
  }
  case M_EMPTY: {
    /* an empty chunk before, between and after the bytes, and around random
     * cuttings; also a lone empty chunk before the whole input */
    size_t *len = malloc((2 * n + 2) * sizeof *len), m = 0;
    for (size_t i = 0; i < n; i++) {
      len[m++] = 0;
      len[m++] = 1;
    }
    len[m++] = 0;
    cl_push(cl, len, m);
    len[0] = 0;
    len[1] = n;
    cl_push(cl, len, 2);
    free(len);
    uint64_t rng = seed ^ 0x9E3779B97F4A7C15ULL;
    if (!rng) rng = 1;
    for (int i = 0; i < 8 && n > 1; i++) random_chunking(cl, n, &rng, 1);
    break;
  }
  case M_RANDOM: {
    uint64_t rng = seed ? seed : 1;
    for (size_t i = 0; i < o->nrandom && n > 1; i++) random_chunking(cl, n, &rng, 0);
    break;
  }
  case M_EXHAUSTIVE: {
    if (n < 2 || n > o->max_exhaustive || n > 24) break;
    size_t *len = malloc(n * sizeof *len);
    for (uint64_t mask = 0; mask < (1ULL << (n - 1)); mask++) {
      size_t m = 0, prev = 0;
      for (size_t i = 1; i < n; i++)
        if (mask & (1ULL << (i - 1))) {
          len[m++] = i - prev;
          prev = i;
        }
      len[m++] = n - prev;
      cl_push(cl, len, m);
    }
    free(len);
    break;
  }
  case M_RECORDED:
    if (recorded) cl_push(cl, recorded->len, recorded->n);
    break;
  default: break;
  }
}

/* ---------------- cases ---------------- */

typedef struct tcase {
  char *file, *id, *filter, *source;
  char *options; /* JSON text */
  tbytes input;
  chunking recorded;
  int has_recorded;
  json_t *expect; /* normalized expected answer; NULL for i_ without expect */
  json_int_t expect_held;
  int has_expect_held;
  char verdict;
} tcase;

typedef struct caselist {
  tcase *v;
  size_t n, cap;
} caselist;

static void case_free(tcase *c) {
  free(c->file);
  free(c->id);
  free(c->filter);
  free(c->source);
  free(c->options);
  free(c->input.p);
  free(c->recorded.len);
  json_decref(c->expect);
}

/* One json snapshot event rebuilt (FORMAT.md "json snapshots"): the tail
 * is tail[drop..] after prepend; the snapshot is text[0..text_len) + tail.
 * The tail is kept reversed in *rtail so that each edit costs its own size.
 * Returns the snapshot's value, or NULL when it is malformed or not JSON. */
static json_t *snapshot_value(json_t *e, const tbytes *text, tbytes *rtail) {
  json_t *tl = json_object_get(e, "text_len"), *dr = json_object_get(e, "drop");
  tbytes pre;
  if (!json_is_integer(tl) || !json_is_integer(dr) || get_bytes_field(e, "prepend", &pre))
    return NULL;
  json_int_t t = json_integer_value(tl), d = json_integer_value(dr);
  json_t *v = NULL;
  char *grown = realloc(rtail->p, rtail->n + pre.n + 1);
  if (t >= 0 && (size_t)t <= text->n && d >= 0 && (size_t)d <= rtail->n && grown) {
    rtail->p = grown;
    rtail->n -= (size_t)d;
    for (size_t k = pre.n; k-- > 0;) rtail->p[rtail->n++] = pre.p[k];
    size_t len = (size_t)t + rtail->n;
    char *snap = malloc(len + 1);
    if (snap) {
      memcpy(snap, text->p, (size_t)t);
      for (size_t k = 0; k < rtail->n; k++) snap[t + (json_int_t)k] = rtail->p[rtail->n - 1 - k];
      v = json_loadb(snap, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
      if (!v) /* as for the value: a big integer loads as a real */
        v = json_loadb(snap, len, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, NULL);
      free(snap);
    }
  } else if (grown) {
    rtail->p = grown;
  }
  free(pre.p);
  return v;
}

/* The fields two answers are compared on. Byte fields keep the canonical form
 * of set_bytes_field, so equal bytes give equal JSON. */
static json_t *normalize(json_t *ans, int keep_error_offset) {
  json_t *n = json_object();
  json_t *ok = json_object_get(ans, "ok");
  json_object_set_new(n, "ok", json_boolean(json_is_true(ok)));
  if (!json_is_true(ok)) {
    json_t *e = json_object_get(ans, "error"), *ne = json_object();
    json_t *code = json_object_get(e, "code");
    json_object_set(ne, "code", code ? code : json_null());
    if (keep_error_offset) {
      json_t *off = json_object_get(e, "offset");
      json_object_set(ne, "offset", off ? off : json_null());
    }
    json_object_set_new(n, "error", ne);
    return n;
  }
  static const char *const keys[] = {"text", "thought", "other", "markup", "dropped"};
  for (int c = 0; c < 5; c++) {
    tbytes b;
    if (get_bytes_field(ans, keys[c], &b)) {
      json_object_set_new(n, keys[c], json_string("<malformed field>"));
      continue;
    }
    set_bytes_field(n, keys[c], b.p ? b.p : "", b.n);
    free(b.p);
  }
  /* Snapshot events depend on the chunking by nature (one per chunk), so they
   * are not compared; instead every snapshot, rebuilt from the text and its
   * tail edit, must be a JSON value and the last one must equal the final
   * value. */
  json_t *ev = json_object_get(ans, "events"), *nev = json_array(), *last = NULL;
  size_t i;
  json_t *e;
  int bad_snapshot = 0;
  tbytes text = {NULL, 0}, rtail = {NULL, 0};
  if (get_bytes_field(ans, "text", &text)) bad_snapshot = 1;
  json_array_foreach(ev, i, e) {
    json_t *type = json_object_get(e, "type");
    if (json_is_string(type) && strcmp(json_string_value(type), "snapshot") == 0) {
      json_decref(last);
      last = bad_snapshot ? NULL : snapshot_value(e, &text, &rtail);
      if (!last) bad_snapshot = 1;
      continue;
    }
    json_array_append(nev, e);
  }
  free(text.p);
  free(rtail.p);
  json_object_set_new(n, "events", nev);
  json_t *v = json_object_get(ans, "value");
  if (v) json_object_set(n, "value", v);
  if (bad_snapshot) json_object_set_new(n, "snapshot_error", json_string("a snapshot is not valid JSON"));
  else if (last && (!v || !json_equal(last, v)))
    json_object_set_new(n, "snapshot_error", json_string("the last snapshot differs from the value"));
  json_decref(last);
  json_t *t = json_object_get(ans, "truncated");
  if (t) json_object_set(n, "truncated", t);
  return n;
}

/* Rewrites byte specs inside expected events ("text": {"hex": ...}) into the
 * canonical string / _b64 form. */
static int canon_event(json_t *ev, char *why, size_t wl) {
  static const char *const bytekeys[] = {"text", "data", "event", "id"};
  for (int k = 0; k < 4; k++) {
    json_t *v = json_object_get(ev, bytekeys[k]);
    if (!v || json_is_string(v)) continue;
    tbytes b;
    if (bytes_from_spec(v, &b, why, wl)) return -1;
    json_object_del(ev, bytekeys[k]);
    set_bytes_field(ev, bytekeys[k], b.p, b.n);
    free(b.p);
  }
  return 0;
}

static char *xstrdup(const char *s) {
  char *d = strdup(s ? s : "");
  if (!d) abort();
  return d;
}

static int load_case(caselist *cl, const char *file, json_t *jc, json_t *dfilter, json_t *dopts,
                     char *why, size_t wl) {
  tcase c;
  memset(&c, 0, sizeof c);
  json_t *id = json_object_get(jc, "id");
  if (!json_is_string(id)) {
    snprintf(why, wl, "a case has no string \"id\"");
    return -1;
  }
  const char *ids = json_string_value(id);
  if ((ids[0] != 'y' && ids[0] != 'n' && ids[0] != 'i') || ids[1] != '_') {
    snprintf(why, wl, "case %s: the id must start with y_, n_ or i_", ids);
    return -1;
  }
  static const char *const known[] = {"id", "filter", "options", "input", "chunks",
                                      "expect", "source", "note", NULL};
  const char *key;
  json_t *val;
  json_object_foreach(jc, key, val) {
    int ok = 0;
    for (int i = 0; known[i]; i++)
      if (strcmp(known[i], key) == 0) ok = 1;
    if (!ok) {
      snprintf(why, wl, "case %s: unknown field \"%s\"", ids, key);
      return -1;
    }
  }
  c.verdict = ids[0];
  json_t *filter = json_object_get(jc, "filter");
  if (!filter) filter = dfilter;
  json_t *options = json_object_get(jc, "options");
  if (!options) options = dopts;
  json_t *source = json_object_get(jc, "source");
  if (!json_is_string(filter) || (options && !json_is_object(options)) ||
      !json_is_string(source)) {
    snprintf(why, wl, "case %s: needs a string \"filter\", an object \"options\" and a "
                      "string \"source\"", ids);
    return -1;
  }
  if (bytes_from_spec(json_object_get(jc, "input"), &c.input, why, wl)) {
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%.390s", why);
    snprintf(why, wl, "case %.80s: input: %s", ids, tmp);
    return -1;
  }
  c.file = xstrdup(file);
  c.id = xstrdup(ids);
  c.filter = xstrdup(json_string_value(filter));
  c.source = xstrdup(json_string_value(source));
  c.options = options ? json_dumps(options, JSON_COMPACT) : xstrdup("{}");
  json_t *chunks = json_object_get(jc, "chunks");
  if (chunks) {
    if (!json_is_array(chunks)) {
      snprintf(why, wl, "case %s: \"chunks\" must be an array", ids);
      goto fail;
    }
    c.recorded.n = json_array_size(chunks);
    c.recorded.len = malloc((c.recorded.n + 1) * sizeof(size_t));
    tbytes all = {NULL, 0};
    size_t i;
    json_t *ch;
    int bad = 0;
    json_array_foreach(chunks, i, ch) {
      tbytes b;
      if (bytes_from_spec(ch, &b, why, wl)) {
        bad = 1;
        break;
      }
      c.recorded.len[i] = b.n;
      all.p = xrealloc(all.p, all.n + b.n + 1);
      memcpy(all.p + all.n, b.p, b.n);
      all.n += b.n;
      free(b.p);
    }
    int same = !bad && all.n == c.input.n && (all.n == 0 || memcmp(all.p, c.input.p, all.n) == 0);
    free(all.p);
    if (!same) {
      snprintf(why, wl, "case %s: \"chunks\" do not concatenate to \"input\"", ids);
      goto fail;
    }
    c.has_recorded = 1;
  }
  json_t *ex = json_object_get(jc, "expect");
  if (!ex && c.verdict != 'i') {
    snprintf(why, wl, "case %s: y_ and n_ cases need \"expect\"", ids);
    goto fail;
  }
  if (ex) {
    if (!json_is_object(ex)) {
      snprintf(why, wl, "case %s: \"expect\" must be an object", ids);
      goto fail;
    }
    json_t *ans = json_object();
    json_t *err = json_object_get(ex, "error");
    if (c.verdict == 'n' && !err) {
      snprintf(why, wl, "case %s: an n_ case expects an \"error\"", ids);
      json_decref(ans);
      goto fail;
    }
    if (err) {
      json_object_set_new(ans, "ok", json_false());
      json_object_set(ans, "error", err);
      c.expect = normalize(ans, json_object_get(err, "offset") != NULL);
    } else {
      json_object_set_new(ans, "ok", json_true());
      static const char *const keys[] = {"text", "thought", "other", "markup", "dropped"};
      for (int k = 0; k < 5; k++) {
        json_t *spec = json_object_get(ex, keys[k]);
        tbytes b = {NULL, 0};
        if (spec && bytes_from_spec(spec, &b, why, wl)) {
          json_decref(ans);
          goto fail;
        }
        set_bytes_field(ans, keys[k], b.p ? b.p : "", b.n);
        free(b.p);
      }
      json_t *evs = json_object_get(ex, "events");
      json_t *cev = evs ? json_deep_copy(evs) : json_array();
      size_t i;
      json_t *e;
      json_array_foreach(cev, i, e) {
        if (!json_is_object(e) || canon_event(e, why, wl)) {
          json_decref(cev);
          json_decref(ans);
          goto fail;
        }
      }
      json_object_set_new(ans, "events", cev);
      json_t *v = json_object_get(ex, "value");
      if (v) json_object_set(ans, "value", v);
      json_t *t = json_object_get(ex, "truncated");
      if (t) json_object_set(ans, "truncated", t);
      c.expect = normalize(ans, 1);
    }
    json_decref(ans);
    json_t *mh = json_object_get(ex, "max_held");
    if (mh) {
      if (!json_is_integer(mh)) {
        snprintf(why, wl, "case %s: \"max_held\" must be an integer", ids);
        goto fail;
      }
      c.has_expect_held = 1;
      c.expect_held = json_integer_value(mh);
    }
  }
  if (cl->n == cl->cap) {
    cl->cap = cl->cap ? cl->cap * 2 : 64;
    cl->v = xrealloc(cl->v, cl->cap * sizeof *cl->v);
  }
  cl->v[cl->n++] = c;
  return 0;
fail:
  case_free(&c);
  return -1;
}

static int load_file(caselist *cl, const char *path, const char *rel, const opts *o) {
  json_error_t jerr;
  json_t *doc = json_load_file(path, JSON_ALLOW_NUL, &jerr);
  if (!doc) {
    fprintf(stderr, "sluice conform: %s:%d:%d: %s\n", path, jerr.line, jerr.column, jerr.text);
    return -1;
  }
  json_t *cases = json_object_get(doc, "cases");
  if (!json_is_array(cases)) {
    fprintf(stderr, "sluice conform: %s: needs a \"cases\" array\n", path);
    json_decref(doc);
    return -1;
  }
  json_t *dfilter = json_object_get(doc, "filter"), *dopts = json_object_get(doc, "options");
  size_t i;
  json_t *jc;
  char why[512];
  json_array_foreach(cases, i, jc) {
    json_t *id = json_object_get(jc, "id");
    if (o->case_filter && json_is_string(id) && !strstr(json_string_value(id), o->case_filter))
      continue;
    if (load_case(cl, rel, jc, dfilter, dopts, why, sizeof why)) {
      fprintf(stderr, "sluice conform: %s: case %zu: %s\n", path, i, why);
      json_decref(doc);
      return -1;
    }
  }
  json_decref(doc);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the entries of dir (sorted) that end in suffix, or are directories
 * when suffix is NULL. */
static char **list_dir(const char *dir, const char *suffix, size_t *count) {
  DIR *d = opendir(dir);
  *count = 0;
  if (!d) return NULL;
  char **v = NULL;
  size_t cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%.3800s/%.255s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st)) continue;
    size_t l = strlen(e->d_name);
    if (suffix) {
      size_t sl = strlen(suffix);
      if (!S_ISREG(st.st_mode) || l < sl || strcmp(e->d_name + l - sl, suffix)) continue;
    } else if (!S_ISDIR(st.st_mode)) {
      continue;
    }
    if (*count == cap) {
      cap = cap ? cap * 2 : 16;
      v = xrealloc(v, cap * sizeof *v);
    }
    v[(*count)++] = xstrdup(e->d_name);
  }
  closedir(d);
  if (*count) qsort(v, *count, sizeof *v, cmp_str);
  return v;
}

static void free_list(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

static int load_suites(caselist *cl, const opts *o) {
  size_t nsub;
  char **subs;
  if (o->nsuites) {
    nsub = o->nsuites;
    subs = malloc(nsub * sizeof *subs);
    for (size_t i = 0; i < nsub; i++) subs[i] = xstrdup(o->suites[i]);
  } else {
    subs = list_dir(o->suites_dir, NULL, &nsub);
  }
  int rc = 0;
  for (size_t s = 0; s < nsub && !rc; s++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", o->suites_dir, subs[s]);
    size_t nf;
    char **files = list_dir(dir, ".json", &nf);
    if (!files) {
      fprintf(stderr, "sluice conform: no suite \"%s\" in %s\n", subs[s], o->suites_dir);
      rc = -1;
      break;
    }
    for (size_t f = 0; f < nf && !rc; f++) {
      char path[8400], rel[8400];
      snprintf(path, sizeof path, "%s/%s", dir, files[f]);
      snprintf(rel, sizeof rel, "%s/%s", subs[s], files[f]);
      rc = load_file(cl, path, rel, o);
    }
    free_list(files, nf);
  }
  free_list(subs, nsub);
  return rc;
}

/* ---------------- implementations ---------------- */

typedef struct impl {
  /* external command */
  pid_t pid;
  int to, from; /* pipes to its stdin, from its stdout */
  char *rbuf;
  size_t rlen, rcap;
  /* reference */
  sluice_output *out;
} impl;

static tbytes *make_chunks(const tcase *c, const chunking *k) {
  tbytes *ch = malloc((k->n ? k->n : 1) * sizeof *ch);
  size_t off = 0;
  for (size_t i = 0; i < k->n; i++) {
    ch[i].p = c->input.p + off;
    ch[i].n = k->len[i];
    off += k->len[i];
  }
  return ch;
}

static char *request_line(const tcase *c, const chunking *k, size_t id) {
  tbytes *ch = make_chunks(c, k);
  int all_utf8 = 1;
  for (size_t i = 0; i < k->n; i++)
    if (!sluice_utf8_valid(ch[i].p, ch[i].n)) all_utf8 = 0;
  json_t *req = json_object();
  json_object_set_new(req, "id", json_integer((json_int_t)id));
  json_object_set_new(req, "filter", json_string(c->filter));
  json_object_set_new(req, "options", json_loads(c->options, JSON_ALLOW_NUL, NULL));
  json_t *arr = json_array();
  for (size_t i = 0; i < k->n; i++) {
    if (all_utf8) {
      json_array_append_new(arr, json_stringn(ch[i].p, ch[i].n));
    } else {
      char *s = b64_encode(ch[i].p, ch[i].n);
      json_array_append_new(arr, json_string(s));
      free(s);
    }
  }
  json_object_set_new(req, all_utf8 ? "chunks" : "chunks_b64", arr);
  char *line = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  free(ch);
  return line;
}

static int impl_start(impl *im, const char *cmd) {
  int in[2], out[2];
  if (pipe(in) || pipe(out)) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  im->pid = pid;
  im->to = in[1];
  im->from = out[0];
  fcntl(im->to, F_SETFL, fcntl(im->to, F_GETFL) | O_NONBLOCK);
  fcntl(im->from, F_SETFL, fcntl(im->from, F_GETFL) | O_NONBLOCK);
  return 0;
}

static void impl_stop(impl *im) {
  if (im->pid > 0) {
    close(im->to);
    close(im->from);
    int st;
    kill(im->pid, SIGTERM);
    waitpid(im->pid, &st, 0);
    im->pid = 0;
  }
  free(im->rbuf);
  im->rbuf = NULL;
}

/* Sends n request lines and reads n answers, writing and reading at once so
 * that neither pipe can fill up. Returns -1 if the command died or went
 * silent for 20 s; answers[i] is NULL for a line that was not valid JSON. */
static int impl_batch(impl *im, char **lines, size_t n, json_t **answers) {
  size_t wi = 0, woff = 0, got = 0;
  while (got < n) {
    struct pollfd pf[2];
    int np = 0;
    pf[np].fd = im->from;
    pf[np].events = POLLIN;
    np++;
    if (wi < n) {
      pf[np].fd = im->to;
      pf[np].events = POLLOUT;
      np++;
    }
    int r = poll(pf, (nfds_t)np, 20000);
    if (r <= 0) return -1;
    if (np > 1 && (pf[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      if (pf[1].revents & (POLLERR | POLLHUP)) return -1;
      size_t len = strlen(lines[wi]);
      /* the line and its newline */
      while (wi < n) {
        const char *s = lines[wi];
        len = strlen(s);
        ssize_t w;
        if (woff < len) w = write(im->to, s + woff, len - woff);
        else w = write(im->to, "\n", 1);
        if (w < 0) {
          if (errno == EAGAIN) break;
          return -1;
        }
        woff += (size_t)w;
        if (woff == len + 1) {
          wi++;
          woff = 0;
        }
      }
    }
    if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      if (im->rcap - im->rlen < 65536) {
        im->rcap = im->rcap ? im->rcap * 2 : 131072;
        im->rbuf = xrealloc(im->rbuf, im->rcap);
      }
      ssize_t rd = read(im->from, im->rbuf + im->rlen, im->rcap - im->rlen);
      if (rd == 0) return -1;
      if (rd < 0) {
        if (errno == EAGAIN) continue;
        return -1;
      }
      im->rlen += (size_t)rd;
      char *start = im->rbuf, *nl;
      while (got < n && (nl = memchr(start, '\n', im->rlen - (size_t)(start - im->rbuf)))) {
        answers[got++] = json_loadb(start, (size_t)(nl - start), JSON_ALLOW_NUL, NULL);
        start = nl + 1;
      }
      size_t rest = im->rlen - (size_t)(start - im->rbuf);
      memmove(im->rbuf, start, rest);
      im->rlen = rest;
    }
  }
  return 0;
}

/* Runs a case's chunkings. answers[i] gets the normalized answer of
 * chunking i (never NULL: a broken implementation gives an error answer);
 * held[i] its max_held, or -1 when not reported. */
static void run_batch(impl *im, const opts *o, const tcase *c, const chunking *ks, size_t n,
                      json_t **answers, json_int_t *held, int keep_off) {
  if (!o->impl) {
    for (size_t i = 0; i < n; i++) {
      tbytes *ch = make_chunks(c, &ks[i]);
      json_t *a = run_filter(c->filter, c->options, strlen(c->options), ch, ks[i].n, im->out);
      free(ch);
      json_t *mh = json_object_get(a, "max_held");
      held[i] = json_is_integer(mh) ? json_integer_value(mh) : -1;
      answers[i] = normalize(a, keep_off);
      json_decref(a);
    }
    return;
  }
  char **lines = malloc((n ? n : 1) * sizeof *lines);
  json_t **raw = calloc(n ? n : 1, sizeof *raw);
  for (size_t i = 0; i < n; i++) lines[i] = request_line(c, &ks[i], i);
  int dead = im->pid <= 0 || impl_batch(im, lines, n, raw) != 0;
  for (size_t i = 0; i < n; i++) {
    json_t *a = raw[i];
    json_t *id = a ? json_object_get(a, "id") : NULL;
    if (dead && !a) a = error_answer("impl_died", "the implementation stopped answering", -1);
    else if (!a) a = error_answer("impl_bad_answer", "the answer line is not JSON", -1);
    else if (!json_is_integer(id) || json_integer_value(id) != (json_int_t)i) {
      json_decref(a);
      a = error_answer("impl_bad_answer", "the answer's id does not match the request", -1);
    }
    json_t *mh = json_object_get(a, "max_held");
    held[i] = json_is_integer(mh) ? json_integer_value(mh) : -1;
    answers[i] = normalize(a, keep_off);
    json_decref(a);
    free(lines[i]);
  }
  if (dead && im->pid > 0) {
    /* restart it for the next case */
    impl_stop(im);
    impl_start(im, o->impl);
  }
  free(lines);
  free(raw);
}

/* ---------------- checking one case ---------------- */

typedef struct failure {
  enum mode mode;
  chunking minimal;
  json_t *expected, *actual;
  char *what;
} failure;

typedef struct case_result {
  int failed;
  size_t runs;
  json_int_t max_held; /* -1 when not reported */
  int mode_run[M_COUNT], mode_failed[M_COUNT];
  failure fail; /* the first failure */
  char *note;   /* e.g. i_ outcome or held mismatch */
} case_result;

static json_t *run_one(impl *im, const opts *o, const tcase *c, const chunking *k, int keep_off,
                       json_int_t *held) {
  json_t *a;
  run_batch(im, o, c, k, 1, &a, held, keep_off);
  return a;
}

/* Greedy reduction: drop empty chunks and merge neighbours while the result
 * still differs from the reference answer. */
static void minimize(impl *im, const opts *o, const tcase *c, json_t *ref, chunking *k,
                     int keep_off) {
  int progress = 1;
  size_t budget = 2000;
  while (progress && budget) {
    progress = 0;
    for (size_t i = 0; i < k->n && budget; i++) {
      /* try removing chunk i (if empty) or merging it into the next */
      chunking t;
      t.len = malloc(k->n * sizeof *t.len);
      t.n = 0;
      if (k->len[i] == 0) {
        for (size_t j = 0; j < k->n; j++)
          if (j != i) t.len[t.n++] = k->len[j];
      } else if (i + 1 < k->n) {
        for (size_t j = 0; j < k->n; j++) {
          if (j == i + 1) continue;
          t.len[t.n++] = k->len[j] + (j == i ? k->len[i + 1] : 0);
        }
      } else {
        free(t.len);
        continue;
      }
      if (t.n == 0) {
        free(t.len);
        continue;
      }
      budget--;
      json_int_t h;
      json_t *a = run_one(im, o, c, &t, keep_off, &h);
      int still = !json_equal(a, ref);
      json_decref(a);
      if (still) {
        free(k->len);
        *k = t;
        progress = 1;
        i = (size_t)-1; /* restart the scan */
        continue;
      }
      free(t.len);
    }
  }
}

static json_t *chunking_json(const tcase *c, const chunking *k) {
  json_t *arr = json_array();
  size_t off = 0;
  for (size_t i = 0; i < k->n; i++) {
    const char *p = c->input.p + off;
    if (sluice_utf8_valid(p, k->len[i])) {
      json_array_append_new(arr, json_stringn(p, k->len[i]));
    } else {
      char *hex = malloc(2 * k->len[i] + 1);
      for (size_t j = 0; j < k->len[i]; j++) sprintf(hex + 2 * j, "%02x", (unsigned char)p[j]);
      hex[2 * k->len[i]] = '\0';
      json_array_append_new(arr, json_pack("{s:s}", "hex", hex));
      free(hex);
    }
    off += k->len[i];
  }
  return arr;
}

static void check_case(impl *im, const opts *o, const tcase *c, size_t index, case_result *r) {
  memset(r, 0, sizeof *r);
  r->max_held = -1;
  int keep_off = 1;
  if (c->expect) {
    json_t *e = json_object_get(c->expect, "error");
    keep_off = !e || json_object_get(e, "offset") != NULL;
  }
  uint64_t seed = o->seed ^ hash_str(c->id);
  json_t *ref = c->expect ? json_incref(c->expect) : NULL;
  int held_reported = 1;
  for (int m = 0; m < M_COUNT; m++) {
    chunklist cl = {0};
    gen_mode(&cl, (enum mode)m, c->input.n, o, seed, c->has_recorded ? &c->recorded : NULL);
    if (cl.n == 0) continue;
    json_t **ans = calloc(cl.n, sizeof *ans);
    json_int_t *held = calloc(cl.n, sizeof *held);
    run_batch(im, o, c, cl.v, cl.n, ans, held, keep_off);
    r->mode_run[m] = 1;
    r->runs += cl.n;
    if (!ref) ref = json_incref(ans[0]); /* i_ without expect: the whole answer */
    for (size_t i = 0; i < cl.n; i++) {
      if (held[i] < 0) held_reported = 0;
      else if (held[i] > r->max_held) r->max_held = held[i];
      if (!r->mode_failed[m] && !json_equal(ans[i], ref)) {
        r->mode_failed[m] = 1;
        if (!r->failed) {
          r->failed = 1;
          r->fail.mode = (enum mode)m;
          r->fail.minimal.n = cl.v[i].n;
          r->fail.minimal.len = malloc((cl.v[i].n + 1) * sizeof(size_t));
          memcpy(r->fail.minimal.len, cl.v[i].len, cl.v[i].n * sizeof(size_t));
          minimize(im, o, c, ref, &r->fail.minimal, keep_off);
          json_int_t h;
          r->fail.actual = run_one(im, o, c, &r->fail.minimal, keep_off, &h);
          r->fail.expected = json_incref(ref);
        }
      }
    }
    for (size_t i = 0; i < cl.n; i++) json_decref(ans[i]);
    free(ans);
    free(held);
    cl_free(&cl);
  }
  if (c->has_expect_held && held_reported && !r->failed && r->max_held != c->expect_held) {
    r->failed = 1;
    char buf[200];
    snprintf(buf, sizeof buf, "largest hold-back was %lld bytes, the case pins %lld",
             (long long)r->max_held, (long long)c->expect_held);
    r->fail.what = xstrdup(buf);
  }
  if (c->verdict == 'i' && r->failed && !r->fail.what && c->expect && r->fail.minimal.n == 1 &&
      r->fail.mode == M_WHOLE) {
    /* i_: a whole-input answer that differs from the recorded one is a note,
     * not a failure; split variance still fails. Re-check the splits
     * against the implementation's own whole answer. */
    json_decref(r->fail.expected);
    json_decref(r->fail.actual);
    free(r->fail.minimal.len);
    json_decref(ref);
    tcase copy = *c;
    copy.expect = NULL;
    check_case(im, o, &copy, index, r);
    r->note = xstrdup("implementation-defined: the answer differs from the recorded one");
    return;
  }
  json_decref(ref);
}

static void result_free(case_result *r) {
  free(r->fail.minimal.len);
  json_decref(r->fail.expected);
  json_decref(r->fail.actual);
  free(r->fail.what);
  free(r->note);
}

/* ---------------- reporting ---------------- */

static void print_diff(FILE *fp, const char *indent, json_t *exp, json_t *act) {
  const char *key;
  json_t *v;
  json_object_foreach(exp, key, v) {
    json_t *a = json_object_get(act, key);
    if (a && json_equal(a, v)) continue;
    char *es = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    char *as = a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    fprintf(fp, "%s%-9s expected %s\n%s%-9s actual   %s\n", indent, key, es ? es : "?", indent,
            "", as ? as : "(missing)");
    free(es);
    free(as);
  }
  json_object_foreach(act, key, v) {
    if (json_object_get(exp, key)) continue;
    char *as = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    fprintf(fp, "%s%-9s expected (missing)\n%s%-9s actual   %s\n", indent, key, indent, "",
            as ? as : "?");
    free(as);
  }
}

static void print_failure(FILE *fp, const char *indent, const tcase *c, const case_result *r) {
  if (r->fail.what) {
    fprintf(fp, "%s%s\n", indent, r->fail.what);
    return;
  }
  json_t *k = chunking_json(c, &r->fail.minimal);
  char *ks = json_dumps(k, JSON_COMPACT);
  fprintf(fp, "%ssplit mode %s; smallest failing chunking (%zu chunk%s): %s\n", indent,
          mode_names[r->fail.mode], r->fail.minimal.n, r->fail.minimal.n == 1 ? "" : "s", ks);
  free(ks);
  json_decref(k);
  print_diff(fp, indent, r->fail.expected, r->fail.actual);
  fprintf(fp, "%ssource: %s\n", indent, c->source);
}

static void xml_escape(FILE *fp, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '<': fputs("&lt;", fp); break;
    case '>': fputs("&gt;", fp); break;
    case '&': fputs("&amp;", fp); break;
    case '"': fputs("&quot;", fp); break;
    default:
      if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') fputc('?', fp);
      else fputc(*s, fp);
    }
  }
}

int cmd_conform(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    fputs(conform_usage, stdout);
    return 0;
  }
  opts o;
  memset(&o, 0, sizeof o);
  o.max_exhaustive = 16;
  o.max_pairs = 48;
  o.nrandom = 32;
  o.seed = 1;
  const char *suites[64];
  o.suites = suites;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = 1;
    if (strcmp(a, "--suite") == 0 && v) {
      if (o.nsuites < 64) suites[o.nsuites++] = v;
    } else if (strcmp(a, "--suites") == 0 && v) {
      o.suites_dir = v;
    } else if (strcmp(a, "--case") == 0 && v) {
      o.case_filter = v;
    } else if (strcmp(a, "--impl") == 0 && v) {
      o.impl = v;
    } else if (strcmp(a, "--format") == 0 && v) {
      if (strcmp(v, "text") == 0) o.format = 0;
      else if (strcmp(v, "tap") == 0) o.format = 1;
      else if (strcmp(v, "junit") == 0) o.format = 2;
      else {
        fprintf(stderr, "sluice conform: --format must be text, tap or junit\n");
        return 2;
      }
    } else if ((strcmp(a, "--max-exhaustive") == 0 || strcmp(a, "--max-pairs") == 0 ||
                strcmp(a, "--random") == 0 || strcmp(a, "--seed") == 0) &&
               v) {
      char *end;
      unsigned long long x = strtoull(v, &end, 10);
      if (*end || !*v) {
        fprintf(stderr, "sluice conform: %s needs a number, not \"%s\"\n", a, v);
        return 2;
      }
      if (strcmp(a, "--max-exhaustive") == 0) o.max_exhaustive = (size_t)x;
      else if (strcmp(a, "--max-pairs") == 0) o.max_pairs = (size_t)x;
      else if (strcmp(a, "--random") == 0) o.nrandom = (size_t)x;
      else o.seed = x;
    } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
      o.quiet = 1;
      takes = 0;
    } else {
      fprintf(stderr, "sluice conform: unknown or incomplete option \"%s\" (see --help)\n", a);
      return 2;
    }
    i += takes;
  }
  if (!o.suites_dir) {
    struct stat st;
    o.suites_dir = stat(SLUICE_SUITES_DIR, &st) == 0 ? SLUICE_SUITES_DIR
                                                     : SLUICE_INSTALLED_SUITES_DIR;
  }
  caselist cl = {0};
  if (load_suites(&cl, &o)) return 2;
  if (cl.n == 0) {
    fprintf(stderr, "sluice conform: no cases found in %s\n", o.suites_dir);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  impl im;
  memset(&im, 0, sizeof im);
  if (o.impl) {
    if (impl_start(&im, o.impl)) {
      fprintf(stderr, "sluice conform: cannot start \"%s\"\n", o.impl);
      return 2;
    }
  } else if (sluice_output_new(&im.out, NULL) != SLUICE_OK) {
    return 2;
  }

  case_result *res = calloc(cl.n, sizeof *res);
  size_t passed = 0, failed = 0;
  FILE *out = stdout;
  if (o.format == 1) fprintf(out, "TAP version 13\n");
  for (size_t i = 0; i < cl.n; i++) {
    const tcase *c = &cl.v[i];
    case_result *r = &res[i];
    check_case(&im, &o, c, i, r);
    if (r->failed) failed++;
    else passed++;
    char held[64] = "not reported";
    if (r->max_held >= 0) snprintf(held, sizeof held, "%lld", (long long)r->max_held);
    if (o.format == 0) {
      if (r->failed || !o.quiet)
        fprintf(out, "%s %s/%s  (%zu chunkings, max held %s)%s%s\n", r->failed ? "FAIL" : "ok  ",
                c->filter, c->id, r->runs, held, r->note ? "  note: " : "",
                r->note ? r->note : "");
      if (r->failed) print_failure(out, "      ", c, r);
    } else if (o.format == 1) {
      fprintf(out, "%s %zu - %s/%s (%zu chunkings, max held %s)\n",
              r->failed ? "not ok" : "ok", i + 1, c->filter, c->id, r->runs, held);
      if (r->failed) print_failure(out, "# ", c, r);
    }
    fflush(out);
  }
  if (o.format == 1) fprintf(out, "1..%zu\n", cl.n);

  if (o.format == 2) {
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"%zu\" "
                 "failures=\"%zu\">\n",
            cl.n, failed);
    for (size_t i = 0; i < cl.n;) {
      size_t j = i, nf = 0;
      while (j < cl.n && strcmp(cl.v[j].filter, cl.v[i].filter) == 0) nf += res[j++].failed;
      fprintf(out, "  <testsuite name=\"");
      xml_escape(out, cl.v[i].filter);
      fprintf(out, "\" tests=\"%zu\" failures=\"%zu\">\n", j - i, nf);
      for (size_t k = i; k < j; k++) {
        fprintf(out, "    <testcase classname=\"");
        xml_escape(out, cl.v[k].file);
        fprintf(out, "\" name=\"");
        xml_escape(out, cl.v[k].id);
        if (!res[k].failed) {
          fprintf(out, "\"/>\n");
          continue;
        }
        fprintf(out, "\">\n      <failure message=\"split mode %s\">",
                mode_names[res[k].fail.mode]);
        char *buf = NULL;
        size_t bl = 0;
        FILE *mf = open_memstream(&buf, &bl);
        print_failure(mf, "", &cl.v[k], &res[k]);
        fclose(mf);
        xml_escape(out, buf);
        free(buf);
        fprintf(out, "</failure>\n    </testcase>\n");
      }
      fprintf(out, "  </testsuite>\n");
      i = j;
    }
    fprintf(out, "</testsuites>\n");
  }

  /* The table: per filter and split mode, cases run and failed. */
  FILE *tf = o.format == 2 ? stderr : stdout;
  const char *pre = o.format == 1 ? "# " : "";
  for (size_t i = 0; i < cl.n;) {
    size_t j = i;
    while (j < cl.n && strcmp(cl.v[j].filter, cl.v[i].filter) == 0) j++;
    fprintf(tf, "%s\n%sfilter %s (%s): %zu cases\n", pre, pre, cl.v[i].filter,
            o.impl ? o.impl : "reference", j - i);
    fprintf(tf, "%s  %-16s %8s %8s %8s\n", pre, "split mode", "cases", "passed", "failed");
    for (int m = 0; m < M_COUNT; m++) {
      size_t run = 0, bad = 0;
      for (size_t k = i; k < j; k++) {
        run += (size_t)res[k].mode_run[m];
        bad += (size_t)res[k].mode_failed[m];
      }
      fprintf(tf, "%s  %-16s %8zu %8zu %8zu\n", pre, mode_names[m], run, run - bad, bad);
    }
    i = j;
  }
  fprintf(tf, "%s\n%zu passed, %zu failed\n", o.format == 1 ? "#" : "", passed, failed);

  for (size_t i = 0; i < cl.n; i++) {
    result_free(&res[i]);
    case_free(&cl.v[i]);
  }
  free(res);
  free(cl.v);
  if (o.impl) impl_stop(&im);
  else sluice_output_free(im.out);
  return failed ? 1 : 0;
}
