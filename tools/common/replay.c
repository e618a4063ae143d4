/*
 * replay.c: a captured provider stream through the pipeline (replay.h;
 * DESIGN.md §3 replay): what a user of that stack would see, and, with
 * --check, proof that every re-chunking gives the same.
 *
 * The capture is read as it goes (tools/common/capread.c) and fed chunk by
 * chunk; the output is written as it is released. Nothing of the capture
 * or of its output is held, but a chunk (and, for --check, the output
 * between two positions where both runs have been fed the same bytes).
 */
#include "replay.h"

#include "capread.h"
#include "jsonw.h"
#include "outcmp.h"
#include "reference.h"
#include "rng.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct rstate {
  replay_output output;
  sluice_channel channel;
  sluice_writer *writer;
  sluice_sink wsink;
  tbuf line;
  int write_failed;
  /* the summary */
  uint64_t chan[SLUICE_CHANNEL_COUNT];
  uint64_t dropped_deltas; /* dropped bytes that came as deltas */
  uint64_t tool_calls, errors, events;
  char finish[64];
  int ended, truncated;
} rstate;

static int out_write(void *user, const char *p, size_t n) {
  rstate *rs = user;
  if (n && fwrite(p, 1, n, stdout) != n) {
    rs->write_failed = 1;
    return 1;
  }
  return 0;
}

static int on_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  rstate *rs = user;
  rs->chan[ch] += n;
  if (rs->output == REPLAY_TEXT && ch == rs->channel) return out_write(rs, p, n);
  return 0;
}

static int on_event(void *user, const sluice_event *ev) {
  rstate *rs = user;
  rs->events++;
  switch (ev->type) {
  case SLUICE_EV_DELTA:
    if (ev->name_len == 7 && memcmp(ev->name, "dropped", 7) == 0)
      rs->dropped_deltas += ev->data_len;
    break;
  case SLUICE_EV_TOOL_CALL: rs->tool_calls++; break;
  case SLUICE_EV_ERROR: rs->errors++; break;
  case SLUICE_EV_FINISH:
    snprintf(rs->finish, sizeof rs->finish, "%.*s", (int)(ev->name_len < 60 ? ev->name_len : 60),
             ev->name);
    break;
  case SLUICE_EV_END:
    rs->ended = 1;
    rs->truncated = !ev->complete;
    break;
  default: break;
  }
  if (rs->output == REPLAY_JSONL) {
    jsonw w;
    rs->line.n = 0;
    jw_init(&w, &rs->line);
    write_event(&w, ev, NULL, 0);
    if (w.failed) die("out of memory");
    tbuf_xadd(&rs->line, "\n", 1);
    return out_write(rs, rs->line.p, rs->line.n);
  }
  if (rs->writer) return rs->wsink.event(rs->wsink.user, ev);
  return 0;
}


/* ---------------- the pipeline ---------------- */

static sluice_filter *make_pipeline(const char *spec, sluice_sink *sink) {
  sluice_filter *f;
  sluice_error err;
  if (sluice_filter_new_json(&f, "pipeline", spec, strlen(spec), sink, NULL, &err) != SLUICE_OK) {
    fprintf(stderr, "sluice replay: the pipeline: %s\n", err.message);
    return NULL;
  }
  return f;
}

/* ---------------- errors ---------------- */

/* The pipeline's error, at the place in the file its body offset came
 * from (the byte itself in an sse or ndjson body, else the line that held
 * its piece). */
static void capture_error(const char *path, const capread *cap, const sluice_error *e) {
  uint64_t at = capread_source(cap, e->offset);
  uint64_t line = capread_line_of(cap, at);
  fflush(stdout);
  if (line)
    fprintf(stderr, "sluice replay: %s: line %llu, byte %llu: %s: %s\n", path,
            (unsigned long long)line, (unsigned long long)at, sluice_status_name(e->status),
            e->message);
  else
    fprintf(stderr, "sluice replay: %s: byte %llu: %s: %s\n", path, (unsigned long long)at,
            sluice_status_name(e->status), e->message);
}

