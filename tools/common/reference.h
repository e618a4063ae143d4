/*
 * reference.h: the reference library behind the protocol. One run drives a
 * filter built by name (sluice_filter_new_json) through a collector, and
 * writes the protocol answer fields: for the whole run (a batch request) or
 * for what each feed released (a streaming session, conformance/FORMAT.md).
 * `sluice proto` sends these fields; `sluice conform` reads the same bytes
 * back when it checks the reference in process, so both see one encoding.
 */
#ifndef SLUICE_TOOLS_REFERENCE_H
#define SLUICE_TOOLS_REFERENCE_H

#include "answer.h"
#include "chunking.h"
#include "jsonw.h"
#include "sluice_kit.h"

typedef struct refrun {
  sluice_output *out;
  sluice_filter *f;
  sluice_status st;
  sluice_error err;
  int finished;
  size_t chan_sent[SLUICE_CHANNEL_COUNT]; /* bytes already written per channel */
  size_t ev_sent;                         /* events already written */
  uint64_t max_held;
} refrun;

/* Builds the filter; on failure r->st and r->err say why (an answer can
 * still be written: the error). The collector is reused across runs. */
void refrun_open(refrun *r, sluice_output *out, const char *filter, const char *options,
                 size_t options_len);
sluice_status refrun_feed(refrun *r, const void *p, size_t n);
sluice_status refrun_finish(refrun *r);
void refrun_close(refrun *r);

/* Writes the answer's fields after "id" (and "feed" for a streaming line):
 * "ok", the channels, "events" and, once finished, "value" and "truncated"
 * (json) and "max_held". With delta set, only what was released since the
 * last write. Returns 0, or -1 when w failed (out of memory or past its
 * limit). */
int refrun_write(refrun *r, jsonw *w, int delta);

/* The protocol form of one event (FORMAT.md) as a JSON object. A thought
 * record's text is the THOUGHT channel's bytes thought[offset, offset +
 * length) (thought may be NULL for other events). Returns 0, or -1 when w
 * failed. */
int write_event(jsonw *w, const sluice_event *ev, const char *thought, size_t tl);

/* The whole answer for input cut by k, as `answer` (through the same
 * encoding): what the in-process reference says. */
void reference_answer(const char *filter, const char *options, const char *input,
                      const chunking *k, sluice_output *out, answer *a);

/* Feeds f from fd as blocks arrive (read(), so a pipe is followed as it
 * streams), then finishes it; with flush_each, stdout is flushed after every
 * block so released text shows at once (a failed flush stops the filter as
 * SLUICE_CALLBACK). *st is the filter's status. Returns -1 after printing
 * "sluice CMD: cannot read standard input: ..." on a read error. */
int feed_fd(sluice_filter *f, int fd, int flush_each, const char *cmd, sluice_status *st);

/* A command's end after feed_fd: a write error (SLUICE_CALLBACK from a sink
 * that could not write) or a filter error is printed as "sluice CMD: ...";
 * stdout is flushed and checked. Returns the exit status (0 or 1). */
int filter_exit_status(sluice_filter *f, sluice_status st, const char *cmd);

/* Parses answer fields written by refrun_write ("{...}") into a. */
void answer_from_text(answer *a, const char *text, size_t n);

#endif
