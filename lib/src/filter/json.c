/*
 * json.c: the LLM JSON sanitizer (DESIGN.md §2 "json", seed 002).
 *
 * One forward pass over the input, one code point at a time, with an explicit
 * stack of open containers: no recursion on input depth and no look-ahead
 * into the input. Every decision that needs more input (is this quote the
 * end of the string? is this word "true" or a string?) is kept in the
 * filter's state, never in held-back input bytes, so every chunking of the
 * same input runs the same sequence of steps: the repaired text, the repair
 * events and the value are split-invariant by construction.
 *
 * The byte loop has fast paths (plain string runs, digits, words, literals,
 * a quote followed by a delimiter): they look only at bytes already in the
 * chunk, and only to do in one go what the steps would do byte by byte.
 *
 * The repaired text is appended to `out` and never edited: a byte is written
 * only once it is decided. It streams on TEXT as it is decided, and is held
 * whole for the VALUE event at the end (the one thing the semantics make us
 * hold; option max_bytes caps it). What is undecided is held in small state
 * buffers (a candidate closing quote and the whitespace after it, a word
 * that may still be a literal, a leading zero, a high surrogate escape).
 *
 * Output shape: compact (no whitespace outside strings); strings keep their
 * bytes and escapes as written, except for the repairs; numbers keep their
 * digits exactly (a 20-digit integer stays 20 digits, although jansson
 * cannot load it as an integer).
 *
 * Decisions (conformance/suites/json/README.md lists them with cases):
 * - The value starts at the first '{' or '[' of the input, or at the first
 *   opening of a ``` fence, whichever comes first; a '"' as the first
 *   non-space character starts a top-level string. A top-level number or
 *   literal is accepted only when it is the whole (trimmed) input or fence.
 * - The first value wins; any text after it is reported once as
 *   "trailing_text" and ignored (never wrapped into an array).
 */
#include "sluice_private.h"

#include <string.h>

#define DEFAULT_MAX_DEPTH 2048
#define LIT_MAX 64   /* longest top-level scalar held in prose */
#define WORD_HOLD 16 /* a word longer than this cannot be a literal */

enum phase {
  P_START,  /* nothing but whitespace so far (or inside a fresh fence) */
  P_PROSE,  /* text before the value */
  P_FINFO,  /* the info string of a fence opener (```json) */
  P_VALUE,  /* inside the value */
  P_TRAIL,  /* after the value: whitespace, a closing fence */
  P_IGNORE, /* after trailing text: everything is ignored */
};

enum vstate {
  V_VALUE,  /* a value is expected (top, after '[' or ',' in an array, after ':') */
  V_KEY,    /* a key is expected (after '{' or ',' in an object) */
  V_COLON,  /* after a key */
  V_AFTER,  /* after a value inside a container */
  V_STRING, /* inside a string */
  V_NUMBER, /* inside a number */
  V_WORD,   /* inside an unquoted word */
};

enum quote { Q_DQ, Q_SQ, Q_CURLY_D, Q_CURLY_S };

enum num { N_SIGN, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP };

enum comment { CM_NONE, CM_SLASH, CM_LINE, CM_BLOCK, CM_BLOCK_STAR };

typedef struct json_filter {
  sluice_filter base;
  int incremental;
  size_t max_depth;
  size_t max_bytes; /* cap on the input, so on what is held; 0 = none */
  uint64_t pos; /* input bytes consumed */

  sluicep_buf out;   /* the repaired text, append only */
  size_t emitted;    /* bytes of out already sent on TEXT */
  sluicep_buf stack; /* '{' or '[' per open container */
  size_t nobj, narr; /* open containers of each kind */
  sluicep_buf pend;  /* undecided bytes: candidate quote + spaces, word */
  sluicep_buf wsp;   /* spaces inside a word, emitted only if the word goes on */

  /* UTF-8 decoding across chunks */
  uint8_t u8[4];
  uint8_t u8n, u8need, u8lo, u8hi;
  uint64_t u8off;

  enum phase phase;
  enum vstate vs;
  enum comment cm;
  uint64_t cm_off;
  int pending_comma;
  uint64_t comma_off;
  int truncated, value_started, failed;

  /* prose, fences */
  int ticks;
  uint64_t tick_off;
  int in_fence;
  uint64_t fence_off;
  int has_prose;
  uint64_t prose_off;
  int trail_reported;
  char lit[LIT_MAX];
  size_t litn;
  int lit_state; /* 0 empty, 1 collecting, 2 ended by space, 3 invalid, 4 frozen */

  /* string */
  enum quote q;
  int is_key;
  int esc;        /* 0, 1 after '\', 2 inside \uXXXX */
  int hexn;       /* hex digits seen in \u */
  uint32_t hexv;
  char hexbuf[6]; /* the \uXXXX as written */
  uint64_t esc_off;
  int hi;         /* a high surrogate escape is held in hibuf */
  char hibuf[6];
  uint64_t hi_off;
  int qpend; /* a candidate closing quote is held in pend */
  uint64_t q_off;
  size_t q_len; /* bytes of the quote itself at the start of pend */

  /* number */
  enum num ns;
  uint64_t num_off;

  /* word */
  int word_key, word_streaming;
  uint64_t word_off;
} json_filter;

/* ---------------- output and events ---------------- */

static void fail_nomem(json_filter *j) {
  sluicep_fail(&j->base, SLUICE_NOMEM, j->pos, "out of memory");
  j->failed = 1;
}

/* Appends to a buffer; the common case (room enough) without a call. */
static inline int buf_add(sluicep_buf *b, const char *p, size_t n) {
  if (b->cap - b->len >= n) {
    memcpy(b->ptr + b->len, p, n);
    b->len += n;
    return 0;
  }
  return sluicep_buf_append(b, p, n);
}

static inline void put(json_filter *j, const char *p, size_t n) {
  if (buf_add(&j->out, p, n) && !j->failed) fail_nomem(j);
}
#define PUTS(j, s) put((j), (s), sizeof(s) - 1)

