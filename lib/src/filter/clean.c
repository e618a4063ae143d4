/*
 * clean.c: the response cleaner pipeline (DESIGN.md §2 "clean", seed 000).
 *
 *   1 think removal      the anchored think filter, composed (not copied):
 *                        its TEXT feeds the prefix stage, its THOUGHT and
 *                        MARKUP and events go straight out
 *   2 left strip
 *   3 node prefixes      first candidate the text starts with, then strip
 *   4 endpoint prefixes  likewise, each candidate stripped first
 *   5 timestamp          "[Sent less than a minute ago]", then strip (the
 *                        "one following space" is part of that strip)
 *   6 "Assistant:"       when both globals are on, then strip
 *   7 trim               trailing whitespace is held and dropped at the end
 *
 * Each rule exists once. The one-call form is this streaming code fed once.
 *
 * Hold-back (what sluice_held can report), per rule:
 *   think   the anchored think filter's own: a partial tag (< the longest
 *           tag), or a whole open block until its closing tag (max_block
 *           caps it), or with expect_only_closing and missing_close "keep"
 *           everything until the closing tag;
 *   strip   at most 3 bytes: a proper prefix of a multi-byte whitespace
 *           code point. Whole whitespace code points are dropped at once;
 *   3 to 6  fewer bytes than the longest candidate of the step being
 *           decided: the text is held only while it is a proper prefix of
 *           a candidate that could still match (and, for first-match-wins,
 *           of a candidate listed before any that already matched);
 *   7       the trailing run of whitespace (plus a partial code point),
 *           unbounded by nature; max_whitespace caps every run of
 *           whitespace in the body (held or not, so the verdict does not
 *           depend on the chunking) with SLUICE_LIMIT.
 * Once step 6 is decided, text is released in the same feed call.
 */
#include "sluice_private.h"

#include <stdio.h>
#include <string.h>


static const char timestamp_text[] = "[Sent less than a minute ago]";
static const char assistant_text[] = "Assistant:";

enum step { S_NODE, S_ENDPOINT, S_TIMESTAMP, S_ASSISTANT, S_BODY };

typedef struct cands {
  char **s;
  size_t *n;
  size_t count;
} cands;

typedef struct clean {
  sluice_filter base;
  sluice_filter *think; /* step 1, or NULL when remove_thinking is off */
  cands steps[S_BODY];
  size_t maxpre;       /* bound of the prefix stage's undecided tail */
  enum step step;      /* the step being decided */
  int strip;           /* a left strip comes before the step */
  sluicep_buf hold;    /* undecided tail of the prefix stage */
  int trim;            /* step 7 */
  sluicep_buf ws;      /* body: trailing whitespace held while trimming */
  size_t ws_partial;   /* bytes at the end of ws that are a partial code point */
  size_t max_whitespace;
  /* Input offsets of stage bytes, so that an error names the same input
   * byte for every chunking. The stage sees the input minus at most one
   * removed block (anchored think removes one), so one gap maps them. */
  uint64_t stage_in;   /* bytes that entered the stage */
  uint64_t gap_at;     /* stage index after which the removed block lay */
  uint64_t gap_len;    /* its length in the input; 0 while there is none */
  uint64_t body_at;    /* the stage index of the current body() call's p[0] */
  /* The current run of whitespace in the body (complete code points), for
   * max_whitespace: counted on the stream, not on what happens to be held,
   * so the verdict is the same for every chunking. */
  uint64_t run_start;  /* its stage index */
  uint64_t run_len;    /* its bytes; 0 outside a run */
} clean;

static uint64_t input_offset(const clean *c, uint64_t stage_index) {
  return stage_index + (c->gap_len && stage_index >= c->gap_at ? c->gap_len : 0);
}

/* ---------------- steps 2 to 6: the prefix stage ---------------- */

enum verdict { PENDING, MATCH, NOMATCH };

/* First match wins: the candidates are tried in their order, and a candidate
 * that p[0..n) is a proper prefix of must be decided before a later one may
 * win. */
