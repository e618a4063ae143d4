/*
 * cmd_conform.c: `sluice conform`, the conformance runner: the golden
 * suites, in every split mode, against the reference library or any
 * command that serves the filter protocol. Its exit code gates CI.
 *
 * Cases run on -j worker threads, each with its own implementation
 * process; results are printed in case order as they complete, and each
 * case's answers are compared as they arrive (common/check.c), so memory
 * stays bounded whatever the size of a case.
 */
#include "tools.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum fmt { F_TEXT, F_TAP, F_JUNIT, F_JSON };

typedef struct conf {
  runargs ra; /* the options shared with sluice diff */
  check_opts co;
  const char *impl;
  int format, quiet, jobs;
  idnotes skips;
} conf;

/* ---------------- options ---------------- */

static int skip_arg(void *base, const char *path, char *why, size_t wl) {
  (void)why, (void)wl; /* idnotes_load names the file and the line */
  return idnotes_load(&((conf *)base)->skips, "conform", path);
}

static const char *const formats[] = {"text", "tap", "junit", "json", NULL}; /* enum fmt */
static const char *const latencies[] = {"off", "warn", "fail", NULL}; /* enum latency_policy */

static const opt conform_options[] = {
    {.kind = OPT_SECTION, .help = "Known failures"},
    {"skip", 0, "FILE", OPT_CALL, 0, .fn = skip_arg,
     .help = "lines \"CASE-ID reason\" (# comments); such a case counts as skipped, and one "
             "that passes is reported"},
    {.kind = OPT_SECTION, .help = "Implementation"},
    {"impl", 0, "COMMAND", OPT_STRING, OPT_AT(conf, impl, const char *),
     .help = "the command to check (run with sh -c, in its own process group; its stderr is "
             "passed through, capped)"},
    {"latency", 0, "POLICY", OPT_CHOICE, OPT_AT(conf, ra.co.latency, int), .choices = latencies,
     .help = "fail (default), warn or off: what a latency failure does (the streaming modes "
             "compare, after every feed, what was released with what the reference releases)"},
    {.kind = OPT_SECTION, .help = "Output"},
    {"format", 0, "FMT", OPT_CHOICE, OPT_AT(conf, format, int), .choices = formats,
     .help = "text (default), tap, junit (XML; the table and closing line go to stderr) or "
             "json (a JSON line per case and split mode, with timings; the table goes to "
             "stderr)"},
    {"quiet", 'q', NULL, OPT_FLAG, OPT_AT(conf, quiet, int),
     .help = "print only failures, skips and the tables"},
    {0}};

static const opt_cmd conform_cmd = {
    .name = "conform",
    .synopsis = "[options]",
    .intro =
        "Runs the golden conformance suites in every split mode against the reference\n"
        "library, or against COMMAND (--impl), which serves the filter protocol on\n"
        "stdin and stdout (conformance/FORMAT.md). Prints a line per case, a table per\n"
        "filter and split mode, and a closing line \"N passed, N failed\". Exit status:\n"
        "0 all passed, 1 a case failed (or the deadline passed), 2 a usage, suite or\n"
        "setup error (the implementation cannot start, or dies or stays silent before\n"
        "its first answer).\n",
    .outro = "Split modes: whole, single-cut, pair-cuts, byte-at-a-time, empty-chunks,\n"
             "random, exhaustive, recorded (a case's own \"chunks\"), stream-bytes and\n"
             "stream-random (streaming sessions: latency checked after every feed).\n",
    .tables = {runargs_options, conform_options},
};

typedef struct shared {
  const conf *cf;
  const caselist *cl;
  case_result *res;
  atomic_int *done;
  atomic_size_t next;
  atomic_int stop;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  target *targets;
  int setup_error;
  char *setup_msg;
} shared;

static void *worker(void *arg) {
  shared *sh = ((void **)arg)[0];
  target *t = ((void **)arg)[1];
  for (;;) {
    if (atomic_load(&sh->stop)) break;
    size_t i = atomic_fetch_add(&sh->next, 1);
    if (i >= sh->cl->n) break;
    const tcase *c = &sh->cl->v[i];
    case_result *r = &sh->res[i];
    if (sh->cf->co.deadline && now_seconds() > sh->cf->co.deadline) {
      memset(r, 0, sizeof *r);
      r->status = CASE_NOT_RUN;
    } else {
      check_case(t, c, &sh->cf->co, r);
    }
    pthread_mutex_lock(&sh->mu);
    if (t->setup_error && !sh->setup_error) {
      sh->setup_error = 1;
      sh->setup_msg = xstrdup(t->setup_msg.p ? t->setup_msg.p : "setup error");
      atomic_store(&sh->stop, 1);
    }
    atomic_store(&sh->done[i], 1);
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
  }
  pthread_mutex_lock(&sh->mu);
  pthread_cond_broadcast(&sh->cv);
  pthread_mutex_unlock(&sh->mu);
  return NULL;
}

