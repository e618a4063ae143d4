/*
 * gz.c: bounded gzip decoding (gz.h).
 */
#include "gz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SLUICE_HAVE_ZLIB
#include <zlib.h>

#include "util.h"

struct gz {
  z_stream z;
  size_t max_out;
  uint64_t out;
  int done;
};

int gz_available(void) { return 1; }

gz *gz_new(size_t max_out) {
  gz *g = calloc(1, sizeof *g);
  if (g && inflateInit2(&g->z, 15 + 32) != Z_OK) { /* gzip or zlib */
    free(g);
    g = NULL;
  }
  g->max_out = max_out;
  return g;
}

int gz_feed(gz *g, const char *p, size_t n, gz_out_fn out, void *user, char *why, size_t wl) {
  if (!g) {
    snprintf(why, wl, "out of memory for the gzip decoder");
    return -1;
  }
  if (g->done) return 0;
  g->z.next_in = (Bytef *)(uintptr_t)p;
  g->z.avail_in = (uInt)n;
  unsigned char buf[16384];
  for (;;) {
    g->z.next_out = buf;
    g->z.avail_out = sizeof buf;
    int zr = inflate(&g->z, Z_SYNC_FLUSH);
    if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
      snprintf(why, wl, "the gzip-encoded body is corrupt (%s) at encoded byte %lu",
               g->z.msg ? g->z.msg : "inflate", (unsigned long)g->z.total_in);
      return -1;
    }
    size_t got = sizeof buf - g->z.avail_out;
    g->out += got;
    if (g->max_out && g->out > g->max_out) {
      snprintf(why, wl, "the gzip-encoded body decodes to more than %zu bytes (at encoded byte %lu)",
               g->max_out, (unsigned long)g->z.total_in);
      return -1;
    }
    if (g->out > (uint64_t)GZ_MAX_RATIO * g->z.total_in + 65536) {
      snprintf(why, wl, "the gzip-encoded body decodes to more than %d times its size (at "
               "encoded byte %lu)", GZ_MAX_RATIO, (unsigned long)g->z.total_in);
      return -1;
    }
    if (got && out(user, (const char *)buf, got)) return 1;
    if (zr == Z_STREAM_END) {
      g->done = 1;
      return 0;
    }
    if (zr == Z_BUF_ERROR || (g->z.avail_in == 0 && g->z.avail_out != 0)) return 0;
  }
}

int gz_done(const gz *g) { return g->done; }

void gz_free(gz *g) {
  if (!g) return;
  inflateEnd(&g->z);
  free(g);
}

#else

int gz_available(void) { return 0; }
gz *gz_new(size_t max_out) {
  (void)max_out;
  return NULL;
}
int gz_feed(gz *g, const char *p, size_t n, gz_out_fn out, void *user, char *why, size_t wl) {
  (void)g, (void)p, (void)n, (void)out, (void)user;
  snprintf(why, wl, "the body is gzip-encoded and this sluice was built without zlib");
  return -1;
}
int gz_done(const gz *g) {
  (void)g;
  return 0;
}
void gz_free(gz *g) { (void)g; }

#endif