static enum verdict match_first(const cands *c, const char *p, size_t n, int final,
                                size_t *len) {
  for (size_t i = 0; i < c->count; i++) {
    size_t l = c->n[i];
    if (n >= l) {
      if (memcmp(p, c->s[i], l) == 0) {
        *len = l;
        return MATCH;
      }
    } else if (!final && memcmp(p, c->s[i], n) == 0) {
      return PENDING;
    }
  }
  return NOMATCH;
}

static int body(clean *c, const char *p, size_t n);

/* The sluicep_process_fn of the prefix stage: decides steps 2 to 6 on the
 * bytes it has, then hands everything after them to the body. */
static size_t prefix_process(sluice_filter *f, const char *p, size_t n, int final) {
  clean *c = (clean *)f;
  size_t i = 0;
  while (c->step < S_BODY || c->strip) {
    if (c->strip) {
      size_t start = i;
      for (;;) {
        int partial;
        size_t l = sluicep_space_len((const unsigned char *)p + i, n - i, &partial);
        if (l == 0) {
          if (partial && !final) {
            if (sluicep_emit(f, SLUICE_DROPPED, p + start, i - start)) return n;
            return i;
          }
          break;
        }
        i += l;
      }
      if (sluicep_emit(f, SLUICE_DROPPED, p + start, i - start)) return n;
      /* With nothing after the whitespace yet, no step can be decided. */
      if (i == n && !final) return i;
      c->strip = 0;
    }
    if (c->step == S_BODY) break;
    size_t len = 0;
    enum verdict v = match_first(&c->steps[c->step], p + i, n - i, final, &len);
    if (v == PENDING) return i;
    if (v == MATCH) {
      if (sluicep_emit(f, SLUICE_DROPPED, p + i, len)) return n;
      i += len;
      c->strip = 1;
    }
    c->step++;
  }
  body(c, p + i, n - i);
  return n;
}

/* ---------------- step 7 and the body ---------------- */

/* A whitespace code point of l bytes at stage index s extends the run. */
static int add_ws(clean *c, uint64_t s, size_t l) {
  if (c->run_len == 0) c->run_start = s;
  c->run_len += l;
  if (c->max_whitespace && c->run_len > c->max_whitespace) {
    /* the first byte that does not fit */
    sluicep_fail(&c->base, SLUICE_LIMIT, input_offset(c, c->run_start + c->max_whitespace),
                 "a run of whitespace exceeded max_whitespace (%zu bytes) while trimming",
                 c->max_whitespace);
    return 1;
  }
  return 0;
}

static int hold_ws(clean *c, const char *p, size_t n) {
  if (n == 0) return 0;
  if (sluicep_buf_append(&c->ws, p, n)) {
    sluicep_fail(&c->base, SLUICE_NOMEM, c->base.at, "out of memory holding whitespace");
    return 1;
  }
  return 0;
}

/* Held whitespace turned out not to be trailing: it is text. */
static int release_ws(clean *c) {
  int rc = sluicep_emit(&c->base, SLUICE_TEXT, c->ws.ptr, c->ws.len);
  c->ws.len = 0;
  c->ws_partial = 0;
  return rc;
}

/* Text after step 6. Without trim it goes out at once; with trim, a run of
 * whitespace at the end of what has arrived is held until something that is
 * not whitespace follows it (then it is text) or the stream ends (then it is
 * dropped). */
