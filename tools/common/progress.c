/*
 * progress.c: the progress line (progress.h).
 */
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

#include "util.h"

void progress_init(progress *p, const char *cmd, const char *unit, size_t total, int quiet) {
  p->on = !quiet && isatty(2);
  p->cmd = cmd;
  p->unit = unit;
  p->total = total;
  p->t0 = p->last = now_seconds();
  p->drawn = 0;
}

void progress_update(progress *p, size_t done, size_t failed) {
  if (!p->on) return;
  double now = now_seconds();
  if (now - p->last < 0.25 && done < p->total) return;
  p->last = now;
  char left[48] = "";
  if (done > 0 && done < p->total) {
    double secs = (now - p->t0) / (double)done * (double)(p->total - done);
    unsigned long s = (unsigned long)(secs + 0.5);
    snprintf(left, sizeof left, ", about %lu:%02lu left", s / 60, s % 60);
  }
  fprintf(stderr, "\r\033[Ksluice %s: %zu of %zu %s, %zu failed%s", p->cmd, done, p->total,
          p->unit, failed, left);
  fflush(stderr);
  p->drawn = 1;
}

void progress_clear(progress *p) {
  if (!p->on || !p->drawn) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  p->drawn = 0;
}
