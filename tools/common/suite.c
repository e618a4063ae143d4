/*
 * suite.c: loading the golden suites.
 */
#include "suite.h"

#include "capture.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "datadir.h"

void tcase_free(tcase *c) {
  free(c->suite);
  free(c->file);
  free(c->id);
  free(c->filter);
  free(c->source);
  free(c->options);
  free(c->input.p);
  chunking_free(&c->recorded);
  answer_free(&c->expect);
  for (size_t i = 0; i < c->nfeatures; i++) free(c->features[i]);
  free(c->features);
}

void caselist_free(caselist *cl) {
  for (size_t i = 0; i < cl->n; i++) tcase_free(&cl->v[i]);
  free(cl->v);
  free(cl->version);
  json_decref(cl->features);
  memset(cl, 0, sizeof *cl);
}

static const char *const case_keys[] = {"id",     "filter", "options", "input", "chunks",
                                        "expect", "source", "note",    "features", NULL};

/* ---------------- features ---------------- */

const char *const derived_features[] = {"utf8", "invalid-utf8", "error", "recorded",
                                        "max-held", NULL};

int tcase_has_feature(const tcase *c, const char *name) {
  for (size_t i = 0; i < c->nfeatures; i++)
    if (strcmp(c->features[i], name) == 0) return 1;
  return 0;
}

static void add_feature(tcase *c, const char *name) {
  if (tcase_has_feature(c, name)) return;
  c->features = xrealloc(c->features, xmul(c->nfeatures + 1, sizeof *c->features));
  size_t at = c->nfeatures++;
  while (at > 0 && strcmp(c->features[at - 1], name) > 0) {
    c->features[at] = c->features[at - 1];
    at--;
  }
  c->features[at] = xstrdup(name);
}

/* The features a case says of itself (a file's, then its own "features"):
 * each a name suites.json lists (when there is one). 0, or -1 with why. */
static int add_listed(tcase *c, json_t *list, json_t *known, char *why, size_t wl) {
  if (!list) return 0;
  size_t i;
  json_t *v;
  if (!json_is_array(list)) {
    snprintf(why, wl, "\"features\" must be an array of names");
    return -1;
  }
  json_array_foreach(list, i, v) {
    if (!json_is_string(v)) {
      snprintf(why, wl, "\"features\" must be an array of names");
      return -1;
    }
    const char *name = json_string_value(v);
    if (known && !json_object_get(known, name)) {
      snprintf(why, wl, "unknown feature \"%.60s\" (suites.json lists the features)", name);
      return -1;
    }
    add_feature(c, name);
  }
  return 0;
}

/* What the runner derives from the case itself. */
static void add_derived(tcase *c) {
  int high = 0;
  for (size_t i = 0; i < c->input.n && !high; i++) high = (unsigned char)c->input.p[i] >= 0x80;
  if (high) add_feature(c, "utf8");
  if (!sluice_utf8_valid(c->input.p, c->input.n)) add_feature(c, "invalid-utf8");
  if (c->verdict == 'n') add_feature(c, "error");
  if (c->has_recorded) add_feature(c, "recorded");
  if (c->expect_held >= 0) add_feature(c, "max-held");
}

void suites_describe(const caselist *cl, tbuf *out) {
  tbuf_xprintf(out, "version %s, digest %016llx, %zu file%s", cl->version ? cl->version : "none",
               (unsigned long long)cl->digest, cl->files, cl->files == 1 ? "" : "s");
}

/* DIR/suites.json: the version and the features. Absent: neither (a suites
 * folder of one's own). -1 after a message. */
static int load_index(caselist *cl, const char *dir, const char *cmd) {
  tbuf path = {0};
  tbuf_xprintf(&path, "%s/suites.json", dir);
  struct stat st;
  int rc = 0;
  if (stat(path.p, &st) == 0) {
    json_error_t jerr;
    json_t *doc = json_load_file(path.p, 0, &jerr);
    json_t *v = json_object_get(doc, "version"), *f = json_object_get(doc, "features");
    if (!doc || !json_is_string(v) || !json_is_object(f)) {
      fprintf(stderr, "sluice %s: %s: %s\n", cmd, path.p,
              doc ? "needs a string \"version\" and an object \"features\"" : jerr.text);
      rc = -1;
    } else {
      cl->version = xstrdup(json_string_value(v));
      cl->features = json_incref(f);
    }
    json_decref(doc);
  }
  tbuf_free(&path);
  return rc;
}

