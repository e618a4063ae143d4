/*
 * select.h: which of the loaded cases a run takes, beyond --suite and
 * --case: by feature (--features, --exclude-features) and by shard
 * (--shard K/N, for a CI matrix). Shared by the commands that run cases
 * (conform, diff, gate), with the options declared once (select_options).
 */
#ifndef SLUICE_TOOLS_SELECT_H
#define SLUICE_TOOLS_SELECT_H

#include "opt.h"
#include "suite.h"

typedef struct case_filter {
  strlist features; /* --features: a case with any of them (empty: every case) */
  strlist exclude;  /* --exclude-features: no case with any of them */
  unsigned shard_k, shard_n; /* --shard K/N: the Kth of N (n 0: no sharding) */
} case_filter;

/* The options, storing into a case_filter (a command lists this table with
 * its case_filter as the base). */
extern const opt select_options[];

/* The shard a case falls in, 0 to n-1: a hash of SUITE/ID, so a case stays
 * in its shard whatever else is selected, and the shards of one N are
 * disjoint and together the whole run. */
unsigned case_shard(const tcase *c, unsigned n);
/* The same for a case named NAME alone (gate's captures; "SUITE/ID" falls
 * in the shard case_shard gives that case). */
unsigned name_shard(const char *name, unsigned n);

/* Drops the cases the filter does not take (in order). A feature name that
 * neither suites.json nor the runner knows is a usage error: -1 after
 * "sluice CMD: --features: unknown feature ..." on stderr. */
int caselist_select(caselist *cl, const case_filter *f, const char *cmd);

void case_filter_free(case_filter *f);

#endif
