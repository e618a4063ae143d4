/*
 * provider.h: what the provider filter (provider.c) and its adapters (one
 * file per provider) share. An adapter reads one chunk (a JSON object) and
 * reports what it holds through the pv_* functions, which make the events
 * and the channel bytes, so every adapter reports the same way.
 */
#ifndef SLUICE_PROVIDER_H
#define SLUICE_PROVIDER_H

#include "jread.h"
#include "sluice_private.h"

#define PV_MAX_CHOICES 64 /* choice indexes 0 to 63 */
#define PV_MAX_TOOLS 256  /* tool-call indexes per choice */
#define PV_MAX_SLOTS 256  /* content blocks (Anthropic), output items (Responses) */

typedef struct provider provider;

/* The raw JSON text of a value inside a chunk (p NULL: absent). */
typedef struct pv_span {
  const char *p;
  size_t n;
} pv_span;

typedef struct pv_adapter {
  sluice_provider_kind kind;
  /* One chunk: r is at its value, an object. 0, or non-zero to stop (an
   * error is set). */
  int (*chunk)(provider *pv, jr *r);
  /* At the end: 1 if the provider's end marker ended the stream. */
  int (*complete)(const provider *pv);
} pv_adapter;

typedef struct pv_choice {
  unsigned char seen, finished;
  uint16_t ntools;                        /* tool calls started: indexes below */
  int last_tool;                          /* the call an index-less delta continues */
  unsigned char started[PV_MAX_TOOLS / 8]; /* tool indexes started */
} pv_choice;

/* Gemini on Vertex streams a function call's arguments as path-value
 * pieces (partialArgs); gemini.c assembles them into JSON text as they
 * come, keeping only the path of containers open and whether a string
 * value is open. */
#define PV_PARTIAL_DEPTH 32
#define PV_PARTIAL_PATH 512
typedef struct pv_partial {
  int open;            /* a streamed call is in progress */
  size_t choice;
  long tool;
  int started;         /* its "{" was sent */
  int string_open;     /* a string value is open at `path` */
  /* the path of the open leaf or containers, as segments: each is a kind
   * byte ('k' a key, 'i' an index) and its text, ended by NUL */
  char path[PV_PARTIAL_PATH];
  uint16_t seg_end[PV_PARTIAL_DEPTH]; /* where each segment ends in path */
  uint16_t depth;                     /* containers open below the root */
  unsigned char members[PV_PARTIAL_DEPTH + 1]; /* a container has members */
} pv_partial;

/* What the adapters keep between chunks. */
typedef struct pv_state {
  int open;      /* a response or message is in progress (its end not seen) */
  int any;       /* a chunk of the provider was read */
  int done;      /* [DONE] */
  int error;     /* an error was reported in the current response */
  pv_choice ch[PV_MAX_CHOICES];
  unsigned char slot_kind[PV_MAX_SLOTS]; /* per content block or output item */
  uint16_t slot_tool[PV_MAX_SLOTS];
  pv_partial partial;
} pv_state;

struct provider {
  sluice_filter base;
  sluice_filter *framing;
  sluice_framing framing_kind;
  sluice_framing framing_opt; /* the framing option (AUTO: detected, opened later) */
  /* a detected framing that sluice_reset set aside, by kind, reused when
   * the next stream is detected to be of that kind: a filter reset per
   * stream does not build its framing (and the framing's buffers) again */
  sluice_filter *spare[SLUICE_FRAMING_CHUNKS + 1];
  sluicep_buf head; /* leading whitespace held while the framing is undecided */
  const pv_adapter *ad;
  sluice_provider_kind forced; /* the provider option (AUTO: detect) */
  size_t choice;               /* the choice the channels show */
  size_t max_line, max_event;
  sluicep_buf scratch; /* decoded strings */
  sluicep_buf args;    /* streamed arguments being assembled (gemini.c) */
  sluice_endpoint endpoint;    /* detected (UNKNOWN when forced or undecided) */
  int detect_only;             /* sluice_detect_new: tell, then read nothing */
  int told;                    /* ... and it has told */
  char model[256];             /* the model the telling chunk names */
  uint64_t chunk_at;   /* stream offset of the chunk being read */
  const char *chunk;   /* its data (error positions count from there) */
  pv_state st;
};

