/*
 * chunking.c: split modes, the minimizer and the rendering of chunkings.
 */
#include "chunking.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

const char *const split_mode_names[M_COUNT] = {
    "whole",  "single-cut", "pair-cuts", "byte-at-a-time", "empty-chunks",
    "random", "exhaustive", "recorded",  "stream-bytes",   "stream-random"};

int split_mode_streams(split_mode m) { return m == M_STREAM_BYTES || m == M_STREAM_RANDOM; }

void split_params_default(split_params *p) {
  p->max_exhaustive = 16;
  p->max_pairs = 48;
  p->max_single = 4096;
  p->nrandom = 32;
  p->seed = 1;
}

void chunking_clear(chunking *k) { k->n = 0; }

void chunking_push(chunking *k, size_t len) {
  if (k->n == k->cap) {
    k->cap = k->cap ? k->cap * 2 : 16;
    k->len = xrealloc(k->len, xmul(k->cap, sizeof *k->len));
  }
  k->len[k->n++] = len;
}

void chunking_copy(chunking *dst, const chunking *src) {
  chunking_clear(dst);
  for (size_t i = 0; i < src->n; i++) chunking_push(dst, src->len[i]);
}

void chunking_free(chunking *k) {
  free(k->len);
  memset(k, 0, sizeof *k);
}

size_t chunking_total(const chunking *k) {
  size_t t = 0;
  for (size_t i = 0; i < k->n; i++) t += k->len[i];
  return t;
}

/* ---------------- split modes ---------------- */

void split_begin(split_iter *it, split_mode m, size_t n, const split_params *p,
                 uint64_t case_seed, const chunking *recorded) {
  memset(it, 0, sizeof *it);
  it->mode = m;
  it->n = n;
  it->p = p;
  it->recorded = recorded;
  it->seed = case_seed ^ p->seed;
  it->rng = sluice_rng_seed(it->seed + (uint64_t)m);
  it->i = 1;
  it->j = 2;
  it->step = (p->max_single && n > p->max_single) ? n / p->max_single : 1;
}

/* Each chunking is described, not listed: cut positions (at most 33), or
 * one piece per byte, or the recorded list, with empty chunks first or
 * around every piece. split_len() then produces its lengths one at a
 * time, so a chunking of a body too large to hold a list of (replay)
 * costs no memory; split_next() collects them for the golden cases. */
enum { FORM_CUTS, FORM_UNIT, FORM_LIST };
enum { EMPTY_NONE, EMPTY_LEAD, EMPTY_AROUND };

static void describe(split_iter *it, int form, int empty) {
  it->form = form;
  it->empty = empty;
  it->piece = 0;
  it->prev = 0;
  it->gap = empty != EMPTY_NONE;
  if (form == FORM_CUTS) it->npieces = it->ncuts + 1;
  else if (form == FORM_UNIT) it->npieces = it->n;
  else it->npieces = it->recorded->n;
}

/* Random distinct cut positions in (0, n), 1 to 32 of them, sorted. */
static void random_cuts(split_iter *it) {
  size_t n = it->n, nc = 0;
  size_t maxk = n - 1 < 32 ? n - 1 : 32;
  size_t k = 1 + (size_t)sluice_rng_below(&it->rng, maxk);
  for (size_t i = 0; i < k; i++) {
    size_t c = 1 + (size_t)sluice_rng_below(&it->rng, n - 1), at = nc;
    while (at > 0 && it->cuts[at - 1] > c) at--;
    if (at > 0 && it->cuts[at - 1] == c) continue; /* already a cut */
    memmove(it->cuts + at + 1, it->cuts + at, (nc - at) * sizeof *it->cuts);
    it->cuts[at] = c;
    nc++;
  }
  it->ncuts = nc;
}

