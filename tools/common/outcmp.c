/*
 * outcmp.c: comparing two collectors.
 */
#include "outcmp.h"

#include <stdio.h>
#include <string.h>

static int same_bytes(const char *a, size_t na, const char *b, size_t nb) {
  return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

/* The next event at or after *i that is compared. */
static const sluice_event *next_event(const sluice_output *o, size_t *i, int with_snapshots) {
  size_t n = sluice_output_event_count(o);
  while (*i < n) {
    const sluice_event *ev = sluice_output_event(o, (*i)++);
    if (with_snapshots || ev->type != SLUICE_EV_SNAPSHOT) return ev;
  }
  return NULL;
}

int output_compare(const sluice_output *a, const sluice_output *b, int with_snapshots, char *why,
                   size_t wl) {
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    size_t na, nb;
    const char *pa = sluice_output_channel(a, (sluice_channel)c, &na);
    const char *pb = sluice_output_channel(b, (sluice_channel)c, &nb);
    if (!same_bytes(pa, na, pb, nb)) {
      snprintf(why, wl, "channel %s differs (%zu and %zu bytes)",
               sluice_channel_name((sluice_channel)c), na, nb);
      return 1;
    }
  }
  size_t i = 0, j = 0;
  for (size_t k = 0;; k++) {
    const sluice_event *x = next_event(a, &i, with_snapshots), *y = next_event(b, &j, with_snapshots);
    if (!x || !y) {
      if (x || y) {
        snprintf(why, wl, "the event lists differ in length (event %zu is missing on one side)", k);
        return 1;
      }
      return 0;
    }
    if (x->type != y->type || x->complete != y->complete || x->offset != y->offset ||
        x->length != y->length || !same_bytes(x->name, x->name_len, y->name, y->name_len) ||
        !same_bytes(x->data, x->data_len, y->data, y->data_len) ||
        !same_bytes(x->id, x->id_len, y->id, y->id_len) || (x->name == NULL) != (y->name == NULL) ||
        (x->data == NULL) != (y->data == NULL) || (x->id == NULL) != (y->id == NULL)) {
      snprintf(why, wl, "event %zu differs (types %d and %d, offsets %llu and %llu)", k,
               (int)x->type, (int)y->type, (unsigned long long)x->offset,
               (unsigned long long)y->offset);
      return 1;
    }
  }
}
