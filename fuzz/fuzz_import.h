/* fuzz_import.h: one importer of `sluice capture import` in process
 * (fuzz_import_yaml, fuzz_import_har, fuzz_import_chunks define
 * IMPORT_EXT and include this). The input is written as a file of that
 * kind and imported: the command must answer 0 or 1 (a die() ends the
 * process: a finding), leave no .part file, and every capture it writes
 * must be JSON lines headed by "sluice_capture". */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int cmd_capture(int argc, char **argv);

static char dir[64], in[96], out[96];

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_import%s: %s: %.200s\n", IMPORT_EXT, what, detail);
  abort();
}

static void check_output(const char *name) {
  char path[400];
  snprintf(path, sizeof path, "%s/%s", out, name);
  if (strstr(name, ".part")) fail("a partial file was left", name);
  FILE *fp = fopen(path, "rb");
  if (!fp) fail("cannot read an output", path);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int first = 1;
  while ((n = getline(&line, &cap, fp)) > 0) {
    /* JSON allows \u0000 (a YAML "\0" in a body); jansson only when asked */
    json_t *j = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, NULL);
    if (!j) fail("an output line is not JSON", line);
    if (first && strstr(name, ".capture.jsonl") && !json_object_get(j, "sluice_capture"))
      fail("a capture without its header", line);
    first = 0;
    json_decref(j);
  }
  free(line);
  fclose(fp);
  unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/tmp/fuzz-import-XXXXXX");
    if (!mkdtemp(dir)) fail("mkdtemp", "");
    snprintf(in, sizeof in, "%s/in%s", dir, IMPORT_EXT);
    snprintf(out, sizeof out, "%s/out", dir);
  }
  FILE *fp = fopen(in, "wb");
  if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp)) fail("cannot write the input", in);
  char *argv[] = {"capture", "import", in, "--out", out, NULL};
  fflush(stdout);
  fflush(stderr);
  /* SIGINT waits while stderr goes to /dev/null: libFuzzer prints its final
   * stats from the handler, and fuzz/run --stats, which interrupts the
   * fuzzer, found none to read when it landed inside the import */
  sigset_t intr, saved_mask;
  sigemptyset(&intr);
  sigaddset(&intr, SIGINT);
  sigprocmask(SIG_BLOCK, &intr, &saved_mask);
  int saved_out = dup(1), saved_err = dup(2), null = open("/dev/null", O_WRONLY);
  dup2(null, 1);
  dup2(null, 2);
  int rc = cmd_capture(5, argv);
  fflush(stdout);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  close(null);
  sigprocmask(SIG_SETMASK, &saved_mask, NULL);
  if (rc != 0 && rc != 1) fail("an exit status other than 0 or 1", IMPORT_EXT);
  DIR *d = opendir(out);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.') check_output(e->d_name);
  if (d) closedir(d);
  unlink(in);
  return 0;
}
