/*
 * resplit.h: a capture's content re-emitted with other delta boundaries.
 *
 * A middleware's own filters (think-tag parsers, prefix strippers) run on
 * the model's deltas, not on the network's bytes, so the split that finds
 * their bugs is where one delta ends and the next begins. Here the
 * provider's events of a body (read by libsluice's provider filter) are
 * joined into runs (consecutive deltas of one choice, kind and tool call),
 * each run cut again where a spec says, and the events written back by
 * libsluice's writer in the capture's own shape: OpenAI chat chunks or
 * Anthropic Messages events (the writer's two). Cuts fall between code
 * points, counted across every run's text in stream order (the "content
 * position"), so one number names one cut in every mode.
 */
#ifndef SLUICE_TOOLS_RESPLIT_H
#define SLUICE_TOOLS_RESPLIT_H

#include <stdint.h>

#include "sluice.h"
#include "util.h"

typedef enum rs_mode {
  RS_RECORDED, /* the body as it is (no re-emission) */
  RS_WHOLE,    /* each run one delta */
  RS_AT,       /* cuts at the listed content positions */
  RS_CODEPOINT, /* a delta per code point */
  RS_RANDOM    /* seeded random cuts, about one in four positions */
} rs_mode;

typedef struct rs_spec {
  rs_mode mode;
  uint64_t seed;
  uint64_t *at; /* RS_AT: ascending content positions (owned: rs_spec_free) */
  size_t nat;
} rs_spec;

/* "recorded", "whole", "codepoint", "random:SEED" or "at:P[,P...]". 0, or
 * -1 with the reason in why. */
int rs_parse(const char *s, rs_spec *out, char *why, size_t wl);
/* An RS_AT spec of the n positions at (copied; ascending). */
void rs_at(rs_spec *out, const uint64_t *at, size_t n);
void rs_spec_free(rs_spec *s);
/* The spec written back as rs_parse reads it (cut to fit n bytes). */
void rs_format(const rs_spec *s, char *buf, size_t n);

/* The content of a body: its provider events (with copies of their bytes)
 * and how many code points its deltas hold. */
typedef struct rs_content {
  sluice_output *events;
  sluice_endpoint endpoint;
  uint64_t points;
  char model[256];
} rs_content;

/* 1 if content of this endpoint can be written again (OpenAI chat,
 * Anthropic). */
int rs_supported(sluice_endpoint e);
/* Reads body[0..n) with the provider filter. 0, or -1 with the reason. */
int rs_load(rs_content *c, const char *body, size_t n, sluice_endpoint e, const char *model,
            char *why, size_t wl);
void rs_free(rs_content *c);

/* Writes the content with its deltas cut as spec says: the body into out,
 * and after each written event its end offset into ends (n_ends of them;
 * the array grows). 0, or -1 when the endpoint has no writer or the writer
 * failed. */
int rs_write(const rs_content *c, const rs_spec *spec, tbuf *out, size_t **ends,
             size_t *n_ends);

#endif