static void read_error(const char *path, const capread *cap) {
  fflush(stdout);
  if (cap->err == EFBIG)
    fprintf(stderr, "sluice replay: %s: a chunk of this chunking is larger than --max-chunk "
                    "(%zu bytes)\n", path, cap->max_chunk);
  else if (cap->err == EINVAL && cap->errmsg.n) /* the capture reader's: file, line, byte */
    fprintf(stderr, "sluice replay: %.*s\n", (int)cap->errmsg.n, cap->errmsg.p);
  else
    fprintf(stderr, "sluice replay: %s: cannot read: %s\n", path, strerror(cap->err));
}

/* ---------------- one replay ---------------- */

/* Feeds the capture to f as cap cuts it. 0, or 1 after a message. */
static int feed_capture(const char *path, capread *cap, sluice_filter *f, const rstate *rs) {
  const char *p;
  size_t n;
  int r;
  sluice_status st = SLUICE_OK;
  while ((r = capread_next(cap, &p, &n)) > 0 && (st = sluice_feed(f, p, n)) == SLUICE_OK) {
  }
  if (r < 0) {
    read_error(path, cap);
    return 1;
  }
  if (st == SLUICE_OK) st = sluice_finish(f);
  if (st == SLUICE_CALLBACK && rs->write_failed) {
    fprintf(stderr, "sluice replay: cannot write output: %s\n", strerror(errno));
    return 1;
  }
  if (st != SLUICE_OK) {
    capture_error(path, cap, sluice_get_error(f));
    return 1;
  }
  return 0;
}

static void summary(const char *path, sluice_filter *f, const rstate *rs, uint64_t bytes) {
  uint64_t tail = rs->chan[SLUICE_DROPPED] > rs->dropped_deltas
                      ? rs->chan[SLUICE_DROPPED] - rs->dropped_deltas : 0;
  fprintf(stderr, "sluice replay: %s: %s, %llu bytes; text %llu bytes, reasoning %llu bytes, "
                  "%llu tool calls, %llu errors; finish %s; %s",
          path, sluice_provider_name(sluice_provider_detected(f)), (unsigned long long)bytes,
          (unsigned long long)rs->chan[SLUICE_TEXT], (unsigned long long)rs->chan[SLUICE_THOUGHT],
          (unsigned long long)rs->tool_calls, (unsigned long long)rs->errors,
          rs->finish[0] ? rs->finish : "(none)",
          rs->truncated ? "TRUNCATED (the stream has no end marker)" : "complete");
  if (tail)
    fprintf(stderr, "; its last %llu bytes are an unfinished line (discarded)",
            (unsigned long long)tail);
  fputc('\n', stderr);
}

/* ---------------- --check ---------------- */

typedef struct run {
  capread cap;
  sluice_filter *f;
  sluice_output *out;
  int ended, failed;
} run;

static int run_step(run *r) {
  const char *p;
  size_t n;
  int k = capread_next(&r->cap, &p, &n);
  if (k < 0) return -1;
  if (k == 0) {
    r->ended = 1;
    r->failed = sluice_finish(r->f) != SLUICE_OK;
    return 0;
  }
  r->failed = sluice_feed(r->f, p, n) != SLUICE_OK;
  if (r->failed) r->ended = 1;
  return 0;
}

static void show_event(const sluice_output *o, long i, const char *label) {
  tbuf b = {0};
  jsonw w;
  jw_init(&w, &b);
  if (i >= 0) write_event(&w, sluice_output_event(o, (size_t)i), NULL, 0);
  else tbuf_xadds(&b, "(none)");
  if (w.failed) die("out of memory");
  printf("      %-9s %s\n", label, b.p);
  tbuf_free(&b);
}

/* Runs the chunking set up in b against the recorded run a, both over the
 * same file, comparing their output whenever both have been fed the same
 * bytes (the output there is fixed by those bytes). 0 when they agree; 1
 * after printing the first difference; -1 when b could not read (its
 * cap.err: EFBIG for a chunk over --max-chunk), -2 when a could not. */
