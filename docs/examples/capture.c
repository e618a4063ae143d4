/*
 * capture.c: a capture file (.sse, .ndjson, .chunks.jsonl or sluice
 * record's .capture.jsonl) on standard input, read with the capture filter:
 * one line per piece of the response body (its offset, when it arrived, its
 * size), then the provider the detector tells from the body.
 *
 *     cc capture.c -lsluice && ./a.out < corpus/captures/anthropic-messages-basic.sse
 */
#include <sluice.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int on_body_event(void *user, const sluice_event *ev) {
  if (ev->type == SLUICE_EV_PROVIDER)
    printf("endpoint %.*s, model \"%.*s\"\n", (int)ev->name_len, ev->name, (int)ev->data_len,
           ev->data);
  (void)user;
  return 0;
}

static int on_capture_event(void *user, const sluice_event *ev) {
  sluice_filter *detect = user;
  if (ev->type == SLUICE_EV_META)
    printf("%.*s: %.*s\n", (int)ev->name_len, ev->name, (int)ev->data_len, ev->data);
  if (ev->type != SLUICE_EV_PIECE) return 0;
  if (ev->length == UINT64_MAX)
    printf("piece at %llu: %zu bytes\n", (unsigned long long)ev->offset, ev->data_len);
  else
    printf("piece at %llu: %zu bytes after %.3f s\n", (unsigned long long)ev->offset,
           ev->data_len, (double)ev->length / 1e6);
  /* the body, as a client reads it, goes on to the detector */
  return sluice_feed(detect, ev->data, ev->data_len) != SLUICE_OK;
}

int main(void) {
  sluice_filter *capture, *detect;
  sluice_sink ds = {NULL, on_body_event, NULL};
  if (sluice_detect_new(&detect, NULL, &ds, NULL, NULL) != SLUICE_OK) return 1;
  sluice_sink cs = {NULL, on_capture_event, detect};
  if (sluice_capture_new(&capture, NULL, &cs, NULL, NULL) != SLUICE_OK) return 1;
  char buf[65536];
  ssize_t n;
  while ((n = read(0, buf, sizeof buf)) > 0 && sluice_feed(capture, buf, (size_t)n) == SLUICE_OK) {
  }
  int rc = 0;
  if (sluice_finish(capture) != SLUICE_OK) {
    const sluice_error *e = sluice_get_error(capture);
    fprintf(stderr, "byte %llu: %s\n", (unsigned long long)e->offset, e->message);
    rc = 1;
  }
  if (sluice_finish(detect) != SLUICE_OK) rc = 1;
  sluice_free(capture);
  sluice_free(detect);
  return rc;
}
