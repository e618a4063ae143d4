/*
 * base64.c: canonical base64 (RFC 4648 §4), the one decoder of the tree:
 * the capture reader's data_b64 pieces and the tools' byte specs. Only the
 * canonical form is accepted (padding to a multiple of 4, no whitespace,
 * the unused bits of the last group zero), so a text has one reading.
 */
#include "sluice_private.h"

static int b64val(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

int sluice_base64_decode(const char *s, size_t len, void *out, size_t *outn) {
  unsigned char *d = out;
  *outn = 0;
  if (len % 4) return -1;
  size_t pad = 0;
  if (len && s[len - 1] == '=') pad++;
  if (len > 1 && s[len - 2] == '=') pad++;
  size_t n = 0;
  for (size_t i = 0; i < len; i += 4) {
    int last = i + 4 == len;
    uint32_t w = 0;
    for (size_t k = 0; k < 4; k++) {
      int v = (last && k >= 4 - pad) ? 0 : b64val((unsigned char)s[i + k]);
      if (v < 0) return -1;
      w = (w << 6) | (uint32_t)v;
    }
    d[n++] = (unsigned char)(w >> 16);
    if (!last || pad < 2) d[n++] = (unsigned char)((w >> 8) & 0xFF);
    else if (w & 0xFFFF) return -1; /* bits after the last byte must be 0 */
    if (!last || pad < 1) d[n++] = (unsigned char)(w & 0xFF);
    else if (pad == 1 && (w & 0xFF)) return -1;
  }
  *outn = n;
  return 0;
}
