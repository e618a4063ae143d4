/*
 * harmony.c: the gpt-oss ("harmony") template filter (DESIGN.md §2).
 *
 * Seven control tokens, matched as exact bytes, structure the stream:
 *
 *   <|start|>ROLE [to=X] <|channel|>NAME [to=X] [TYPE] <|constrain|>TYPE <|message|>
 *   ...content...  <|end|> | <|return|> | <|call|>
 *
 * State machine (DESIGN §2 harmony, with the decisions below):
 *
 *   BODY(sink)  literal         -> sink
 *               <|start|>       -> HEADER (role part)
 *               <|channel|>     -> HEADER (channel part)
 *               <|end|> <|return|> <|call|> -> MARKUP; sink = TEXT
 *               <|message|> <|constrain|>   -> MARKUP
 *   HEADER      literal, <|channel|>, <|constrain|> -> appended to the header
 *               <|message|>     -> header and token to MARKUP; BODY(route)
 *               stop token      -> header resolved (below); token MARKUP; BODY(TEXT)
 *               <|start|>       -> header resolved; a new header begins
 *               over max_header -> header resolved; BODY(route)
 *               end of stream   -> header resolved
 *
 * "Resolved" is the reference parser's non-strict mode: names, recipients
 * (to=...) and <|constrain|> types go to MARKUP, the leftover words become
 * content of the header's channel. So every byte lands in exactly one
 * channel (conservation), and a header cut off or never closed loses nothing.
 *
 * Routing (route()): the channel is the first word of the last <|channel|>
 * part. analysis -> THOUGHT; final -> TEXT; commentary -> OTHER with a
 * recipient, else the preamble channel (TEXT by default); no channel part ->
 * TEXT, or OTHER with a recipient; anything else, the empty name included ->
 * THOUGHT (fail closed). A recipient is a word starting with "to=" in the
 * role part or in the last channel part and the parts after it; a recipient
 * in a superseded channel part (a stray "<|channel|>commentary to=assistant"
 * before the real one) does not count.
 *
 * Hold-back: a trailing proper prefix of a token (at most 12 bytes) plus an
 * open header (at most max_header bytes, default 256).
 */
#include "sluice_private.h"

#include <string.h>

enum tok { T_START, T_CHANNEL, T_MESSAGE, T_END, T_RETURN, T_CALL, T_CONSTRAIN, T_COUNT };

static const struct {
  const char *s;
  size_t n;
} tokens[T_COUNT] = {
    {"<|start|>", 9},  {"<|channel|>", 11}, {"<|message|>", 11},  {"<|end|>", 7},
    {"<|return|>", 10}, {"<|call|>", 8},    {"<|constrain|>", 13},
};

#define MAX_TOKEN 13
#define DEFAULT_MAX_HEADER 256
#define MIN_MAX_HEADER 32

typedef struct harmony {
  sluice_filter base;
  sluicep_buf hold;
  sluicep_buf head; /* the open header, tokens included */
  int in_header;
  sluice_channel sink;
  sluice_channel preamble;
  size_t max_header;
} harmony;

/* ---------------- tokens ---------------- */

enum match { NONE, PARTIAL, FULL };

/* Tokens all start with "<|" and none is a prefix of another. */
static enum match token_at(const char *p, size_t avail, int final, int *which) {
  for (int t = 0; t < T_COUNT; t++) {
    size_t len = tokens[t].n, k = len < avail ? len : avail;
    if (memcmp(p, tokens[t].s, k) != 0) continue;
    if (k == len) {
      *which = t;
      return FULL;
    }
    if (!final) return PARTIAL;
  }
  return NONE;
}

/* ---------------- header parsing ----------------
 * The header buffer is re-scanned with the same token rule, which finds the
 * same tokens: a token's bytes in the buffer were matched as a token. */

enum part { P_ROLE, P_CHANNEL, P_CONSTRAIN };

typedef struct span {
  enum part kind;
  size_t tok, beg, end; /* token at [tok, beg), text at [beg, end) */
} span;

#define MAX_MAX_HEADER 4096
#define MAX_PARTS (MAX_MAX_HEADER / 11 + 2)

