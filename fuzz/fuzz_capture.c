/* fuzz_capture: the capture reader and the stream detector. Both are split
 * invariant (the input's options for the reader: format and caps, limit and
 * capture_format offsets included); and a raw body read as sse or ndjson
 * comes out whole: its pieces joined are the input, each starting where the
 * last ended. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

/* The pieces of a raw body: contiguous, and together the input. */
static void check_raw(const fuzz_input *in, sluice_capture_format fmt) {
  static sluice_output *out;
  if (!out && sluice_output_new(&out, NULL) != SLUICE_OK) abort();
  sluice_output_reset(out);
  sluice_capture_opts o;
  sluice_capture_opts_init(&o);
  o.format = fmt;
  o.max_piece = 0; /* no cap: every input is a body */
  sluice_sink sink = sluice_output_sink(out);
  sluice_filter *f;
  if (sluice_capture_new(&f, &o, &sink, NULL, NULL) != SLUICE_OK) abort();
  sluice_status st = sluice_once(f, in->content, in->content_len);
  sluice_free(f);
  if (st != SLUICE_OK) fuzz_fail("a raw body was refused", sluice_status_name(st));
  uint64_t at = 0;
  for (size_t i = 0; i < sluice_output_event_count(out); i++) {
    const sluice_event *ev = sluice_output_event(out, i);
    if (ev->type != SLUICE_EV_PIECE) continue;
    if (ev->offset != at || ev->data_len == 0 || at + ev->data_len > in->content_len ||
        memcmp(ev->data, in->content + at, ev->data_len) != 0)
      fuzz_fail("a piece is not the next bytes of the body", fmt == SLUICE_CAPTURE_SSE ? "sse" : "ndjson");
    at += ev->data_len;
  }
  if (at != in->content_len) fuzz_fail("the pieces do not cover the body", "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in)) return 0;
  fuzz_check_filter("capture", &in, 0);
  fuzz_input plain = in;
  plain.options[0] = '\0';
  plain.options_len = 0;
  fuzz_check_filter("detect", &plain, 0);
  check_raw(&in, SLUICE_CAPTURE_SSE);
  check_raw(&in, SLUICE_CAPTURE_NDJSON);
  return 0;
}
