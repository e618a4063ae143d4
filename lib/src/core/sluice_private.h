/*
 * sluice_private.h: what the filters share inside the library. Nothing here
 * is part of the public API; internal symbols are sluicep_ or static.
 */
#ifndef SLUICE_PRIVATE_H
#define SLUICE_PRIVATE_H

#include "portable.h"
#include "sluice.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Functions marked SLUICE_API are exported from libsluice (but are not in
 * sluice.h): libsluice-kit, built from the same sources and version, builds
 * its filters (the providers, the pipeline) on the same base. */

/* ---------------- memory ---------------- */
SLUICE_API void *sluicep_alloc(const sluice_mem *m, size_t n);
SLUICE_API void *sluicep_calloc(const sluice_mem *m, size_t n);
SLUICE_API void *sluicep_realloc(const sluice_mem *m, void *p, size_t n);
SLUICE_API void sluicep_dealloc(const sluice_mem *m, void *p);
/* Copies a NUL-terminated string with the allocator; NULL on failure. */
SLUICE_API char *sluicep_strdup(const sluice_mem *m, const char *s);
/* The allocator to use: *mem, or libc's when mem is NULL. */
SLUICE_API sluice_mem sluicep_mem_or_default(const sluice_mem *mem);

/* ---------------- growable byte buffer ----------------
 * Carries its allocator (cmark's strbuf). Growth doubles, with a check for
 * size_t overflow. An empty buffer never allocates. */
typedef struct sluicep_buf {
  const sluice_mem *mem;
  char *ptr;
  size_t len;
  size_t cap;
} sluicep_buf;

SLUICE_API void sluicep_buf_init(sluicep_buf *b, const sluice_mem *mem);
/* 0 on success, -1 when out of memory (the buffer is unchanged). */
SLUICE_API int sluicep_buf_reserve(sluicep_buf *b, size_t extra);
SLUICE_API int sluicep_buf_append(sluicep_buf *b, const void *p, size_t n);
/* Removes the first n bytes. */
SLUICE_API void sluicep_buf_consume(sluicep_buf *b, size_t n);
SLUICE_API void sluicep_buf_free(sluicep_buf *b);

/* ---------------- the filter base ----------------
 * Every filter struct starts with a sluice_filter. */
typedef struct sluicep_vtable {
  const char *name;
  /* Called by sluice_feed with n > 0 (or n == 0, which must be a no-op);
   * returns the filter's sticky status (f->err.status). */
  sluice_status (*feed)(sluice_filter *f, const char *p, size_t n);
  sluice_status (*finish)(sluice_filter *f);
  void (*destroy)(sluice_filter *f); /* frees what the filter owns, not f */
  /* sluice_reset: the filter's own state back to what its constructor
   * left, keeping its tables and buffers (the base is reset by the
   * caller); NULL when the filter cannot be reset. */
  void (*reset)(sluice_filter *f);
} sluicep_vtable;

struct sluice_filter {
  const sluicep_vtable *vt;
  sluice_mem mem;
  sluice_sink sink;
  sluice_error err;
  uint64_t fed;                              /* bytes fed so far, the current chunk too */
  uint64_t at;                               /* where the chunk being fed starts: the
                                                offset of NOMEM and CALLBACK errors */
  uint64_t chan_bytes[SLUICE_CHANNEL_COUNT]; /* bytes emitted per channel */
  int finished;
  int stopped; /* an error or finished: sluice_feed's one test on its fast path */
};

/* Allocates a filter struct of `size` bytes (zeroed) with its base set up. */
SLUICE_API sluice_status sluicep_filter_alloc(sluice_filter **out, size_t size, const sluicep_vtable *vt,
                                   const sluice_sink *sink, const sluice_mem *mem,
                                   sluice_error *err);

/* Sets the sticky error (the first one wins) and returns its status. */
SLUICE_API sluice_status sluicep_fail(sluice_filter *f, sluice_status st, uint64_t offset, const char *fmt,
                           ...) SLUICEP_PRINTF(4, 5);

/* Emits bytes on a channel. Returns non-zero when the filter must stop (the
 * callback asked to, or an earlier error). n == 0 emits nothing. */
SLUICE_API void sluicep_callback_failed(sluice_filter *f, sluice_channel ch);
static inline int sluicep_emit(sluice_filter *f, sluice_channel ch, const char *p, size_t n) {
  if (f->err.status != SLUICE_OK) return 1;
  if (n == 0) return 0;
  f->chan_bytes[ch] += n;
  if (f->sink.emit(f->sink.user, ch, p, n) != 0) {
    sluicep_callback_failed(f, ch);
    return 1;
  }
  return 0;
}
/* sluicep_emit for a fast path that knows there is no error and n > 0.
 * (sink.emit is never NULL: sluicep_filter_alloc puts a no-op there.) */
