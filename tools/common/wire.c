/*
 * wire.c: secrets scrubbed, and the endpoints' stream types and error
 * shapes (wire.h).
 */
#include "wire.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

int http_secret_header(const char *name) {
  static const char *const secret[] = {"authorization", "proxy-authorization", "x-api-key",
                                       "api-key", "x-goog-api-key", "cookie", "set-cookie",
                                       "openai-api-key", "anthropic-api-key", NULL};
  for (size_t i = 0; secret[i]; i++)
    if (strcasecmp(name, secret[i]) == 0) return 1;
  return 0;
}

char *http_scrub_path(const char *path) {
  static const char *const secret[] = {"key", "api_key", "apikey", "access_token", "token", NULL};
  tbuf out = {0};
  const char *q = strchr(path, '?');
  if (!q) return xstrdup(path);
  tbuf_xadd(&out, path, (size_t)(q - path) + 1);
  for (const char *p = q + 1; *p;) {
    const char *amp = strchr(p, '&');
    size_t len = amp ? (size_t)(amp - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    int hide = 0;
    for (size_t i = 0; eq && secret[i]; i++)
      if ((size_t)(eq - p) == strlen(secret[i]) && strncasecmp(p, secret[i], (size_t)(eq - p)) == 0)
        hide = 1;
    if (hide) {
      tbuf_xadd(&out, p, (size_t)(eq - p) + 1);
      tbuf_xadds(&out, "[redacted]");
    } else {
      tbuf_xadd(&out, p, len);
    }
    p += len;
    if (*p == '&') tbuf_xadd(&out, p++, 1);
  }
  return tbuf_take(&out, NULL);
}

const char *http_stream_type(sluice_endpoint f) {
  if (f == SLUICE_ENDPOINT_OLLAMA_CHAT || f == SLUICE_ENDPOINT_OLLAMA_GENERATE) return "application/x-ndjson";
  return "text/event-stream; charset=utf-8";
}

/* The type names each provider gives an HTTP status. */
static const char *openai_type(int st) {
  return st == 429 ? "requests" : st >= 500 ? "server_error" : "invalid_request_error";
}
static const char *anthropic_type(int st) {
  switch (st) {
  case 401: return "authentication_error";
  case 403: return "permission_error";
  case 404: return "not_found_error";
  case 413: return "request_too_large";
  case 429: return "rate_limit_error";
  case 529: return "overloaded_error";
  default: return st >= 500 ? "api_error" : "invalid_request_error";
  }
}
static const char *gemini_status(int st) {
  switch (st) {
  case 400: return "INVALID_ARGUMENT";
  case 401: return "UNAUTHENTICATED";
  case 403: return "PERMISSION_DENIED";
  case 404: return "NOT_FOUND";
  case 429: return "RESOURCE_EXHAUSTED";
  case 503: return "UNAVAILABLE";
  default: return st >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

static char *dump(json_t *j) {
  if (!j) die("out of memory");
  char *s = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  if (!s) die("out of memory");
  return s;
}

char *http_error_body(sluice_endpoint f, int st, const char *msg) {
  switch (f) {
  case SLUICE_ENDPOINT_ANTHROPIC:
    return dump(json_pack("{s:s,s:{s:s,s:s}}", "type", "error", "error", "type",
                          anthropic_type(st), "message", msg));
  case SLUICE_ENDPOINT_GEMINI:
    return dump(json_pack("{s:{s:i,s:s,s:s}}", "error", "code", st, "message", msg, "status",
                          gemini_status(st)));
  case SLUICE_ENDPOINT_OLLAMA_CHAT:
  case SLUICE_ENDPOINT_OLLAMA_GENERATE: return dump(json_pack("{s:s}", "error", msg));
  default:
    return dump(json_pack("{s:{s:s,s:s,s:n,s:s}}", "error", "message", msg, "type",
                          openai_type(st), "param", "code",
                          st == 429 ? "rate_limit_exceeded" : st == 401 ? "invalid_api_key"
                                                                       : openai_type(st)));
  }
}

char *http_error_event(sluice_endpoint f, const char *msg) {
  tbuf b = {0};
  char *j;
  switch (f) {
  case SLUICE_ENDPOINT_ANTHROPIC:
    j = dump(json_pack("{s:s,s:{s:s,s:s}}", "type", "error", "error", "type", "overloaded_error",
                       "message", msg));
    tbuf_xprintf(&b, "event: error\ndata: %s\n\n", j);
    break;
  case SLUICE_ENDPOINT_OPENAI_RESPONSES:
    j = dump(json_pack("{s:s,s:s,s:s,s:n}", "type", "error", "code", "server_error", "message",
                       msg, "param"));
    tbuf_xprintf(&b, "event: error\ndata: %s\n\n", j);
    break;
  case SLUICE_ENDPOINT_GEMINI:
    j = dump(json_pack("{s:{s:i,s:s,s:s}}", "error", "code", 500, "message", msg, "status",
                       "INTERNAL"));
    tbuf_xprintf(&b, "data: %s\r\n\r\n", j);
    break;
  case SLUICE_ENDPOINT_OLLAMA_CHAT:
  case SLUICE_ENDPOINT_OLLAMA_GENERATE:
    j = dump(json_pack("{s:s}", "error", msg));
    tbuf_xprintf(&b, "%s\n", j);
    break;
  default:
    j = dump(json_pack("{s:{s:s,s:s,s:n,s:n}}", "error", "message", msg, "type", "server_error",
                       "param", "code"));
    tbuf_xprintf(&b, "data: %s\n\n", j);
    break;
  }
  free(j);
  return tbuf_take(&b, NULL);
}
