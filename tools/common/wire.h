/*
 * wire.h: what the network commands (serve, record, capture import, gate)
 * share that needs no server library: secrets scrubbed from headers and
 * query strings, and each endpoint's stream type and error shapes.
 */
#ifndef SLUICE_TOOLS_WIRE_H
#define SLUICE_TOOLS_WIRE_H

#include "sluice.h"

/* Whether a header carries a secret (authorization, API keys, cookies). */
int http_secret_header(const char *name);
/* The path with the values of secret query parameters (key, api_key, ...)
 * replaced by "[redacted]"; malloc'd. */
char *http_scrub_path(const char *path);

/* The content type of an endpoint's stream. */
const char *http_stream_type(sluice_endpoint f);
/* A provider-shaped error: the JSON body of an HTTP error with this status,
 * and the in-stream error event (with its SSE or NDJSON framing). malloc'd. */
char *http_error_body(sluice_endpoint f, int status, const char *message);
char *http_error_event(sluice_endpoint f, const char *message);

#endif
