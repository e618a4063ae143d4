/* fuzz_sse: the framings. The sse filter (with the input's caps) and the
 * ndjson or the chunks filter (the seed's bit 29 chooses; a replay checks
 * both) are split invariant (limit offsets included);
 * and the sse parser gives exactly the events and dropped tail of the
 * literal model of the WHATWG algorithm in tests/sse_model.c. */
#include "fuzz_common.h"
#include "outcmp.h"
#include "sse_model.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in;
  if (!fuzz_parse(data, size, &in)) return 0;
  fuzz_check_filter("sse", &in, 0);
  fuzz_input plain = in;
  plain.options[0] = '\0';
  plain.options_len = 0;
  if (fuzz_every_chunking || !(in.seed >> 29 & 1)) fuzz_check_filter("ndjson", &plain, 0);
  if (fuzz_every_chunking || (in.seed >> 29 & 1)) fuzz_check_filter("chunks", &plain, 0);
  /* the fast parser against the model (default caps: 8 MiB) */
  static sluice_output *fast, *model;
  if (!fast && (sluice_output_new(&fast, NULL) || sluice_output_new(&model, NULL))) abort();
  sluice_output_reset(fast);
  sluice_output_reset(model);
  sluice_sink fs = sluice_output_sink(fast), ms = sluice_output_sink(model);
  static sluice_filter *f; /* built once, reset for every input */
  if (f ? sluice_reset(f) != SLUICE_OK : sluice_sse_new(&f, NULL, &fs, NULL, NULL) != SLUICE_OK)
    abort();
  sluice_status st = sluice_once(f, in.content, in.content_len);
  if (st == SLUICE_LIMIT) return 0;
  if (st != SLUICE_OK) fuzz_fail("the sse parser failed", sluice_status_name(st));
  if (sse_model(in.content, in.content_len, &ms)) abort();
  char why[200];
  if (output_compare(model, fast, 0, why, sizeof why))
    fuzz_fail("the parser departs from the model", why);
  return 0;
}
