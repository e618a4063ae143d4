/*
 * runargs.c: the options shared by the runners.
 */
#include "runargs.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char runargs_usage[] =
    "Selecting:\n"
    "  --suite NAME        a suite (think) or one file of it (think/anchored.json);\n"
    "                      repeatable; default: every suite\n"
    "  --suites DIR        the suites folder (default: $SLUICE_SUITES, else the\n"
    "                      installed one beside the executable, else the source tree's)\n"
    "  --case TEXT         only cases whose id contains TEXT; repeatable\n"
    "Running an implementation:\n"
    "  --timeout SECONDS   per request: no answer line within it ends the process\n"
    "                      (default 10); it is restarted for the next request\n"
    "  --max-answer BYTES  longest answer line accepted (default: 8 MiB plus 32\n"
    "                      bytes per input byte of the largest case)\n"
    "  --impl-stderr BYTES stderr passed through per process (default 65536)\n"
    "  --deadline SECONDS  for the whole run; what is not run by then fails it\n"
    "  -j, --jobs N        run on N workers, each with its own process (default:\n"
    "                      the number of cores)\n"
    "Split modes:\n"
    "  --modes LIST        comma-separated split modes to run (default: all)\n"
    "  --max-exhaustive N  all 2^(n-1) cuttings of inputs up to N bytes (default 16)\n"
    "  --max-pairs N       every pair of cuts for inputs up to N bytes (default 48)\n"
    "  --random N          seeded random cuttings per case (default 32)\n"
    "  --seed N            seed of the random cuttings (default 1)\n"
    "  --full-chunkings    print failing chunkings whole, not shortened\n";

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
  free((void *)ra->sel.suites);
  free((void *)ra->sel.cases);
  ra->sel.suites = ra->sel.cases = NULL;
}

static int parse_modes(const runargs *ra, const char *list, unsigned *out) {
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
      fprintf(stderr, "sluice %s: unknown split mode \"%s\" (see --help)\n", ra->cmd, m);
      rc = -1;
    }
  }
  free(copy);
  return rc;
}

static int jobs_arg(runargs *ra, const char *opt, const char *v) {
  uint64_t u;
  if (parse_u64(v, &u) || u < 1 || u > 256) {
    fprintf(stderr, "sluice %s: %s must be 1 to 256\n", ra->cmd, opt);
    return -1;
  }
  ra->jobs = (int)u;
  return 1;
}

int runargs_parse(runargs *ra, int argc, char **argv, int *i) {
  const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  if (strncmp(a, "-j", 2) == 0 && a[2]) return jobs_arg(ra, "-j", a + 2);
  if (strcmp(a, "--full-chunkings") == 0) {
    ra->co.full_chunkings = 1;
    return 1;
  }
  static const char *const valued[] = {"--suite",   "--suites",     "--case",       "--modes",
                                       "--timeout", "--deadline",   "--max-answer", "--impl-stderr",
                                       "-j",        "--jobs",       "--max-exhaustive",
                                       "--max-pairs", "--random",   "--seed"};
  int known = 0;
  for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !known; k++)
    known = strcmp(a, valued[k]) == 0;
  if (!known) return 0;
  if (!v) {
    fprintf(stderr, "sluice %s: %s needs a value (see --help)\n", ra->cmd, a);
    return -1;
  }
  (*i)++;
  if (strcmp(a, "--suite") == 0) {
    ra->sel.suites[ra->sel.nsuites++] = v;
  } else if (strcmp(a, "--suites") == 0) {
    ra->sel.dir = v;
  } else if (strcmp(a, "--case") == 0) {
    ra->sel.cases[ra->sel.ncases++] = v;
  } else if (strcmp(a, "--modes") == 0) {
    if (parse_modes(ra, v, &ra->co.modes)) return -1;
  } else if (strcmp(a, "--timeout") == 0 || strcmp(a, "--deadline") == 0) {
    char *end;
    double d = strtod(v, &end);
    if (*end || !(d > 0)) {
      fprintf(stderr, "sluice %s: %s needs a positive number of seconds\n", ra->cmd, a);
      return -1;
    }
    if (a[2] == 't') ra->io.timeout = d;
    else ra->deadline_secs = d;
  } else if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) {
    return jobs_arg(ra, a, v);
  } else {
    uint64_t u;
    if (parse_u64(v, &u)) {
      fprintf(stderr, "sluice %s: %s needs a number, not \"%s\"\n", ra->cmd, a, v);
      return -1;
    }
    if (strcmp(a, "--max-exhaustive") == 0) ra->co.sp.max_exhaustive = (size_t)u;
    else if (strcmp(a, "--max-pairs") == 0) ra->co.sp.max_pairs = (size_t)u;
    else if (strcmp(a, "--random") == 0) ra->co.sp.nrandom = (size_t)u;
    else if (strcmp(a, "--seed") == 0) ra->co.sp.seed = u;
    else if (strcmp(a, "--max-answer") == 0) ra->max_answer = u;
    else ra->io.stderr_pass = (size_t)u;
  }
  return 1;
}

int runargs_finish(runargs *ra, caselist *cl, const char *tree_dir) {
  if (!ra->sel.dir) ra->sel.dir = suites_dir_default(tree_dir);
  /* "--suite captures" names the captures: with no other suite, only they */
  size_t named = ra->sel.nsuites, kept = 0;
  for (size_t i = 0; i < named; i++)
    if (!ra->ncaptures || strcmp(ra->sel.suites[i], "captures") != 0)
      ra->sel.suites[kept++] = ra->sel.suites[i];
  ra->sel.nsuites = kept;
  if ((kept || !named) && suites_load(cl, &ra->sel, ra->cmd)) return -1;
  for (size_t i = 0; i < ra->ncaptures; i++)
    if (captures_load(cl, ra->captures[i], &ra->sel, ra->cmd)) return -1;
  if (cl->n == 0) {
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