static inline int sluicep_emit_ok(sluice_filter *f, sluice_channel ch, const char *p, size_t n) {
  f->chan_bytes[ch] += n;
  if (f->sink.emit(f->sink.user, ch, p, n) != 0) {
    sluicep_callback_failed(f, ch);
    return 1;
  }
  return 0;
}
/* Sends an event. Returns non-zero when the filter must stop. */
SLUICE_API int sluicep_event(sluice_filter *f, const sluice_event *ev);
/* sluicep_event for a hot path (json sends a repair event every few bytes
 * of messy input): the tests and the call inline, the failure out of line. */
SLUICE_API void sluicep_event_failed(sluice_filter *f);
static inline int sluicep_event_inline(sluice_filter *f, const sluice_event *ev) {
  if (f->err.status != SLUICE_OK) return 1;
  if (f->sink.event && f->sink.event(f->sink.user, ev) != 0) {
    sluicep_event_failed(f);
    return 1;
  }
  return 0;
}

/* ---------------- hold-back feeding ----------------
 * Many filters decide on a byte only after seeing a bounded number of bytes
 * after it (a partial tag or token). They implement
 *     size_t process(f, p, n, final)
 * that consumes and emits as much of p[0..n) as can be decided and returns
 * the count; the undecided tail must be shorter than `maxhold`. With final
 * set it must consume everything. sluicep_held_feed keeps the tail in `hold`
 * and joins it with the next chunk, copying at most maxhold bytes of the new
 * chunk, so the work stays linear whatever the chunking. */
typedef size_t (*sluicep_process_fn)(sluice_filter *f, const char *p, size_t n, int final);

/* Inline, so that a filter's process() is inlined into its feed: the
 * per-call cost matters when a stream arrives a byte at a time. */

static inline sluice_status sluicep_held_feed(sluice_filter *f, sluicep_buf *hold, size_t maxhold,
                                sluicep_process_fn process, const char *p, size_t n) {
  if (hold->len > 0) {
    /* Top the held tail up with at most maxhold new bytes: every candidate
     * that starts inside the old tail is then decided, so the process call
     * consumes at least the old tail and the rest of the chunk can be
     * processed in place, without copying it. */
    size_t old = hold->len;
    size_t k = n < maxhold ? n : maxhold;
    if (sluicep_buf_append(hold, p, k))
      return sluicep_fail(f, SLUICE_NOMEM, f->at, "out of memory holding back a partial match");
    size_t c = process(f, hold->ptr, hold->len, 0);
    if (f->err.status != SLUICE_OK) return f->err.status;
    if (c < hold->len && k == n) {
      /* The whole chunk went into the hold and its tail is still undecided. */
      sluicep_buf_consume(hold, c);
      return SLUICE_OK;
    }
    if (c < old) /* process() left an undecided tail of maxhold bytes or more */
      return sluicep_fail(f, SLUICE_INVALID, f->at, "internal: hold-back exceeded its bound");
    /* Continue with the chunk from the first unconsumed byte. */
    size_t skip = c - old;
    hold->len = 0;
    p += skip;
    n -= skip;
  }
  size_t c = process(f, p, n, 0);
  if (f->err.status != SLUICE_OK) return f->err.status;
  if (c < n && sluicep_buf_append(hold, p + c, n - c))
    return sluicep_fail(f, SLUICE_NOMEM, f->at, "out of memory holding back a partial match");
  return SLUICE_OK;
}

static inline sluice_status sluicep_held_finish(sluice_filter *f, sluicep_buf *hold,
                                  sluicep_process_fn process) {
  if (hold->len > 0) {
    process(f, hold->ptr, hold->len, 1);
    hold->len = 0;
  }
  return f->err.status;
}

/* ---------------- UTF-8 ----------------
 * Code-point counting where a chunk may cut a sequence anywhere. A
 * well-formed sequence (RFC 3629: no overlongs, no surrogates, at most
 * U+10FFFF) is one code point; every byte that is not part of one counts as
 * one code point on its own. */
typedef struct sluicep_u8 {
  uint8_t pend[4]; /* bytes of an incomplete, so far valid sequence */
  uint8_t npend;
  uint8_t need; /* total length of the pending sequence */
} sluicep_u8;

/* Feeds one byte; returns how many code points became final (0 to 4).
 * If cps is not NULL, the code points (or, for invalid bytes, 0xFFFFFFFF
 * ORed with nothing: the byte value | 0x80000000) are written there. */
int sluicep_u8_step(sluicep_u8 *st, uint8_t byte, uint32_t cps[4]);
/* End of stream: pending bytes become single code points. */
int sluicep_u8_flush(sluicep_u8 *st, uint32_t cps[4]);
/* Length of the well-formed sequence starting at p (1 to 4), or 0 if p[0..n)
 * does not start with one (an invalid byte, or a sequence cut by n). */
size_t sluicep_u8_seq_len(const unsigned char *p, size_t n);
/* The code point of the well-formed sequence p[0..len) (len as returned by
 * sluicep_u8_seq_len, 1 to 4). */
uint32_t sluicep_u8_decode(const unsigned char *p, size_t len);
/* Writes the UTF-8 encoding of cp (at most U+10FFFF, not a surrogate) to
 * out and returns its length (1 to 4). */
