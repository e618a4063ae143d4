/* fuzz_proto: the protocol server on any line. Every line gets answer lines
 * that are JSON objects with "id" and a boolean "ok" (an error with a code
 * and a message when false), each on one line, never a crash; a batch
 * request gets exactly one. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "proto.h"

static size_t nlines;

static int check_line(void *user, const char *line, size_t n) {
  (void)user;
  nlines++;
  if (memchr(line, '\n', n)) fuzz_fail("an answer spans lines", NULL);
  json_t *a = json_loadb(line, n, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, NULL);
  if (!json_is_object(a) || !json_object_get(a, "id") || !json_is_boolean(json_object_get(a, "ok")))
    fuzz_fail("the protocol answer is malformed", NULL);
  if (json_is_false(json_object_get(a, "ok"))) {
    json_t *e = json_object_get(a, "error");
    if (!json_is_string(json_object_get(e, "code")) || !json_is_string(json_object_get(e, "message")))
      fuzz_fail("an error answer lacks its code or message", NULL);
  }
  json_decref(a);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static proto_server ps;
  static int ready;
  if (!ready && proto_server_init(&ps, (size_t)64 << 20)) abort();
  ready = 1;
  /* one line: the server splits its input at newlines */
  const char *nl = memchr(data, '\n', size);
  size_t len = nl ? (size_t)(nl - (const char *)data) : size;
  nlines = 0;
  proto_serve(&ps, (const char *)data, len, check_line, NULL);
  if (nlines == 0) fuzz_fail("a request got no answer", NULL);
  json_t *req = json_loadb((const char *)data, len, JSON_ALLOW_NUL, NULL);
  if (!json_is_true(json_object_get(req, "stream")) && nlines != 1)
    fuzz_fail("a batch request got more than one answer", NULL);
  json_decref(req);
  return 0;
}