static int known(const char *const *list, const char *s) {
  for (size_t i = 0; list[i]; i++)
    if (strcmp(list[i], s) == 0) return 1;
  return 0;
}

static int selected(const suite_select *sel, const char *id) {
  if (!sel->ncases) return 1;
  for (size_t i = 0; i < sel->ncases; i++)
    if (strstr(id, sel->cases[i])) return 1;
  return 0;
}

/* A case's "chunks" (its recorded chunking), which must concatenate to its
 * input. 0, or -1 with a reason in why. */
static int load_chunks(tcase *c, json_t *chunks, const char *ids, char *why, size_t wl) {
  char tmp[400];
  if (!json_is_array(chunks)) {
    snprintf(why, wl, "%.100s: \"chunks\" must be an array", ids);
    return -1;
  }
  size_t i, off = 0;
  json_t *ch;
  json_array_foreach(chunks, i, ch) {
    tbytes b;
    if (bytes_from_spec(ch, &b, tmp, sizeof tmp)) {
      snprintf(why, wl, "%.100s: chunks[%zu]: %s", ids, i, tmp);
      return -1;
    }
    int same = off + b.n <= c->input.n && (b.n == 0 || memcmp(c->input.p + off, b.p, b.n) == 0);
    free(b.p);
    if (!same) break;
    chunking_push(&c->recorded, b.n);
    off += b.n;
  }
  if (i < json_array_size(chunks) || off != c->input.n) {
    snprintf(why, wl, "%.100s: \"chunks\" do not concatenate to \"input\"", ids);
    return -1;
  }
  c->has_recorded = 1;
  return 0;
}

/* A case's "expect" (NULL: none, for an i_ case only). 0, or -1 with a
 * reason in why. */
static int load_expect(tcase *c, json_t *ex, const char *ids, char *why, size_t wl) {
  char tmp[400];
  c->expect_held = -1;
  if (!ex && c->verdict != 'i') {
    snprintf(why, wl, "%.100s: y_ and n_ cases need \"expect\"", ids);
    return -1;
  }
  if (!ex) return 0;
  if (!json_is_object(ex)) {
    snprintf(why, wl, "%.100s: \"expect\" must be an object", ids);
    return -1;
  }
  if (c->verdict == 'n' && !json_object_get(ex, "error")) {
    snprintf(why, wl, "%.100s: an n_ case expects an \"error\"", ids);
    return -1;
  }
  if (answer_from_expect(&c->expect, ex, tmp, sizeof tmp)) {
    snprintf(why, wl, "%.100s: %s", ids, tmp);
    return -1;
  }
  c->has_expect = 1;
  json_t *mh = json_object_get(ex, "max_held");
  if (mh) {
    if (!json_is_integer(mh) || json_integer_value(mh) < 0) {
      snprintf(why, wl, "%.100s: \"max_held\" must be a non-negative integer", ids);
      return -1;
    }
    c->expect_held = json_integer_value(mh);
  }
  return 0;
}

/* One case into c. Returns 0, or -1 with a reason in why. */
static int load_case(tcase *c, json_t *jc, json_t *doc, json_t *names, char *why, size_t wl) {
  json_t *dfilter = json_object_get(doc, "filter"), *dopts = json_object_get(doc, "options");
  json_t *id = json_object_get(jc, "id");
  if (!json_is_string(id)) {
    snprintf(why, wl, "a case needs a string \"id\"");
    return -1;
  }
  const char *ids = json_string_value(id);
  if ((ids[0] != 'y' && ids[0] != 'n' && ids[0] != 'i') || ids[1] != '_') {
    snprintf(why, wl, "%.100s: the id must start with y_, n_ or i_", ids);
    return -1;
  }
  const char *key;
  json_t *val;
  json_object_foreach(jc, key, val) {
    if (!known(case_keys, key)) {
      snprintf(why, wl, "%.100s: unknown field \"%.60s\"", ids, key);
      return -1;
    }
  }
  c->verdict = ids[0];
  c->id = xstrdup(ids);
  json_t *filter = json_object_get(jc, "filter");
  if (!filter) filter = dfilter;
  json_t *options = json_object_get(jc, "options");
  if (!options) options = dopts;
  json_t *source = json_object_get(jc, "source");
  if (!json_is_string(filter) || (options && !json_is_object(options)) ||
      !json_is_string(source)) {
    snprintf(why, wl, "%.100s: needs a string \"filter\", an object \"options\" and a string "
                      "\"source\"", ids);
    return -1;
  }
  c->filter = xstrdup(json_string_value(filter));
  c->source = xstrdup(json_string_value(source));
  c->options = options ? json_dumps(options, JSON_COMPACT) : xstrdup("{}");
  if (!c->options) die("out of memory");
  char tmp[400];
  if (bytes_from_spec(json_object_get(jc, "input"), &c->input, tmp, sizeof tmp)) {
    snprintf(why, wl, "%.100s: input: %s", ids, tmp);
    return -1;
  }
  json_t *chunks = json_object_get(jc, "chunks");
  if (chunks && load_chunks(c, chunks, ids, why, wl)) return -1;
  if (load_expect(c, json_object_get(jc, "expect"), ids, why, wl)) return -1;
  if (add_listed(c, json_object_get(doc, "features"), names, tmp, sizeof tmp) ||
      add_listed(c, json_object_get(jc, "features"), names, tmp, sizeof tmp)) {
    snprintf(why, wl, "%.100s: %s", ids, tmp);
    return -1;
  }
  add_derived(c);
  return 0;
}

