/*
 * service.h: a middleware under test, run as a service (the gate's): `sh -c
 * COMMAND` in a process group of its own, its output to a log file, told
 * the mock upstream's URL by its environment; waited for until a URL
 * answers; stopped by ending its whole group (SIGTERM, then SIGKILL). It is
 * assumed broken: it may not start, die early, never answer, ignore
 * SIGTERM or leave children behind.
 */
#ifndef SLUICE_TOOLS_SERVICE_H
#define SLUICE_TOOLS_SERVICE_H

#include <sys/types.h>

#include "util.h"

typedef struct service {
  pid_t pid; /* and process group */
  int reaped, status;
  char *log; /* where its stdout and stderr go */
} service;

/* Starts COMMAND with SLUICE_UPSTREAM=upstream in its environment, its
 * output appended to log. 0, or -1 with the reason in err. */
int service_start(service *s, const char *command, const char *upstream, const char *log,
                  tbuf *err);
/* 1 while it runs (reaps it when it has ended). */
int service_alive(service *s);
/* Waits until url answers any HTTP status, the service ends, or seconds
 * pass. 0 when it answered; -1 with the reason in err (it ended: its
 * status and the last lines of its log). */
int service_wait_ready(service *s, const char *url, double seconds, tbuf *err);
/* Ends the process group and frees. */
void service_stop(service *s);
/* The last n bytes of the log, for a message. */
void service_log_tail(const service *s, size_t n, tbuf *out);

#endif