/* ---------------- output ---------------- */

static void indent_lines(tbuf *out, const char *text, const char *indent) {
  for (const char *s = text; s && *s;) {
    const char *e = strchr(s, '\n');
    size_t l = e ? (size_t)(e - s) : strlen(s);
    tbuf_xprintf(out, "%s%.*s\n", indent, (int)l, s);
    s += l + (e ? 1 : 0);
  }
}

static const char *status_word(const case_result *r) {
  switch (r->status) {
  case CASE_PASS: return r->latency_failed ? "LATE" : "ok  ";
  case CASE_FAIL: return r->report.n || !r->latency_failed ? "FAIL" : "LATE";
  case CASE_SKIP: return "SKIP";
  default: return "----";
  }
}

static void held_text(char *buf, size_t n, const case_result *r) {
  if (r->max_held >= 0) snprintf(buf, n, "%lld", (long long)r->max_held);
  else snprintf(buf, n, "not reported");
}

static void print_case(FILE *out, const conf *cf, const tcase *c, const case_result *r,
                       size_t index) {
  tbuf b = {0};
  char held[32];
  held_text(held, sizeof held, r);
  int bad = r->status == CASE_FAIL || r->latency_failed;
  if (cf->format == F_TEXT) {
    if (bad || r->status == CASE_SKIP || !cf->quiet || r->note)
      tbuf_xprintf(&b, "%s %s/%s  (%zu chunkings, max held %s)\n", status_word(r), c->suite,
                   c->id, r->chunkings, held);
    if (r->report.n) indent_lines(&b, r->report.p, "      ");
    if (r->latency_report.n) indent_lines(&b, r->latency_report.p, "      ");
    if (r->note && (bad || r->status == CASE_SKIP || !cf->quiet))
      indent_lines(&b, r->note, "      note: ");
  } else if (cf->format == F_TAP) {
    if (r->status == CASE_SKIP) {
      tbuf_xprintf(&b, "ok %zu - %s/%s # SKIP %s\n", index + 1, c->suite, c->id,
                   r->note ? r->note : "");
    } else {
      tbuf_xprintf(&b, "%s %zu - %s/%s (%zu chunkings, max held %s)\n",
                   r->status == CASE_PASS ? "ok" : "not ok", index + 1, c->suite, c->id,
                   r->chunkings, held);
      if (r->report.n) indent_lines(&b, r->report.p, "# ");
      if (r->latency_report.n) indent_lines(&b, r->latency_report.p, "# ");
      if (r->note) indent_lines(&b, r->note, "# note: ");
    }
  } else if (cf->format == F_JSON) {
    for (int m = 0; m < M_COUNT; m++) {
      const mode_stat *ms = &r->modes[m];
      if (!ms->run && !(m == M_WHOLE && r->chunkings)) continue;
      jsonw w;
      tbuf line = {0};
      jw_init(&w, &line);
      jw_begin_object(&w);
      jw_key(&w, "suite");
      jw_string(&w, c->suite, strlen(c->suite));
      jw_key(&w, "file");
      jw_string(&w, c->file, strlen(c->file));
      jw_key(&w, "case");
      jw_string(&w, c->id, strlen(c->id));
      jw_key(&w, "mode");
      jw_string(&w, split_mode_names[m], strlen(split_mode_names[m]));
      jw_key(&w, "chunkings");
      jw_int(&w, (int64_t)ms->chunkings);
      const char *st = r->status == CASE_SKIP   ? "skip"
                       : r->status == CASE_NOT_RUN ? "not_run"
                       : ms->failed              ? "fail"
                       : ms->latency             ? "latency"
                                                 : "pass";
      jw_key(&w, "status");
      jw_string(&w, st, strlen(st));
      char secs[32];
      snprintf(secs, sizeof secs, "%.6f", ms->seconds);
      jw_key(&w, "seconds");
      jw_raw(&w, secs, strlen(secs));
      if (ms->failed && r->report.n) {
        jw_key(&w, "failure");
        jw_string(&w, r->report.p, r->report.n);
      }
      if (ms->latency && r->latency_report.n) {
        jw_key(&w, "latency");
        jw_string(&w, r->latency_report.p, r->latency_report.n);
      }
      jw_end_object(&w);
      if (w.failed) die("out of memory");
      tbuf_xadd(&b, line.p, line.n);
      tbuf_xadds(&b, "\n");
      tbuf_free(&line);
    }
  }
  if (b.n) fwrite(b.p, 1, b.n, out);
  fflush(out);
  tbuf_free(&b);
}

