/* fuzz_json: the JSON sanitizer. Split invariance of the repaired text, the
 * repairs and the value; the result is JSON or a clean error; sanitizing the
 * result again changes nothing and repairs nothing. That last check is a
 * third run of the filter over a text as long as the input, so it is made
 * for half the inputs (those whose split seed has bit 29 set; the top two
 * bits choose the chunking) and for every input in a replay. */
#include "fuzz_json_util.h"

/* The sanitized text a, sanitized again, is the same and needs no repair. */
static void sanitize_again(const sluice_json_opts *jo, const json_run *a) {
  json_run b;
  /* again with the same options less max_bytes, which caps the input and
   * may be smaller than the repaired text, and less ndjson */
  sluice_json_opts again = *jo, d;
  sluice_json_opts_init(&d);
  again.max_bytes = d.max_bytes;
  again.ndjson = d.ndjson; /* its array would be wrapped again */
  json_run_once(SLUICE_OK, &again, a->value, a->value_len, 0, &b);
  if (b.st != SLUICE_OK || !b.value || b.value_len != a->value_len ||
      memcmp(a->value, b.value, a->value_len) != 0)
    fuzz_fail("sanitizing twice differs from once", a->value);
  if (b.repairs) fuzz_fail("the sanitized text needed repairs again", a->value);
  json_run_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in)) return 0;
  fuzz_opts *fo = fuzz_options("json", &in, "incremental", "false");
  if (!fo) return 0;
  const sluice_json_opts *jo = fuzz_opts_struct(fo);
  deep_ok = depth_unlimited(jo);
  json_run a;
  /* the check's whole-input run is the one-call run */
  json_run_of_check(fuzz_check(fo, &in, 0), &a);
  if (a.st == SLUICE_OK) {
    if (!a.value) fuzz_fail("no value event", NULL);
    if (!value_ok(&a)) fuzz_fail("the result is not JSON, or its unloadable mark is wrong", a.value);
    if (fuzz_every_chunking || (in.seed >> 29 & 1)) sanitize_again(jo, &a);
  } else if (a.st != SLUICE_BAD_OPTION && a.st != SLUICE_JSON_EMPTY &&
             a.st != SLUICE_JSON_NO_VALUE && a.st != SLUICE_JSON_DEPTH && a.st != SLUICE_LIMIT &&
             a.st != SLUICE_JSON_INVALID) {
    fuzz_fail("an unexpected status", sluice_status_name(a.st));
  }
  json_run_free(&a);
  return 0;
}
