/*
 * replay.h: a captured provider stream through a pipeline, as `sluice
 * replay` runs it (DESIGN.md §3 replay), for the command and for `sluice
 * bench replay`, which measures that same path in its own process.
 */
#ifndef SLUICE_TOOLS_REPLAY_H
#define SLUICE_TOOLS_REPLAY_H

#include <stddef.h>

#include "sluice.h"

typedef enum replay_output {
  REPLAY_TEXT,         /* the chosen choice's visible text */
  REPLAY_JSONL,        /* every event, a JSON object per line (protocol form) */
  REPLAY_SSE,          /* OpenAI chat.completion.chunk events */
  REPLAY_ANTHROPIC_SSE /* Anthropic Messages events */
} replay_output;

typedef struct replay_opts {
  const char *path;   /* the capture; "-": standard input */
  const char *spec;   /* the pipeline's options as JSON text ("{}": the defaults) */
  const char *model;  /* the model asked for, for the SSE writers; NULL: none */
  int choice;         /* the choice shown (-1: the pipeline's default) */
  int output;             /* a replay_output */
  sluice_channel channel; /* REPLAY_TEXT: the channel written */
  const char *rechunk;    /* recorded, whole, bytes, random:SEED or N (bytes) */
  size_t max_chunk;       /* the largest chunk held */
  int check;              /* compare the recorded chunking with every re-chunking */
  int quiet;              /* no summary */
} replay_opts;

/* The defaults of `sluice replay`: recorded chunking, text output. */
void replay_opts_init(replay_opts *o);

/* Replays o->path (or checks it, with o->check): the output on standard
 * output, the summary and every error on standard error, as "sluice
 * replay: FILE: line L, byte B: reason". Returns the exit status: 0, 1 for
 * a malformed capture, a read or write error or a difference, 2 for a
 * pipeline or option that cannot be used. */
int replay_run(const replay_opts *o);

#endif