static int is_error(const case_result *r) {
  return r->summary && (strstr(r->report.p ? r->report.p : "", "impl_died:") ||
                        strstr(r->report.p ? r->report.p : "", "impl_timeout:"));
}

static void write_junit(FILE *out, const conf *cf, const caselist *cl, const case_result *res,
                        double total) {
  tbuf b = {0};
  size_t nf = 0, ne = 0, ns = 0;
  for (size_t i = 0; i < cl->n; i++) {
    if (res[i].status == CASE_SKIP || res[i].status == CASE_NOT_RUN) ns++;
    else if (res[i].status == CASE_FAIL && is_error(&res[i])) ne++;
    else if (res[i].status == CASE_FAIL) nf++;
  }
  char stamp[32];
  time_t now = time(NULL);
  struct tm tmv;
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", gmtime_r(&now, &tmv));
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  tbuf_xprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"sluice "
                   "conform\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                   "time=\"%.3f\">\n",
               cl->n, nf, ne, ns, total);
  for (size_t i = 0; i < cl->n;) {
    size_t j = i, sf = 0, se = 0, ss = 0;
    double st = 0;
    while (j < cl->n && strcmp(cl->v[j].suite, cl->v[i].suite) == 0) {
      const case_result *r = &res[j];
      if (r->status == CASE_SKIP || r->status == CASE_NOT_RUN) ss++;
      else if (r->status == CASE_FAIL && is_error(r)) se++;
      else if (r->status == CASE_FAIL) sf++;
      st += r->seconds;
      j++;
    }
    tbuf_xadds(&b, "  <testsuite name=\"");
    markup_escape(&b, cl->v[i].suite, strlen(cl->v[i].suite));
    tbuf_xprintf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                     "time=\"%.3f\" timestamp=\"%s\" hostname=\"",
                 j - i, sf, se, ss, st, stamp);
    markup_escape(&b, host, strlen(host));
    tbuf_xadds(&b, "\">\n");
    for (size_t k = i; k < j; k++) {
      const tcase *c = &cl->v[k];
      const case_result *r = &res[k];
      tbuf_xadds(&b, "    <testcase classname=\"");
      markup_escape(&b, c->file, strlen(c->file));
      tbuf_xadds(&b, "\" name=\"");
      markup_escape(&b, c->id, strlen(c->id));
      tbuf_xprintf(&b, "\" time=\"%.3f\"", r->seconds);
      if (r->status == CASE_PASS) {
        tbuf_xadds(&b, "/>\n");
        continue;
      }
      tbuf_xadds(&b, ">\n");
      if (r->status == CASE_SKIP || r->status == CASE_NOT_RUN) {
        const char *why = r->status == CASE_NOT_RUN ? "not run (the deadline passed)"
                                                    : r->note ? r->note : "skipped";
        tbuf_xadds(&b, "      <skipped message=\"");
        markup_escape(&b, why, strlen(why));
        tbuf_xadds(&b, "\"/>\n");
      } else {
        const char *tag = is_error(r) ? "error" : "failure";
        const char *msg = r->summary ? r->summary : "latency";
        tbuf_xprintf(&b, "      <%s message=\"", tag);
        markup_escape(&b, msg, strlen(msg));
        tbuf_xprintf(&b, "\" type=\"%s\">", r->report.n ? "output" : "latency");
        if (r->report.n) markup_escape(&b, r->report.p, r->report.n);
        if (r->latency_report.n) markup_escape(&b, r->latency_report.p, r->latency_report.n);
        tbuf_xprintf(&b, "</%s>\n", tag);
      }
      tbuf_xadds(&b, "    </testcase>\n");
    }
    tbuf_xadds(&b, "  </testsuite>\n");
    i = j;
  }
  tbuf_xadds(&b, "</testsuites>\n");
  fwrite(b.p, 1, b.n, out);
  tbuf_free(&b);
  (void)cf;
}

