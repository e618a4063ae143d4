/*
 * output.c: a sink that keeps every channel and a deep copy of every event.
 * The one-call helpers, the protocol server and the tests use it.
 */
#include "sluice_private.h"

#include <string.h>

typedef struct stored_event {
  sluice_event ev;
  size_t name_off, data_off, id_off; /* into the event byte store */
} stored_event;

struct sluice_output {
  sluice_mem mem;
  sluicep_buf chan[SLUICE_CHANNEL_COUNT];
  sluicep_buf ev_bytes; /* names, data and ids of the events */
  stored_event *events;
  size_t nevents, cap_events;
  sluice_status status;
};

sluice_status sluice_output_new(sluice_output **out, const sluice_mem *mem) {
  sluice_mem m = sluicep_mem_or_default(mem);
  *out = NULL;
  sluice_output *o = sluicep_calloc(&m, sizeof *o);
  if (!o) return SLUICE_NOMEM;
  o->mem = m;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) sluicep_buf_init(&o->chan[c], &o->mem);
  sluicep_buf_init(&o->ev_bytes, &o->mem);
  o->status = SLUICE_OK;
  *out = o;
  return SLUICE_OK;
}

void sluice_output_free(sluice_output *o) {
  if (!o) return;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) sluicep_buf_free(&o->chan[c]);
  sluicep_buf_free(&o->ev_bytes);
  sluice_mem m = o->mem;
  sluicep_dealloc(&m, o->events);
  sluicep_dealloc(&m, o);
}

void sluice_output_reset(sluice_output *o) {
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) o->chan[c].len = 0;
  o->ev_bytes.len = 0;
  o->nevents = 0;
  o->status = SLUICE_OK;
}

static int out_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  sluice_output *o = user;
  if ((unsigned)ch >= SLUICE_CHANNEL_COUNT) return 0;
  if (sluicep_buf_append(&o->chan[ch], p, n)) {
    o->status = SLUICE_NOMEM;
    return 1;
  }
  return 0;
}

/* Appends n bytes plus a NUL to the byte store; returns the offset. */
static int store(sluice_output *o, const char *p, size_t n, size_t *off) {
  *off = o->ev_bytes.len;
  if (sluicep_buf_reserve(&o->ev_bytes, n + 1)) return -1;
  if (n) memcpy(o->ev_bytes.ptr + o->ev_bytes.len, p, n);
  o->ev_bytes.ptr[o->ev_bytes.len + n] = '\0';
  o->ev_bytes.len += n + 1;
  return 0;
}

static int out_event(void *user, const sluice_event *ev) {
  sluice_output *o = user;
  if (o->nevents == o->cap_events) {
    size_t cap = o->cap_events ? o->cap_events * 2 : 8;
    stored_event *e = sluicep_realloc(&o->mem, o->events, cap * sizeof *e);
    if (!e) {
      o->status = SLUICE_NOMEM;
      return 1;
    }
    o->events = e;
    o->cap_events = cap;
  }
  stored_event *s = &o->events[o->nevents];
  s->ev = *ev;
  if (store(o, ev->name, ev->name ? ev->name_len : 0, &s->name_off) ||
      store(o, ev->data, ev->data ? ev->data_len : 0, &s->data_off) ||
      store(o, ev->id, ev->id ? ev->id_len : 0, &s->id_off)) {
    o->status = SLUICE_NOMEM;
    return 1;
  }
  o->nevents++;
  return 0;
}

sluice_sink sluice_output_sink(sluice_output *o) {
  sluice_sink s = {out_emit, out_event, o};
  return s;
}

const char *sluice_output_channel(const sluice_output *o, sluice_channel ch, size_t *len) {
  *len = o->chan[ch].len;
  return o->chan[ch].ptr ? o->chan[ch].ptr : "";
}

size_t sluice_output_event_count(const sluice_output *o) { return o->nevents; }

const sluice_event *sluice_output_event(const sluice_output *o, size_t i) {
  if (i >= o->nevents) return NULL;
  stored_event *s = &o->events[i];
  /* Pointers are resolved on access: the byte store may have moved. */
  s->ev.name = s->ev.name ? o->ev_bytes.ptr + s->name_off : NULL;
  s->ev.data = s->ev.data ? o->ev_bytes.ptr + s->data_off : NULL;
  s->ev.id = s->ev.id ? o->ev_bytes.ptr + s->id_off : NULL;
  return &s->ev;
}

sluice_status sluice_output_status(const sluice_output *o) { return o->status; }