static void push_case(caselist *cl, const tcase *c) {
  if (cl->n == cl->cap) {
    cl->cap = cl->cap ? cl->cap * 2 : 256;
    cl->v = xrealloc(cl->v, xmul(cl->cap, sizeof *cl->v));
  }
  cl->v[cl->n++] = *c;
}

/* FNV-1a over the bytes, continued from h. */
static uint64_t fnv1a(uint64_t h, const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h;
}

static int load_file(caselist *cl, const char *path, const char *suite, const char *rel,
                     const suite_select *sel, const char *cmd) {
  json_error_t jerr;
  tbytes raw;
  if (read_file(cmd, path, &raw, (size_t)1 << 30)) return -1;
  cl->digest = fnv1a(fnv1a(cl->digest ? cl->digest : 14695981039346656037ull, rel, strlen(rel) + 1),
                     raw.p, raw.n);
  cl->files++;
  json_t *doc = json_loadb(raw.p, raw.n, JSON_ALLOW_NUL, &jerr);
  free(raw.p);
  if (!doc) {
    fprintf(stderr, "sluice %s: %s:%d:%d: %s\n", cmd, path, jerr.line, jerr.column, jerr.text);
    return -1;
  }
  json_t *cases = json_object_get(doc, "cases");
  if (!json_is_array(cases)) {
    fprintf(stderr, "sluice %s: %s: needs a \"cases\" array\n", cmd, path);
    json_decref(doc);
    return -1;
  }
  size_t i;
  json_t *jc;
  char why[600];
  json_array_foreach(cases, i, jc) {
    json_t *id = json_object_get(jc, "id");
    if (json_is_string(id) && !selected(sel, json_string_value(id))) continue;
    tcase c;
    memset(&c, 0, sizeof c);
    answer_init(&c.expect);
    if (load_case(&c, jc, doc, cl->features, why, sizeof why)) {
      fprintf(stderr, "sluice %s: %s: case %zu: %s\n", cmd, path, i, why);
      tcase_free(&c);
      json_decref(doc);
      return -1;
    }
    c.suite = xstrdup(suite);
    c.file = xstrdup(rel);
    push_case(cl, &c);
  }
  json_decref(doc);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir (sorted) that end in suffix, or that are folders when
 * suffix is NULL. NULL when dir cannot be read. */
static char **list_dir(const char *dir, const char *suffix, size_t *count) {
  DIR *d = opendir(dir);
  *count = 0;
  if (!d) return NULL;
  char **v = NULL;
  size_t cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    tbuf path = {0};
    tbuf_xprintf(&path, "%s/%s", dir, e->d_name);
    struct stat st;
    int ok = stat(path.p, &st) == 0;
    tbuf_free(&path);
    if (!ok) continue;
    size_t l = strlen(e->d_name);
    if (suffix) {
      size_t sl = strlen(suffix);
      if (!S_ISREG(st.st_mode) || l < sl || strcmp(e->d_name + l - sl, suffix)) continue;
    } else if (!S_ISDIR(st.st_mode)) {
      continue;
    }
    if (*count == cap) {
      cap = cap ? cap * 2 : 16;
      v = xrealloc(v, xmul(cap, sizeof *v));
    }
    v[(*count)++] = xstrdup(e->d_name);
  }
  closedir(d);
  if (*count) qsort(v, *count, sizeof *v, cmp_str);
  if (!v) v = xcalloc(1, sizeof *v);
  return v;
}

