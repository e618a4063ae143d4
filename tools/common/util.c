/*
 * util.c: allocation, buffers, checked I/O and clocks for the tools.
 */
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("sluice: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory (%zu bytes)", n);
  return p;
}

void *xcalloc(size_t count, size_t size) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) die("out of memory");
  return p;
}

void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) die("out of memory (%zu bytes)", n);
  return q;
}

char *xstrndup(const char *s, size_t n) {
  char *d = xmalloc(n + 1);
  if (n) memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *xstrdup(const char *s) { return xstrndup(s ? s : "", s ? strlen(s) : 0); }

size_t xmul(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) die("size overflow");
  return count * size;
}

/* ---------------- buffers ---------------- */

int tbuf_reserve(tbuf *b, size_t extra) {
  if (extra > SIZE_MAX - b->n - 1) return -1;
  size_t want = b->n + extra + 1; /* + the NUL */
  if (b->limit && b->n + extra > b->limit) return -1;
  if (want <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < want) cap = cap > SIZE_MAX / 2 ? want : cap * 2;
  char *p = realloc(b->p, cap);
  if (!p) return -1;
  b->p = p;
  b->cap = cap;
  return 0;
}

int tbuf_add(tbuf *b, const void *p, size_t n) {
  if (tbuf_reserve(b, n)) return -1;
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
  b->p[b->n] = '\0';
  return 0;
}

int tbuf_addc(tbuf *b, char c) { return tbuf_add(b, &c, 1); }
int tbuf_adds(tbuf *b, const char *s) { return tbuf_add(b, s, strlen(s)); }

static int tbuf_vprintf(tbuf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0 || tbuf_reserve(b, (size_t)n)) return -1;
  vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
  b->n += (size_t)n;
  return 0;
}

int tbuf_printf(tbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = tbuf_vprintf(b, fmt, ap);
  va_end(ap);
  return rc;
}

void tbuf_xadd(tbuf *b, const void *p, size_t n) {
  if (tbuf_add(b, p, n)) die("out of memory, or a buffer past its limit");
}

void tbuf_xadds(tbuf *b, const char *s) { tbuf_xadd(b, s, strlen(s)); }

void tbuf_xprintf(tbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = tbuf_vprintf(b, fmt, ap);
  va_end(ap);
  if (rc) die("out of memory, or a buffer past its limit");
}

void tbuf_free(tbuf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

char *tbuf_take(tbuf *b, size_t *n) {
  char *p = b->p ? b->p : xstrdup("");
  if (n) *n = b->n;
  b->p = NULL;
  b->n = b->cap = 0;
  return p;
}

void sh_quote(tbuf *b, const char *s) {
  tbuf_xadds(b, "'");
  for (; *s; s++) {
    if (*s == '\'') tbuf_xadds(b, "'\\''");
    else tbuf_xadd(b, s, 1);
  }
  tbuf_xadds(b, "'");
}

/* ---------------- I/O ---------------- */

int read_all(FILE *fp, tbytes *out, size_t limit) {
  tbuf b = {0};
  b.limit = limit;
  char chunk[65536];
  for (;;) {
    size_t r = fread(chunk, 1, sizeof chunk, fp);
    if (r && tbuf_add(&b, chunk, r)) {
      int e = (limit && b.n + r > limit) ? EFBIG : ENOMEM;
      tbuf_free(&b);
      errno = e;
      return -1;
    }
    if (r < sizeof chunk) break;
  }
  if (ferror(fp)) {
    int e = errno ? errno : EIO;
    tbuf_free(&b);
    errno = e;
    return -1;
  }
  out->p = tbuf_take(&b, &out->n);
  return 0;
}

int read_file(const char *cmd, const char *path, tbytes *out, size_t limit) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fprintf(stderr, "sluice %s: %s: %s\n", cmd, path, strerror(errno));
    return -1;
  }
  int rc = read_all(fp, out, limit);
  int e = errno;
  fclose(fp);
  if (rc) {
    fprintf(stderr, "sluice %s: %s: %s\n", cmd, path,
            e == EFBIG ? "larger than the size limit" : strerror(e));
    return -1;
  }
  return 0;
}

int write_all(int fd, const void *vp, size_t n) {
  const char *p = vp;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int fwrite_checked(const char *cmd, const void *p, size_t n, FILE *fp) {
  if (n && fwrite(p, 1, n, fp) != n) {
    fprintf(stderr, "sluice %s: cannot write output: %s\n", cmd, strerror(errno));
    return -1;
  }
  return 0;
}

int fflush_checked(const char *cmd, FILE *fp) {
  if (fflush(fp) != 0 || ferror(fp)) {
    fprintf(stderr, "sluice %s: cannot write output: %s\n", cmd,
            errno ? strerror(errno) : "write error");
    return -1;
  }
  return 0;
}

/* ---------------- clocks and arguments ---------------- */

double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s) return -1;
  uint64_t v = 0;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}
