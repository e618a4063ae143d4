/* fuzz_think_channel: the think filter in channel mode. Split invariance,
 * conservation, and the hold-back bound: only a partial tag is held, and no
 * tag is longer than 256 bytes. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  fuzz_track_held = 1;
  if (!fuzz_parse(data, size, &in)) return 0;
  fuzz_opts *o = fuzz_options("think", &in, "mode", "\"channel\"");
  if (!o) return 0;
  if (fuzz_check(o, &in, 1) == SLUICE_OK && fuzz_max_held() >= 256)
    fuzz_fail("hold-back bound broken", "channel mode held 256 bytes or more");
  return 0;
}
