/*
 * runargs.h: the options `sluice conform` and `sluice diff` share (which
 * cases, which split modes, how an implementation is run), parsed in one
 * place so both commands read them the same way.
 */
#ifndef SLUICE_TOOLS_RUNARGS_H
#define SLUICE_TOOLS_RUNARGS_H

#include "check.h"
#include "driver.h"
#include "opt.h"
#include "select.h"
#include "suite.h"

typedef struct runargs {
  const char *cmd; /* "conform": the command name in messages */
  check_opts co;
  impl_opts io;
  suite_select sel;
  case_filter filter; /* --features, --exclude-features, --shard (select_options) */
  size_t max_failures; /* --max-failures: 0 none */
  int jobs;
  double deadline_secs;
  uint64_t max_answer; /* 0: from the largest case (runargs_finish) */
  const char **captures; /* capture files or folders (sluice diff --captures) */
  size_t ncaptures;      /* "--suite captures" alone: only these are run */
} runargs;

/* Defaults; sel's arrays have room for argc entries. */
void runargs_init(runargs *ra, const char *cmd, int argc);
void runargs_free(runargs *ra);

/* The shared options (tools/common/opt.h), stored into a runargs: a
 * command lists this table with the runargs as its base, and
 * select_options with &runargs.filter. */
extern const opt runargs_options[];

/* Loads the selected cases (from --suites, else suites_dir_default), keeps
 * those of the features and the shard asked for, and settles what depends
 * on them (the answer line cap, the deadline). -1 after a message. */
int runargs_finish(runargs *ra, caselist *cl);

#endif
