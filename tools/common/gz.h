/*
 * gz.h: gzip (or zlib/deflate) bodies decoded as they come, with a cap on
 * the decoded size and on the ratio of decoded bytes to the input inflate
 * has consumed, so a bomb is stopped at its first blocks. The one inflate
 * loop of the tools (capsrc's recorded bodies, capture import's cassettes).
 * Without zlib in the build, every call fails and says so.
 */
#ifndef SLUICE_TOOLS_GZ_H
#define SLUICE_TOOLS_GZ_H

#include <stddef.h>
#include <stdint.h>

#define GZ_MAX_RATIO 256 /* decoded bytes per input byte, at most (text: 5 to 30) */

typedef struct gz gz;
/* Receives decoded bytes; non-zero stops decoding (gz_feed returns 1). */
typedef int (*gz_out_fn)(void *user, const char *p, size_t n);

/* A decoder that stops past max_out decoded bytes (0: no cap but the
 * ratio). NULL when the build has no zlib or memory is out; gz_feed(NULL,
 * ...) then fails and says which. */
gz *gz_new(size_t max_out);
/* Decodes p[0..n): 0, 1 when out stopped it, -1 with the reason in why
 * (corrupt, over the cap, over the ratio, with the encoded byte it got to). Bytes after the end of the gzip
 * stream are ignored. */
int gz_feed(gz *z, const char *p, size_t n, gz_out_fn out, void *user, char *why, size_t wl);
/* 1 once the gzip stream ended. */
int gz_done(const gz *z);
void gz_free(gz *z);
/* 1 if this build decodes gzip. */
int gz_available(void);

#endif
