/*
 * json_value.c: the JSON sanitizer's byte loop and everything inside the
 * value (DESIGN.md §2 "json"; the decisions are listed with their cases in
 * conformance/suites/json/README.md).
 *
 * One forward pass, one code point at a time, with an explicit stack of open
 * frames ('{', '[', and '(' for a wrapper call, which writes nothing): no
 * recursion on input depth and no look-ahead into unread input. Every
 * decision that needs more input is kept in the filter's state, so every
 * chunking of the same input runs the same steps:
 *
 *   a candidate closing quote (is it the end, content, or "a" + "b"? after
 *   a line break: does the next line begin a key or an item?),
 *   a comma inside a string (is `, "key":` the next key, a quote missing?),
 *   a closer inside a string (does the input end after it and the closers
 *   of the next frames: was the closing quote missing?),
 *   a mismatched closer that would end the value (does a comma follow: is
 *   it the wrong bracket for the innermost container?),
 *   an unquoted token (a number, a literal, a call name, an ellipsis, or a
 *   string?), the characters after a top-level '"' (a string, or a whole
 *   document stringified as "{\"a\": 1}"?).
 *
 * The per-state handlers below are the only rules. The fast paths in run()
 * look only at bytes already in the chunk and call the same handlers (or do
 * the one thing the handler would do for a plain byte: copy string content,
 * skip whitespace, add letters to a token; or, for a token whose end is in
 * the chunk, what the handlers would do with all of it: key_word with its
 * ':', value_word for a number as written or a literal, a short value token
 * held and ended at once, quote_fast for a candidate closing quote and the
 * spaces after it, a line comment to its line end).
 *
 * Held code points are re-fed through step() when a decision fails; what is
 * re-fed can never start the same kind of hold again (no comma in a held
 * candidate key), so each code point is re-fed at most once: linear time.
 */
#include "json_private.h"

#define put sluicep_json_put
#define put1 sluicep_json_put1
#define PUTS(j, s) put((j), (s), sizeof(s) - 1)

static void step(json_filter *j, uint32_t cp, const char *raw, size_t len, uint64_t off);

/* ---------------- character classes ---------------- */

/* One table for the byte loop's runs (bits may combine):
 *   1  ends a plain run in a double-quoted string (control, '"', '\')
 *   2  ends a plain run in a single- or curly-quoted string (also '\'')
 *   4  (unused)
 *   8  not ASCII (a UTF-8 sequence is checked on its own)
 *  16  JSON whitespace, skipped between tokens
 *  32  needs the slow path between tokens (control, '`', '/', '#', '\', non-ASCII)
 *  64  continues any unquoted word (letters, digits, '_', '$', '.', '-')
 * 128  ends any unquoted token (, } ] { [ " and newlines) */
#define C_DQ 1
#define C_SQ 2
#define C_HIGH 8
#define C_WS 16
#define C_SLOW 32
#define C_WORD 64
#define C_END 128
static const unsigned char cls[256] = {
     35,  35,  35,  35,  35,  35,  35,  35,  35,  19, 147,  35,  35, 147,  35,  35,
     35,  35,  35,  35,  35,  35,  35,  35,  35,  35,  35,  35,  35,  35,  35,  35,
     16,   0, 131,  32,  64,   0,   0,   2,   0,   0,   0,   0, 128,  64,  64,  32,
     64,  64,  64,  64,  64,  64,  64,  64,  64,  64,   0,   0,   0,   0,   0,   0,
      0,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,
     64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64, 128,  35, 128,   0,  64,
     32,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64,
     64,  64,  64,  64,  64,  64,  64,  64,  64,  64,  64, 128,   0, 128,   0,   0,
    40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40,
    40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40,
    40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40,
    40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40,
    40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40,
    40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40,
};

