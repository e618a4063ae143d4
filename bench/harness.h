/*
 * harness.h: the one benchmark harness every `sluice bench NAME` uses.
 *
 * A benchmark on a shared, noisy machine has to say what it measured, so the
 * harness measures both clocks (the thread's CPU time, which other processes
 * barely disturb, and wall time), keeps the median of --reps samples, and
 * runs calibration loops over the same text and chunking in the same run: an
 * empty indirect call per chunk (the floor of any per-chunk API), memchr for
 * one byte (the floor of a scanner) and memcpy (the floor of anything that
 * touches every byte). Each filter's figure is then also a fraction of them,
 * which moves far less between runs than MB/s does.
 *
 * Everything a benchmark needs is here once: the clocks and medians, a
 * counting sink, chunked feeding, the calibration loops, a seeded text
 * generator, and the --json writer. A benchmark prints figures and the
 * targets they are compared with; it never fails on speed.
 */
#ifndef SLUICE_BENCH_HARNESS_H
#define SLUICE_BENCH_HARNESS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "opt.h"
#include "sluice.h"

/* ---------------- options every benchmark takes ---------------- */
typedef struct bench_args {
  int reps;           /* --reps N: samples per figure (median), default 5 */
  size_t mb;          /* --mb N: MiB of generated text (each bench has a default) */
  size_t chunk;       /* --chunk N: measure this chunk size only (0: the bench's set) */
  const char *mode;   /* --mode NAME (think: channel or anchored) */
  const char *text;   /* --text NAME: one generated text only */
  const char *json;   /* --json FILE: also write the figures as JSON ("-": stdout) */
  const char *peer;   /* --peer NAME (peers: that one only) */
  int budget;         /* --budget SECONDS (peers: a measurement's time budget; 0: default) */
  int python;         /* --python: also run the Python port (monitor) */
  int quick;          /* --quick: fewer sizes, for a smoke run */
} bench_args;

/* Parses argv[1..argc) (argv[0] is the benchmark's name) with the options
 * `allowed` names ("mb chunk mode text"; --reps and --json always) and the
 * help of `about` (name, synopsis, intro). Returns -1 to go on, else the
 * exit status (0 after --help, 2 after a usage error). */
int bench_parse(int argc, char **argv, const opt_cmd *about, const char *allowed,
                size_t default_mb, bench_args *a);
/* opt_parse for a benchmark with tables of its own, noting --help. */
int bench_opt_parse(const opt_cmd *c, void *const *bases, int argc, char **argv);

/* What the options of the benchmarks that ran ask of `sluice bench` itself:
 * the --json report and the --reps it states; help: --help was shown, so
 * no targets and no report. */
typedef struct bench_cli_opts {
  const char *json;
  int reps;
  int help;
} bench_cli_opts;
extern bench_cli_opts bench_cli;

/* ---------------- clocks and medians ---------------- */
double bench_cpu_now(void);  /* this thread's CPU time, seconds */
double bench_wall_now(void); /* monotonic wall clock, seconds */

typedef struct bench_time {
  double cpu, wall; /* seconds for one run of the body: medians over the samples */
} bench_time;

/* Runs body(ctx) `inner` times per sample, `reps` samples, after an
 * untimed warm-up of at least 20 ms; the medians of the per-run times. */
typedef void (*bench_body)(void *ctx);
bench_time bench_measure(bench_body body, void *ctx, int reps, int inner);

/* The median of v[0..n) (sorts v). */
double bench_median(double *v, int n);

/* How many runs of `bytes` make a sample of at least `min_bytes` (>= 1), so
 * that short inputs are timed over enough work for the clocks. */
int bench_inner(size_t bytes, size_t min_bytes);

/* ---------------- a counting sink ---------------- */
typedef struct bench_count {
  uint64_t bytes;                    /* all channels */
  uint64_t ch[SLUICE_CHANNEL_COUNT]; /* per channel */
  uint64_t events, stops, stop_offset;
  char stop_reason[16];
} bench_count;

void bench_count_reset(bench_count *c);
sluice_sink bench_count_sink(bench_count *c);

/* ---------------- chunked feeding ---------------- */
/* Feeds p[0..n) in chunks of `chunk` bytes, then finishes. If max_held is
 * not NULL, the largest sluice_held() after a feed is stored there (an
 * untimed pass: the call costs time). Returns the first failing status. */
sluice_status bench_feed(sluice_filter *f, const char *p, size_t n, size_t chunk,
                         uint64_t *max_held);

/* ---------------- calibration ---------------- */
typedef struct bench_calib {
  bench_time call;   /* an empty indirect call per chunk */
  bench_time memchr; /* memchr for `byte` over each chunk, every occurrence */
  bench_time memcpy; /* each chunk copied to a scratch buffer */
} bench_calib;

bench_calib bench_calibrate(const char *p, size_t n, size_t chunk, int byte, int reps, int inner);

/* ---------------- seeded text ---------------- */
typedef struct bench_rng {
  uint64_t s;
} bench_rng;
uint64_t bench_rand(bench_rng *r); /* xorshift64 */

/* Words joined by a space (one separator in `newline_every` is a newline),
 * with an insert from `inserts` (taken in turn) every insert_min +
 * rand % insert_spread bytes, after an optional head; padded with spaces to
 * exactly `size` bytes. The same seed gives the same text. malloc'ed. */
typedef struct bench_textspec {
  const char *const *words;
  size_t nwords;
  const char *const *inserts; /* NULL: none */
  size_t ninserts;
  size_t insert_min, insert_spread;
  const char *head; /* NULL: none */
  unsigned newline_every;
  uint64_t seed;
} bench_textspec;

char *bench_text(const bench_textspec *t, size_t size);

/* The benchmarks' inputs, for another benchmark to use (malloc'ed, NULL
 * for an unknown name): a think text ("dense" or "sparse", bench.c) and a
 * json input of at least `size` bytes (a kind of bench_json.c, e.g.
 * "valid"; its length in *n). */
char *bench_think_text(const char *name, size_t size);
char *bench_json_text(const char *kind, size_t size, size_t *n);

/* ---------------- figures ---------------- */
double bench_mbs(size_t bytes, double seconds); /* MB/s (10^6 bytes) */

/* Rows for --json: each benchmark adds one object per figure; cmd_bench
 * writes them all with the run's settings and the machine's load. */
void bench_report_add(const char *bench, json_t *row); /* steals row */
/* A row's timing fields: cpu_s, wall_s, mb_s (CPU), wall_mb_s. */
void bench_report_time(json_t *row, size_t bytes, bench_time t);
/* The calibration fields: each loop's MB/s and the filter's fraction of it. */
void bench_report_calib(json_t *row, size_t bytes, bench_time t, const bench_calib *c);
/* A target: target_mb_s and met. */
void bench_report_target(json_t *row, double target_mbs, double mbs);

/* The machine's load average (1 minute), -1 if unknown. */
double bench_loadavg(void);
/* What cmd_bench did to the allocator's thresholds, for the report. */
extern const char *bench_malloc_note;

/* Where the tables go: stdout, or stderr while --json - writes to stdout. */
extern FILE *bench_out;

/* Targets met or missed, gathered over the run and summed up at its end. */
void bench_target(const char *bench, const char *what, double value, double target,
                  const char *unit);
/* Prints the summary; returns the number missed. */
int bench_targets_print(void);

/* The benchmarks (bench.c is the dispatcher). */
int bench_think(int argc, char **argv);
int bench_harmony(int argc, char **argv);
int bench_monitor(int argc, char **argv);
int bench_peers(int argc, char **argv);

#endif
