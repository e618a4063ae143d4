/*
 * sluice_bind.h: what the Python extension and the WebAssembly module share.
 *
 * A binding feeds a filter one chunk at a time and hands each call's output
 * to its language: the bytes every channel released in that call, the events
 * it raised, and the order in which they came (a stream of typed parts needs
 * "text, then reasoning, then text" even when one chunk holds all three).
 * sluice_output keeps a whole stream; this keeps one call, so a long stream
 * costs the memory of its largest chunk's output, not of the stream.
 *
 * Filters are built by protocol name from JSON options (sluice_kit.h), so an
 * option the kit learns (a think format, say) reaches both bindings with no
 * change here. Events are described in the filter protocol's form
 * (conformance/FORMAT.md) as a list of typed fields, so each binding builds
 * its dicts or objects with one generic loop and the event-to-protocol
 * mapping is written once, here.
 *
 * libc, libsluice and libsluice-kit only.
 */
#ifndef SLUICE_BIND_H
#define SLUICE_BIND_H

#include "sluice_kit.h"

typedef struct sb_filter sb_filter;

/* Builds the filter `name` ("think", ...) from JSON options (NULL or "" for
 * {}). On failure *out is NULL and err says why (SLUICE_BAD_OPTION names the
 * option). */
sluice_status sb_new(sb_filter **out, const char *name, const char *opts, size_t len,
                     sluice_error *err);
void sb_free(sb_filter *b);
/* Forgets the previous call's output, then feeds or finishes. A status other
 * than SLUICE_OK is sticky; sb_error() has its offset and message (a
 * collector that ran out of memory is SLUICE_NOMEM, not SLUICE_CALLBACK). */
sluice_status sb_feed(sb_filter *b, const void *p, size_t n);
sluice_status sb_finish(sb_filter *b);
const sluice_error *sb_error(const sb_filter *b);
sluice_filter *sb_filter_of(const sb_filter *b);

/* This call's output. */
const char *sb_channel(const sb_filter *b, sluice_channel ch, size_t *n);
size_t sb_event_count(const sb_filter *b);
/* The i-th event of this call, its pointers valid until the next call. A
 * thought record's data is its text (the library gives only its span of
 * THOUGHT, which may have come in earlier calls). */
void sb_event(const sb_filter *b, size_t i, sluice_event *ev);

/* The order of this call's output: runs of one channel's bytes (kind 0 to 4,
 * a sluice_channel; n bytes, the next n of that channel in this call) and
 * events (kind SB_RUN_EVENT; n = the event's index). Consecutive bytes of
 * one channel make one run. */
#define SB_RUN_EVENT 5
size_t sb_run_count(const sb_filter *b);
void sb_run(const sb_filter *b, size_t i, int *kind, size_t *n);

/* An event in the filter protocol's form: {"type": "thought", "tag": ...,
 * "text": ..., "complete": ...} and so on (FORMAT.md, "Events"), as fields.
 * SB_BYTES fields are byte strings of the stream (a str when the caller fed
 * str, bytes when it fed bytes); SB_NAME fields are names (always a str).
 * The json filter's result is {"type": "value", "value": JSON text as
 * SB_RAW, "truncated": bool}, and when jansson cannot load that text (valid
 * JSON: a number past a double, a NUL in a key, nesting past 2048) two more
 * fields, "reason" (SB_NAME: number_overflow, nul_in_key, depth) and
 * "offset" (SB_INT: the input byte of the first cause), which the protocol
 * answers as "unloadable": {"reason", "offset"} in place of "value". The
 * protocol puts the result beside the events, not among them. */
enum { SB_BYTES, SB_NAME, SB_RAW, SB_INT, SB_BOOL, SB_NULL };
#define SB_MAX_FIELDS 8
typedef struct sb_field {
  const char *key;
  int kind;
  const char *p; /* SB_BYTES, SB_NAME, SB_RAW */
  size_t n;
  int64_t i; /* SB_INT, SB_BOOL */
} sb_field;
/* Fills f[] and returns how many fields; 0 for an event the protocol does
 * not show. */
size_t sb_describe(const sluice_event *ev, sb_field f[SB_MAX_FIELDS]);

#endif
