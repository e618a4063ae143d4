/*
 * json_private.h: what the three files of the JSON sanitizer share.
 *
 *   json.c        the filter's life cycle, the input outside the value
 *                 (prose, fences, a JSONP call, trailing text, NDJSON), the
 *                 end of the input and the snapshots;
 *   json_value.c  the byte loop and everything inside the value: containers,
 *                 strings, unquoted tokens, wrapper calls, and the layer that
 *                 unescapes a stringified document;
 *   json_number.c pure helpers on number text (the double overflow test,
 *                 hexadecimal to decimal).
 *
 * Every undecided thing is held in fixed-size arrays of this struct (a
 * candidate closing quote, a candidate next key, an unquoted token), never
 * in growable buffers: a snapshot can then run the end-of-input code on a
 * copy of the state and throw the copy away (json.c, snapshot()).
 */
#ifndef SLUICE_JSON_PRIVATE_H
#define SLUICE_JSON_PRIVATE_H

#include "sluice_private.h"

#include <string.h>

#define JSON_DEFAULT_MAX_DEPTH 2048
#define JSON_LOADER_MAX_DEPTH 2048 /* jansson's own limit: deeper text is valid
                                      JSON it cannot load */
#define JSON_LIT_MAX 64    /* a top-level scalar held in prose */
#define JSON_TOKEN_HOLD 64 /* bytes of an unquoted token held while it may be a
                              number, a literal, a call or an ellipsis */
#define JSON_WSP_MAX 64    /* spaces held inside an unquoted token */
#define JSON_QP_MAX 32     /* spaces held after a candidate closing quote */
#define JSON_QW_MAX 32     /* and a word on the next line (a key, an item) */
#define JSON_KC_MAX 48     /* code points held after a comma inside a string */
#define JSON_TQ_MAX 16     /* code points held after a top-level '"' */

enum json_phase {
  P_START,  /* nothing but whitespace so far (or inside a fresh fence or call) */
  P_PROSE,  /* text before the value */
  P_FINFO,  /* the info string of a fence opener (```json) */
  P_VALUE,  /* inside the value */
  P_TRAIL,  /* after the value: whitespace, a closing fence, NDJSON values */
  P_IGNORE, /* after trailing text: everything is ignored */
};

/* States inside the value. The first four are "between tokens". */
enum json_vstate {
  V_VALUE,  /* a value is expected (after '[' ',' ':' '(' or at the top) */
  V_KEY,    /* a key is expected (after '{' or ',' in an object) */
  V_COLON,  /* after a key */
  V_AFTER,  /* after a value inside a container */
  V_STRING, /* inside a string */
  V_WORD,   /* inside an unquoted token (number, literal, word, key) */
  V_TOPQ,   /* after a top-level '"': a string, or a stringified document? */
  V_SKIP,   /* the arguments of a call after its first one, dropped */
  V_MISCLOSE, /* after a closer that does not match the innermost container */
};

enum json_quote { Q_DQ, Q_SQ, Q_CURLY_D, Q_CURLY_S };

enum json_comment { CM_NONE, CM_SLASH, CM_LINE, CM_BLOCK, CM_BLOCK_STAR };

/* The number grammar, one state per prefix kind (json_value.c, num_next). */
enum json_num {
  N_START, N_MINUS, N_PLUS, N_ZERO, N_INT, N_LDOT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP,
  N_LEAD0, /* 0 followed by a digit: a leading zero, kept as a string */
  N_HEX0,  /* 0x */
  N_HEX,   /* 0x1F */
  N_BAD,   /* not a number */
};

enum json_tokmode { TOK_HELD, TOK_STR, TOK_NUM };

/* The stringified-document layer: off, opened by a top-level "{\" (the
 * closing '"' ends the document), or by \" between tokens (bare). */
enum json_unesc { UNESC_OFF, UNESC_QUOTED, UNESC_BARE };

