/* fuzz_jansson_arena.h: jansson's memory, while a check loads a text, from
 * one arena emptied after it, instead of a malloc and a free under
 * AddressSanitizer per value (perf: loading every snapshot was a third of
 * fuzz_json_incremental's time, most of it ASan's allocator, its quarantine
 * and the page faults of fresh memory; its snapshots are read by
 * fuzz_json_push.h now, and jansson loads only its values and what the
 * grammar refuses). Header-only, for the json targets: jansson's functions
 * are the process's, so only where no other thread uses jansson meanwhile. */
#ifndef SLUICE_FUZZ_JANSSON_ARENA_H
#define SLUICE_FUZZ_JANSSON_ARENA_H

#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>

/* Blocks are chained when one is full, and merged into one of their total
 * size when emptied, so that the next load fits in one. */
typedef struct fja_block {
  struct fja_block *next;
  size_t used, cap;
  max_align_t data[];
} fja_block;
static fja_block *fja_arena;
static json_malloc_t fja_malloc;
static json_free_t fja_free;

static void *fja_alloc(size_t n) {
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  fja_block *b = fja_arena;
  if (!b || b->cap - b->used < n) {
    size_t cap = b && b->cap * 2 > n ? b->cap * 2 : n > 65536 ? n : 65536;
    b = malloc(sizeof *b + cap);
    if (!b) abort();
    b->next = fja_arena, b->used = 0, b->cap = cap;
    fja_arena = b;
  }
  void *p = (char *)b->data + b->used;
  b->used += n;
  return p;
}

static void fja_nofree(void *p) { (void)p; }

/* on: jansson allocates from the arena (nothing it makes may outlive the
 * matching off); off: jansson's functions as they were, the arena empty. */
static void fuzz_jansson_arena(int on) {
  if (on) {
    json_get_alloc_funcs(&fja_malloc, &fja_free);
    json_set_alloc_funcs(fja_alloc, fja_nofree);
    return;
  }
  json_set_alloc_funcs(fja_malloc, fja_free);
  if (fja_arena && fja_arena->next) {
    size_t total = 0;
    while (fja_arena) {
      fja_block *b = fja_arena;
      total += b->cap;
      fja_arena = b->next;
      free(b);
    }
    fja_arena = malloc(sizeof *fja_arena + total);
    if (!fja_arena) abort();
    fja_arena->next = NULL, fja_arena->cap = total;
  }
  if (fja_arena) fja_arena->used = 0;
}

#endif
