/*
 * check.h: checking one golden case against an implementation, in every
 * split mode. The shared driver of `sluice conform` (and of the tools that
 * compare implementations or replay captures).
 *
 * A target is the reference library in process (served through the same
 * protocol code as `sluice proto`) or an external command. Batch requests
 * are pipelined a few at a time and their answers compared as they arrive,
 * matched by id; nothing of a split mode is held but the requests in
 * flight. Streaming sessions are compared, feed by feed, with the library
 * fed the same chunks in lockstep: that is the latency check.
 */
#ifndef SLUICE_TOOLS_CHECK_H
#define SLUICE_TOOLS_CHECK_H

#include "chunking.h"
#include "driver.h"
#include "proto.h"
#include "suite.h"

enum latency_policy { LAT_OFF, LAT_WARN, LAT_FAIL };

typedef struct check_opts {
  split_params sp;
  int latency;            /* enum latency_policy */
  int full_chunkings;     /* print failing chunkings whole */
  size_t minimize_budget; /* tries */
  double deadline;        /* monotonic seconds; 0 = none */
  size_t window;          /* batch requests in flight */
  unsigned modes;         /* bit per split_mode to run */
} check_opts;

void check_opts_default(check_opts *o);

typedef struct target {
  const char *cmd; /* NULL: the reference in process */
  impl_opts io;
  impl im;
  int running;
  proto_server ps;  /* in process: the server, and its answer lines */
  tstrs queue;
  size_t qhead;
  char *handed; /* the queued line handed out last */
  sluice_output *lockstep; /* the library, fed in lockstep with sessions */
  int64_t next_id;
  int ever_answered; /* any answer line from any process of this target */
  int setup_error;   /* it died or went silent before its first answer */
  tbuf setup_msg;
} target;

/* cmd NULL: the reference. Starting an external command is deferred to
 * its first request. */
void target_init(target *t, const char *cmd, const impl_opts *io);
void target_free(target *t);

typedef enum case_status { CASE_PASS, CASE_FAIL, CASE_SKIP, CASE_NOT_RUN } case_status;

typedef struct mode_stat {
  int run, failed, latency;
  size_t chunkings;
  double seconds;
} mode_stat;

typedef struct case_result {
  case_status status;
  int latency_failed; /* a latency failure (counted apart from output failures) */
  mode_stat modes[M_COUNT];
  size_t chunkings;
  int64_t max_held; /* the largest hold-back seen (reported or measured); -1 none */
  tbuf report;      /* why it failed, indented lines */
  tbuf latency_report;
  char *summary;    /* one line: the first failure */
  char *note;       /* i_ outcome, skip reason, ... */
  double seconds;
} case_result;

void case_result_free(case_result *r);

/* Runs every selected split mode of c against t. After a setup error the
 * target's setup_error is set and the result says so. */
void check_case(target *t, const tcase *c, const check_opts *o, case_result *r);

#endif
