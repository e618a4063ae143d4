/*
 * report.c: the formats of a run of cases, and known failures (report.h).
 */
#include "report.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bytes.h"
#include "jsonw.h"

const char *const report_format_names[] = {"text", "tap", "junit", "json", NULL};

static void indent_lines(tbuf *out, const char *text, const char *indent) {
  for (const char *s = text; s && *s;) {
    const char *e = strchr(s, '\n');
    size_t l = e ? (size_t)(e - s) : strlen(s);
    tbuf_xprintf(out, "%s%.*s\n", indent, (int)l, s);
    s += l + (e ? 1 : 0);
  }
}

/* A string for JSON: the bytes, with each one that is not part of valid
 * UTF-8 as '?' (an implementation's stderr, quoted in a report, may hold
 * anything). */
static void jw_text(jsonw *w, const char *p, size_t n) {
  if (sluice_utf8_valid(p, n)) {
    jw_string(w, p, n);
    return;
  }
  tbuf b = {0};
  for (size_t i = 0; i < n;) {
    size_t l = 1;
    while (l <= 4 && i + l <= n && !sluice_utf8_valid(p + i, l)) l++;
    if (l <= 4 && i + l <= n) tbuf_xadd(&b, p + i, l);
    else tbuf_xadds(&b, "?");
    i += l <= 4 && i + l <= n ? l : 1;
  }
  jw_string(w, b.p ? b.p : "", b.n);
  tbuf_free(&b);
}

static void jw_kstr(jsonw *w, const char *key, const char *s) {
  jw_key(w, key);
  if (s) jw_text(w, s, strlen(s));
  else jw_null(w);
}

static const char *status_word(const case_result *r) {
  switch (r->status) {
  case CASE_PASS: return r->latency_failed ? "LATE" : "ok  ";
  case CASE_FAIL: {
    for (int m = 0; m < M_COUNT; m++)
      if (r->modes[m].failed && !r->modes[m].known) return "FAIL";
    return r->held_failed || !r->latency_failed ? "FAIL" : "LATE";
  }
  case CASE_SKIP: return "SKIP";
  default: return "----";
  }
}

static void held_text(char *buf, size_t n, const case_result *r) {
  if (r->max_held >= 0) snprintf(buf, n, "%lld", (long long)r->max_held);
  else snprintf(buf, n, "not reported");
}

void report_suites_line(const report_run *rr, FILE *out) {
  tbuf b = {0};
  suites_describe(rr->cl, &b);
  fprintf(out, "%ssuites: %s\n", rr->format == RF_TAP ? "# " : "", b.p);
  tbuf_free(&b);
}

void report_begin(const report_run *rr, FILE *out) {
  if (rr->format == RF_TAP) {
    fprintf(out, "TAP version 13\n");
    report_suites_line(rr, out);
  } else if (rr->format == RF_JSON) {
    tbuf b = {0};
    jsonw w;
    jw_init(&w, &b);
    jw_begin_object(&w);
    jw_kstr(&w, "record", "run");
    jw_kstr(&w, "command", rr->cmd);
    jw_kstr(&w, "impl", rr->impl);
    jw_kstr(&w, "sluice", sluice_version());
    jw_kstr(&w, "suites_version", rr->cl->version);
    char digest[24];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)rr->cl->digest);
    jw_kstr(&w, "suites_digest", digest);
    jw_key(&w, "cases");
    jw_int(&w, (int64_t)rr->cl->n);
    jw_end_object(&w);
    if (w.failed) die("out of memory");
    fprintf(out, "%s\n", b.p);
    tbuf_free(&b);
  }
  fflush(out);
}

/* ---------------- one case ---------------- */

static void text_case(const report_run *rr, tbuf *b, const tcase *c, const case_result *r) {
  char held[32];
  held_text(held, sizeof held, r);
  int bad = r->status == CASE_FAIL || r->latency_failed, known = 0;
  for (int m = 0; m < M_COUNT; m++) known |= r->modes[m].known;
  int said = bad || known || r->status == CASE_SKIP || !rr->quiet; /* -q: the news only */
  if (said || r->note)
    tbuf_xprintf(b, "%s %s/%s  (%zu chunkings, max held %s)\n", status_word(r), c->suite, c->id,
                 r->chunkings, held);
  tbuf t = {0};
  case_result_text(r, &t, 0);
  if (t.n) indent_lines(b, t.p, "      ");
  tbuf_free(&t);
  if (r->note && said) indent_lines(b, r->note, "      note: ");
}

