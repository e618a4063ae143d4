/*
 * capread.c: a capture's body pulled in chunks (capread.h). capsrc pushes
 * the decoded body's pieces as it reads a block of the file; they wait in
 * `fifo` (with their ends) until they are handed out, so what is held is a
 * block's worth of pieces and the chunk being handed out.
 */
#include "capread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The pieces held back as a run go to the fifo. */
static void flush_run(capread *c) {
  if (c->run_n) tbuf_xadd(&c->fifo, c->run, c->run_n);
  c->run = NULL;
  c->run_n = 0;
}

static int on_piece(void *user, const char *p, size_t n, uint64_t t, uint64_t source) {
  (void)t;
  capread *c = user;
  uint64_t start = c->fifo_at + c->fifo.n + c->run_n;
  /* A body's pieces mostly lie one after the other in the block just read:
   * one copy of the run instead of one per piece (an event each). */
  if (c->run && c->run + c->run_n == p && capsrc_in_block(c->src, p, n)) {
    c->run_n += n;
  } else {
    flush_run(c);
    if (capsrc_in_block(c->src, p, n)) {
      c->run = p;
      c->run_n = n;
    } else {
      tbuf_xadd(&c->fifo, p, n);
    }
  }
  if (c->nends == c->cap_ends && c->end0 > 0) {
    /* compact the queue before growing it */
    memmove(c->ends, c->ends + c->end0, (c->nends - c->end0) * sizeof *c->ends);
    c->nends -= c->end0;
    c->end0 = 0;
  }
  if (c->nends == c->cap_ends) {
    c->cap_ends = c->cap_ends ? c->cap_ends * 2 : 64;
    c->ends = xrealloc(c->ends, xmul(c->cap_ends, sizeof *c->ends));
  }
  c->ends[c->nends++] = start + n;
  c->recent[c->nrecent % CAPREAD_RECENT].body = start;
  c->recent[c->nrecent % CAPREAD_RECENT].source = source;
  c->nrecent++;
  return 0;
}

static int start(capread *c) {
  c->errmsg.n = 0;
  c->src = capsrc_open(c->path, 0, on_piece, c, &c->info, &c->errmsg);
  if (!c->src) {
    c->err = errno ? errno : EIO;
    return -1;
  }
  return 0;
}

static void reset_state(capread *c) {
  c->eof = 0;
  c->fifo.n = c->fpos = 0;
  c->fifo_at = 0;
  c->run = NULL;
  c->run_n = 0;
  c->nends = c->end0 = 0;
  c->nrecent = 0;
  c->off = 0;
  c->err = 0;
}

int capread_open(capread *c, const char *path, size_t max_chunk) {
  memset(c, 0, sizeof *c);
  c->path = xstrdup(path);
  c->size = UINT64_MAX;
  c->max_chunk = max_chunk;
  capread_cut_recorded(c);
  if (start(c)) {
    int e = c->err;
    capread_close(c);
    errno = e;
    return -1;
  }
  return 0;
}

void capread_close(capread *c) {
  capsrc_close(c->src);
  capsrc_info_free(&c->info);
  free(c->path);
  free(c->ends);
  tbuf_free(&c->fifo);
  tbuf_free(&c->errmsg);
  memset(c, 0, sizeof *c);
}

int capread_rewind(capread *c) {
  if (strcmp(c->path, "-") == 0) {
    errno = ESPIPE;
    return -1;
  }
  capsrc_close(c->src);
  capsrc_info_free(&c->info);
  reset_state(c);
  return start(c);
}

/* Reads one more block: 1 when it did, 0 at the end, -1 on failure. */
static int more(capread *c) {
  if (c->eof) return 0;
  int r = capsrc_step(c->src);
  flush_run(c);
  if (r < 0) {
    c->err = EINVAL;
    return -1;
  }
  if (r == 0) {
    c->eof = 1;
    if (c->size == UINT64_MAX) c->size = c->info.body_bytes;
  }
  return 1;
}

