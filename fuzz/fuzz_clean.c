/* fuzz_clean: the response cleaner pipeline. Split invariance (including the
 * offsets of limit errors) and conservation over any options the fuzzer
 * writes, the think step and both caps included. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in)) return 0;
  fuzz_check_filter("clean", &in, 1);
  return 0;
}
