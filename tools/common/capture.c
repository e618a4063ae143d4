/*
 * capture.c: loading and writing recorded provider streams.
 */
#include "capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bytes.h"
#include "jsonw.h"

/* ---------------- loading ---------------- */

typedef struct loader {
  capture *c;
  tbuf body;
  size_t cap_pieces;
} loader;

static int keep_piece(void *user, const char *p, size_t n, uint64_t t, uint64_t source) {
  (void)source;
  loader *l = user;
  capture *c = l->c;
  if (c->npieces == l->cap_pieces) {
    l->cap_pieces = l->cap_pieces ? l->cap_pieces * 2 : 64;
    c->pieces = xrealloc(c->pieces, xmul(l->cap_pieces, sizeof *c->pieces));
  }
  cap_piece *pc = &c->pieces[c->npieces++];
  pc->off = l->body.n;
  pc->len = n;
  pc->t = t == UINT64_MAX ? -1 : (double)t / 1e6;
  tbuf_xadd(&l->body, p, n);
  return 0;
}

int capture_load(capture *c, const char *path, size_t max_bytes, tbuf *err) {
  memset(c, 0, sizeof *c);
  c->path = xstrdup(path);
  const char *slash = strrchr(path, '/');
  c->name = xstrdup(slash ? slash + 1 : path);
  loader l = {c, {0}, 0};
  capsrc_info info;
  int rc = capsrc_read(path, max_bytes, keep_piece, &l, &info, err);
  c->format = info.format;
  c->family = info.endpoint;
  c->timed = info.timed;
  c->status = info.status;
  c->headers = info.headers;
  info.headers = (tstrs){0};
  if (info.model[0]) c->model = xstrdup(info.model);
  capsrc_info_free(&info);
  c->body.p = tbuf_take(&l.body, &c->body.n);
  if (!rc && c->npieces == 0) {
    tbuf_xprintf(err, "%s: the capture is empty", path);
    rc = -1;
  }
  return rc ? -1 : 0;
}

void capture_free(capture *c) {
  free(c->path);
  free(c->name);
  free(c->body.p);
  free(c->pieces);
  tstrs_free(&c->headers);
  free(c->model);
  memset(c, 0, sizeof *c);
}

void capture_set_body(capture *c, tbuf *body, const size_t *ends, size_t n) {
  free(c->body.p);
  free(c->pieces);
  c->pieces = xcalloc(n ? n : 1, sizeof *c->pieces);
  for (size_t i = 0; i < n; i++) {
    c->pieces[i].off = i ? ends[i - 1] : 0;
    c->pieces[i].len = ends[i] - c->pieces[i].off;
    c->pieces[i].t = -1;
  }
  c->npieces = n;
  c->timed = 0;
  c->body.p = tbuf_take(body, &c->body.n);
}

/* ---------------- writing ---------------- */

static int write_line(capture_writer *w) {
  tbuf_xadds(&w->line, "\n");
  int rc = fwrite(w->line.p, 1, w->line.n, w->fp) == w->line.n && fflush(w->fp) == 0 ? 0 : -1;
  w->line.n = 0;
  return rc;
}

int capw_open(capture_writer *w, const char *path, json_t *header) {
  memset(w, 0, sizeof *w);
  json_t *h = json_deep_copy(header);
  char *s = h && !json_object_set_new(h, "sluice_capture", json_integer(1))
                ? json_dumps(h, JSON_COMPACT | JSON_SORT_KEYS)
                : NULL;
  json_decref(h);
  if (!s) {
    errno = ENOMEM;
    return -1;
  }
  w->fp = fopen(path, "wb");
  int rc = !w->fp || tbuf_adds(&w->line, s) ? -1 : write_line(w);
  free(s);
  if (rc && w->fp) {
    int saved = errno;
    fclose(w->fp);
    w->fp = NULL;
    errno = saved;
  }
  return rc;
}

int capw_open_part(capture_writer *w, const char *path, json_t *header) {
  tbuf part = {0};
  tbuf_xprintf(&part, "%s.part", path);
  int rc = capw_open(w, part.p, header);
  w->path = xstrdup(path);
  w->part = tbuf_take(&part, NULL);
  if (rc) capw_abort(w);
  return rc;
}

void capw_abort(capture_writer *w) {
  int saved = errno;
  if (w->fp) fclose(w->fp);
  if (w->part) unlink(w->part);
  free(w->part);
  free(w->path);
  tbuf_free(&w->line);
  memset(w, 0, sizeof *w);
  errno = saved;
}

/* A capture line's start: the object and its time offset. */
static void line_at(jsonw *j, capture_writer *w, double t) {
  jw_init(j, &w->line);
  jw_begin_object(j);
  char num[40];
  snprintf(num, sizeof num, "%.6f", t);
  jw_key(j, "t");
  jw_raw(j, num, strlen(num));
}

int capw_piece(capture_writer *w, double t, const char *p, size_t n) {
  jsonw j;
  line_at(&j, w, t);
  jw_bytes_field(&j, "data", p, n);
  jw_end_object(&j);
  if (j.failed) {
    w->line.n = 0;
    errno = ENOMEM;
    return -1;
  }
  return write_line(w);
}

int capw_close(capture_writer *w, double t, const char *how) {
  int rc = 0;
  if (w->fp) {
    jsonw j;
    line_at(&j, w, t);
    jw_key(&j, "end");
    jw_string(&j, how, strlen(how));
    jw_end_object(&j);
    rc = j.failed ? -1 : write_line(w);
    if (fclose(w->fp) != 0) rc = -1;
    w->fp = NULL;
  }
  if (w->part && rc == 0 && rename(w->part, w->path) != 0) rc = -1;
  if (w->part && rc == 0) {
    free(w->part);
    w->part = NULL;
  }
  capw_abort(w); /* removes the .part file of a failed close */
  return rc;
}