typedef struct json_filter {
  sluice_filter base;
  int incremental, ndjson;
  size_t max_depth;
  size_t max_bytes; /* cap on the input, so on what is held; 0 = none */
  uint64_t pos;     /* input bytes consumed */
  int quiet;        /* a snapshot's trial run: no events */
  /* the repair event, its constant fields set once (json.c): a repair
   * fills in the kind and the offset only */
  sluice_event rev;
  int failed;

  sluicep_buf out;   /* the repaired text, append only */
  size_t emitted;    /* bytes of out already sent on TEXT */
  sluicep_buf stack; /* '{', '[' or '(' (a call) per open frame */
  size_t nobj, narr; /* open containers of each kind (calls are none) */
  int wrapped;       /* ndjson: the array around the values is open */

  sluicep_u8 u8; /* UTF-8 decoding across chunks */
  uint64_t u8off;

  /* the stringified layer */
  enum json_unesc unesc;
  size_t unesc_base; /* the stack depth a quoted stringified document starts at */
  int lesc; /* 0; 1 after '\'; 2 to 5 inside \uXXXX */
  uint32_t lhex, lhi;
  uint64_t lesc_off, lhi_off;

  enum json_phase phase;
  enum json_vstate vs;
  enum json_comment cm;
  uint64_t cm_off;
  int pending_comma;
  uint64_t comma_off;
  int after_ellipsis; /* an ellipsis was dropped: its comma is silent */
  int bslash;         /* a '\' between tokens: \" starts the bare layer */
  uint64_t bslash_off;
  int truncated, value_started;
  /* the first thing in the text that a JSON reader with doubles (jansson)
   * cannot hold: the text stays, the VALUE event says why (sluice.h) */
  const char *unload_why;
  uint64_t unload_off;

  /* prose, fences, a top-level call */
  int ticks;
  uint64_t tick_off;
  int in_fence;
  uint64_t fence_off;
  int has_prose;
  uint64_t prose_off;
  char lit[JSON_LIT_MAX];
  size_t litn;
  int lit_state; /* 0 empty, 1 collecting, 2 ended by space, 3 invalid, 4 frozen */
  int call_st;   /* the prose as a call name: see json.c, call_step */
  int call_new;  /* the name so far is a prefix of "new" */
  size_t call_len;
  uint64_t call_off;
  int in_call, call_used, semi_ok;
  int top_call; /* the value is the argument of a top-level (JSONP) call */
  int quote_ok; /* after \"{...}: its closing quote is silent */

  /* string */
  enum json_quote q;
  int is_key;
  int esc; /* 0, 1 after '\', 2 inside \uXXXX */
  int hexn;
  uint32_t hexv;
  char hexbuf[6]; /* the \uXXXX as written */
  uint64_t esc_off;
  int hi; /* a high surrogate escape is held in hibuf */
  char hibuf[6];
  uint64_t hi_off;
  /* a candidate closing quote, the spaces after it, maybe a '+' (qplus);
   * after a line break (qnl) maybe a word from qword on */
  uint32_t qcp[1 + JSON_QP_MAX + JSON_QW_MAX];
  uint64_t qoff[1 + JSON_QP_MAX + JSON_QW_MAX];
  size_t qn, qword;
  int qplus, qnl;
  /* brackets opened inside the string's content, not yet closed there: a
   * closer of the string's container with none open may end the string */
  size_t sobj, sarr;
  /* a comma inside a string and what follows (a candidate next key), or
   * the characters after a top-level '"' */
  size_t tq_out; /* where the content of a top-level string starts in out */
  int tq_guard;  /* its first characters could look stringified: see tq_guarded */
  uint32_t kcp[JSON_KC_MAX];
  uint64_t koff[JSON_KC_MAX];
  size_t kn;
  int kc_state, tq_state;

  /* unquoted token */
  enum json_tokmode tok_mode;
  int tok_key;
  uint64_t tok_off;
  char tok[JSON_TOKEN_HOLD + 8];
  size_t tokn;
  char wsp[JSON_WSP_MAX];
  size_t wspn;
  int tok_slash; /* a '/' is held: it may start a block comment */
  uint64_t slash_off;
  enum json_num num;
  int num_flags;
  size_t num_out; /* where the number being written starts in out */

  /* a mismatched closer whose reading waits for the next token: the
   * closer, its offset, the state it came in */
  uint32_t mis;
  uint64_t mis_off;
  enum json_vstate mis_vs;

  /* extra call arguments being dropped */
  int skd;
  uint32_t skq;
  int skesc;

  /* snapshots (json.c) */
  int snap_started, snap_wrap;
  size_t snap_lwm;   /* lowest stack depth since the last snapshot */
  size_t snap_dropc; /* closer bytes of the last snapshot popped since */
  sluicep_buf snap_head, snap_scratch;
} json_filter;

/* ---------------- output (inline: the byte loop's hot path) ---------------- */

void sluicep_json_nomem(json_filter *j);

/* memcpy for the few bytes most writes are: no call, and no loop (two
 * copies that may overlap cover 4 to 8 bytes; three single bytes 1 to 3). */
static inline void sluicep_json_copy(char *d, const char *p, size_t n) {
  if (n >= 4 && n <= 8) {
    uint32_t head, tail;
    memcpy(&head, p, 4);
    memcpy(&tail, p + n - 4, 4);
    memcpy(d, &head, 4);
    memcpy(d + n - 4, &tail, 4);
  } else if (n > 8) {
    memcpy(d, p, n);
  } else if (n) {
    char a = p[0], m = p[n >> 1], z = p[n - 1];
    d[0] = a;
    d[n >> 1] = m;
    d[n - 1] = z;
  }
}

/* Appends to a buffer; the common case (room enough) without a call. */
static inline int sluicep_json_buf_add(sluicep_buf *b, const char *p, size_t n) {
  if (b->cap - b->len >= n) {
    sluicep_json_copy(b->ptr + b->len, p, n);
    b->len += n;
    return 0;
  }
  return sluicep_buf_append(b, p, n);
}

static inline void sluicep_json_put(json_filter *j, const char *p, size_t n) {
  if (sluicep_json_buf_add(&j->out, p, n) && !j->failed) sluicep_json_nomem(j);
}

