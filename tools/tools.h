/*
 * tools.h: what the subcommands of the sluice command share.
 */
#ifndef SLUICE_TOOLS_H
#define SLUICE_TOOLS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sluice.h"

/* A byte string owned by the caller. */
typedef struct tbytes {
  char *p;
  size_t n;
} tbytes;

/* Subcommands. Each returns the process exit code. */
int cmd_proto(int argc, char **argv);
int cmd_conform(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_mkcorpus(int argc, char **argv);

/* The protocol server's answer to one request line (without its newline).
 * Never fails: every problem is an error answer. */
json_t *proto_answer_line(const char *line, size_t len, sluice_output *out);
int cmd_clean(int argc, char **argv); /* cleancmd.c */
int bench_clean(int argc, char **argv); /* cleancmd.c: `sluice bench clean` */
int cmd_json(int argc, char **argv);
int bench_json(int argc, char **argv); /* sluice bench json */

/* ---- bytes ---- */
/* Reads a whole stream; returns 0 on success. */
int read_all(FILE *fp, tbytes *out);
/* Base64 (RFC 4648, with padding). decode returns -1 on bad input. */
char *b64_encode(const char *p, size_t n);
int b64_decode(const char *s, size_t len, tbytes *out);

/* A "bytes spec" of the case format: a JSON string (UTF-8), {"hex": "..."},
 * {"b64": "..."}, or an array of those, concatenated. Returns 0 on success,
 * else -1 with a message in why. */
int bytes_from_spec(json_t *spec, tbytes *out, char *why, size_t whylen);
/* Sets obj[key] to the bytes as a string when they are valid UTF-8, else
 * obj[key + "_b64"] to their base64. */
void set_bytes_field(json_t *obj, const char *key, const char *p, size_t n);
/* Reads obj[key] or obj[key_b64] back into bytes (missing: empty). -1 if
 * present but malformed. */
int get_bytes_field(json_t *obj, const char *key, tbytes *out);

/* ---- the one run path ----
 * Builds the filter named `filter` with options (JSON text), feeds the chunks
 * in order, finishes, and returns the protocol answer (without "id"):
 * {"ok": true, "text": ..., "thought": ..., "other": ..., "markup": ...,
 *  "dropped": ..., "events": [...], "max_held": N[, "value": ..., "truncated": b]}
 * or {"ok": false, "error": {"code", "message", "offset"}}.
 * `out` is a reusable collector. */
json_t *run_filter(const char *filter, const char *options, size_t options_len,
                   const tbytes *chunks, size_t nchunks, sluice_output *out);
/* A JSON string of s; invalid UTF-8 bytes become U+FFFD. */
json_t *json_text(const char *s);
/* An error answer. */
json_t *error_answer(const char *code, const char *message, json_int_t offset);

/* Seconds on a monotonic clock, for the benchmarks. */
double bench_now(void);

/* Common --help handling: returns 1 if argv holds -h or --help. */
int wants_help(int argc, char **argv);

#endif