/* One byte: the common case without a call. */
static inline void put1(json_filter *j, char c) {
  if (j->out.len < j->out.cap) j->out.ptr[j->out.len++] = c;
  else put(j, &c, 1);
}

static void repair(json_filter *j, const char *kind, uint64_t off) {
  if (j->failed) return;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_REPAIR;
  ev.name = kind;
  ev.name_len = strlen(kind);
  ev.offset = off;
  if (sluicep_event(&j->base, &ev)) j->failed = 1;
}

static int is_ws(uint32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Spaces outside strings: JSON's four and the Unicode ones LLMs emit. */
static int is_space(uint32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  return sluicep_is_space_cp(c);
}

static int is_digit(uint32_t c) { return c >= '0' && c <= '9'; }

static int is_hex(uint32_t c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static char top(const json_filter *j) { return j->stack.len ? j->stack.ptr[j->stack.len - 1] : 0; }

/* A code point as string content: control characters escaped. */
static void put_content(json_filter *j, uint32_t cp, const char *raw, size_t len, uint64_t off,
                        int report) {
  if (cp < 0x20) {
    static const char hexd[] = "0123456789abcdef";
    char e[6] = {'\\', 'u', '0', '0', hexd[cp >> 4], hexd[cp & 15]};
    switch (cp) {
    case '\n': PUTS(j, "\\n"); break;
    case '\r': PUTS(j, "\\r"); break;
    case '\t': PUTS(j, "\\t"); break;
    case '\b': PUTS(j, "\\b"); break;
    case '\f': PUTS(j, "\\f"); break;
    default: put(j, e, 6);
    }
    if (report) repair(j, "control_char", off);
  } else if (cp == '"') {
    PUTS(j, "\\\"");
  } else if (cp == '\\') {
    PUTS(j, "\\\\");
  } else {
    put(j, raw, len);
  }
}

/* Bytes already known to be valid UTF-8 without quotes or backslashes
 * except as noted, as string content. */
static void put_content_bytes(json_filter *j, const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    put_content(j, c, p + i, 1, 0, 0);
  }
}

/* ---------------- the value's structure ---------------- */

static void value_done(json_filter *j) {
  if (j->stack.len == 0) {
    j->phase = P_TRAIL;
    j->ticks = 0;
  } else {
    j->vs = V_AFTER;
  }
}

/* A value or key is about to be written: the comma before it, if any. */
static void begin_item(json_filter *j) {
  if (j->pending_comma) {
    put1(j, ',');
    j->pending_comma = 0;
  }
}

/* Depth is counted as jansson counts it: the top value is at depth 1 and a
 * scalar inside n containers is at depth n + 1, so a text that passes the
 * default limit (2048) always loads. Returns 0 (and fails) when a value
 * would start deeper than the limit. */
static int depth_ok(json_filter *j, uint64_t off) {
  if (!j->max_depth || j->stack.len < j->max_depth) return 1;
  sluicep_fail(&j->base, SLUICE_JSON_DEPTH, off, "nesting deeper than the depth limit (%zu)",
               j->max_depth);
  j->failed = 1;
  return 0;
}

/* A null written where a value is missing. */
static void put_null(json_filter *j, const char *text, size_t n, uint64_t off) {
  if (!depth_ok(j, off)) return;
  put(j, text, n);
  repair(j, "missing_value", off);
}

static void push(json_filter *j, char c, uint64_t off) {
  if (!depth_ok(j, off)) return;
  begin_item(j);
  if (buf_add(&j->stack, &c, 1)) {
    fail_nomem(j);
    return;
  }
  if (c == '{') j->nobj++;
  else j->narr++;
  put1(j, c);
  j->vs = c == '{' ? V_KEY : V_VALUE;
}

static void close_top(json_filter *j, uint64_t off) {
  char t = top(j);
  if (j->vs == V_COLON) put_null(j, ":null", 5, off);
  else if (j->vs == V_VALUE && t == '{') put_null(j, "null", 4, off);
  if (j->failed) return;
  if (j->pending_comma) {
    repair(j, "trailing_comma", j->comma_off);
    j->pending_comma = 0;
  }
  put1(j, t == '{' ? '}' : ']');
  j->stack.len--;
  if (t == '{') j->nobj--;
  else j->narr--;
  value_done(j);
}

/* A closing bracket: closes its container, closing the ones opened inside
 * it first; a bracket with no open container of its kind is dropped. */
static void closer(json_filter *j, uint32_t c, uint64_t off) {
  char want = c == '}' ? '{' : '[';
  if ((want == '{' ? j->nobj : j->narr) == 0) {
    repair(j, "redundant_closer", off);
    return;
  }
  while (top(j) != want && !j->failed) {
    repair(j, "missing_closer", off);
    close_top(j, off);
  }
  close_top(j, off);
}

/* ---------------- strings ---------------- */

static int is_open_quote(uint32_t c) {
  return c == '"' || c == '\'' || c == 0x201C || c == 0x201D || c == 0x2018 || c == 0x2019;
}

static void open_string(json_filter *j, uint32_t c, int key, uint64_t off) {
  if (!key && !depth_ok(j, off)) return;
  begin_item(j);
  put1(j, '"');
  j->vs = V_STRING;
  j->is_key = key;
  j->esc = 0;
  j->hi = 0;
  j->qpend = 0;
  switch (c) {
  case '"': j->q = Q_DQ; break;
  case '\'': j->q = Q_SQ; repair(j, "single_quotes", off); break;
  case 0x201C:
  case 0x201D: j->q = Q_CURLY_D; repair(j, "curly_quotes", off); break;
  default: j->q = Q_CURLY_S; repair(j, "curly_quotes", off); break;
  }
}

static int is_close_quote(const json_filter *j, uint32_t c) {
  switch (j->q) {
  case Q_DQ: return c == '"';
  case Q_SQ: return c == '\'';
  case Q_CURLY_D: return c == 0x201D || c == 0x201C || c == '"';
  default: return c == 0x2019 || c == '\'';
  }
}

/* After a candidate closing quote and the spaces after it, the next code
 * point decides: a delimiter that fits where the string is means the quote
 * closed it; anything else means it was an unescaped quote inside. */
static int quote_closes(const json_filter *j, uint32_t c) {
  if (c == ',' || c == '}' || c == ']' || c == '"' || c == 0x201C || c == '/' || c == '#')
    return 1;
  /* the next string of the same kind: a missing comma ('a' 'b') */
  if ((c == '\'' && j->q == Q_SQ) || (c == 0x2018 && j->q == Q_CURLY_S)) return 1;
  if (j->is_key) return c == ':' || c == '\'' || c == 0x2018;
  return 0;
}

/* The decision on a candidate closing quote, given the first code point
 * after it that is not a space and whether spaces came between. A key
 * rarely holds a quote: after a space, or before what starts a value, the
 * quote ends it (a missing colon). A top-level string ends at its quote. */
static int quote_ends(const json_filter *j, uint32_t cp, int spaced) {
  if (quote_closes(j, cp) || j->stack.len == 0) return 1;
  return j->is_key && (spaced || cp == '{' || cp == '[' || cp == '-' || is_digit(cp));
}

static void close_string(json_filter *j) {
  put1(j, '"');
  j->qpend = 0;
  j->pend.len = 0;
  if (j->is_key) j->vs = V_COLON;
  else value_done(j);
}

static void drop_hi(json_filter *j) {
  repair(j, "lone_surrogate", j->hi_off);
  j->hi = 0;
}

static void unicode_done(json_filter *j) {
  uint32_t v = j->hexv;
  if (j->hi) {
    if (v >= 0xDC00 && v <= 0xDFFF) {
      put(j, j->hibuf, 6);
      put(j, j->hexbuf, 6);
      j->hi = 0;
      return;
    }
    drop_hi(j);
  }
  if (v >= 0xD800 && v <= 0xDBFF) {
    j->hi = 1;
    memcpy(j->hibuf, j->hexbuf, 6);
    j->hi_off = j->esc_off;
    return;
  }
  if (v >= 0xDC00 && v <= 0xDFFF) {
    repair(j, "lone_surrogate", j->esc_off);
    return;
  }
  put(j, j->hexbuf, 6);
}

/* One code point inside a string. Returns 0 when cp closed the string's
 * pending quote (the caller processes cp again in the new state). */
static int string_step(json_filter *j, uint32_t cp, const char *raw, size_t len, uint64_t off) {
  if (j->qpend) {
    if (is_ws(cp)) {
      if (sluicep_buf_append(&j->pend, raw, len)) fail_nomem(j);
      return 1;
    }
    if (quote_ends(j, cp, j->pend.len > j->q_len)) {
      close_string(j);
      return 0;
    }
    repair(j, "unescaped_quote", j->q_off);
    if (j->pend.ptr[0] == '"') PUTS(j, "\\\""); /* also in a curly-quoted string */
    else put(j, j->pend.ptr, j->q_len);
    for (size_t k = j->q_len; k < j->pend.len; k++)
      put_content(j, (unsigned char)j->pend.ptr[k], j->pend.ptr + k, 1, j->q_off + k, 1);
    j->qpend = 0;
    j->pend.len = 0;
  }
  if (j->esc == 1) {
    j->esc = 0;
    if (cp != 'u' && j->hi) drop_hi(j);
    switch (cp) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': {
      char e[2] = {'\\', (char)cp};
      put(j, e, 2);
      return 1;
    }
    case 'u':
      j->esc = 2;
      j->hexn = 0;
      j->hexv = 0;
      j->hexbuf[0] = '\\';
      j->hexbuf[1] = 'u';
      return 1;
    case '\'':
      repair(j, "invalid_escape", j->esc_off);
      put1(j, '\'');
      return 1;
    default:
      /* keep the backslash as a character; the code point is content */
      repair(j, "invalid_escape", j->esc_off);
      PUTS(j, "\\\\");
      break;
    }
  } else if (j->esc == 2) {
    if (is_hex(cp)) {
      j->hexbuf[2 + j->hexn++] = (char)cp;
      j->hexv = j->hexv * 16 + (uint32_t)(is_digit(cp) ? cp - '0' : (cp | 0x20) - 'a' + 10);
      if (j->hexn == 4) {
        j->esc = 0;
        unicode_done(j);
      }
      return 1;
    }
    repair(j, "invalid_unicode_escape", j->esc_off);
    j->esc = 0;
  }
  if (cp == '\\') {
    j->esc = 1;
    j->esc_off = off;
    return 1;
  }
  if (j->hi) drop_hi(j);
  if (is_close_quote(j, cp)) {
    j->qpend = 1;
    j->q_off = off;
    j->pend.len = 0;
    j->q_len = len;
    if (sluicep_buf_append(&j->pend, raw, len)) fail_nomem(j);
    return 1;
  }
  put_content(j, cp, raw, len, off, 1);
  return 1;
}

