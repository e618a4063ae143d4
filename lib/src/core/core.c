/*
 * core.c: the contract every filter shares: status names, allocator,
 * buffers, the filter life cycle with sticky errors, hold-back feeding.
 */
#include "sluice_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- version ---------------- */

const char *sluice_version(void) { return SLUICE_VERSION_STRING; }

/* ---------------- status ---------------- */

static const char *const status_names[] = {
#define XX(e, code, text) code,
    SLUICE_STATUS_MAP(XX)
#undef XX
};

static const char *const status_texts[] = {
#define XX(e, code, text) text,
    SLUICE_STATUS_MAP(XX)
#undef XX
};

const char *sluice_status_name(sluice_status s) {
  if ((unsigned)s >= SLUICE_STATUS_COUNT) return "unknown";
  return status_names[s];
}

const char *sluice_status_str(sluice_status s) {
  if ((unsigned)s >= SLUICE_STATUS_COUNT) return "unknown status";
  return status_texts[s];
}

const char *sluice_channel_name(sluice_channel ch) {
  static const char *const names[] = {"text", "thought", "other", "markup", "dropped"};
  if ((unsigned)ch >= SLUICE_CHANNEL_COUNT) return "unknown";
  return names[ch];
}

/* ---------------- memory ---------------- */

static void *libc_malloc(void *ctx, size_t n) {
  (void)ctx;
  return malloc(n ? n : 1);
}
static void *libc_realloc(void *ctx, void *p, size_t n) {
  (void)ctx;
  return realloc(p, n ? n : 1);
}
static void libc_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

sluice_mem sluicep_mem_or_default(const sluice_mem *mem) {
  sluice_mem m = {libc_malloc, libc_realloc, libc_free, NULL};
  if (mem && mem->malloc && mem->realloc && mem->free) m = *mem;
  return m;
}

void *sluicep_alloc(const sluice_mem *m, size_t n) { return m->malloc(m->ctx, n); }

void *sluicep_calloc(const sluice_mem *m, size_t n) {
  void *p = m->malloc(m->ctx, n);
  if (p) memset(p, 0, n);
  return p;
}

void *sluicep_realloc(const sluice_mem *m, void *p, size_t n) {
  return m->realloc(m->ctx, p, n);
}

void sluicep_dealloc(const sluice_mem *m, void *p) {
  if (p) m->free(m->ctx, p);
}

char *sluicep_strdup(const sluice_mem *m, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = sluicep_alloc(m, n);
  if (d) memcpy(d, s, n);
  return d;
}

/* ---------------- buffer ---------------- */

void sluicep_buf_init(sluicep_buf *b, const sluice_mem *mem) {
  b->mem = mem;
  b->ptr = NULL;
  b->len = 0;
  b->cap = 0;
}

int sluicep_buf_reserve(sluicep_buf *b, size_t extra) {
  if (extra > SIZE_MAX - b->len) return -1; /* size_t overflow */
  size_t want = b->len + extra;
  if (want <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < want) {
    if (cap > SIZE_MAX / 2) {
      cap = want;
      break;
    }
    cap *= 2;
  }
  char *p = sluicep_realloc(b->mem, b->ptr, cap);
  if (!p) return -1;
  b->ptr = p;
  b->cap = cap;
  return 0;
}

int sluicep_buf_append(sluicep_buf *b, const void *p, size_t n) {
  if (n == 0) return 0;
  if (sluicep_buf_reserve(b, n)) return -1;
  memcpy(b->ptr + b->len, p, n);
  b->len += n;
  return 0;
}

void sluicep_buf_consume(sluicep_buf *b, size_t n) {
  if (n >= b->len) {
    b->len = 0;
    return;
  }
  memmove(b->ptr, b->ptr + n, b->len - n);
  b->len -= n;
}

void sluicep_buf_free(sluicep_buf *b) {
  if (b->ptr) sluicep_dealloc(b->mem, b->ptr);
  b->ptr = NULL;
  b->len = b->cap = 0;
}

