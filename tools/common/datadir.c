/*
 * datadir.c: finding the command's data beside the executable (datadir.h).
 */
#include "datadir.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folder of the running executable into dir; 0, or -1. */
static int exe_dir(char *dir, size_t n) {
  ssize_t len = readlink("/proc/self/exe", dir, n - 1);
  if (len <= 0) return -1;
  dir[len] = '\0';
  char *slash = strrchr(dir, '/');
  if (!slash) return -1;
  *slash = '\0';
  return 0;
}

/* The source tree named by <dir>/sluice-build-paths into src; 0, or -1
 * when there is no such file (an installed binary) or no "source=" line. */
static int build_source(const char *dir, char *src, size_t n) {
  char path[PATH_MAX + 32], line[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/sluice-build-paths", dir);
  FILE *fp = fopen(path, "r");
  if (!fp) return -1;
  int rc = -1;
  while (rc && fgets(line, sizeof line, fp)) {
    if (strncmp(line, "source=", 7) != 0) continue;
    line[strcspn(line, "\r\n")] = '\0';
    if ((size_t)snprintf(src, n, "%s", line + 7) < n) rc = 0;
  }
  fclose(fp);
  return rc;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

const char *data_path(const char *installed, const char *in_source, char *buf, size_t n) {
  char dir[PATH_MAX], src[PATH_MAX];
  if (exe_dir(dir, sizeof dir)) return NULL;
  if (installed && (size_t)snprintf(buf, n, "%s/../share/sluice/%s", dir, installed) < n &&
      exists(buf))
    return buf;
  if (in_source && build_source(dir, src, sizeof src) == 0 &&
      (size_t)snprintf(buf, n, "%s/%s", src, in_source) < n && exists(buf))
    return buf;
  return NULL;
}
