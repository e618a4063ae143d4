/* fuzz_harmony: the gpt-oss template filter. Split invariance and
 * conservation over any token soup, and the hold-back bound: a partial token
 * (under 13 bytes) plus an open header, which max_header caps (4096 at most,
 * the largest value the options accept). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  fuzz_track_held = 1;
  if (!fuzz_parse(data, size, &in)) return 0;
  if (fuzz_check_filter("harmony", &in, 1) == SLUICE_OK && fuzz_max_held() > 4096 + 13)
    fuzz_fail("hold-back bound broken", "harmony held more than a header and a partial token");
  return 0;
}
