/*
 * monitor_model.h: a slow, obviously-correct model of the stream monitor, for
 * checking the real detector (tests/test_monitor.c, fuzz/fuzz_monitor.c).
 */
#ifndef SLUICE_MONITOR_MODEL_H
#define SLUICE_MONITOR_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct monitor_model_opts {
  int current;           /* the current profile's repetition table (else seed's) */
  int quasi, weighted;   /* quasi matching; weighted whitespace */
  size_t ws_threshold;   /* 128 (seed) or 512 (current) */
  size_t max_length, ws_interval, rep_interval; /* 0 = off */
} monitor_model_opts;

typedef struct monitor_verdict {
  const char *reason; /* "max_length", "whitespace", "repetition"; NULL: no stop */
  size_t offset;      /* code points */
} monitor_verdict;

/* The first stop over the checkpoints 1..n of s[0..n). */
monitor_verdict monitor_model(const uint32_t *s, size_t n, const monitor_model_opts *o);
/* The repetition detector on s[0..n). */
int monitor_model_detect(const uint32_t *s, size_t n, int current, int quasi);

#endif
