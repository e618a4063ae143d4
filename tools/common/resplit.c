/*
 * resplit.c: a capture's content re-emitted with other delta boundaries
 * (resplit.h).
 */
#include "resplit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

int rs_parse(const char *s, rs_spec *out, char *why, size_t wl) {
  memset(out, 0, sizeof *out);
  if (strcmp(s, "recorded") == 0) out->mode = RS_RECORDED;
  else if (strcmp(s, "whole") == 0) out->mode = RS_WHOLE;
  else if (strcmp(s, "codepoint") == 0) out->mode = RS_CODEPOINT;
  else if (strncmp(s, "random:", 7) == 0 && !parse_u64(s + 7, &out->seed)) out->mode = RS_RANDOM;
  else if (strncmp(s, "at:", 3) == 0) {
    out->mode = RS_AT;
    const char *p = s + 3;
    size_t cap = 0;
    while (*p) {
      char *end;
      unsigned long long v = strtoull(p, &end, 10);
      if (end == p || (*end && *end != ',') || (out->nat && v <= out->at[out->nat - 1])) {
        snprintf(why, wl, "at: takes ascending positions, like at:3,10");
        rs_spec_free(out);
        return -1;
      }
      if (out->nat == cap) {
        cap = cap ? cap * 2 : 8;
        out->at = xrealloc(out->at, xmul(cap, sizeof *out->at));
      }
      out->at[out->nat++] = v;
      p = *end ? end + 1 : end;
    }
    if (!out->nat) {
      snprintf(why, wl, "at: needs a position, like at:3");
      return -1;
    }
  } else {
    snprintf(why, wl, "must be recorded, whole, codepoint, random:SEED or at:P,..., not \"%.40s\"",
             s);
    return -1;
  }
  return 0;
}

void rs_at(rs_spec *out, const uint64_t *at, size_t n) {
  memset(out, 0, sizeof *out);
  out->mode = RS_AT;
  out->at = xmalloc(xmul(n ? n : 1, sizeof *at));
  if (n) memcpy(out->at, at, n * sizeof *at);
  out->nat = n;
}

void rs_spec_free(rs_spec *s) {
  free(s->at);
  s->at = NULL;
  s->nat = 0;
}

void rs_format(const rs_spec *s, char *buf, size_t n) {
  switch (s->mode) {
  case RS_RECORDED: snprintf(buf, n, "recorded"); break;
  case RS_WHOLE: snprintf(buf, n, "whole"); break;
  case RS_CODEPOINT: snprintf(buf, n, "codepoint"); break;
  case RS_RANDOM: snprintf(buf, n, "random:%llu", (unsigned long long)s->seed); break;
  case RS_AT: {
    size_t k = (size_t)snprintf(buf, n, "at:");
    for (size_t i = 0; i < s->nat && k + 1 < n; i++)
      k += (size_t)snprintf(buf + k, n - k, "%s%llu", i ? "," : "", (unsigned long long)s->at[i]);
    break;
  }
  }
}

int rs_supported(sluice_endpoint e) {
  return e == SLUICE_ENDPOINT_OPENAI_CHAT || e == SLUICE_ENDPOINT_ANTHROPIC;
}

static int is_delta(const sluice_event *ev) { return ev->type == SLUICE_EV_DELTA; }

int rs_load(rs_content *c, const char *body, size_t n, sluice_endpoint e, const char *model,
            char *why, size_t wl) {
  memset(c, 0, sizeof *c);
  c->endpoint = e;
  snprintf(c->model, sizeof c->model, "%s", model ? model : "");
  if (sluice_output_new(&c->events, NULL) != SLUICE_OK) die("out of memory");
  sluice_sink sink = sluice_output_sink(c->events);
  sluice_filter *f;
  sluice_provider_opts o;
  sluice_provider_opts_init(&o);
  o.provider = sluice_endpoint_provider(e);
  if (sluice_provider_new(&f, &o, &sink, NULL, NULL) != SLUICE_OK) die("out of memory");
  sluice_status st = sluice_once(f, body, n);
  if (st != SLUICE_OK) {
    snprintf(why, wl, "the body cannot be read: %s", sluice_get_error(f)->message);
    sluice_free(f);
    rs_free(c);
    return -1;
  }
  sluice_free(f);
  if (sluice_output_status(c->events) != SLUICE_OK) die("out of memory");
  for (size_t i = 0; i < sluice_output_event_count(c->events); i++) {
    const sluice_event *ev = sluice_output_event(c->events, i);
    if (is_delta(ev)) c->points += sluice_utf8_count(ev->data, ev->data_len);
  }
  return 0;
}

