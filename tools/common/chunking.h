/*
 * chunking.h: the ways the kit cuts an input into chunks (the split modes of
 * conformance/FORMAT.md), one chunking at a time so no mode's chunkings are
 * ever held together; the minimizer that reduces a failing chunking; and a
 * readable rendering of a chunking.
 */
#ifndef SLUICE_TOOLS_CHUNKING_H
#define SLUICE_TOOLS_CHUNKING_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "util.h"

/* The lengths of the chunks, in order; zero lengths are empty chunks. */
typedef struct chunking {
  size_t *len;
  size_t n, cap;
} chunking;

void chunking_clear(chunking *k);
void chunking_push(chunking *k, size_t len);
void chunking_copy(chunking *dst, const chunking *src);
void chunking_free(chunking *k);
/* The sum of the lengths. */
size_t chunking_total(const chunking *k);

typedef enum split_mode {
  M_WHOLE,
  M_SINGLE,
  M_PAIRS,
  M_BYTES,
  M_EMPTY,
  M_RANDOM,
  M_EXHAUSTIVE,
  M_RECORDED,
  M_STREAM_BYTES,  /* streaming session, a byte per feed: latency checked */
  M_STREAM_RANDOM, /* streaming session, random cuts and empty feeds */
  M_COUNT
} split_mode;

extern const char *const split_mode_names[M_COUNT];
/* 1 for the modes run as a streaming session. */
int split_mode_streams(split_mode m);

typedef struct split_params {
  size_t max_exhaustive; /* all 2^(n-1) cuttings up to this many bytes */
  size_t max_pairs;      /* every pair of cuts up to this many bytes */
  size_t max_single;     /* at most this many single cuts (spread evenly) */
  size_t nrandom;        /* random cuttings */
  uint64_t seed;
} split_params;

void split_params_default(split_params *p);

typedef struct split_iter {
  split_mode mode;
  size_t n; /* input length */
  const split_params *p;
  const chunking *recorded;
  uint64_t seed;
  size_t i, j, count, step;
  uint64_t mask;
  sluice_rng rng;
  int done;
} split_iter;

/* Starts mode m over an input of n bytes; case_seed makes random cuts
 * differ per case but repeat per run. */
void split_begin(split_iter *it, split_mode m, size_t n, const split_params *p,
                 uint64_t case_seed, const chunking *recorded);
/* The next chunking into *out; 0 when the mode has no more. */
int split_next(split_iter *it, chunking *out);

/* Reduces *k to a smaller chunking for which still_fails() is still true,
 * by removing cut points in halves, then quarters, and so on (delta
 * debugging), so the number of tries grows with the logarithm of the
 * number of chunks for a failure that needs few cuts. At most `budget`
 * tries. still_fails returns 1 if the chunking still fails. */
void minimize_chunking(chunking *k, int (*still_fails)(const chunking *, void *), void *ctx,
                       size_t budget);

/* Appends a rendering of the chunking of input p: the chunks as quoted
 * strings, at most 12 of them unless full (the middle said as a count). */
void chunking_show(tbuf *b, const char *p, const chunking *k, int full);

#endif