/* M_PAIRS: the next pair of cuts (i, j), j after i. 0 when there is none. */
static int start_pair(split_iter *it) {
  size_t n = it->n;
  if (n > it->p->max_pairs) return 0;
  while (it->i < n && it->j >= n) {
    it->i++;
    it->j = it->i + 1;
  }
  if (it->i >= n) return 0;
  it->cuts[0] = it->i;
  it->cuts[1] = it->j;
  it->ncuts = 2;
  describe(it, FORM_CUTS, EMPTY_NONE);
  it->j++;
  return 1;
}

/* M_EMPTY: 0: empty chunks around every byte; 1: one empty chunk, then the
 * whole; 2..9: random cuttings with empty chunks around every piece. 0
 * after the last. */
static int start_empty(split_iter *it) {
  if (it->count == 0) {
    describe(it, FORM_UNIT, EMPTY_AROUND);
  } else if (it->count == 1) {
    describe(it, FORM_CUTS, EMPTY_LEAD);
  } else if (it->count < 10 && it->n > 1) {
    random_cuts(it);
    describe(it, FORM_CUTS, EMPTY_AROUND);
  } else {
    return 0;
  }
  it->count++;
  return 1;
}

/* M_EXHAUSTIVE: the cuttings in the order of their bit masks. 0 after the
 * last, or for an input out of the mode's range. */
static int start_exhaustive(split_iter *it) {
  size_t n = it->n;
  if (n < 2 || n > it->p->max_exhaustive || n > 24) return 0;
  if (it->mask >= (1ULL << (n - 1))) return 0;
  for (size_t i = 1; i < n; i++)
    if (it->mask & (1ULL << (i - 1))) it->cuts[it->ncuts++] = i;
  describe(it, FORM_CUTS, EMPTY_NONE);
  it->mask++;
  return 1;
}

int split_start(split_iter *it) {
  size_t n = it->n;
  if (it->done) return 0;
  it->ncuts = 0;
  switch (it->mode) {
  case M_WHOLE:
    describe(it, FORM_CUTS, EMPTY_NONE);
    it->done = 1;
    return 1;
  case M_SINGLE:
    if (it->i >= n) break;
    it->cuts[0] = it->i;
    it->ncuts = 1;
    describe(it, FORM_CUTS, EMPTY_NONE);
    it->i += it->step;
    return 1;
  case M_PAIRS:
    if (start_pair(it)) return 1;
    break;
  case M_BYTES:
  case M_STREAM_BYTES:
    describe(it, FORM_UNIT, EMPTY_NONE);
    it->done = 1;
    return n > 0 || it->mode == M_STREAM_BYTES; /* an empty input still streams */
  case M_EMPTY:
    if (start_empty(it)) return 1;
    break;
  case M_RANDOM:
    if (it->count >= it->p->nrandom || n < 2) break;
    random_cuts(it);
    describe(it, FORM_CUTS, EMPTY_NONE);
    it->count++;
    return 1;
  case M_STREAM_RANDOM:
    if (n < 2) {
      describe(it, FORM_CUTS, EMPTY_LEAD);
    } else {
      random_cuts(it);
      describe(it, FORM_CUTS, EMPTY_AROUND);
    }
    it->done = 1;
    return 1;
  case M_EXHAUSTIVE:
    if (start_exhaustive(it)) return 1;
    break;
  case M_RECORDED:
    if (!it->recorded) break;
    describe(it, FORM_LIST, EMPTY_NONE);
    it->done = 1;
    return 1;
  default: break;
  }
  it->done = 1;
  return 0;
}

int split_len(split_iter *it, size_t *len) {
  if (it->gap) {
    /* an empty chunk: the leading one, or one before or after a piece */
    it->gap = 0;
    *len = 0;
    return 1;
  }
  if (it->piece == it->npieces) return 0;
  if (it->form == FORM_UNIT) {
    *len = 1;
  } else if (it->form == FORM_LIST) {
    *len = it->recorded->len[it->piece];
  } else {
    size_t end = it->piece < it->ncuts ? it->cuts[it->piece] : it->n;
    *len = end - it->prev;
    it->prev = end;
  }
  it->piece++;
  it->gap = it->empty == EMPTY_AROUND;
  return 1;
}