/* Splits head into parts; returns the count (parts never exceed the header
 * length / 11 + 1, and the buffer is sized for the largest max_header). */
static size_t parts_of(const char *h, size_t n, span *out, size_t cap) {
  size_t count = 0, i = 0;
  while (i < n && count < cap) {
    int w = -1;
    if (h[i] == '<' && token_at(h + i, n - i, 1, &w) == FULL &&
        (w == T_START || w == T_CHANNEL || w == T_CONSTRAIN)) {
      span *s = &out[count++];
      s->kind = w == T_START ? P_ROLE : w == T_CHANNEL ? P_CHANNEL : P_CONSTRAIN;
      s->tok = i;
      s->beg = s->end = i + tokens[w].n;
      i = s->beg;
      continue;
    }
    if (count > 0) out[count - 1].end = i + 1;
    i++;
  }
  return count;
}

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* End of the name word starting at i: whitespace or '<' ends it. */
static size_t name_end(const char *h, size_t i, size_t end) {
  while (i < end && !is_ws(h[i]) && h[i] != '<') i++;
  return i;
}
static size_t word_end(const char *h, size_t i, size_t end) {
  while (i < end && !is_ws(h[i])) i++;
  return i;
}
static size_t skip_ws(const char *h, size_t i, size_t end) {
  while (i < end && is_ws(h[i])) i++;
  return i;
}

static int has_recipient(const char *h, const span *s) {
  size_t i = s->beg;
  while ((i = skip_ws(h, i, s->end)) < s->end) {
    size_t e = word_end(h, i, s->end);
    if (e - i >= 3 && memcmp(h + i, "to=", 3) == 0) return 1;
    i = e;
  }
  return 0;
}

static sluice_channel route(const harmony *hm, const char *h, const span *sp, size_t np) {
  size_t last = np;
  for (size_t i = 0; i < np; i++)
    if (sp[i].kind == P_CHANNEL) last = i;
  int rcpt = 0;
  for (size_t i = 0; i < np; i++)
    if ((sp[i].kind == P_ROLE || (last < np && i >= last)) && has_recipient(h, &sp[i])) rcpt = 1;
  if (last == np) return rcpt ? SLUICE_OTHER : SLUICE_TEXT;
  const span *c = &sp[last];
  size_t b = skip_ws(h, c->beg, c->end), e = name_end(h, b, c->end);
  size_t n = e - b;
  if (n == 8 && memcmp(h + b, "analysis", 8) == 0) return SLUICE_THOUGHT;
  if (n == 5 && memcmp(h + b, "final", 5) == 0) return SLUICE_TEXT;
  if (n == 10 && memcmp(h + b, "commentary", 10) == 0) return rcpt ? SLUICE_OTHER : hm->preamble;
  return SLUICE_THOUGHT;
}

/* Emits the header: all of it to MARKUP (complete == 1), or, resolved in
 * non-strict mode, each part's token, name and leading recipients to MARKUP
 * and the rest of the part to `ch`. */
static int emit_header(harmony *hm, int complete, sluice_channel *ch_out) {
  const char *h = hm->head.ptr;
  size_t n = hm->head.len;
  span sp[MAX_PARTS];
  size_t np = parts_of(h, n, sp, MAX_PARTS);
  sluice_channel ch = route(hm, h, sp, np);
  *ch_out = ch;
  if (complete) return sluicep_emit(&hm->base, SLUICE_MARKUP, h, n);
  for (size_t k = 0; k < np; k++) {
    const span *s = &sp[k];
    size_t i = skip_ws(h, s->beg, s->end);
    i = name_end(h, i, s->end);
    for (;;) { /* recipients right after the name are header words too */
      size_t j = skip_ws(h, i, s->end);
      size_t e = word_end(h, j, s->end);
      if (j < s->end && e - j >= 3 && memcmp(h + j, "to=", 3) == 0) i = e;
      else break;
    }
    i = skip_ws(h, i, s->end); /* the whitespace before leftover words is markup */
    if (sluicep_emit(&hm->base, SLUICE_MARKUP, h + s->tok, i - s->tok)) return 1;
    if (sluicep_emit(&hm->base, ch, h + i, s->end - i)) return 1;
  }
  return 0;
}