/* ---------------- numbers ---------------- */

static void start_number(json_filter *j, uint32_t c, uint64_t off) {
  if (!depth_ok(j, off)) return;
  begin_item(j);
  j->vs = V_NUMBER;
  j->num_off = off;
  if (c == '-') {
    put1(j, '-');
    j->ns = N_SIGN;
  } else if (c == '0') {
    j->ns = N_ZERO; /* written once we know it is not a leading zero */
  } else {
    put1(j, (char)c);
    j->ns = N_INT;
  }
}

static void end_number(json_filter *j, int eof) {
  switch (j->ns) {
  case N_SIGN: case N_DOT: case N_E: case N_ESIGN:
    put1(j, '0');
    repair(j, eof ? "truncated_number" : "invalid_number", j->num_off);
    if (eof) j->truncated = 1;
    break;
  case N_ZERO: put1(j, '0'); break;
  default: break;
  }
  value_done(j);
}

/* Returns 0 when cp ended the number (the caller processes it again). */
static int number_step(json_filter *j, uint32_t cp, uint64_t off) {
  int d = is_digit(cp), e = cp == 'e' || cp == 'E';
  switch (j->ns) {
  case N_SIGN:
    if (!d) break;
    if (cp == '0') j->ns = N_ZERO;
    else {
      put1(j, (char)cp);
      j->ns = N_INT;
    }
    return 1;
  case N_ZERO:
    if (d) {
      repair(j, "leading_zero", off - 1);
      if (cp != '0') {
        put1(j, (char)cp);
        j->ns = N_INT;
      }
      return 1;
    }
    if (cp == '.' || e) {
      put1(j, '0');
      put1(j, (char)cp);
      j->ns = cp == '.' ? N_DOT : N_E;
      return 1;
    }
    break;
  case N_INT:
    if (d) put1(j, (char)cp);
    else if (cp == '.') {
      put1(j, '.');
      j->ns = N_DOT;
    } else if (e) {
      put1(j, (char)cp);
      j->ns = N_E;
    } else break;
    return 1;
  case N_DOT:
  case N_FRAC:
    if (d) {
      put1(j, (char)cp);
      j->ns = N_FRAC;
      return 1;
    }
    if (e && j->ns == N_FRAC) {
      put1(j, (char)cp);
      j->ns = N_E;
      return 1;
    }
    break;
  case N_E:
    if (cp == '+' || cp == '-') {
      put1(j, (char)cp);
      j->ns = N_ESIGN;
      return 1;
    }
    /* fall through */
  case N_ESIGN:
  case N_EXP:
    if (d) {
      put1(j, (char)cp);
      j->ns = N_EXP;
      return 1;
    }
    break;
  }
  end_number(j, 0);
  return 0;
}