static void free_list(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

static int cmp_case_id(const void *a, const void *b) {
  return strcmp((*(const tcase *const *)a)->id, (*(const tcase *const *)b)->id);
}

/* Rejects a case id used twice in one suite: sorted by id, duplicates are
 * neighbours. */
static int check_duplicates(const caselist *cl, size_t from, const char *cmd) {
  size_t n = cl->n - from;
  if (n < 2) return 0;
  const tcase **v = xmalloc(xmul(n, sizeof *v));
  for (size_t i = 0; i < n; i++) v[i] = &cl->v[from + i];
  qsort(v, n, sizeof *v, cmp_case_id);
  int rc = 0;
  for (size_t i = 1; i < n; i++)
    if (strcmp(v[i - 1]->id, v[i]->id) == 0) {
      fprintf(stderr, "sluice %s: case id %s is used twice in suite %s (%s and %s)\n", cmd,
              v[i]->id, v[i]->suite ? v[i]->suite : "?", v[i - 1]->file, v[i]->file);
      rc = -1;
    }
  free(v);
  return rc;
}

int suites_load(caselist *cl, const suite_select *sel, const char *cmd) {
  size_t nsub;
  char **subs;
  if (!cl->version && !cl->features && load_index(cl, sel->dir, cmd)) return -1;
  if (sel->nsuites) {
    nsub = sel->nsuites;
    subs = xmalloc(xmul(nsub, sizeof *subs));
    for (size_t i = 0; i < nsub; i++) subs[i] = xstrdup(sel->suites[i]);
  } else {
    subs = list_dir(sel->dir, NULL, &nsub);
    if (!subs) {
      fprintf(stderr, "sluice %s: cannot read the suites folder %s\n", cmd, sel->dir);
      return -1;
    }
  }
  int rc = 0;
  for (size_t s = 0; s < nsub && !rc; s++) {
    /* "think" is the whole suite; "think/anchored.json" one file of it. */
    char *slash = strchr(subs[s], '/');
    char *suite = slash ? xstrndup(subs[s], (size_t)(slash - subs[s])) : xstrdup(subs[s]);
    tbuf dir = {0};
    tbuf_xprintf(&dir, "%s/%s", sel->dir, suite);
    size_t nf;
    char **files;
    if (slash) {
      nf = 1;
      files = xmalloc(sizeof *files);
      files[0] = xstrdup(slash + 1);
    } else {
      files = list_dir(dir.p, ".json", &nf);
    }
    if (!files || nf == 0) {
      fprintf(stderr, "sluice %s: no suite \"%s\" in %s\n", cmd, subs[s], sel->dir);
      rc = -1;
    }
    size_t from = cl->n;
    for (size_t f = 0; f < nf && !rc; f++) {
      tbuf path = {0}, rel = {0};
      tbuf_xprintf(&path, "%s/%s", dir.p, files[f]);
      tbuf_xprintf(&rel, "%s/%s", suite, files[f]);
      rc = load_file(cl, path.p, suite, rel.p, sel, cmd);
      tbuf_free(&path);
      tbuf_free(&rel);
    }
    if (!rc) rc = check_duplicates(cl, from, cmd);
    if (files) free_list(files, nf);
    tbuf_free(&dir);
    free(suite);
  }
  free_list(subs, nsub);
  return rc;
}

/* The capture files of a folder: the four formats the capture reader reads. */
static int is_capture_name(const char *name) {
  static const char *const ends[] = {".sse", ".ndjson", ".chunks.jsonl", ".capture.jsonl"};
  size_t l = strlen(name);
  for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
    size_t el = strlen(ends[i]);
    if (l > el && strcmp(name + l - el, ends[i]) == 0) return 1;
  }
  return 0;
}

