/*
 * sse_model.h: the WHATWG event-stream algorithm (HTML §9.2.6) on a whole
 * input, written line by line as the spec text reads, with none of the
 * parser's incremental machinery: the slow, literal model that fuzz_sse
 * checks lib/src/frame/sse.c against (caps aside).
 */
#ifndef SLUICE_SSE_MODEL_H
#define SLUICE_SSE_MODEL_H

#include <stddef.h>

#include "sluice.h"

/* The events (SLUICE_EV_SSE and SLUICE_EV_RETRY, offsets as the parser
 * gives them) and the DROPPED tail into sink. 0, or -1 when the sink
 * failed. */
int sse_model(const char *p, size_t n, const sluice_sink *sink);

#endif
