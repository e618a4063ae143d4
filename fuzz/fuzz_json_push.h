/* fuzz_json_push.h: the JSON grammar of fuzz_json_syntax.h read a byte at
 * a time, so that a text can be checked as it grows and its state copied
 * at any point.
 *
 * fuzz_json_incremental checks every snapshot of a run, and a snapshot is
 * TEXT so far plus a short tail. Loading each whole with jansson was the
 * square of the input's length, and half of the target's time (perf):
 * with this, TEXT is read once as it comes, and each snapshot costs its
 * tail (a copy of the state, whose stack is no deeper than the tail is
 * long when the snapshot closes every level).
 *
 * strict = 0 is json_syntax_ok exactly (tests/test_json checks it, at
 * every split of its texts). strict = 1 also wants a \u escape of a high
 * surrogate followed by one of a low surrogate, and no low one alone, as
 * jansson does; then a text it accepts at a depth of at most 2048 is one
 * that json_text_check accepts too (jansson loads it, or refuses it only
 * for a number past a double or a NUL in a key). Its refusals are not
 * final: jansson is laxer in a few places (a NUL byte right after a
 * literal), so a caller confirms them with json_text_check.
 * Header-only, for the json targets and test_json. */
#ifndef SLUICE_FUZZ_JSON_PUSH_H
#define SLUICE_FUZZ_JSON_PUSH_H

#include <stdlib.h>
#include <string.h>

enum {
  JP_VALUE,          /* a value is wanted */
  JP_VALUE_OR_CLOSE, /* after '[' */
  JP_KEY_OR_CLOSE,   /* after '{' */
  JP_KEY,            /* after ',' in an object */
  JP_COLON,          /* after a key */
  JP_AFTER,          /* after a value */
  JP_STR,            /* in a string */
  JP_ESC,            /* after a backslash */
  JP_HEX,            /* in a \u escape's digits */
  JP_SUR_BS,         /* after a high surrogate's escape: its low one's '\' */
  JP_SUR_U,          /* its 'u' */
  JP_LIT,            /* in true, false or null */
  JP_MINUS,          /* numbers: after '-' */
  JP_ZERO,           /* after a leading 0 (may end) */
  JP_INT,            /* in the integer's digits (may end) */
  JP_DOT,            /* after '.' */
  JP_FRAC,           /* in the fraction's digits (may end) */
  JP_E,              /* after 'e' */
  JP_ESIGN,          /* after the exponent's sign */
  JP_EXP,            /* in the exponent's digits (may end) */
  JP_BAD             /* not JSON, whatever follows */
};

typedef struct jpush {
  char *stack; /* '{' or '[' for each open level */
  size_t depth, cap;
  size_t peak;         /* the deepest level so far */
  unsigned char st;    /* JP_* */
  unsigned char key;   /* the string is an object's key */
  unsigned char left;  /* \u digits, or literal letters, still wanted */
  unsigned char low;   /* the \u escape read must be a low surrogate */
  unsigned char u8;    /* UTF-8 continuation bytes still wanted */
  unsigned char lo, hi; /* the range of the next one */
  unsigned char strict;
  const char *lit;     /* the literal's letters still wanted */
  unsigned cu;         /* the \u escape's code unit so far */
} jpush;

static void jp_init(jpush *j, int strict) {
  memset(j, 0, sizeof *j);
  j->st = JP_VALUE;
  j->strict = (unsigned char)strict;
}

static void jp_free(jpush *j) {
  free(j->stack);
  j->stack = NULL;
}

/* to becomes from, in to's own stack (kept from one copy to the next). */
static void jp_copy(jpush *to, const jpush *from) {
  char *s = to->stack;
  size_t cap = to->cap;
  if (cap < from->depth) {
    cap = from->depth * 2;
    s = realloc(s, cap);
    if (!s) abort();
  }
  *to = *from;
  to->stack = s;
  to->cap = cap;
  if (from->depth) memcpy(s, from->stack, from->depth);
}

static int jp_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int jp_hex(unsigned char c) {
  return c >= '0' && c <= '9' ? (int)c - '0'
         : c >= 'a' && c <= 'f' ? (int)c - 'a' + 10
         : c >= 'A' && c <= 'F' ? (int)c - 'A' + 10
                                : -1;
}

/* Is the next byte a valid part of UTF-8 (sluice_utf8_valid's rules)? */
static int jp_utf8(jpush *j, unsigned char c) {
  if (j->u8) {
    if (c < j->lo || c > j->hi) return 0;
    j->u8--;
    j->lo = 0x80;
    j->hi = 0xBF;
    return 1;
  }
  j->lo = 0x80;
  j->hi = 0xBF;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) j->u8 = 1;
  else if (c >= 0xE0 && c <= 0xEF) j->u8 = 2;
  else if (c >= 0xF0 && c <= 0xF4) j->u8 = 3;
  else return 0;
  if (c == 0xE0) j->lo = 0xA0;
  if (c == 0xED) j->hi = 0x9F; /* no surrogates */
  if (c == 0xF0) j->lo = 0x90;
  if (c == 0xF4) j->hi = 0x8F; /* nothing past U+10FFFF */
  return 1;
}

static void jp_open(jpush *j, char c) {
  if (j->depth == j->cap) {
    j->cap = j->cap ? j->cap * 2 : 64;
    j->stack = realloc(j->stack, j->cap);
    if (!j->stack) abort();
  }
  j->stack[j->depth++] = c;
  if (j->depth > j->peak) j->peak = j->depth;
  j->st = c == '{' ? JP_KEY_OR_CLOSE : JP_VALUE_OR_CLOSE;
}

