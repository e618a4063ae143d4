/*
 * progress.h: a progress line on stderr for runs of minutes ("sluice
 * conform: 120 of 1411 cases, 3 failed, about 1:05 left"), redrawn in place
 * at most a few times a second, and only when stderr is a terminal and the
 * command is not quiet: a log or a pipe gets nothing. Shared by the
 * commands that run cases (conform, diff, gate).
 */
#ifndef SLUICE_TOOLS_PROGRESS_H
#define SLUICE_TOOLS_PROGRESS_H

#include <stddef.h>

typedef struct progress {
  int on;
  const char *cmd, *unit; /* "conform", "cases" */
  size_t total;
  double t0, last;
  int drawn;
} progress;

/* On when stderr is a terminal and quiet is 0. */
void progress_init(progress *p, const char *cmd, const char *unit, size_t total, int quiet);
/* done of total, of which failed; the time left from the pace so far. */
void progress_update(progress *p, size_t done, size_t failed);
/* Clears the line (before other output on stderr, and at the end). */
void progress_clear(progress *p);

#endif
