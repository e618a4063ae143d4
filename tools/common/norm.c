/*
 * norm.c: streams in a form two protocols can be compared in (norm.h).
 */
#include "norm.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void outcome_init(outcome *o) { memset(o, 0, sizeof *o); }

void outcome_free(outcome *o) {
  for (int c = 0; c < NORM_MAX_CHOICES; c++) {
    nchoice *ch = &o->ch[c];
    tbuf_free(&ch->text);
    tbuf_free(&ch->reasoning);
    tbuf_free(&ch->refusal);
    for (int i = 0; i < NORM_MAX_CALLS; i++) tbuf_free(&ch->calls[i].args);
  }
  memset(o, 0, sizeof *o);
}

/* ---------------- finish reasons (rule 1) ---------------- */

typedef struct word {
  const char *theirs, *ours;
} word;

static const word openai_words[] = {{"stop", "stop"},
                                    {"length", "length"},
                                    {"tool_calls", "tool_calls"},
                                    {"function_call", "tool_calls"},
                                    {"content_filter", "content_filter"},
                                    {"error", "error"},
                                    {NULL, NULL}};
static const word anthropic_words[] = {{"end_turn", "stop"},       {"stop_sequence", "stop"},
                                       {"max_tokens", "length"},   {"tool_use", "tool_calls"},
                                       {"refusal", "content_filter"}, {"pause_turn", "stop"},
                                       {NULL, NULL}};
static const word responses_words[] = {{"completed", "stop"},
                                       {"max_output_tokens", "length"},
                                       {"content_filter", "content_filter"},
                                       {"failed", "error"},
                                       {"incomplete", "length"},
                                       {NULL, NULL}};
static const word gemini_words[] = {{"STOP", "stop"},
                                    {"MAX_TOKENS", "length"},
                                    {"SAFETY", "content_filter"},
                                    {"RECITATION", "content_filter"},
                                    {"BLOCKLIST", "content_filter"},
                                    {"PROHIBITED_CONTENT", "content_filter"},
                                    {"SPII", "content_filter"},
                                    {"MALFORMED_FUNCTION_CALL", "error"},
                                    {NULL, NULL}};
static const word ollama_words[] = {{"stop", "stop"}, {"length", "length"}, {"", "stop"},
                                    {"load", "stop"}, {NULL, NULL}};
static const word cohere_words[] = {{"COMPLETE", "stop"},        {"STOP_SEQUENCE", "stop"},
                                    {"MAX_TOKENS", "length"},    {"TOOL_CALL", "tool_calls"},
                                    {"ERROR", "error"},          {NULL, NULL}};
static const word llamacpp_words[] = {{"eos", "stop"},   {"word", "stop"}, {"", "stop"},
                                      {"limit", "length"}, {"stop", "stop"}, {NULL, NULL}};

static const word *words_of(sluice_endpoint e) {
  switch (e) {
  case SLUICE_ENDPOINT_ANTHROPIC: return anthropic_words;
  case SLUICE_ENDPOINT_OPENAI_RESPONSES: return responses_words;
  case SLUICE_ENDPOINT_GEMINI: return gemini_words;
  case SLUICE_ENDPOINT_OLLAMA_CHAT:
  case SLUICE_ENDPOINT_OLLAMA_GENERATE: return ollama_words;
  case SLUICE_ENDPOINT_COHERE: return cohere_words;
  case SLUICE_ENDPOINT_LLAMACPP: return llamacpp_words;
  default: return openai_words;
  }
}

void norm_finish(sluice_endpoint e, const char *reason, size_t n, char *out, size_t outn) {
  for (const word *w = words_of(e); w->theirs; w++)
    if (strlen(w->theirs) == n && memcmp(w->theirs, reason, n) == 0) {
      snprintf(out, outn, "%s", w->ours);
      return;
    }
  snprintf(out, outn, "raw:%.*s", (int)(n < 40 ? n : 40), reason);
}

/* ---------------- reading ---------------- */

static int is(const sluice_event *ev, const char *name) {
  return ev->name_len == strlen(name) && memcmp(ev->name, name, ev->name_len) == 0;
}

