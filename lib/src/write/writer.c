/*
 * writer.c: provider and pipeline events back into a stream a client reads
 * (sluice.h, writer): OpenAI chat completion chunks or Anthropic Messages
 * events, as server-sent events.
 *
 * It lives in libsluice (libc only) because it only writes: JSON strings are
 * escaped by hand, and the one JSON value it is given (a usage object) is
 * copied as the provider adapter compacted it. Reading JSON stays in the
 * kit.
 *
 * Every event's strings are whole UTF-8: a delta whose last character is
 * incomplete (a filter may release bytes in the middle of one) keeps it
 * back, per choice, kind and tool call, and the next delta of the same kind
 * completes it; at the end an incomplete tail is written as U+FFFD, like
 * every byte that is not UTF-8. The output is fixed by the events alone (no
 * clock, fixed ids), so every chunking of a capture writes the same bytes.
 */
#include "sluice_private.h"

#include <stdio.h>
#include <string.h>

#define MAX_CHOICES 64
#define MAX_TOOLS 256

typedef struct carry {
  size_t choice, index;
  char kind;
  unsigned char b[4];
  size_t n;
} carry;

struct sluice_writer {
  sluice_mem mem;
  sluice_write_fn write;
  void *user;
  sluice_write_format fmt;
  char *id, *model;
  size_t choice; /* Anthropic: the choice written */
  sluicep_buf out;  /* the event being written */
  sluicep_buf text; /* a delta's bytes with its carry in front */
  carry *carries;
  size_t ncarries, cap_carries;
  unsigned char role_sent[MAX_CHOICES / 8];
  sluice_status st;
  /* Anthropic */
  int started, finished;
  long nblocks;
  long block;      /* the open text or thinking block, -1 */
  char block_kind; /* 't' or 'r' */
  long tool_block[MAX_TOOLS];
  unsigned char tool_open[MAX_TOOLS];
};

/* ---------------- bytes ---------------- */

static int fail(sluice_writer *w, sluice_status st) {
  if (w->st == SLUICE_OK) w->st = st;
  return 1;
}

static int put(sluice_writer *w, const char *p, size_t n) {
  return sluicep_buf_append(&w->out, p, n) ? fail(w, SLUICE_NOMEM) : 0;
}

static int puts_(sluice_writer *w, const char *s) { return put(w, s, strlen(s)); }

/* literal text, a number, literal text */
static int putf(sluice_writer *w, const char *before, unsigned long long v, const char *after) {
  char tmp[24];
  int n = snprintf(tmp, sizeof tmp, "%llu", v);
  return puts_(w, before) || put(w, tmp, (size_t)n) || puts_(w, after);
}

/* A JSON string of p[0..n): escapes by hand, U+FFFD for bytes that are not
 * UTF-8. */
static int put_string(sluice_writer *w, const char *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  if (put(w, "\"", 1)) return 1;
  size_t run = 0, i = 0;
  while (i < n) {
    unsigned char c = (unsigned char)p[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      i++;
      continue;
    }
    size_t len = c >= 0x80 ? sluicep_u8_seq_len((const unsigned char *)p + i, n - i) : 1;
    if (c >= 0x80 && len) {
      i += len;
      continue;
    }
    if (put(w, p + run, i - run)) return 1;
    char esc[8];
    size_t el = 2;
    esc[0] = '\\';
    switch (c) {
    case '"': esc[1] = '"'; break;
    case '\\': esc[1] = '\\'; break;
    case '\n': esc[1] = 'n'; break;
    case '\r': esc[1] = 'r'; break;
    case '\t': esc[1] = 't'; break;
    default:
      if (c >= 0x80) {
        memcpy(esc, "\xEF\xBF\xBD", 3); /* U+FFFD */
        el = 3;
      } else {
        memcpy(esc, "\\u00", 4);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        el = 6;
      }
    }
    if (put(w, esc, el)) return 1;
    run = ++i;
  }
  return put(w, p + run, n - run) || put(w, "\"", 1);
}

