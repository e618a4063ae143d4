/*
 * mkcorpus.c: `sluice mkcorpus`, the conformance cases as fuzz seeds. Each
 * case becomes one input per fuzz target that covers its filter, in the
 * layout of fuzz/fuzz_common.h (options, split seed, content), and one
 * request line for the protocol target.
 */
#include "tools.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct mkcorpus_args {
  const char *suites, *captures;
} mkcorpus_args;

static const opt mkcorpus_options[] = {
    {"suites", 0, "DIR", OPT_STRING, OPT_AT(mkcorpus_args, suites, const char *),
     .help = "the suites folder (default: $SLUICE_SUITES, else the installed one beside the "
             "executable, else the source tree's)"},
    {"captures", 0, "DIR", OPT_STRING, OPT_AT(mkcorpus_args, captures, const char *),
     .help = "also every capture in DIR"},
    {0}};

static const opt_cmd mkcorpus_cmd = {
    .name = "mkcorpus",
    .synopsis = "[--suites DIR] [--captures DIR] OUTDIR",
    .intro =
        "Writes every conformance case into OUTDIR/<target>/<suite>__<file>__<id>, in\n"
        "the input layout of fuzz/fuzz_common.h, for each fuzz target of its filter\n"
        "(think cases go to think_channel or think_anchored by their mode, json cases\n"
        "to json and json_incremental, sse, ndjson and chunks cases to sse), and as a\n"
        "request line into OUTDIR/proto/. With --captures, every capture in DIR (its\n"
        "first 16 KiB, cut at a line end) is a seed of sse, provider and pipeline\n"
        "(capture__<name>). Existing files of the same name are replaced; other files\n"
        "are kept (the regression inputs).\n",
    .tables = {mkcorpus_options},
    .operands = "OUTDIR",
    .min_operands = 1,
    .max_operands = 1,
};

static int write_file(const char *dir, const char *name, const char *p, size_t n) {
  if (mkdir(dir, 0777) && errno != EEXIST) return -1;
  char path[4096];
  snprintf(path, sizeof path, "%.2000s/%.2000s", dir, name);
  FILE *fp = fopen(path, "wb");
  if (!fp) return -1;
  size_t w = fwrite(p, 1, n, fp);
  return (fclose(fp) == 0 && w == n) ? 0 : -1;
}

