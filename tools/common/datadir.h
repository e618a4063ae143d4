/*
 * datadir.h: where the sluice command finds the data it works with (the
 * suites, the peers, the benchmark scripts) without a path compiled in:
 * an installed binary must name nothing of the machine it was built on,
 * and must work wherever its prefix is moved.
 *
 * A file is looked for, in order:
 *   1. installed: <dir of the executable>/../share/sluice/<installed>;
 *   2. in the source tree of a build folder: <source>/<in_source>, where
 *      <source> is the "source=" line of sluice-build-paths beside the
 *      executable, a file the build writes there and never installs.
 * Environment overrides (SLUICE_SUITES, SLUICE_PEERS, ...) are the callers'.
 */
#ifndef SLUICE_TOOLS_DATADIR_H
#define SLUICE_TOOLS_DATADIR_H

#include <stddef.h>

/* The first of the places above that exists, written into buf[0..n) and
 * returned; NULL when none does. installed or in_source may be NULL (not
 * looked for there). */
const char *data_path(const char *installed, const char *in_source, char *buf, size_t n);

#endif
