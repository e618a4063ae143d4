/*
 * util.h: what every tool shares: allocation that ends the tool cleanly when
 * memory runs out, growable byte buffers with a cap, checked reads and
 * writes, clocks.
 *
 * Tools are not the library: running out of memory in a tool ends it with a
 * message and exit status 2 (xmalloc and friends). Where a tool must answer
 * instead (the protocol server), it uses the tbuf functions, which report
 * failure and leave the buffer unchanged.
 */
#ifndef SLUICE_TOOLS_UTIL_H
#define SLUICE_TOOLS_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A byte string; p may hold NULs. Owned by whoever says so. */
typedef struct tbytes {
  char *p;
  size_t n;
} tbytes;

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* count * size, ending the tool on overflow. */
size_t xmul(size_t count, size_t size);
/* Ends the tool: "sluice: <message>" on stderr, exit status 2. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A growable buffer: p[0..n) used, always NUL-terminated when p != NULL.
 * cap_limit (0 = none) bounds n; an append past it fails. */
typedef struct tbuf {
  char *p;
  size_t n, cap;
  size_t limit;
} tbuf;

/* 0 on success; -1 when out of memory or past the limit (unchanged). */
int tbuf_reserve(tbuf *b, size_t extra);
int tbuf_add(tbuf *b, const void *p, size_t n);
int tbuf_addc(tbuf *b, char c);
int tbuf_adds(tbuf *b, const char *s);
int tbuf_printf(tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, ending the tool when out of memory (a limit is still -1). */
void tbuf_xadd(tbuf *b, const void *p, size_t n);
void tbuf_xadds(tbuf *b, const char *s);
void tbuf_xprintf(tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tbuf_free(tbuf *b);
/* Hands the bytes over (NUL-terminated, never NULL) and empties b. */
char *tbuf_take(tbuf *b, size_t *n);
/* Appends s quoted for sh: '...' with each ' as '\''. */
void sh_quote(tbuf *b, const char *s);

/* Reads a whole stream, at most `limit` bytes (0 = none). Returns 0, or -1
 * with errno set (EFBIG past the limit, ENOMEM, or the read error). */
int read_all(FILE *fp, tbytes *out, size_t limit);
/* Reads a whole file; on failure prints "sluice CMD: PATH: reason" and
 * returns -1. */
int read_file(const char *cmd, const char *path, tbytes *out, size_t limit);
/* Writes everything to fd, retrying on EINTR and short writes. 0 or -1. */
int write_all(int fd, const void *p, size_t n);
/* fwrite + check; on error prints "sluice CMD: cannot write output: ..."
 * once and returns -1. fflush_checked likewise. */
int fwrite_checked(const char *cmd, const void *p, size_t n, FILE *fp);
int fflush_checked(const char *cmd, FILE *fp);

/* Seconds on the monotonic clock, and this thread's CPU time. */
double now_seconds(void);
double thread_cpu_seconds(void);

/* Parses an unsigned decimal number; -1 if s is not one. */
int parse_u64(const char *s, uint64_t *out);

#endif