void outcome_add_event(outcome *o, const sluice_event *ev, sluice_endpoint e) {
  size_t c = (size_t)ev->offset;
  nchoice *ch = c < NORM_MAX_CHOICES ? &o->ch[c] : NULL;
  switch (ev->type) {
  case SLUICE_EV_DELTA:
    if (!ch) break;
    ch->seen = 1;
    if (is(ev, "text")) tbuf_xadd(&ch->text, ev->data, ev->data_len);
    else if (is(ev, "reasoning")) tbuf_xadd(&ch->reasoning, ev->data, ev->data_len);
    else if (is(ev, "refusal")) tbuf_xadd(&ch->refusal, ev->data, ev->data_len);
    else if (is(ev, "arguments") && ev->length < NORM_MAX_CALLS) {
      tbuf_xadd(&ch->calls[ev->length].args, ev->data, ev->data_len);
      if ((int)ev->length >= ch->ncalls) ch->ncalls = (int)ev->length + 1;
    }
    break;
  case SLUICE_EV_TOOL_CALL:
    if (!ch || ev->length >= NORM_MAX_CALLS) break;
    ch->seen = 1;
    snprintf(ch->calls[ev->length].name, sizeof ch->calls[0].name, "%.*s",
             (int)(ev->name_len < 120 ? ev->name_len : 120), ev->name);
    if ((int)ev->length >= ch->ncalls) ch->ncalls = (int)ev->length + 1;
    break;
  case SLUICE_EV_FINISH:
    if (!ch) break;
    ch->seen = 1;
    norm_finish(e, ev->name, ev->name_len, ch->finish, sizeof ch->finish);
    break;
  case SLUICE_EV_ERROR: o->errors++; break;
  case SLUICE_EV_END: o->complete = ev->complete; break;
  default: break;
  }
}

typedef struct reading {
  outcome *o;
  sluice_endpoint e;
} reading;

static int on_event(void *user, const sluice_event *ev) {
  reading *r = user;
  outcome_add_event(r->o, ev, r->e);
  return 0;
}

int outcome_read(outcome *o, const char *body, size_t n, sluice_endpoint e, char *why,
                 size_t wl) {
  reading r = {o, e};
  sluice_sink sink = {NULL, on_event, &r};
  sluice_provider_opts po;
  sluice_provider_opts_init(&po);
  po.provider = sluice_endpoint_provider(e);
  sluice_filter *f;
  if (sluice_provider_new(&f, &po, &sink, NULL, NULL) != SLUICE_OK) die("out of memory");
  sluice_status st = sluice_once(f, body, n);
  if (st != SLUICE_OK) snprintf(why, wl, "%s", sluice_get_error(f)->message);
  sluice_free(f);
  if (st != SLUICE_OK) o->failed = 1;
  else if (o->errors || !o->complete) o->failed = 1;
  return st == SLUICE_OK ? 0 : -1;
}

void outcome_settle(outcome *o, sluice_endpoint client) {
  int one_choice = client != SLUICE_ENDPOINT_OPENAI_CHAT &&
                   client != SLUICE_ENDPOINT_OPENAI_COMPLETIONS;
  int refusal_field = client == SLUICE_ENDPOINT_OPENAI_CHAT;
  for (int c = 0; c < NORM_MAX_CHOICES; c++) {
    nchoice *ch = &o->ch[c];
    if (ch->ncalls && strcmp(ch->finish, "stop") == 0) strcpy(ch->finish, "tool_calls");
    if (!refusal_field && ch->refusal.n) {
      tbuf_xadd(&ch->text, ch->refusal.p, ch->refusal.n);
      ch->refusal.n = 0;
    }
    if (one_choice && c > 0) {
      tbuf_free(&ch->text);
      tbuf_free(&ch->reasoning);
      tbuf_free(&ch->refusal);
      for (int i = 0; i < NORM_MAX_CALLS; i++) tbuf_free(&ch->calls[i].args);
      memset(ch, 0, sizeof *ch);
    }
  }
}

/* ---------------- comparing ---------------- */

/* A short, readable rendering of bytes for a message. */
static void shown(char *out, size_t outn, const tbuf *b) {
  size_t k = 0;
  if (outn < 8) return;
  out[k++] = '"';
  for (size_t i = 0; i < b->n && k + 6 < outn; i++) {
    unsigned char c = (unsigned char)b->p[i];
    if (c == '\n') k += (size_t)snprintf(out + k, outn - k, "\\n");
    else if (c == '"' || c == '\\') k += (size_t)snprintf(out + k, outn - k, "\\%c", c);
    else if (c < 0x20) k += (size_t)snprintf(out + k, outn - k, "\\x%02x", c);
    else out[k++] = (char)c;
  }
  if (b->n && k + 6 >= outn) k = outn - 6, k += (size_t)snprintf(out + k, outn - k, "...");
  out[k++] = '"';
  out[k] = '\0';
}