static uint32_t hash32(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* options (u16 length + JSON), seed, content */
static int write_seed(const char *dir, const char *name, const char *opts, const tbytes *in,
                      uint32_t seed) {
  size_t ol = strlen(opts);
  if (ol > 4095) return 0; /* the fuzz layout's limit: skip */
  size_t n = 2 + ol + 4 + in->n;
  char *buf = malloc(n);
  if (!buf) return -1;
  buf[0] = (char)(ol & 0xFF);
  buf[1] = (char)(ol >> 8);
  memcpy(buf + 2, opts, ol);
  memcpy(buf + 2 + ol, &seed, 4);
  memcpy(buf + 2 + ol + 4, in->p, in->n);
  int rc = write_file(dir, name, buf, n);
  free(buf);
  return rc;
}

static int one_case(const char *out, const char *prefix, json_t *c, json_t *dfilter,
                    json_t *dopts, size_t *count) {
  json_t *id = json_object_get(c, "id");
  json_t *filter = json_object_get(c, "filter");
  json_t *opts = json_object_get(c, "options");
  if (!filter) filter = dfilter;
  if (!opts) opts = dopts;
  if (!json_is_string(id) || !json_is_string(filter)) return -1;
  tbytes in;
  char why[256];
  if (bytes_from_spec(json_object_get(c, "input"), &in, why, sizeof why)) return -1;
  char *ot = opts ? json_dumps(opts, JSON_COMPACT) : strdup("{}");
  char name[1024], dir[4096];
  snprintf(name, sizeof name, "%.400s__%.400s", prefix, json_string_value(id));
  const char *f = json_string_value(filter);
  const char *targets[2] = {f, NULL};
  if (strcmp(f, "think") == 0) {
    json_t *mode = json_object_get(opts, "mode");
    targets[0] = json_is_string(mode) && strcmp(json_string_value(mode), "anchored") == 0
                     ? "think_anchored"
                     : "think_channel";
  } else if (strcmp(f, "json") == 0) {
    targets[1] = "json_incremental";
  } else if (strcmp(f, "ndjson") == 0 || strcmp(f, "chunks") == 0) {
    targets[0] = "sse"; /* fuzz_sse runs the three framings */
  } else if (strcmp(f, "detect") == 0) {
    targets[0] = "capture"; /* fuzz_capture runs the detector too */
  }
  int rc = 0;
  uint32_t seed = hash32(json_string_value(id));
  for (int t = 0; t < 2 && targets[t] && !rc; t++) {
    snprintf(dir, sizeof dir, "%.3000s/%.100s", out, targets[t]);
    rc = write_seed(dir, name, ot, &in, seed);
    (*count)++;
  }
  /* the protocol target: the case as one request line */
  json_t *req = json_object();
  json_object_set(req, "id", id);
  json_object_set(req, "filter", filter);
  json_object_set_new(req, "options", opts ? json_deep_copy(opts) : json_object());
  json_t *chunks = json_array();
  if (sluice_utf8_valid(in.p, in.n)) {
    json_array_append_new(chunks, json_stringn(in.p, in.n));
    json_object_set_new(req, "chunks", chunks);
  } else {
    char *b = b64_encode(in.p, in.n);
    json_array_append_new(chunks, json_string(b));
    free(b);
    json_object_set_new(req, "chunks_b64", chunks);
  }
  char *line = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  snprintf(dir, sizeof dir, "%.3000s/proto", out);
  if (!rc && line) rc = write_file(dir, name, line, strlen(line));
  (*count)++;
  free(line);
  free(ot);
  free(in.p);
  return rc;
}

/* Every case of one suite file. 0, or 2 after a message. */
static int file_seeds(const char *path, const char *prefix, const char *out, size_t *count) {
  json_error_t jerr;
  json_t *doc = json_load_file(path, JSON_ALLOW_NUL, &jerr);
  if (!doc) {
    fprintf(stderr, "sluice mkcorpus: %s:%d: %s\n", path, jerr.line, jerr.text);
    return 2;
  }
  int rc = 0;
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(doc, "cases"), i, c) {
    if (one_case(out, prefix, c, json_object_get(doc, "filter"), json_object_get(doc, "options"),
                 count)) {
      fprintf(stderr, "sluice mkcorpus: %s: case %zu could not be written\n", path, i);
      rc = 2;
      break;
    }
  }
  json_decref(doc);
  return rc;
}

#define CAPTURE_SEED_MAX 16384

/* A capture's seeds: its file's first CAPTURE_SEED_MAX bytes cut at a line
 * end for the capture reader's target, and its body (read through the one
 * reader) up to the piece that passes CAPTURE_SEED_MAX for the stream
 * targets. 0, or 2 after a message. */
static int one_capture_seeds(const char *path, const char *file, const char *out,
                             size_t *count) {
  static const struct {
    const char *target, *options;
  } uses[] = {{"sse", "{}"},
              {"provider", "{}"},
              {"pipeline", "{\"filters\":[{\"filter\":\"think\"}],\"arguments\":true}"}};
  capture cap;
  tbuf err = {0};
  if (capture_load(&cap, path, 0, &err)) {
    fprintf(stderr, "sluice mkcorpus: %.*s\n", (int)err.n, err.p);
    tbuf_free(&err);
    capture_free(&cap);
    return 2;
  }
  size_t n = 0;
  for (size_t i = 0; i < cap.npieces && n < CAPTURE_SEED_MAX; i++) n += cap.pieces[i].len;
  tbytes body = {cap.body.p, n};
  char name[1200], tdir[4096];
  snprintf(name, sizeof name, "capture__%.1000s", file);
  int rc = 0;
  for (size_t u = 0; u < sizeof uses / sizeof uses[0] && !rc; u++) {
    snprintf(tdir, sizeof tdir, "%.3000s/%s", out, uses[u].target);
    rc = write_seed(tdir, name, uses[u].options, &body, (uint32_t)n) ? 2 : 0;
    (*count)++;
  }
  capture_free(&cap);
  tbytes raw;
  if (!rc && read_file("mkcorpus", path, &raw, (size_t)1 << 30) == 0) {
    size_t k = raw.n < CAPTURE_SEED_MAX ? raw.n : CAPTURE_SEED_MAX;
    if (k < raw.n)
      while (k > 0 && raw.p[k - 1] != '\n') k--;
    tbytes head = {raw.p, k};
    snprintf(tdir, sizeof tdir, "%.3000s/capture", out);
    rc = write_seed(tdir, name, "{}", &head, (uint32_t)k) ? 2 : 0;
    (*count)++;
    free(raw.p);
  }
  return rc;
}