static int lockstep(run *a, run *b, const char *mode) {
  uint64_t synced = 0;
  for (;;) {
    run *s = !a->ended && (a->cap.off <= b->cap.off || b->ended) ? a : b;
    if (s->ended) break;
    if (run_step(s) < 0) return s == a ? -2 : -1;
    if (a->ended != b->ended || a->cap.off != b->cap.off) continue;
    /* both fed the same bytes: the same output so far */
    sluice_status sa = sluice_get_error(a->f)->status, sb = sluice_get_error(b->f)->status;
    char why[200];
    long ea, eb;
    int differs = sa != sb || (sa != SLUICE_OK && sluice_get_error(a->f)->offset !=
                                                      sluice_get_error(b->f)->offset);
    if (!differs && output_compare_at(a->out, b->out, 0, why, sizeof why, &ea, &eb)) {
      printf("DIFF %s: the output differs from the recorded chunking's after byte %llu (the "
             "last byte both had been fed the same to %llu): %s\n",
             mode, (unsigned long long)synced, (unsigned long long)a->cap.off, why);
      show_event(a->out, ea, "recorded");
      show_event(b->out, eb, mode);
      return 1;
    }
    if (differs) {
      printf("DIFF %s: status %s at byte %llu, the recorded chunking %s at byte %llu\n", mode,
             sluice_status_name(sb), (unsigned long long)sluice_get_error(b->f)->offset,
             sluice_status_name(sa), (unsigned long long)sluice_get_error(a->f)->offset);
      return 1;
    }
    sluice_output_reset(a->out);
    sluice_output_reset(b->out);
    synced = a->cap.off;
    if (a->ended && b->ended) break;
  }
  /* one run stopped with an error where the other went on */
  const sluice_error *ea = sluice_get_error(a->f), *eb = sluice_get_error(b->f);
  if (ea->status != eb->status || ea->offset != eb->offset) {
    printf("DIFF %s: status %s at byte %llu, the recorded chunking %s at byte %llu\n", mode,
           sluice_status_name(eb->status), (unsigned long long)eb->offset,
           sluice_status_name(ea->status), (unsigned long long)ea->offset);
    return 1;
  }
  return 0;
}

