/*
 * tools.h: what the subcommands of the sluice command share. The shared
 * code itself is in tools/common/ (a library the tests and fuzz drivers
 * link too): util (allocation, buffers, checked I/O, clocks), bytes
 * (base64, byte specs), jsonw (writing JSON), answer (the protocol's answer
 * and its one comparison), chunking (split modes, the minimizer), suite
 * (loading the golden suites), reference (the library behind the
 * protocol), proto (serving a request), driver (an implementation under
 * test as a child process), check (one case in every split mode).
 */
#ifndef SLUICE_TOOLS_H
#define SLUICE_TOOLS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/answer.h"
#include "common/bytes.h"
#include "common/capture.h"
#include "common/check.h"
#include "common/chunking.h"
#include "common/datadir.h"
#include "common/driver.h"
#include "common/jsonw.h"
#include "common/opt.h"
#include "common/proto.h"
#include "common/reference.h"
#include "common/runargs.h"
#include "common/rng.h"
#include "common/suite.h"
#include "common/util.h"
#include "sluice_kit.h"

/* Subcommands (one file each): argv[0] is the command's name. Each
 * returns the process exit status. */
int cmd_proto(int argc, char **argv);
int cmd_conform(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_mkcorpus(int argc, char **argv);
int cmd_think(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_json(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_gate(int argc, char **argv);

/* Benchmarks (bench/): argv[0] is the benchmark's name. */
int bench_clean(int argc, char **argv);
int bench_json(int argc, char **argv);
int bench_sse(int argc, char **argv);
int bench_replay(int argc, char **argv);
/* The OpenAI chat completion events of bench_sse, about `size` bytes,
 * appended to out. 0, or -1 when out of memory. */
int bench_sse_text(tbuf *out, uint64_t size);

#endif
