/*
 * driver.h: an implementation under test, as a child process that serves
 * the filter protocol on its stdin and stdout. Assume it is broken: it may
 * not start, crash, hang, ignore SIGTERM, never flush, flood stderr, write
 * endless lines or leave children behind. So:
 *
 * - it runs as `sh -c COMMAND` in a process group of its own, and stopping
 *   it ends the whole group (SIGTERM, then SIGKILL): no orphans;
 * - every wait is bounded (a per-request timeout, a bounded wait for exit);
 * - an answer line longer than a cap ends it;
 * - its stderr is passed through up to a cap, and its last lines are kept
 *   for the report when it dies;
 * - writes never block while it is not reading (requests are queued and
 *   written as the pipe accepts them, while its output is read).
 */
#ifndef SLUICE_TOOLS_DRIVER_H
#define SLUICE_TOOLS_DRIVER_H

#include <sys/types.h>

#include "util.h"

typedef struct impl_opts {
  const char *cmd;
  double timeout;      /* seconds without an answer line while one is awaited */
  size_t max_line;     /* bytes in one answer line */
  size_t stderr_pass;  /* bytes of stderr passed through to ours, per process */
  int quiet_stderr;    /* pass nothing through (the tail is still kept) */
} impl_opts;

#define IMPL_TAIL 2048

typedef struct impl {
  impl_opts o;
  pid_t pid; /* also the process group */
  int to, from, err;
  tbuf wq;   /* request bytes not yet written */
  size_t wq_off;
  tbuf line; /* what has been read of the answer lines */
  size_t line_start, line_scan;
  char *last; /* the line handed out last */
  char tail[IMPL_TAIL]; /* the last stderr bytes, a ring */
  size_t tail_len, tail_pos;
  size_t stderr_passed, stderr_dropped;
  int reaped, status;
  unsigned long starts;
  int answered; /* any answer line at all from this process */
} impl;

enum impl_event { IMPL_LINE, IMPL_DIED, IMPL_TIMEOUT, IMPL_TOOLONG };

/* Starts the command. 0, or -1 with errno (the shell could not be
 * started; a command that does not exist is a shell that exits 127). */
int impl_start(impl *im, const impl_opts *o);
/* Ends the process group (a bounded wait, then SIGKILL) and frees. */
void impl_stop(impl *im);
/* Stops and starts again (after a crash or a timeout). */
int impl_restart(impl *im);
/* Queues a request line (a newline is added). */
void impl_send(impl *im, const char *line, size_t n);
/* Waits up to o.timeout for the next answer line. IMPL_LINE: *line (NUL-
 * terminated, valid until the next call) and *n. IMPL_DIED: its stdout
 * closed (it exited or closed it). IMPL_TIMEOUT, IMPL_TOOLONG: it is still
 * running; the caller restarts or stops it. */
enum impl_event impl_next_line(impl *im, char **line, size_t *n);
/* How it ended ("exited with status 1", "killed by signal 11 (Segmentation
 * fault)"; with_status) and the last lines of its stderr, for a report.
 * Waits (bounded) for the exit status if needed. */
void impl_describe_end(impl *im, tbuf *out, const char *indent, int with_status);

#endif