static int run_open(run *r, const char *path, const char *spec, size_t max_chunk) {
  memset(r, 0, sizeof *r);
  if (capread_open(&r->cap, path, max_chunk)) {
    fprintf(stderr, "sluice replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  if (sluice_output_new(&r->out, NULL) != SLUICE_OK) die("out of memory");
  sluice_sink sink = sluice_output_sink(r->out);
  r->f = make_pipeline(spec, &sink);
  return r->f ? 0 : -1;
}

static void run_reset(run *r, const char *spec) {
  sluice_free(r->f);
  sluice_output_reset(r->out);
  sluice_sink sink = sluice_output_sink(r->out);
  r->f = make_pipeline(spec, &sink);
  if (!r->f) die("the pipeline could not be built again");
  if (capread_rewind(&r->cap)) die("cannot rewind the capture: %s", strerror(errno));
  capread_cut_recorded(&r->cap);
  r->ended = r->failed = 0;
}

static void run_close(run *r) {
  sluice_free(r->f);
  sluice_output_free(r->out);
  capread_close(&r->cap);
}

/* The recorded chunking alone, first: a malformed capture is reported as
 * such, not as chunkings that agree on an error. 0, or 1 after a message. */
static int check_recorded(const char *path, run *a) {
  while (!a->ended)
    if (run_step(a) < 0) {
      read_error(path, &a->cap);
      return 1;
    }
  if (a->failed) {
    capture_error(path, &a->cap, sluice_get_error(a->f));
    return 1;
  }
  return 0;
}

/* What lockstep said of one chunking, counted: 0 to go on, else the exit
 * status (1: a difference, or a read error, reported). */
static int tally_chunking(const char *path, run *a, run *b, int k, size_t *count,
                          size_t *skipped) {
  if (k == -1 && b->cap.err == EFBIG) {
    (*skipped)++; /* a chunk of this chunking is over --max-chunk */
    return 0;
  }
  if (k < 0) {
    read_error(path, k == -2 ? &a->cap : &b->cap);
    return 1;
  }
  (*count)++;
  return k;
}

/* Every chunking of one split mode against the recorded one. */
static int check_split_mode(const char *path, const char *spec, run *a, run *b, split_mode mode,
                            const split_params *sp, size_t *count, size_t *skipped) {
  split_iter it;
  const char *name = split_mode_names[mode];
  int rc = 0;
  split_begin(&it, mode, (size_t)capread_size(&a->cap), sp, sluice_hash_str(path), NULL);
  while (!rc && split_start(&it)) {
    run_reset(a, spec);
    run_reset(b, spec);
    capread_cut_split(&b->cap, &it);
    rc = tally_chunking(path, a, b, lockstep(a, b, name), count, skipped);
  }
  return rc;
}

/* The cutters against the recorded chunking: random sizes with four seeds,
 * or (fixed) the fixed sizes. */
static int check_cutters(const char *path, const char *spec, run *a, run *b, int fixed,
                         size_t *count, size_t *skipped) {
  static const size_t sizes[] = {2, 3, 7, 64, 1000, 4096};
  size_t nk = fixed ? sizeof sizes / sizeof sizes[0] : 4;
  int rc = 0;
  for (size_t k = 0; k < nk && !rc; k++) {
    cutter cut;
    cutter_init(&cut, fixed ? CUT_SIZE : CUT_RANDOM, fixed ? sizes[k] : 64, k + 1);
    run_reset(a, spec);
    run_reset(b, spec);
    capread_cut_cutter(&b->cap, &cut);
    char label[64];
    snprintf(label, sizeof label, fixed ? "%zu" : "random:%zu", fixed ? sizes[k] : k + 1);
    rc = tally_chunking(path, a, b, lockstep(a, b, label), count, skipped);
  }
  return rc;
}

/* Every re-chunking mode against the recorded chunking, a line per mode
 * and a closing line. The exit status. */
static int check_modes(const char *path, const char *spec, run *a, run *b) {
  split_params sp;
  split_params_default(&sp);
  sp.max_single = 16; /* every run replays the whole capread */
  sp.nrandom = 8;
  static const split_mode modes[] = {M_WHOLE, M_SINGLE, M_BYTES, M_EMPTY, M_RANDOM};
  const size_t nsplit = sizeof modes / sizeof modes[0];
  size_t total = 0, skipped = 0, nmodes = 0;
  int rc = 0;
  for (size_t m = 0; m < nsplit + 2 && !rc; m++) {
    size_t count = 0;
    const char *name = m < nsplit ? split_mode_names[modes[m]]
                       : m == nsplit ? "random-sizes" : "sizes";
    if (m < nsplit) rc = check_split_mode(path, spec, a, b, modes[m], &sp, &count, &skipped);
    else rc = check_cutters(path, spec, a, b, m == nsplit + 1, &count, &skipped);
    if (!rc) printf("ok   %-14s %zu chunkings\n", name, count);
    total += count;
    nmodes++;
  }
  if (!rc) {
    printf("%s: the recorded chunking and %zu others in %zu modes give the same output", path,
           total, nmodes);
    if (skipped) printf(" (%zu chunkings skipped: a chunk larger than --max-chunk)", skipped);
    printf("\n");
  }
  return rc;
}

static int check(const char *path, const char *spec, size_t max_chunk) {
  run a, b;
  if (run_open(&a, path, spec, max_chunk) || run_open(&b, path, spec, max_chunk)) return 2;
  int rc;
  if (strcmp(path, "-") == 0) {
    fprintf(stderr, "sluice replay: --check needs a regular file (it reads it once per "
                    "chunking)\n");
    rc = 2;
  } else if (capread_size(&a.cap) == UINT64_MAX) {
    read_error(path, &a.cap);
    rc = 1;
  } else {
    rc = check_recorded(path, &a);
    if (!rc) {
      rc = check_modes(path, spec, &a, &b);
      if (fflush_checked("replay", stdout)) rc = 1;
    }
  }
  run_close(&a);
  run_close(&b);
  return rc;
}

/* ---------------- replay_run ---------------- */

static int parse_rechunk(const char *s, capread *cap, cutter *cut, split_iter *it,
                         split_params *sp) {
  uint64_t v;
  if (strcmp(s, "recorded") == 0) return 0;
  if (strcmp(s, "whole") == 0) {
    if (capread_size(cap) == UINT64_MAX) return 0; /* read whole below */
    split_begin(it, M_WHOLE, (size_t)capread_size(cap), sp, 0, NULL);
    split_start(it);
    capread_cut_split(cap, it);
    return 0;
  }
  if (strcmp(s, "bytes") == 0) {
    cutter_init(cut, CUT_SIZE, 1, 0);
  } else if (strncmp(s, "random:", 7) == 0 && parse_u64(s + 7, &v) == 0) {
    cutter_init(cut, CUT_RANDOM, 64, v);
  } else if (parse_u64(s, &v) == 0 && v > 0) {
    cutter_init(cut, CUT_SIZE, (size_t)v, 0);
  } else {
    return -1;
  }
  capread_cut_cutter(cap, cut);
  return 0;
}

/* A capture open for one replay, cut as --rechunk says (the split
 * iterator the capread may point to lives here, with its parameters). */
typedef struct source {
  capread cap;
  cutter cut;
  split_iter it;
  split_params sp;
} source;

/* 0; else the exit status, after a message. */
static int open_source(const replay_opts *o, source *src) {
  if (capread_open(&src->cap, o->path, o->max_chunk)) {
    fprintf(stderr, "sluice replay: %s: %s\n", o->path, strerror(errno));
    return 1;
  }
  split_params_default(&src->sp);
  if (parse_rechunk(o->rechunk, &src->cap, &src->cut, &src->it, &src->sp)) {
    fprintf(stderr, "sluice replay: --rechunk: must be recorded, whole, bytes, random:SEED or "
                    "a number of bytes, not \"%.60s\"\n", o->rechunk);
    capread_close(&src->cap);
    return 2;
  }
  if (strcmp(o->rechunk, "whole") == 0 && capread_size(&src->cap) == UINT64_MAX) {
    /* a pipe: one chunk of everything, within --max-chunk */
    cutter_init(&src->cut, CUT_SIZE, o->max_chunk, 0);
    capread_cut_cutter(&src->cap, &src->cut);
  }
  return 0;
}

/* Where the events go: counted, and written as --output says. */
static void start_output(rstate *rs, const replay_opts *o) {
  memset(rs, 0, sizeof *rs);
  rs->output = o->output;
  rs->channel = o->channel;
  if (rs->output == REPLAY_SSE || rs->output == REPLAY_ANTHROPIC_SSE) {
    sluice_writer_opts wo;
    sluice_writer_opts_init(&wo);
    wo.format = rs->output == REPLAY_SSE ? SLUICE_WRITE_OPENAI_SSE : SLUICE_WRITE_ANTHROPIC_SSE;
    wo.model = o->model;
    wo.choice = o->choice > 0 ? (size_t)o->choice : 0;
    if (sluice_writer_new(&rs->writer, &wo, out_write, rs, NULL, NULL) != SLUICE_OK)
      die("out of memory");
    rs->wsink = sluice_writer_sink(rs->writer);
  }
}

/* Feeds the whole capture, then says how it went. The exit status. */
static int replay_feed(const replay_opts *o, capread *cap, sluice_filter *f, rstate *rs) {
  int rc = feed_capture(o->path, cap, f, rs);
  if (rs->writer && sluice_writer_status(rs->writer) == SLUICE_NOMEM) {
    fprintf(stderr, "sluice replay: out of memory writing the stream\n");
    rc = 1;
  }
  if (!rc && rs->output == REPLAY_TEXT && rs->channel <= SLUICE_OTHER && rs->chan[rs->channel] &&
      isatty(fileno(stdout)))
    fputc('\n', stdout);
  if (fflush_checked("replay", stdout)) rc = 1;
  if (!rc && sluice_provider_detected(f) == SLUICE_PROVIDER_AUTO && rs->truncated) {
    /* not one chunk any provider sends: not a capture */
    fprintf(stderr, "sluice replay: %s: no provider chunk in its %llu bytes (an .sse, .ndjson "
                    "or .chunks.jsonl capture was expected)\n",
            o->path, (unsigned long long)cap->off);
    rc = 1;
  }
  if (!rc && !o->quiet) summary(o->path, f, rs, cap->off);
  return rc;
}

void replay_opts_init(replay_opts *o) {
  memset(o, 0, sizeof *o);
  o->spec = "{}";
  o->choice = -1;
  o->output = REPLAY_TEXT;
  o->channel = SLUICE_TEXT;
  o->rechunk = "recorded";
  o->max_chunk = (size_t)64 << 20;
}

int replay_run(const replay_opts *o) {
  if (o->check) return check(o->path, o->spec, o->max_chunk);
  source src;
  int rc = open_source(o, &src);
  if (rc) return rc;
  rstate rs;
  start_output(&rs, o);
  sluice_sink sink = {on_emit, on_event, &rs};
  sluice_filter *f = make_pipeline(o->spec, &sink);
  rc = f ? replay_feed(o, &src.cap, f, &rs) : 2;
  sluice_free(f);
  sluice_writer_free(rs.writer);
  tbuf_free(&rs.line);
  capread_close(&src.cap);
  return rc;
}
