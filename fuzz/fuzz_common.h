/*
 * fuzz_common.h: what every fuzz target shares. A target does not only wait
 * for a crash: for the fuzzer's input it runs the filter on the whole input
 * and on a chunking the input chooses (empty chunks included), and aborts
 * unless both give the same channels, events and status (split
 * invariance) and, for the routing filters, the channel lengths add up to
 * the input length (conservation).
 *
 * Input layout (one input covers configuration, content and split):
 *   u16 LE  L        length of the options
 *   L bytes          the filter's options, a JSON object (as in the protocol)
 *   u32 LE           the split seed: its top two bits choose the chunking
 *                    (cuts of 0 to 15 bytes, a byte at a time, one cut,
 *                    cuts of 0 to 255 bytes), the rest where it cuts
 *   the rest         the content fed to the filter
 * `sluice mkcorpus` writes the conformance cases in this layout.
 *
 * What is not the filter's work is done once: the options are decoded once
 * per distinct text (the fuzzer mutates the content far more often than
 * them) and a filter that can be reset (sluice_reset) is reused. The
 * replay driver (standalone_main.c, CTest) checks every chunking of every
 * input, not only the one the seed chooses.
 */
#ifndef SLUICE_FUZZ_COMMON_H
#define SLUICE_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "sluice_kit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_input {
  char options[4096]; /* NUL-terminated JSON text */
  size_t options_len;
  uint32_t seed;
  const char *content;
  size_t content_len;
} fuzz_input;

/* Set by the replay driver: check every chunking, not only the seed's. */
extern int fuzz_every_chunking;

/* Splits the raw fuzzer input; returns 0 if it is too short. */
int fuzz_parse(const uint8_t *data, size_t size, fuzz_input *in);

/* A filter's options, decoded from an input's options text. */
typedef struct fuzz_opts fuzz_opts;

/* The input's options for `filter`, with `key` set to the JSON value
 * `value` first when key is not NULL (the think targets' "mode"), decoded
 * once per distinct text and kept. NULL when the key cannot be set (the
 * options are not a JSON object): the input is of no use. */
fuzz_opts *fuzz_options(const char *filter, const fuzz_input *in, const char *key,
                        const char *value);
/* How the decoding went (SLUICE_BAD_OPTION, ...), and the typed options
 * struct (sluice_think_opts, ...) when it went well. */
sluice_status fuzz_opts_status(const fuzz_opts *o);
const void *fuzz_opts_struct(const fuzz_opts *o);
/* A new filter of these options (sluice_filter_new); the caller frees it. */
sluice_status fuzz_filter_new(const fuzz_opts *o, const sluice_sink *sink, sluice_filter **f);

/* The filter of these options that the checks keep, reset, its output now
 * going to sink (until the next check or call); NULL when the filter cannot
 * be reset (build one with fuzz_filter_new). A target's own runs reuse it
 * rather than building and freeing a filter per run. */
sluice_filter *fuzz_filter_reset(fuzz_opts *o, const sluice_sink *sink);

/* Runs the filter whole and chunked and aborts on any difference.
 * `routing` adds the conservation check. Returns the whole-input status. */
sluice_status fuzz_check(fuzz_opts *o, const fuzz_input *in, int routing);
/* fuzz_check with the input's options for `filter`, as they are. */
sluice_status fuzz_check_filter(const char *filter, const fuzz_input *in, int routing);

/* The output of the last check's whole-input run (channels and events),
 * valid until the next check: a target that needs what the filter gave for
 * the whole input reads it here instead of running the filter again. */
const sluice_output *fuzz_whole_output(void);

/* Set by a target that reads fuzz_max_held (before its first check): the
 * chunked runs then ask the filter its hold-back after every chunk, a call
 * per chunk the other targets do not need. */
extern int fuzz_track_held;
/* The largest hold-back of the chunked runs of the last check. */
uint64_t fuzz_max_held(void);

/* Aborts with a message (the fuzzer keeps the input). */
void fuzz_fail(const char *what, const char *detail);

#endif
