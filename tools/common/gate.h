/*
 * gate.h: `sluice gate`, a running middleware checked over HTTP (DESIGN.md
 * §3, the gate). The middleware sits between the gate's client and the
 * gate's mock upstream (upstream.h, in process). For each case (a capture)
 * and each variant of it (the capture as recorded; its deltas cut again:
 * resplit.h; its network writes cut again; a fault), the upstream serves
 * the variant to the request that names its token as the model, and what
 * the client reads is compared (norm.h) with what the middleware is
 * declared to do to the content (pass it through, remove thinking, or a
 * pipeline). A fault's variant must reach the client as a failure.
 */
#ifndef SLUICE_TOOLS_GATE_H
#define SLUICE_TOOLS_GATE_H

#include <stdatomic.h>

#include "capture.h"
#include "client.h"
#include "norm.h"
#include "opt.h"
#include "progress.h"
#include "resplit.h"
#include "select.h"
#include "sluice_kit.h"
#include "upstream.h"

/* The columns of the report: a family of variants each. */
typedef enum gfamily { GF_RECORDED, GF_DELTAS, GF_NETWORK, GF_FAULTS, GF_COUNT } gfamily;
extern const char *const gate_family_names[GF_COUNT];

/* What a variant came to. */
typedef enum gstatus {
  GS_PENDING = 0,
  GS_AGREES,      /* = */
  GS_DIFFERS,     /* the content or the end differs */
  GS_BROKEN,      /* no usable answer: connection, timeout, an HTTP error not asked for */
  GS_UNSUPPORTED, /* the variant cannot be made or the middleware asks elsewhere */
  GS_NOT_RUN      /* the deadline came first */
} gstatus;

typedef struct gvariant {
  gfamily fam;
  char label[48]; /* "recorded", "whole", "at:5", "codepoint", "bytes", "cut", ... */
  rs_spec rs;     /* GF_DELTAS */
  up_behave how;  /* GF_NETWORK, GF_FAULTS */
  int must_fail;  /* GF_FAULTS */
  gstatus st;
  char why[320];
  double seconds;
} gvariant;

typedef struct gcase {
  char *id;
  capture cap;        /* as loaded */
  rs_content content; /* its provider events, when its deltas can be written again */
  int resplittable;
  const char *no_resplit; /* why its deltas are not written again, when it is not the endpoint */
  outcome expected;
  gvariant *v;
  size_t nv;
  /* after the run: the minimized failing deltas variant, if any */
  char repro_spec[512];
  int started; /* a variant of it was given to a worker */
  int counted; /* it has a new difference, counted for --max-failures */
} gcase;

typedef enum gexpect { GE_PASSTHROUGH, GE_THINK, GE_PIPELINE } gexpect;

typedef struct gate_opts {
  const char *url, *middleware, *ready, *model_prefix, *log;
  const char *client_name, *expect, *resplit, *rechunk, *faults, *format, *known, *output;
  const char *think_options; /* JSON: the think filter's options for --expect think */
  const char *suites;        /* --suite: think, clean, harmony, json, sse or all */
  const char *suite_as;      /* --suite-as: the suites' streams as openai-chat or anthropic */
  strlist headers;          /* "Name: value", {upstream} substituted */
  strlist reports;          /* --report FMT:FILE: more reports of the same run */
  strlist operands;
  int jobs;
  double deadline, timeout, start_timeout;
  uint64_t max_single;      /* single cuts per case at most */
  uint64_t max_failures;    /* stop after this many cases with a new difference (0: never) */
  case_filter sel;          /* --features (the suites' cases), --shard (every case) */
  int quiet;
} gate_opts;

typedef struct gate {
  gate_opts o;
  sluice_endpoint client;
  gexpect expect;
  sluice_options *pipeline; /* GE_PIPELINE */
  sluice_options *think;    /* GE_THINK: --think-options */
  upstream *up;
  char **headers;           /* the substituted headers, NULL-terminated */
  gcase *cases;
  size_t ncases;
  caselist suites; /* --suite: the suites' version, digest and files read (no cases) */
  /* the run */
  size_t next_job, njobs;
  size_t done, failed; /* variants run, of which not agreeing (for the progress line) */
  struct gknown *known; /* --known, read before the run */
  size_t nknown;
  size_t failed_cases;  /* cases with a difference not in --known */
  size_t cases_not_run; /* left out when --max-failures stopped the run */
  int max_stop;         /* --max-failures reached: no case is begun after it */
  progress pg;
  atomic_ulong token;
  double t0;
  int stop; /* the deadline passed */
  char *url_owned, *mw_owned, *ready_owned; /* with {port} replaced */
} gate;

/* Loads the cases (every capture file named, folders read, then the
 * suites' cases) and works out each one's expected outcome and variants.
 * -1 after a message. */
int gate_load(gate *g);
/* Adds a case of capture cap (taken, *cap cleared), named id; its deltas
 * are written again (--resplit) when its endpoint has a writer, unless
 * no_resplit says why not (a static string). -1 after a message. */
int gate_add_case(gate *g, const char *id, capture *cap, const char *no_resplit);
/* dst: a copy of c that an upstream entry can own. */
void gate_capture_dup(capture *dst, const capture *c);
/* dst: a copy of like with the body of content written as spec cuts its
 * deltas. 0, or -1 when the endpoint has no writer. */
int gate_capture_write(capture *dst, const capture *like, const rs_content *content,
                       const rs_spec *spec);
/* The cases of --suite LIST (gatesuite.c): the golden suites' inputs as
 * provider streams. -1 after a message. */
int gate_suite_cases(gate *g, const char *list);
/* Runs every variant of every case on o.jobs workers; then minimizes what
 * failed in the deltas family. */
void gate_run(gate *g);
void gate_free(gate *g);

/* The known differences (--known): "CASE FAMILY reason" per line, FAMILY
 * one of the columns or "*". */
typedef struct gknown {
  char *id, *family, *reason;
  int seen;
} gknown;

/* The entry of known that accepts a difference of case id in family f, or
 * NULL. */
gknown *gate_known_find(gknown *k, size_t n, const char *id, gfamily f);
/* The report in o.format, to out. The exit status: 0, or 1 when a
 * difference is not in the known list (or a case was not run). */
int gate_report(const gate *g, gknown *known, size_t nknown, FILE *out);
/* Reads a --known file. -1 after a message. */
int gate_known_load(const char *path, gknown **out, size_t *n);
void gate_known_free(gknown *k, size_t n);

#endif
