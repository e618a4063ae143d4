/*
 * output.c: a sink that keeps every channel and a copy of every event. The
 * one-call helpers, the protocol server and the tests use it.
 *
 * Event records and the bytes they point to never move once stored, so the
 * pointers sluice_output_event() hands out stay valid until reset or free:
 * records live in fixed-size pages and bytes in an arena of blocks that is
 * only ever appended to (a new block when one is full, never a realloc).
 * A reset keeps the pages and blocks for the next use rather than freeing
 * them: a collector reset per stream (the replay tools, the fuzz targets)
 * then allocates only when a stream needs more than any before it.
 */
#include "sluice_private.h"

#include <string.h>

#define EVENTS_PER_PAGE 64
#define ARENA_BLOCK 4096

typedef struct ev_page {
  struct ev_page *next;
  sluice_event ev[EVENTS_PER_PAGE];
} ev_page;

typedef struct arena_block {
  struct arena_block *next;
  size_t used, cap;
  char bytes[]; /* cap bytes */
} arena_block;

struct sluice_output {
  sluice_mem mem;
  sluicep_buf chan[SLUICE_CHANNEL_COUNT];
  ev_page *pages, *last_page; /* pages in order; last_page is the last in use, the
                               * ones after it were kept by a reset */
  ev_page **index;            /* page i, for O(1) access by event number */
  size_t nindex, cap_index;
  size_t nevents;
  arena_block *blocks; /* newest first */
  arena_block *spare;  /* blocks kept by a reset, for reuse */
  sluice_status status;
};

sluice_status sluice_output_new(sluice_output **out, const sluice_mem *mem) {
  sluice_mem m = sluicep_mem_or_default(mem);
  *out = NULL;
  sluice_output *o = sluicep_calloc(&m, sizeof *o);
  if (!o) return SLUICE_NOMEM;
  o->mem = m;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) sluicep_buf_init(&o->chan[c], &o->mem);
  o->status = SLUICE_OK;
  *out = o;
  return SLUICE_OK;
}

static void free_blocks(sluice_output *o, arena_block *b) {
  for (arena_block *next; b; b = next) {
    next = b->next;
    sluicep_dealloc(&o->mem, b);
  }
}

static void free_storage(sluice_output *o) {
  for (ev_page *p = o->pages, *next; p; p = next) {
    next = p->next;
    sluicep_dealloc(&o->mem, p);
  }
  free_blocks(o, o->blocks);
  free_blocks(o, o->spare);
  o->pages = o->last_page = NULL;
  o->blocks = o->spare = NULL;
  o->nindex = 0;
  o->nevents = 0;
}

void sluice_output_free(sluice_output *o) {
  if (!o) return;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) sluicep_buf_free(&o->chan[c]);
  free_storage(o);
  sluice_mem m = o->mem;
  sluicep_dealloc(&m, o->index);
  sluicep_dealloc(&m, o);
}

void sluice_output_reset(sluice_output *o) {
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) o->chan[c].len = 0;
  /* the pages stay linked from o->pages (new_slot walks them again); the
   * blocks move to the spare list */
  o->last_page = NULL;
  o->nindex = 0;
  o->nevents = 0;
  if (o->blocks) {
    arena_block *b = o->blocks;
    while (b->next) b = b->next;
    b->next = o->spare;
    o->spare = o->blocks;
    o->blocks = NULL;
  }
  o->status = SLUICE_OK;
}

/* A block of at least `need` bytes: the first spare one when it is large
 * enough, else a new one, which replaces that spare one (freed). Only the
 * first is looked at, so a copy costs the same after a reset whatever the
 * earlier stream left (searching the list would cost each copy larger than
 * a block the whole list). Replacing it keeps the number of blocks a reset
 * collector holds to the most that one stream used: kept as well, the too
 * small ones piled up behind the front of the list, one more at every such
 * copy, and such a stream allocated more blocks than it freed (which
 * libFuzzer answers by running the input again and checking the whole
 * heap for leaks). */
static arena_block *new_block(sluice_output *o, size_t need) {
  if (o->spare && o->spare->cap >= need) {
    arena_block *b = o->spare;
    o->spare = b->next;
    return b;
  }
  if (o->spare) {
    arena_block *small = o->spare;
    o->spare = small->next;
    sluicep_dealloc(&o->mem, small);
  }
  if (need > SIZE_MAX - sizeof(arena_block) - ARENA_BLOCK) return NULL;
  size_t cap = need > ARENA_BLOCK ? need : ARENA_BLOCK;
  arena_block *b = sluicep_alloc(&o->mem, sizeof *b + cap);
  if (b) b->cap = cap;
  return b;
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

/* A copy of p[0..n) plus a NUL in the arena; NULL when out of memory. */
static const char *arena_copy(sluice_output *o, const char *p, size_t n) {
  arena_block *b = o->blocks;
  if (!b || b->cap - b->used < n + 1) {
    if (n == SIZE_MAX) return NULL;
    b = new_block(o, n + 1);
    if (!b) return NULL;
    b->used = 0;
    b->next = o->blocks;
    o->blocks = b;
  }
  char *d = b->bytes + b->used;
  if (n) memcpy(d, p, n);
  d[n] = '\0';
  b->used += n + 1;
  return d;
}

/* A new record slot, or NULL when out of memory. */
static sluice_event *new_slot(sluice_output *o) {
  size_t k = o->nevents % EVENTS_PER_PAGE;
  if (k == 0) {
    if (o->nindex == o->cap_index) {
      size_t cap = o->cap_index ? o->cap_index * 2 : 8;
      ev_page **ix = sluicep_realloc(&o->mem, o->index, cap * sizeof *ix);
      if (!ix) return NULL;
      o->index = ix;
      o->cap_index = cap;
    }
    /* the page after the last one in use, kept by a reset, or a new one */
    ev_page *pg = o->last_page ? o->last_page->next : o->pages;
    if (!pg) {
      pg = sluicep_alloc(&o->mem, sizeof *pg);
      if (!pg) return NULL;
      pg->next = NULL;
      if (o->last_page) o->last_page->next = pg;
      else o->pages = pg;
    }
    o->last_page = pg;
    o->index[o->nindex++] = pg;
  }
  return &o->last_page->ev[k];
}

static int out_event(void *user, const sluice_event *ev) {
  sluice_output *o = user;
  sluice_event copy = *ev;
  if ((ev->name && !(copy.name = arena_copy(o, ev->name, ev->name_len))) ||
      (ev->data && !(copy.data = arena_copy(o, ev->data, ev->data_len))) ||
      (ev->id && !(copy.id = arena_copy(o, ev->id, ev->id_len)))) {
    o->status = SLUICE_NOMEM;
    return 1;
  }
  sluice_event *slot = new_slot(o);
  if (!slot) {
    o->status = SLUICE_NOMEM;
    return 1;
  }
  *slot = copy;
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
  return &o->index[i / EVENTS_PER_PAGE]->ev[i % EVENTS_PER_PAGE];
}

sluice_status sluice_output_status(const sluice_output *o) { return o->status; }
