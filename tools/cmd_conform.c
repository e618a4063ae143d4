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

static const char conform_usage[] =
    "usage: sluice conform [options]\n"
    "\n"
    "Runs the golden conformance suites in every split mode against the reference\n"
    "library, or against COMMAND (--impl), which serves the filter protocol on\n"
    "stdin and stdout (conformance/FORMAT.md). Prints a line per case, a table per\n"
    "filter and split mode, and a closing line \"N passed, N failed\". Exit status:\n"
    "0 all passed, 1 a case failed (or the deadline passed), 2 a usage, suite or\n"
    "setup error (the implementation cannot start, or dies or stays silent before\n"
    "its first answer).\n"
    "\n"
    "Selecting:\n"
    "  --suite NAME        a suite (think) or one file of it (think/anchored.json);\n"
    "                      repeatable; default: every suite\n"
    "  --suites DIR        the suites folder (default: $SLUICE_SUITES, else the\n"
    "                      installed one beside the executable, else the source tree's)\n"
    "  --case TEXT         only cases whose id contains TEXT; repeatable\n"
    "  --skip FILE         known failures: lines \"CASE-ID reason\" (# comments); such a\n"
    "                      case counts as skipped, and one that passes is reported\n"
    "Implementation:\n"
    "  --impl COMMAND      the command to check (run with sh -c, in its own process\n"
    "                      group; its stderr is passed through, capped)\n"
    "  --timeout SECONDS   per request: no answer line within it ends the process\n"
    "                      (default 10); it is restarted for the next request\n"
    "  --max-answer BYTES  longest answer line accepted (default: 8 MiB plus 32\n"
    "                      bytes per input byte of the case)\n"
    "  --impl-stderr BYTES stderr passed through per process (default 65536)\n"
    "  --deadline SECONDS  for the whole run; cases not run by then fail it\n"
    "  -j, --jobs N        cases run on N workers (default: the number of cores)\n"
    "Split modes:\n"
    "  --modes LIST        comma-separated split modes to run (default: all)\n"
    "  --max-exhaustive N  all 2^(n-1) cuttings of inputs up to N bytes (default 16)\n"
    "  --max-pairs N       every pair of cuts for inputs up to N bytes (default 48)\n"
    "  --random N          seeded random cuttings per case (default 32)\n"
    "  --seed N            seed of the random cuttings (default 1)\n"
    "  --latency POLICY    fail (default), warn or off: what a latency failure does\n"
    "                      (the streaming modes compare, after every feed, what was\n"
    "                      released with what the reference releases)\n"
    "Output:\n"
    "  --format FMT        text (default), tap, junit (XML; the table and closing\n"
    "                      line go to stderr) or json (a JSON line per case and split\n"
    "                      mode, with timings; the table goes to stderr)\n"
    "  --full-chunkings    print failing chunkings whole, not shortened\n"
    "  -q, --quiet         print only failures, skips and the tables\n"
    "  -h, --help          this text\n"
    "\n"
    "Split modes: whole, single-cut, pair-cuts, byte-at-a-time, empty-chunks,\n"
    "random, exhaustive, recorded (a case's own \"chunks\"), stream-bytes and\n"
    "stream-random (streaming sessions: latency checked after every feed).\n";

enum fmt { F_TEXT, F_TAP, F_JUNIT, F_JSON };

typedef struct skip_entry {
  char *id, *reason;
} skip_entry;

typedef struct conf {
  check_opts co;
  impl_opts io;
  const char *impl;
  int format, quiet, jobs;
  double deadline_secs;
  int max_answer_set;
  skip_entry *skips;
  size_t nskips;
  const char *skip_file;
} conf;

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

static const skip_entry *find_skip(const conf *cf, const tcase *c) {
  for (size_t i = 0; i < cf->nskips; i++) {
    const char *id = cf->skips[i].id, *slash = strchr(id, '/');
    if (slash ? (strncmp(id, c->suite, (size_t)(slash - id)) == 0 &&
                 strlen(c->suite) == (size_t)(slash - id) && strcmp(slash + 1, c->id) == 0)
              : strcmp(id, c->id) == 0)
      return &cf->skips[i];
  }
  return NULL;
}