/* ---------------- unquoted words ---------------- */

static const struct {
  const char *word, *json, *kind;
} literals[] = {
    {"true", "true", NULL},          {"false", "false", NULL},
    {"null", "null", NULL},          {"True", "true", "python_constant"},
    {"False", "false", "python_constant"}, {"None", "null", "python_constant"},
    {"undefined", "null", "undefined"},    {"NaN", "null", "nonfinite_number"},
    {"Infinity", "null", "nonfinite_number"},
};
#define NLITERALS (sizeof literals / sizeof literals[0])

/* The JSON for a held word: a literal, a completed literal prefix (at the
 * end of the input), or a string. Writes into out; returns the repair kind
 * (NULL for none). */
static const char *render_word(json_filter *j, int eof) {
  const char *w = j->pend.ptr;
  size_t n = j->pend.len;
  if (!j->word_key) {
    for (size_t i = 0; i < NLITERALS; i++)
      if (strlen(literals[i].word) == n && memcmp(literals[i].word, w, n) == 0) {
        put(j, literals[i].json, strlen(literals[i].json));
        return literals[i].kind;
      }
    if (eof)
      for (size_t i = 0; i < 6; i++) /* true false null True False None */
        if (n > 0 && n < strlen(literals[i].word) && memcmp(literals[i].word, w, n) == 0) {
          put(j, literals[i].json, strlen(literals[i].json));
          return "truncated_literal";
        }
  }
  put1(j, '"');
  put_content_bytes(j, w, n);
  put1(j, '"');
  return j->word_key ? "unquoted_key" : "unquoted_string";
}

static void start_word(json_filter *j, int key, uint64_t off) {
  if (!key && !depth_ok(j, off)) return;
  begin_item(j);
  j->vs = V_WORD;
  j->word_key = key;
  j->word_streaming = 0;
  j->word_off = off;
  j->pend.len = 0;
  j->wsp.len = 0;
}

static void end_word(json_filter *j, int eof) {
  if (j->word_streaming) {
    put1(j, '"');
  } else {
    const char *kind = render_word(j, eof);
    if (kind) repair(j, kind, j->word_off);
    if (kind && strcmp(kind, "truncated_literal") == 0) j->truncated = 1;
  }
  j->pend.len = 0;
  j->wsp.len = 0;
  if (j->word_key) j->vs = V_COLON;
  else value_done(j);
}

static int word_ends(const json_filter *j, uint32_t c) {
  if (c == ',' || c == '}' || c == ']' || c == '{' || c == '[' || c == '"' || c == '\n' ||
      c == '\r' || c == 0x201C)
    return 1;
  if (c == '`' && j->in_fence) return 1;
  return j->word_key && (c == ':' || c == '\'');
}

static void word_add(json_filter *j, const char *raw, size_t len) {
  if (j->word_streaming) {
    put_content_bytes(j, raw, len);
    return;
  }
  if (buf_add(&j->pend, raw, len)) {
    fail_nomem(j);
    return;
  }
  if (j->pend.len > WORD_HOLD) {
    /* too long for a literal: a string, streamed from here on */
    repair(j, j->word_key ? "unquoted_key" : "unquoted_string", j->word_off);
    put1(j, '"');
    put_content_bytes(j, j->pend.ptr, j->pend.len);
    j->pend.len = 0;
    j->word_streaming = 1;
  }
}

/* Returns 0 when cp ended the word. */
static int word_step(json_filter *j, uint32_t cp, const char *raw, size_t len) {
  /* a comment after a space ends the word ("https://x" stays whole) */
  if (word_ends(j, cp) || ((cp == '/' || cp == '#') && j->wsp.len)) {
    end_word(j, 0);
    return 0;
  }
  if (cp == ' ' || cp == '\t') { /* kept only if the word goes on */
    if (sluicep_buf_append(&j->wsp, raw, len)) fail_nomem(j);
    return 1;
  }
  if (j->wsp.len) {
    word_add(j, j->wsp.ptr, j->wsp.len);
    j->wsp.len = 0;
  }
  word_add(j, raw, len);
  return 1;
}

/* ---------------- before the value ---------------- */

static void start_value(json_filter *j) {
  int fence = j->in_fence, prose = j->has_prose;
  if (prose && fence && j->fence_off < j->prose_off) {
    repair(j, "fence", j->fence_off);
    repair(j, "leading_text", j->prose_off);
  } else {
    if (prose) repair(j, "leading_text", j->prose_off);
    if (fence) repair(j, "fence", j->fence_off);
  }
  j->phase = P_VALUE;
  j->vs = V_VALUE;
  j->ticks = 0;
  j->value_started = 1;
}

