/*
 * chunky_proto.c: a deliberately wrong implementation of the filter
 * protocol, for testing the conformance runner. It runs the reference filter
 * on each chunk on its own and concatenates the answers, the way naive
 * middleware filters each network chunk, so a tag cut across two chunks
 * leaks. Whole inputs come out right; the runner must report the split
 * dependence, with the smallest failing chunking.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "../tools/tools.h"

int main(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  sluice_output *out;
  if (sluice_output_new(&out, NULL) != SLUICE_OK) return 1;
  static const char *const keys[] = {"text", "thought", "other", "markup", "dropped"};
  while ((len = getline(&line, &cap, stdin)) > 0) {
    json_t *req = json_loadb(line, (size_t)len, JSON_ALLOW_NUL, NULL);
    json_t *ans = json_object();
    json_object_set(ans, "id", json_object_get(req, "id"));
    json_object_set_new(ans, "ok", json_true());
    char *opts = json_dumps(json_object_get(req, "options"), JSON_COMPACT);
    json_t *chunks = json_object_get(req, "chunks"), *events = json_array();
    tbytes acc[5] = {{NULL, 0}};
    size_t i;
    json_t *c;
    json_array_foreach(chunks, i, c) {
      tbytes chunk = {(char *)json_string_value(c), json_string_length(c)};
      json_t *a = run_filter(json_string_value(json_object_get(req, "filter")), opts,
                             opts ? strlen(opts) : 0, &chunk, 1, out);
      if (!json_is_true(json_object_get(a, "ok"))) {
        json_decref(ans);
        ans = json_deep_copy(a);
        json_object_set(ans, "id", json_object_get(req, "id"));
        json_decref(a);
        break;
      }
      for (int k = 0; k < 5; k++) {
        tbytes b;
        get_bytes_field(a, keys[k], &b);
        acc[k].p = realloc(acc[k].p, acc[k].n + b.n + 1);
        memcpy(acc[k].p + acc[k].n, b.p, b.n);
        acc[k].n += b.n;
        free(b.p);
      }
      json_array_extend(events, json_object_get(a, "events"));
      json_decref(a);
    }
    if (json_is_true(json_object_get(ans, "ok"))) {
      for (int k = 0; k < 5; k++) set_bytes_field(ans, keys[k], acc[k].p ? acc[k].p : "", acc[k].n);
      json_object_set(ans, "events", events);
    }
    for (int k = 0; k < 5; k++) free(acc[k].p);
    char *s = json_dumps(ans, JSON_COMPACT);
    printf("%s\n", s);
    fflush(stdout);
    free(s);
    free(opts);
    json_decref(events);
    json_decref(ans);
    json_decref(req);
  }
  free(line);
  sluice_output_free(out);
  return 0;
}
