/*
 * capread.c: reading a capture as it goes (capread.h).
 */
#include "capread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 65536
#define MAX_RECORD ((size_t)1 << 20) /* a recorded chunk is cut here at the latest */

int capread_open(capread *c, const char *path, size_t max_chunk) {
  memset(c, 0, sizeof *c);
  c->fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY);
  if (c->fd < 0) return -1;
  c->own = c->fd != STDIN_FILENO;
  struct stat st;
  c->size = fstat(c->fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
  c->blk = xmalloc(BLOCK);
  c->max_chunk = max_chunk;
  c->big.limit = max_chunk ? max_chunk + 1 : 0;
  capread_cut_recorded(c);
  return 0;
}

void capread_close(capread *c) {
  if (c->own) close(c->fd);
  free(c->blk);
  tbuf_free(&c->big);
  memset(c, 0, sizeof *c);
  c->fd = -1;
}

int capread_rewind(capread *c) {
  if (lseek(c->fd, 0, SEEK_SET) != 0) return -1;
  c->off = 0;
  c->blen = c->bpos = 0;
  c->eof = 0;
  c->err = 0;
  return 0;
}

void capread_cut_recorded(capread *c) {
  c->how = RD_RECORDED;
  c->lines = -1; /* decided at the first byte that is not whitespace */
  c->last4 = 0;
}

void capread_cut_split(capread *c, split_iter *started) {
  c->how = RD_SPLIT;
  c->split = started;
}

void capread_cut_cutter(capread *c, const cutter *cut) {
  c->how = RD_CUTTER;
  c->cut = *cut;
}

/* More bytes in the block; 0 at the end of the file, -1 on error. */
static int refill(capread *c) {
  if (c->eof) return 0;
  for (;;) {
    ssize_t r = read(c->fd, c->blk, BLOCK);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      c->err = errno;
      return -1;
    }
    c->blen = (size_t)r;
    c->bpos = 0;
    if (r == 0) c->eof = 1;
    return r > 0;
  }
}

static int grow(capread *c, const char *p, size_t n) {
  if (tbuf_add(&c->big, p, n) == 0) return 0;
  c->err = c->big.limit && c->big.n + n > c->max_chunk ? EFBIG : ENOMEM;
  return -1;
}

/* `want` bytes (fewer at the end of the file) at *p. */
static int take(capread *c, size_t want, const char **p, size_t *n) {
  if (c->bpos == c->blen && want > 0) {
    int r = refill(c);
    if (r < 0) return -1;
  }
  if (c->blen - c->bpos >= want) {
    *p = c->blk + c->bpos;
    *n = want;
    c->bpos += want;
    c->off += want;
    return 0;
  }
  c->big.n = 0;
  while (c->big.n < want) {
    if (c->bpos == c->blen) {
      int r = refill(c);
      if (r < 0) return -1;
      if (r == 0) break;
    }
    size_t k = c->blen - c->bpos;
    if (k > want - c->big.n) k = want - c->big.n;
    if (grow(c, c->blk + c->bpos, k)) return -1;
    c->bpos += k;
  }
  *p = c->big.p ? c->big.p : "";
  *n = c->big.n;
  c->off += c->big.n;
  return 0;
}

/* Scans blk[from, blen) for the end of the next recorded chunk: 1 with
 * *end just after it, or 0 (with *end = blen) when the block has none. A
 * JSON line ends at its LF; an SSE event at a blank line (LF LF, CR LF CR
 * LF or CR CR). LFs are found with memchr; bytes are looked at one by one
 * only in a stretch that holds a CR. */
static int scan_record(capread *c, size_t from, size_t *end) {
  const char *b = c->blk;
  size_t i = from;
  while (c->lines < 0 && i < c->blen) {
    unsigned char x = (unsigned char)b[i];
    if (x == ' ' || x == '\t' || x == '\r' || x == '\n') {
      c->last4 = (c->last4 << 8) | x;
      i++;
    } else {
      c->lines = x == '{';
    }
  }
  while (i < c->blen) {
    const char *lf = memchr(b + i, '\n', c->blen - i);
    size_t stop = lf ? (size_t)(lf - b) : c->blen; /* the LF, or the block's end */
    if (c->lines == 1) {
      if (!lf) break;
      *end = stop + 1;
      return 1;
    }
    if (memchr(b + i, '\r', stop - i)) {
      for (; i < stop; i++) {
        c->last4 = (c->last4 << 8) | (unsigned char)b[i];
        if ((c->last4 & 0xFFFF) == 0x0D0D) { /* CR CR */
          c->last4 = 0;
          *end = i + 1;
          return 1;
        }
      }
    } else {
      for (size_t k = stop - i > 4 ? stop - 4 : i; k < stop; k++)
        c->last4 = (c->last4 << 8) | (unsigned char)b[k];
    }
    if (!lf) break;
    c->last4 = (c->last4 << 8) | 0x0A;
    i = stop + 1;
    if ((c->last4 & 0xFFFF) == 0x0A0A || c->last4 == 0x0D0A0D0A) {
      c->last4 = 0;
      *end = i;
      return 1;
    }
  }
  *end = c->blen;
  return 0;
}

static int next_record(capread *c, const char **p, size_t *n) {
  c->big.n = 0;
  for (;;) {
    if (c->bpos == c->blen) {
      int r = refill(c);
      if (r < 0) return -1;
      if (r == 0) break;
    }
    size_t e;
    int found = scan_record(c, c->bpos, &e);
    if (e - c->bpos > MAX_RECORD - c->big.n) { /* a record this long is cut */
      e = c->bpos + (MAX_RECORD - c->big.n);
      found = 1;
    }
    if (found && c->big.n == 0) {
      *p = c->blk + c->bpos;
      *n = e - c->bpos;
      c->bpos = e;
      c->off += *n;
      return 1;
    }
    if (grow(c, c->blk + c->bpos, e - c->bpos)) return -1;
    c->bpos = e;
    if (found) break;
  }
  if (c->big.n == 0) return 0;
  *p = c->big.p;
  *n = c->big.n;
  c->off += c->big.n;
  return 1;
}

int capread_next(capread *c, const char **p, size_t *n) {
  size_t want;
  switch (c->how) {
  case RD_RECORDED: return next_record(c, p, n);
  case RD_SPLIT:
    if (!split_len(c->split, &want)) return 0;
    break;
  default:
    if (c->eof && c->bpos == c->blen) return 0;
    want = cutter_next(&c->cut);
    break;
  }
  if (c->max_chunk && want > c->max_chunk) {
    c->err = EFBIG;
    return -1;
  }
  if (take(c, want, p, n)) return -1;
  if (c->how == RD_CUTTER && *n == 0 && want > 0) return 0; /* the end of the file */
  return 1;
}

uint64_t capread_line_of(const capread *c, uint64_t offset) {
  if (c->size == UINT64_MAX) return 0;
  char buf[BLOCK];
  uint64_t line = 1, pos = 0;
  while (pos < offset) {
    size_t want = offset - pos < BLOCK ? (size_t)(offset - pos) : BLOCK;
    ssize_t r = pread(c->fd, buf, want, (off_t)pos);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    for (ssize_t i = 0; i < r; i++) line += buf[i] == '\n';
    pos += (uint64_t)r;
  }
  return line;
}