static inline void sluicep_json_put1(json_filter *j, char c) {
  if (j->out.len < j->out.cap) j->out.ptr[j->out.len++] = c;
  else sluicep_json_put(j, &c, 1);
}

/* Spaces outside strings: JSON's four, the Unicode ones LLMs emit, and the
 * invisible zero width space U+200B and U+FEFF, which carry no value
 * between tokens: {"a":\u200b1} is {"a":1} (as jsonrepair reads them). */
static inline int sluicep_json_is_space(uint32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  return sluicep_is_space_cp(c) || c == 0x200B || c == 0xFEFF;
}

/* One more backtick of a run (fences): returns the run's length. */
static inline int sluicep_json_tick(json_filter *j, uint64_t off) {
  if (j->ticks == 0) j->tick_off = off;
  return ++j->ticks;
}

/* A repair event (nothing in a snapshot's trial run). kind is a string
 * literal: REPAIR(j, "kind", off). */
void sluicep_json_repair(json_filter *j, const char *kind, size_t kind_len, uint64_t off);
#define REPAIR(j, kind, off) sluicep_json_repair((j), (kind), sizeof(kind) - 1, (off))

/* The same inline, for the repairs the byte loop's fast paths make about
 * once per token on repair-heavy input (an unquoted key, a single quote, a
 * missing comma): no call but the sink's. */
static inline void sluicep_json_repair_inline(json_filter *j, const char *kind, size_t kind_len,
                                              uint64_t off) {
  if (j->failed || j->quiet) return;
  j->rev.name = kind;
  j->rev.name_len = kind_len;
  j->rev.offset = off;
  if (sluicep_event_inline(&j->base, &j->rev)) j->failed = 1;
}
#define REPAIR_HOT(j, kind, off) sluicep_json_repair_inline((j), (kind), sizeof(kind) - 1, (off))

/* A rule error (depth): sticky. */
void sluicep_json_fail(json_filter *j, sluice_status st, uint64_t off, const char *msg);

/* The text is valid JSON that a reader with doubles cannot load (a NUL in a
 * key, a number past a double's range, nesting past jansson's 2048): kept,
 * and marked on the VALUE event with the reason (a string literal) and the
 * offset of the first such byte. */
void sluicep_json_unloadable(json_filter *j, const char *why, uint64_t off);

/* ---------------- json_value.c ---------------- */

/* The byte loop: consumes p[0..n) (pos advances by n). */
void sluicep_json_process(json_filter *j, const char *p, size_t n);
/* One decoded code point, through the stringified layer when it is on. */
void sluicep_json_feed_cp(json_filter *j, uint32_t cp, const char *raw, size_t len, uint64_t off);
/* End of input, before the value is closed: a pending UTF-8 sequence, the
 * layer's dangling escape. */
void sluicep_json_end_input(json_filter *j);
/* Completes the token in progress (string, unquoted token, the decisions
 * held after a quote or a comma) as the end of the input does. */
void sluicep_json_finish_token(json_filter *j, uint64_t end);
/* What the innermost open frame needs before its closer (":null", a null
 * for an empty call), its trailing comma dropped. */
void sluicep_json_fill_in(json_filter *j, uint64_t end);
/* The end of the input, or a closing fence or quote, inside the value: the
 * token completed, the open frames closed in stack order. */
void sluicep_json_finalize_value(json_filter *j, uint64_t end);
/* Comments (line, block, hash), between tokens and after the value: 1 when cp is
 * part of one (or starts one), 0 when not, -1 when a '/' held at cm_off
 * started none (cp is not taken). */
int sluicep_json_comment_cp(json_filter *j, uint32_t cp, uint64_t off);
/* Opens a call frame (a '(' that writes nothing) where a value is expected. */
void sluicep_json_push_call(json_filter *j);
/* Starts the top-level value at a '"': a string, or a stringified document. */
void sluicep_json_top_quote(json_filter *j, uint64_t off);
/* Writes w[0..n), a top-level scalar at off (cut by the end of the input
 * when eof), as the token rules read it; 0 when they make it a string.
 * With write 0 it only says which. */
int sluicep_json_top_scalar(json_filter *j, const char *w, size_t n, uint64_t off, int eof,
                            int write);

/* ---------------- json.c ---------------- */

/* One code point outside the value (P_START to P_IGNORE). Returns 0 when the
 * value started with it and it must be processed again. */
int sluicep_json_outside_cp(json_filter *j, uint32_t cp, uint64_t off);
/* The value ended (the stack emptied). */
void sluicep_json_value_ended(json_filter *j);

/* ---------------- json_number.c ---------------- */

/* 1 if the JSON number text p[0..n) is too large in magnitude for a double
 * (strtod would return HUGE_VAL): jansson cannot load it. */
int sluicep_json_number_overflows(const char *p, size_t n);
/* The decimal digits of the hexadecimal digits h[0..n) into out (at most 16
 * bytes, no terminator), or 0 when n is 0 or more than 13 (2^52: every JSON
 * reader holds the value exactly). */
size_t sluicep_json_hex_to_decimal(const char *h, size_t n, char out[24]);

#endif /* SLUICE_JSON_PRIVATE_H */