static int body(clean *c, const char *p, size_t n) {
  if (!c->trim) return sluicep_emit(&c->base, SLUICE_TEXT, p, n);
  /* Every stage byte before p[0] was dropped by steps 2 to 6, emitted as
   * text, or is held whitespace. */
  c->body_at = c->base.chan_bytes[SLUICE_DROPPED] + c->base.chan_bytes[SLUICE_TEXT] + c->ws.len;
  size_t i = 0;
  if (c->ws_partial) {
    /* Complete the held partial code point first. */
    unsigned char tmp[4];
    size_t have = c->ws_partial;
    memcpy(tmp, c->ws.ptr + c->ws.len - have, have);
    size_t k = n < 4 - have ? n : 4 - have;
    memcpy(tmp + have, p, k);
    int partial;
    size_t l = sluicep_space_len(tmp, have + k, &partial);
    if (l > 0) {
      if (add_ws(c, c->body_at - have, l) || hold_ws(c, p, l - have)) return 1;
      c->ws_partial = 0;
      i = l - have;
    } else if (partial) { /* only when the chunk is shorter than the rest */
      if (hold_ws(c, p, n)) return 1;
      c->ws_partial += n;
      return 0;
    } else {
      c->run_len = 0;
      if (release_ws(c)) return 1;
    }
  }
  /* Find where the last non-whitespace code point ends. */
  size_t j = i, text_end = i;
  int tail_partial = 0;
  while (j < n) {
    unsigned char b = (unsigned char)p[j];
    if (b > 0x20 && b < 0x80) { /* the common case: printable ASCII is text */
      text_end = ++j;
      c->run_len = 0;
      continue;
    }
    int partial;
    size_t l = sluicep_space_len((const unsigned char *)p + j, n - j, &partial);
    if (l > 0) {
      if (add_ws(c, c->body_at + j, l)) return 1;
      j += l;
    } else if (partial) {
      tail_partial = 1;
      break;
    } else {
      size_t q = sluicep_u8_seq_len((const unsigned char *)p + j, n - j);
      j += q ? q : 1;
      text_end = j;
      c->run_len = 0;
    }
  }
  if (text_end > i) {
    if (c->ws.len && release_ws(c)) return 1;
    if (sluicep_emit(&c->base, SLUICE_TEXT, p + i, text_end - i)) return 1;
  }
  if (hold_ws(c, p + text_end, n - text_end)) return 1;
  if (tail_partial) c->ws_partial = n - j;
  return 0;
}

static int body_finish(clean *c) {
  /* A partial code point at the very end is not whitespace, so nothing
   * before it is trailing. */
  if (c->ws_partial) return release_ws(c);
  int rc = sluicep_emit(&c->base, SLUICE_DROPPED, c->ws.ptr, c->ws.len);
  c->ws.len = 0;
  return rc;
}

/* Bytes that leave step 1 as text. */
static int stage_feed(clean *c, const char *p, size_t n) {
  if (c->step == S_BODY && !c->strip && c->hold.len == 0) return body(c, p, n);
  return sluicep_held_feed(&c->base, &c->hold, c->maxpre, prefix_process, p, n) != SLUICE_OK;
}

/* ---------------- step 1: the composed think filter ---------------- */

static int think_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  clean *c = user;
  if (ch != SLUICE_TEXT) return sluicep_emit(&c->base, ch, p, n);
  /* Anchored think emits in input order with every byte in one channel, so
   * this text starts at input offset (all it emitted) - n. */
  uint64_t emitted = 0;
  for (int k = 0; k < SLUICE_CHANNEL_COUNT; k++) emitted += c->think->chan_bytes[k];
  uint64_t at = emitted - n;
  if (at > c->stage_in && !c->gap_len) {
    c->gap_at = c->stage_in;
    c->gap_len = at - c->stage_in;
  }
  c->stage_in += n;
  return stage_feed(c, p, n);
}

static int think_event(void *user, const sluice_event *ev) {
  clean *c = user;
  return sluicep_event(&c->base, ev);
}

/* The inner filter stopped: its own error (nomem, limit) becomes ours, unless
 * ours came first and made it stop. */
static sluice_status adopt(clean *c, sluice_status st) {
  if (st == SLUICE_OK || c->base.err.status != SLUICE_OK) return c->base.err.status;
  const sluice_error *e = sluice_get_error(c->think);
  return sluicep_fail(&c->base, st, e->offset, "%s", e->message);
}

static sluice_status clean_feed(sluice_filter *f, const char *p, size_t n) {
  clean *c = (clean *)f;
  if (c->think) return adopt(c, sluice_feed(c->think, p, n));
  stage_feed(c, p, n);
  return f->err.status;
}

