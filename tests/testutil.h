/*
 * testutil.h: what the unit tests share: check macros that count failures,
 * and the failure-injection allocator (the Nth allocation fails; live blocks
 * are counted so that a leak after a failure shows).
 */
#ifndef SLUICE_TESTUTIL_H
#define SLUICE_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "sluice.h"

static int failures;

/* CHECK(cond): counts and reports a failed condition. */
#define CHECK(cond)                                                                      \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);           \
      failures++;                                                                        \
    }                                                                                    \
  } while (0)

/* CHECKF(cond, fmt, ...): the same, with a message. */
#define CHECKF(cond, ...)                                                                \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                    \
      fprintf(stderr, __VA_ARGS__);                                                      \
      fputc('\n', stderr);                                                               \
      failures++;                                                                        \
    }                                                                                    \
  } while (0)

/* The allocator of the failure-injection tests: the allocation with index
 * fail_at (0-based, malloc and realloc alike) fails; -1 never fails. */
typedef struct test_faulty {
  long calls, fail_at;
  long live; /* blocks allocated and not freed */
  int failed;
} test_faulty;

static inline void *test_faulty_malloc(void *ctx, size_t n) {
  test_faulty *fa = ctx;
  if (fa->calls++ == fa->fail_at) {
    fa->failed = 1;
    return NULL;
  }
  void *p = malloc(n ? n : 1);
  if (p) fa->live++;
  return p;
}

static inline void *test_faulty_realloc(void *ctx, void *p, size_t n) {
  test_faulty *fa = ctx;
  if (fa->calls++ == fa->fail_at) {
    fa->failed = 1;
    return NULL;
  }
  void *q = realloc(p, n ? n : 1);
  if (q && !p) fa->live++;
  return q;
}

static inline void test_faulty_free(void *ctx, void *p) {
  test_faulty *fa = ctx;
  if (p) fa->live--;
  free(p);
}

/* Resets fa to fail at allocation fail_at and returns its allocator. */
static inline sluice_mem test_faulty_mem(test_faulty *fa, long fail_at) {
  fa->calls = 0;
  fa->fail_at = fail_at;
  fa->live = 0;
  fa->failed = 0;
  sluice_mem m = {test_faulty_malloc, test_faulty_realloc, test_faulty_free, fa};
  return m;
}

static inline int test_report(const char *name) {
  if (failures) {
    fprintf(stderr, "%s: %d checks failed\n", name, failures);
    return 1;
  }
  printf("%s: all checks passed\n", name);
  return 0;
}

#endif