static int flush_out(sluice_writer *w) {
  if (w->st != SLUICE_OK) return 1;
  int rc = w->write(w->user, w->out.ptr, w->out.len);
  w->out.len = 0;
  return rc ? fail(w, SLUICE_CALLBACK) : 0;
}

static carry *carry_of(sluice_writer *w, size_t choice, char kind, size_t index) {
  for (size_t i = 0; i < w->ncarries; i++) {
    carry *c = &w->carries[i];
    if (c->choice == choice && c->kind == kind && c->index == index) return c;
  }
  if (w->ncarries == w->cap_carries) {
    size_t cap = w->cap_carries ? w->cap_carries * 2 : 8;
    carry *v = sluicep_realloc(&w->mem, w->carries, cap * sizeof *v);
    if (!v) return fail(w, SLUICE_NOMEM), NULL;
    w->carries = v;
    w->cap_carries = cap;
  }
  carry *c = &w->carries[w->ncarries++];
  memset(c, 0, sizeof *c);
  c->choice = choice;
  c->kind = kind;
  c->index = index;
  return c;
}

/* The delta's bytes to write now: its carry in front, its own incomplete
 * last character kept back. NULL on failure; *n may be 0. */
static const char *whole_chars(sluice_writer *w, size_t choice, char kind, size_t index,
                               const char *p, size_t n, size_t *outn) {
  carry *c = carry_of(w, choice, kind, index);
  if (!c) return NULL;
  w->text.len = 0;
  if (sluicep_buf_append(&w->text, c->b, c->n) || sluicep_buf_append(&w->text, p, n))
    return fail(w, SLUICE_NOMEM), NULL;
  size_t t = sluice_utf8_tail(w->text.ptr ? w->text.ptr : "", w->text.len);
  memcpy(c->b, w->text.ptr + w->text.len - t, t);
  c->n = t;
  *outn = w->text.len - t;
  return w->text.ptr ? w->text.ptr : "";
}

/* ---------------- OpenAI chat completion chunks ---------------- */