static void tap_case(tbuf *b, const tcase *c, const case_result *r, size_t index) {
  char held[32];
  held_text(held, sizeof held, r);
  if (r->status == CASE_SKIP) {
    tbuf_xprintf(b, "ok %zu - %s/%s # SKIP %s\n", index + 1, c->suite, c->id, r->note ? r->note : "");
    return;
  }
  tbuf_xprintf(b, "%s %zu - %s/%s (%zu chunkings, max held %s)\n",
               r->status == CASE_PASS ? "ok" : "not ok", index + 1, c->suite, c->id, r->chunkings,
               held);
  tbuf t = {0};
  case_result_text(r, &t, 1); /* every failing mode's own report */
  if (t.n) indent_lines(b, t.p, "# ");
  tbuf_free(&t);
  if (r->note) indent_lines(b, r->note, "# note: ");
}

static const char *mode_status(const case_result *r, const mode_stat *ms) {
  if (r->status == CASE_SKIP || ms->skipped) return "skip";
  if (r->status == CASE_NOT_RUN) return "not_run";
  if (ms->known) return "known";
  if (ms->failed) return "fail";
  return ms->latency ? "latency" : "pass";
}

/* A failure record's fields. */
static void failure_fields(jsonw *w, const tcase *c, const mode_failure *f) {
  jw_kstr(w, "kind", fail_kind_names[f->kind]);
  jw_kstr(w, "field", f->field);
  jw_kstr(w, "expected", f->expected);
  jw_kstr(w, "actual", f->actual);
  jw_key(w, "feed");
  if (f->feed >= 0) jw_int(w, f->feed);
  else jw_null(w);
  jw_key(w, "chunks");
  if (f->has_chunks) {
    jw_begin_array(w);
    for (size_t i = 0; i < f->chunks.n; i++) jw_int(w, (int64_t)f->chunks.len[i]);
    jw_end_array(w);
    tbuf shown = {0};
    chunking_show(&shown, c->input.p, &f->chunks, 0);
    jw_kstr(w, "chunking", shown.p);
    tbuf_free(&shown);
    jw_key(w, "minimized");
    jw_bool(w, f->minimized);
  } else {
    jw_null(w);
  }
  jw_key(w, "report");
  jw_text(w, f->report.p ? f->report.p : "", f->report.n);
}

static void json_mode(jsonw *w, const tcase *c, const case_result *r, int m) {
  const mode_stat *ms = &r->modes[m];
  jw_begin_object(w);
  jw_kstr(w, "record", "case");
  jw_kstr(w, "suite", c->suite);
  jw_kstr(w, "file", c->file);
  jw_kstr(w, "case", c->id);
  jw_kstr(w, "mode", split_mode_names[m]);
  jw_key(w, "chunkings");
  jw_int(w, (int64_t)ms->chunkings);
  jw_kstr(w, "status", mode_status(r, ms));
  char secs[32];
  snprintf(secs, sizeof secs, "%.6f", ms->seconds);
  jw_key(w, "seconds");
  jw_raw(w, secs, strlen(secs));
  const mode_failure *main = ms->failed ? &ms->fail : ms->latency ? &ms->late : NULL;
  if (main && main->kind != FK_NONE) failure_fields(w, c, main);
  if (ms->failed && ms->latency && ms->late.kind != FK_NONE) {
    jw_key(w, "latency");
    jw_begin_object(w);
    failure_fields(w, c, &ms->late);
    jw_end_object(w);
  }
  jw_end_object(w);
}

/* A record per split mode run (the whole input always). */
static void json_case(tbuf *b, const tcase *c, const case_result *r) {
  for (int m = 0; m < M_COUNT; m++) {
    const mode_stat *ms = &r->modes[m];
    if (!ms->run && !ms->skipped && !(m == M_WHOLE && r->chunkings)) continue;
    jsonw w;
    tbuf line = {0};
    jw_init(&w, &line);
    json_mode(&w, c, r, m);
    if (w.failed) die("out of memory");
    tbuf_xadd(b, line.p, line.n);
    tbuf_xadds(b, "\n");
    tbuf_free(&line);
  }
}

void report_case(const report_run *rr, FILE *out, const tcase *c, const case_result *r,
                 size_t index) {
  tbuf b = {0};
  if (rr->format == RF_TEXT) text_case(rr, &b, c, r);
  else if (rr->format == RF_TAP) tap_case(&b, c, r, index);
  else if (rr->format == RF_JSON) json_case(&b, c, r);
  if (b.n) fwrite(b.p, 1, b.n, out);
  fflush(out);
  tbuf_free(&b);
}

