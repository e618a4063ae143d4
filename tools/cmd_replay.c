/*
 * cmd_replay.c: `sluice replay CAPTURE`: a captured provider stream through
 * the pipeline (DESIGN.md §3 replay): what a user of that stack would see,
 * and, with --check, proof that every re-chunking gives the same.
 *
 * The capture is read as it goes (tools/common/capread.c) and fed chunk by
 * chunk; the output is written as it is released. Nothing of the capture
 * or of its output is held, but a chunk (and, for --check, the output
 * between two positions where both runs have been fed the same bytes).
 */
#include "tools.h"

#include "common/capread.h"
#include "common/outcmp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char replay_usage[] =
    "usage: sluice replay CAPTURE [options]\n"
    "\n"
    "Replays a captured provider stream (an SSE body, an NDJSON body or a\n"
    ".chunks.jsonl recording; \"-\" for standard input) through the pipeline:\n"
    "the provider (detected from the content), the filters, a writer. Prints\n"
    "the visible text, and a summary on standard error.\n"
    "\n"
    "The pipeline (DESIGN.md §2; the protocol's \"pipeline\" options):\n"
    "  --pipeline FILE     the pipeline as JSON; the flags below add to it\n"
    "  --provider NAME     auto (default), openai, completions, responses,\n"
    "                      anthropic, ollama, gemini, cohere, llamacpp\n"
    "  --framing NAME      auto (default), sse, ndjson, chunks\n"
    "  --choice N          the choice to show (default 0)\n"
    "  --filter NAME[=JSON]  add a text filter (think, clean, monitor, harmony)\n"
    "                      with its options\n"
    "  --think             the same as --filter think\n"
    "  --model NAME        the model asked for (llama.cpp/gpt-oss: harmony)\n"
    "  --harmony           the harmony filter first\n"
    "  --arguments         tool-call arguments through the json filter\n"
    "\n"
    "Output:\n"
    "  --output text       the chosen choice's visible text (default)\n"
    "  --output jsonl      every event, one JSON object per line (protocol form)\n"
    "  --output sse        OpenAI chat.completion.chunk events, data: [DONE] at a\n"
    "                      complete end\n"
    "  --output anthropic-sse  Anthropic Messages events\n"
    "  --channel NAME      text output: text, thought, other, markup or dropped\n"
    "  -q, --quiet         no summary\n"
    "\n"
    "Chunking:\n"
    "  --rechunk HOW       recorded (default: one chunk per event or line, as\n"
    "                      servers flush), whole, bytes, random:SEED (0 to 64\n"
    "                      bytes, empty chunks too), or N (N bytes each)\n"
    "  --check             run the recorded chunking and every re-chunking mode\n"
    "                      (whole, single cuts, a byte at a time, empty chunks,\n"
    "                      random cuts, random sizes, fixed sizes) and compare\n"
    "                      their output; exits 1 with the first difference\n"
    "  --max-chunk BYTES   the largest chunk held (default 64 MiB); a chunking\n"
    "                      with a larger chunk (whole, for a larger capture) is\n"
    "                      refused, or skipped by --check\n"
    "\n"
    "A malformed capture stops with its file, line, byte offset and reason, and\n"
    "exit status 1.\n";

enum output { OUT_TEXT, OUT_JSONL, OUT_SSE, OUT_ANTHROPIC };

