/*
 * cmd_proto.c: `sluice proto`, the filter protocol served for the reference
 * library (conformance/FORMAT.md). Every line is answered, whatever it
 * holds; a read error or a write error ends the server with a message and
 * a non-zero exit status.
 */
#include "tools.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the command line sets. */
typedef struct proto_args {
  uint64_t max_line, max_answer;
} proto_args;

static const opt proto_options[] = {
    {"max-line", 0, "BYTES", OPT_U64, OPT_AT(proto_args, max_line, uint64_t), .min = 1,
     .help = "longest request line (default 64 MiB); a longer one is answered with the code "
             "\"limit\""},
    {"max-answer", 0, "BYTES", OPT_U64, OPT_AT(proto_args, max_answer, uint64_t), .min = 1,
     .help = "longest answer line (default 256 MiB); past it the answer is the code \"limit\""},
    {0}};

static const opt_cmd proto_cmd = {
    .name = "proto",
    .synopsis = "[--max-line BYTES] [--max-answer BYTES]",
    .intro =
        "Serves the sluice filter protocol on standard input and output: one JSON\n"
        "request per line, one JSON answer per line, in the same order, each line\n"
        "written as soon as it is ready.\n"
        "\n"
        "request: {\"id\": any, \"filter\": \"think\", \"options\": {...},\n"
        "          \"chunks\": [\"...\", ...]}      (or \"chunks_b64\": [base64, ...])\n"
        "answer:  {\"id\": same, \"ok\": true, \"text\": \"...\", \"thought\": \"...\",\n"
        "          \"other\": \"...\", \"markup\": \"...\", \"dropped\": \"...\",\n"
        "          \"events\": [...], \"max_held\": N}\n"
        "failure: {\"id\": same, \"ok\": false, \"error\": {\"code\", \"message\", \"offset\"}}\n"
        "\n"
        "With \"stream\": true the request is a streaming session: one answer line per\n"
        "chunk, with what that feed released (\"feed\": 0, 1, ...), then one for the end\n"
        "of the stream (\"feed\": \"finish\").\n",
    .outro = "A channel that is not valid UTF-8 is sent as \"<channel>_b64\" instead.\n"
             "Error codes: bad_request (the line), unsupported_filter, bad_option, limit,\n"
             "and the library's status names (nomem, no_json, invalid_json, ...).\n"
             "Exit status: 0 at the end of the input, 1 on a read or write error, 2 on a\n"
             "usage error.\n",
    .tables = {proto_options},
};

static int emit_stdout(void *user, const char *line, size_t n) {
  (void)user;
  /* One write for the line and its newline when it is small, so a reader
   * never sees half a line for long. */
  if (write_all(1, line, n) || write_all(1, "\n", 1)) {
    fprintf(stderr, "sluice proto: cannot write an answer: %s\n", strerror(errno));
    return -1;
  }
  return 0;
}

int cmd_proto(int argc, char **argv) {
  proto_args a = {(uint64_t)64 << 20, (uint64_t)256 << 20};
  void *bases[] = {&a};
  int usage = opt_parse(&proto_cmd, bases, argc, argv, NULL);
  if (usage >= 0) return usage;
  uint64_t max_line = a.max_line, max_answer = a.max_answer;
  proto_watch_jansson_memory();
  proto_server ps;
  if (proto_server_init(&ps, (size_t)max_answer)) {
    fprintf(stderr, "sluice proto: out of memory\n");
    return 1;
  }
  /* Lines are read in blocks; a line past max_line is skipped to its end
   * and answered with "limit", never held whole. */
  tbuf buf = {0};
  int skipping = 0, nomem = 0, rc = 0;
  char block[65536];
  for (;;) {
    ssize_t r = read(0, block, sizeof block);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      fprintf(stderr, "sluice proto: cannot read the input: %s\n", strerror(errno));
      rc = 1;
      break;
    }
    if (r == 0) {
      /* A last line without a newline is still a request. */
      if (!skipping && buf.n && proto_serve(&ps, buf.p, buf.n, emit_stdout, NULL)) rc = 1;
      if (skipping && (nomem ? proto_line_nomem(emit_stdout, NULL)
                             : proto_line_too_long(emit_stdout, NULL, (size_t)max_line)))
        rc = 1;
      break;
    }
    const char *p = block;
    size_t n = (size_t)r;
    while (n && !rc) {
      const char *nl = memchr(p, '\n', n);
      size_t take = nl ? (size_t)(nl - p) : n;
      if (!skipping) {
        if (buf.n + take > max_line) {
          skipping = 1;
          buf.n = 0;
        } else if (tbuf_add(&buf, p, take)) {
          skipping = nomem = 1; /* the rest of the line is skipped, then answered */
          tbuf_free(&buf);
        }
      }
      if (!nl) break;
      if (skipping) {
        if (nomem ? proto_line_nomem(emit_stdout, NULL)
                  : proto_line_too_long(emit_stdout, NULL, (size_t)max_line))
          rc = 1;
        skipping = nomem = 0;
      } else {
        size_t len = buf.n;
        if (len && buf.p[len - 1] == '\r') len--;
        if (proto_serve(&ps, buf.p, len, emit_stdout, NULL)) rc = 1;
      }
      buf.n = 0;
      /* A big line's buffer goes back: the next request may need that room. */
      if (buf.cap > ((size_t)1 << 20)) tbuf_free(&buf);
      p = nl + 1;
      n -= take + 1;
    }
    if (rc) break;
  }
  tbuf_free(&buf);
  proto_server_free(&ps);
  return rc;
}
