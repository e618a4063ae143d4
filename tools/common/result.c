/*
 * result.c: a case's result as the runner tells it: per split mode, the
 * first failure of each kind with its own report and fields, and the text
 * that the formats print (check.h).
 */
#include "check.h"

#include <string.h>

const char *const fail_kind_names[FK_COUNT] = {"",         "output", "latency",
                                               "protocol", "crash",  "timeout"};

static void mode_failure_free(mode_failure *f) {
  chunking_free(&f->chunks);
  free(f->field);
  free(f->expected);
  free(f->actual);
  tbuf_free(&f->report);
  memset(f, 0, sizeof *f);
  f->feed = -1;
}

void case_result_drop_reports(case_result *r) {
  for (int m = 0; m < M_COUNT; m++) {
    fail_kind a = r->modes[m].fail.kind, b = r->modes[m].late.kind;
    mode_failure_free(&r->modes[m].fail);
    mode_failure_free(&r->modes[m].late);
    r->modes[m].fail.kind = a; /* the kinds stay: the tables and records count them */
    r->modes[m].late.kind = b;
  }
  tbuf_free(&r->report);
}

void case_result_free(case_result *r) {
  case_result_drop_reports(r);
  free(r->summary);
  free(r->note);
  if (r->whole) answer_free(r->whole);
  free(r->whole);
  memset(r, 0, sizeof *r);
}

fail_kind mode_kind(const mode_stat *m) {
  if (m->failed && m->fail.kind != FK_NONE) return m->fail.kind;
  if (m->failed) return FK_OUTPUT;
  return m->latency ? FK_LATENCY : FK_NONE;
}

/* One line for a mode whose report is not printed in full: its kind and
 * the field that differs, or the first line of its report. */
static void mode_line(tbuf *out, int m, const mode_failure *f) {
  tbuf_xprintf(out, "also split mode %s: %s", split_mode_names[m], fail_kind_names[f->kind]);
  if (f->field && (f->kind == FK_OUTPUT || f->kind == FK_LATENCY)) {
    tbuf_xprintf(out, " (%s differs", f->field);
    if (f->feed >= 0) tbuf_xprintf(out, " at feed %lld", (long long)f->feed);
    tbuf_xadds(out, ")");
  } else if (f->report.n) {
    const char *s = f->report.p, *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : f->report.n;
    const char *colon = memchr(s, ':', n); /* after "split mode X: " */
    if (colon && colon + 2 <= s + n) {
      n -= (size_t)(colon + 2 - s);
      s = colon + 2;
    }
    tbuf_xprintf(out, ": %.*s%s", (int)(n > 120 ? 120 : n), s, n > 120 ? "..." : "");
  }
  tbuf_xadds(out, "\n");
}

static void add_report(tbuf *out, const tbuf *rep) {
  tbuf_xadd(out, rep->p, rep->n);
  if (rep->n && rep->p[rep->n - 1] != '\n') tbuf_xadds(out, "\n");
}

void case_result_text(const case_result *r, tbuf *out, int all) {
  int shown_fail = 0, shown_late = 0;
  for (int m = 0; m < M_COUNT; m++) {
    const mode_stat *ms = &r->modes[m];
    if (ms->known) continue;
    if (ms->failed && ms->fail.report.n) {
      if (all || !shown_fail) add_report(out, &ms->fail.report);
      else mode_line(out, m, &ms->fail);
      shown_fail = 1;
    }
  }
  for (int m = 0; m < M_COUNT; m++) {
    const mode_stat *ms = &r->modes[m];
    if (ms->known || !ms->latency || !ms->late.report.n) continue;
    if (all || !shown_late) add_report(out, &ms->late.report);
    else mode_line(out, m, &ms->late);
    shown_late = 1;
  }
  if (r->report.n) add_report(out, &r->report);
}

void case_result_settle(case_result *r, int latency_policy) {
  if (r->status != CASE_FAIL && r->status != CASE_PASS) return;
  int failed = r->held_failed, late = 0;
  for (int m = 0; m < M_COUNT; m++) {
    if (r->modes[m].known) continue;
    failed |= r->modes[m].failed;
    late |= r->modes[m].latency;
  }
  r->latency_failed = late;
  if (late && latency_policy == LAT_FAIL) failed = 1;
  r->status = failed ? CASE_FAIL : CASE_PASS;
}
