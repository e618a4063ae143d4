/*
 * client.c: the gate's client (client.h), on libcurl.
 */
#include "client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *client_path(sluice_endpoint p) {
  switch (p) {
  case SLUICE_ENDPOINT_ANTHROPIC: return "/v1/messages";
  case SLUICE_ENDPOINT_OPENAI_RESPONSES: return "/v1/responses";
  case SLUICE_ENDPOINT_OLLAMA_CHAT: return "/api/chat";
  default: return "/v1/chat/completions";
  }
}

char *client_body(sluice_endpoint p, const char *model) {
  tbuf b = {0};
  /* the model comes from the gate (a token), never from a user: no escaping
   * beyond what a token needs */
  switch (p) {
  case SLUICE_ENDPOINT_ANTHROPIC:
    tbuf_xprintf(&b, "{\"model\":\"%s\",\"max_tokens\":1024,\"stream\":true,\"messages\":"
                     "[{\"role\":\"user\",\"content\":\"hi\"}]}", model);
    break;
  case SLUICE_ENDPOINT_OPENAI_RESPONSES:
    tbuf_xprintf(&b, "{\"model\":\"%s\",\"stream\":true,\"input\":\"hi\"}", model);
    break;
  default:
    tbuf_xprintf(&b, "{\"model\":\"%s\",\"stream\":true,\"messages\":"
                     "[{\"role\":\"user\",\"content\":\"hi\"}]}", model);
  }
  return tbuf_take(&b, NULL);
}

/* The headers every protocol's client sends. */
static struct curl_slist *headers_of(const client_req *r) {
  struct curl_slist *h = NULL;
  h = curl_slist_append(h, "Content-Type: application/json");
  h = curl_slist_append(h, "Authorization: Bearer sk-sluice-gate");
  if (r->proto == SLUICE_ENDPOINT_ANTHROPIC) {
    h = curl_slist_append(h, "x-api-key: sk-sluice-gate");
    h = curl_slist_append(h, "anthropic-version: 2023-06-01");
  }
  for (size_t i = 0; r->headers && r->headers[i]; i++) h = curl_slist_append(h, r->headers[i]);
  if (!h) die("out of memory");
  return h;
}

void client_curl_command(const client_req *r, tbuf *out) {
  tbuf_xprintf(out, "curl -sN %s%s", r->base, client_path(r->proto));
  struct curl_slist *h = headers_of(r);
  for (struct curl_slist *x = h; x; x = x->next) {
    tbuf_xadds(out, " -H ");
    sh_quote(out, x->data);
  }
  curl_slist_free_all(h);
  char *body = client_body(r->proto, r->model);
  tbuf_xadds(out, " -d ");
  sh_quote(out, body);
  free(body);
}

typedef struct sink {
  client_resp *resp;
  size_t max;
} sink;

static size_t on_data(char *p, size_t size, size_t n, void *user) {
  sink *s = user;
  size_t len = size * n;
  if (s->resp->body.n + len > s->max) return 0; /* over the cap: the transfer fails */
  tbuf_xadd(&s->resp->body, p, len);
  return len;
}

void client_send(const client_req *r, client_resp *out) {
  memset(out, 0, sizeof *out);
  CURL *c = curl_easy_init();
  if (!c) die("out of memory");
  tbuf url = {0};
  tbuf_xprintf(&url, "%s%s", r->base, client_path(r->proto));
  char *body = client_body(r->proto, r->model);
  struct curl_slist *h = headers_of(r);
  sink s = {out, r->max_body};
  curl_easy_setopt(c, CURLOPT_URL, url.p);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(r->timeout * 1000));
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ""); /* a gzip answer is decoded */
  double t0 = now_seconds();
  CURLcode rc = curl_easy_perform(c);
  out->seconds = now_seconds() - t0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
  if (rc != CURLE_OK) {
    out->failed = 1;
    snprintf(out->why, sizeof out->why, "%s",
             rc == CURLE_WRITE_ERROR ? "the response is larger than the cap"
                                     : curl_easy_strerror(rc));
  }
  curl_slist_free_all(h);
  curl_easy_cleanup(c);
  free(body);
  tbuf_free(&url);
}