static void print_tables(FILE *tf, const conf *cf, const caselist *cl, const case_result *res) {
  const char *pre = cf->format == F_TAP ? "# " : "";
  for (size_t i = 0; i < cl->n;) {
    size_t j = i;
    while (j < cl->n && strcmp(cl->v[j].filter, cl->v[i].filter) == 0) j++;
    fprintf(tf, "%s\n%sfilter %s (%s): %zu cases\n", pre, pre, cl->v[i].filter,
            cf->impl ? cf->impl : "reference", j - i);
    fprintf(tf, "%s  %-16s %8s %8s %8s %8s\n", pre, "split mode", "cases", "passed", "failed",
            "latency");
    for (int m = 0; m < M_COUNT; m++) {
      size_t run = 0, bad = 0, late = 0;
      for (size_t k = i; k < j; k++) {
        run += res[k].modes[m].run ? 1 : 0;
        bad += res[k].modes[m].failed ? 1 : 0;
        late += res[k].modes[m].latency ? 1 : 0;
      }
      if (split_mode_streams((split_mode)m))
        fprintf(tf, "%s  %-16s %8zu %8zu %8zu %8zu\n", pre, split_mode_names[m], run,
                run - bad - late, bad, late);
      else
        fprintf(tf, "%s  %-16s %8zu %8zu %8zu %8s\n", pre, split_mode_names[m], run, run - bad,
                bad, "");
    }
    i = j;
  }
}

/* ---------------- the run ---------------- */

static void free_conf(conf *cf) {
  idnotes_free(&cf->skips);
  runargs_free(&cf->ra);
}

/* The options, then the cases. -1 to go on, else the exit status. */
static int setup(conf *cf, caselist *cl, int argc, char **argv) {
  memset(cf, 0, sizeof *cf);
  runargs_init(&cf->ra, "conform", argc);
  void *bases[] = {&cf->ra, cf};
  int rc = opt_parse(&conform_cmd, bases, argc, argv, NULL);
  if (rc < 0 && runargs_finish(&cf->ra, cl)) rc = 2;
  if (rc >= 0) return rc;
  cf->co = cf->ra.co;
  cf->jobs = cf->ra.jobs;
  if ((size_t)cf->jobs > cl->n) cf->jobs = (int)cl->n;
  return -1;
}

/* The workers, each with its own implementation process. */
static void start_workers(shared *sh, const conf *cf, const caselist *cl, pthread_t *th,
                          void *(*args)[2]) {
  memset(sh, 0, sizeof *sh);
  sh->cf = cf;
  sh->cl = cl;
  sh->res = xcalloc(cl->n, sizeof *sh->res);
  sh->done = xcalloc(cl->n, sizeof *sh->done);
  pthread_mutex_init(&sh->mu, NULL);
  pthread_cond_init(&sh->cv, NULL);
  sh->targets = xcalloc((size_t)cf->jobs, sizeof *sh->targets);
  for (int j = 0; j < cf->jobs; j++) target_init(&sh->targets[j], cf->impl, &cf->ra.io);
  for (int j = 0; j < cf->jobs; j++) {
    args[j][0] = sh;
    args[j][1] = &sh->targets[j];
    if (pthread_create(&th[j], NULL, worker, args[j])) die("cannot start a worker thread");
  }
}

/* A case listed in --skip: its failure is a skip, and its pass is news. */
static void apply_skip(const conf *cf, const idnote *sk, case_result *r) {
  if (r->status == CASE_FAIL) {
    r->status = CASE_SKIP;
    r->latency_failed = 0;
    tbuf_free(&r->report);
    tbuf_free(&r->latency_report);
    free(r->note);
    tbuf nb = {0};
    tbuf_xprintf(&nb, "known failure (%s): %s", cf->skips.path,
                 *sk->note ? sk->note : "(no reason given)");
    r->note = tbuf_take(&nb, NULL);
  } else if (r->status == CASE_PASS) {
    free(r->note);
    tbuf nb = {0};
    tbuf_xprintf(&nb, "listed in %s as a known failure, but it passes now: remove it",
                 cf->skips.path);
    r->note = tbuf_take(&nb, NULL);
  }
}

