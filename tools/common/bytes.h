/*
 * bytes.h: byte strings in the formats the kit reads and writes: base64
 * (RFC 4648, canonical only), the case format's byte specs ("text",
 * {"hex": ...}, {"b64": ...}, arrays of those), a protocol field that is a
 * string or, for bytes that are not UTF-8, "<field>_b64", and a readable
 * rendering for diffs ("a\xff").
 */
#ifndef SLUICE_TOOLS_BYTES_H
#define SLUICE_TOOLS_BYTES_H

#include <jansson.h>

#include "util.h"

/* Base64 with padding. encode: malloc'd, NUL-terminated, NULL when out of
 * memory. decode: -1 unless s is canonical base64 (the alphabet, padding
 * to a multiple of 4, and zero bits after the last byte), so that every
 * byte string has exactly one encoding. */
char *b64_encode(const char *p, size_t n);
int b64_decode(const char *s, size_t len, tbytes *out);

/* A byte spec of the case format into bytes (malloc'd, NUL-terminated).
 * Returns 0, or -1 with a reason in why. */
int bytes_from_spec(json_t *spec, tbytes *out, char *why, size_t whylen);

/* obj[key] (a string) or obj[key + "_b64"] (base64) back into bytes
 * (malloc'd). Returns 1 if found, 0 if neither is present (out empty), -1
 * if present but malformed (both present, not a string, bad base64). */
int bytes_field_get(json_t *obj, const char *key, tbytes *out);

/* A JSON string of s (NUL-terminated), invalid UTF-8 becoming U+FFFD:
 * for messages, which must reach the other side whatever they hold.
 * NULL when out of memory. */
json_t *json_text(const char *s);

/* Appends a readable rendering of p[0..n) to b: printable ASCII and valid
 * UTF-8 as they are, \n \r \t \\ \" as escapes, other bytes as \xHH,
 * between double quotes. With max > 0 and n > max, the middle is cut and
 * the number of bytes left out is said. */
void bytes_show(tbuf *b, const char *p, size_t n, size_t max);

#endif