/* ---------------- JUnit ---------------- */

/* A crash or a timeout: a JUnit error rather than a failure. */
static int is_error(const case_result *r) {
  for (int m = 0; m < M_COUNT; m++) {
    fail_kind k = r->modes[m].known ? FK_NONE : mode_kind(&r->modes[m]);
    if (k == FK_CRASH || k == FK_TIMEOUT) return 1;
  }
  return 0;
}

typedef struct junit_counts {
  size_t failures, errors, skipped;
  double seconds;
} junit_counts;

static void junit_count(const case_result *res, size_t from, size_t to, junit_counts *k) {
  memset(k, 0, sizeof *k);
  for (size_t i = from; i < to; i++) {
    const case_result *r = &res[i];
    if (r->status == CASE_SKIP || r->status == CASE_NOT_RUN) k->skipped++;
    else if (r->status == CASE_FAIL && is_error(r)) k->errors++;
    else if (r->status == CASE_FAIL) k->failures++;
    k->seconds += r->seconds;
  }
}

static void junit_failure(tbuf *b, const case_result *r) {
  if (r->status == CASE_SKIP || r->status == CASE_NOT_RUN) {
    const char *why = r->status == CASE_NOT_RUN ? "not run (the deadline or --max-failures)"
                      : r->note                  ? r->note
                                                 : "skipped";
    tbuf_xadds(b, "      <skipped message=\"");
    markup_escape(b, why, strlen(why));
    tbuf_xadds(b, "\"/>\n");
    return;
  }
  const char *tag = is_error(r) ? "error" : "failure";
  const char *msg = r->summary ? r->summary : "latency";
  tbuf_xprintf(b, "      <%s message=\"", tag);
  markup_escape(b, msg, strlen(msg));
  int output = !r->latency_failed || r->summary;
  tbuf_xprintf(b, "\" type=\"%s\">", output ? "output" : "latency");
  tbuf t = {0};
  case_result_text(r, &t, 1); /* every failing mode's own report */
  if (t.n) markup_escape(b, t.p, t.n);
  tbuf_free(&t);
  tbuf_xprintf(b, "</%s>\n", tag);
}

static void junit_suite(tbuf *b, const caselist *cl, const case_result *res, size_t i, size_t j,
                        const char *stamp, const char *host) {
  junit_counts k;
  junit_count(res, i, j, &k);
  tbuf_xadds(b, "  <testsuite name=\"");
  markup_escape(b, cl->v[i].suite, strlen(cl->v[i].suite));
  tbuf_xprintf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                  "time=\"%.3f\" timestamp=\"%s\" hostname=\"",
               j - i, k.failures, k.errors, k.skipped, k.seconds, stamp);
  markup_escape(b, host, strlen(host));
  tbuf_xadds(b, "\">\n    <properties>\n      <property name=\"suites\" value=\"");
  tbuf v = {0};
  suites_describe(cl, &v);
  markup_escape(b, v.p, v.n);
  tbuf_free(&v);
  tbuf_xadds(b, "\"/>\n    </properties>\n");
  for (size_t n = i; n < j; n++) {
    const tcase *c = &cl->v[n];
    tbuf_xadds(b, "    <testcase classname=\"");
    markup_escape(b, c->file, strlen(c->file));
    tbuf_xadds(b, "\" name=\"");
    markup_escape(b, c->id, strlen(c->id));
    tbuf_xprintf(b, "\" time=\"%.3f\"", res[n].seconds);
    if (res[n].status == CASE_PASS) {
      tbuf_xadds(b, "/>\n");
      continue;
    }
    tbuf_xadds(b, ">\n");
    junit_failure(b, &res[n]);
    tbuf_xadds(b, "    </testcase>\n");
  }
  tbuf_xadds(b, "  </testsuite>\n");
}

void report_junit(const report_run *rr, FILE *out, const case_result *res, double seconds) {
  const caselist *cl = rr->cl;
  tbuf b = {0};
  junit_counts k;
  junit_count(res, 0, cl->n, &k);
  char stamp[32];
  time_t now = time(NULL);
  struct tm tmv;
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", gmtime_r(&now, &tmv));
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  tbuf_xprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"sluice %s\" "
                   "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
               rr->cmd, cl->n, k.failures, k.errors, k.skipped, seconds);
  for (size_t i = 0; i < cl->n;) {
    size_t j = i;
    while (j < cl->n && strcmp(cl->v[j].suite, cl->v[i].suite) == 0) j++;
    junit_suite(&b, cl, res, i, j, stamp, host);
    i = j;
  }
  tbuf_xadds(&b, "</testsuites>\n");
  fwrite(b.p, 1, b.n, out);
  tbuf_free(&b);
}

