/* standalone_main.c: runs a fuzz target over files and directories given on
 * the command line, without a fuzzing engine, so CTest replays every corpus
 * on every test run (also without clang), each input in every chunking. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int fuzz_every_chunking; /* fuzz_common.c */

static int run_file(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n, fp)) > 0) {
    n += r;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(fp);
  if (!buf) return 1;
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_path(const char *path, size_t *count) {
  struct stat st;
  if (stat(path, &st)) {
    fprintf(stderr, "no such file or directory: %s\n", path);
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    (*count)++;
    return run_file(path);
  }
  DIR *d = opendir(path);
  if (!d) return 1;
  char **names = NULL;
  size_t nn = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (nn == cap) names = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
    names[nn++] = strdup(e->d_name);
  }
  closedir(d);
  if (nn) qsort(names, nn, sizeof *names, cmp);
  int rc = 0;
  for (size_t i = 0; i < nn; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%.3000s/%.1000s", path, names[i]);
    rc |= run_path(p, count);
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0) {
    fprintf(argc < 2 ? stderr : stdout,
            "usage: %s FILE_OR_DIR...\nRuns the fuzz target on each input (no engine).\n", argv[0]);
    return argc < 2 ? 2 : 0;
  }
  size_t count = 0;
  int rc = 0;
  fuzz_every_chunking = 1; /* a replay checks every chunking of each input */
  for (int i = 1; i < argc; i++) rc |= run_path(argv[i], &count);
  printf("%s: %zu inputs replayed, no property broken\n", argv[0], count);
  return rc;
}
