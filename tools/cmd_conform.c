/*
 * cmd_conform.c: `sluice conform`, the conformance runner: the golden
 * suites, in every split mode, against the reference library or any
 * command that serves the filter protocol. Its exit code gates CI.
 *
 * Cases run on -j worker threads, each with its own implementation
 * process; results are printed in case order as they complete (in the
 * formats of common/report.c), and each case's answers are compared as they
 * arrive (common/check.c), so memory stays bounded whatever the size of a
 * case.
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

#include "common/progress.h"
#include "common/report.h"

typedef struct conf {
  runargs ra; /* the options shared with sluice diff */
  check_opts co;
  const char *impl;
  const char *write_skip;
  int format, quiet, jobs;
  idnotes skips;
} conf;

/* ---------------- options ---------------- */

static int skip_arg(void *base, const char *path, char *why, size_t wl) {
  (void)why, (void)wl; /* idnotes_load names the file and the line */
  return idnotes_load(&((conf *)base)->skips, "conform", path);
}

static const char *const latencies[] = {"off", "warn", "fail", NULL}; /* enum latency_policy */

static const opt conform_options[] = {
    {.kind = OPT_SECTION, .help = "Known failures"},
    {"skip", 0, "FILE", OPT_CALL, 0, .fn = skip_arg,
     .help = "lines \"CASE-ID reason\" or \"CASE-ID@MODE,MODE reason\" (# comments; SUITE/CASE-ID "
             "too): a listed case counts as skipped, a listed split mode's failure as known; one "
             "that passes is reported"},
    {"write-skip", 0, "FILE", OPT_STRING, OPT_AT(conf, write_skip, const char *),
     .help = "write the skip file of this run's failures to FILE (each case with its failing "
             "split modes), for --skip"},
    {.kind = OPT_SECTION, .help = "Implementation"},
    {"impl", 0, "COMMAND", OPT_STRING, OPT_AT(conf, impl, const char *),
     .help = "the command to check (run with sh -c, in its own process group; its stderr is "
             "passed through, capped)"},
    {"latency", 0, "POLICY", OPT_CHOICE, OPT_AT(conf, ra.co.latency, int), .choices = latencies,
     .help = "fail (default), warn or off: what a latency failure does (the streaming modes "
             "compare, after every feed, what was released with what the reference releases)"},
    {.kind = OPT_SECTION, .help = "Output"},
    {"format", 0, "FMT", OPT_CHOICE, OPT_AT(conf, format, int), .choices = report_format_names,
     .help = "text (default), tap, junit (XML; the table and closing line go to stderr) or "
             "json (a run record, then a record per case and split mode with its fields: "
             "status, kind, field, expected, actual, feed, chunks; the table goes to stderr)"},
    {"quiet", 'q', NULL, OPT_FLAG, OPT_AT(conf, quiet, int),
     .help = "print only failures, skips and the tables; no progress line"},
    {0}};

static const opt_cmd conform_cmd = {
    .name = "conform",
    .synopsis = "[options]",
    .intro =
        "Runs the golden conformance suites in every split mode against the reference\n"
        "library, or against COMMAND (--impl), which serves the filter protocol on\n"
        "stdin and stdout (conformance/FORMAT.md). Prints a line per case, a table per\n"
        "filter and split mode, and a closing line \"N passed, N failed\"; a progress\n"
        "line on stderr when it is a terminal. Exit status: 0 all passed, 1 a case\n"
        "failed (or the deadline passed, or --max-failures stopped the run), 2 a usage,\n"
        "suite or setup error (the implementation cannot start, or dies or stays\n"
        "silent before its first answer).\n",
    .outro = "Split modes: whole, single-cut, pair-cuts, byte-at-a-time, empty-chunks,\n"
             "random, exhaustive, recorded (a case's own \"chunks\"), stream-bytes and\n"
             "stream-random (streaming sessions: latency checked after every feed).\n",
    .tables = {runargs_options, select_options, conform_options},
};

typedef struct shared {
  const conf *cf;
  const caselist *cl;
  case_result *res;
  char **skiplines; /* --write-skip: each failed case's line, before --skip applies */
  atomic_int *done;
  atomic_size_t next, ndone, nfailed;
  atomic_int stop, max_reached;
  _Atomic int sessions; /* enum session_support, for every worker's target */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  target *targets;
  int setup_error;
  char *setup_msg;
} shared;