/* Each capture in dir as seeds. */
static int capture_seeds(const char *dir, const char *out, size_t *count) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "sluice mkcorpus: cannot open %s\n", dir);
    return 2;
  }
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d)) && !rc) {
    size_t l = strlen(e->d_name);
    if (e->d_name[0] == '.' || l < 4 || strcmp(e->d_name + l - 3, ".md") == 0) continue;
    char path[8192];
    snprintf(path, sizeof path, "%.4000s/%.1000s", dir, e->d_name);
    rc = one_capture_seeds(path, e->d_name, out, count);
  }
  closedir(d);
  return rc;
}

/* Every case of every suite file in suites/SUITE/, as seeds. 0, or 2
 * after a message. */
static int suite_seeds(const char *suites, const char *out, size_t *count) {
  DIR *d = opendir(suites);
  if (!d) {
    fprintf(stderr, "sluice mkcorpus: cannot open %s\n", suites);
    return 2;
  }
  int rc = 0;
  struct dirent *e;
  while ((e = readdir(d)) && !rc) {
    if (e->d_name[0] == '.') continue;
    char sdir[4096];
    snprintf(sdir, sizeof sdir, "%.2000s/%.1000s", suites, e->d_name);
    DIR *sd = opendir(sdir);
    if (!sd) continue;
    struct dirent *fe;
    while ((fe = readdir(sd)) && !rc) {
      size_t l = strlen(fe->d_name);
      if (l < 6 || strcmp(fe->d_name + l - 5, ".json")) continue;
      char path[8192];
      snprintf(path, sizeof path, "%.4000s/%.1000s", sdir, fe->d_name);
      char prefix[512];
      snprintf(prefix, sizeof prefix, "%.100s__%.*s", e->d_name, (int)(l - 5), fe->d_name);
      rc = file_seeds(path, prefix, out, count);
    }
    closedir(sd);
  }
  closedir(d);
  return rc;
}

int cmd_mkcorpus(int argc, char **argv) {
  mkcorpus_args a = {NULL, NULL};
  strlist operands = {0};
  void *bases[] = {&a};
  int rc = opt_parse(&mkcorpus_cmd, bases, argc, argv, &operands);
  const char *out = rc < 0 ? operands.v[0] : NULL;
  strlist_free(&operands);
  if (rc >= 0) return rc;
  if (mkdir(out, 0777) && errno != EEXIST) {
    fprintf(stderr, "sluice mkcorpus: cannot create %s\n", out);
    return 2;
  }
  if (!a.suites) a.suites = suites_dir_default();
  if (!a.suites) {
    fprintf(stderr, "sluice mkcorpus: no suites folder: this sluice is neither installed nor in "
                    "its build folder; give --suites DIR or set SLUICE_SUITES\n");
    return 2;
  }
  size_t count = 0;
  rc = suite_seeds(a.suites, out, &count);
  if (!rc && a.captures) rc = capture_seeds(a.captures, out, &count);
  if (!rc) printf("sluice mkcorpus: %zu seed inputs written under %s\n", count, out);
  return rc;
}
