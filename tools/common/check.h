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

/* Whether an implementation serves streaming sessions, as its answers have
 * shown: shared by every target of the same command (an int the targets
 * read and set atomically; see check_opts.sessions). */
enum session_support {
  SESSIONS_UNKNOWN,
  SESSIONS_SERVED,
  SESSIONS_UNSUPPORTED, /* it answers "unsupported" to "stream": true: modes skipped */
  SESSIONS_ABSENT       /* it answers a streaming request with one batch answer */
};

/* What FORMAT.md says about it, once per run ("does not implement streaming
 * sessions: ..."). */
extern const char session_absent_message[];

typedef struct check_opts {
  split_params sp;
  int latency;            /* enum latency_policy */
  int full_chunkings;     /* print failing chunkings whole */
  size_t minimize_budget; /* tries */
  double deadline;        /* monotonic seconds; 0 = none */
  size_t window;          /* batch requests in flight */
  unsigned modes;         /* bit per split_mode to run */
  int self;               /* sluice diff: every case is judged like an i_ case, against
                             the implementation's own whole-input answer (in the fields
                             that answer has), which is kept in the result */
  _Atomic int *sessions;  /* enum session_support, shared by the run's targets of one
                             command (NULL: each target finds out alone) */
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
  _Atomic int sessions; /* enum session_support, when check_opts.sessions is NULL */
} target;

/* cmd NULL: the reference. Starting an external command is deferred to
 * its first request. */
void target_init(target *t, const char *cmd, const impl_opts *io);
void target_free(target *t);

typedef enum case_status { CASE_PASS, CASE_FAIL, CASE_SKIP, CASE_NOT_RUN } case_status;

/* What went wrong in a split mode, as the runner tells it. */
typedef enum fail_kind {
  FK_NONE,
  FK_OUTPUT,   /* an answer differs from the expected one */
  FK_LATENCY,  /* a streaming session released at other feeds than the reference */
  FK_PROTOCOL, /* lines outside the protocol: not JSON, a wrong id or feed, ... */
  FK_CRASH,    /* the implementation died with a request in flight */
  FK_TIMEOUT,  /* no answer within --timeout */
  FK_COUNT
} fail_kind;

extern const char *const fail_kind_names[FK_COUNT]; /* "", "output", "latency", ... */

/* A split mode's first failure of one kind (output or protocol, or
 * latency): its own report and its fields. */
typedef struct mode_failure {
  fail_kind kind;          /* FK_NONE: nothing recorded */
  int detailed;            /* a failing answer has been reported in full */
  chunking chunks;         /* the failing chunking (the smallest found, if minimized) */
  int has_chunks, minimized;
  char *field;             /* the first field that differs ("text", "events[2]"), or NULL */
  char *expected, *actual; /* that field as shown, or NULL */
  int64_t feed;            /* streaming: the feed (0-based; the chunk count is finish); -1 */
  tbuf report;             /* this mode's text: lines, no indent */
} mode_failure;

typedef struct mode_stat {
  int run, failed, latency;
  int skipped;      /* not run: the implementation does not serve streaming sessions */
  int known;        /* failed, listed as a known failure of this mode (sluice conform) */
  size_t chunkings;
  double seconds;
  mode_failure fail; /* output, protocol, crash or timeout */
  mode_failure late; /* latency */
} mode_stat;

typedef struct case_result {
  case_status status;
  int latency_failed; /* a latency failure (counted apart from output failures) */
  int held_failed;    /* the largest hold-back is not the one the case pins */
  mode_stat modes[M_COUNT];
  size_t chunkings;
  int64_t max_held; /* the largest hold-back seen (reported or measured); -1 none */
  tbuf report;      /* what concerns no one mode (the pinned hold-back, an abort) */
  char *summary;    /* one line: the first failure */
  char *note;       /* i_ outcome, skip reason, ... */
  double seconds;
  int troubles;     /* crashes, timeouts and lines that answer nothing */
  answer *whole;    /* with check_opts.self: the whole-input answer (owned) */
} case_result;

void case_result_free(case_result *r);
/* Drops the reports (text and fields), keeping the counts and the status. */
void case_result_drop_reports(case_result *r);

/* The case's report as text lines (no indent): with all, every failing
 * mode's report in full (JUnit, TAP, sluice diff); else the first output
 * and the first latency failure in full and one line for each other mode. */
void case_result_text(const case_result *r, tbuf *out, int all);

/* The status again from the modes, after some were marked known (a
 * per-mode skip): a case whose only failures are known passes. */
void case_result_settle(case_result *r, int latency_policy);

/* The worst kind of failure of a mode (its output failure's, else
 * latency), FK_NONE if it passed. */
fail_kind mode_kind(const mode_stat *m);

/* Runs every selected split mode of c against t. After a setup error the
 * target's setup_error is set and the result says so. */
void check_case(target *t, const tcase *c, const check_opts *o, case_result *r);

#endif