/* A case listed in --skip: its failure is a skip (or a split mode's is
 * known), and its pass is news. */
static void known_failures(shared *sh, size_t i) {
  const conf *cf = sh->cf;
  case_result *r = &sh->res[i];
  if (cf->write_skip) {
    tbuf b = {0};
    skip_line(&sh->cl->v[i], r, &b);
    sh->skiplines[i] = b.n ? tbuf_take(&b, NULL) : NULL;
    tbuf_free(&b);
  }
  skip_entry e;
  if (skip_find(&cf->skips, &sh->cl->v[i], &e, "conform") > 0)
    skip_apply(&e, cf->skips.path, r, cf->co.latency);
}

/* One case, or none: the deadline passed, or --max-failures was reached. */
static void run_one(shared *sh, target *t, size_t i) {
  const conf *cf = sh->cf;
  case_result *r = &sh->res[i];
  size_t max = cf->ra.max_failures;
  if ((cf->co.deadline && now_seconds() > cf->co.deadline) ||
      (max && atomic_load(&sh->nfailed) >= max)) {
    memset(r, 0, sizeof *r);
    r->status = CASE_NOT_RUN;
    if (max && atomic_load(&sh->nfailed) >= max) atomic_store(&sh->max_reached, 1);
    return;
  }
  check_case(t, &sh->cl->v[i], &cf->co, r);
  known_failures(sh, i);
  if (r->status == CASE_FAIL) atomic_fetch_add(&sh->nfailed, 1);
}

static void *worker(void *arg) {
  shared *sh = ((void **)arg)[0];
  target *t = ((void **)arg)[1];
  for (;;) {
    if (atomic_load(&sh->stop)) break;
    size_t i = atomic_fetch_add(&sh->next, 1);
    if (i >= sh->cl->n) break;
    run_one(sh, t, i);
    pthread_mutex_lock(&sh->mu);
    if (t->setup_error && !sh->setup_error) {
      sh->setup_error = 1;
      sh->setup_msg = xstrdup(t->setup_msg.p ? t->setup_msg.p : "setup error");
      atomic_store(&sh->stop, 1);
    }
    atomic_store(&sh->done[i], 1);
    atomic_fetch_add(&sh->ndone, 1);
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
  }
  pthread_mutex_lock(&sh->mu);
  pthread_cond_broadcast(&sh->cv);
  pthread_mutex_unlock(&sh->mu);
  return NULL;
}

/* ---------------- output ---------------- */

static void print_tables(FILE *tf, const conf *cf, const caselist *cl, const case_result *res) {
  const char *pre = cf->format == RF_TAP ? "# " : "";
  for (size_t i = 0; i < cl->n;) {
    size_t j = i, skipped = 0;
    while (j < cl->n && strcmp(cl->v[j].filter, cl->v[i].filter) == 0) j++;
    fprintf(tf, "%s\n%sfilter %s (%s): %zu cases\n", pre, pre, cl->v[i].filter,
            cf->impl ? cf->impl : "reference", j - i);
    fprintf(tf, "%s  %-16s %8s %8s %8s %8s\n", pre, "split mode", "cases", "passed", "failed",
            "latency");
    for (int m = 0; m < M_COUNT; m++) {
      size_t run = 0, bad = 0, late = 0;
      for (size_t k = i; k < j; k++) {
        const mode_stat *ms = &res[k].modes[m];
        run += ms->run ? 1 : 0;
        bad += ms->run && ms->failed && !ms->known ? 1 : 0;
        late += ms->run && !ms->failed && ms->latency && !ms->known ? 1 : 0;
        skipped += ms->skipped ? 1 : 0;
      }
      if (split_mode_streams((split_mode)m))
        fprintf(tf, "%s  %-16s %8zu %8zu %8zu %8zu\n", pre, split_mode_names[m], run,
                run - bad - late, bad, late);
      else
        fprintf(tf, "%s  %-16s %8zu %8zu %8zu %8s\n", pre, split_mode_names[m], run, run - bad,
                bad, "");
    }
    if (skipped)
      fprintf(tf, "%s  (%zu streaming modes skipped: the implementation answered \"unsupported\" "
                  "to a streaming request)\n", pre, skipped);
    i = j;
  }
}

static void free_conf(conf *cf) {
  idnotes_free(&cf->skips);
  runargs_free(&cf->ra);
}

