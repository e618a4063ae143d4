/* fuzz_json_incremental: streamed tool-call arguments. Fed in the seed's
 * chunks with incremental on, every snapshot is JSON (also those before an
 * error) and the last one equals the one-call value; the value equals the
 * one-call value for the chunking. */
#include "fuzz_json_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in)) return 0;
  /* Each snapshot is rebuilt and checked whole from its tail (the filter
   * sends it as an edit of the last), and a tail closes every open level:
   * the depth times the snapshots (perf: without this cap, a campaign ran
   * at less than half the rate). Short inputs keep the fuzzer fast;
   * fuzz_json covers long ones. */
  if (in.content_len > 1024) return 0;
  fuzz_opts *fo = fuzz_options("json", &in, "incremental", "true");
  if (!fo) return 0;
  const sluice_json_opts *jo = fuzz_opts_struct(fo);
  deep_ok = depth_unlimited(jo);
  json_run whole, split;
  /* the check's whole-input run is the one-call run */
  json_run_of_check(fuzz_check(fo, &in, 0), &whole);
  json_run_once(fuzz_opts_status(fo), jo, in.content, in.content_len, in.seed, &split);
  if (whole.st != split.st) fuzz_fail("status differs between whole and chunked", NULL);
  /* every snapshot was checked to be JSON as it came (jr_snapshot) */
  if (split.st == SLUICE_OK) {
    if (!split.nsnaps) fuzz_fail("no snapshot", NULL);
    if (!whole.value || split.snap.n != whole.value_len ||
        memcmp(split.snap.p, whole.value, whole.value_len) != 0)
      fuzz_fail("the last snapshot differs from the one-call value", split.snap.p);
  }
  json_run_free(&whole);
  json_run_free(&split);
  return 0;
}