/* ---------------- errors ---------------- */

static void vset_error(sluice_error *err, sluice_status st, uint64_t offset, const char *fmt,
                       va_list ap) {
  err->status = st;
  err->offset = offset;
  int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
  if (n >= (int)sizeof err->message) {
    /* Truncated: never end inside a UTF-8 sequence (an option name may be
     * any text), so the message stays valid UTF-8. */
    size_t len = sizeof err->message - 1, k = len;
    while (k > 0 && ((unsigned char)err->message[k - 1] & 0xC0) == 0x80) k--;
    if (k > 0 && (unsigned char)err->message[k - 1] >= 0xC0 &&
        sluicep_u8_seq_len((const unsigned char *)err->message + k - 1, len - (k - 1)) == 0)
      err->message[k - 1] = '\0';
  }
}

void sluicep_set_error(sluice_error *err, sluice_status st, uint64_t offset, const char *fmt,
                       ...) {
  if (!err) return;
  va_list ap;
  va_start(ap, fmt);
  vset_error(err, st, offset, fmt, ap);
  va_end(ap);
}

sluice_status sluicep_nomem(sluice_error *err, const char *filter) {
  sluicep_set_error(err, SLUICE_NOMEM, 0, "out of memory creating the %s filter", filter);
  return SLUICE_NOMEM;
}

sluice_status sluicep_bad_option(sluice_error *err, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vset_error(err, SLUICE_BAD_OPTION, 0, fmt, ap);
    va_end(ap);
  }
  return SLUICE_BAD_OPTION;
}

/* ---------------- options structs ---------------- */

void sluicep_opts_init(void *o, size_t size, const void *defaults, size_t full) {
  size_t n = size < full ? size : full;
  memset(o, 0, size);
  memcpy(o, defaults, n);
  memcpy(o, &n, sizeof n); /* the size field comes first in every struct */
}

sluice_status sluicep_opts_take(void *dst, size_t dst_size, const void *src, const char *type,
                                sluice_error *err) {
  size_t n;
  memcpy(&n, src, sizeof n);
  if (n < sizeof n)
    return sluicep_bad_option(err, "%s: call %s_init before setting fields (size is %zu)", type,
                              type, n);
  if (n > dst_size)
    return sluicep_bad_option(err, "%s: the struct (%zu bytes) is from a newer sluice.h than "
                                   "the library (%zu bytes)", type, n, dst_size);
  memcpy((char *)dst + sizeof n, (const char *)src + sizeof n, n - sizeof n);
  return SLUICE_OK;
}

void sluicep_callback_failed(sluice_filter *f, sluice_channel ch) {
  sluicep_fail(f, SLUICE_CALLBACK, f->at, "the %s callback returned non-zero",
               sluice_channel_name(ch));
}

sluice_status sluicep_fail(sluice_filter *f, sluice_status st, uint64_t offset, const char *fmt,
                           ...) {
  if (f->err.status != SLUICE_OK) return f->err.status; /* the first error wins */
  va_list ap;
  va_start(ap, fmt);
  vset_error(&f->err, st, offset, fmt, ap);
  va_end(ap);
  f->stopped = 1;
  return st;
}

/* ---------------- the filter life cycle ---------------- */

/* The sink of a caller who gave none: emitting then needs no NULL test. */
static int emit_nothing(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)user, (void)ch, (void)p, (void)n;
  return 0;
}

sluice_status sluicep_filter_alloc(sluice_filter **out, size_t size, const sluicep_vtable *vt,
                                   const sluice_sink *sink, const sluice_mem *mem,
                                   sluice_error *err) {
  *out = NULL;
  sluice_mem m = sluicep_mem_or_default(mem);
  sluice_filter *f = sluicep_calloc(&m, size);
  if (!f) return sluicep_nomem(err, vt->name);
  f->vt = vt;
  f->mem = m;
  if (sink) f->sink = *sink;
  if (!f->sink.emit) f->sink.emit = emit_nothing;
  f->err.status = SLUICE_OK;
  *out = f;
  return SLUICE_OK;
}