static sluice_status clean_finish(sluice_filter *f) {
  clean *c = (clean *)f;
  if (c->think && adopt(c, sluice_finish(c->think)) != SLUICE_OK) return f->err.status;
  if (sluicep_held_finish(f, &c->hold, prefix_process) != SLUICE_OK) return f->err.status;
  body_finish(c);
  return f->err.status;
}

static void cands_free(clean *c, cands *k) {
  for (size_t i = 0; k->s && i < k->count; i++) sluicep_dealloc(&c->base.mem, k->s[i]);
  sluicep_dealloc(&c->base.mem, k->s);
  sluicep_dealloc(&c->base.mem, k->n);
}

static void clean_destroy(sluice_filter *f) {
  clean *c = (clean *)f;
  sluice_free(c->think);
  for (int s = 0; s < S_BODY; s++) cands_free(c, &c->steps[s]);
  sluicep_buf_free(&c->hold);
  sluicep_buf_free(&c->ws);
}

/* sluice_reset: back to step 1 with nothing held; the candidates, the
 * buffers and the think filter (reset too) stay. */
static void clean_reset(sluice_filter *f) {
  clean *c = (clean *)f;
  if (c->think) sluice_reset(c->think);
  c->step = S_NODE;
  c->strip = 1;
  c->hold.len = 0;
  c->ws.len = 0;
  c->ws_partial = 0;
  c->stage_in = c->gap_at = c->gap_len = c->body_at = 0;
  c->run_start = c->run_len = 0;
}

static const sluicep_vtable clean_vt = {"clean", clean_feed, clean_finish, clean_destroy,
                                        clean_reset};

/* ---------------- construction ---------------- */

void sluice_clean_opts_init_size(sluice_clean_opts *o, size_t size) {
  sluice_clean_opts d;
  memset(&d, 0, sizeof d);
  d.grace_period = 100;
  d.missing_close = SLUICE_MISSING_CLOSE_KEEP;
  sluicep_opts_init(o, size, &d, sizeof d);
}

/* Python's str.strip() on a UTF-8 string: [*start, *end). */
static void strip_both(const char *s, size_t n, size_t *start, size_t *end) {
  size_t i = 0, last = 0, first = n;
  while (i < n) {
    int partial;
    size_t l = sluicep_space_len((const unsigned char *)s + i, n - i, &partial);
    if (l) {
      i += l;
      continue;
    }
    size_t q = sluicep_u8_seq_len((const unsigned char *)s + i, n - i);
    if (first == n) first = i;
    i += q ? q : 1;
    last = i;
  }
  *start = first == n ? 0 : first;
  *end = first == n ? 0 : last;
}

static int cands_set(clean *c, cands *k, const char *const *list, size_t count, int strip) {
  k->s = sluicep_calloc(&c->base.mem, (count ? count : 1) * sizeof *k->s);
  k->n = sluicep_calloc(&c->base.mem, (count ? count : 1) * sizeof *k->n);
  if (!k->s || !k->n) return -1;
  for (size_t i = 0; i < count; i++) {
    size_t a = 0, b = strlen(list[i]);
    if (strip) strip_both(list[i], b, &a, &b);
    char *d = sluicep_alloc(&c->base.mem, b - a + 1);
    if (!d) return -1;
    memcpy(d, list[i] + a, b - a);
    d[b - a] = '\0';
    k->s[k->count] = d;
    k->n[k->count] = b - a;
    k->count++;
    if (b - a > c->maxpre) c->maxpre = b - a;
  }
  return 0;
}