/* The options, then the cases. -1 to go on, else the exit status. */
static int setup(conf *cf, caselist *cl, int argc, char **argv) {
  memset(cf, 0, sizeof *cf);
  runargs_init(&cf->ra, "conform", argc);
  void *bases[] = {&cf->ra, &cf->ra.filter, cf};
  int rc = opt_parse(&conform_cmd, bases, argc, argv, NULL);
  if (rc < 0 && runargs_finish(&cf->ra, cl)) rc = 2;
  for (size_t i = 0; rc < 0 && i < cl->n; i++) {
    skip_entry e; /* the split modes of the skip file, checked before the run */
    if (skip_find(&cf->skips, &cl->v[i], &e, "conform") < 0) rc = 2;
  }
  if (rc >= 0) return rc;
  cf->co = cf->ra.co;
  cf->jobs = cf->ra.jobs;
  if ((size_t)cf->jobs > cl->n) cf->jobs = (int)cl->n;
  return -1;
}

/* The workers, each with its own implementation process, all sharing what
 * the implementation has shown of streaming sessions. */
static void start_workers(shared *sh, conf *cf, const caselist *cl, pthread_t *th,
                          void *(*args)[2]) {
  memset(sh, 0, sizeof *sh);
  sh->cf = cf;
  sh->cl = cl;
  sh->res = xcalloc(cl->n ? cl->n : 1, sizeof *sh->res);
  sh->skiplines = xcalloc(cl->n ? cl->n : 1, sizeof *sh->skiplines);
  sh->done = xcalloc(cl->n ? cl->n : 1, sizeof *sh->done);
  pthread_mutex_init(&sh->mu, NULL);
  pthread_cond_init(&sh->cv, NULL);
  cf->co.sessions = &sh->sessions;
  sh->targets = xcalloc((size_t)cf->jobs + 1, sizeof *sh->targets);
  for (int j = 0; j < cf->jobs; j++) target_init(&sh->targets[j], cf->impl, &cf->ra.io);
  for (int j = 0; j < cf->jobs; j++) {
    args[j][0] = sh;
    args[j][1] = &sh->targets[j];
    if (pthread_create(&th[j], NULL, worker, args[j])) die("cannot start a worker thread");
  }
}

typedef struct counts {
  size_t passed, failed, skipped, late, not_run;
} counts;

/* Waits for case i, drawing the progress line meanwhile. 0 after a setup
 * error. */
static int wait_for(shared *sh, size_t i, progress *pg) {
  pthread_mutex_lock(&sh->mu);
  while (!atomic_load(&sh->done[i]) && !sh->setup_error) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 250 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&sh->cv, &sh->mu, &ts);
    progress_update(pg, atomic_load(&sh->ndone), atomic_load(&sh->nfailed));
  }
  int ok = !sh->setup_error;
  pthread_mutex_unlock(&sh->mu);
  return ok;
}

/* Prints the results in case order as they come in, until the last or a
 * setup error. */
static void collect(shared *sh, const report_run *rr, FILE *out, counts *k) {
  memset(k, 0, sizeof *k);
  progress pg;
  progress_init(&pg, "conform", "cases", rr->cl->n, rr->quiet);
  for (size_t i = 0; i < rr->cl->n; i++) {
    if (!wait_for(sh, i, &pg)) break;
    case_result *r = &sh->res[i];
    if (r->status == CASE_PASS) k->passed++;
    else if (r->status == CASE_FAIL) k->failed++;
    else if (r->status == CASE_SKIP) k->skipped++;
    else k->not_run++;
    if (r->latency_failed && r->status != CASE_SKIP) k->late++;
    progress_clear(&pg);
    report_case(rr, out, &rr->cl->v[i], r, i);
    /* Only JUnit needs the reports at the end. */
    if (rr->format != RF_JUNIT) case_result_drop_reports(r);
  }
  progress_clear(&pg);
}

/* --write-skip: the failures of the run, as a skip file. -1 after a
 * message. */
