/*
 * capsrc.c: reading a capture file through libsluice's capture reader
 * (capsrc.h). The reader gives the pieces as they came off the network;
 * here a gzip-encoded body is decoded (zlib, when the build has it) with a
 * cap on the decoded size and on the decoding ratio, and the decoded body
 * goes to the caller and to the library's detector.
 */
#include "capsrc.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "gz.h"

#define BLOCK 65536

struct capsrc {
  char *path;
  int fd;
  char *blk;
  int done;
  capsrc_info *info;
  capsrc_piece_fn fn;
  void *user;
  size_t max_body;
  sluice_filter *reader, *detect;
  tbuf *err;
  int stopped; /* fn asked to stop */
  int failed;  /* an error of ours (err set) */
  uint64_t source, t;
  gz *z; /* the decoder of a gzip-encoded body */
};

void capsrc_info_free(capsrc_info *info) {
  tstrs_free(&info->headers);
  free(info->request);
  memset(info, 0, sizeof *info);
}

const char *capsrc_header(const capsrc_info *info, const char *name) {
  size_t nl = strlen(name);
  for (size_t i = 0; i < info->headers.n; i++) {
    const char *h = info->headers.v[i];
    if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') return h + nl + 1 + (h[nl + 1] == ' ');
  }
  return NULL;
}

static int fail(capsrc *cs, const char *fmt, const char *arg) {
  if (!cs->failed) {
    tbuf_xprintf(cs->err, "%s: ", cs->path);
    tbuf_xprintf(cs->err, fmt, arg);
  }
  cs->failed = 1;
  return 1;
}

/* ---------------- the decoded body ---------------- */

static int on_detected(void *user, const sluice_event *ev) {
  capsrc_info *info = user;
  if (ev->type != SLUICE_EV_PROVIDER) return 0;
  if (info->endpoint == SLUICE_ENDPOINT_UNKNOWN) {
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)ev->name_len, ev->name);
    info->endpoint = sluice_endpoint_from_name(name);
  }
  size_t n = ev->data_len < sizeof info->model ? ev->data_len : sizeof info->model - 1;
  memcpy(info->model, ev->data, n);
  info->model[n] = '\0';
  return 0;
}

static int deliver(capsrc *cs, const char *p, size_t n) {
  if (!n) return 0;
  if (cs->info->body_bytes + n > cs->max_body) {
    char lim[32];
    snprintf(lim, sizeof lim, "%zu", cs->max_body);
    return fail(cs, "the body is larger than the limit (%s bytes)", lim);
  }
  cs->info->body_bytes += n;
  cs->info->pieces++;
  if (cs->detect && sluice_feed(cs->detect, p, n) != SLUICE_OK) {
    /* a body the detector cannot read is still a body: the provider filter
     * reports what is wrong with it where it is read */
    sluice_free(cs->detect);
    cs->detect = NULL;
  }
  if (cs->fn && cs->fn(cs->user, p, n, cs->t, cs->source)) {
    cs->stopped = 1;
    return 1;
  }
  return 0;
}

static int gz_deliver(void *user, const char *p, size_t n) { return deliver(user, p, n); }

/* A piece of a gzip-encoded body, decoded as it comes (a piece may decode
 * to nothing, or to much more: gz caps the ratio and the size). */
static int inflate_piece(capsrc *cs, const char *p, size_t n) {
  char why[160];
  if (!cs->z && !(cs->z = gz_new(cs->max_body))) {
    gz_feed(NULL, p, n, gz_deliver, cs, why, sizeof why); /* says why not */
    return fail(cs, "%s", why);
  }
  int r = gz_feed(cs->z, p, n, gz_deliver, cs, why, sizeof why);
  if (r < 0) return fail(cs, "%s", why);
  return r;
}

/* ---------------- the reader's events ---------------- */

static void on_meta(capsrc *cs, const sluice_event *ev) {
  capsrc_info *info = cs->info;
  char *v = xstrndup(ev->data, ev->data_len);
  if (ev->name_len == 6 && memcmp(ev->name, "status", 6) == 0) {
    info->status = atoi(v);
  } else if (ev->name_len == 6 && memcmp(ev->name, "header", 6) == 0) {
    tstrs_push(&info->headers, v);
    v = NULL;
    const char *enc = capsrc_header(info, "Content-Encoding");
    info->gzip = enc && strstr(enc, "gzip");
  } else if (ev->name_len == 7 && memcmp(ev->name, "request", 7) == 0) {
    free(info->request);
    info->request = v;
    v = NULL;
  } else if (ev->name_len == 8 && memcmp(ev->name, "endpoint", 8) == 0) {
    info->endpoint = sluice_endpoint_from_name(v);
  } else if (ev->name_len == 3 && memcmp(ev->name, "end", 3) == 0) {
    snprintf(info->end, sizeof info->end, "%s", v);
  } else if (ev->name_len == 6 && memcmp(ev->name, "format", 6) == 0) {
    static const char *const names[] = {"auto", "sse", "ndjson", "chunks", "recorded"};
    for (int f = 0; f < 5; f++)
      if (strcmp(v, names[f]) == 0) info->format = (sluice_capture_format)f;
    info->timed = info->format == SLUICE_CAPTURE_RECORDED;
  }
  free(v);
}

