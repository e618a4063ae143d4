/*
 * reference.c: the reference library's answers.
 */
#include "reference.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"


void refrun_open(refrun *r, sluice_output *out, const char *filter, const char *options,
                 size_t options_len) {
  memset(r, 0, sizeof *r);
  r->out = out;
  sluice_output_reset(out);
  sluice_sink sink = sluice_output_sink(out);
  r->st = sluice_filter_new_json(&r->f, filter, options, options_len, &sink, NULL, &r->err);
}

static void take_error(refrun *r) {
  const sluice_error *e = sluice_get_error(r->f);
  r->err = *e;
  r->st = e->status;
}

/* The collector's own failure (it stops the filter as a callback would)
 * is reported as what it is. */
static int collector_failed(refrun *r) {
  if (sluice_output_status(r->out) == SLUICE_OK) return 0;
  r->st = r->err.status = SLUICE_NOMEM;
  snprintf(r->err.message, sizeof r->err.message, "out of memory collecting the output");
  r->err.offset = r->f ? sluice_fed(r->f) : 0;
  return 1;
}

sluice_status refrun_feed(refrun *r, const void *p, size_t n) {
  if (r->st != SLUICE_OK) return r->st;
  if (sluice_feed(r->f, p, n) != SLUICE_OK) {
    if (!collector_failed(r)) take_error(r);
  } else if (sluice_output_status(r->out) != SLUICE_OK) {
    r->st = SLUICE_NOMEM;
    snprintf(r->err.message, sizeof r->err.message, "out of memory collecting the output");
    r->err.offset = sluice_fed(r->f);
  }
  uint64_t h = r->f ? sluice_held(r->f) : 0;
  if (h > r->max_held) r->max_held = h;
  return r->st;
}

/* Whether jansson can read the value where the answer puts it: one level
 * down, inside the answer object (a value exactly at jansson's depth limit
 * reads alone but not there). Checked as the one element of an array. */
static char *value_readable_in_answer(const char *p, size_t n, char *why, size_t wl,
                                      int *nomem) {
  char *boxed = malloc(n + 2);
  if (!boxed) {
    *nomem = 1;
    return NULL;
  }
  boxed[0] = '[';
  if (n) memcpy(boxed + 1, p, n);
  boxed[n + 1] = ']';
  char *canon = value_canonical_soft(boxed, n + 2, why, wl, nomem);
  free(boxed);
  return canon;
}

sluice_status refrun_finish(refrun *r) {
  if (r->st != SLUICE_OK) return r->st;
  r->finished = 1;
  if (sluice_finish(r->f) != SLUICE_OK) {
    if (!collector_failed(r)) take_error(r);
    return r->st;
  }
  if (sluice_output_status(r->out) != SLUICE_OK) {
    r->st = SLUICE_NOMEM;
    snprintf(r->err.message, sizeof r->err.message, "out of memory collecting the output");
    return r->st;
  }
  /* A json value goes out as it is; one that jansson cannot read back (a
   * number past a double's range, nesting past its depth limit) is said,
   * never sent as a silently different value. */
  size_t nev = sluice_output_event_count(r->out);
  for (size_t i = 0; i < nev; i++) {
    const sluice_event *ev = sluice_output_event(r->out, i);
    if (ev->type != SLUICE_EV_VALUE || ev->name_len) continue; /* marked: said as such */
    char why[120];
    int nomem;
    char *canon = value_readable_in_answer(ev->data, ev->data_len, why, sizeof why, &nomem);
    if (!canon) {
      r->st = nomem ? SLUICE_NOMEM : SLUICE_JSON_INVALID;
      r->err.status = r->st;
      r->err.offset = sluice_fed(r->f);
      snprintf(r->err.message, sizeof r->err.message,
               nomem ? "out of memory checking the value"
                     : "the repaired JSON is valid but jansson cannot read it: %s",
               why);
    }
    free(canon);
  }
  return r->st;
}

void refrun_close(refrun *r) {
  sluice_free(r->f);
  r->f = NULL;
}

/* {"type": type, key: name, "offset": offset}: stop verdicts and repairs. */
static void named_at(jsonw *w, const char *type, const char *key, const sluice_event *ev) {
  jw_key(w, "type");
  jw_string(w, type, strlen(type));
  jw_key(w, key);
  jw_string(w, ev->name, ev->name_len);
  jw_key(w, "offset");
  jw_int(w, (int64_t)ev->offset);
}

static void type_key(jsonw *w, const char *type) {
  jw_key(w, "type");
  jw_string(w, type, strlen(type));
}

/* Provider events name their choice (in the offset field). */
static void choice_key(jsonw *w, const sluice_event *ev) {
  jw_key(w, "choice");
  jw_int(w, (int64_t)ev->offset);
}

/* The fields of a provider's event (the provider and pipeline filters) and
 * of a capture's and a detector's (capture, detect). */