static int write_skip_file(const shared *sh, const conf *cf, const caselist *cl) {
  FILE *f = fopen(cf->write_skip, "w");
  if (!f) {
    fprintf(stderr, "sluice conform: %s: %s\n", cf->write_skip, strerror(errno));
    return -1;
  }
  tbuf b = {0};
  suites_describe(cl, &b);
  fprintf(f, "# the failures of sluice conform%s%s (suites %s), for --skip:\n"
             "# CASE-ID[@SPLIT-MODES] what failed\n",
          cf->impl ? " --impl " : "", cf->impl ? cf->impl : "", b.p);
  tbuf_free(&b);
  for (size_t i = 0; i < cl->n; i++)
    if (sh->skiplines[i]) fputs(sh->skiplines[i], f);
  int rc = fclose(f) == 0 ? 0 : -1;
  if (rc) fprintf(stderr, "sluice conform: %s: %s\n", cf->write_skip, strerror(errno));
  return rc;
}

/* The run-level notes: what the implementation showed of streaming
 * sessions, why cases were not run. */
static void print_notes(FILE *tf, const conf *cf, const shared *sh, const counts *k) {
  const char *pre = cf->format == RF_TAP ? "# " : "";
  if (atomic_load(&sh->sessions) == SESSIONS_ABSENT)
    fprintf(tf, "%s\n%snote: %s\n", pre, pre, session_absent_message);
  if (atomic_load(&sh->max_reached))
    fprintf(tf, "%s\n%snote: stopped after %zu failed cases (--max-failures); %zu cases not "
                "run\n", pre, pre, cf->ra.max_failures, k->not_run);
}

/* The closing report: the setup error, or the tables and the closing line.
 * Returns the exit status. */
static int conclude(FILE *out, const report_run *rr, const conf *cf, const shared *sh,
                    const counts *k, double t0) {
  if (sh->setup_error) {
    fflush(out);
    fprintf(stderr, "sluice conform: setup error: %s\n", sh->setup_msg);
    return 2;
  }
  double total = now_seconds() - t0;
  const caselist *cl = rr->cl;
  if (cf->format == RF_TAP) fprintf(out, "1..%zu\n", cl->n);
  if (cf->format == RF_JUNIT) report_junit(rr, out, sh->res, total);
  FILE *tf = (cf->format == RF_JUNIT || cf->format == RF_JSON) ? stderr : stdout;
  print_notes(tf, cf, sh, k);
  print_tables(tf, cf, cl, sh->res);
  fprintf(tf, "%s\n", cf->format == RF_TAP ? "#" : "");
  report_suites_line(rr, tf);
  fprintf(tf, "%s%zu passed, %zu failed", cf->format == RF_TAP ? "# " : "", k->passed,
          k->failed);
  if (k->skipped) fprintf(tf, ", %zu skipped", k->skipped);
  if (k->late && cf->co.latency == LAT_WARN) fprintf(tf, ", %zu latency warnings", k->late);
  if (k->not_run)
    fprintf(tf, ", %zu not run (%s)", k->not_run,
            atomic_load(&sh->max_reached) ? "--max-failures" : "the deadline passed");
  fprintf(tf, "\n");
  int rc = (k->failed || k->not_run) ? 1 : 0;
  if (cf->write_skip && write_skip_file(sh, cf, cl)) rc = 2;
  return rc;
}

static void free_shared(shared *sh, const caselist *cl) {
  for (size_t i = 0; i < cl->n; i++) {
    case_result_free(&sh->res[i]);
    free(sh->skiplines[i]);
  }
  free(sh->res);
  free(sh->skiplines);
  free((void *)sh->done);
  free(sh->targets);
  free(sh->setup_msg);
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
  report_run rr = {"conform", cf.impl, &cl, cf.format, cf.quiet, cf.co.latency};
  shared sh;
  pthread_t *th = xcalloc((size_t)cf.jobs + 1, sizeof *th);
  void *(*args)[2] = xcalloc((size_t)cf.jobs + 1, sizeof *args);
  double t0 = now_seconds();
  FILE *out = stdout;
  report_begin(&rr, out);
  start_workers(&sh, &cf, &cl, th, args);
  counts k;
  collect(&sh, &rr, out, &k);
  atomic_store(&sh.stop, 1);
  for (int j = 0; j < cf.jobs; j++) pthread_join(th[j], NULL);
  for (int j = 0; j < cf.jobs; j++) target_free(&sh.targets[j]);
  rc = conclude(out, &rr, &cf, &sh, &k, t0);
  if (fflush_checked("conform", stdout)) rc = rc ? rc : 1;
  free_shared(&sh, &cl);
  free(th);
  free(args);
  free_conf(&cf);
  caselist_free(&cl);
  return rc;
}