static void mark_prose(json_filter *j, uint64_t off) {
  if (!j->has_prose) {
    j->has_prose = 1;
    j->prose_off = off;
  }
}

static int lit_char(uint32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' ||
         c == '+' || c == '.';
}

/* A run of backticks ended (at a code point that is not one, or at the end
 * of the input). Returns 1 if it opened a fence. */
static int ticks_end(json_filter *j) {
  int t = j->ticks;
  j->ticks = 0;
  if (t < 3) {
    mark_prose(j, j->tick_off);
    if (j->lit_state != 4) j->lit_state = 3;
    j->phase = P_PROSE;
    return 0;
  }
  if (!j->in_fence) {
    j->in_fence = 1;
    j->fence_off = j->tick_off;
    j->litn = 0;
    j->lit_state = 0;
    j->phase = P_FINFO;
    return 1;
  }
  /* a fence closed without a value in it */
  j->in_fence = 0;
  mark_prose(j, j->fence_off);
  if (j->lit_state == 1 || j->lit_state == 2) j->lit_state = 4;
  else if (j->lit_state != 4) j->lit_state = 3;
  j->phase = P_PROSE;
  return 0;
}

/* The end of the input, or a closing fence, inside the value: the token in
 * progress is completed and the open containers closed in stack order. */
static void finalize_value(json_filter *j, uint64_t end) {
  switch (j->vs) {
  case V_STRING:
    if (j->qpend) {
      close_string(j);
      break;
    }
    if (j->esc == 1) repair(j, "dangling_escape", j->esc_off);
    if (j->esc == 2) repair(j, "partial_unicode_escape", j->esc_off);
    j->esc = 0;
    if (j->hi) drop_hi(j);
    repair(j, "unclosed_string", end);
    j->truncated = 1;
    close_string(j);
    break;
  case V_NUMBER: end_number(j, 1); break;
  case V_WORD: end_word(j, 1); break;
  default: break;
  }
  if (j->cm == CM_SLASH) repair(j, "unexpected_char", j->cm_off);
  j->cm = CM_NONE;
  if (j->stack.len) {
    j->truncated = 1;
    repair(j, "unclosed_container", end);
    while (j->stack.len && !j->failed) close_top(j, end);
  }
}

/* ---------------- the step ---------------- */

/* One code point; raw[0..len) are its bytes, off its input offset. */
static void step(json_filter *j, uint32_t cp, const char *raw, size_t len, uint64_t off) {
again:
  if (j->failed) return;
  switch (j->phase) {
  case P_START:
  case P_PROSE:
    if (cp == '`') {
      if (j->ticks == 0) j->tick_off = off;
      j->ticks++;
      return;
    }
    if (j->ticks) {
      ticks_end(j);
      goto again;
    }
    if (cp == 0xFEFF && off == 0) {
      repair(j, "bom", off);
      return;
    }
    if (is_space(cp)) {
      if (j->lit_state == 1) j->lit_state = 2;
      return;
    }
    if (cp == '{' || cp == '[' || (cp == '"' && j->phase == P_START)) {
      start_value(j);
      goto again;
    }
    mark_prose(j, off);
    j->phase = P_PROSE;
    if (j->lit_state <= 1 && j->litn < LIT_MAX && lit_char(cp)) {
      j->lit[j->litn++] = (char)cp;
      j->lit_state = 1;
    } else if (j->lit_state != 4) {
      j->lit_state = 3;
    }
    return;
  case P_FINFO:
    if (cp < 0x80 && (lit_char(cp) || cp == '_')) return;
    j->phase = P_START;
    goto again;
  case P_TRAIL:
    if (cp == '`') {
      if (j->ticks == 0) j->tick_off = off;
      j->ticks++;
      return;
    }
    if (j->ticks) {
      int t = j->ticks;
      j->ticks = 0;
      if (t >= 3 && j->in_fence) {
        j->in_fence = 0;
      } else {
        repair(j, "trailing_text", j->tick_off);
        j->phase = P_IGNORE;
        return;
      }
    }
    if (is_space(cp)) return;
    if (cp == '}' || cp == ']') {
      repair(j, "redundant_closer", off);
      return;
    }
    repair(j, "trailing_text", off);
    j->phase = P_IGNORE;
    return;
  case P_IGNORE: return;
  case P_VALUE: break;
  }

  switch (j->vs) {
  case V_STRING:
    if (!string_step(j, cp, raw, len, off)) goto again;
    return;
  case V_NUMBER:
    if (!number_step(j, cp, off)) goto again;
    return;
  case V_WORD:
    if (!word_step(j, cp, raw, len)) goto again;
    return;
  default: break;
  }

  /* a closing fence ends the value; other backticks are dropped */
  if (j->cm == CM_NONE && cp == '`') {
    if (j->ticks == 0) j->tick_off = off;
    if (++j->ticks == 3 && j->in_fence) {
      finalize_value(j, j->tick_off);
      j->phase = P_TRAIL;
      j->ticks = 3; /* P_TRAIL counts the rest of the run */
    }
    return;
  }
  if (j->ticks) {
    repair(j, "unexpected_char", j->tick_off);
    j->ticks = 0;
  }

  /* comments, between tokens */
  switch (j->cm) {
  case CM_NONE: break;
  case CM_SLASH:
    if (cp == '/' || cp == '*') {
      repair(j, "comment", j->cm_off);
      j->cm = cp == '/' ? CM_LINE : CM_BLOCK;
      return;
    }
    repair(j, "unexpected_char", j->cm_off);
    j->cm = CM_NONE;
    break;
  case CM_LINE:
    if (cp == '\n') j->cm = CM_NONE;
    return;
  case CM_BLOCK:
    if (cp == '*') j->cm = CM_BLOCK_STAR;
    return;
  case CM_BLOCK_STAR:
    if (cp == '/') j->cm = CM_NONE;
    else if (cp != '*') j->cm = CM_BLOCK;
    return;
  }
  if (is_space(cp)) return;
  if (cp == '/') {
    j->cm = CM_SLASH;
    j->cm_off = off;
    return;
  }
  if (cp == '#') {
    repair(j, "comment", off);
    j->cm = CM_LINE;
    return;
  }

  char t = top(j);
  switch (j->vs) {
  case V_VALUE:
    if (cp == '{' || cp == '[') push(j, (char)cp, off);
    else if (cp == '}' || cp == ']') closer(j, cp, off);
    else if (is_open_quote(cp)) open_string(j, cp, 0, off);
    else if (is_digit(cp) || cp == '-') start_number(j, cp, off);
    else if (cp == ',') {
      if (t == '{') {
        put_null(j, "null", 4, off);
        j->vs = V_AFTER;
        goto again;
      }
      repair(j, "extra_comma", off);
    } else if (cp == ':') {
      repair(j, "unexpected_char", off);
    } else {
      start_word(j, 0, off);
      if (!j->failed) word_step(j, cp, raw, len);
    }
    return;
  case V_KEY:
    if (is_open_quote(cp)) open_string(j, cp, 1, off);
    else if (cp == '}' || cp == ']') closer(j, cp, off);
    else if (cp == ',') repair(j, "extra_comma", off);
    else if (cp == ':' || cp == '{' || cp == '[') repair(j, "unexpected_char", off);
    else {
      start_word(j, 1, off);
      word_step(j, cp, raw, len);
    }
    return;
  case V_COLON:
    if (cp == ':') {
      put1(j, ':');
      j->vs = V_VALUE;
    } else if (cp == '}' || cp == ']') {
      closer(j, cp, off);
    } else if (cp == ',') {
      put_null(j, ":null", 5, off);
      j->vs = V_AFTER;
      goto again;
    } else {
      repair(j, "missing_colon", off);
      put1(j, ':');
      j->vs = V_VALUE;
      goto again;
    }
    return;
  case V_AFTER:
    if (cp == ',') {
      j->pending_comma = 1;
      j->comma_off = off;
      j->vs = t == '{' ? V_KEY : V_VALUE;
    } else if (cp == '}' || cp == ']') {
      closer(j, cp, off);
    } else if (cp == ':') {
      repair(j, "unexpected_char", off);
    } else {
      repair(j, "missing_comma", off);
      j->pending_comma = 1;
      j->comma_off = off;
      j->vs = t == '{' ? V_KEY : V_VALUE;
      goto again;
    }
    return;
  default: return;
  }
}