/* Adapters (one file each). */
extern const pv_adapter pv_openai, pv_completions, pv_responses, pv_anthropic, pv_ollama,
    pv_gemini, pv_cohere, pv_llamacpp;

/* A delta event (SLUICE_EV_DELTA: kind, choice, index) and, for the shown
 * choice, its bytes on ch: what the provider and the pipeline release. */
int sluicep_delta(sluice_filter *f, size_t shown, size_t choice, const char *kind,
                  const char *p, size_t n, size_t index, sluice_channel ch);

/* The provider f detected so far; AUTO while undecided or when f is not
 * a provider filter (pipeline.c's sluice_provider_detected asks). */
sluice_provider_kind sluicep_provider_kind_of(const sluice_filter *f);

/* 1 when some choice appeared and every one that did has finished. */
int pv_all_finished(const provider *pv);

/* Reporting, for the adapters. Each returns 0, or non-zero to stop. */
/* A choice index in range, or a provider_format error. */
int pv_choice_ok(provider *pv, uint64_t choice);
/* A delta of `kind` ("text", "reasoning", "refusal", "arguments"): the
 * decoded string s (empty strings are no delta). */
int pv_delta(provider *pv, size_t choice, const char *kind, const jr_str *s, size_t index);
int pv_delta_bytes(provider *pv, size_t choice, const char *kind, const char *p, size_t n,
                   size_t index);
/* A tool call: the index it gets (a new one when index < 0), started with
 * a SLUICE_EV_TOOL_CALL when new (id and name may be NULL). -1 on error. */
long pv_tool(provider *pv, size_t choice, long index, const jr_str *id, const jr_str *name);
int pv_finish(provider *pv, size_t choice, const jr_str *reason);
/* Arguments the provider sends as a JSON object (Ollama, Gemini): its text,
 * compacted. */
int pv_arguments_json(provider *pv, size_t choice, const pv_span *value, size_t index);
int pv_finish_lit(provider *pv, size_t choice, const char *reason);
/* Usage: the JSON value at r (an object), compacted. */
int pv_usage(provider *pv, jr *r);
int pv_usage_text(provider *pv, const char *json, size_t n);
/* An error value at r: a string (the message), or an object with a
 * message and a code, type or status. */
int pv_error(provider *pv, jr *r);
int pv_error_strs(provider *pv, const jr_str *code, const jr_str *message);
/* A chunk whose JSON is bad, read while r is in it. */
int pv_bad_json(provider *pv, const jr *r);
/* pv_error on the value of a member span. */
int pv_error_span(provider *pv, const pv_span *s);
/* A content block or output item index from a span (0 when absent) into
 * *i: 1, or 0 with a provider_format error past PV_MAX_SLOTS - 1 (what
 * names it). */
int pv_slot(provider *pv, const pv_span *s, uint64_t *i, const char *what);

/* The values of chosen top-level members of the object at r, for adapters
 * that need a member before they can read another (a chunk's "type"): for
 * each key in keys (NULL-terminated, at most 16), its raw JSON value, or
 * NULL. Other members are validated and skipped. 0, or -1 on bad JSON. */
int pv_members(jr *r, const char *const *keys, pv_span *out);
/* Readers of one span. */
int pv_span_str(const pv_span *s, jr_str *out);      /* 1 if a string */
int pv_span_uint(const pv_span *s, uint64_t *v);     /* 1 if an integer */
int pv_span_true(const pv_span *s);                   /* 1 if true */
void pv_span_reader(const pv_span *s, jr *r);

#endif