sluice_status sluice_clean_new(sluice_filter **out, const sluice_clean_opts *opts,
                               const sluice_sink *sink, const sluice_mem *mem, sluice_error *err) {
  *out = NULL;
  sluice_clean_opts local, *o = &local;
  sluice_clean_opts_init(&local);
  sluice_status st = opts ? sluicep_opts_take(&local, sizeof local, opts, "sluice_clean_opts", err)
                          : SLUICE_OK;
  if (st != SLUICE_OK) return st;
  if ((o->n_node_prefixes && !o->node_prefixes) ||
      (o->n_endpoint_prefixes && !o->endpoint_prefixes))
    return sluicep_bad_option(err, "a prefix list with a count needs its strings");
  if (o->n_node_prefixes > SLUICE_CLEAN_MAX_PREFIXES ||
      o->n_endpoint_prefixes > SLUICE_CLEAN_MAX_PREFIXES)
    return sluicep_bad_option(err, "at most %d strings in a prefix list",
                              SLUICE_CLEAN_MAX_PREFIXES);
  for (size_t i = 0; i < o->n_node_prefixes; i++)
    if (!o->node_prefixes[i])
      return sluicep_bad_option(err, "responseStartTextToRemove: item %zu is NULL", i);
  for (size_t i = 0; i < o->n_endpoint_prefixes; i++)
    if (!o->endpoint_prefixes[i])
      return sluicep_bad_option(err, "responseStartTextToRemoveEndpointWide: item %zu is NULL", i);
  if (o->missing_close != SLUICE_MISSING_CLOSE_EMPTY && o->missing_close != SLUICE_MISSING_CLOSE_KEEP)
    return sluicep_bad_option(err, "missing_close must be \"empty\" or \"keep\"");
  /* The think options are checked here, under the proxy's names, before the
   * composed think filter sees them. */
  const char *why;
  if (o->start_think_tag && (why = sluicep_think_literal_problem(o->start_think_tag)))
    return sluicep_bad_option(err, "startThinkTag %s", why);
  if (o->end_think_tag && (why = sluicep_think_literal_problem(o->end_think_tag)))
    return sluicep_bad_option(err, "endThinkTag %s", why);

  sluice_filter *f;
  st = sluicep_filter_alloc(&f, sizeof(clean), &clean_vt, sink, mem, err);
  if (st != SLUICE_OK) return st;
  clean *c = (clean *)f;
  sluicep_buf_init(&c->hold, &f->mem);
  sluicep_buf_init(&c->ws, &f->mem);
  c->trim = o->trim != 0;
  c->max_whitespace = o->max_whitespace;
  c->strip = 1; /* step 2 */
  c->step = S_NODE;
  const char *const ts[] = {timestamp_text}, *const as[] = {assistant_text};
  if (cands_set(c, &c->steps[S_NODE], o->node_prefixes,
                o->remove_node_prefixes ? o->n_node_prefixes : 0, 0) ||
      cands_set(c, &c->steps[S_ENDPOINT], o->endpoint_prefixes,
                o->remove_endpoint_prefixes ? o->n_endpoint_prefixes : 0, 1) ||
      cands_set(c, &c->steps[S_TIMESTAMP], ts, o->remove_timestamp ? 1 : 0, 0) ||
      cands_set(c, &c->steps[S_ASSISTANT], as,
                o->add_user_assistant && o->add_missing_assistant ? 1 : 0, 0))
    goto nomem;
  /* The undecided tail is a proper prefix of a candidate or of a
   * whitespace code point (at most 3 bytes). */
  if (c->maxpre < 4) c->maxpre = 4;
  if (sluicep_buf_reserve(&c->hold, 2 * c->maxpre)) goto nomem;

  if (o->remove_thinking) {
    sluice_think_opts to;
    sluice_think_opts_init(&to);
    to.mode = SLUICE_THINK_ANCHORED;
    to.start_tag = o->start_think_tag;
    to.end_tag = o->end_think_tag;
    to.grace_period = o->grace_period;
    to.expect_only_closing = o->expect_only_closing;
    to.missing_close = o->missing_close;
    to.max_block = o->max_block;
    sluice_sink ts_sink = {think_emit, think_event, c};
    st = sluice_think_new(&c->think, &to, &ts_sink, &f->mem, err);
    if (st != SLUICE_OK) {
      sluice_free(f);
      return st;
    }
  }
  *out = f;
  return SLUICE_OK;
nomem:
  sluice_free(f);
  return sluicep_nomem(err, "clean");
}