/* ---------------- UTF-8 decoding and the byte loop ---------------- */

static void bad_bytes(json_filter *j, uint64_t off) {
  /* an invalid sequence becomes U+FFFD wherever it is */
  if (j->phase == P_VALUE) repair(j, "invalid_utf8", off);
  step(j, 0xFFFD, "\xEF\xBF\xBD", 3, off);
}

static void u8_byte(json_filter *j, uint8_t b, uint64_t off) {
  for (;;) {
    if (j->u8n == 0) {
      if (b >= 0xC2 && b <= 0xDF) j->u8need = 2;
      else if (b >= 0xE0 && b <= 0xEF) j->u8need = 3;
      else if (b >= 0xF0 && b <= 0xF4) j->u8need = 4;
      else {
        bad_bytes(j, off);
        return;
      }
      j->u8lo = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80;
      j->u8hi = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
      j->u8[0] = b;
      j->u8n = 1;
      j->u8off = off;
      return;
    }
    if (b < j->u8lo || b > j->u8hi) {
      j->u8n = 0;
      bad_bytes(j, j->u8off);
      if (j->failed) return;
      if (b < 0x80) {
        /* an ASCII byte that broke the sequence is itself fine (found by
         * fuzz_json: it used to become a second U+FFFD) */
        char c = (char)b;
        step(j, b, &c, 1, off);
        return;
      }
      continue; /* b starts afresh */
    }
    j->u8lo = 0x80;
    j->u8hi = 0xBF;
    j->u8[j->u8n++] = b;
    if (j->u8n < j->u8need) return;
    uint32_t cp;
    if (j->u8need == 2) cp = ((uint32_t)(j->u8[0] & 0x1F) << 6) | (j->u8[1] & 0x3F);
    else if (j->u8need == 3)
      cp = ((uint32_t)(j->u8[0] & 0x0F) << 12) | ((uint32_t)(j->u8[1] & 0x3F) << 6) |
           (j->u8[2] & 0x3F);
    else
      cp = ((uint32_t)(j->u8[0] & 0x07) << 18) | ((uint32_t)(j->u8[1] & 0x3F) << 12) |
           ((uint32_t)(j->u8[2] & 0x3F) << 6) | (j->u8[3] & 0x3F);
    j->u8n = 0;
    step(j, cp, (const char *)j->u8, j->u8need, j->u8off);
    return;
  }
}

/* The run of plain string content at p[0..n): printable ASCII other than
 * the backslash and the quotes that may end the string, and complete
 * well-formed UTF-8 sequences (except in curly-quoted strings, whose closing
 * quote is one). */
/* Bytes that are plain string content: printable ASCII except the
 * backslash and the double quote (and, for single-quoted strings, the single
 * quote). Non-ASCII bytes are 0: checked as UTF-8 sequences. */
