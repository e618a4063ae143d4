/* fuzz_pipeline: whole pipelines (the input's options: provider, filters,
 * arguments, harmony). Split invariance of the deltas and events; and the
 * writer over them writes the same bytes for the whole input and a seeded
 * chunking, in the format the seed's bit 29 chooses (both in a replay), as
 * valid UTF-8, with the clean end ([DONE], message_stop) exactly when the
 * stream is complete. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

typedef struct written {
  char *p;
  size_t n, cap;
  int ended, complete;
  sluice_sink writer;
} written;

static int put(void *user, const char *p, size_t n) {
  written *w = user;
  if (w->n + n > w->cap) {
    w->cap = (w->n + n) * 2;
    w->p = realloc(w->p, w->cap);
    if (!w->p) abort();
  }
  memcpy(w->p + w->n, p, n);
  w->n += n;
  return 0;
}

static int tee(void *user, const sluice_event *ev) {
  written *w = user;
  if (ev->type == SLUICE_EV_END) {
    w->ended = 1;
    w->complete = ev->complete;
  }
  return w->writer.event(w->writer.user, ev);
}

static sluice_writer *writer_for(sluice_write_format fmt, written *w) {
  sluice_writer_opts wo;
  sluice_writer_opts_init(&wo);
  wo.format = fmt;
  sluice_writer *wr;
  w->n = 0;
  w->ended = 0;
  if (sluice_writer_new(&wr, &wo, put, w, NULL, NULL) != SLUICE_OK) abort();
  w->writer = sluice_writer_sink(wr);
  return wr;
}

static void writer_done(sluice_writer *wr) {
  if (sluice_writer_status(wr) != SLUICE_OK) abort();
  sluice_writer_free(wr);
}

/* The events of the check's whole-input run (the pipeline fed the whole
 * input in one call) into a writer: what the pipeline would write, without
 * running it a second time. */
static void write_whole(sluice_write_format fmt, written *w) {
  sluice_writer *wr = writer_for(fmt, w);
  const sluice_output *o = fuzz_whole_output();
  for (size_t i = 0, n = sluice_output_event_count(o); i < n; i++)
    tee(w, sluice_output_event(o, i));
  writer_done(wr);
}

/* The pipeline into a writer, in seeded chunks of 0 to 15 bytes, by the
 * filter the check keeps (reset) or a new one. The pipeline's status. */
static sluice_status run_chunked(fuzz_opts *o, const fuzz_input *in, sluice_write_format fmt,
                                 uint32_t seed, written *w) {
  sluice_writer *wr = writer_for(fmt, w);
  sluice_sink sink = {NULL, tee, w};
  sluice_filter *f = fuzz_filter_reset(o, &sink), *made = NULL;
  sluice_status st = f ? SLUICE_OK : fuzz_filter_new(o, &sink, &made);
  if (made) f = made;
  if (st == SLUICE_OK) {
    size_t off = 0;
    uint32_t s = seed | 1;
    while (off < in->content_len && st == SLUICE_OK) {
      size_t k = in->content_len - off;
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      if (s % 16 < k) k = s % 16;
      st = sluice_feed(f, in->content + off, k);
      off += k;
    }
    if (st == SLUICE_OK) st = sluice_finish(f);
  }
  sluice_free(made);
  writer_done(wr);
  return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in)) return 0;
  fuzz_opts *o = fuzz_options("pipeline", &in, NULL, NULL);
  if (fuzz_check(o, &in, 0) != SLUICE_OK) return 0;
  static written a, b;
  int first = fuzz_every_chunking ? 0 : (int)(in.seed >> 29 & 1);
  int last = fuzz_every_chunking ? 1 : first;
  for (int fmt = first; fmt <= last; fmt++) {
    sluice_write_format wf = fmt ? SLUICE_WRITE_ANTHROPIC_SSE : SLUICE_WRITE_OPENAI_SSE;
    write_whole(wf, &a);
    if (run_chunked(o, &in, wf, in.seed | 2, &b) != SLUICE_OK)
      fuzz_fail("the pipeline failed once", NULL);
    if (a.n != b.n || (a.n && memcmp(a.p, b.p, a.n) != 0))
      fuzz_fail("split invariance broken", "the written stream differs");
    if (!sluice_utf8_valid(a.p, a.n)) fuzz_fail("the writer wrote invalid UTF-8", NULL);
    static const char done[] = "data: [DONE]\n\n", stop[] = "{\"type\":\"message_stop\"}\n\n";
    const char *end = fmt ? stop : done;
    size_t el = fmt ? sizeof stop - 1 : sizeof done - 1;
    int clean = a.n >= el && memcmp(a.p + a.n - el, end, el) == 0;
    if (!a.ended || clean != a.complete)
      fuzz_fail("the written stream's end", a.complete ? "a complete stream without its clean end"
                                                       : "a truncated stream written as complete");
  }
  return 0;
}
