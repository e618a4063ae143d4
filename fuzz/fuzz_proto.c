/* fuzz_proto: the protocol's request parser. Any line gets exactly one
 * answer that is a JSON object with "id" and a boolean "ok", never a crash. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/tools.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sluice_output *out;
  if (!out && sluice_output_new(&out, NULL) != SLUICE_OK) abort();
  /* one line: the server splits its input at newlines */
  const char *nl = memchr(data, '\n', size);
  size_t len = nl ? (size_t)(nl - (const char *)data) : size;
  json_t *a = proto_answer_line((const char *)data, len, out);
  if (!json_is_object(a) || !json_object_get(a, "id") || !json_is_boolean(json_object_get(a, "ok")))
    fuzz_fail("the protocol answer is malformed", NULL);
  if (json_is_false(json_object_get(a, "ok"))) {
    json_t *e = json_object_get(a, "error");
    if (!json_is_string(json_object_get(e, "code")) || !json_is_string(json_object_get(e, "message")))
      fuzz_fail("an error answer lacks its code or message", NULL);
  }
  char *s = json_dumps(a, JSON_COMPACT);
  if (!s || strchr(s, '\n')) fuzz_fail("the answer is not one line", NULL);
  free(s);
  json_decref(a);
  return 0;
}