typedef struct rstate {
  enum output output;
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
  if (rs->output == OUT_TEXT && ch == rs->channel) return out_write(rs, p, n);
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
  if (rs->output == OUT_JSONL) {
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

typedef struct popts {
  const char *pipeline, *provider, *framing, *model;
  int harmony, arguments;
  long choice;
  const char *filters[SLUICE_PIPELINE_MAX_STAGES];
  int nfilters;
} popts;

/* The pipeline's options as JSON text (malloc'd); NULL after a message. */
static char *pipeline_spec(const popts *po) {
  json_t *spec;
  if (po->pipeline) {
    json_error_t jerr;
    spec = json_load_file(po->pipeline, 0, &jerr);
    if (!spec) {
      fprintf(stderr, "sluice replay: %s:%d:%d: %s\n", po->pipeline, jerr.line, jerr.column,
              jerr.text);
      return NULL;
    }
    if (!json_is_object(spec)) {
      fprintf(stderr, "sluice replay: %s: the pipeline must be a JSON object\n", po->pipeline);
      json_decref(spec);
      return NULL;
    }
  } else {
    spec = json_object();
  }
  if (!spec) die("out of memory");
  if (po->provider || po->framing || po->choice >= 0) {
    json_t *pv = json_object_get(spec, "provider");
    json_t *obj = json_is_object(pv) ? json_incref(pv) : json_object();
    if (json_is_string(pv)) json_object_set(obj, "provider", pv);
    if (po->provider) json_object_set_new(obj, "provider", json_string(po->provider));
    if (po->framing) json_object_set_new(obj, "framing", json_string(po->framing));
    if (po->choice >= 0) json_object_set_new(obj, "choice", json_integer(po->choice));
    json_object_set_new(spec, "provider", obj);
  }
  if (po->model) json_object_set_new(spec, "model", json_string(po->model));
  if (po->harmony) json_object_set_new(spec, "harmony", json_true());
  if (po->arguments) json_object_set_new(spec, "arguments", json_true());
  if (po->nfilters) {
    json_t *fl = json_object_get(spec, "filters");
    if (!json_is_array(fl)) {
      fl = json_array();
      json_object_set_new(spec, "filters", fl);
    }
    for (int i = 0; i < po->nfilters; i++) {
      const char *eq = strchr(po->filters[i], '=');
      json_t *st = json_object();
      char *name =
          xstrndup(po->filters[i], eq ? (size_t)(eq - po->filters[i]) : strlen(po->filters[i]));
      json_object_set_new(st, "filter", json_string(name));
      free(name);
      if (eq) {
        json_error_t jerr;
        json_t *o = json_loads(eq + 1, 0, &jerr);
        if (!o) {
          fprintf(stderr, "sluice replay: --filter %s: the options are not JSON: %s\n",
                  po->filters[i], jerr.text);
          json_decref(st);
          json_decref(spec);
          return NULL;
        }
        json_object_set_new(st, "options", o);
      }
      json_array_append_new(fl, st);
    }
  }
  char *text = json_dumps(spec, JSON_COMPACT);
  json_decref(spec);
  if (!text) die("out of memory");
  return text;
}

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

static void capture_error(const char *path, const capread *cap, const sluice_error *e) {
  uint64_t line = capread_line_of(cap, e->offset);
  fflush(stdout);
  if (line)
    fprintf(stderr, "sluice replay: %s: line %llu, byte %llu: %s: %s\n", path,
            (unsigned long long)line, (unsigned long long)e->offset, sluice_status_name(e->status),
            e->message);
  else
    fprintf(stderr, "sluice replay: %s: byte %llu: %s: %s\n", path,
            (unsigned long long)e->offset, sluice_status_name(e->status), e->message);
}

static void read_error(const char *path, const capread *cap) {
  fflush(stdout);
  if (cap->err == EFBIG)
    fprintf(stderr, "sluice replay: %s: a chunk of this chunking is larger than --max-chunk "
                    "(%zu bytes)\n", path, cap->max_chunk);
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

static int check(const char *path, const char *spec, size_t max_chunk) {
  run a, b;
  if (run_open(&a, path, spec, max_chunk) || run_open(&b, path, spec, max_chunk)) return 2;
  if (a.cap.size == UINT64_MAX) {
    fprintf(stderr, "sluice replay: --check needs a regular file (it reads it once per "
                    "chunking)\n");
    run_close(&a);
    run_close(&b);
    return 2;
  }
  /* The recorded chunking alone first: a malformed capture is reported as
   * such, not as chunkings that agree on an error. */
  while (!a.ended)
    if (run_step(&a) < 0) {
      read_error(path, &a.cap);
      run_close(&a);
      run_close(&b);
      return 1;
    }
  if (a.failed) {
    capture_error(path, &a.cap, sluice_get_error(a.f));
    run_close(&a);
    run_close(&b);
    return 1;
  }
  size_t n = (size_t)a.cap.size;
  split_params sp;
  split_params_default(&sp);
  sp.max_single = 16; /* every run replays the whole capread */
  sp.nrandom = 8;
  static const split_mode modes[] = {M_WHOLE, M_SINGLE, M_BYTES, M_EMPTY, M_RANDOM};
  static const size_t sizes[] = {2, 3, 7, 64, 1000, 4096};
  size_t total = 0, skipped = 0, nmodes = 0;
  int rc = 0;
  for (size_t m = 0; m < sizeof modes / sizeof modes[0] + 2 && !rc; m++) {
    size_t count = 0;
    char name[64];
    if (m < sizeof modes / sizeof modes[0]) {
      split_iter it;
      snprintf(name, sizeof name, "%s", split_mode_names[modes[m]]);
      split_begin(&it, modes[m], n, &sp, sluice_hash_str(path), NULL);
      while (!rc && split_start(&it)) {
        run_reset(&a, spec);
        run_reset(&b, spec);
        capread_cut_split(&b.cap, &it);
        int k = lockstep(&a, &b, name);
        if (k == -1 && b.cap.err == EFBIG) {
          skipped++; /* a chunk of this chunking is over --max-chunk */
        } else if (k < 0) {
          read_error(path, k == -2 ? &a.cap : &b.cap);
          rc = 1;
        } else {
          rc = k;
          count++;
        }
      }
    } else {
      /* cutters: random sizes with four seeds, then fixed sizes */
      int fixed = m == sizeof modes / sizeof modes[0] + 1;
      size_t nk = fixed ? sizeof sizes / sizeof sizes[0] : 4;
      snprintf(name, sizeof name, fixed ? "sizes" : "random-sizes");
      for (size_t k = 0; k < nk && !rc; k++) {
        cutter cut;
        cutter_init(&cut, fixed ? CUT_SIZE : CUT_RANDOM, fixed ? sizes[k] : 64, k + 1);
        run_reset(&a, spec);
        run_reset(&b, spec);
        capread_cut_cutter(&b.cap, &cut);
        char label[64];
        snprintf(label, sizeof label, fixed ? "%zu" : "random:%zu", fixed ? sizes[k] : k + 1);
        int r = lockstep(&a, &b, label);
        if (r == -1 && b.cap.err == EFBIG) {
          skipped++;
        } else if (r < 0) {
          read_error(path, r == -2 ? &a.cap : &b.cap);
          rc = 1;
        } else {
          rc = r;
          count++;
        }
      }
    }
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
  run_close(&a);
  run_close(&b);
  return fflush_checked("replay", stdout) ? 1 : rc;
}

/* ---------------- the command ---------------- */

static int parse_rechunk(const char *s, capread *cap, cutter *cut, split_iter *it,
                         split_params *sp) {
  uint64_t v;
  if (strcmp(s, "recorded") == 0) return 0;
  if (strcmp(s, "whole") == 0) {
    if (cap->size == UINT64_MAX) return 0; /* read whole below */
    split_begin(it, M_WHOLE, (size_t)cap->size, sp, 0, NULL);
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

int cmd_replay(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    fputs(replay_usage, stdout);
    return 0;
  }
  popts po;
  memset(&po, 0, sizeof po);
  po.choice = -1;
  const char *path = NULL, *rechunk = "recorded";
  int do_check = 0, quiet = 0;
  uint64_t max_chunk = (uint64_t)64 << 20;
  rstate rs;
  memset(&rs, 0, sizeof rs);
  rs.channel = SLUICE_TEXT;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t u;
#define TAKES_VALUE                                                              \
  if (!v) {                                                                      \
    fprintf(stderr, "sluice replay: %s needs a value (see --help)\n", a);        \
    return 2;                                                                    \
  }                                                                              \
  i++
    if (strcmp(a, "--pipeline") == 0) { TAKES_VALUE; po.pipeline = v; }
    else if (strcmp(a, "--provider") == 0) { TAKES_VALUE; po.provider = v; }
    else if (strcmp(a, "--framing") == 0) { TAKES_VALUE; po.framing = v; }
    else if (strcmp(a, "--model") == 0) { TAKES_VALUE; po.model = v; }
    else if (strcmp(a, "--harmony") == 0) po.harmony = 1;
    else if (strcmp(a, "--arguments") == 0) po.arguments = 1;
    else if (strcmp(a, "--think") == 0 || strcmp(a, "--filter") == 0) {
      const char *f = "think";
      if (a[2] == 'f') { TAKES_VALUE; f = v; }
      if (po.nfilters == SLUICE_PIPELINE_MAX_STAGES) {
        fprintf(stderr, "sluice replay: at most %d filters\n", SLUICE_PIPELINE_MAX_STAGES);
        return 2;
      }
      po.filters[po.nfilters++] = f;
    } else if (strcmp(a, "--choice") == 0) {
      TAKES_VALUE;
      if (parse_u64(v, &u) || u > 63) {
        fprintf(stderr, "sluice replay: --choice must be 0 to 63\n");
        return 2;
      }
      po.choice = (long)u;
    } else if (strcmp(a, "--output") == 0) {
      TAKES_VALUE;
      if (strcmp(v, "text") == 0) rs.output = OUT_TEXT;
      else if (strcmp(v, "jsonl") == 0) rs.output = OUT_JSONL;
      else if (strcmp(v, "sse") == 0) rs.output = OUT_SSE;
      else if (strcmp(v, "anthropic-sse") == 0) rs.output = OUT_ANTHROPIC;
      else {
        fprintf(stderr, "sluice replay: --output must be text, jsonl, sse or anthropic-sse\n");
        return 2;
      }
    } else if (strcmp(a, "--channel") == 0) {
      TAKES_VALUE;
      int c = 0;
      while (c < SLUICE_CHANNEL_COUNT && strcmp(v, sluice_channel_name((sluice_channel)c))) c++;
      if (c == SLUICE_CHANNEL_COUNT) {
        fprintf(stderr, "sluice replay: --channel must be text, thought, other, markup or "
                        "dropped\n");
        return 2;
      }
      rs.channel = (sluice_channel)c;
    } else if (strcmp(a, "--rechunk") == 0) { TAKES_VALUE; rechunk = v; }
    else if (strcmp(a, "--check") == 0) do_check = 1;
    else if (strcmp(a, "--max-chunk") == 0) {
      TAKES_VALUE;
      if (parse_u64(v, &max_chunk) || max_chunk == 0 || max_chunk > SIZE_MAX / 2) {
        fprintf(stderr, "sluice replay: --max-chunk needs a positive number of bytes\n");
        return 2;
      }
    } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) quiet = 1;
    else if ((a[0] != '-' || strcmp(a, "-") == 0) && !path) path = a;
    else {
      fprintf(stderr, "sluice replay: unexpected argument \"%s\" (see --help)\n", a);
      return 2;
    }
#undef TAKES_VALUE
  }
  if (!path) {
    fputs(replay_usage, stderr);
    return 2;
  }
  char *spec = pipeline_spec(&po);
  if (!spec) return 2;
  if (do_check) {
    int rc = check(path, spec, (size_t)max_chunk);
    free(spec);
    return rc;
  }
  capread cap;
  if (capread_open(&cap, path, (size_t)max_chunk)) {
    fprintf(stderr, "sluice replay: %s: %s\n", path, strerror(errno));
    free(spec);
    return 1;
  }
  cutter cut;
  split_iter it;
  split_params sp;
  split_params_default(&sp);
  if (parse_rechunk(rechunk, &cap, &cut, &it, &sp)) {
    fprintf(stderr, "sluice replay: --rechunk must be recorded, whole, bytes, random:SEED or "
                    "a number of bytes\n");
    capread_close(&cap);
    free(spec);
    return 2;
  }
  if (strcmp(rechunk, "whole") == 0 && cap.size == UINT64_MAX) {
    /* a pipe: one chunk of everything, within --max-chunk */
    cutter_init(&cut, CUT_SIZE, (size_t)max_chunk, 0);
    capread_cut_cutter(&cap, &cut);
  }
  if (rs.output == OUT_SSE || rs.output == OUT_ANTHROPIC) {
    sluice_writer_opts wo;
    sluice_writer_opts_init(&wo);
    wo.format = rs.output == OUT_SSE ? SLUICE_WRITE_OPENAI_SSE : SLUICE_WRITE_ANTHROPIC_SSE;
    wo.model = po.model;
    wo.choice = po.choice > 0 ? (size_t)po.choice : 0;
    if (sluice_writer_new(&rs.writer, &wo, out_write, &rs, NULL, NULL) != SLUICE_OK)
      die("out of memory");
    rs.wsink = sluice_writer_sink(rs.writer);
  }
  sluice_sink sink = {on_emit, on_event, &rs};
  sluice_filter *f = make_pipeline(spec, &sink);
  int rc = 2;
  if (f) {
    rc = feed_capture(path, &cap, f, &rs);
    if (rs.writer && sluice_writer_status(rs.writer) == SLUICE_NOMEM) {
      fprintf(stderr, "sluice replay: out of memory writing the stream\n");
      rc = 1;
    }
    if (!rc && rs.output == OUT_TEXT && rs.channel <= SLUICE_OTHER && rs.chan[rs.channel] &&
        isatty(fileno(stdout)))
      fputc('\n', stdout);
    if (fflush_checked("replay", stdout)) rc = 1;
    if (!rc && sluice_provider_detected(f) == SLUICE_PROVIDER_AUTO && rs.truncated) {
      /* not one chunk any provider sends: not a capture */
      fprintf(stderr, "sluice replay: %s: no provider chunk in its %llu bytes (an .sse, .ndjson "
                      "or .chunks.jsonl capture was expected)\n",
              path, (unsigned long long)cap.off);
      rc = 1;
    }
    if (!rc && !quiet) summary(path, f, &rs, cap.off);
  }
  sluice_free(f);
  sluice_writer_free(rs.writer);
  tbuf_free(&rs.line);
  capread_close(&cap);
  free(spec);
  return rc;
}
