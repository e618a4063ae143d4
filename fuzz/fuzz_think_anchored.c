/* fuzz_think_anchored: the think filter in anchored mode (the proxy's
 * behaviour). Split invariance and conservation; the grace window counts
 * code points, which the fuzzer's invalid UTF-8 exercises. A held block is
 * capped by max_block when the options set it. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in) || !fuzz_force_key(&in, "mode", "anchored")) return 0;
  fuzz_check_filter("think", &in, 1);
  return 0;
}
