/*
 * proto.c: `sluice proto`, the JSON-lines filter protocol (DESIGN.md §3)
 * served for the reference library. One request per input line, one answer
 * per output line, in order. A malformed line gets an error answer and the
 * next line is served.
 */
#include "tools.h"

#include <stdlib.h>
#include <string.h>

static const char proto_usage[] =
    "usage: sluice proto\n"
    "\n"
    "Serves the sluice filter protocol on standard input and output: one JSON\n"
    "request per line, one JSON answer per line, in the same order.\n"
    "\n"
    "request: {\"id\": any, \"filter\": \"think\", \"options\": {...},\n"
    "          \"chunks\": [\"...\", ...]}      (or \"chunks_b64\": [base64, ...])\n"
    "answer:  {\"id\": same, \"ok\": true, \"text\": \"...\", \"thought\": \"...\",\n"
    "          \"other\": \"...\", \"markup\": \"...\", \"dropped\": \"...\",\n"
    "          \"events\": [...], \"max_held\": N}\n"
    "failure: {\"id\": same, \"ok\": false, \"error\": {\"code\", \"message\", \"offset\"}}\n"
    "\n"
    "A channel that is not valid UTF-8 is sent as \"<channel>_b64\" instead.\n"
    "Error codes: bad_request (the line), unsupported_filter, bad_option, and the\n"
    "library's status names (limit, nomem, ...). See conformance/FORMAT.md.\n";

static const char *const request_keys[] = {"id", "filter", "options", "chunks", "chunks_b64",
                                           NULL};

/* Answers one request line. Never fails: every problem is an answer. */
json_t *proto_answer_line(const char *line, size_t len, sluice_output *out) {
  json_error_t jerr;
  json_t *req = json_loadb(line, len, JSON_ALLOW_NUL, &jerr);
  json_t *id = NULL, *ans = NULL, *jc = NULL, *jb = NULL;
  tbytes *chunks = NULL;
  size_t nchunks = 0;
  char msg[256];
  if (!req) {
    snprintf(msg, sizeof msg, "invalid JSON at column %d: %s", jerr.column, jerr.text);
    ans = error_answer("bad_request", msg, (json_int_t)jerr.position);
    goto done;
  }
  if (!json_is_object(req)) {
    ans = error_answer("bad_request", "a request must be a JSON object", 0);
    goto done;
  }
  id = json_object_get(req, "id");
  const char *key;
  json_t *v;
  json_object_foreach(req, key, v) {
    int known = 0;
    for (size_t i = 0; request_keys[i]; i++)
      if (strcmp(key, request_keys[i]) == 0) known = 1;
    if (!known) {
      snprintf(msg, sizeof msg, "unknown request field \"%s\"", key);
      ans = error_answer("bad_request", msg, 0);
      goto done;
    }
  }
  json_t *filter = json_object_get(req, "filter");
  if (!json_is_string(filter)) {
    ans = error_answer("bad_request", "\"filter\" must be a string", 0);
    goto done;
  }
  json_t *opts = json_object_get(req, "options");
  if (opts && !json_is_object(opts)) {
    ans = error_answer("bad_request", "\"options\" must be an object", 0);
    goto done;
  }
  jc = json_object_get(req, "chunks");
  jb = json_object_get(req, "chunks_b64");
  if ((jc != NULL) == (jb != NULL)) {
    ans = error_answer("bad_request", "give exactly one of \"chunks\" and \"chunks_b64\"", 0);
    goto done;
  }
  json_t *arr = jc ? jc : jb;
  if (!json_is_array(arr)) {
    ans = error_answer("bad_request", "\"chunks\" must be an array of strings", 0);
    goto done;
  }
  nchunks = json_array_size(arr);
  chunks = calloc(nchunks ? nchunks : 1, sizeof *chunks);
  if (!chunks) {
    ans = error_answer("nomem", "out of memory", 0);
    goto done;
  }
  for (size_t i = 0; i < nchunks; i++) {
    json_t *c = json_array_get(arr, i);
    if (!json_is_string(c)) {
      snprintf(msg, sizeof msg, "chunk %zu is not a string", i);
      ans = error_answer("bad_request", msg, 0);
      goto done;
    }
    if (jc) {
      chunks[i].p = (char *)json_string_value(c);
      chunks[i].n = json_string_length(c);
    } else if (b64_decode(json_string_value(c), json_string_length(c), &chunks[i])) {
      snprintf(msg, sizeof msg, "chunk %zu is not valid base64", i);
      ans = error_answer("bad_request", msg, 0);
      goto done;
    }
  }
  char *otext = opts ? json_dumps(opts, JSON_COMPACT) : NULL;
  ans = run_filter(json_string_value(filter), otext, otext ? strlen(otext) : 0, chunks, nchunks,
                   out);
  free(otext);
done:;
  /* The answer carries the request's id first. */
  json_t *full = json_object();
  json_object_set(full, "id", id ? id : json_null());
  json_object_update(full, ans);
  json_decref(ans);
  if (jb && chunks)
    for (size_t i = 0; i < nchunks; i++) free(chunks[i].p);
  free(chunks);
  json_decref(req);
  return full;
}

int cmd_proto(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    fputs(proto_usage, stdout);
    return 0;
  }
  if (argc > 1) {
    fprintf(stderr, "sluice proto: unexpected argument \"%s\" (see --help)\n", argv[1]);
    return 2;
  }
  sluice_output *out;
  if (sluice_output_new(&out, NULL) != SLUICE_OK) return 1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) >= 0) {
    size_t n = (size_t)len;
    if (n && line[n - 1] == '\n') n--;
    if (n && line[n - 1] == '\r') n--;
    json_t *a = proto_answer_line(line, n, out);
    char *s = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    if (!s) {
      fputs("{\"id\":null,\"ok\":false,\"error\":{\"code\":\"nomem\",\"message\":\"out of "
            "memory\",\"offset\":0}}\n",
            stdout);
    } else {
      fputs(s, stdout);
      fputc('\n', stdout);
      free(s);
    }
    fflush(stdout);
  }
  free(line);
  sluice_output_free(out);
  return 0;
}