static void provider_event_fields(jsonw *w, const sluice_event *ev) {
  switch (ev->type) {
  case SLUICE_EV_DELTA:
    type_key(w, "delta");
    choice_key(w, ev);
    jw_key(w, "kind");
    jw_string(w, ev->name, ev->name_len);
    if (ev->name_len == 9 && memcmp(ev->name, "arguments", 9) == 0) {
      jw_key(w, "index");
      jw_int(w, (int64_t)ev->length);
    }
    jw_bytes_field(w, "text", ev->data, ev->data_len);
    break;
  case SLUICE_EV_TOOL_CALL:
    type_key(w, "tool_call");
    choice_key(w, ev);
    jw_key(w, "index");
    jw_int(w, (int64_t)ev->length);
    jw_bytes_field(w, "id", ev->id ? ev->id : "", ev->id_len);
    jw_bytes_field(w, "name", ev->name ? ev->name : "", ev->name_len);
    break;
  case SLUICE_EV_FINISH:
    type_key(w, "finish");
    choice_key(w, ev);
    jw_bytes_field(w, "reason", ev->name, ev->name_len);
    break;
  case SLUICE_EV_USAGE:
    type_key(w, "usage");
    jw_bytes_field(w, "data", ev->data, ev->data_len);
    break;
  case SLUICE_EV_ERROR:
    type_key(w, "error");
    jw_bytes_field(w, "code", ev->name ? ev->name : "", ev->name_len);
    jw_bytes_field(w, "message", ev->data ? ev->data : "", ev->data_len);
    break;
  case SLUICE_EV_END:
    type_key(w, "end");
    jw_key(w, "truncated");
    jw_bool(w, !ev->complete);
    break;
  case SLUICE_EV_PROVIDER:
    type_key(w, "provider");
    jw_key(w, "endpoint");
    jw_string(w, ev->name, ev->name_len);
    jw_bytes_field(w, "model", ev->data, ev->data_len);
    jw_key(w, "framing");
    jw_string(w, ev->id, ev->id_len);
    jw_key(w, "offset");
    jw_int(w, (int64_t)ev->offset);
    jw_key(w, "complete");
    jw_bool(w, ev->complete);
    break;
  case SLUICE_EV_PIECE:
    type_key(w, "piece");
    jw_key(w, "offset");
    jw_int(w, (int64_t)ev->offset);
    jw_key(w, "t");
    if (ev->length == UINT64_MAX) jw_null(w);
    else jw_int(w, (int64_t)ev->length);
    jw_bytes_field(w, "data", ev->data, ev->data_len);
    break;
  case SLUICE_EV_META:
    type_key(w, "meta");
    jw_bytes_field(w, "name", ev->name, ev->name_len);
    jw_bytes_field(w, "data", ev->data, ev->data_len);
    break;
  default: break;
  }
}

int write_event(jsonw *w, const sluice_event *ev, const char *thought, size_t tl) {
  jw_begin_object(w);
  switch (ev->type) {
  case SLUICE_EV_THOUGHT: {
    size_t off = ev->offset <= tl ? (size_t)ev->offset : tl;
    size_t len = ev->length <= tl - off ? (size_t)ev->length : tl - off;
    jw_key(w, "type");
    jw_string(w, "thought", 7);
    jw_key(w, "tag");
    jw_string(w, ev->name, ev->name_len);
    jw_bytes_field(w, "text", thought + off, len);
    jw_key(w, "complete");
    jw_bool(w, ev->complete);
    break;
  }
  case SLUICE_EV_STOP: named_at(w, "stop", "reason", ev); break;
  case SLUICE_EV_SSE:
    jw_key(w, "type");
    jw_string(w, "event", 5);
    jw_bytes_field(w, "event", ev->name ? ev->name : "", ev->name_len);
    jw_bytes_field(w, "data", ev->data ? ev->data : "", ev->data_len);
    jw_bytes_field(w, "id", ev->id ? ev->id : "", ev->id_len);
    break;
  case SLUICE_EV_REPAIR: named_at(w, "repair", "kind", ev); break;
  case SLUICE_EV_RETRY:
    type_key(w, "retry");
    jw_key(w, "retry");
    jw_string(w, ev->data, ev->data_len); /* ASCII digits */
    break;
  case SLUICE_EV_RECORD:
    type_key(w, "record");
    jw_bytes_field(w, "data", ev->data, ev->data_len);
    jw_key(w, "complete");
    jw_bool(w, ev->complete);
    break;
  case SLUICE_EV_SNAPSHOT: /* a tail edit: FORMAT.md "json snapshots" */
    jw_key(w, "type");
    jw_string(w, "snapshot", 8);
    jw_key(w, "text_len");
    jw_int(w, (int64_t)ev->offset);
    jw_key(w, "drop");
    jw_int(w, (int64_t)ev->length);
    jw_bytes_field(w, "prepend", ev->data ? ev->data : "", ev->data_len);
    break;
  default: provider_event_fields(w, ev); break;
  }
  return jw_end_object(w);
}

