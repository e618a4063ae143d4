/*
 * jread.h: a pull reader for one JSON text (a provider chunk), for the
 * provider adapters.
 *
 * Why not jansson: an adapter reads a few members of every chunk and skips
 * the rest; building a jansson tree of each chunk (every key and string
 * allocated) runs at about 75 MB/s on OpenAI chunks here, a quarter of what
 * a replay must reach. This reader validates the whole text by RFC 8259
 * (strings must be UTF-8 without lone surrogates, numbers by the grammar),
 * allocates nothing, and hands out strings as spans of the input that are
 * decoded only when they hold escapes.
 *
 * Errors are sticky: after the first one every call fails, and jr_error()
 * says what and where. Nesting deeper than JR_MAX_DEPTH is an error.
 * Members are read in order; a repeated key is simply read again.
 */
#ifndef SLUICE_JREAD_H
#define SLUICE_JREAD_H

#include <stddef.h>
#include <stdint.h>

#define JR_MAX_DEPTH 1024

enum jr_type {
  JR_ERROR = 0,
  JR_OBJECT,
  JR_ARRAY,
  JR_STRING,
  JR_NUMBER,
  JR_TRUE,
  JR_FALSE,
  JR_NULL
};

typedef struct jr {
  const char *p, *end, *start;
  const char *why; /* NULL while there is no error */
  size_t at;       /* byte of the error */
} jr;

/* A string: the bytes between the quotes, and whether they hold escapes. */
typedef struct jr_str {
  const char *p;
  size_t n;
  int esc;
} jr_str;

void jr_init(jr *r, const char *p, size_t n);
/* The type of the next value (whitespace skipped), JR_ERROR on error. */
int jr_peek(jr *r);
/* Skips one value, validating it. 1, or 0 on error. */
int jr_skip(jr *r);
/* Consumes '{' / '['. 1, or 0 when the next value is not one. */
int jr_enter_object(jr *r);
int jr_enter_array(jr *r);
/* The next member of the object entered last: 1 with its key read and the
 * reader at its value (which the caller must read or skip); 0 after the
 * closing brace, or on error. *count counts members (start at 0). */
int jr_member(jr *r, size_t *count, jr_str *key);
/* The next element of the array entered last: 1 with the reader at it;
 * 0 after the closing bracket, or on error. */
int jr_element(jr *r, size_t *count);
/* A string value. 1, or 0 when the next value is not a string. */
int jr_string(jr *r, jr_str *s);
/* A number value as a non-negative integer that fits in 63 bits. 1, or 0
 * (the value is skipped) when it is not one. */
int jr_uint(jr *r, uint64_t *v);
/* The raw text of the next value (validated, skipped). */
int jr_raw(jr *r, const char **p, size_t *n);
/* 1 when only whitespace is left (else an error). */
int jr_end(jr *r);
/* "why at byte N" into buf, or NULL when there was no error. */
const char *jr_error(const jr *r, char *buf, size_t n);

/* The decoded bytes of s into out (room for s->n bytes; decoding never
 * lengthens). Returns the decoded length. s must come from jr_string. */
size_t jr_decode(const jr_str *s, char *out);
/* 1 if s decodes to the NUL-terminated literal. */
int jr_is(const jr_str *s, const char *lit);
/* Copies JSON text p[0..n) (valid, from jr_raw) without the whitespace
 * outside strings into out (room for n bytes); returns the length. */
size_t jr_compact(const char *p, size_t n, char *out);

#endif
