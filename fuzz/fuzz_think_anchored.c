/* fuzz_think_anchored: the think filter in anchored mode (the proxy's
 * behaviour). Split invariance and conservation; the grace window counts
 * code points, which the fuzzer's invalid UTF-8 exercises. A held block is
 * capped by max_block when the options set it. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in)) return 0;
  fuzz_opts *o = fuzz_options("think", &in, "mode", "\"anchored\"");
  if (o) fuzz_check(o, &in, 1);
  return 0;
}