int refrun_write(refrun *r, jsonw *w, int delta) {
  if (r->st != SLUICE_OK) {
    const char *code = sluice_status_name(r->st);
    jw_key(w, "ok");
    jw_bool(w, 0);
    jw_key(w, "error");
    jw_begin_object(w);
    jw_key(w, "code");
    jw_string(w, code, strlen(code));
    jw_key(w, "message");
    jw_string(w, r->err.message, strlen(r->err.message)); /* always valid UTF-8 */
    jw_key(w, "offset");
    jw_int(w, (int64_t)r->err.offset);
    return jw_end_object(w);
  }
  jw_key(w, "ok");
  jw_bool(w, 1);
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    size_t n;
    const char *p = sluice_output_channel(r->out, (sluice_channel)c, &n);
    size_t from = delta ? r->chan_sent[c] : 0;
    /* A delta may end inside a UTF-8 sequence (it then goes as base64):
     * the bytes are released the moment no rule can change them. */
    jw_bytes_field(w, sluice_channel_name((sluice_channel)c), p + from, n - from);
    r->chan_sent[c] = n;
  }
  size_t tl;
  const char *thought = sluice_output_channel(r->out, SLUICE_THOUGHT, &tl);
  size_t nev = sluice_output_event_count(r->out);
  const sluice_event *value = NULL;
  jw_key(w, "events");
  jw_begin_array(w);
  for (size_t i = delta ? r->ev_sent : 0; i < nev; i++) {
    const sluice_event *ev = sluice_output_event(r->out, i);
    if (ev->type == SLUICE_EV_VALUE) value = ev;
    else write_event(w, ev, thought, tl);
  }
  jw_end_array(w);
  r->ev_sent = nev;
  if (value && value->name_len) {
    /* valid JSON that jansson cannot load: the text is the answer */
    jw_key(w, "unloadable");
    jw_begin_object(w);
    jw_key(w, "reason");
    jw_string(w, value->name, value->name_len);
    jw_key(w, "offset");
    jw_int(w, (int64_t)value->offset);
    jw_end_object(w);
  } else if (value) {
    jw_key(w, "value");
    jw_raw(w, value->data, value->data_len); /* exact: big integers keep their digits */
  }
  if (value) {
    jw_key(w, "truncated");
    jw_bool(w, !value->complete);
  }
  if (r->finished && !delta) {
    jw_key(w, "max_held");
    jw_int(w, (int64_t)r->max_held);
  }
  return w->failed ? -1 : 0;
}

void answer_from_text(answer *a, const char *text, size_t n) {
  json_error_t jerr;
  json_t *o = json_loadb(text, n, JSON_ALLOW_NUL, &jerr);
  if (!o && json_error_code(&jerr) == json_error_numeric_overflow)
    o = json_loadb(text, n, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &jerr);
  if (!o) {
    if (json_error_code(&jerr) == json_error_out_of_memory) die("out of memory");
    answer_init(a);
    tbuf b = {0};
    tbuf_xprintf(&b, "the answer is not JSON jansson can read: %s", jerr.text);
    a->problem = tbuf_take(&b, NULL);
    return;
  }
  answer_from_json(a, o);
  json_decref(o);
}

void reference_answer(const char *filter, const char *options, const char *input,
                      const chunking *k, sluice_output *out, answer *a) {
  refrun r;
  refrun_open(&r, out, filter, options, strlen(options));
  size_t off = 0;
  for (size_t i = 0; i < k->n && r.st == SLUICE_OK; i++) {
    refrun_feed(&r, input + off, k->len[i]);
    off += k->len[i];
  }
  refrun_finish(&r);
  tbuf b = {0};
  jsonw w;
  jw_init(&w, &b);
  jw_begin_object(&w);
  refrun_write(&r, &w, 0);
  jw_end_object(&w);
  if (w.failed) die("out of memory writing an answer");
  answer_from_text(a, b.p, b.n);
  tbuf_free(&b);
  refrun_close(&r);
}

int feed_fd(sluice_filter *f, int fd, int flush_each, const char *cmd, sluice_status *st) {
  static char buf[65536];
  *st = SLUICE_OK;
  for (;;) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      fprintf(stderr, "sluice %s: cannot read standard input: %s\n", cmd, strerror(errno));
      return -1;
    }
    if (r == 0) break;
    *st = sluice_feed(f, buf, (size_t)r);
    if (*st != SLUICE_OK) return 0;
    if (flush_each && fflush(stdout) != 0) {
      *st = SLUICE_CALLBACK;
      return 0;
    }
  }
  *st = sluice_finish(f);
  return 0;
}

int filter_exit_status(sluice_filter *f, sluice_status st, const char *cmd) {
  if (st == SLUICE_CALLBACK) {
    fprintf(stderr, "sluice %s: cannot write output: %s\n", cmd, strerror(errno));
    return 1;
  }
  if (st != SLUICE_OK) {
    const sluice_error *e = sluice_get_error(f);
    fflush(stdout);
    fprintf(stderr, "sluice %s: %s at byte %llu: %s\n", cmd, sluice_status_name(st),
            (unsigned long long)e->offset, e->message);
    return 1;
  }
  return fflush_checked(cmd, stdout) ? 1 : 0;
}