static int load_capture(caselist *cl, const char *path, const char *name,
                        const suite_select *sel, const char *cmd) {
  if (!selected(sel, name)) return 0;
  tcase c;
  memset(&c, 0, sizeof c);
  answer_init(&c.expect);
  /* the body as a client reads it, through the one reader, and the pieces
   * it came in as the case's recorded chunking */
  capture cap;
  tbuf err = {0};
  if (capture_load(&cap, path, CAPTURE_CASE_MAX, &err)) {
    fprintf(stderr, "sluice %s: %.*s\n", cmd, (int)err.n, err.p);
    tbuf_free(&err);
    capture_free(&cap);
    return -1;
  }
  for (size_t i = 0; i < cap.npieces; i++) chunking_push(&c.recorded, cap.pieces[i].len);
  c.has_recorded = cap.npieces > 0;
  c.input = cap.body;
  cap.body.p = NULL;
  capture_free(&cap);
  c.suite = xstrdup("captures");
  c.file = xstrdup("captures");
  c.id = xstrdup(name);
  c.filter = xstrdup("provider");
  c.options = xstrdup("{}");
  c.source = xstrdup(path);
  c.expect_held = -1;
  c.verdict = 'y';
  push_case(cl, &c);
  return 0;
}

int captures_load(caselist *cl, const char *path, const suite_select *sel, const char *cmd) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "sluice %s: %s: %s\n", cmd, path, strerror(errno));
    return -1;
  }
  size_t from = cl->n;
  int rc = 0;
  if (!S_ISDIR(st.st_mode)) {
    const char *slash = strrchr(path, '/');
    rc = load_capture(cl, path, slash ? slash + 1 : path, sel, cmd);
  } else {
    size_t n;
    char **names = list_dir(path, "", &n);
    if (!names) {
      fprintf(stderr, "sluice %s: cannot read the folder %s\n", cmd, path);
      return -1;
    }
    for (size_t i = 0; i < n && !rc; i++) {
      if (!is_capture_name(names[i])) continue;
      tbuf full = {0};
      tbuf_xprintf(&full, "%s/%s", path, names[i]);
      rc = load_capture(cl, full.p, names[i], sel, cmd);
      tbuf_free(&full);
    }
    free_list(names, n);
  }
  if (!rc) rc = check_duplicates(cl, from, cmd);
  return rc;
}

const char *suites_dir_default(void) {
  const char *env = getenv("SLUICE_SUITES");
  if (env && *env) return env;
  static char dir[PATH_MAX];
  return data_path("conformance/suites", "conformance/suites", dir, sizeof dir);
}

/* ---------------- id notes ---------------- */

int idnotes_load(idnotes *l, const char *cmd, const char *path) {
  tbytes b;
  if (read_file(cmd, path, &b, 16 << 20)) return -1;
  free(l->path);
  l->path = xstrdup(path);
  size_t lineno = 0;
  for (char *line = b.p, *next; line && line < b.p + b.n; line = next) {
    char *nl = memchr(line, '\n', (size_t)(b.p + b.n - line));
    next = nl ? nl + 1 : NULL;
    if (nl) *nl = '\0';
    lineno++;
    while (*line == ' ' || *line == '\t') line++;
    if (!*line || *line == '#' || *line == '\r') continue;
    char *end = line;
    while (*end && *end != ' ' && *end != '\t' && *end != '\r') end++;
    char *note = end;
    while (*note == ' ' || *note == '\t') note++;
    size_t nl2 = strlen(note);
    while (nl2 && (note[nl2 - 1] == '\r' || note[nl2 - 1] == ' ' || note[nl2 - 1] == '\t')) nl2--;
    l->v = xrealloc(l->v, xmul(l->n + 1, sizeof *l->v));
    l->v[l->n].id = xstrndup(line, (size_t)(end - line));
    l->v[l->n].note = xstrndup(note, nl2);
    l->v[l->n].line = lineno;
    l->n++;
  }
  free(b.p);
  return 0;
}

const idnote *idnotes_find(const idnotes *l, const tcase *c) {
  for (size_t i = 0; i < l->n; i++) {
    const char *id = l->v[i].id, *slash = strchr(id, '/'), *at = strchr(id, '@');
    size_t end = at ? (size_t)(at - id) : strlen(id); /* "@MODES": sluice conform --skip */
    if (slash && at && slash > at) slash = NULL;
    const char *cid = slash ? slash + 1 : id;
    size_t clen = end - (size_t)(cid - id);
    if (slash && (strlen(c->suite) != (size_t)(slash - id) ||
                  strncmp(id, c->suite, (size_t)(slash - id)) != 0))
      continue;
    if (strlen(c->id) == clen && strncmp(cid, c->id, clen) == 0) return &l->v[i];
  }
  return NULL;
}

void idnotes_free(idnotes *l) {
  for (size_t i = 0; i < l->n; i++) {
    free(l->v[i].id);
    free(l->v[i].note);
  }
  free(l->v);
  free(l->path);
  memset(l, 0, sizeof *l);
}
