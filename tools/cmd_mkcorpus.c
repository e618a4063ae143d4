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

static const char mkcorpus_usage[] =
    "usage: sluice mkcorpus [--suites DIR] OUTDIR\n"
    "\n"
    "Writes every conformance case into OUTDIR/<target>/<suite>__<file>__<id>, in\n"
    "the input layout of fuzz/fuzz_common.h, for each fuzz target of its filter\n"
    "(think cases go to think_channel or think_anchored by their mode, json cases\n"
    "to json and json_incremental), and as a request line into OUTDIR/proto/.\n"
    "Existing files of the same name are replaced; other files are kept (the\n"
    "regression inputs).\n";

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

int cmd_mkcorpus(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    fputs(mkcorpus_usage, stdout);
    return 0;
  }
  const char *suites = SLUICE_SUITES_DIR, *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--suites") == 0 && i + 1 < argc) suites = argv[++i];
    else if (argv[i][0] != '-' && !out) out = argv[i];
    else {
      fprintf(stderr, "sluice mkcorpus: unexpected argument \"%s\" (see --help)\n", argv[i]);
      return 2;
    }
  }
  if (!out) {
    fputs(mkcorpus_usage, stderr);
    return 2;
  }
  if (mkdir(out, 0777) && errno != EEXIST) {
    fprintf(stderr, "sluice mkcorpus: cannot create %s\n", out);
    return 2;
  }
  DIR *d = opendir(suites);
  if (!d) {
    fprintf(stderr, "sluice mkcorpus: cannot open %s\n", suites);
    return 2;
  }
  size_t count = 0;
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
      json_error_t jerr;
      json_t *doc = json_load_file(path, JSON_ALLOW_NUL, &jerr);
      if (!doc) {
        fprintf(stderr, "sluice mkcorpus: %s:%d: %s\n", path, jerr.line, jerr.text);
        rc = 2;
        break;
      }
      char prefix[512];
      snprintf(prefix, sizeof prefix, "%.100s__%.*s", e->d_name, (int)(l - 5), fe->d_name);
      size_t i;
      json_t *c;
      json_array_foreach(json_object_get(doc, "cases"), i, c) {
        if (one_case(out, prefix, c, json_object_get(doc, "filter"),
                     json_object_get(doc, "options"), &count)) {
          fprintf(stderr, "sluice mkcorpus: %s: case %zu could not be written\n", path, i);
          rc = 2;
          break;
        }
      }
      json_decref(doc);
    }
    closedir(sd);
  }
  closedir(d);
  if (!rc) printf("sluice mkcorpus: %zu seed inputs written under %s\n", count, out);
  return rc;
}