static int oa_head(sluice_writer *w, size_t choice) {
  return puts_(w, "data: {\"id\":") || put_string(w, w->id, strlen(w->id)) ||
         puts_(w, ",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":") ||
         put_string(w, w->model, strlen(w->model)) || puts_(w, ",\"choices\":[") ||
         (choice == (size_t)-1 ? 0 : putf(w, "{\"index\":", choice, ",\"delta\":{"));
}

/* The role goes with the first delta of a choice; returns 1 if written. */
static int oa_role(sluice_writer *w, size_t choice, int *err) {
  if (choice >= MAX_CHOICES || (w->role_sent[choice / 8] & (1u << (choice % 8)))) return 0;
  w->role_sent[choice / 8] |= (unsigned char)(1u << (choice % 8));
  *err = puts_(w, "\"role\":\"assistant\"");
  return 1;
}

static int oa_tail(sluice_writer *w, const char *finish) {
  if (puts_(w, "},\"finish_reason\":")) return 1;
  if (finish ? put_string(w, finish, strlen(finish)) : puts_(w, "null")) return 1;
  return puts_(w, "}]}\n\n") || flush_out(w);
}

static const char *oa_reason(const char *r, size_t n) {
  static const char *const map[][2] = {
      {"end_turn", "stop"},          {"STOP", "stop"},           {"COMPLETE", "stop"},
      {"eos", "stop"},               {"completed", "stop"},      {"stop_sequence", "stop"},
      {"word", "stop"},              {"", "stop"},               {"max_tokens", "length"},
      {"MAX_TOKENS", "length"},      {"max_output_tokens", "length"}, {"limit", "length"},
      {"tool_use", "tool_calls"},    {"TOOL_CALL", "tool_calls"}, {"SAFETY", "content_filter"},
      {"RECITATION", "content_filter"}, {"refusal", "content_filter"},
      {"PROHIBITED_CONTENT", "content_filter"}, {"BLOCKLIST", "content_filter"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strlen(map[i][0]) == n && memcmp(map[i][0], r, n) == 0) return map[i][1];
  return NULL; /* the provider's own word */
}

static int oa_delta(sluice_writer *w, const sluice_event *ev) {
  char kind = ev->name[0] == 'a' ? 'a' : ev->name[0] == 't' ? 't' : ev->name[2] == 'f' ? 'f' : 'r';
  size_t n;
  const char *p = whole_chars(w, ev->offset, kind, kind == 'a' ? ev->length : 0, ev->data,
                              ev->data_len, &n);
  if (!p) return 1;
  if (n == 0) return 0;
  int err = 0;
  if (oa_head(w, ev->offset)) return 1;
  if (oa_role(w, ev->offset, &err) && (err || puts_(w, ","))) return 1;
  switch (kind) {
  case 't': err = puts_(w, "\"content\":") || put_string(w, p, n); break;
  case 'r': err = puts_(w, "\"reasoning_content\":") || put_string(w, p, n); break;
  case 'f': err = puts_(w, "\"refusal\":") || put_string(w, p, n); break;
  default:
    err = putf(w, "\"tool_calls\":[{\"index\":", ev->length, ",\"function\":{\"arguments\":") ||
          put_string(w, p, n) || puts_(w, "}}]");
  }
  return err || oa_tail(w, NULL);
}

static int oa_tool_call(sluice_writer *w, const sluice_event *ev) {
  int err = 0;
  if (oa_head(w, ev->offset)) return 1;
  if (oa_role(w, ev->offset, &err) && (err || puts_(w, ","))) return 1;
  return putf(w, "\"tool_calls\":[{\"index\":", ev->length, ",\"id\":") ||
         put_string(w, ev->id, ev->id_len) ||
         puts_(w, ",\"type\":\"function\",\"function\":{\"name\":") ||
         put_string(w, ev->name, ev->name_len) || puts_(w, ",\"arguments\":\"\"}}]") ||
         oa_tail(w, NULL);
}

static int oa_finish(sluice_writer *w, const sluice_event *ev) {
  char own[128];
  const char *r = oa_reason(ev->name, ev->name_len);
  if (!r) {
    size_t n = ev->name_len < sizeof own - 1 ? ev->name_len : sizeof own - 1;
    memcpy(own, ev->name, n);
    own[n] = '\0';
    r = own;
  }
  int err = 0;
  if (oa_head(w, ev->offset)) return 1;
  oa_role(w, ev->offset, &err);
  return err || oa_tail(w, r);
}

static int oa_usage(sluice_writer *w, const sluice_event *ev) {
  return oa_head(w, (size_t)-1) || puts_(w, "],\"usage\":") || put(w, ev->data, ev->data_len) ||
         puts_(w, "}\n\n") || flush_out(w);
}

static int oa_error(sluice_writer *w, const char *code, size_t cn, const char *msg, size_t mn) {
  return puts_(w, "data: {\"error\":{\"message\":") || put_string(w, msg, mn) ||
         puts_(w, ",\"type\":") || put_string(w, cn ? code : "error", cn ? cn : 5) ||
         puts_(w, "}}\n\n") || flush_out(w);
}

/* ---------------- Anthropic Messages events ---------------- */

static int an_event(sluice_writer *w, const char *type) {
  return puts_(w, "event: ") || puts_(w, type) || puts_(w, "\ndata: {\"type\":\"") ||
         puts_(w, type) || puts_(w, "\"");
}

static int an_end(sluice_writer *w) { return puts_(w, "}\n\n") || flush_out(w); }

static int an_block_stop(sluice_writer *w, long block) {
  return an_event(w, "content_block_stop") ||
         putf(w, ",\"index\":", (unsigned long long)block, "") || an_end(w);
}

/* Closes the open text or thinking block (and, with tools, every tool
 * block). */
static int an_close(sluice_writer *w, int tools) {
  if (w->block >= 0 && an_block_stop(w, w->block)) return 1;
  w->block = -1;
  for (size_t t = 0; tools && t < MAX_TOOLS; t++)
    if (w->tool_open[t]) {
      w->tool_open[t] = 0;
      if (an_block_stop(w, w->tool_block[t])) return 1;
    }
  return 0;
}

static int an_start(sluice_writer *w) {
  if (w->started && !w->finished) return 0;
  if (w->finished && (an_event(w, "message_stop") || an_end(w))) return 1;
  w->started = 1;
  w->finished = 0;
  w->nblocks = 0;
  w->block = -1;
  memset(w->tool_open, 0, sizeof w->tool_open);
  for (size_t t = 0; t < MAX_TOOLS; t++) w->tool_block[t] = -1;
  return an_event(w, "message_start") || puts_(w, ",\"message\":{\"id\":") ||
         put_string(w, w->id, strlen(w->id)) ||
         puts_(w, ",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":") ||
         put_string(w, w->model, strlen(w->model)) ||
         puts_(w, ",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":0,"
                  "\"output_tokens\":0}}") ||
         an_end(w);
}

static int an_tool_block(sluice_writer *w, size_t t, const char *id, size_t idn, const char *name,
                         size_t nn) {
  if (an_close(w, 0)) return 1;
  w->tool_block[t] = w->nblocks++;
  w->tool_open[t] = 1;
  return an_event(w, "content_block_start") ||
         putf(w, ",\"index\":", (unsigned long long)w->tool_block[t],
              ",\"content_block\":{\"type\":\"tool_use\",\"id\":") ||
         put_string(w, id, idn) || puts_(w, ",\"name\":") || put_string(w, name, nn) ||
         puts_(w, ",\"input\":{}}") || an_end(w);
}

static int an_delta(sluice_writer *w, const sluice_event *ev) {
  char kind = ev->name[0] == 'a' ? 'a' : ev->name[0] == 'r' && ev->name[2] == 'a' ? 'r' : 't';
  size_t n;
  const char *p = whole_chars(w, ev->offset, kind, kind == 'a' ? ev->length : 0, ev->data,
                              ev->data_len, &n);
  if (!p) return 1;
  if (n == 0) return 0;
  if (an_start(w)) return 1;
  if (kind == 'a') {
    size_t t = ev->length < MAX_TOOLS ? (size_t)ev->length : MAX_TOOLS - 1;
    if (w->tool_block[t] < 0 && an_tool_block(w, t, "", 0, "", 0)) return 1;
    return an_event(w, "content_block_delta") ||
           putf(w, ",\"index\":", (unsigned long long)w->tool_block[t],
                ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":") ||
           put_string(w, p, n) || puts_(w, "}") || an_end(w);
  }
  if (w->block < 0 || w->block_kind != kind) {
    if (an_close(w, 0)) return 1;
    w->block = w->nblocks++;
    w->block_kind = kind;
    if (an_event(w, "content_block_start") ||
        putf(w, ",\"index\":", (unsigned long long)w->block, ",\"content_block\":") ||
        puts_(w, kind == 'r' ? "{\"type\":\"thinking\",\"thinking\":\"\"}}"
                             : "{\"type\":\"text\",\"text\":\"\"}}") ||
        put(w, "\n\n", 2) || flush_out(w))
      return 1;
  }
  return an_event(w, "content_block_delta") ||
         putf(w, ",\"index\":", (unsigned long long)w->block, ",\"delta\":") ||
         puts_(w, kind == 'r' ? "{\"type\":\"thinking_delta\",\"thinking\":"
                              : "{\"type\":\"text_delta\",\"text\":") ||
         put_string(w, p, n) || puts_(w, "}") || an_end(w);
}

static const char *an_reason(const char *r, size_t n) {
  static const char *const map[][2] = {
      {"stop", "end_turn"},          {"STOP", "end_turn"},       {"COMPLETE", "end_turn"},
      {"eos", "end_turn"},           {"completed", "end_turn"},  {"", "end_turn"},
      {"word", "stop_sequence"},     {"length", "max_tokens"},   {"MAX_TOKENS", "max_tokens"},
      {"max_output_tokens", "max_tokens"}, {"limit", "max_tokens"},
      {"tool_calls", "tool_use"},    {"TOOL_CALL", "tool_use"},  {"content_filter", "refusal"},
      {"SAFETY", "refusal"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strlen(map[i][0]) == n && memcmp(map[i][0], r, n) == 0) return map[i][1];
  return NULL;
}

static int an_finish(sluice_writer *w, const sluice_event *ev) {
  const char *r = an_reason(ev->name, ev->name_len);
  if (an_start(w) || an_close(w, 1)) return 1;
  w->finished = 1;
  return an_event(w, "message_delta") || puts_(w, ",\"delta\":{\"stop_reason\":") ||
         (r ? put_string(w, r, strlen(r)) : put_string(w, ev->name, ev->name_len)) ||
         puts_(w, ",\"stop_sequence\":null},\"usage\":{\"output_tokens\":0}") || an_end(w);
}

static int an_error(sluice_writer *w, const char *code, size_t cn, const char *msg, size_t mn) {
  return an_event(w, "error") || puts_(w, ",\"error\":{\"type\":") ||
         put_string(w, cn ? code : "api_error", cn ? cn : 9) || puts_(w, ",\"message\":") ||
         put_string(w, msg, mn) || puts_(w, "}") || an_end(w);
}

/* ---------------- the sink ---------------- */

static const char truncated_msg[] = "the stream ended before its end marker (truncated)";

static int on_end(sluice_writer *w, const sluice_event *ev) {
  /* incomplete characters still kept back: U+FFFD */
  for (size_t i = 0; i < w->ncarries; i++) {
    carry *c = &w->carries[i];
    if (!c->n || (w->fmt == SLUICE_WRITE_ANTHROPIC_SSE && c->choice != w->choice)) continue;
    static const char *const kinds[] = {"text", "reasoning", "refusal", "arguments"};
    sluice_event d;
    memset(&d, 0, sizeof d);
    d.type = SLUICE_EV_DELTA;
    d.name = kinds[c->kind == 't' ? 0 : c->kind == 'r' ? 1 : c->kind == 'f' ? 2 : 3];
    d.data = "\xFF"; /* not UTF-8: written as U+FFFD */
    d.data_len = 1;
    d.offset = c->choice;
    d.length = c->index;
    c->n = 0;
    if (w->fmt == SLUICE_WRITE_OPENAI_SSE ? oa_delta(w, &d) : an_delta(w, &d)) return 1;
  }
  if (w->fmt == SLUICE_WRITE_OPENAI_SSE) {
    if (!ev->complete)
      return oa_error(w, "stream_truncated", 16, truncated_msg, sizeof truncated_msg - 1);
    return puts_(w, "data: [DONE]\n\n") || flush_out(w);
  }
  if (w->started && !w->finished && an_close(w, 1)) return 1;
  if (!ev->complete)
    return an_error(w, "stream_truncated", 16, truncated_msg, sizeof truncated_msg - 1);
  return an_start(w) || an_event(w, "message_stop") || an_end(w);
}

static int on_event(void *user, const sluice_event *ev) {
  sluice_writer *w = user;
  if (w->st != SLUICE_OK) return 1;
  int oa = w->fmt == SLUICE_WRITE_OPENAI_SSE;
  switch (ev->type) {
  case SLUICE_EV_DELTA: {
    /* text, reasoning, refusal, arguments; not the filters' other kinds */
    int wanted = (ev->name_len == 4 && memcmp(ev->name, "text", 4) == 0) ||
                 (ev->name_len == 9 && (memcmp(ev->name, "reasoning", 9) == 0 ||
                                        memcmp(ev->name, "arguments", 9) == 0)) ||
                 (ev->name_len == 7 && memcmp(ev->name, "refusal", 7) == 0);
    if (!wanted || (!oa && ev->offset != w->choice)) return 0;
    return oa ? oa_delta(w, ev) : an_delta(w, ev);
  }
  case SLUICE_EV_TOOL_CALL:
    if (oa) return oa_tool_call(w, ev);
    if (ev->offset != w->choice) return 0;
    return an_start(w) ||
           an_tool_block(w, ev->length < MAX_TOOLS ? (size_t)ev->length : MAX_TOOLS - 1, ev->id,
                         ev->id_len, ev->name, ev->name_len);
  case SLUICE_EV_FINISH:
    if (oa) return oa_finish(w, ev);
    return ev->offset == w->choice ? an_finish(w, ev) : 0;
  case SLUICE_EV_USAGE: return oa ? oa_usage(w, ev) : 0;
  case SLUICE_EV_ERROR:
    return oa ? oa_error(w, ev->name, ev->name_len, ev->data, ev->data_len)
              : an_error(w, ev->name, ev->name_len, ev->data, ev->data_len);
  case SLUICE_EV_END: return on_end(w, ev);
  default: return 0;
  }
}

sluice_sink sluice_writer_sink(sluice_writer *w) {
  sluice_sink s = {NULL, on_event, w};
  return s;
}

sluice_status sluice_writer_status(const sluice_writer *w) { return w->st; }

void sluice_writer_opts_init_size(sluice_writer_opts *o, size_t size) {
  sluice_writer_opts d;
  memset(&d, 0, sizeof d);
  sluicep_opts_init(o, size, &d, sizeof d);
}

void sluice_writer_free(sluice_writer *w) {
  if (!w) return;
  sluice_mem m = w->mem;
  sluicep_buf_free(&w->out);
  sluicep_buf_free(&w->text);
  sluicep_dealloc(&m, w->carries);
  sluicep_dealloc(&m, w->id);
  sluicep_dealloc(&m, w->model);
  sluicep_dealloc(&m, w);
}

sluice_status sluice_writer_new(sluice_writer **out, const sluice_writer_opts *opts,
                                sluice_write_fn write, void *user, const sluice_mem *mem,
                                sluice_error *err) {
  *out = NULL;
  sluice_writer_opts o;
  sluice_writer_opts_init(&o);
  sluice_status st =
      opts ? sluicep_opts_take(&o, sizeof o, opts, "sluice_writer_opts", err) : SLUICE_OK;
  if (st != SLUICE_OK) return st;
  if (o.format != SLUICE_WRITE_OPENAI_SSE && o.format != SLUICE_WRITE_ANTHROPIC_SSE)
    return sluicep_bad_option(err, "format must be openai-sse or anthropic-sse");
  if (!write) return sluicep_bad_option(err, "a write function is needed");
  sluice_mem m = sluicep_mem_or_default(mem);
  sluice_writer *w = sluicep_calloc(&m, sizeof *w);
  if (!w) return sluicep_nomem(err, "writer");
  w->mem = m;
  w->write = write;
  w->user = user;
  w->fmt = o.format;
  w->choice = o.choice;
  w->block = -1;
  sluicep_buf_init(&w->out, &w->mem);
  sluicep_buf_init(&w->text, &w->mem);
  const char *id = o.id                                  ? o.id
                   : o.format == SLUICE_WRITE_OPENAI_SSE ? "chatcmpl-sluice"
                                                         : "msg_sluice";
  w->id = sluicep_strdup(&w->mem, id);
  w->model = sluicep_strdup(&w->mem, o.model ? o.model : "sluice");
  if (!w->id || !w->model) {
    sluice_writer_free(w);
    return sluicep_nomem(err, "writer");
  }
  for (size_t t = 0; t < MAX_TOOLS; t++) w->tool_block[t] = -1;
  *out = w;
  return SLUICE_OK;
}
