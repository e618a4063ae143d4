/*
 * sse_model.c: the literal model (sse_model.h).
 */
#include "sse_model.h"

#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
  char *p;
  size_t n;
} sbuf;

static void sbuf_set(sbuf *b, const char *p, size_t n) {
  b->p = realloc(b->p, n + 1);
  if (!b->p) abort();
  memcpy(b->p, p, n);
  b->n = n;
}

static void sbuf_add(sbuf *b, const char *p, size_t n) {
  b->p = realloc(b->p, b->n + n + 1);
  if (!b->p) abort();
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

int sse_model(const char *p, size_t n, const sluice_sink *sink) {
  sbuf data = {0}, type = {0}, id = {0};
  size_t pos = n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0, data_start = 0;
  int rc = 0;
  for (;;) {
    size_t e = pos;
    while (e < n && p[e] != '\r' && p[e] != '\n') e++;
    if (e == n) {
      /* no line end: not a line; the pending event is discarded */
      if (pos < n && sink->emit && sink->emit(sink->user, SLUICE_DROPPED, p + pos, n - pos))
        rc = -1;
      break;
    }
    const char *line = p + pos;
    size_t len = e - pos;
    sluice_event ev;
    memset(&ev, 0, sizeof ev);
    if (len == 0) {
      /* dispatch */
      if (data.n > 0) {
        ev.type = SLUICE_EV_SSE;
        ev.name = type.n ? type.p : "message";
        ev.name_len = type.n ? type.n : 7;
        ev.data = data.p;
        ev.data_len = data.n - 1;
        ev.id = id.n ? id.p : "";
        ev.id_len = id.n;
        ev.offset = data_start;
        if (sink->event && sink->event(sink->user, &ev)) rc = -1;
      }
      data.n = 0;
      type.n = 0;
    } else if (line[0] != ':') {
      const char *colon = memchr(line, ':', len);
      size_t name = colon ? (size_t)(colon - line) : len;
      const char *value = colon ? colon + 1 : line + len;
      size_t vlen = (size_t)(line + len - value);
      if (vlen > 0 && value[0] == ' ') {
        value++;
        vlen--;
      }
      if (name == 4 && memcmp(line, "data", 4) == 0) {
        if (data.n == 0) data_start = pos;
        sbuf_add(&data, value, vlen);
        sbuf_add(&data, "\n", 1);
      } else if (name == 5 && memcmp(line, "event", 5) == 0) {
        sbuf_set(&type, value, vlen);
      } else if (name == 2 && memcmp(line, "id", 2) == 0) {
        if (!memchr(value, '\0', vlen)) sbuf_set(&id, value, vlen);
      } else if (name == 5 && memcmp(line, "retry", 5) == 0) {
        size_t i = 0;
        while (i < vlen && value[i] >= '0' && value[i] <= '9') i++;
        if (vlen > 0 && i == vlen) {
          ev.type = SLUICE_EV_RETRY;
          ev.data = value;
          ev.data_len = vlen;
          ev.offset = pos;
          if (sink->event && sink->event(sink->user, &ev)) rc = -1;
        }
      }
    }
    pos = e + 1;
    if (p[e] == '\r' && pos < n && p[pos] == '\n') pos++;
  }
  free(data.p);
  free(type.p);
  free(id.p);
  return rc;
}
