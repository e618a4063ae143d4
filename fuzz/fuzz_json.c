/* fuzz_json: the JSON sanitizer. Split invariance of the repaired text, the
 * repairs and the value; the result is JSON or a clean error; sanitizing the
 * result again changes nothing and repairs nothing. */
#include "fuzz_json_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in)) return 0;
  json_t *no = json_false();
  int ok = fuzz_force_json(&in, "incremental", no);
  json_decref(no);
  if (!ok) return 0;
  deep_ok = depth_unlimited(in.options, in.options_len);
  fuzz_check_filter("json", &in, 0);
  json_run a, b;
  json_run_once(in.options, in.options_len, in.content, in.content_len, 0, &a);
  if (a.st == SLUICE_OK) {
    if (!a.value) fuzz_fail("no value event", NULL);
    if (!value_ok(&a)) fuzz_fail("the result is not JSON, or its unloadable mark is wrong", a.value);
    /* again with the same options less max_bytes, which caps the input and
     * may be smaller than the repaired text, and less ndjson */
    json_t *o = json_loadb(in.options, in.options_len, JSON_ALLOW_NUL, NULL);
    json_object_del(o, "max_bytes");
    json_object_del(o, "ndjson"); /* its array would be wrapped again */
    char *o2 = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    json_run_once(o2, strlen(o2), a.value, a.value_len, 0, &b);
    free(o2);
    if (b.st != SLUICE_OK || !b.value || b.value_len != a.value_len ||
        memcmp(a.value, b.value, a.value_len) != 0)
      fuzz_fail("sanitizing twice differs from once", a.value);
    if (b.repairs) fuzz_fail("the sanitized text needed repairs again", a.value);
    json_run_free(&b);
  } else if (a.st != SLUICE_BAD_OPTION && a.st != SLUICE_JSON_EMPTY &&
             a.st != SLUICE_JSON_NO_VALUE && a.st != SLUICE_JSON_DEPTH && a.st != SLUICE_LIMIT &&
             a.st != SLUICE_JSON_INVALID) {
    fuzz_fail("an unexpected status", sluice_status_name(a.st));
  }
  json_run_free(&a);
  return 0;
}
