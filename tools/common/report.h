/*
 * report.h: what a run of cases reports, in each format, for every command
 * that runs cases (conform, gate): a text line per case, TAP, JUnit XML, and
 * JSON records, one per case and split mode with its own fields (mode,
 * kind, chunking, the field that differs, expected and actual, the feed);
 * the suites' version in each format; known failures (--skip, whole cases
 * or split modes) and the skip file of a run's failures (--write-skip).
 */
#ifndef SLUICE_TOOLS_REPORT_H
#define SLUICE_TOOLS_REPORT_H

#include <stdio.h>

#include "check.h"
#include "suite.h"

enum report_format { RF_TEXT, RF_TAP, RF_JUNIT, RF_JSON };
extern const char *const report_format_names[]; /* enum order, NULL-terminated */

typedef struct report_run {
  const char *cmd;    /* "conform" */
  const char *impl;   /* the command checked; NULL: the reference */
  const caselist *cl; /* the cases (and the suites' version) */
  int format, quiet;
  int latency;        /* enum latency_policy */
} report_run;

/* What comes before the first case (the TAP header; the JSON run record). */
void report_begin(const report_run *rr, FILE *out);
/* One case, as it completes (index: its place in the run, from 0). */
void report_case(const report_run *rr, FILE *out, const tcase *c, const case_result *r,
                 size_t index);
/* The whole run as JUnit XML (written at the end). */
void report_junit(const report_run *rr, FILE *out, const case_result *res, double seconds);
/* "suites: version 1, digest ..., 70 files" (prefix "# " for TAP). */
void report_suites_line(const report_run *rr, FILE *out);

/* A case's entry in a --skip file, split modes and all. */
typedef struct skip_entry {
  const idnote *note;
  unsigned modes; /* bit per split mode; 0: the whole case */
} skip_entry;

/* The entry naming case c ("ID" or "ID@MODE,MODE"); -1 after a message
 * when the modes are not split mode names, 0 when none names it. */
int skip_find(const idnotes *skips, const tcase *c, skip_entry *e, const char *cmd);
/* A known failure applied: a whole case's failure is a skip; a listed
 * mode's failure is known (the case passes if nothing else fails); a
 * listed case or mode that passes is said in the note. */
void skip_apply(const skip_entry *e, const char *path, case_result *r, int latency);
/* The skip-file line of a failed case ("SUITE/ID[@MODES] what failed"),
 * appended to out; nothing for a case that did not fail. */
void skip_line(const tcase *c, const case_result *r, tbuf *out);

#endif