static int on_reader_event(void *user, const sluice_event *ev) {
  capsrc *cs = user;
  if (ev->type == SLUICE_EV_META) {
    on_meta(cs, ev);
    return 0;
  }
  if (ev->type != SLUICE_EV_PIECE) return 0;
  cs->source = sluice_capture_source(cs->reader);
  cs->t = ev->length;
  if (ev->length == UINT64_MAX) cs->info->timed = 0;
  if (!cs->info->gzip) return deliver(cs, ev->data, ev->data_len);
  return inflate_piece(cs, ev->data, ev->data_len);
}

/* ---------------- reading the file ---------------- */

/* The reader's error, with the file's line where the message has none. */
static void reader_error(capsrc *cs) {
  const sluice_error *e = sluice_get_error(cs->reader);
  if (cs->failed || e->status == SLUICE_CALLBACK) return;
  unsigned long long line;
  int skip = 0;
  if (e->status == SLUICE_CAPTURE_FORMAT && sscanf(e->message, "line %llu: %n", &line, &skip) == 1 &&
      skip > 0) /* the reader's message starts with the line */
    tbuf_xprintf(cs->err, "%s: line %llu, byte %llu: capture_format: %s", cs->path, line,
                 (unsigned long long)e->offset, e->message + skip);
  else
    tbuf_xprintf(cs->err, "%s: %s: %s (at byte %llu)", cs->path, sluice_status_name(e->status),
                 e->message, (unsigned long long)e->offset);
  cs->failed = 1;
}

capsrc *capsrc_open(const char *path, size_t max_body, capsrc_piece_fn fn, void *user,
                    capsrc_info *info, tbuf *err) {
  memset(info, 0, sizeof *info);
  info->status = 200;
  int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY);
  if (fd < 0) {
    tbuf_xprintf(err, "%s: %s", path, strerror(errno));
    return NULL;
  }
  capsrc *cs = xcalloc(1, sizeof *cs);
  cs->path = xstrdup(path);
  cs->fd = fd;
  cs->info = info;
  cs->fn = fn;
  cs->user = user;
  cs->err = err;
  cs->max_body = max_body ? max_body : CAPSRC_MAX_BODY;
  cs->blk = xmalloc(BLOCK);
  sluice_sink rs = {NULL, on_reader_event, cs}, ds = {NULL, on_detected, info};
  if (sluice_capture_new(&cs->reader, NULL, &rs, NULL, NULL) != SLUICE_OK ||
      sluice_detect_new(&cs->detect, NULL, &ds, NULL, NULL) != SLUICE_OK)
    die("out of memory");
  return cs;
}

int capsrc_step(capsrc *cs) {
  if (cs->failed) return -1;
  if (cs->stopped) return 2;
  if (cs->done) return 0;
  sluice_status st;
  for (;;) {
    ssize_t r = read(cs->fd, cs->blk, BLOCK);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      tbuf_xprintf(cs->err, "%s: read error: %s", cs->path, strerror(errno));
      cs->failed = 1;
      return -1;
    }
    if (r == 0) {
      st = sluice_finish(cs->reader);
      cs->done = 1;
    } else {
      st = sluice_feed(cs->reader, cs->blk, (size_t)r);
    }
    break;
  }
  if (st != SLUICE_OK) reader_error(cs);
  if (cs->failed) return -1;
  if (cs->stopped) return 2;
  if (cs->done && cs->detect) sluice_finish(cs->detect);
  return cs->done ? 0 : 1;
}

int capsrc_in_block(const capsrc *cs, const char *p, size_t n) {
  return cs && cs->blk && p >= cs->blk && n <= BLOCK && p + n <= cs->blk + BLOCK;
}

void capsrc_close(capsrc *cs) {
  if (!cs) return;
  gz_free(cs->z);
  free(cs->blk);
  sluice_free(cs->reader);
  sluice_free(cs->detect);
  if (cs->fd != STDIN_FILENO) close(cs->fd);
  free(cs->path);
  free(cs);
}

int capsrc_read(const char *path, size_t max_body, capsrc_piece_fn fn, void *user,
                capsrc_info *info, tbuf *err) {
  capsrc *cs = capsrc_open(path, max_body, fn, user, info, err);
  if (!cs) return -1;
  int r;
  while ((r = capsrc_step(cs)) == 1) {
  }
  capsrc_close(cs);
  return r == 2 ? 1 : r;
}