typedef struct counts {
  size_t passed, failed, skipped, late, not_run;
} counts;

/* Prints the results in case order as they come in, until the last or a
 * setup error. */
static void collect(shared *sh, const conf *cf, const caselist *cl, FILE *out, counts *k) {
  memset(k, 0, sizeof *k);
  for (size_t i = 0; i < cl->n; i++) {
    pthread_mutex_lock(&sh->mu);
    while (!atomic_load(&sh->done[i]) && !sh->setup_error) pthread_cond_wait(&sh->cv, &sh->mu);
    int setup = sh->setup_error;
    pthread_mutex_unlock(&sh->mu);
    if (setup) break;
    case_result *r = &sh->res[i];
    const tcase *c = &cl->v[i];
    const idnote *sk = idnotes_find(&cf->skips, c);
    if (sk) apply_skip(cf, sk, r);
    if (r->status == CASE_PASS) k->passed++;
    else if (r->status == CASE_FAIL) k->failed++;
    else if (r->status == CASE_SKIP) k->skipped++;
    else k->not_run++;
    if (r->latency_failed && r->status != CASE_SKIP) k->late++;
    print_case(out, cf, c, r, i);
    if (cf->format != F_JUNIT) {
      /* Only JUnit needs the reports at the end. */
      tbuf_free(&r->report);
      tbuf_free(&r->latency_report);
    }
  }
}

/* The closing report: the setup error, or the tables and the closing line.
 * Returns the exit status. */
static int conclude(FILE *out, const conf *cf, const caselist *cl, const shared *sh,
                    const counts *k, double t0) {
  if (sh->setup_error) {
    fflush(out);
    fprintf(stderr, "sluice conform: setup error: %s\n", sh->setup_msg);
    return 2;
  }
  double total = now_seconds() - t0;
  if (cf->format == F_TAP) fprintf(out, "1..%zu\n", cl->n);
  if (cf->format == F_JUNIT) write_junit(out, cf, cl, sh->res, total);
  FILE *tf = (cf->format == F_JUNIT || cf->format == F_JSON) ? stderr : stdout;
  print_tables(tf, cf, cl, sh->res);
  fprintf(tf, "%s\n%s%zu passed, %zu failed", cf->format == F_TAP ? "#" : "",
          cf->format == F_TAP ? "# " : "", k->passed, k->failed);
  if (k->skipped) fprintf(tf, ", %zu skipped", k->skipped);
  if (k->late && cf->co.latency == LAT_WARN) fprintf(tf, ", %zu latency warnings", k->late);
  if (k->not_run) fprintf(tf, ", %zu not run (the deadline passed)", k->not_run);
  fprintf(tf, "\n");
  return (k->failed || k->not_run) ? 1 : 0;
}

int cmd_conform(int argc, char **argv) {
  conf cf;
  caselist cl = {0};
  int rc = setup(&cf, &cl, argc, argv);
  if (rc >= 0) {
    free_conf(&cf);
    caselist_free(&cl);
    return rc;
  }
  signal(SIGPIPE, SIG_IGN);
  json_object_seed(1); /* before any thread builds an object */

  shared sh;
  pthread_t *th = xcalloc((size_t)cf.jobs, sizeof *th);
  void *(*args)[2] = xcalloc((size_t)cf.jobs, sizeof *args);
  double t0 = now_seconds();
  FILE *out = stdout;
  if (cf.format == F_TAP) fprintf(out, "TAP version 13\n");
  start_workers(&sh, &cf, &cl, th, args);
  counts k;
  collect(&sh, &cf, &cl, out, &k);
  atomic_store(&sh.stop, 1);
  for (int j = 0; j < cf.jobs; j++) pthread_join(th[j], NULL);
  for (int j = 0; j < cf.jobs; j++) target_free(&sh.targets[j]);
  rc = conclude(out, &cf, &cl, &sh, &k, t0);
  if (fflush_checked("conform", stdout)) rc = rc ? rc : 1;
  for (size_t i = 0; i < cl.n; i++) case_result_free(&sh.res[i]);
  free(sh.res);
  free((void *)sh.done);
  free(sh.targets);
  free(th);
  free(args);
  free(sh.setup_msg);
  free_conf(&cf);
  caselist_free(&cl);
  return rc;
}
