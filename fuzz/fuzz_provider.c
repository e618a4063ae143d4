/* fuzz_provider: the provider adapters. Split invariance of every event
 * (deltas, tool calls, finish, usage, errors, the end and its truncation)
 * and of provider_format and limit offsets; and the chunk reader takes
 * exactly the JSON texts jansson takes. */
#include "fuzz_common.h"
#include "jread_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in)) return 0;
  fuzz_check_filter("provider", &in, 0);
  if (in.content_len <= 65536 && !jr_agrees_with_jansson(in.content, in.content_len))
    fuzz_fail("the chunk reader and jansson part", jr_accepts(in.content, in.content_len)
                                                       ? "the reader accepts"
                                                       : "jansson accepts");
  return 0;
}