/* Closes the open header. complete: it ended with <|message|>. */
static int close_header(harmony *hm, int complete, sluice_channel *ch) {
  int rc = emit_header(hm, complete, ch);
  hm->head.len = 0;
  hm->in_header = 0;
  return rc;
}

static int open_header(harmony *hm, const char *tok, size_t n) {
  hm->in_header = 1;
  hm->head.len = 0;
  if (sluicep_buf_append(&hm->head, tok, n)) {
    sluicep_fail(&hm->base, SLUICE_NOMEM, hm->base.at, "out of memory");
    return 1;
  }
  return 0;
}

/* Literal bytes: to the sink, or into the header up to its bound; past the
 * bound the header is resolved as content and the rest flows to its route. */
static int literal(harmony *hm, const char *p, size_t n) {
  if (n == 0) return 0;
  if (!hm->in_header) return sluicep_emit(&hm->base, hm->sink, p, n);
  size_t room = hm->max_header - hm->head.len;
  size_t k = n < room ? n : room;
  if (sluicep_buf_append(&hm->head, p, k)) {
    sluicep_fail(&hm->base, SLUICE_NOMEM, hm->base.at, "out of memory");
    return 1;
  }
  if (k == n) return 0;
  /* p[k] is the first byte past the bound. When it continues a UTF-8
   * sequence that the header's last bytes began, the header ends before
   * that sequence, so no character is cut in two (the bound is decided by
   * the bytes alone: the same for every chunking). */
  char moved[4];
  size_t nm = 0;
  if (((uint8_t)p[k] & 0xC0) == 0x80) {
    const uint8_t *h = (const uint8_t *)hm->head.ptr;
    size_t len = hm->head.len, b = 0;
    while (b < 3 && b < len && (h[len - 1 - b] & 0xC0) == 0x80) b++;
    if (b < len) {
      uint8_t lead = h[len - 1 - b];
      size_t need = lead >= 0xF5   ? 0
                    : lead >= 0xF0 ? 4
                    : lead >= 0xE0 ? 3
                    : lead >= 0xC2 ? 2
                                   : 0;
      if (need > b + 1) {
        nm = b + 1;
        memcpy(moved, h + len - nm, nm);
        hm->head.len -= nm;
      }
    }
  }
  sluice_channel ch;
  if (close_header(hm, 0, &ch)) return 1;
  hm->sink = ch;
  if (sluicep_emit(&hm->base, ch, moved, nm)) return 1;
  return sluicep_emit(&hm->base, ch, p + k, n - k);
}

static int on_token(harmony *hm, int t, const char *p) {
  size_t len = tokens[t].n;
  sluice_channel ch;
  if (!hm->in_header) {
    switch (t) {
    case T_START:
    case T_CHANNEL: return open_header(hm, p, len);
    case T_END:
    case T_RETURN:
    case T_CALL: hm->sink = SLUICE_TEXT; /* fall through */
    default: return sluicep_emit(&hm->base, SLUICE_MARKUP, p, len);
    }
  }
  switch (t) {
  case T_MESSAGE:
    if (close_header(hm, 1, &ch)) return 1;
    hm->sink = ch;
    return sluicep_emit(&hm->base, SLUICE_MARKUP, p, len);
  case T_END:
  case T_RETURN:
  case T_CALL:
    if (close_header(hm, 0, &ch)) return 1;
    hm->sink = SLUICE_TEXT;
    return sluicep_emit(&hm->base, SLUICE_MARKUP, p, len);
  case T_START:
    if (close_header(hm, 0, &ch)) return 1;
    return open_header(hm, p, len);
  default: /* <|channel|>, <|constrain|> */
    if (hm->head.len + len > hm->max_header) {
      if (close_header(hm, 0, &ch)) return 1;
      hm->sink = ch;
      return on_token(hm, t, p); /* now in a body */
    }
    if (sluicep_buf_append(&hm->head, p, len)) {
      sluicep_fail(&hm->base, SLUICE_NOMEM, hm->base.at, "out of memory");
      return 1;
    }
    return 0;
  }
}