static int load_skips(conf *cf, const char *path) {
  tbytes b;
  if (read_file("conform", path, &b, 16 << 20)) return -1;
  char *save = NULL;
  for (char *line = strtok_r(b.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    while (*line == ' ' || *line == '\t') line++;
    if (!*line || *line == '#') continue;
    char *end = line;
    while (*end && *end != ' ' && *end != '\t' && *end != '\r') end++;
    char *reason = end;
    while (*reason == ' ' || *reason == '\t') reason++;
    size_t rl = strlen(reason);
    while (rl && (reason[rl - 1] == '\r' || reason[rl - 1] == ' ')) rl--;
    cf->skips = xrealloc(cf->skips, xmul(cf->nskips + 1, sizeof *cf->skips));
    cf->skips[cf->nskips].id = xstrndup(line, (size_t)(end - line));
    cf->skips[cf->nskips].reason = rl ? xstrndup(reason, rl) : xstrdup("(no reason given)");
    cf->nskips++;
  }
  free(b.p);
  return 0;
}

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

static void xml_escape(tbuf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '<': tbuf_xadds(b, "&lt;"); break;
    case '>': tbuf_xadds(b, "&gt;"); break;
    case '&': tbuf_xadds(b, "&amp;"); break;
    case '"': tbuf_xadds(b, "&quot;"); break;
    default:
      /* XML 1.0 allows no other control characters, even escaped. */
      if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') tbuf_xadds(b, "?");
      else tbuf_xadd(b, s + i, 1);
    }
  }
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
    xml_escape(&b, cl->v[i].suite, strlen(cl->v[i].suite));
    tbuf_xprintf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                     "time=\"%.3f\" timestamp=\"%s\" hostname=\"",
                 j - i, sf, se, ss, st, stamp);
    xml_escape(&b, host, strlen(host));
    tbuf_xadds(&b, "\">\n");
    for (size_t k = i; k < j; k++) {
      const tcase *c = &cl->v[k];
      const case_result *r = &res[k];
      tbuf_xadds(&b, "    <testcase classname=\"");
      xml_escape(&b, c->file, strlen(c->file));
      tbuf_xadds(&b, "\" name=\"");
      xml_escape(&b, c->id, strlen(c->id));
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
        xml_escape(&b, why, strlen(why));
        tbuf_xadds(&b, "\"/>\n");
      } else {
        const char *tag = is_error(r) ? "error" : "failure";
        const char *msg = r->summary ? r->summary : "latency";
        tbuf_xprintf(&b, "      <%s message=\"", tag);
        xml_escape(&b, msg, strlen(msg));
        tbuf_xprintf(&b, "\" type=\"%s\">", r->report.n ? "output" : "latency");
        if (r->report.n) xml_escape(&b, r->report.p, r->report.n);
        if (r->latency_report.n) xml_escape(&b, r->latency_report.p, r->latency_report.n);
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

/* ---------------- arguments ---------------- */

static int parse_modes(const char *list, unsigned *out) {
  *out = 1u << M_WHOLE;
  char *copy = xstrdup(list), *save = NULL;
  int rc = 0;
  for (char *m = strtok_r(copy, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int i = 0; i < M_COUNT; i++)
      if (strcmp(split_mode_names[i], m) == 0) {
        *out |= 1u << i;
        found = 1;
      }
    if (!found) {
      fprintf(stderr, "sluice conform: unknown split mode \"%s\" (see --help)\n", m);
      rc = -1;
    }
  }
  free(copy);
  return rc;
}

static int number_arg(const char *opt, const char *v, uint64_t *out) {
  if (parse_u64(v, out)) {
    fprintf(stderr, "sluice conform: %s needs a number, not \"%s\"\n", opt, v ? v : "");
    return -1;
  }
  return 0;
}

static int parse_args(conf *cf, suite_select *sel, uint64_t *max_answer, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t u;
    int takes = 1;
    if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
      cf->quiet = 1;
      takes = 0;
    } else if (strncmp(a, "-j", 2) == 0 && a[2]) {
      uint64_t u2;
      if (parse_u64(a + 2, &u2) || u2 < 1 || u2 > 256) {
        fprintf(stderr, "sluice conform: -j must be 1 to 256\n");
        return -1;
      }
      cf->jobs = (int)u2;
      takes = 0;
    } else if (strcmp(a, "--full-chunkings") == 0) {
      cf->co.full_chunkings = 1;
      takes = 0;
    } else if (!v) {
      fprintf(stderr, "sluice conform: unknown or incomplete option \"%s\" (see --help)\n", a);
      return -1;
    } else if (strcmp(a, "--suite") == 0) {
      sel->suites[sel->nsuites++] = v;
    } else if (strcmp(a, "--suites") == 0) {
      sel->dir = v;
    } else if (strcmp(a, "--case") == 0) {
      sel->cases[sel->ncases++] = v;
    } else if (strcmp(a, "--impl") == 0) {
      cf->impl = v;
    } else if (strcmp(a, "--skip") == 0) {
      cf->skip_file = v;
      if (load_skips(cf, v)) return -1;
    } else if (strcmp(a, "--format") == 0) {
      if (strcmp(v, "text") == 0) cf->format = F_TEXT;
      else if (strcmp(v, "tap") == 0) cf->format = F_TAP;
      else if (strcmp(v, "junit") == 0) cf->format = F_JUNIT;
      else if (strcmp(v, "json") == 0) cf->format = F_JSON;
      else {
        fprintf(stderr, "sluice conform: --format must be text, tap, junit or json\n");
        return -1;
      }
    } else if (strcmp(a, "--latency") == 0) {
      if (strcmp(v, "fail") == 0) cf->co.latency = LAT_FAIL;
      else if (strcmp(v, "warn") == 0) cf->co.latency = LAT_WARN;
      else if (strcmp(v, "off") == 0) cf->co.latency = LAT_OFF;
      else {
        fprintf(stderr, "sluice conform: --latency must be fail, warn or off\n");
        return -1;
      }
    } else if (strcmp(a, "--modes") == 0) {
      if (parse_modes(v, &cf->co.modes)) return -1;
    } else if (strcmp(a, "--timeout") == 0 || strcmp(a, "--deadline") == 0) {
      char *end;
      double d = strtod(v, &end);
      if (*end || !(d > 0)) {
        fprintf(stderr, "sluice conform: %s needs a positive number of seconds\n", a);
        return -1;
      }
      if (a[2] == 't') cf->io.timeout = d;
      else cf->deadline_secs = d;
    } else {
      if (number_arg(a, v, &u)) return -1;
      if (strcmp(a, "--max-exhaustive") == 0) cf->co.sp.max_exhaustive = (size_t)u;
      else if (strcmp(a, "--max-pairs") == 0) cf->co.sp.max_pairs = (size_t)u;
      else if (strcmp(a, "--random") == 0) cf->co.sp.nrandom = (size_t)u;
      else if (strcmp(a, "--seed") == 0) cf->co.sp.seed = u;
      else if (strcmp(a, "--max-answer") == 0) *max_answer = u;
      else if (strcmp(a, "--impl-stderr") == 0) cf->io.stderr_pass = (size_t)u;
      else if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) {
        if (u < 1 || u > 256) {
          fprintf(stderr, "sluice conform: %s must be 1 to 256\n", a);
          return -1;
        }
        cf->jobs = (int)u;
      } else {
        fprintf(stderr, "sluice conform: unknown option \"%s\" (see --help)\n", a);
        return -1;
      }
    }
    i += takes;
  }
  return 0;
}