/* c closes the innermost level, or the text is bad. */
static void jp_close(jpush *j, unsigned char c) {
  if (j->depth && c == (j->stack[j->depth - 1] == '{' ? '}' : ']')) {
    j->depth--;
    j->st = JP_AFTER;
  } else {
    j->st = JP_BAD;
  }
}

/* A value starts at c. */
static void jp_value(jpush *j, unsigned char c) {
  static const char *const lits[] = {"true", "false", "null"};
  switch (c) {
  case '{':
  case '[': jp_open(j, (char)c); return;
  case '"': j->st = JP_STR; j->key = 0; return;
  case '-': j->st = JP_MINUS; return;
  case '0': j->st = JP_ZERO; return;
  case 't':
  case 'f':
  case 'n':
    j->lit = lits[c == 't' ? 0 : c == 'f' ? 1 : 2] + 1;
    j->st = JP_LIT;
    return;
  default: j->st = c >= '1' && c <= '9' ? JP_INT : JP_BAD; return;
  }
}

/* The number state st followed by c: the next state, or JP_AFTER when c
 * is not part of it (and it may end there), else JP_BAD. */
static unsigned char jp_number(unsigned char st, unsigned char c) {
  int digit = c >= '0' && c <= '9', e = c == 'e' || c == 'E';
  switch (st) {
  case JP_MINUS: return c == '0' ? JP_ZERO : digit ? JP_INT : JP_BAD;
  case JP_ZERO: return c == '.' ? JP_DOT : e ? JP_E : JP_AFTER;
  case JP_INT: return digit ? JP_INT : c == '.' ? JP_DOT : e ? JP_E : JP_AFTER;
  case JP_DOT: return digit ? JP_FRAC : JP_BAD;
  case JP_FRAC: return digit ? JP_FRAC : e ? JP_E : JP_AFTER;
  case JP_E: return digit ? JP_EXP : c == '+' || c == '-' ? JP_ESIGN : JP_BAD;
  case JP_ESIGN: return digit ? JP_EXP : JP_BAD;
  default: return digit ? JP_EXP : JP_AFTER; /* JP_EXP */
  }
}

static void jp_byte(jpush *j, unsigned char c) {
  if (!jp_utf8(j, c)) {
    j->st = JP_BAD;
    return;
  }
  switch (j->st) {
  case JP_BAD: return;
  case JP_STR:
    if (c == '"') j->st = j->key ? JP_COLON : JP_AFTER;
    else if (c == '\\') j->st = JP_ESC;
    else if (c < 0x20) j->st = JP_BAD;
    return;
  case JP_ESC:
    if (c == 'u') {
      j->st = JP_HEX;
      j->left = 4;
      j->cu = 0;
    } else {
      j->st = c && strchr("\"\\/bfnrt", c) ? JP_STR : JP_BAD;
    }
    return;
  case JP_HEX: {
    int h = jp_hex(c);
    if (h < 0) {
      j->st = JP_BAD;
      return;
    }
    j->cu = j->cu << 4 | (unsigned)h;
    if (--j->left) return;
    j->st = JP_STR;
    if (!j->strict) return;
    int high = j->cu >= 0xD800 && j->cu <= 0xDBFF, low = j->cu >= 0xDC00 && j->cu <= 0xDFFF;
    if (j->low ? !low : low) j->st = JP_BAD;
    else if (high) j->st = JP_SUR_BS;
    j->low = 0;
    return;
  }
  case JP_SUR_BS: j->st = c == '\\' ? JP_SUR_U : JP_BAD; return;
  case JP_SUR_U:
    j->st = c == 'u' ? JP_HEX : JP_BAD;
    j->left = 4;
    j->cu = 0;
    j->low = 1;
    return;
  case JP_LIT:
    if (c != (unsigned char)*j->lit++) j->st = JP_BAD;
    else if (!*j->lit) j->st = JP_AFTER;
    return;
  case JP_MINUS:
  case JP_ZERO:
  case JP_INT:
  case JP_DOT:
  case JP_FRAC:
  case JP_E:
  case JP_ESIGN:
  case JP_EXP:
    j->st = jp_number(j->st, c);
    if (j->st != JP_AFTER) return;
    break; /* the number ended before c: c comes after it */
  default: break;
  }
  if (jp_ws(c)) return; /* between tokens (a token's own states returned) */
  switch (j->st) {
  case JP_VALUE_OR_CLOSE:
    if (c == ']') jp_close(j, c);
    else jp_value(j, c);
    return;
  case JP_VALUE: jp_value(j, c); return;
  case JP_KEY_OR_CLOSE:
    if (c == '}') {
      jp_close(j, c);
      return;
    }
    /* fall through */
  case JP_KEY:
    j->st = c == '"' ? JP_STR : JP_BAD;
    j->key = 1;
    return;
  case JP_COLON: j->st = c == ':' ? JP_VALUE : JP_BAD; return;
  default: /* JP_AFTER */
    if (!j->depth) j->st = JP_BAD;
    else if (c == ',') j->st = j->stack[j->depth - 1] == '[' ? JP_VALUE : JP_KEY;
    else jp_close(j, c);
    return;
  }
}

static void jp_feed(jpush *j, const char *p, size_t n) {
  for (size_t i = 0; i < n && j->st != JP_BAD; i++) jp_byte(j, (unsigned char)p[i]);
}

/* Is what was fed one whole JSON text? */
static int jp_complete(const jpush *j) {
  int ended = j->st == JP_AFTER || j->st == JP_ZERO || j->st == JP_INT || j->st == JP_FRAC ||
              j->st == JP_EXP;
  return ended && !j->depth; /* (a UTF-8 sequence cut short is in a string) */
}

#endif
