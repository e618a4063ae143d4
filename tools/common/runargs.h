/*
 * runargs.h: the options `sluice conform` and `sluice diff` share (which
 * cases, which split modes, how an implementation is run), parsed in one
 * place so both commands read them the same way.
 */
#ifndef SLUICE_TOOLS_RUNARGS_H
#define SLUICE_TOOLS_RUNARGS_H

#include "check.h"
#include "driver.h"
#include "suite.h"

typedef struct runargs {
  const char *cmd; /* "conform": the command name in messages */
  check_opts co;
  impl_opts io;
  suite_select sel;
  int jobs;
  double deadline_secs;
  uint64_t max_answer; /* 0: from the largest case (runargs_finish) */
  const char **captures; /* capture files or folders (sluice diff --captures) */
  size_t ncaptures;      /* "--suite captures" alone: only these are run */
} runargs;

/* Defaults; sel's arrays have room for argc entries. */
void runargs_init(runargs *ra, const char *cmd, int argc);
void runargs_free(runargs *ra);

/* Parses argv[*i] (and its value). 1: it was one of the shared options
 * (*i advanced past its value); 0: not one of them; -1: a bad value (the
 * message printed). */
int runargs_parse(runargs *ra, int argc, char **argv, int *i);

/* Loads the selected cases (tree_dir: the source tree's suites, see
 * suites_dir_default) and settles what depends on them (the answer line
 * cap, the deadline). -1 after a message. */
int runargs_finish(runargs *ra, caselist *cl, const char *tree_dir);

/* The help text of the shared options. */
extern const char runargs_usage[];

#endif