static int is_ws(uint32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int is_digit(uint32_t c) { return c >= '0' && c <= '9'; }

static int is_hex(uint32_t c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static uint32_t hex_val(uint32_t c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

static char top(const json_filter *j) { return j->stack.len ? j->stack.ptr[j->stack.len - 1] : 0; }

static int is_open_quote(uint32_t c) {
  return c == '"' || c == '\'' || c == 0x201C || c == 0x201D || c == 0x2018 || c == 0x2019;
}

/* ---------------- string content ---------------- */

static void put_escape(json_filter *j, unsigned char c) {
  static const char hexd[] = "0123456789abcdef";
  switch (c) {
  case '"': PUTS(j, "\\\""); break;
  case '\\': PUTS(j, "\\\\"); break;
  case '\n': PUTS(j, "\\n"); break;
  case '\r': PUTS(j, "\\r"); break;
  case '\t': PUTS(j, "\\t"); break;
  case '\b': PUTS(j, "\\b"); break;
  case '\f': PUTS(j, "\\f"); break;
  default: {
    char e[6] = {'\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 15]};
    put(j, e, 6);
  }
  }
}

/* Bytes (whole UTF-8 sequences) as string content: control characters,
 * quotes and backslashes escaped, the rest copied in runs; p[0..i) is
 * known to need no escape. */
static void put_escaped_from(json_filter *j, const char *p, size_t n, size_t i) {
  const unsigned char *u = (const unsigned char *)p;
  size_t s = 0;
  for (;;) {
    /* a control character, '"' or '\\' ends the run copied in one go */
    while (i < n && !(cls[u[i]] & C_DQ)) i++;
    put(j, p + s, i - s);
    if (i == n) return;
    put_escape(j, u[i]);
    s = ++i;
  }
}

/* The same, inline for the tokens: with nothing to escape (the common
 * case) one put, else put_escaped_from from the first byte to escape. */
static inline void put_escaped(json_filter *j, const char *p, size_t n) {
  const unsigned char *u = (const unsigned char *)p;
  size_t i = 0;
  while (i < n && !(cls[u[i]] & C_DQ)) i++;
  if (i == n) put(j, p, n);
  else put_escaped_from(j, p, n, i);
}

/* A code point written into a string: a raw control character is a repair. */
static int put_guarded(json_filter *j, uint32_t c);

static void put_content(json_filter *j, uint32_t cp, const char *raw, size_t len, uint64_t off) {
  if (cp < 0x20) REPAIR(j, "control_char", off);
  if (!put_guarded(j, cp)) put_escaped_from(j, raw, len, 0); /* a code point: no inline copy */
}

static void put_content_cp(json_filter *j, uint32_t cp, uint64_t off) {
  unsigned char b[4];
  size_t l = sluicep_u8_encode(cp, b);
  put_content(j, cp, (const char *)b, l, off);
}

/* jansson rejects a NUL in an object key even with JSON_ALLOW_NUL: the key
 * is kept as written (valid JSON), and the text marked. */
static void key_nul(json_filter *j, uint64_t off) {
  sluicep_json_unloadable(j, "nul_in_key", off);
}

/* Re-feeds held code points (already decoded, so not through the layer). */
static void refeed(json_filter *j, const uint32_t *cps, const uint64_t *offs, size_t n) {
  for (size_t k = 0; k < n && !j->failed; k++) {
    unsigned char b[4];
    size_t l = sluicep_u8_encode(cps[k], b);
    step(j, cps[k], (const char *)b, l, offs[k]);
  }
}

/* ---------------- the value's structure ---------------- */

/* Containers open around a value, counted as jansson counts depth; the
 * ndjson wrapper is one. */
static size_t depth(const json_filter *j) { return j->nobj + j->narr + (size_t)j->wrapped; }

/* A value is about to start at depth() + 1: 0 (and fails) past the limit.
 * The default, 2048, is jansson's, so every repaired text loads. */
static int depth_ok(json_filter *j, uint64_t off) {
  if (!j->max_depth || depth(j) < j->max_depth) {
    if (depth(j) >= JSON_LOADER_MAX_DEPTH) sluicep_json_unloadable(j, "depth", off);
    return 1;
  }
  sluicep_fail(&j->base, SLUICE_JSON_DEPTH, off, "nesting deeper than the depth limit (%zu)",
               j->max_depth);
  j->failed = 1;
  return 0;
}

/* An item is about to be written: the comma before it, if any. */
static void begin_item(json_filter *j) {
  j->after_ellipsis = 0;
  if (j->pending_comma) {
    put1(j, ',');
    j->pending_comma = 0;
  }
}

static void value_done(json_filter *j) {
  if (j->stack.len == 0) sluicep_json_value_ended(j);
  else j->vs = V_AFTER;
}

/* A null written where a value is missing. */
static void put_null(json_filter *j, const char *text, size_t n, uint64_t off) {
  if (!depth_ok(j, off)) return;
  put(j, text, n);
  REPAIR(j, "missing_value", off);
}

static int push_frame(json_filter *j, char c) {
  if (sluicep_json_buf_add(&j->stack, &c, 1)) {
    sluicep_json_nomem(j);
    return 0;
  }
  return 1;
}

static void push(json_filter *j, char c, uint64_t off) {
  if (!depth_ok(j, off)) return;
  begin_item(j);
  if (!push_frame(j, c)) return;
  if (c == '{') j->nobj++;
  else j->narr++;
  put1(j, c);
  j->vs = c == '{' ? V_KEY : V_VALUE;
}

void sluicep_json_push_call(json_filter *j) {
  if (push_frame(j, '(')) j->vs = V_VALUE;
}

static void pop(json_filter *j) {
  size_t k = j->stack.len - 1;
  char t = j->stack.ptr[k];
  /* an entry the last snapshot's tail closed: its closer is dropped from it */
  if (k < j->snap_lwm) {
    j->snap_lwm = k;
    if (t != '(') j->snap_dropc++;
  }
  j->stack.len = k;
  if (t == '{') j->nobj--;
  else if (t == '[') j->narr--;
}

void sluicep_json_fill_in(json_filter *j, uint64_t off) {
  char t = top(j);
  if (t == '(') {
    if (j->vs == V_VALUE && depth_ok(j, off)) { /* an empty call: f() */
      begin_item(j);
      PUTS(j, "null");
      REPAIR(j, "missing_value", off);
    }
  } else if (j->vs == V_COLON) {
    put_null(j, ":null", 5, off);
  } else if (j->vs == V_VALUE && t == '{') {
    put_null(j, "null", 4, off);
  }
  if (j->pending_comma) {
    if (!j->after_ellipsis) REPAIR_HOT(j, "trailing_comma", j->comma_off);
    j->pending_comma = 0;
  }
  j->after_ellipsis = 0;
}

static void close_top(json_filter *j, uint64_t off) {
  char t = top(j);
  sluicep_json_fill_in(j, off);
  if (j->failed) return;
  if (t != '(') put1(j, t == '{' ? '}' : ']');
  pop(j);
  if (t == '(' && j->stack.len == 0) j->semi_ok = 1; /* JSONP: callback({...}); */
  value_done(j);
}

/* A closer for an outer container: it closes the frames opened inside it
 * first (their closers were missing). */
static void close_through(json_filter *j, char want, uint64_t off) {
  while (top(j) != want && !j->failed) {
    REPAIR(j, "missing_closer", off);
    close_top(j, off);
  }
  if (!j->failed) close_top(j, off);
}

/* A closing bracket: closes its container, closing the frames opened inside
 * it first; a bracket with no open container of its kind is dropped. When
 * that would close the outermost container (the whole value) while the
 * innermost is the other kind, the reading waits for the next token
 * (V_MISCLOSE): {"k": ["a", "b"}, "k2": 1} is a wrong bracket, not the
 * end of the value. */
static void closer(json_filter *j, uint32_t c, uint64_t off) {
  char want = c == '}' ? '{' : '[', t = top(j);
  if (t == want) { /* the usual case: what close_through does with it */
    if (!j->failed) close_top(j, off);
    return;
  }
  size_t n = want == '{' ? j->nobj : j->narr;
  if (n == 0) {
    REPAIR(j, "redundant_closer", off);
    return;
  }
  if (t != want && t != '(' && n == 1 && j->stack.ptr[0] == want) {
    j->mis = c;
    j->mis_off = off;
    j->mis_vs = j->vs;
    j->vs = V_MISCLOSE;
    return;
  }
  close_through(j, want, off);
}

/* After a mismatched closer that would end the value: a comma next means
 * the value goes on, so the closer was the wrong kind for the innermost
 * container and closes that one only (mismatched_closer); anything else
 * (or the end of the input) means the inner closers were missing. Spaces
 * between are skipped (nothing is written for them). */
static int misclose_cp(json_filter *j, uint32_t cp) {
  if (cp != ',' && (sluicep_json_is_space(cp) || is_ws(cp))) return 1;
  j->vs = j->mis_vs;
  if (cp == ',') {
    REPAIR(j, "mismatched_closer", j->mis_off);
    close_top(j, j->mis_off);
  } else {
    close_through(j, j->mis == '}' ? '{' : '[', j->mis_off);
  }
  return 0;
}

/* ---------------- strings ---------------- */

/* The holds inside a value string of a container (kc_cp): after a comma,
 * spaces, a quoted key and spaces (KC_WS1, KC_KEY, KC_WS2); after a closer
 * of the string's container, more closers and spaces (KC_CLOSE). */
enum { KC_WS1, KC_KEY, KC_WS2, KC_CLOSE };

static void set_quote(json_filter *j, uint32_t c, uint64_t off) {
  switch (c) {
  case '"': j->q = Q_DQ; break;
  case '\'': j->q = Q_SQ; REPAIR_HOT(j, "single_quotes", off); break;
  case 0x201C:
  case 0x201D: j->q = Q_CURLY_D; REPAIR(j, "curly_quotes", off); break;
  default: j->q = Q_CURLY_S; REPAIR(j, "curly_quotes", off); break;
  }
}

static void open_string(json_filter *j, uint32_t c, int key, uint64_t off) {
  if (!key && !depth_ok(j, off)) return;
  begin_item(j);
  put1(j, '"');
  j->vs = V_STRING;
  j->is_key = key;
  j->tq_guard = 0;
  j->esc = 0;
  j->hi = 0;
  j->qn = 0;
  j->qplus = 0;
  j->kn = 0;
  j->sobj = j->sarr = 0;
  set_quote(j, c, off);
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
static inline int quote_closes(const json_filter *j, uint32_t c) {
  if (c == ',' || c == '}' || c == ']' || c == '"' || c == 0x201C || c == '/' || c == '#' ||
      is_digit(c)) /* ["a" 2]: the next value, a comma missing */
    return 1;
  /* the next string of the same kind: a missing comma ('a' 'b') */
  if ((c == '\'' && j->q == Q_SQ) || (c == 0x2018 && j->q == Q_CURLY_S)) return 1;
  if (j->is_key) return c == ':' || c == '\'' || c == 0x2018;
  return c == ')' && top(j) == '(';
}

/* The decision on a candidate closing quote, given the first code point
 * after it that is not a space and whether spaces came between; the same
 * for a top-level string as for a nested one. A key rarely holds a quote:
 * after a space, or before what starts a value, the quote ends it (a
 * missing colon). */
static inline int quote_ends(const json_filter *j, uint32_t cp, int spaced) {
  if (quote_closes(j, cp)) return 1;
  return j->is_key && (spaced || cp == '{' || cp == '[' || cp == '-');
}

static inline void close_string(json_filter *j) {
  if (j->qplus) REPAIR(j, "unexpected_char", j->qoff[j->qplus - 1]); /* "a" + (nothing) */
  put1(j, '"');
  j->qn = 0;
  j->qplus = 0;
  j->qnl = 0;
  j->qword = 0;
  if (j->is_key) j->vs = V_COLON;
  else value_done(j);
}

/* A surrogate escape that is not half of a pair is written U+FFFD, as the
 * encoded surrogates and invalid UTF-8 are: jansson refuses it as written,
 * and the replacement keeps its place (every other reader keeps it). */
static void lone_hi(json_filter *j) {
  REPAIR(j, "lone_surrogate", j->hi_off);
  PUTS(j, "\\ufffd");
  j->hi = 0;
}

enum { U_CHAR, U_PAIR, U_HOLD, U_LONE };

/* The surrogate rules for a \uXXXX of value v, shared by strings (which
 * keep escapes as written) and the stringified layer (which decodes them):
 * with a high surrogate held, a low one completes the pair (anything else
 * finds the held one lone: the caller has written it U+FFFD first, see
 * pairs_with); a high one is held; a lone low one is U+FFFD (U_LONE, the
 * caller writes it; the repair is here). */
static int surrogates(json_filter *j, int held, uint32_t v, uint64_t off) {
  if (held) return U_PAIR;
  if (v >= 0xD800 && v <= 0xDBFF) return U_HOLD;
  if (v < 0xDC00 || v > 0xDFFF) return U_CHAR;
  REPAIR(j, "lone_surrogate", off);
  return U_LONE;
}

/* Does v complete a held high surrogate? */
static int pairs_with(uint32_t v) { return v >= 0xDC00 && v <= 0xDFFF; }

static void unicode_done(json_filter *j) {
  uint32_t v = j->hexv;
  if (j->hi && !pairs_with(v)) lone_hi(j);
  int held = j->hi;
  j->hi = 0;
  switch (surrogates(j, held, v, j->esc_off)) {
  case U_PAIR:
    put(j, j->hibuf, 6);
    put(j, j->hexbuf, 6);
    break;
  case U_HOLD:
    j->hi = 1;
    memcpy(j->hibuf, j->hexbuf, 6);
    j->hi_off = j->esc_off;
    break;
  case U_CHAR:
    if (v == 0 && j->is_key) key_nul(j, j->esc_off);
    put(j, j->hexbuf, 6);
    break;
  default: PUTS(j, "\\ufffd"); break;
  }
}

/* Would a re-read of the top-level string written so far still be deciding
 * whether it is a stringified document ("{" or "[" and spaces: topq_cp)?
 * While it would, a '"' '{' '}' '[' or ']' written there is written \u00XX,
 * since \" or a bracket would make the re-read decide otherwise than this
 * read did (when an escape it held was dropped, or a quote was content):
 * repairing the repaired text must change nothing. Returns 1 when c must be
 * written so; the guard ends with the first other character. */
static int tq_guarded(json_filter *j, uint32_t c) {
  if (!j->tq_guard) return 0;
  const char *p = j->out.ptr + j->tq_out;
  size_t n = j->out.len - j->tq_out;
  if (n == 0) return 0; /* the bracket itself */
  int window = n <= 2 * JSON_TQ_MAX && (p[0] == '{' || p[0] == '[');
  for (size_t i = 1; i < n && window; i++) {
    if (p[i] == ' ') continue;
    window = p[i] == '\\' && i + 1 < n && strchr("nrt", p[i + 1]);
    i++;
  }
  if (!window) j->tq_guard = 0;
  return window && (c == '"' || c == '{' || c == '}' || c == '[' || c == ']');
}

/* Writes c as \u00XX when tq_guarded says so; returns 1 if it did. */
static int put_guarded(json_filter *j, uint32_t c) {
  static const char hexd[] = "0123456789abcdef";
  if (!tq_guarded(j, c)) return 0;
  char e[6] = {'\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 15]};
  put(j, e, 6);
  return 1;
}

/* The held quote was content after all: written escaped, with the spaces
 * (and '+') held after it. */
static void quote_content(json_filter *j) {
  REPAIR(j, "unescaped_quote", j->qoff[0]);
  if (j->qcp[0] == '"') {
    if (!put_guarded(j, '"')) PUTS(j, "\\\""); /* also in a curly-quoted string */
  } else {
    put_content_cp(j, j->qcp[0], j->qoff[0]);
  }
  for (size_t k = 1; k < j->qn; k++) put_content_cp(j, j->qcp[k], j->qoff[k]);
  j->qn = 0;
  j->qplus = 0;
  j->qnl = 0;
  j->qword = 0;
}

static int kc_possible(const json_filter *j);

/* A word the next line may begin with: letters, digits, _ $ . - and spaces
 * inside (a key "first name"), no quote or structure. */
static int qword_char(uint32_t c) {
  return c < 0x80 ? (cls[c] & C_WORD) || c == ' ' || c == '\t' : !is_open_quote(c);
}

/* What ends such a word when it continues the enclosing value: a colon in
 * an object (the next key, its comma missing), the end of an item in an
 * array (the next item, unquoted). */
static int qword_ends(const json_filter *j, uint32_t c) {
  return top(j) == '{' ? c == ':' : c == ',' || c == ']' || c == '\n' || c == '\r';
}

/* The quote closed the string after all: what was held after it (spaces,
 * the word) is read again as the structure that follows. */
static void quote_closed_before(json_filter *j) {
  uint32_t cps[JSON_QP_MAX + JSON_QW_MAX];
  uint64_t offs[JSON_QP_MAX + JSON_QW_MAX];
  size_t n = j->qn - 1;
  memcpy(cps, j->qcp + 1, n * sizeof cps[0]);
  memcpy(offs, j->qoff + 1, n * sizeof offs[0]);
  close_string(j);
  refeed(j, cps, offs, n);
}

/* After a candidate closing quote and a line break, a word is held: the
 * reading decided by what follows it (FORMAT: the quote closed the string
 * when the next line continues the value as a new member or item; held:
 * the spaces and at most JSON_QW_MAX code points of the word). */
static int qword_cp(json_filter *j, uint32_t cp, uint64_t off) {
  if (qword_ends(j, cp)) {
    quote_closed_before(j);
    return 0;
  }
  if (qword_char(cp) && j->qn - j->qword < JSON_QW_MAX) {
    j->qcp[j->qn] = cp;
    j->qoff[j->qn++] = off;
    return 1;
  }
  quote_content(j);
  return 0;
}

/* A candidate closing quote is held (with the spaces after it and maybe a
 * '+'). Returns 0 when cp must be processed again. */
static int quote_cp(json_filter *j, uint32_t cp, uint64_t off) {
  if (j->qword) return qword_cp(j, cp, off);
  if (is_ws(cp) || (cp == '+' && !j->qplus)) {
    if (j->qn == 1 + JSON_QP_MAX) { /* a quote followed by that much space ends the string */
      close_string(j);
      return 0;
    }
    if (cp == '+') j->qplus = (int)j->qn + 1;
    if (cp == '\n' || cp == '\r') j->qnl = 1;
    j->qcp[j->qn] = cp;
    j->qoff[j->qn++] = off;
    return 1;
  }
  if (j->qplus) {
    if (is_open_quote(cp)) { /* "a" + "b": one string */
      REPAIR(j, "string_concatenation", j->qoff[j->qplus - 1]);
      j->qn = 0;
      j->qplus = 0;
      set_quote(j, cp, off);
      return 1;
    }
    if (quote_ends(j, cp, 1)) {
      close_string(j);
      return 0;
    }
  } else if (quote_ends(j, cp, j->qn > 1) || (j->qnl && j->stack.len == 0)) {
    /* (a top-level value ends at a line break: what follows is prose) */
    close_string(j);
    return 0;
  } else if (j->qnl && kc_possible(j) && qword_char(cp) && cp != ' ' && cp != '\t') {
    j->qword = j->qn; /* "John"\n lastName: ... */
    j->qcp[j->qn] = cp;
    j->qoff[j->qn++] = off;
    return 1;
  }
  quote_content(j);
  return 0;
}

/* Where a content comma may begin the next key (an object) or item (an
 * array) of a string whose closing quote is missing. */
static int kc_possible(const json_filter *j) {
  char t = top(j);
  return !j->is_key && (t == '{' || t == '[');
}

/* A character of a candidate key: printable, no escape, no structure. */
static int kc_keychar(uint32_t c) {
  return c >= 0x20 && c != '\\' && c != '"' && c != ',' && c != ':' && c != '{' && c != '}' &&
         c != '[' && c != ']';
}

/* The held code points, taken out of the state before they are re-fed
 * (re-feeding may hold again). */
typedef struct held {
  uint32_t cp[JSON_KC_MAX];
  uint64_t off[JSON_KC_MAX];
  size_t n;
} held;

static void detach(json_filter *j, held *h) {
  h->n = j->kn;
  memcpy(h->cp, j->kcp, h->n * sizeof h->cp[0]);
  memcpy(h->off, j->koff, h->n * sizeof h->off[0]);
  j->kn = 0;
}

/* The comma and what followed it were string content after all (as were
 * the closers and spaces of KC_CLOSE, which no rule in a string reads:
 * written as they are). */
static void kc_fail(json_filter *j) {
  held h;
  if (j->kc_state == KC_CLOSE) {
    for (size_t k = 0; k < j->kn; k++) put_content_cp(j, j->kcp[k], j->koff[k]);
    j->kn = 0;
    return;
  }
  detach(j, &h);
  put1(j, ',');
  refeed(j, h.cp + 1, h.off + 1, h.n - 1);
}

/* `, "key":` followed a comma inside a string: the string ended before the
 * comma, and the rest is read again as the next key (or array item). */
static void kc_commit(json_filter *j) {
  held h;
  detach(j, &h);
  REPAIR(j, "missing_quote", h.off[0]);
  close_string(j);
  refeed(j, h.cp, h.off, h.n);
}

/* After a closer held in a string (KC_CLOSE), another one counts only if
 * it closes the next frame out, so that the end of the input closes just
 * the frames of the held closers. */
static int closes_next_frame(const json_filter *j, uint32_t cp) {
  size_t closers = 0;
  for (size_t k = 0; k < j->kn; k++) closers += j->kcp[k] == '}' || j->kcp[k] == ']';
  if (closers >= j->stack.len) return 0;
  char f = j->stack.ptr[j->stack.len - 1 - closers];
  return cp == (f == '{' ? '}' : f == '[' ? ']' : 0);
}

/* A comma inside a string is held with what follows: spaces, a quote, key
 * characters, a quote, spaces, then ':' (or ',' ']' in an array) commits.
 * Returns 0 when cp must be processed again. */
static int kc_cp(json_filter *j, uint32_t cp, uint64_t off) {
  int hold = 0;
  switch (j->kc_state) {
  case KC_CLOSE: /* only the end of the input commits (sluicep_json_finish_token) */
    hold = is_ws(cp) || closes_next_frame(j, cp);
    break;
  case KC_WS1:
    if (is_ws(cp)) hold = 1;
    else if (is_close_quote(j, cp)) hold = 1, j->kc_state = KC_KEY;
    break;
  case KC_KEY:
    if (is_close_quote(j, cp)) hold = 1, j->kc_state = KC_WS2;
    else hold = kc_keychar(cp);
    break;
  default:
    if (is_ws(cp)) {
      hold = 1;
    } else if (top(j) == '{' ? cp == ':' : (cp == ',' || cp == ']')) {
      kc_commit(j);
      return 0;
    }
    break;
  }
  if (hold && j->kn < JSON_KC_MAX) {
    j->kcp[j->kn] = cp;
    j->koff[j->kn++] = off;
    return 1;
  }
  kc_fail(j);
  return 0;
}

/* One code point inside a string. Returns 0 when cp must be processed again
 * (the string closed, or a held decision failed). */
static int string_cp(json_filter *j, uint32_t cp, const char *raw, size_t len, uint64_t off) {
  if (j->qn) return quote_cp(j, cp, off);
  if (j->kn) return kc_cp(j, cp, off);
  if (j->esc == 1) {
    j->esc = 0;
    if (cp != 'u' && j->hi) lone_hi(j);
    switch (cp) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': {
      char e[2] = {'\\', (char)cp};
      if (!put_guarded(j, cp)) put(j, e, 2);
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
      REPAIR(j, "invalid_escape", j->esc_off);
      put1(j, '\'');
      return 1;
    default:
      /* keep the backslash as a character; the code point is content */
      REPAIR(j, "invalid_escape", j->esc_off);
      PUTS(j, "\\\\");
      break;
    }
  } else if (j->esc == 2) {
    if (is_hex(cp)) {
      j->hexbuf[2 + j->hexn++] = (char)cp;
      j->hexv = j->hexv * 16 + hex_val(cp);
      if (j->hexn == 4) {
        j->esc = 0;
        unicode_done(j);
      }
      return 1;
    }
    REPAIR(j, "invalid_unicode_escape", j->esc_off);
    j->esc = 0;
  }
  if (cp == '\\') {
    j->esc = 1;
    j->esc_off = off;
    return 1;
  }
  if (j->hi) lone_hi(j);
  if (is_close_quote(j, cp)) {
    j->qcp[0] = cp;
    j->qoff[0] = off;
    j->qn = 1;
    return 1;
  }
  if ((cp == ',' || cp == '}' || cp == ']' || cp == '{' || cp == '[') && kc_possible(j)) {
    if (cp == '{' || cp == '[') { /* content; its closer will be too */
      if (cp == '{') j->sobj++;
      else j->sarr++;
    } else if (cp == '}' && j->sobj) {
      j->sobj--;
    } else if (cp == ']' && j->sarr) {
      j->sarr--;
    } else if (cp == ',' || cp == (top(j) == '{' ? '}' : ']')) {
      /* a comma (the next key may follow), or the container's closer with
       * no bracket open in the string: the closing quote may be missing */
      j->kcp[0] = cp;
      j->koff[0] = off;
      j->kn = 1;
      j->kc_state = cp == ',' ? KC_WS1 : KC_CLOSE;
      return 1;
    }
  }
  if (cp == 0 && j->is_key) key_nul(j, off);
  put_content(j, cp, raw, len, off);
  return 1;
}

/* ---------------- numbers ---------------- */

#define NF_PLUS 1 /* a leading '+' was dropped */
#define NF_FIX 2  /* a '0' was inserted: .5, 2.e5 */

/* The number grammar over one more byte (tokens are decided byte by byte;
 * only ASCII bytes can continue a number). */
static inline enum json_num num_next(enum json_num s, unsigned char c) {
  int d = is_digit(c), e = c == 'e' || c == 'E';
  switch (s) {
  case N_START:
    if (c == '-') return N_MINUS;
    if (c == '+') return N_PLUS;
    /* fall through */
  case N_MINUS:
  case N_PLUS:
    if (c == '0') return N_ZERO;
    if (d) return N_INT;
    return c == '.' ? N_LDOT : N_BAD;
  case N_ZERO:
    if (d) return N_LEAD0;
    if (c == '.') return N_DOT;
    if (e) return N_E;
    return c == 'x' || c == 'X' ? N_HEX0 : N_BAD;
  case N_INT:
    if (d) return N_INT;
    if (c == '.') return N_DOT;
    return e ? N_E : N_BAD;
  case N_LDOT: return d ? N_FRAC : N_BAD;
  case N_DOT:
  case N_FRAC:
    if (d) return N_FRAC;
    return e ? N_E : N_BAD;
  case N_E:
    if (c == '+' || c == '-') return N_ESIGN;
    /* fall through */
  case N_ESIGN:
  case N_EXP: return d ? N_EXP : N_BAD;
  case N_LEAD0: return d || c == '.' || e ? N_LEAD0 : N_BAD;
  case N_HEX0:
  case N_HEX: return is_hex(c) ? N_HEX : N_BAD;
  default: return N_BAD;
  }
}

/* A prefix that is written as a JSON number (repaired if need be). */
static int num_plain(enum json_num s) {
  return s == N_MINUS || s == N_ZERO || s == N_INT || s == N_DOT || s == N_FRAC || s == N_E ||
         s == N_ESIGN || s == N_EXP;
}

/* Writes one byte of a plain number: the JSON for the transition. */
static void num_emit(json_filter *j, unsigned char c) {
  enum json_num s = j->num, t = num_next(s, c);
  switch (t) {
  case N_MINUS: put1(j, '-'); break;
  case N_PLUS: j->num_flags |= NF_PLUS; break;
  case N_ZERO: break; /* written once it is known not to be a leading zero */
  case N_LDOT:
    PUTS(j, "0.");
    j->num_flags |= NF_FIX;
    break;
  case N_DOT:
    if (s == N_ZERO) put1(j, '0');
    put1(j, '.');
    break;
  case N_E:
    if (s == N_ZERO) put1(j, '0');
    if (s == N_DOT) {
      put1(j, '0');
      j->num_flags |= NF_FIX;
    }
    put1(j, (char)c);
    break;
  default: put1(j, (char)c); break;
  }
  j->num = t;
}

/* A number written from j->num_out that a double cannot hold is valid JSON
 * that jansson refuses: kept, and marked. */
static void num_check(json_filter *j) {
  size_t n = j->out.len - j->num_out;
  if (j->num != N_EXP && j->num != N_E && j->num != N_ESIGN && n < 300) return; /* < 10^300 */
  if (sluicep_json_number_overflows(j->out.ptr + j->num_out, n))
    sluicep_json_unloadable(j, "number_overflow", j->tok_off);
}

/* The end of a plain number written from j->num_out: the digit it may
 * lack, its repairs, and the check that a double can hold it. */
static void num_end(json_filter *j, int eof) {
  int fix = 0;
  switch (j->num) {
  case N_MINUS: case N_DOT: case N_E: case N_ESIGN:
    put1(j, '0');
    fix = 1;
    break;
  case N_ZERO: put1(j, '0'); break;
  default: break;
  }
  if (j->num_flags & NF_PLUS) REPAIR(j, "leading_plus", j->tok_off);
  if (fix && eof) {
    REPAIR(j, "truncated_number", j->tok_off);
    j->truncated = 1;
  } else if (fix || (j->num_flags & NF_FIX)) {
    REPAIR(j, "invalid_number", j->tok_off);
  }
  num_check(j);
}

/* Is the held token a JSON number as it is written (no repair)? */
static int num_as_written(const json_filter *j) {
  const char *t = j->tok;
  if (j->num != N_ZERO && j->num != N_INT && j->num != N_FRAC && j->num != N_EXP) return 0;
  if (t[0] == '+' || t[0] == '.' || (t[0] == '-' && t[1] == '.')) return 0;
  for (size_t k = 1; k < j->tokn; k++)
    if (t[k - 1] == '.' && (t[k] == 'e' || t[k] == 'E')) return 0;
  return 1;
}

/* Writes the held token as the number it is (token_kind said TK_NUM). */
static void num_render(json_filter *j, int eof) {
  if (j->num == N_HEX) {
    size_t start = j->tok[0] == '-' || j->tok[0] == '+' ? 3 : 2;
    char dec[24];
    size_t dn = sluicep_json_hex_to_decimal(j->tok + start, j->tokn - start, dec);
    if (j->tok[0] == '+') REPAIR(j, "leading_plus", j->tok_off);
    REPAIR(j, "hex_number", j->tok_off);
    if (j->tok[0] == '-') put1(j, '-');
    put(j, dec, dn);
    return;
  }
  j->num_out = j->out.len;
  if (num_as_written(j)) { /* what num_emit would write, in one go */
    put(j, j->tok, j->tokn);
    num_check(j);
    return;
  }
  j->num = N_START;
  j->num_flags = 0;
  for (size_t k = 0; k < j->tokn; k++) num_emit(j, (unsigned char)j->tok[k]);
  num_end(j, eof);
}

/* ---------------- unquoted tokens ---------------- */

/* Words a value token may be: the word, its JSON, its repair; the last two
 * are ellipses (dropped where an element could be). */
#define JSON_WORDS(X)                                  \
  X("true", "true", "")                                \
  X("false", "false", "")                              \
  X("null", "null", "")                                \
  X("True", "true", "python_constant")                 \
  X("False", "false", "python_constant")               \
  X("None", "null", "python_constant")                 \
  X("undefined", "null", "undefined")                  \
  X("NaN", "null", "nonfinite_number")                 \
  X("Infinity", "null", "nonfinite_number")            \
  X("-Infinity", "null", "nonfinite_number")           \
  X("+Infinity", "null", "nonfinite_number")           \
  X("...", "", "ellipsis")                             \
  X("\xE2\x80\xA6", "", "ellipsis") /* U+2026; "": dropped */
#define WORD_LEN(w, json, kind) (unsigned char)(sizeof(w) - 1),
#define WORD_NAME(w, json, kind) w,
#define WORD_JSON(w, json, kind) json,
#define WORD_JSON_LEN(w, json, kind) (unsigned char)(sizeof(json) - 1),
#define WORD_KIND(w, json, kind) kind,
#define WORD_KIND_LEN(w, json, kind) (unsigned char)(sizeof(kind) - 1),
static const char *const word_names[] = {JSON_WORDS(WORD_NAME)};
static const unsigned char word_len[] = {JSON_WORDS(WORD_LEN)};
static const char *const word_json[] = {JSON_WORDS(WORD_JSON)};
static const unsigned char word_json_len[] = {JSON_WORDS(WORD_JSON_LEN)};
static const char *const word_kind[] = {JSON_WORDS(WORD_KIND)};
static const unsigned char word_kind_len[] = {JSON_WORDS(WORD_KIND_LEN)};
#define NWORDS (sizeof word_names / sizeof word_names[0])
#define W_TRUNCATABLE 6 /* true false null True False None complete from a prefix */

/* The wrappers MongoDB shells and JavaScript print around a value; with
 * "new " in front too. Only these names make a call inside a value (a
 * JSONP callback at the top level may have any name: json.c). */
static const char *const call_names[] = {
    "ObjectId",      "ObjectID",      "ISODate",       "Date",          "NumberLong",
    "NumberInt",     "NumberDecimal", "Timestamp",     "UUID",          "BinData",
    "DBRef",         "new ObjectId",  "new ObjectID",  "new ISODate",   "new Date",
    "new NumberLong", "new NumberInt", "new NumberDecimal", "new Timestamp", "new UUID",
    "new BinData",   "new DBRef",
};
#define NCALLS (sizeof call_names / sizeof call_names[0])

/* The longest name a token is matched against ("new NumberDecimal"): a
 * token is held at least this long before it may stream as a string. */
#define NAME_MAX_LEN 17

/* The index of the name in names[0..count) that is exactly p[0..n), or -1
 * (lens[i] is the length of names[i], when known). */
static int name_index(const char *const *names, const unsigned char *lens, size_t count,
                      const char *p, size_t n) {
  if (n > NAME_MAX_LEN) return -1;
  for (size_t i = 0; i < count; i++)
    if ((lens ? lens[i] : strlen(names[i])) == n && memcmp(names[i], p, n) == 0) return (int)i;
  return -1;
}

/* Can the held token still be more than a string? A name (a literal, a
 * call, an ellipsis) is decided where the token ends or meets '(', so any
 * token short enough to be one is held; a number-like one up to the hold. */
static int token_special(const json_filter *j) {
  if (j->tok_key) return j->tokn <= 3; /* "..." or U+2026 */
  return j->tokn <= NAME_MAX_LEN || j->num != N_BAD;
}

static void start_token(json_filter *j, int key, uint64_t off) {
  j->vs = V_WORD;
  j->tok_key = key;
  j->tok_mode = TOK_HELD;
  j->tok_off = off;
  j->tokn = 0;
  j->wspn = 0;
  j->tok_slash = 0;
  j->num = key ? N_BAD : N_START;
  j->num_flags = 0;
}

/* The held token can only be a string (or is too long to hold): from here
 * on it streams; a long number streams as a number. */
static void token_stream(json_filter *j) {
  if (!j->tok_key && j->tokn > JSON_TOKEN_HOLD && num_plain(j->num)) {
    if (!depth_ok(j, j->tok_off)) return;
    begin_item(j);
    j->num = N_START;
    j->num_out = j->out.len;
    for (size_t k = 0; k < j->tokn; k++) num_emit(j, (unsigned char)j->tok[k]);
    j->tok_mode = TOK_NUM;
    return;
  }
  if (!j->tok_key && !depth_ok(j, j->tok_off)) return;
  begin_item(j);
  if (j->tok_key) REPAIR(j, "unquoted_key", j->tok_off);
  else if (j->num == N_LEAD0) REPAIR(j, "leading_zero", j->tok_off);
  else REPAIR(j, "unquoted_string", j->tok_off);
  put1(j, '"');
  put_escaped(j, j->tok, j->tokn);
  j->tok_mode = TOK_STR;
}

/* Adds n bytes to the held token (room for them checked by the caller). */
static inline void token_hold(json_filter *j, const char *p, size_t n) {
  sluicep_json_copy(j->tok + j->tokn, p, n);
  if (!j->tok_key) { /* a key is never a number (num stays N_BAD) */
    enum json_num num = j->num;
    for (size_t k = 0; k < n; k++) num = num_next(num, (unsigned char)p[k]);
    j->num = num;
  }
  j->tokn += n;
}

/* Adds bytes (whole code points, or a run of ASCII) to the token; returns
 * how many it took (a streaming number stops at a byte that ends it). */
static size_t token_bytes(json_filter *j, const char *p, size_t n) {
  size_t i = 0;
  if (j->tok_mode == TOK_HELD) {
    /* Up to the hold (the byte past it decides a long number): whether the
     * token can still be more than a string only ever turns false, and
     * streaming later in the same bytes writes the same text, so it is
     * asked once for all of them. */
    size_t take = JSON_TOKEN_HOLD + 1 - j->tokn;
    if (take > n) take = n;
    token_hold(j, p, take);
    i = take;
    if (j->tokn > JSON_TOKEN_HOLD || !token_special(j)) token_stream(j);
    if (j->failed) return n;
  }
  if (j->tok_mode == TOK_STR) {
    if (i < n) put_escaped(j, p + i, n - i);
    return n;
  }
  while (i < n && j->tok_mode == TOK_NUM && num_next(j->num, (unsigned char)p[i]) != N_BAD)
    num_emit(j, (unsigned char)p[i++]);
  return i;
}

/* Adds bytes after the spaces held inside the token, which it keeps. */
static size_t token_add(json_filter *j, const char *p, size_t n) {
  if (j->wspn) {
    size_t w = j->wspn;
    j->wspn = 0;
    token_bytes(j, j->wsp, w);
  }
  return token_bytes(j, p, n);
}

/* What a held token is, decided where it ends (endcp is the code point
 * that ended it, 0 at the end of the input). */
enum tok_kind {
  TK_DROP,   /* an ellipsis where an element could be: [1, 2, ...] */
  TK_WORD,   /* a literal or constant in word_names (*wi) */
  TK_TRUNC,  /* a prefix of one at the end of the input (*wi) */
  TK_NUM,    /* a number (repaired if need be; hexadecimal made decimal) */
  TK_STRING, /* anything else, and every key */
};

static enum tok_kind token_kind(const json_filter *j, int eof, uint32_t endcp, int *wi) {
  const char *w = j->tok;
  size_t n = j->tokn;
  /* only an ellipsis ("..." or U+2026, three bytes) is a key's word */
  int k = is_digit((unsigned char)w[0]) || (j->tok_key && n != 3)
              ? -1
              : name_index(word_names, word_len, NWORDS, w, n);
  if (k >= 0 && j->tok_key && word_json_len[k]) k = -1;
  if (k >= 0 && !word_json_len[k]) {
    if (j->tok_key ? endcp != ':' : top(j) == '[') return TK_DROP;
    k = -1;
  }
  *wi = k;
  if (j->tok_key) return TK_STRING;
  if (k >= 0) return TK_WORD;
  if (eof)
    for (size_t i = 0; i < W_TRUNCATABLE; i++)
      if (n < word_len[i] && memcmp(word_names[i], w, n) == 0) {
        *wi = (int)i;
        return TK_TRUNC;
      }
  if (j->num == N_HEX) { /* 0x1F; longer than 13 digits it stays a string */
    size_t start = w[0] == '-' || w[0] == '+' ? 3 : 2;
    return n - start <= 13 ? TK_NUM : TK_STRING;
  }
  return num_plain(j->num) ? TK_NUM : TK_STRING;
}

/* Writes a held token; returns 0 when it is dropped (an ellipsis). */
static int render_token(json_filter *j, int eof, uint32_t endcp) {
  int wi;
  enum tok_kind k = token_kind(j, eof, endcp, &wi);
  uint64_t off = j->tok_off;
  if (k == TK_DROP) {
    REPAIR(j, "ellipsis", off);
    return 0;
  }
  if (j->tok_key) {
    begin_item(j);
    REPAIR(j, "unquoted_key", off);
  } else {
    if (!depth_ok(j, off)) return 1;
    begin_item(j);
    switch (k) {
    case TK_WORD:
      put(j, word_json[wi], word_json_len[wi]);
      if (word_kind_len[wi]) sluicep_json_repair(j, word_kind[wi], word_kind_len[wi], off);
      return 1;
    case TK_TRUNC:
      put(j, word_json[wi], word_json_len[wi]);
      REPAIR(j, "truncated_literal", off);
      j->truncated = 1;
      return 1;
    case TK_NUM: num_render(j, eof); return 1;
    default: break;
    }
    if (j->num == N_LEAD0) REPAIR(j, "leading_zero", off); /* 0789: digits that mean a code */
    else REPAIR(j, "unquoted_string", off);
  }
  put1(j, '"');
  put_escaped(j, j->tok, j->tokn);
  put1(j, '"');
  return 1;
}

static void end_token(json_filter *j, int eof, uint32_t endcp) {
  int dropped = 0;
  if (j->tok_slash) { /* a '/' that started no comment: a/ */
    j->tok_slash = 0;
    token_add(j, "/", 1);
  }
  if (j->tok_mode == TOK_STR) put1(j, '"');
  else if (j->tok_mode == TOK_NUM) num_end(j, eof);
  else dropped = !render_token(j, eof, endcp);
  j->wspn = 0;
  j->tokn = 0;
  if (j->failed) return;
  if (dropped) {
    j->vs = j->tok_key ? V_KEY : V_VALUE;
    j->after_ellipsis = 1;
  } else if (j->tok_key) {
    j->vs = V_COLON;
  } else {
    value_done(j);
  }
}

/* A fresh key token that is one run of word bytes directly followed by its
 * ':' (the usual unquoted key, {id: 1}): what token_bytes and end_token
 * would write for it (a key is a string whatever its bytes; word bytes need
 * no escape) and then colon_cp for the ':', in one step. When the output
 * has room for all of it, it is written with one test (no growth, so no
 * allocation that could fail between the writes and the event). */
static void key_word(json_filter *j, const char *p, size_t n) {
  sluicep_buf *o = &j->out;
  if (o->cap - o->len < n + 4) {
    begin_item(j);
    REPAIR_HOT(j, "unquoted_key", j->tok_off);
    put1(j, '"');
    put(j, p, n);
    put1(j, '"');
    put1(j, ':');
  } else {
    char *d = o->ptr + o->len;
    j->after_ellipsis = 0; /* begin_item */
    if (j->pending_comma) *d++ = ',';
    j->pending_comma = 0;
    REPAIR_HOT(j, "unquoted_key", j->tok_off);
    *d = '"';
    sluicep_json_copy(d + 1, p, n);
    d[n + 1] = '"';
    d[n + 2] = ':';
    o->len = (size_t)(d + n + 3 - o->ptr);
  }
  j->vs = V_VALUE;
}

/* The literal or constant of word_names (not an ellipsis) that p[0..n) is,
 * or -1: name_index's answer for a value token that is not a number, with
 * no call (the first byte tested before the rest). */
#define W_LITERALS (NWORDS - 2) /* the ellipses are last */
static int literal_index(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < W_LITERALS; i++) {
    if (word_len[i] != n || (unsigned char)word_names[i][0] != p[0]) continue;
    size_t k = 1;
    while (k < n && (unsigned char)word_names[i][k] == p[k]) k++;
    if (k == n) return (int)i;
  }
  return -1;
}

/* A fresh value token p[0..n) of word bytes, at most NAME_MAX_LEN, that a
 * byte ending every token ends in the chunk: when it is a number as
 * written (digits, 0, either with a fraction: 12, 0.25) or a literal of
 * word_names (True, null), what token_hold and end_token would write and
 * leave in the state, in one step; returns 0 (nothing done) for any other
 * token, which takes that path. */
static int value_word(json_filter *j, const unsigned char *p, size_t n) {
  enum json_num num = N_BAD;
  int wi = -1;
  if (is_digit(p[0])) {
    size_t k = 1;
    if (p[0] != '0')
      while (k < n && is_digit(p[k])) k++;
    num = p[0] == '0' ? N_ZERO : N_INT;
    if (k < n) { /* a fraction, or no plain number (01, 1e5, 2.): the held path */
      if (p[k] != '.' || k + 1 == n) return 0;
      for (k++; k < n; k++)
        if (!is_digit(p[k])) return 0;
      num = N_FRAC;
    }
  } else if ((wi = literal_index(p, n)) < 0) {
    return 0;
  }
  j->num = num;
  if (!depth_ok(j, j->tok_off)) return 1;
  begin_item(j);
  if (wi < 0) { /* num_render's text as written; num_check: short, no exponent */
    j->num_out = j->out.len;
    put(j, (const char *)p, n);
  } else {
    put(j, word_json[wi], word_json_len[wi]);
    if (word_kind_len[wi]) sluicep_json_repair_inline(j, word_kind[wi], word_kind_len[wi], j->tok_off);
  }
  if (!j->failed) value_done(j);
  return 1;
}

/* A top-level scalar held in prose (json.c): the whole trimmed input, fence
 * or JSONP argument, read by the token rules above as a nested token that
 * ends there (2. is 2.0, tru is true, NaN is null). A token those rules make
 * a string is prose, and a one-letter prefix of a literal too ("a", "n"):
 * returns 0. With write 0 it only says whether it is a value. */
int sluicep_json_top_scalar(json_filter *j, const char *w, size_t n, uint64_t off, int eof,
                            int write) {
  start_token(j, 0, off);
  memcpy(j->tok, w, n);
  j->tokn = n;
  for (size_t k = 0; k < n; k++) j->num = num_next(j->num, (unsigned char)w[k]);
  int wi;
  enum tok_kind k = token_kind(j, eof, 0, &wi);
  int value = !(k == TK_STRING || k == TK_DROP || (k == TK_TRUNC && n < 2));
  if (value && write) {
    end_token(j, eof, 0);
    return 1;
  }
  j->vs = V_VALUE;
  j->tokn = 0;
  return value;
}

static int token_ends(const json_filter *j, uint32_t c) {
  if (c < 0x80 ? (cls[c] & C_END) != 0 : c == 0x201C) return 1; /* , } ] { [ " newlines “ */
  if (c == '`' && j->in_fence) return 1;
  if (c == ')' && top(j) == '(') return 1;
  return j->tok_key && (c == ':' || c == '\'');
}

/* A number-like token ends at a space ([1 2] is two numbers); a word keeps
 * its inner spaces. */
static int ends_at_space(const json_filter *j) {
  return j->tok_mode != TOK_STR && !j->tok_key && j->num != N_START && j->num != N_BAD;
}

/* One of the wrapper names (spaces may come before its '(')? */
static int is_call(const json_filter *j) {
  return j->tok_mode == TOK_HELD && !j->tok_key &&
         name_index(call_names, NULL, NCALLS, j->tok, j->tokn) >= 0;
}

/* One code point of an unquoted token. Returns 0 when it ended the token. */
static int token_cp(json_filter *j, uint32_t cp, const char *raw, size_t len, uint64_t off) {
  if (token_ends(j, cp)) {
    end_token(j, 0, cp);
    return 0;
  }
  if (cp == ' ' || cp == '\t') {
    if (ends_at_space(j) || j->wspn == JSON_WSP_MAX) {
      end_token(j, 0, cp);
      return 0;
    }
    j->wsp[j->wspn++] = (char)cp; /* kept only if the token goes on */
    return 1;
  }
  /* a comment after a space ends the token ("https://x" stays whole) */
  if ((cp == '/' || cp == '#') && j->wspn) {
    end_token(j, 0, cp);
    return 0;
  }
  if (j->tok_slash) { /* a block comment ends a token even without a space before it */
    j->tok_slash = 0;
    if (cp == '*') {
      end_token(j, 0, '/');
      j->cm = CM_SLASH;
      j->cm_off = j->slash_off;
      return 0;
    }
    token_add(j, "/", 1);
  }
  if (cp == '/') {
    j->tok_slash = 1;
    j->slash_off = off;
    return 1;
  }
  if (cp == '(' && is_call(j)) { /* ObjectId("..."), NumberLong(2): the inner value */
    REPAIR(j, "function_call", j->tok_off);
    j->wspn = 0;
    sluicep_json_push_call(j);
    return 1;
  }
  if (j->tok_mode == TOK_NUM && (cp >= 0x80 || num_next(j->num, (unsigned char)cp) == N_BAD)) {
    end_token(j, 0, cp);
    return 0;
  }
  if (cp == 0 && j->tok_key) key_nul(j, off);
  token_add(j, raw, len);
  return 1;
}

/* ---------------- calls ---------------- */

/* The arguments of a call after its first are dropped up to its ')',
 * skipping nested brackets and quoted strings. */
static int skip_cp(json_filter *j, uint32_t cp, uint64_t off) {
  if (j->skq) {
    if (j->skesc) j->skesc = 0;
    else if (cp == '\\') j->skesc = 1;
    else if (cp == j->skq) j->skq = 0;
    return 1;
  }
  if (cp == '"' || cp == '\'') {
    j->skq = cp;
    return 1;
  }
  if (cp == '(' || cp == '[' || cp == '{') {
    j->skd++;
    return 1;
  }
  if (cp == ')' || cp == ']' || cp == '}') {
    if (j->skd) {
      j->skd--;
      return 1;
    }
    j->vs = V_AFTER;
    if (cp != ')') return 0; /* the call is not closed: its container is */
    close_top(j, off);
    return 1;
  }
  return 1;
}

/* ---------------- between tokens ---------------- */

/* A '{' or '[' where an object expects a key or a comma cannot go on in
 * the object; in an array, it is the array's next item: the object's
 * closer was missing ([{"i":1{"i":2}] is two objects). Its comma, if any,
 * is the array's. Returns 1 when it closed the object (cp is read again). */
static int object_in_array_ends(json_filter *j, uint32_t cp, uint64_t off) {
  if ((cp != '{' && cp != '[') || top(j) != '{' || j->stack.len < 2 ||
      j->stack.ptr[j->stack.len - 2] != '[')
    return 0;
  int comma = j->pending_comma;
  j->pending_comma = 0;
  REPAIR(j, "missing_closer", off);
  close_top(j, off);
  if (comma) { /* [{"i":1,{"i":2}] */
    j->pending_comma = 1;
    j->vs = V_VALUE;
  }
  return 1;
}

/* Where a value (key = 0) or a key (key = 1) is expected. */
static inline int item_start(json_filter *j, uint32_t cp, uint64_t off, int key) {
  char t = top(j);
  if (cp == '}' || cp == ']') closer(j, cp, off);
  else if (!key && (cp == '{' || cp == '[')) push(j, (char)cp, off);
  else if (!key && cp == ')' && t == '(') close_top(j, off);
  else if (!key && cp == '"' && j->stack.len == 1 && t == '(' && j->top_call)
    sluicep_json_top_quote(j, off); /* callback("..."): as a top-level string */
  else if (is_open_quote(cp)) open_string(j, cp, key, off);
  else if (cp == ',') {
    if (j->after_ellipsis) j->after_ellipsis = 0; /* [..., 7]: the ellipsis's comma */
    else if (!key && t == '{') { /* {"a": ,: a missing value */
      put_null(j, "null", 4, off);
      j->vs = V_AFTER;
      return 0;
    } else {
      REPAIR(j, "extra_comma", off);
    }
  } else if (key && object_in_array_ends(j, cp, off)) {
    return 0;
  } else if (cp == ':' || cp == '{' || cp == '[') {
    REPAIR(j, "unexpected_char", off);
  } else {
    start_token(j, key, off);
    return 0;
  }
  return 1;
}

static inline SLUICEP_ALWAYS_INLINE int colon_cp(json_filter *j, uint32_t cp, uint64_t off) {
  if (cp == ':') {
    put1(j, ':');
    j->vs = V_VALUE;
    return 1;
  }
  if (cp == '}' || cp == ']') {
    closer(j, cp, off);
    return 1;
  }
  if (cp == ',') {
    put_null(j, ":null", 5, off);
    j->vs = V_AFTER;
    return 0;
  }
  REPAIR(j, "missing_colon", off);
  put1(j, ':');
  j->vs = V_VALUE;
  return 0;
}

static inline SLUICEP_ALWAYS_INLINE int after_cp(json_filter *j, uint32_t cp, uint64_t off) {
  char t = top(j);
  if (cp == ',' && t != '(') { /* the common case first */
    j->pending_comma = 1;
    j->comma_off = off;
    j->vs = t == '{' ? V_KEY : V_VALUE;
    return 1;
  }
  if (cp == '}' || cp == ']') {
    closer(j, cp, off);
    return 1;
  }
  if (t == '(') {
    if (cp == ')') {
      close_top(j, off);
      return 1;
    }
    /* Timestamp(1412180887, 1): the first argument is the value */
    REPAIR(j, "extra_argument", off);
    j->vs = V_SKIP;
    j->skd = 0;
    j->skq = 0;
    j->skesc = 0;
    return cp == ',';
  }
  if (cp == ':') {
    REPAIR(j, "unexpected_char", off);
    return 1;
  }
  if (object_in_array_ends(j, cp, off)) return 0;
  REPAIR_HOT(j, "missing_comma", off);
  j->pending_comma = 1;
  j->comma_off = off;
  j->vs = t == '{' ? V_KEY : V_VALUE;
  return 0;
}

/* A code point that starts or separates tokens (no comment, fence or
 * backslash pending, not a space): the fast path calls this directly. */
static inline SLUICEP_ALWAYS_INLINE int struct_cp(json_filter *j, uint32_t cp, uint64_t off) {
  /* the common case first: a letter or digit starts an unquoted token (what
   * item_start would do with it last) */
  if ((j->vs == V_VALUE || j->vs == V_KEY) && cp < 0x80 && (cls[cp] & C_WORD)) {
    start_token(j, j->vs == V_KEY, off);
    return 0;
  }
  switch (j->vs) {
  case V_VALUE: return item_start(j, cp, off, 0);
  case V_KEY: return item_start(j, cp, off, 1);
  case V_COLON: return colon_cp(j, cp, off);
  default: return after_cp(j, cp, off);
  }
}

int sluicep_json_comment_cp(json_filter *j, uint32_t cp, uint64_t off) {
  switch (j->cm) {
  case CM_NONE:
    if (cp == '/') {
      j->cm = CM_SLASH;
      j->cm_off = off;
      return 1;
    }
    if (cp != '#') return 0;
    REPAIR_HOT(j, "comment", off);
    j->cm = CM_LINE;
    return 1;
  case CM_SLASH:
    j->cm = CM_NONE;
    if (cp != '/' && cp != '*') return -1;
    REPAIR_HOT(j, "comment", j->cm_off);
    j->cm = cp == '/' ? CM_LINE : CM_BLOCK;
    return 1;
  case CM_LINE:
    if (cp == '\n') j->cm = CM_NONE;
    return 1;
  case CM_BLOCK:
    if (cp == '*') j->cm = CM_BLOCK_STAR;
    return 1;
  default:
    if (cp == '/') j->cm = CM_NONE;
    else if (cp != '*') j->cm = CM_BLOCK;
    return 1;
  }
}

/* struct_cp for the slow path (between_cp, every byte of a stringified
 * document): a call, so that between_cp stays small. */
static SLUICEP_NOINLINE int struct_cp_slow(json_filter *j, uint32_t cp, uint64_t off) {
  return struct_cp(j, cp, off);
}

static int between_cp(json_filter *j, uint32_t cp, uint64_t off) {
  /* a closing fence ends the value; other backticks are dropped */
  if (j->cm == CM_NONE) {
    if (cp == '`') {
      if (sluicep_json_tick(j, off) == 3 && j->in_fence) {
        sluicep_json_finalize_value(j, j->tick_off);
        j->ticks = 3; /* P_TRAIL counts the rest of the run */
      }
      return 1;
    }
    if (j->ticks) {
      REPAIR(j, "unexpected_char", j->tick_off);
      j->ticks = 0;
    }
  }
  if (j->cm != CM_NONE) {
    int c = sluicep_json_comment_cp(j, cp, off);
    if (c > 0) return 1;
    if (j->vs == V_VALUE && !sluicep_json_is_space(cp)) { /* a path or a regex: /a/b */
      start_token(j, 0, j->cm_off);
      token_add(j, "/", 1);
      return 0;
    }
    REPAIR(j, "unexpected_char", j->cm_off);
  }
  if (j->bslash) {
    j->bslash = 0;
    if (cp == '"') { /* {\"a\": 1}: the document was stringified */
      REPAIR(j, "stringified_json", j->bslash_off);
      j->unesc = UNESC_BARE;
      return struct_cp_slow(j, cp, j->bslash_off);
    }
    REPAIR(j, "unexpected_char", j->bslash_off);
  }
  if (sluicep_json_is_space(cp) || sluicep_json_comment_cp(j, cp, off)) return 1;
  if (cp == '\\') {
    j->bslash = 1;
    j->bslash_off = off;
    return 1;
  }
  return struct_cp_slow(j, cp, off);
}

/* ---------------- a top-level '"' ---------------- */

enum { TQ_START, TQ_OBJ, TQ_ARR, TQ_OBJ_BS, TQ_ARR_BS };

void sluicep_json_top_quote(json_filter *j, uint64_t off) {
  j->vs = V_TOPQ;
  j->tq_state = TQ_START;
  j->kcp[0] = '"';
  j->koff[0] = off;
  j->kn = 1;
}

/* The held characters after a top-level '"' are decided: a stringified
 * document (its characters go through the unescaping layer) or a string. */
static void topq_decide(json_filter *j, int stringified) {
  held h; /* the quote, then what followed it */
  detach(j, &h);
  j->vs = V_VALUE;
  if (!stringified) {
    open_string(j, '"', 0, h.off[0]);
    j->tq_out = j->out.len;
    j->tq_guard = 1;
    refeed(j, h.cp + 1, h.off + 1, h.n - 1);
    return;
  }
  if (j->unesc == UNESC_OFF) {
    REPAIR(j, "stringified_json", h.off[0]);
    j->unesc = UNESC_QUOTED;
    j->unesc_base = j->stack.len;
  } else {
    j->quote_ok = 1; /* \"{\"a\": 1}\": the closing \" follows the document */
  }
  for (size_t k = 1; k < h.n && !j->failed; k++) {
    unsigned char b[4];
    size_t l = sluicep_u8_encode(h.cp[k], b);
    sluicep_json_feed_cp(j, h.cp[k], (const char *)b, l, h.off[k]);
  }
}

/* "{\"  "{}  "[{  "[[  "[\"  "[] (escaped newlines, tabs and spaces may
 * come between) start a stringified document; anything else a top-level
 * string ("[1] is a list" stays a string). */
static int topq_cp(json_filter *j, uint32_t cp, const char *raw, size_t len, uint64_t off) {
  int yes = 0, hold = 0;
  switch (j->tq_state) {
  case TQ_START:
    if (cp == '{' || cp == '[') {
      j->tq_state = cp == '{' ? TQ_OBJ : TQ_ARR;
      hold = 1;
    }
    break;
  case TQ_OBJ:
  case TQ_ARR:
    if (is_ws(cp)) {
      hold = 1;
    } else if (cp == '\\') {
      j->tq_state = j->tq_state == TQ_OBJ ? TQ_OBJ_BS : TQ_ARR_BS;
      hold = 1;
    } else {
      /* after \"{ the layer has already undone the escape of the quote */
      yes = (cp == '"' && j->unesc == UNESC_BARE) ||
            (j->tq_state == TQ_OBJ ? cp == '}' : cp == '{' || cp == '[' || cp == ']');
    }
    break;
  default:
    if (cp == 'n' || cp == 'r' || cp == 't') { /* "{\n  \"a\"...: an escaped space */
      j->tq_state = j->tq_state == TQ_OBJ_BS ? TQ_OBJ : TQ_ARR;
      hold = 1;
    } else {
      yes = cp == '"';
    }
    break;
  }
  if (hold && j->kn < JSON_TQ_MAX) {
    j->kcp[j->kn] = cp;
    j->koff[j->kn++] = off;
    return 1;
  }
  enum json_unesc was = j->unesc;
  topq_decide(j, yes && !hold);
  if (j->unesc != was && !j->failed) { /* cp, as written, goes through the new layer */
    sluicep_json_feed_cp(j, cp, raw, len, off);
    return 1;
  }
  return 0;
}

/* ---------------- the end of the value ---------------- */

void sluicep_json_finish_token(json_filter *j, uint64_t end) {
  while (j->phase == P_VALUE && !j->failed) {
    if (j->vs == V_TOPQ) {
      topq_decide(j, 0);
    } else if (j->vs == V_STRING) {
      if (j->kn && j->kc_state == KC_CLOSE) { /* {"a": "b}  ["hello, world] */
        kc_commit(j);
        continue;
      }
      if (j->kn) {
        kc_fail(j);
        continue;
      }
      if (j->qword) { /* "x"\n b: the word is the next key or item */
        quote_closed_before(j);
        continue;
      }
      if (!j->qn) {
        if (j->esc == 1) REPAIR(j, "dangling_escape", j->esc_off);
        if (j->esc == 2) REPAIR(j, "partial_unicode_escape", j->esc_off);
        j->esc = 0;
        if (j->hi) lone_hi(j);
        REPAIR(j, "unclosed_string", end);
        j->truncated = 1;
      }
      close_string(j);
    } else if (j->vs == V_WORD) {
      end_token(j, 1, 0);
    } else if (j->vs == V_MISCLOSE) {
      misclose_cp(j, 0); /* the end: the inner closers were missing */
    } else {
      break;
    }
  }
  if (j->phase == P_VALUE) {
    if (j->bslash) REPAIR(j, "unexpected_char", j->bslash_off);
    j->bslash = 0;
    if (j->cm == CM_SLASH) REPAIR(j, "unexpected_char", j->cm_off);
    j->cm = CM_NONE;
  }
}

void sluicep_json_finalize_value(json_filter *j, uint64_t end) {
  sluicep_json_finish_token(j, end);
  if (j->phase != P_VALUE || j->failed) return;
  if (j->stack.len) {
    j->truncated = 1;
    REPAIR(j, "unclosed_container", end);
    while (j->stack.len && !j->failed) close_top(j, end);
  } else {
    sluicep_json_value_ended(j);
  }
}

/* ---------------- dispatch ---------------- */

/* One code point, after the stringified layer. */
static void step(json_filter *j, uint32_t cp, const char *raw, size_t len, uint64_t off) {
  for (;;) {
    if (j->failed) return;
    int done;
    if (j->phase != P_VALUE) {
      done = sluicep_json_outside_cp(j, cp, off);
    } else {
      switch (j->vs) {
      case V_STRING: done = string_cp(j, cp, raw, len, off); break;
      case V_WORD: done = token_cp(j, cp, raw, len, off); break;
      case V_TOPQ: done = topq_cp(j, cp, raw, len, off); break;
      case V_SKIP: done = skip_cp(j, cp, off); break;
      case V_MISCLOSE: done = misclose_cp(j, cp); break;
      default: done = between_cp(j, cp, off); break;
      }
    }
    if (done) return;
  }
}

/* ---------------- the stringified layer ---------------- */

static void layer_out(json_filter *j, uint32_t cp, uint64_t off) {
  unsigned char b[4];
  size_t l = sluicep_u8_encode(cp, b);
  step(j, cp, (const char *)b, l, off);
}

/* The layer's held high surrogate was lone: U+FFFD in its place (lone_hi). */
static void layer_drop_hi(json_filter *j) {
  if (!j->lhi) return;
  REPAIR(j, "lone_surrogate", j->lhi_off);
  layer_out(j, 0xFFFD, j->lhi_off);
  j->lhi = 0;
}

static void layer_unicode(json_filter *j) {
  uint32_t v = j->lhex;
  if (j->lhi && !pairs_with(v)) layer_drop_hi(j);
  uint32_t hi = j->lhi;
  j->lhi = 0;
  switch (surrogates(j, hi != 0, v, j->lesc_off)) {
  case U_PAIR: layer_out(j, 0x10000 + ((hi - 0xD800) << 10) + (v - 0xDC00), j->lhi_off); break;
  case U_HOLD:
    j->lhi = v;
    j->lhi_off = j->lesc_off;
    break;
  case U_CHAR: layer_out(j, v, j->lesc_off); break;
  default: layer_out(j, 0xFFFD, j->lesc_off); break;
  }
}

/* One input code point: when a stringified document is being read, its
 * escapes are undone once (\" is a quote, \\ a backslash, \n a newline)
 * and what results is fed on; a plain '"' ends a quoted document. */
void sluicep_json_feed_cp(json_filter *j, uint32_t cp, const char *raw, size_t len,
                          uint64_t off) {
  if (j->unesc == UNESC_OFF) {
    step(j, cp, raw, len, off);
    return;
  }
  if (j->lesc == 1) {
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    j->lesc = 0;
    if (cp == 'u') {
      j->lesc = 2;
      j->lhex = 0;
      return;
    }
    layer_drop_hi(j);
    const char *e = cp < 0x80 && cp ? strchr(from, (int)cp) : NULL;
    if (e) {
      layer_out(j, (unsigned char)to[e - from], j->lesc_off);
      return;
    }
    REPAIR(j, "invalid_escape", j->lesc_off); /* the backslash is dropped */
  } else if (j->lesc >= 2) {
    if (is_hex(cp)) {
      j->lhex = j->lhex * 16 + hex_val(cp);
      if (++j->lesc == 6) {
        j->lesc = 0;
        layer_unicode(j);
      }
      return;
    }
    REPAIR(j, "invalid_unicode_escape", j->lesc_off);
    j->lesc = 0;
  }
  if (cp == '\\') {
    j->lesc = 1;
    j->lesc_off = off;
    return;
  }
  layer_drop_hi(j);
  if (cp == '"' && j->unesc == UNESC_QUOTED) { /* the end of the stringified document */
    j->unesc = UNESC_OFF;
    if (j->phase != P_VALUE) return;
    /* like a closing fence, for the frames opened inside it (a JSONP call
     * around it stays open for its ')') */
    sluicep_json_finish_token(j, off);
    if (j->stack.len > j->unesc_base && !j->failed) {
      j->truncated = 1;
      REPAIR(j, "unclosed_container", off);
      while (j->stack.len > j->unesc_base && !j->failed) close_top(j, off);
    }
    return;
  }
  step(j, cp, raw, len, off);
}

/* ---------------- UTF-8 and the byte loop ---------------- */

/* An invalid sequence becomes U+FFFD, one per maximal invalid subpart. */
static void bad_bytes(json_filter *j, uint64_t off) {
  if (j->phase == P_VALUE) REPAIR(j, "invalid_utf8", off);
  sluicep_json_feed_cp(j, 0xFFFD, "\xEF\xBF\xBD", 3, off);
}

/* A byte of a sequence the chunk cut, or an invalid byte, through the
 * core's decoder. */
static void u8_byte(json_filter *j, uint8_t b, uint64_t off) {
  uint32_t cps[4];
  int had = j->u8.npend;
  uint64_t start = j->u8off;
  int r = sluicep_u8_step(&j->u8, b, cps), k = 0;
  if (j->u8.npend == 1) j->u8off = off; /* b leads a new sequence */
  if (r > 0 && had > 0) {
    if (cps[0] & 0x80000000u) { /* the pending bytes were a broken sequence */
      bad_bytes(j, start);
      k = had;
    } else { /* completed */
      unsigned char e[4];
      size_t l = sluicep_u8_encode(cps[0], e);
      sluicep_json_feed_cp(j, cps[0], (const char *)e, l, start);
      return;
    }
  }
  for (; k < r && !j->failed; k++) {
    if (cps[k] & 0x80000000u) {
      bad_bytes(j, off);
    } else {
      char c = (char)cps[k]; /* an ASCII byte after a broken sequence */
      sluicep_json_feed_cp(j, cps[k], &c, 1, off);
    }
  }
}

void sluicep_json_end_input(json_filter *j) {
  if (j->u8.npend) {
    sluicep_u8_flush(&j->u8, NULL);
    bad_bytes(j, j->u8off);
  }
  if (j->lesc == 1) REPAIR(j, "dangling_escape", j->lesc_off);
  if (j->lesc >= 2) REPAIR(j, "partial_unicode_escape", j->lesc_off);
  j->lesc = 0;
  layer_drop_hi(j);
}

/* The first index from k on whose byte has a class bit of mask (want 0) or
 * has none (want = mask), or n: four bytes per test of the bound while that
 * many are left. */
static inline size_t scan_to(const unsigned char *p, size_t k, size_t n, unsigned mask,
                             unsigned want) {
  for (; n - k >= 4; k += 4) {
    if ((cls[p[k]] & mask) != want) return k;
    if ((cls[p[k + 1]] & mask) != want) return k + 1;
    if ((cls[p[k + 2]] & mask) != want) return k + 2;
    if ((cls[p[k + 3]] & mask) != want) return k + 3;
  }
  while (k < n && (cls[p[k]] & mask) == want) k++;
  return k;
}

/* The run of plain string content at p[0..n): bytes the string's quote and
 * escapes leave alone, and complete well-formed UTF-8 sequences (except in
 * curly-quoted strings, whose closing quote is one). */
static size_t plain_run(const json_filter *j, const unsigned char *p, size_t n) {
  /* in a container's value string also , { } [ ] (kc_cp, string_cp) */
  unsigned stop = (j->q == Q_DQ ? C_DQ : C_SQ) | C_HIGH | (kc_possible(j) ? C_END : 0);
  size_t k = 0;
  for (;;) {
    k = scan_to(p, k, n, stop, 0);
    if (k == n || p[k] < 0x80 || j->q >= Q_CURLY_D) return k;
    size_t l = sluicep_u8_seq_len(p + k, n - k);
    if (l == 0) return k;
    k += l;
  }
}

/* A candidate closing quote at u[i] (the string's own '"' or '\'', no
 * escape, surrogate or decision held) whose reading the chunk decides: the
 * spaces after it (at most JSON_QP_MAX, no tab or line break) and the
 * ASCII byte after them, not a space or '+'. What holding the quote and the
 * spaces and then quote_cp would do, in one step: the quote closes the
 * string (the spaces were between tokens: dropped), or it was content
 * (quote_content: the quote escaped, the spaces kept). Returns the index of
 * the deciding byte, which is read next, or 0 when the chunk does not
 * decide. */
static inline size_t quote_fast(json_filter *j, const unsigned char *u, size_t n, size_t i,
                                uint64_t off) {
  size_t s = i + 1;
  while (s < n && u[s] == ' ' && s - i <= JSON_QP_MAX) s++;
  if (s == n || s - i > JSON_QP_MAX || u[s] >= 0x80 || is_ws(u[s]) || u[s] == '+') return 0;
  if (quote_ends(j, u[s], s > i + 1)) {
    close_string(j);
    return s;
  }
  if (j->qnl) return 0; /* a line break before ("a" +\n "b"): quote_cp's word rule */
  REPAIR_HOT(j, "unescaped_quote", off + i);
  if (u[i] == '"') PUTS(j, "\\\"");
  else put1(j, '\'');
  for (size_t k = i + 1; k < s; k++) put1(j, ' ');
  return s;
}

/* The fast path: the bytes of the chunk from p while the value lasts and
 * they are ASCII, dispatched on the state as step() does, but without the
 * UTF-8 decoder and the phase checks (and only while the stringified layer
 * is off). Runs of plain bytes (string content, letters of a token,
 * whitespace between tokens) are taken in one go; every other byte goes to
 * its state's handler, the same as in step(). Returns how many bytes were
 * taken; the byte it stops at goes through step().
 *
 * Where a step is known to leave the value going on (phase, layer, no
 * failure) in a state between tokens or in a string, the next byte is read
 * at that state's label directly, without the loop's tests and dispatch:
 * the commonest steps (a ',' after a value, a ':' after a key, an unquoted
 * key with its ':', a short value token, a string's end) then cost no loop
 * turn. Between tokens, no comment, backtick run or backslash is pending
 * after any of them (those are only ever pending between tokens, and end
 * with the next byte that is none of them), so TOKENS skips that test. */
static size_t run(json_filter *j, const char *p, size_t n, uint64_t off) {
  const unsigned char *u = (const unsigned char *)p;
  size_t i = 0;
  while (i < n && j->phase == P_VALUE && j->unesc == UNESC_OFF && !j->failed) {
    int done;
    switch (j->vs) {
    case V_STRING:
    string:
      if (j->tq_guard) return i; /* the first characters of a top-level string */
      if (!j->qn && !j->kn && !j->esc && !j->hi) {
        size_t k = plain_run(j, u + i, n - i);
        put(j, p + i, k);
        i += k;
        if (i == n || u[i] >= 0x80) return i;
        /* a candidate closing quote decided in the chunk (quote_fast) */
        if ((u[i] == '"' ? j->q == Q_DQ : u[i] == '\'' && j->q == Q_SQ)) {
          size_t k2 = quote_fast(j, u, n, i, off);
          if (k2) {
            i = k2; /* k2 < n */
            if (j->vs <= V_AFTER && j->phase == P_VALUE && !j->failed) goto tokens;
            continue;
          }
        }
      }
      if (u[i] >= 0x80) return i;
      done = string_cp(j, u[i], p + i, 1, off + i);
      break;
    case V_WORD:
    word:
      if (u[i] >= 0x80) return i;
      if ((cls[u[i]] & C_WORD) && !j->tok_slash && j->tok_mode != TOK_NUM) {
      fresh:; /* a token started at a word byte: nothing held, nothing to test */
        size_t k = scan_to(u, i + 1, n, C_WORD, C_WORD);
        /* a fresh key (nothing held yet) whose ':' follows the run: the
         * key and its ':' */
        if (k < n && u[k] == ':' && j->tok_key && !j->tokn && !j->wspn) {
          key_word(j, p + i, k - i);
          i = k + 1;
          if (i < n && !j->failed) goto tokens;
          continue;
        }
        /* a fresh value token short enough to be a name, ended in the chunk
         * by a byte that ends every token: held whole and ended, as
         * token_add and the test below would */
        if (k < n && (cls[u[k]] & C_END) && !j->tok_key && !j->tokn && !j->wspn &&
            k - i <= NAME_MAX_LEN) {
          if (!value_word(j, u + i, k - i)) {
            token_hold(j, p + i, k - i);
            end_token(j, 0, u[k]);
          }
          i = k;
          if (j->vs <= V_AFTER && j->phase == P_VALUE && !j->failed) goto tokens;
          continue;
        }
        i += token_add(j, p + i, k - i);
        /* most often the byte after the run ends the token */
        if (i == n || j->vs != V_WORD || u[i] >= 0x80) continue;
      }
      /* what token_cp does first: a byte that ends any token (or a key) */
      if ((cls[u[i]] & C_END) || (u[i] == ':' && j->tok_key)) {
        end_token(j, 0, u[i]);
        done = 0;
        break;
      }
      done = token_cp(j, u[i], p + i, 1, off + i);
      break;
    case V_VALUE:
    case V_KEY:
    case V_COLON:
    case V_AFTER:
      /* no comment, backtick run or backslash pending (one test for the
       * three, which are rare) */
      if (!(j->cm | j->ticks | j->bslash)) {
      tokens:
        if (cls[u[i]] & C_WS) {
          i++; /* often one space: the first one is known */
          while (i < n && (cls[u[i]] & C_WS)) i++;
          /* nothing the loop checks changed: the byte after the spaces is
           * handled here when it needs no slow path (non-ASCII is C_SLOW) */
          if (i == n || (cls[u[i]] & C_SLOW)) continue;
        }
        /* a line comment whose '/' '/' are in the chunk: the repair, then
         * its body skipped to the '\n' that ends it, as between_cp and
         * comment_cp would take them (cm_off as it would be left) */
        if (u[i] == '/' && i + 1 < n && u[i + 1] == '/') {
          REPAIR_HOT(j, "comment", off + i);
          j->cm_off = off + i;
          const void *e = memchr(u + i + 2, '\n', n - i - 2);
          if (!e) {
            j->cm = CM_LINE;
            i = n;
            continue;
          }
          i = (size_t)((const unsigned char *)e - u) + 1;
          if (i < n && !j->failed) goto tokens;
          continue;
        }
        if (!(cls[u[i]] & C_SLOW)) {
          /* the commonest two as after_cp and colon_cp take them */
          if (u[i] == ',' && j->vs == V_AFTER) {
            char t = top(j);
            if (t != '(') {
              j->pending_comma = 1;
              j->comma_off = off + i;
              j->vs = t == '{' ? V_KEY : V_VALUE;
              if (++i < n) goto tokens;
              continue;
            }
          }
          /* a word byte where a value or key starts: struct_cp's first case */
          if ((cls[u[i]] & C_WORD) && j->vs <= V_KEY) {
            start_token(j, j->vs == V_KEY, off + i);
            goto fresh;
          }
          /* a quote where a value or key starts: what item_start does with
           * it (but a top-level call's string: "cb(\"...\")") */
          if ((u[i] == '"' || u[i] == '\'') && j->vs <= V_KEY &&
              !(u[i] == '"' && j->vs == V_VALUE && j->top_call && j->stack.len == 1 &&
                top(j) == '(')) {
            open_string(j, u[i], j->vs == V_KEY, off + i);
            if (++i < n && !j->failed) goto string;
            continue;
          }
          if (u[i] == ':' && j->vs == V_COLON) {
            put1(j, ':');
            j->vs = V_VALUE;
            if (++i < n && !j->failed) goto tokens;
            continue;
          }
          done = struct_cp(j, u[i], off + i);
          if (done) {
            /* struct_cp never turns the stringified layer on */
            if (++i < n && j->phase == P_VALUE && !j->failed) {
              if (j->vs == V_STRING) goto string;
              if (j->vs <= V_AFTER) goto tokens;
            }
            continue;
          }
          if (j->vs == V_WORD) goto word; /* a token starts with this byte */
          /* read again in the new state (a missing comma: the next item) */
          if (j->vs <= V_AFTER && j->phase == P_VALUE && !j->failed) goto tokens;
          break;
        }
      } else if (j->cm == CM_LINE || j->cm == CM_BLOCK) { /* a comment's body, to its end */
        const void *e = memchr(u + i, j->cm == CM_LINE ? '\n' : '*', n - i);
        size_t k = e ? (size_t)((const unsigned char *)e - u) : n;
        if (k > i) {
          i = k;
          continue;
        }
      }
      if (u[i] >= 0x80) return i;
      done = between_cp(j, u[i], off + i);
      break;
    default: return i;
    }
    if (done) i++;
  }
  return i;
}

void sluicep_json_process(json_filter *j, const char *p, size_t n) {
  size_t i = 0;
  while (i < n && !j->failed) {
    uint8_t b = (uint8_t)p[i];
    uint64_t off = j->pos + i;
    if (j->u8.npend) {
      u8_byte(j, b, off);
      i++;
      continue;
    }
    if (j->phase == P_VALUE && j->unesc == UNESC_OFF) {
      size_t k = run(j, p + i, n - i, off);
      if (k) {
        i += k;
        continue;
      }
      if (j->failed) break;
    } else if (j->phase == P_IGNORE) {
      break;
    }
    if (b < 0x80) {
      sluicep_json_feed_cp(j, b, p + i, 1, off);
      i++;
      continue;
    }
    size_t l = sluicep_u8_seq_len((const unsigned char *)p + i, n - i);
    if (l) {
      sluicep_json_feed_cp(j, sluicep_u8_decode((const unsigned char *)p + i, l), p + i, l, off);
      i += l;
      continue;
    }
    u8_byte(j, b, off);
    i++;
  }
  j->pos += n;
}