static size_t harmony_process(sluice_filter *f, const char *p, size_t n, int final) {
  harmony *hm = (harmony *)f;
  size_t i = 0;
  while (i < n) {
    const char *q = memchr(p + i, '<', n - i);
    size_t c = q ? (size_t)(q - p) : n;
    if (literal(hm, p + i, c - i)) return n;
    if (c >= n) return n;
    int w = -1;
    enum match m = token_at(p + c, n - c, final, &w);
    if (m == PARTIAL) return c;
    if (m == FULL) {
      if (on_token(hm, w, p + c)) return n;
      i = c + tokens[w].n;
      continue;
    }
    if (literal(hm, p + c, 1)) return n;
    i = c + 1;
  }
  return n;
}

static sluice_status harmony_feed(sluice_filter *f, const char *p, size_t n) {
  harmony *hm = (harmony *)f;
  return sluicep_held_feed(f, &hm->hold, MAX_TOKEN, harmony_process, p, n);
}

static sluice_status harmony_finish(sluice_filter *f) {
  harmony *hm = (harmony *)f;
  if (sluicep_held_finish(f, &hm->hold, harmony_process) != SLUICE_OK) return f->err.status;
  sluice_channel ch;
  if (hm->in_header) close_header(hm, 0, &ch);
  return f->err.status;
}

static void harmony_destroy(sluice_filter *f) {
  harmony *hm = (harmony *)f;
  sluicep_buf_free(&hm->hold);
  sluicep_buf_free(&hm->head);
}

/* sluice_reset: outside any header, routing to TEXT, nothing held. */
static void harmony_reset(sluice_filter *f) {
  harmony *hm = (harmony *)f;
  hm->hold.len = 0;
  hm->head.len = 0;
  hm->in_header = 0;
  hm->sink = SLUICE_TEXT;
}

static const sluicep_vtable harmony_vt = {"harmony", harmony_feed, harmony_finish,
                                          harmony_destroy, harmony_reset};

void sluice_harmony_opts_init_size(sluice_harmony_opts *o, size_t size) {
  sluice_harmony_opts d;
  memset(&d, 0, sizeof d);
  d.preamble = SLUICE_TEXT;
  d.max_header = DEFAULT_MAX_HEADER;
  sluicep_opts_init(o, size, &d, sizeof d);
}

sluice_status sluice_harmony_new(sluice_filter **out, const sluice_harmony_opts *opts,
                                 const sluice_sink *sink, const sluice_mem *mem,
                                 sluice_error *err) {
  *out = NULL;
  sluice_harmony_opts local, *o = &local;
  sluice_harmony_opts_init(&local);
  if (opts) {
    sluice_status st0 = sluicep_opts_take(&local, sizeof local, opts, "sluice_harmony_opts", err);
    if (st0 != SLUICE_OK) return st0;
  }
  if (o->preamble != SLUICE_TEXT && o->preamble != SLUICE_THOUGHT && o->preamble != SLUICE_OTHER)
    return sluicep_bad_option(err, "commentary_preamble must be text, thought or other");
  if (o->max_header < MIN_MAX_HEADER || o->max_header > MAX_MAX_HEADER)
    return sluicep_bad_option(err, "max_header must be between %d and %d bytes", MIN_MAX_HEADER,
                              MAX_MAX_HEADER);
  sluice_filter *f;
  sluice_status st = sluicep_filter_alloc(&f, sizeof(harmony), &harmony_vt, sink, mem, err);
  if (st != SLUICE_OK) return st;
  harmony *hm = (harmony *)f;
  sluicep_buf_init(&hm->hold, &f->mem);
  sluicep_buf_init(&hm->head, &f->mem);
  hm->sink = SLUICE_TEXT;
  hm->preamble = o->preamble;
  hm->max_header = o->max_header;
  /* Sized once, so feeding never allocates. */
  if (sluicep_buf_reserve(&hm->hold, 2 * MAX_TOKEN) ||
      sluicep_buf_reserve(&hm->head, hm->max_header)) {
    sluice_free(f);
    return sluicep_nomem(err, "harmony");
  }
  *out = f;
  return SLUICE_OK;
}