/* ---------------- known failures ---------------- */

int skip_find(const idnotes *skips, const tcase *c, skip_entry *e, const char *cmd) {
  memset(e, 0, sizeof *e);
  e->note = idnotes_find(skips, c);
  if (!e->note) return 0;
  const char *at = strchr(e->note->id, '@');
  if (!at) return 1;
  char *copy = xstrdup(at + 1), *save = NULL;
  int rc = 1;
  for (char *m = strtok_r(copy, ",", &save); m && rc > 0; m = strtok_r(NULL, ",", &save)) {
    int found = -1;
    for (int i = 0; i < M_COUNT && found < 0; i++)
      if (strcmp(split_mode_names[i], m) == 0) found = i;
    if (found < 0) {
      fprintf(stderr, "sluice %s: %s: line %zu: \"%s\" is not a split mode (after @ come split "
                      "modes, comma-separated)\n", cmd, skips->path, e->note->line, m);
      rc = -1;
    } else {
      e->modes |= 1u << found;
    }
  }
  free(copy);
  if (rc > 0 && !e->modes) {
    fprintf(stderr, "sluice %s: %s: line %zu: no split mode after @\n", cmd, skips->path,
            e->note->line);
    rc = -1;
  }
  return rc;
}

static void skip_note(case_result *r, const char *fmt, const char *path, const char *what) {
  tbuf nb = {0};
  if (r->note) tbuf_xprintf(&nb, "%s\n", r->note);
  tbuf_xprintf(&nb, fmt, path, what);
  free(r->note);
  r->note = tbuf_take(&nb, NULL);
}

/* Listed split modes: their failures are known; the case's status again. */
static void skip_modes(const skip_entry *e, const char *path, case_result *r, int latency) {
  const char *why = *e->note->note ? e->note->note : "(no reason given)";
  for (int m = 0; m < M_COUNT; m++) {
    if (!(e->modes & (1u << m))) continue;
    mode_stat *ms = &r->modes[m];
    int bad = ms->failed || (ms->latency && latency != LAT_OFF);
    if (bad) {
      ms->known = 1;
      char what[200];
      snprintf(what, sizeof what, "%s: %.150s", split_mode_names[m], why);
      skip_note(r, "known failure (%s) in split mode %s", path, what);
    } else if (ms->run) {
      skip_note(r, "listed in %s as a known failure of split mode %s, but it passes now: "
                   "remove it", path, split_mode_names[m]);
    }
  }
  case_result_settle(r, latency);
}

void skip_apply(const skip_entry *e, const char *path, case_result *r, int latency) {
  if (e->modes) {
    skip_modes(e, path, r, latency);
    return;
  }
  if (r->status == CASE_FAIL) {
    r->status = CASE_SKIP;
    r->latency_failed = 0;
    case_result_drop_reports(r);
    free(r->note);
    r->note = NULL;
    skip_note(r, "known failure (%s): %s", path,
              *e->note->note ? e->note->note : "(no reason given)");
  } else if (r->status == CASE_PASS) {
    free(r->note);
    r->note = NULL;
    skip_note(r, "listed in %s as a known failure, but it passes now: remove it%s", path, "");
  }
}

void skip_line(const tcase *c, const case_result *r, tbuf *out) {
  if (r->status != CASE_FAIL && !r->latency_failed) return;
  unsigned modes = 0;
  const mode_stat *first = NULL;
  int whole = r->held_failed || r->modes[M_WHOLE].failed;
  for (int m = 0; m < M_COUNT; m++) {
    if (mode_kind(&r->modes[m]) == FK_NONE) continue;
    modes |= 1u << m;
    if (!first) first = &r->modes[m];
  }
  if (!modes && !whole) return;
  tbuf_xprintf(out, "%s/%s", c->suite, c->id);
  for (int m = 0, sep = '@'; m < M_COUNT && !whole; m++)
    if (modes & (1u << m)) {
      tbuf_xprintf(out, "%c%s", sep, split_mode_names[m]);
      sep = ',';
    }
  if (first) {
    const mode_failure *f = first->failed ? &first->fail : &first->late;
    tbuf_xprintf(out, " %s", fail_kind_names[mode_kind(first)]);
    if (f->field) tbuf_xprintf(out, ": %s differs", f->field);
  } else {
    tbuf_xadds(out, " the largest hold-back differs");
  }
  tbuf_xadds(out, "\n");
}