static const unsigned char plain_dq[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};
static const unsigned char plain_sq[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* Letters, digits, _ $ . - : bytes that continue a word whatever it is
 * (never a word end, a space or a comment start). */
static const unsigned char word_plain[256] = {
    ['_'] = 1, ['$'] = 1, ['.'] = 1, ['-'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
    ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
    ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
    ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
    ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
    ['Y'] = 1, ['Z'] = 1,
};

/* Bytes with a fast path between tokens. */
static const unsigned char structural[128] = {
    ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1, [','] = 1, [':'] = 1, ['"'] = 1, ['-'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['t'] = 1, ['f'] = 1, ['n'] = 1,
};

static size_t plain_run(const json_filter *j, const unsigned char *p, size_t n) {
  size_t k = 0;
  int curly = j->q >= Q_CURLY_D;
  const unsigned char *tbl = j->q == Q_DQ ? plain_dq : plain_sq;
  for (;;) {
    while (k < n && tbl[p[k]]) k++;
    if (k == n || p[k] < 0x80 || curly) return k;
    size_t l = sluicep_u8_seq_len(p + k, n - k);
    if (l == 0) return k;
    k += l;
  }
}

static void process(json_filter *j, const char *p, size_t n) {
  size_t i = 0;
  while (i < n && !j->failed) {
    uint8_t b = (uint8_t)p[i];
    if (j->u8n == 0) {
      if (j->phase == P_VALUE) {
        /* Fast paths: each does exactly what step() would do with the same
         * bytes, only without the per-code-point dispatch. */
        if (j->vs == V_STRING && !j->qpend && !j->esc && !j->hi) {
          size_t k = plain_run(j, (const unsigned char *)p + i, n - i);
          if (k) {
            put(j, p + i, k);
            i += k;
            if (i == n) break;
          }
          /* a quote followed at once by what decides it */
          if (j->q == Q_DQ && p[i] == '"' && i + 1 < n && (uint8_t)p[i + 1] < 0x80 &&
              !is_ws((uint8_t)p[i + 1]) && quote_ends(j, (uint8_t)p[i + 1], 0)) {
            close_string(j);
            i++;
            continue;
          }
          if (k) continue;
        } else if (j->vs <= V_AFTER && j->cm == CM_NONE && !j->ticks && b < 0x80 &&
                   structural[b]) {
          uint64_t off = j->pos + i;
          if (b == '}' || b == ']') {
            closer(j, b, off);
            i++;
            continue;
          }
          if (j->vs == V_VALUE) {
            if (b == '{' || b == '[') {
              push(j, (char)b, off);
              i++;
              continue;
            }
            if (is_digit(b) || b == '-') {
              start_number(j, b, off);
              i++;
              continue;
            }
            /* a literal followed at once by what ends a word */
            size_t l = b == 't' ? 4 : b == 'f' ? 5 : b == 'n' ? 4 : 0;
            j->word_key = 0;
            if (l && i + l < n && memcmp(p + i, b == 't' ? "true" : b == 'f' ? "false" : "null",
                                         l) == 0 &&
                word_ends(j, (uint8_t)p[i + l])) {
              if (depth_ok(j, off)) {
                begin_item(j);
                put(j, p + i, l);
                value_done(j);
              }
              i += l;
              continue;
            }
          }
          if (b == ',' && j->vs == V_AFTER) {
            j->pending_comma = 1;
            j->comma_off = j->pos + i;
            j->vs = top(j) == '{' ? V_KEY : V_VALUE;
            i++;
            continue;
          }
          if (b == ':' && j->vs == V_COLON) {
            put1(j, ':');
            j->vs = V_VALUE;
            i++;
            continue;
          }
          if (b == '"' && (j->vs == V_KEY || j->vs == V_VALUE)) {
            open_string(j, '"', j->vs == V_KEY, j->pos + i);
            i++;
            continue;
          }
        } else if (j->vs <= V_AFTER && j->cm == CM_NONE && is_ws(b)) {
          i++;
          continue;
        } else if (j->vs == V_WORD && word_plain[b]) {
          size_t k = i + 1;
          while (k < n && word_plain[(uint8_t)p[k]]) k++;
          if (j->wsp.len) {
            word_add(j, j->wsp.ptr, j->wsp.len);
            j->wsp.len = 0;
          }
          word_add(j, p + i, k - i);
          i = k;
          continue;
        } else if (j->vs == V_NUMBER && is_digit(b) &&
                   (j->ns == N_INT || j->ns == N_FRAC || j->ns == N_EXP)) {
          size_t k = i + 1;
          while (k < n && is_digit((uint8_t)p[k])) k++;
          put(j, p + i, k - i);
          i = k;
          continue;
        }
      } else if (j->phase == P_IGNORE) {
        i = n;
        break;
      }
      if (b < 0x80) {
        step(j, b, p + i, 1, j->pos + i);
        i++;
        continue;
      }
    }
    u8_byte(j, b, j->pos + i);
    i++;
  }
  j->pos += n;
}

/* ---------------- snapshots, feed, finish ---------------- */

static void emit_text(json_filter *j) {
  if (j->failed || j->out.len == j->emitted) return;
  if (sluicep_emit(&j->base, SLUICE_TEXT, j->out.ptr + j->emitted, j->out.len - j->emitted))
    j->failed = 1;
  j->emitted = j->out.len;
}

/* The closers that make the output so far a JSON text, appended to out
 * past its length (scratch space; out.len is restored by the caller). */
static void append_closers(json_filter *j) {
  char t = top(j);
  switch (j->vs) {
  case V_STRING:
    put1(j, '"');
    if (j->is_key) PUTS(j, ":null");
    break;
  case V_NUMBER:
    if (j->ns != N_INT && j->ns != N_FRAC && j->ns != N_EXP) put1(j, '0');
    break;
  case V_WORD:
    if (j->word_streaming) put1(j, '"');
    else render_word(j, 1);
    if (j->word_key) PUTS(j, ":null");
    break;
  case V_COLON: PUTS(j, ":null"); break;
  case V_VALUE:
    if (t == '{') PUTS(j, "null");
    break;
  default: break;
  }
  for (size_t k = j->stack.len; k-- > 0 && !j->failed;)
    put1(j, j->stack.ptr[k] == '{' ? '}' : ']');
}

static void snapshot(json_filter *j) {
  if (j->failed || !j->value_started) return;
  size_t len = j->out.len;
  if (j->phase == P_VALUE) append_closers(j);
  if (j->failed) return;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_SNAPSHOT;
  ev.data = j->out.ptr;
  ev.data_len = j->out.len;
  j->out.len = len;
  if (sluicep_event(&j->base, &ev)) j->failed = 1;
}

static sluice_status json_feed(sluice_filter *f, const char *p, size_t n) {
  json_filter *j = (json_filter *)f;
  /* The value event needs the whole repaired text, so it is held. The cap
   * is on input bytes (the same offset for every chunking); what is held
   * is at most a few times that (\u00XX for a raw control byte). */
  if (j->max_bytes && n > j->max_bytes - j->pos) {
    process(j, p, (size_t)(j->max_bytes - j->pos));
    if (!j->failed)
      sluicep_fail(f, SLUICE_LIMIT, j->max_bytes, "the input exceeded max_bytes (%zu)",
                   j->max_bytes);
    j->failed = 1;
    return f->err.status;
  }
  process(j, p, n);
  emit_text(j);
  if (j->incremental) snapshot(j);
  return f->err.status;
}

/* A top-level scalar held in prose: the whole trimmed input. */
static int lit_value(json_filter *j) {
  if (!(j->lit_state == 1 || j->lit_state == 2 || j->lit_state == 4) || j->litn == 0) return 0;
  const char *s = j->lit;
  size_t n = j->litn, i = 0;
  for (size_t k = 0; k < 6; k++)
    if (strlen(literals[k].word) == n && memcmp(literals[k].word, s, n) == 0) {
      put(j, literals[k].json, strlen(literals[k].json));
      if (literals[k].kind) repair(j, literals[k].kind, j->prose_off);
      return 1;
    }
  /* a literal cut short, when it is the whole input ("tru") */
  for (size_t k = 0; k < 3; k++)
    if (n >= 2 && n < strlen(literals[k].word) && memcmp(literals[k].word, s, n) == 0) {
      put(j, literals[k].json, strlen(literals[k].json));
      repair(j, "truncated_literal", j->prose_off);
      j->truncated = 1;
      return 1;
    }
  /* a JSON number, exactly */
  if (s[i] == '-') i++;
  if (i < n && s[i] == '0') i++;
  else if (i < n && s[i] >= '1' && s[i] <= '9') while (i < n && is_digit((uint8_t)s[i])) i++;
  else return 0;
  if (i < n && s[i] == '.') {
    size_t d = ++i;
    while (i < n && is_digit((uint8_t)s[i])) i++;
    if (i == d) return 0;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    size_t d = i;
    while (i < n && is_digit((uint8_t)s[i])) i++;
    if (i == d) return 0;
  }
  if (i != n) return 0;
  put(j, s, n);
  return 1;
}

static sluice_status json_finish(sluice_filter *f) {
  json_filter *j = (json_filter *)f;
  uint64_t end = j->pos;
  if (j->u8n) {
    j->u8n = 0;
    bad_bytes(j, j->u8off);
  }
  if (j->failed) return f->err.status;
  switch (j->phase) {
  case P_START:
  case P_PROSE:
  case P_FINFO:
    if (j->ticks) ticks_end(j);
    if (!lit_value(j)) {
      if (j->has_prose)
        return sluicep_fail(f, SLUICE_JSON_NO_VALUE, end, "no JSON value found in the input");
      return sluicep_fail(f, SLUICE_JSON_EMPTY, end, "the input is empty or only whitespace");
    }
    break;
  case P_VALUE:
    finalize_value(j, end);
    break;
  case P_TRAIL:
    if (j->ticks && !(j->ticks >= 3 && j->in_fence)) repair(j, "trailing_text", j->tick_off);
    break;
  default: break;
  }
  if (j->failed) return f->err.status;
  emit_text(j);
  if (j->incremental) {
    j->value_started = 1;
    snapshot(j);
  }
  if (j->failed) return f->err.status;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_VALUE;
  ev.data = j->out.ptr ? j->out.ptr : "";
  ev.data_len = j->out.len;
  ev.complete = !j->truncated;
  sluicep_event(f, &ev);
  return f->err.status;
}

static void json_destroy(sluice_filter *f) {
  json_filter *j = (json_filter *)f;
  sluicep_buf_free(&j->out);
  sluicep_buf_free(&j->stack);
  sluicep_buf_free(&j->pend);
  sluicep_buf_free(&j->wsp);
}

static const sluicep_vtable json_vt = {"json", json_feed, json_finish, json_destroy};

/* ---------------- construction ---------------- */

void sluice_json_opts_init_size(sluice_json_opts *o, size_t size) {
  sluice_json_opts d;
  memset(&d, 0, sizeof d);
  d.max_depth = DEFAULT_MAX_DEPTH;
  sluicep_opts_init(o, size, &d, sizeof d);
}

sluice_status sluice_json_new(sluice_filter **out, const sluice_json_opts *opts,
                              const sluice_sink *sink, const sluice_mem *mem, sluice_error *err) {
  *out = NULL;
  sluice_json_opts local, *o = &local;
  sluice_json_opts_init(&local);
  sluice_status st = opts ? sluicep_opts_take(&local, sizeof local, opts, "sluice_json_opts", err)
                          : SLUICE_OK;
  if (st != SLUICE_OK) return st;
  sluice_filter *f;
  st = sluicep_filter_alloc(&f, sizeof(json_filter), &json_vt, sink, mem, err);
  if (st != SLUICE_OK) return st;
  json_filter *j = (json_filter *)f;
  sluicep_buf_init(&j->out, &f->mem);
  sluicep_buf_init(&j->stack, &f->mem);
  sluicep_buf_init(&j->pend, &f->mem);
  sluicep_buf_init(&j->wsp, &f->mem);
  j->incremental = o->incremental != 0;
  j->max_depth = o->max_depth;
  j->max_bytes = o->max_bytes;
  j->phase = P_START;
  /* sized once: a held word never grows pend past WORD_HOLD + a code point */
  if (sluicep_buf_reserve(&j->pend, WORD_HOLD + 8)) {
    sluice_free(f);
    return sluicep_nomem(err, "json");
  }
  *out = f;
  return SLUICE_OK;
}
