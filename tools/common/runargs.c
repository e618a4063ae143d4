/*
 * runargs.c: the options shared by the runners, declared once for both.
 */
#include "runargs.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void runargs_init(runargs *ra, const char *cmd, int argc) {
  memset(ra, 0, sizeof *ra);
  ra->cmd = cmd;
  check_opts_default(&ra->co);
  ra->io.timeout = 10;
  ra->io.stderr_pass = 65536;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  ra->jobs = ncpu > 0 ? (int)ncpu : 1;
  ra->sel.suites = xcalloc((size_t)argc + 1, sizeof *ra->sel.suites);
  ra->sel.cases = xcalloc((size_t)argc + 1, sizeof *ra->sel.cases);
}

void runargs_free(runargs *ra) {
  case_filter_free(&ra->filter);
  free((void *)ra->sel.suites);
  free((void *)ra->sel.cases);
  ra->sel.suites = ra->sel.cases = NULL;
}

/* --modes LIST: the whole input always, and each mode named. */
static int modes_arg(void *base, const char *list, char *why, size_t wl) {
  runargs *ra = base;
  unsigned modes = 1u << M_WHOLE;
  char *copy = xstrdup(list), *save = NULL;
  int rc = 0;
  for (char *m = strtok_r(copy, ",", &save); m && !rc; m = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int i = 0; i < M_COUNT; i++)
      if (strcmp(split_mode_names[i], m) == 0) {
        modes |= 1u << i;
        found = 1;
      }
    if (!found) {
      snprintf(why, wl, "unknown split mode \"%.60s\" (see --help)", m);
      rc = -1;
    }
  }
  free(copy);
  if (!rc) ra->co.modes = modes;
  return rc;
}

/* --suite and --case: repeatable (runargs_init made room for every word). */
static int suite_arg(void *base, const char *v, char *why, size_t wl) {
  runargs *ra = base;
  (void)why, (void)wl;
  ra->sel.suites[ra->sel.nsuites++] = v;
  return 0;
}

static int case_arg(void *base, const char *v, char *why, size_t wl) {
  runargs *ra = base;
  (void)why, (void)wl;
  ra->sel.cases[ra->sel.ncases++] = v;
  return 0;
}

const opt runargs_options[] = {
    {.kind = OPT_SECTION, .help = "Selecting"},
    {"suite", 0, "NAME", OPT_CALL, 0, .fn = suite_arg,
     .help = "a suite (think) or one file of it (think/anchored.json); repeatable; default: "
             "every suite"},
    {"suites", 0, "DIR", OPT_STRING, OPT_AT(runargs, sel.dir, const char *),
     .help = "the suites folder (default: $SLUICE_SUITES, else the installed one beside the "
             "executable, else the source tree's)"},
    {"case", 0, "TEXT", OPT_CALL, 0, .fn = case_arg,
     .help = "only cases whose id contains TEXT; repeatable"},
    {.kind = OPT_SECTION, .help = "Running an implementation"},
    {"timeout", 0, "SECONDS", OPT_POSITIVE, OPT_AT(runargs, io.timeout, double),
     .help = "per request: no answer line within it ends the process (default 10); it is "
             "restarted for the next request"},
    {"max-answer", 0, "BYTES", OPT_U64, OPT_AT(runargs, max_answer, uint64_t),
     .help = "longest answer line accepted (default: 8 MiB plus 32 bytes per input byte of "
             "the largest case)"},
    {"impl-stderr", 0, "BYTES", OPT_SIZE, OPT_AT(runargs, io.stderr_pass, size_t),
     .help = "stderr passed through per process (default 65536)"},
    {"deadline", 0, "SECONDS", OPT_POSITIVE, OPT_AT(runargs, deadline_secs, double),
     .help = "for the whole run; what is not run by then fails it"},
    {"max-failures", 0, "N", OPT_SIZE, OPT_AT(runargs, max_failures, size_t), .min = 1,
     .help = "stop after N failed cases (the rest is not run, and says so)"},
    {"jobs", 'j', "N", OPT_INT, OPT_AT(runargs, jobs, int), .min = 1, .max = 256,
     .help = "run on N workers, each with its own process (default: the number of cores)"},
    {.kind = OPT_SECTION, .help = "Split modes"},
    {"modes", 0, "LIST", OPT_CALL, 0, .fn = modes_arg,
     .help = "comma-separated split modes to run (default: all)"},
    {"max-exhaustive", 0, "N", OPT_SIZE, OPT_AT(runargs, co.sp.max_exhaustive, size_t),
     .help = "all 2^(n-1) cuttings of inputs up to N bytes (default 16)"},
    {"max-pairs", 0, "N", OPT_SIZE, OPT_AT(runargs, co.sp.max_pairs, size_t),
     .help = "every pair of cuts for inputs up to N bytes (default 48)"},
    {"random", 0, "N", OPT_SIZE, OPT_AT(runargs, co.sp.nrandom, size_t),
     .help = "seeded random cuttings per case (default 32)"},
    {"seed", 0, "N", OPT_U64, OPT_AT(runargs, co.sp.seed, uint64_t),
     .help = "seed of the random cuttings (default 1)"},
    {"full-chunkings", 0, NULL, OPT_FLAG, OPT_AT(runargs, co.full_chunkings, int),
     .help = "print failing chunkings whole, not shortened"},
    {0}};

int runargs_finish(runargs *ra, caselist *cl) {
  if (!ra->sel.dir) ra->sel.dir = suites_dir_default();
  if (!ra->sel.dir) {
    fprintf(stderr, "sluice %s: no suites folder: this sluice is neither installed nor in its "
                    "build folder; give --suites DIR or set SLUICE_SUITES\n", ra->cmd);
    return -1;
  }
  /* "--suite captures" names the captures: with no other suite, only they */
  size_t named = ra->sel.nsuites, kept = 0;
  for (size_t i = 0; i < named; i++)
    if (!ra->ncaptures || strcmp(ra->sel.suites[i], "captures") != 0)
      ra->sel.suites[kept++] = ra->sel.suites[i];
  ra->sel.nsuites = kept;
  if ((kept || !named) && suites_load(cl, &ra->sel, ra->cmd)) return -1;
  for (size_t i = 0; i < ra->ncaptures; i++)
    if (captures_load(cl, ra->captures[i], &ra->sel, ra->cmd)) return -1;
  size_t loaded = cl->n;
  if (caselist_select(cl, &ra->filter, ra->cmd)) return -1;
  /* a shard of a small run may be empty: that is no error */
  if (cl->n == 0 && !(loaded && ra->filter.shard_n)) {
    fprintf(stderr, "sluice %s: no cases selected in %s\n", ra->cmd, ra->sel.dir);
    return -1;
  }
  size_t largest = 0;
  for (size_t i = 0; i < cl->n; i++)
    if (cl->v[i].input.n > largest) largest = cl->v[i].input.n;
  ra->io.max_line = ra->max_answer ? (size_t)ra->max_answer : ((size_t)8 << 20) + 32 * largest;
  if (ra->deadline_secs > 0) ra->co.deadline = now_seconds() + ra->deadline_secs;
  return 0;
}
