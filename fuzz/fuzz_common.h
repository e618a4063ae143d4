/*
 * fuzz_common.h: what every fuzz target shares. A target does not only wait
 * for a crash: for the fuzzer's input it runs the filter on the whole input,
 * on a fuzzer-chosen chunking (empty chunks included) and a byte at a time,
 * and aborts unless every run gives the same channels, events and status
 * (split invariance) and, for the routing filters, the channel lengths add
 * up to the input length (conservation).
 *
 * Input layout (one input covers configuration, content and split):
 *   u16 LE  L        length of the options
 *   L bytes          the filter's options, a JSON object (as in the protocol)
 *   u32 LE           the split seed
 *   the rest         the content fed to the filter
 * `sluice mkcorpus` writes the conformance cases in this layout.
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

/* Splits the raw fuzzer input; returns 0 if it is too short. */
int fuzz_parse(const uint8_t *data, size_t size, fuzz_input *in);

/* Sets options[key] to a string (fuzz_force_key) or any JSON value
 * (fuzz_force_json), e.g. the think targets' "mode"; returns 0 if the options
 * are not a JSON object. */
int fuzz_force_key(fuzz_input *in, const char *key, const char *value);
struct json_t;
int fuzz_force_json(fuzz_input *in, const char *key, struct json_t *value);

/* Runs `filter` three ways and aborts on any difference. `routing` adds the
 * conservation check. Returns the whole-input status. */
sluice_status fuzz_check_filter(const char *filter, const fuzz_input *in, int routing);

/* The largest hold-back of the chunked runs of the last check. */
uint64_t fuzz_max_held(void);

/* Aborts with a message (the fuzzer keeps the input). */
void fuzz_fail(const char *what, const char *detail);

#endif