void sluicep_event_failed(sluice_filter *f) {
  sluicep_fail(f, SLUICE_CALLBACK, f->at, "the event callback returned non-zero");
}

int sluicep_event(sluice_filter *f, const sluice_event *ev) {
  if (f->err.status != SLUICE_OK) return 1;
  if (f->sink.event && f->sink.event(f->sink.user, ev) != 0) {
    sluicep_event_failed(f);
    return 1;
  }
  return 0;
}

/* The rare cases of sluice_feed, out of its path: a stream fed a few bytes
 * at a time pays for every instruction there. */
static SLUICEP_NOINLINE sluice_status feed_rare(sluice_filter *f, const void *p, size_t n) {
  if (!f) return SLUICE_INVALID;
  if (f->err.status != SLUICE_OK) return f->err.status;
  if (f->finished) return sluicep_fail(f, SLUICE_FINISHED, f->fed, "feed after finish");
  if (n == 0) return SLUICE_OK;
  (void)p; /* NULL here: n > 0 bytes from nowhere */
  return sluicep_fail(f, SLUICE_INVALID, f->fed, "NULL bytes with a non-zero length");
}

sluice_status sluice_feed(sluice_filter *f, const void *p, size_t n) {
  if (SLUICEP_UNLIKELY(!f)) return feed_rare(f, p, n);
  if (SLUICEP_UNLIKELY(f->stopped)) return feed_rare(f, p, n);
  if (SLUICEP_UNLIKELY(!p)) return feed_rare(f, p, n);
  if (SLUICEP_UNLIKELY(!n)) return feed_rare(f, p, n);
  /* fed moves first, so that the call is the last thing done here (no
   * stack frame); the chunk's start stays in at for the error offsets. */
  uint64_t fed = f->fed;
  f->at = fed;
  f->fed = fed + n;
  return f->vt->feed(f, p, n);
}

sluice_status sluice_finish(sluice_filter *f) {
  if (!f) return SLUICE_INVALID;
  if (f->err.status != SLUICE_OK) return f->err.status;
  if (f->finished) return sluicep_fail(f, SLUICE_FINISHED, f->fed, "finish called twice");
  f->finished = 1;
  f->stopped = 1;
  f->at = f->fed;
  sluice_status st = f->vt->finish(f);
  return st != SLUICE_OK ? st : f->err.status;
}

sluice_status sluice_once(sluice_filter *f, const void *p, size_t n) {
  sluice_status st = sluice_feed(f, p, n);
  if (st != SLUICE_OK) return st;
  return sluice_finish(f);
}

sluice_status sluice_reset(sluice_filter *f) {
  if (!f || !f->vt->reset) return SLUICE_INVALID;
  f->vt->reset(f);
  memset(&f->err, 0, sizeof f->err);
  f->err.status = SLUICE_OK;
  f->fed = 0;
  f->at = 0;
  memset(f->chan_bytes, 0, sizeof f->chan_bytes);
  f->finished = 0;
  f->stopped = 0;
  return SLUICE_OK;
}

void sluice_free(sluice_filter *f) {
  if (!f) return;
  if (f->vt->destroy) f->vt->destroy(f);
  sluice_mem m = f->mem;
  sluicep_dealloc(&m, f);
}

const sluice_error *sluice_get_error(const sluice_filter *f) { return &f->err; }

const char *sluice_filter_name(const sluice_filter *f) { return f->vt->name; }

uint64_t sluice_fed(const sluice_filter *f) { return f->fed; }

uint64_t sluice_held(const sluice_filter *f) {
  uint64_t out = 0;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) out += f->chan_bytes[c];
  return f->fed > out ? f->fed - out : 0;
}