static void free_conf(conf *cf) {
  for (size_t i = 0; i < cf->nskips; i++) {
    free(cf->skips[i].id);
    free(cf->skips[i].reason);
  }
  free(cf->skips);
  cf->skips = NULL;
  cf->nskips = 0;
}

int cmd_conform(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    fputs(conform_usage, stdout);
    return 0;
  }
  conf cf;
  memset(&cf, 0, sizeof cf);
  check_opts_default(&cf.co);
  cf.io.timeout = 10;
  cf.io.stderr_pass = 65536;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  cf.jobs = ncpu > 0 ? (int)ncpu : 1;
  const char **suites = xcalloc((size_t)argc, sizeof *suites);
  const char **cases = xcalloc((size_t)argc, sizeof *cases);
  suite_select sel = {NULL, suites, 0, cases, 0};
  uint64_t max_answer = 0;
  int bad = parse_args(&cf, &sel, &max_answer, argc, argv);
  caselist cl = {0};
  if (!bad) {
    if (!sel.dir) sel.dir = suites_dir_default(SLUICE_SUITES_DIR);
    bad = suites_load(&cl, &sel, "conform");
    if (!bad && cl.n == 0) {
      fprintf(stderr, "sluice conform: no cases selected in %s\n", sel.dir);
      bad = 1;
    }
  }
  free(suites);
  free(cases);
  if (bad) {
    free_conf(&cf);
    caselist_free(&cl);
    return 2;
  }
  size_t largest = 0;
  for (size_t i = 0; i < cl.n; i++)
    if (cl.v[i].input.n > largest) largest = cl.v[i].input.n;
  cf.io.max_line = max_answer ? (size_t)max_answer : ((size_t)8 << 20) + 32 * largest;
  if (cf.deadline_secs > 0) cf.co.deadline = now_seconds() + cf.deadline_secs;
  if ((size_t)cf.jobs > cl.n) cf.jobs = (int)cl.n;
  signal(SIGPIPE, SIG_IGN);
  json_object_seed(1); /* before any thread builds an object */

  shared sh;
  memset(&sh, 0, sizeof sh);
  sh.cf = &cf;
  sh.cl = &cl;
  sh.res = xcalloc(cl.n, sizeof *sh.res);
  sh.done = xcalloc(cl.n, sizeof *sh.done);
  pthread_mutex_init(&sh.mu, NULL);
  pthread_cond_init(&sh.cv, NULL);
  sh.targets = xcalloc((size_t)cf.jobs, sizeof *sh.targets);
  for (int j = 0; j < cf.jobs; j++) target_init(&sh.targets[j], cf.impl, &cf.io);
  double t0 = now_seconds();
  FILE *out = stdout;
  if (cf.format == F_TAP) fprintf(out, "TAP version 13\n");
  pthread_t *th = xcalloc((size_t)cf.jobs, sizeof *th);
  void *(*args)[2] = xcalloc((size_t)cf.jobs, sizeof *args);
  for (int j = 0; j < cf.jobs; j++) {
    args[j][0] = &sh;
    args[j][1] = &sh.targets[j];
    if (pthread_create(&th[j], NULL, worker, args[j])) die("cannot start a worker thread");
  }
  /* Print in case order as results come in. */
  size_t passed = 0, failed = 0, skipped = 0, late = 0, not_run = 0;
  for (size_t i = 0; i < cl.n; i++) {
    pthread_mutex_lock(&sh.mu);
    while (!atomic_load(&sh.done[i]) && !sh.setup_error) pthread_cond_wait(&sh.cv, &sh.mu);
    int setup = sh.setup_error;
    pthread_mutex_unlock(&sh.mu);
    if (setup) break;
    case_result *r = &sh.res[i];
    const tcase *c = &cl.v[i];
    const skip_entry *sk = find_skip(&cf, c);
    if (sk) {
      if (r->status == CASE_FAIL) {
        r->status = CASE_SKIP;
        r->latency_failed = 0;
        tbuf_free(&r->report);
        tbuf_free(&r->latency_report);
        free(r->note);
        tbuf nb = {0};
        tbuf_xprintf(&nb, "known failure (%s): %s", cf.skip_file, sk->reason);
        r->note = tbuf_take(&nb, NULL);
      } else if (r->status == CASE_PASS) {
        free(r->note);
        tbuf nb = {0};
        tbuf_xprintf(&nb, "listed in %s as a known failure, but it passes now: remove it",
                     cf.skip_file);
        r->note = tbuf_take(&nb, NULL);
      }
    }
    if (r->status == CASE_PASS) passed++;
    else if (r->status == CASE_FAIL) failed++;
    else if (r->status == CASE_SKIP) skipped++;
    else not_run++;
    if (r->latency_failed && r->status != CASE_SKIP) late++;
    print_case(out, &cf, c, r, i);
    if (cf.format != F_JUNIT) {
      /* Only JUnit needs the reports at the end. */
      tbuf_free(&r->report);
      tbuf_free(&r->latency_report);
    }
  }
  atomic_store(&sh.stop, 1);
  for (int j = 0; j < cf.jobs; j++) pthread_join(th[j], NULL);
  for (int j = 0; j < cf.jobs; j++) target_free(&sh.targets[j]);
  int rc;
  if (sh.setup_error) {
    fflush(out);
    fprintf(stderr, "sluice conform: setup error: %s\n", sh.setup_msg);
    rc = 2;
  } else {
    double total = now_seconds() - t0;
    if (cf.format == F_TAP) fprintf(out, "1..%zu\n", cl.n);
    if (cf.format == F_JUNIT) write_junit(out, &cf, &cl, sh.res, total);
    FILE *tf = (cf.format == F_JUNIT || cf.format == F_JSON) ? stderr : stdout;
    print_tables(tf, &cf, &cl, sh.res);
    fprintf(tf, "%s\n%s%zu passed, %zu failed", cf.format == F_TAP ? "#" : "",
            cf.format == F_TAP ? "# " : "", passed, failed);
    if (skipped) fprintf(tf, ", %zu skipped", skipped);
    if (late && cf.co.latency == LAT_WARN) fprintf(tf, ", %zu latency warnings", late);
    if (not_run) fprintf(tf, ", %zu not run (the deadline passed)", not_run);
    fprintf(tf, "\n");
    rc = (failed || not_run) ? 1 : 0;
  }
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