static int same_bytes(const tbuf *a, const tbuf *b) {
  return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, a->n) == 0);
}

/* Arguments equal as JSON values when both parse (rule 4), else as bytes. */
static int same_args(const tbuf *a, const tbuf *b) {
  if (same_bytes(a, b)) return 1;
  json_t *x = a->n ? json_loadb(a->p, a->n, JSON_DECODE_ANY, NULL) : NULL;
  json_t *y = b->n ? json_loadb(b->p, b->n, JSON_DECODE_ANY, NULL) : NULL;
  int same = x && y && json_equal(x, y);
  json_decref(x);
  json_decref(y);
  return same;
}

/* Where two texts part: both from a few bytes before the first that
 * differs (at a character), "(end)" for a text that ended there. */
static int field_differs(const char *what, int c, const tbuf *e, const tbuf *a, char *why,
                         size_t wl) {
  if (same_bytes(e, a)) return 0;
  size_t at = 0;
  while (at < e->n && at < a->n && e->p[at] == a->p[at]) at++;
  size_t from = at > 24 ? at - 24 : 0;
  while (from > 0 && from < e->n && ((unsigned char)e->p[from] & 0xC0) == 0x80) from--;
  tbuf es = {e->p ? e->p + from : NULL, e->n - from, 0, 0};
  tbuf as = {a->p ? a->p + from : NULL, a->n > from ? a->n - from : 0, 0, 0};
  char se[120], sa[120];
  if (es.n) shown(se, sizeof se, &es);
  else snprintf(se, sizeof se, "(end)");
  if (as.n) shown(sa, sizeof sa, &as);
  else snprintf(sa, sizeof sa, "(end)");
  snprintf(why, wl, "%s of choice %d: %zu bytes expected, %zu got; from byte %zu: expected %s, "
                    "got %s",
           what, c, e->n, a->n, from, se, sa);
  return 1;
}

static int calls_differ(int c, const nchoice *e, const nchoice *a, char *why, size_t wl) {
  if (e->ncalls != a->ncalls) {
    snprintf(why, wl, "tool calls of choice %d: expected %d, got %d%s", c, e->ncalls, a->ncalls,
             e->ncalls > 1 && a->ncalls == 1 ? " (parallel calls collapsed into one)" : "");
    return 1;
  }
  for (int i = 0; i < e->ncalls; i++) {
    if (strcmp(e->calls[i].name, a->calls[i].name) != 0) {
      snprintf(why, wl, "tool call %d of choice %d: expected %s, got %s", i, c,
               e->calls[i].name, a->calls[i].name);
      return 1;
    }
    if (!same_args(&e->calls[i].args, &a->calls[i].args)) {
      char se[160], sa[160];
      shown(se, sizeof se, &e->calls[i].args);
      shown(sa, sizeof sa, &a->calls[i].args);
      snprintf(why, wl, "arguments of tool call %d of choice %d: expected %s, got %s", i, c, se,
               sa);
      return 1;
    }
  }
  return 0;
}

int outcome_compare(const outcome *exp, const outcome *act, char *why, size_t wl) {
  for (int c = 0; c < NORM_MAX_CHOICES; c++) {
    const nchoice *e = &exp->ch[c], *a = &act->ch[c];
    if (field_differs("text", c, &e->text, &a->text, why, wl) ||
        field_differs("reasoning", c, &e->reasoning, &a->reasoning, why, wl) ||
        field_differs("refusal", c, &e->refusal, &a->refusal, why, wl) ||
        calls_differ(c, e, a, why, wl))
      return 1;
    if (!exp->failed && strcmp(e->finish, a->finish) != 0) {
      snprintf(why, wl, "finish of choice %d: expected %s, got %s", c,
               e->finish[0] ? e->finish : "(none)", a->finish[0] ? a->finish : "(none)");
      return 1;
    }
  }
  if (exp->failed != act->failed) {
    snprintf(why, wl, "%s", exp->failed ? "the stream failed upstream, but the client saw a "
                                          "normal completion"
                                        : "the client saw a failure the upstream never sent");
    return 1;
  }
  return 0;
}