size_t sluicep_u8_encode(uint32_t cp, unsigned char out[4]);

/* Python's str.isspace() on one code point. */
int sluicep_is_space_cp(uint32_t cp);
/* The length of the whitespace code point (as in sluicep_is_space_cp) that
 * starts p[0..n), 0 if none. *partial is set when p[0..n) is a proper prefix
 * of a whitespace code point (more bytes are needed to decide). */
size_t sluicep_space_len(const unsigned char *p, size_t n, int *partial);

/* ---------------- errors and options ---------------- */
/* These two are exported from libsluice (but not in sluice.h): libsluice-kit,
 * built from the same sources and version, reports bad options with them. */
/* Sets *err (when err is not NULL). */
SLUICE_API void sluicep_set_error(sluice_error *err, sluice_status st, uint64_t offset,
                                  const char *fmt, ...) SLUICEP_PRINTF(4, 5);
/* SLUICE_BAD_OPTION with a message in *err; returns SLUICE_BAD_OPTION. */
SLUICE_API sluice_status sluicep_bad_option(sluice_error *err, const char *fmt, ...)
    SLUICEP_PRINTF(2, 3);

/* SLUICE_NOMEM with "out of memory creating the <filter> filter". */
SLUICE_API sluice_status sluicep_nomem(sluice_error *err, const char *filter);

/* Copies a caller's options struct (which starts with its size) into *dst,
 * a struct of dst_size bytes that init already filled with the defaults:
 * fields past the caller's size keep them. A size of 0 (never initialized)
 * or larger than dst_size (a newer header) is SLUICE_BAD_OPTION. */
SLUICE_API sluice_status sluicep_opts_take(void *dst, size_t dst_size, const void *src, const char *type,
                                sluice_error *err);
/* A copy of a stage's options struct of kind k (think, clean, harmony,
 * monitor or json), with everything it points to, in one block allocated
 * with m (free it with sluicep_dealloc); src NULL copies the defaults. */
sluice_status sluicep_opts_copy(sluice_filter_kind k, const void *src, const sluice_mem *m,
                                void **out, sluice_error *err);
/* Fills o (size bytes) from a full-size struct of defaults. */
SLUICE_API void sluicep_opts_init(void *o, size_t size, const void *defaults, size_t full);

/* The checks a filter's constructor and a filter that composes it share:
 * NULL if s is a valid think literal (1 to SLUICE_THINK_MAX_LITERAL bytes),
 * else why not. */
const char *sluicep_think_literal_problem(const char *s);

/* For the capture reader: fn is called with the stream offset just past
 * each blank line of an sse filter f (the line end included: a CR that
 * ends a chunk waits for the next byte), after the event it dispatches.
 * Non-zero stops f with SLUICE_CALLBACK. With it set, f reads only line
 * ends: no field is read and no event dispatched. */
void sluicep_sse_on_blank(sluice_filter *f, int (*fn)(void *user, uint64_t end), void *user);

/* A model family's reasoning format (think_formats.c), as think.c reads it.
 * Lists are NULL-terminated. */
enum {
  SLUICEP_FS_INSIDE = 1,  /* starts inside a block the template opened; an
                             opening tag first in it (after whitespace) is markup */
  SLUICEP_FS_OUTSIDE,     /* starts outside; an opening tag anywhere opens */
  SLUICEP_FS_OUTSIDE_FIRST /* starts outside; an opening tag opens only as the
                             first thing but whitespace */
};
enum {
  SLUICEP_FL_TEXT = 1, /* after the first block the stream is answer, tags and all */
  SLUICEP_FL_BLOCKS    /* a later opening tag opens another block */
};
typedef struct sluicep_think_format_def {
  const char *name;
  const char *open[3], *close[3];
  const char *end[4];   /* implicit ends: end reasoning, then read as answer */
  const char *aopen[3]; /* answer wrappers that open the answer: MARKUP as its
                           first thing but whitespace (or anywhere before a block) */
  unsigned char starts, later;
  unsigned char thinking; /* the family's default */
  unsigned char harmony;  /* gpt-oss: the harmony filter's, not think's */
  const char *aclose[3]; /* answer wrappers that close it: MARKUP after an opener */
} sluicep_think_format_def;

/* NULL when f is out of range. */
const sluicep_think_format_def *sluicep_think_format_def_of(sluice_think_format f);

/* The think filter's prefilter (think.c): -1 chooses the best one at the
 * first scan; tests set it to force an implementation and compare. */
enum { SLUICEP_PREFILTER_PORTABLE = 0, SLUICEP_PREFILTER_SSE2, SLUICEP_PREFILTER_AVX2 };
extern int sluicep_think_prefilter;
/* The best implementation this machine runs. */
int sluicep_think_prefilter_best(void);

/* The monitor's block hash (monitor.c): 1 (the default) uses SSE2 where it
 * is there, 0 the portable loop; tests set 0 to hold the two to the same
 * verdicts. */
extern int sluicep_monitor_vector;

#endif /* SLUICE_PRIVATE_H */