int split_next(split_iter *it, chunking *out) {
  chunking_clear(out);
  if (!split_start(it)) return 0;
  size_t len;
  while (split_len(it, &len)) chunking_push(out, len);
  return 1;
}

void cutter_init(cutter *c, cut_kind kind, size_t size, uint64_t seed) {
  c->kind = kind;
  c->size = size ? size : 1;
  c->rng = sluice_rng_seed(seed);
}

size_t cutter_next(cutter *c) {
  if (c->kind == CUT_SIZE) return c->size;
  /* about one chunk in eight is empty; the others 1 to size bytes */
  if (sluice_rng_below(&c->rng, 8) == 0) return 0;
  return 1 + (size_t)sluice_rng_below(&c->rng, c->size);
}

/* ---------------- the minimizer ----------------
 * A chunking is its list of boundaries: b_1 <= ... <= b_m in [0, n], the
 * ends of every chunk but the last. Removing a boundary merges two chunks
 * (or drops an empty one), so every subset of the boundaries is a
 * chunking of the same input, and delta debugging over that set applies. */

static void from_bounds(chunking *k, const size_t *b, size_t m, size_t n) {
  chunking_clear(k);
  size_t prev = 0;
  for (size_t i = 0; i < m; i++) {
    chunking_push(k, b[i] - prev);
    prev = b[i];
  }
  chunking_push(k, n - prev);
}

void minimize_chunking(chunking *k, int (*still_fails)(const chunking *, void *), void *ctx,
                       size_t budget) {
  size_t n = chunking_total(k);
  size_t m = k->n ? k->n - 1 : 0;
  size_t *b = xmalloc(xmul(m + 1, sizeof *b)), *t = xmalloc(xmul(m + 1, sizeof *t));
  size_t pos = 0;
  for (size_t i = 0; i < m; i++) b[i] = pos += k->len[i];
  chunking trial = {0};
  size_t g = 2;
  while (m > 0 && budget > 0) {
    int reduced = 0;
    if (g > m) g = m;
    /* Try each part alone, then each complement. */
    for (int pass = 0; pass < 2 && !reduced; pass++) {
      for (size_t part = 0; part < g && budget > 0; part++) {
        size_t lo = m * part / g, hi = m * (part + 1) / g, tn = 0;
        for (size_t i = 0; i < m; i++)
          if ((i >= lo && i < hi) == (pass == 0)) t[tn++] = b[i];
        if (tn == m) continue;
        from_bounds(&trial, t, tn, n);
        budget--;
        if (still_fails(&trial, ctx)) {
          memcpy(b, t, tn * sizeof *b);
          m = tn;
          g = pass == 0 ? 2 : (g > 2 ? g - 1 : 2);
          reduced = 1;
          break;
        }
      }
    }
    if (!reduced) {
      if (g >= m) break; /* every single boundary is needed */
      g = g * 2 < m ? g * 2 : m;
    }
  }
  from_bounds(k, b, m, n);
  chunking_free(&trial);
  free(b);
  free(t);
}

/* ---------------- rendering ---------------- */

void chunking_show(tbuf *b, const char *p, const chunking *k, int full) {
  size_t show_head = k->n, skip_to = k->n;
  if (!full && k->n > 12) {
    show_head = 8;
    skip_to = k->n - 3;
  }
  tbuf_xadds(b, "[");
  size_t off = 0;
  for (size_t i = 0; i < k->n; i++) {
    if (i == show_head) {
      size_t bytes = 0;
      for (size_t j = i; j < skip_to; j++) bytes += k->len[j];
      tbuf_xprintf(b, ", ... %zu more chunks (%zu bytes) ...", skip_to - i, bytes);
      for (; i < skip_to; i++) off += k->len[i];
      i--;
      continue;
    }
    if (i) tbuf_xadds(b, ", ");
    bytes_show(b, p + off, k->len[i], full ? 0 : 80);
    off += k->len[i];
  }
  tbuf_xadds(b, "]");
}
