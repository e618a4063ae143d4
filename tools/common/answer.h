/*
 * answer.h: the protocol's answer as the kit compares it. An expected
 * answer (from a case file), the reference library's answer and an
 * implementation's answer line all become an `answer`, and one function,
 * answer_diff, says whether two are equal and renders how they differ.
 *
 * Channels are bytes. Events and the json value are kept as canonical JSON
 * text (compact, keys sorted, byte fields as a string when valid UTF-8 and
 * "<key>_b64" otherwise), so equal meaning gives equal text. Snapshot
 * events (json, incremental) depend on the chunking by nature and are kept
 * apart; they are compared only where the chunking is known to both sides.
 */
#ifndef SLUICE_TOOLS_ANSWER_H
#define SLUICE_TOOLS_ANSWER_H

#include <jansson.h>

#include "sluice.h"
#include "util.h"

typedef struct tstrs {
  char **v;
  size_t n, cap;
} tstrs;

void tstrs_push(tstrs *s, char *owned);
void tstrs_free(tstrs *s);
/* 1 if the lists differ; with out, a line pair at the first difference
 * ("name[i]  expected ... actual ..."). */
int tstrs_diff(const tstrs *e, const tstrs *a, const char *name, tbuf *out, const char *indent);

typedef struct answer {
  int ok;
  char *code;    /* error answers */
  char *message; /* never compared */
  int64_t offset;
  int has_offset;
  tbytes chan[SLUICE_CHANNEL_COUNT];
  unsigned chan_present; /* bit c: the answer had channel c's field */
  unsigned has;          /* ANS_EVENTS, ANS_VALUE, ANS_TRUNCATED: it had that field */
  tstrs events;          /* canonical JSON, snapshots excluded */
  tstrs snapshots;       /* canonical JSON of the snapshot events */
  char *value;           /* canonical JSON, or NULL */
  char *unloadable;      /* json: canonical JSON of {"reason", "offset"}, or NULL */
  int truncated;         /* -1 when absent */
  int64_t max_held;      /* -1 when absent */
  char *problem;         /* a malformed answer: what is wrong with it */
  int unreadable;        /* the line itself could not be read as JSON (problem says
                            why): it is compared as that alone */
  char *value_why;       /* a "value" the kit could not read back: why (value NULL) */
  /* What another implementation's events can express (sluice diff): the
   * answer's "event_types" (types it reports) and "event_keys" (keys its
   * events carry; "type" always). Empty: everything. */
  tstrs event_types, event_keys;
} answer;

/* The fields of an answer as bits: bit c for channel c, then these. */
enum {
  ANS_EVENTS = 1u << SLUICE_CHANNEL_COUNT,
  ANS_VALUE = 1u << (SLUICE_CHANNEL_COUNT + 1),
  ANS_TRUNCATED = 1u << (SLUICE_CHANNEL_COUNT + 2)
};
/* The fields a had (channels and ANS_* bits). */
unsigned answer_fields(const answer *a);

void answer_init(answer *a);
void answer_free(answer *a);
/* An error answer (ok false) with a code, a message and an offset (-1:
 * none). */
void answer_set_error(answer *a, const char *code, const char *message, int64_t offset);

/* An implementation's answer object (the line already parsed; "id" and
 * streaming fields are the caller's). Anything malformed is described in
 * a->problem, which makes the answer differ from every expected one. */
void answer_from_json(answer *a, json_t *obj);

/* An expected answer from a case's "expect" object. Returns 0, or -1 with a
 * reason in why. */
int answer_from_expect(answer *a, json_t *expect, char *why, size_t wl);

/* Canonical JSON of one event object (byte specs allowed, as in the case
 * format). NULL with a reason in why when malformed. */
char *event_canonical(json_t *ev, char *why, size_t wl);
/* Canonical JSON of a value given as JSON text (a json VALUE event): NULL
 * when jansson cannot load it. Integers beyond int64 are compared as reals
 * (jansson's fallback, lossy past 2^53): the TEXT channel carries the exact
 * digits and is compared byte for byte. */
char *value_canonical(const char *text, size_t n, char *why, size_t wl);
/* The same, setting *nomem instead of ending the tool when memory runs
 * out (the protocol server answers "nomem"). */
char *value_canonical_soft(const char *text, size_t n, char *why, size_t wl, int *nomem);

/* Keeps, of canonical events, those whose type is in `types` and of them
 * the keys in `keys` (a byte field's "_b64" form with it; "type" always);
 * an empty list keeps everything. For comparing with an implementation
 * that reports less (answer.event_types, answer.event_keys). */
void events_project(tstrs *events, const tstrs *types, const tstrs *keys);

/* The first field in which two answers differ, as answer_diff shows it:
 * its name ("text", "events[2]", "error") and both sides rendered. */
typedef struct diff_first {
  char *field, *expected, *actual; /* malloc'd; NULL until a difference */
} diff_first;

void diff_first_free(diff_first *f);

/* What answer_diff compares. */
typedef struct diff_opts {
  int offsets;       /* compare error offsets (when the expected has one) */
  int snapshots;     /* compare snapshot events too */
  size_t show_bytes; /* shorten rendered byte strings past this (0: 200) */
  unsigned fields;   /* 0: every field; else only these (answer_fields bits): what
                        another implementation can express (sluice diff) */
  int ignore_codes;  /* an error is an error: codes and offsets not compared (each
                        implementation names its errors its own way) */
  diff_first *first; /* when set and still empty, receives the first difference */
} diff_opts;

/* The number of fields in which `act` differs from `exp`; with out != NULL
 * a line pair per field ("text      expected ...\n          actual ...").
 * A malformed `act` (its problem) counts as one. */
int answer_diff(const answer *exp, const answer *act, const diff_opts *o, tbuf *out,
                const char *indent);

#endif