uint64_t capread_size(capread *c) {
  if (c->size != UINT64_MAX || strcmp(c->path, "-") == 0) return c->size;
  capsrc_info info;
  tbuf err = {0};
  uint64_t size = UINT64_MAX;
  if (capsrc_read(c->path, 0, NULL, NULL, &info, &err) == 0) size = info.body_bytes;
  else {
    tbuf_free(&c->errmsg);
    c->errmsg = err;
    err.p = NULL;
    c->err = EINVAL;
  }
  capsrc_info_free(&info);
  tbuf_free(&err);
  c->size = size;
  return size;
}

void capread_cut_recorded(capread *c) { c->how = RD_RECORDED; }

void capread_cut_split(capread *c, split_iter *started) {
  c->how = RD_SPLIT;
  c->split = started;
}

void capread_cut_cutter(capread *c, const cutter *cut) {
  c->how = RD_CUTTER;
  c->cut = *cut;
}

/* Drops what was handed out, so the fifo holds only what waits: at once
 * when all of it was handed out, else only once the handed-out part is the
 * larger (a move per piece would be quadratic in a block's pieces). */
static void compact(capread *c) {
  if (c->fpos == 0 || (c->fpos < c->fifo.n && c->fpos < c->fifo.n / 2)) return;
  memmove(c->fifo.p, c->fifo.p + c->fpos, c->fifo.n - c->fpos);
  c->fifo.n -= c->fpos;
  c->fifo_at += c->fpos;
  c->fpos = 0;
}

/* n bytes from the fifo, and the piece ends they pass. */
static void hand_out(capread *c, const char **p, size_t n) {
  *p = c->fifo.p ? c->fifo.p + c->fpos : "";
  c->fpos += n;
  c->off += n;
  while (c->end0 < c->nends && c->ends[c->end0] <= c->off) c->end0++;
}

int capread_next(capread *c, const char **p, size_t *n) {
  compact(c);
  size_t want;
  if (c->how == RD_RECORDED) {
    while (c->end0 == c->nends) {
      int r = more(c);
      if (r < 0) return -1;
      if (r == 0) return 0;
    }
    want = (size_t)(c->ends[c->end0] - c->off);
  } else if (c->how == RD_SPLIT) {
    if (!split_len(c->split, &want)) return 0;
  } else {
    want = cutter_next(&c->cut);
  }
  if (c->max_chunk && want > c->max_chunk) {
    c->err = EFBIG;
    return -1;
  }
  while (c->fifo.n - c->fpos < want) {
    int r = more(c);
    if (r < 0) return -1;
    if (r == 0) break;
  }
  size_t have = c->fifo.n - c->fpos;
  if (c->how == RD_CUTTER && have == 0 && want > 0 && c->eof) return 0; /* the end */
  *n = want < have ? want : have;
  hand_out(c, p, *n);
  return 1;
}

uint64_t capread_source(const capread *c, uint64_t at) {
  if (c->info.format == SLUICE_CAPTURE_SSE || c->info.format == SLUICE_CAPTURE_NDJSON) return at;
  size_t k = c->nrecent < CAPREAD_RECENT ? c->nrecent : CAPREAD_RECENT;
  for (size_t i = 0; i < k; i++) {
    size_t j = (c->nrecent - 1 - i) % CAPREAD_RECENT;
    if (c->recent[j].body <= at) return c->recent[j].source;
  }
  return at;
}

uint64_t capread_line_of(const capread *c, uint64_t offset) {
  if (strcmp(c->path, "-") == 0) return 0;
  int fd = open(c->path, O_RDONLY);
  if (fd < 0) return 0;
  char buf[65536];
  uint64_t line = 1, pos = 0;
  while (pos < offset) {
    size_t want = offset - pos < sizeof buf ? (size_t)(offset - pos) : sizeof buf;
    ssize_t r = read(fd, buf, want);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      line = 0;
      break;
    }
    for (ssize_t i = 0; i < r; i++) line += buf[i] == '\n';
    pos += (uint64_t)r;
  }
  close(fd);
  return line;
}
