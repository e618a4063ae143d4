/*
 * client.h: the gate's client: one streaming request in a provider's
 * protocol to a middleware, the response read whole (capped in size and
 * time) for the library's provider filter to read.
 */
#ifndef SLUICE_TOOLS_CLIENT_H
#define SLUICE_TOOLS_CLIENT_H

#include "sluice.h"
#include "util.h"

typedef struct client_req {
  sluice_endpoint proto;    /* openai-chat, anthropic, openai-responses or ollama-chat */
  const char *base;         /* the middleware's URL; the protocol's path is added */
  const char *model;
  const char *const *headers; /* "Name: value", NULL-terminated; may be NULL */
  double timeout;           /* seconds for the whole exchange */
  size_t max_body;          /* bytes of response kept; more fails the request */
} client_req;

typedef struct client_resp {
  long status;         /* the HTTP status; 0 when none came */
  tbuf body;
  int failed;          /* no complete response (connection, timeout, cap) */
  char why[256];       /* ... what happened */
  double seconds;
} client_resp;

/* The path a client of protocol p posts to. */
const char *client_path(sluice_endpoint p);
/* The JSON request body (malloc'd). */
char *client_body(sluice_endpoint p, const char *model);
/* A curl command line that sends the same request (for a reproduction). */
void client_curl_command(const client_req *r, tbuf *out);
/* Sends r; the response in *out (free its body). */
void client_send(const client_req *r, client_resp *out);

#endif