void rs_free(rs_content *c) {
  sluice_output_free(c->events);
  c->events = NULL;
}

/* ---------------- writing ---------------- */

typedef struct writing {
  const rs_spec *spec;
  sluice_rng rng;
  size_t next_at;  /* RS_AT: the first listed position not passed */
  uint64_t pos;    /* content positions written so far */
  tbuf *out;
  size_t **ends, *n_ends, cap_ends;
  sluice_sink sink; /* the writer's */
} writing;

static int on_write(void *user, const char *p, size_t n) {
  writing *w = user;
  tbuf_xadd(w->out, p, n);
  if (*w->n_ends == w->cap_ends) {
    w->cap_ends = w->cap_ends ? w->cap_ends * 2 : 64;
    *w->ends = xrealloc(*w->ends, xmul(w->cap_ends, sizeof **w->ends));
  }
  (*w->ends)[(*w->n_ends)++] = w->out->n;
  return 0;
}

/* 1 if the spec cuts before content position pos (pos > 0). */
static int cut_before(writing *w, uint64_t pos) {
  switch (w->spec->mode) {
  case RS_CODEPOINT: return 1;
  case RS_RANDOM: return sluice_rng_below(&w->rng, 4) == 0;
  case RS_AT:
    while (w->next_at < w->spec->nat && w->spec->at[w->next_at] < pos) w->next_at++;
    return w->next_at < w->spec->nat && w->spec->at[w->next_at] == pos;
  default: return 0;
  }
}

static int send_delta(writing *w, const sluice_event *like, const char *p, size_t n) {
  if (!n) return 0;
  sluice_event ev = *like;
  ev.data = p;
  ev.data_len = n;
  return w->sink.event(w->sink.user, &ev);
}

/* A run (one choice, kind and tool call) cut where the spec says. */
static int write_run(writing *w, const sluice_event *like, const char *p, size_t n) {
  size_t start = 0, i = 0;
  while (i < n) {
    /* the length of the code point at i (an invalid byte counts as one) */
    size_t len = 1;
    unsigned char b = (unsigned char)p[i];
    size_t want = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (want > 1 && i + want <= n && sluice_utf8_valid(p + i, want)) len = want;
    if (i > start && cut_before(w, w->pos)) {
      if (send_delta(w, like, p + start, i - start)) return 1;
      start = i;
    }
    i += len;
    w->pos++;
  }
  return send_delta(w, like, p + start, n - start);
}

static int same_run(const sluice_event *a, const sluice_event *b) {
  return a->offset == b->offset && a->length == b->length && a->name_len == b->name_len &&
         memcmp(a->name, b->name, a->name_len) == 0;
}

int rs_write(const rs_content *c, const rs_spec *spec, tbuf *out, size_t **ends,
             size_t *n_ends) {
  if (!rs_supported(c->endpoint)) return -1;
  writing w;
  memset(&w, 0, sizeof w);
  w.spec = spec;
  w.rng = sluice_rng_seed(spec->seed);
  w.out = out;
  w.ends = ends;
  w.n_ends = n_ends;
  w.cap_ends = *n_ends;
  sluice_writer_opts wo;
  sluice_writer_opts_init(&wo);
  wo.format = c->endpoint == SLUICE_ENDPOINT_ANTHROPIC ? SLUICE_WRITE_ANTHROPIC_SSE
                                                       : SLUICE_WRITE_OPENAI_SSE;
  if (c->model[0]) wo.model = c->model;
  sluice_writer *wr;
  if (sluice_writer_new(&wr, &wo, on_write, &w, NULL, NULL) != SLUICE_OK) die("out of memory");
  w.sink = sluice_writer_sink(wr);
  tbuf run = {0};
  const sluice_event *first = NULL; /* the run's first delta */
  int rc = 0;
  size_t count = sluice_output_event_count(c->events);
  for (size_t i = 0; i <= count && !rc; i++) {
    const sluice_event *ev = i < count ? sluice_output_event(c->events, i) : NULL;
    if (first && (!ev || !is_delta(ev) || !same_run(first, ev))) {
      rc = write_run(&w, first, run.p ? run.p : "", run.n);
      run.n = 0;
      first = NULL;
    }
    if (!ev || rc) continue;
    if (is_delta(ev)) {
      if (!first) first = ev;
      tbuf_xadd(&run, ev->data, ev->data_len);
    } else {
      rc = w.sink.event(w.sink.user, ev);
    }
  }
  tbuf_free(&run);
  if (!rc && sluice_writer_status(wr) != SLUICE_OK) rc = 1;
  sluice_writer_free(wr);
  return rc ? -1 : 0;
}
