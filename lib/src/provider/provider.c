/*
 * provider.c: the provider filter: framing, provider detection, and the
 * one way every adapter reports deltas, tool calls, finish reasons, usage,
 * errors and the end of the stream (DESIGN.md §2 providers).
 *
 * The framing filter (sse, ndjson or chunks) runs inside, feeding its
 * events to on_frame(); each chunk's JSON goes to the adapter of its
 * provider, chosen by the option or detected from the first chunk. So the
 * provider's output is decided at the dispatch of each chunk, a point that
 * the content fixes, and it is split invariant because the framing is.
 */
#include "provider.h"

#include <string.h>

/* ---------------- reporting ---------------- */

static int fail_format(provider *pv, const char *what) {
  sluicep_fail(&pv->base, SLUICE_PROVIDER_FORMAT, pv->chunk_at, "the chunk at byte %llu: %s",
               (unsigned long long)pv->chunk_at, what);
  return 1;
}

int pv_bad_json(provider *pv, const jr *r) {
  /* r may read a part of the chunk: its position counts from the chunk */
  size_t at = (size_t)(r->start - pv->chunk) + r->at;
  sluicep_fail(&pv->base, SLUICE_PROVIDER_FORMAT, pv->chunk_at,
               "the chunk at byte %llu is not valid JSON: %s at byte %zu of its data",
               (unsigned long long)pv->chunk_at, r->why ? r->why : "bad JSON", at);
  return 1;
}

int pv_choice_ok(provider *pv, uint64_t choice) {
  if (choice < PV_MAX_CHOICES) {
    pv->st.ch[choice].seen = 1;
    return 1;
  }
  fail_format(pv, "a choice index past 63");
  return 0;
}

int pv_all_finished(const provider *pv) {
  int any = 0;
  for (size_t i = 0; i < PV_MAX_CHOICES; i++) {
    if (pv->st.ch[i].seen && !pv->st.ch[i].finished) return 0;
    any |= pv->st.ch[i].seen;
  }
  return any;
}

/* s decoded, pointing into the input or into scratch. */
static const char *decoded(provider *pv, const jr_str *s, size_t *n) {
  if (!s->esc) {
    *n = s->n;
    return s->p;
  }
  pv->scratch.len = 0;
  if (sluicep_buf_reserve(&pv->scratch, s->n + 1)) {
    sluicep_fail(&pv->base, SLUICE_NOMEM, pv->base.at, "out of memory reading a chunk");
    return NULL;
  }
  *n = jr_decode(s, pv->scratch.ptr);
  return pv->scratch.ptr;
}

static sluice_channel channel_of(const char *kind) {
  switch (kind[0]) {
  case 'r': return kind[2] == 'a' ? SLUICE_THOUGHT : SLUICE_TEXT; /* reasoning, refusal */
  case 'a': return SLUICE_OTHER;                                   /* arguments */
  default: return SLUICE_TEXT;
  }
}

int sluicep_delta(sluice_filter *f, size_t shown, size_t choice, const char *kind,
                  const char *p, size_t n, size_t index, sluice_channel ch) {
  if (n == 0) return 0;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_DELTA;
  ev.name = kind;
  ev.name_len = strlen(kind);
  ev.data = p;
  ev.data_len = n;
  ev.offset = choice;
  ev.length = index;
  if (sluicep_event(f, &ev)) return 1;
  return choice == shown && sluicep_emit(f, ch, p, n);
}

int pv_delta_bytes(provider *pv, size_t choice, const char *kind, const char *p, size_t n,
                   size_t index) {
  return sluicep_delta(&pv->base, pv->choice, choice, kind, p, n, index, channel_of(kind));
}

int pv_delta(provider *pv, size_t choice, const char *kind, const jr_str *s, size_t index) {
  size_t n;
  const char *p = decoded(pv, s, &n);
  return !p || pv_delta_bytes(pv, choice, kind, p, n, index);
}

long pv_tool(provider *pv, size_t choice, long index, const jr_str *id, const jr_str *name) {
  pv_choice *c = &pv->st.ch[choice];
  if (index < 0) index = c->ntools;
  if (index >= PV_MAX_TOOLS) {
    fail_format(pv, "a tool call index past 255");
    return -1;
  }
  c->last_tool = (int)index;
  if (c->started[index / 8] & (1u << (index % 8))) return index;
  c->started[index / 8] |= (unsigned char)(1u << (index % 8));
  if (index >= c->ntools) c->ntools = (uint16_t)(index + 1);
  /* id and name decoded one after the other: the id is copied first */
  size_t idn = 0, nn = 0;
  const char *idp = id ? decoded(pv, id, &idn) : "";
  if (!idp) return -1;
  sluicep_buf keep;
  sluicep_buf_init(&keep, &pv->base.mem);
  if (idn && sluicep_buf_append(&keep, idp, idn)) {
    sluicep_fail(&pv->base, SLUICE_NOMEM, pv->base.at, "out of memory reading a chunk");
    return -1;
  }
  const char *np = name ? decoded(pv, name, &nn) : "";
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_TOOL_CALL;
  ev.offset = choice;
  ev.length = (uint64_t)index;
  ev.id = idn ? keep.ptr : "";
  ev.id_len = idn;
  ev.name = np ? np : "";
  ev.name_len = np ? nn : 0;
  int rc = !np || sluicep_event(&pv->base, &ev);
  sluicep_buf_free(&keep);
  return rc ? -1 : index;
}

static int finish_event(provider *pv, size_t choice, const char *reason, size_t n) {
  pv->st.ch[choice].seen = pv->st.ch[choice].finished = 1;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_FINISH;
  ev.offset = choice;
  ev.name = reason;
  ev.name_len = n;
  return sluicep_event(&pv->base, &ev);
}

int pv_finish_lit(provider *pv, size_t choice, const char *reason) {
  return finish_event(pv, choice, reason, strlen(reason));
}

int pv_finish(provider *pv, size_t choice, const jr_str *reason) {
  size_t n;
  const char *p = decoded(pv, reason, &n);
  return !p || finish_event(pv, choice, p, n);
}

int pv_usage_text(provider *pv, const char *json, size_t n) {
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_USAGE;
  ev.data = json;
  ev.data_len = n;
  return sluicep_event(&pv->base, &ev);
}

/* JSON text p[0..n) (valid) without its insignificant whitespace, in
 * scratch; NULL when out of memory. */
static const char *compacted(provider *pv, const char *p, size_t n, size_t *out) {
  pv->scratch.len = 0;
  if (sluicep_buf_reserve(&pv->scratch, n + 1)) {
    sluicep_fail(&pv->base, SLUICE_NOMEM, pv->base.at, "out of memory reading a chunk");
    return NULL;
  }
  *out = jr_compact(p, n, pv->scratch.ptr);
  return pv->scratch.ptr;
}

int pv_usage(provider *pv, jr *r) {
  const char *p;
  size_t n;
  if (jr_peek(r) != JR_OBJECT) return !jr_skip(r) && pv_bad_json(pv, r);
  if (!jr_raw(r, &p, &n)) return pv_bad_json(pv, r);
  const char *c = compacted(pv, p, n, &n);
  return !c || pv_usage_text(pv, c, n);
}

int pv_arguments_json(provider *pv, size_t choice, const pv_span *value, size_t index) {
  size_t n;
  const char *c = compacted(pv, value->p, value->n, &n);
  return !c || pv_delta_bytes(pv, choice, "arguments", c, n, index);
}

int pv_error_strs(provider *pv, const jr_str *code, const jr_str *message) {
  pv->st.error = 1;
  /* Decoded into one buffer, code first (neither is long). */
  size_t cn = code ? code->n : 0, mn = message ? message->n : 0;
  pv->scratch.len = 0;
  if (sluicep_buf_reserve(&pv->scratch, cn + mn + 1)) {
    sluicep_fail(&pv->base, SLUICE_NOMEM, pv->base.at, "out of memory reading a chunk");
    return 1;
  }
  char *b = pv->scratch.ptr;
  size_t cl = code ? jr_decode(code, b) : 0, ml = message ? jr_decode(message, b + cl) : 0;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_ERROR;
  ev.name = b;
  ev.name_len = cl;
  ev.data = b + cl;
  ev.data_len = ml;
  return sluicep_event(&pv->base, &ev);
}

int pv_error(provider *pv, jr *r) {
  jr_str msg = {"", 0, 0}, code = {"", 0, 0};
  int t = jr_peek(r);
  if (t == JR_STRING) {
    jr_string(r, &msg);
  } else if (t == JR_OBJECT) {
    /* the code: "code" when a string, else "type", else "status" */
    int have_code = 0, have_type = 0, have_status = 0;
    jr_str type = code, status = code, k;
    const char *num = NULL;
    size_t numn = 0, count = 0;
    jr_enter_object(r);
    while (jr_member(r, &count, &k)) {
      if (jr_is(&k, "message") && jr_peek(r) == JR_STRING) jr_string(r, &msg);
      else if (jr_is(&k, "code") && jr_peek(r) == JR_STRING) have_code = jr_string(r, &code);
      else if (jr_is(&k, "code") && jr_peek(r) == JR_NUMBER) jr_raw(r, &num, &numn);
      else if (jr_is(&k, "type") && jr_peek(r) == JR_STRING) have_type = jr_string(r, &type);
      else if (jr_is(&k, "status") && jr_peek(r) == JR_STRING)
        have_status = jr_string(r, &status);
      else if (!jr_skip(r)) break;
    }
    if (!have_code) {
      if (have_type) code = type;
      else if (have_status) code = status;
      else if (num) code = (jr_str){num, numn, 0};
    }
  } else if (t == JR_NULL || t == JR_FALSE) {
    return !jr_skip(r) && pv_bad_json(pv, r);
  } else if (!jr_skip(r)) {
    return pv_bad_json(pv, r);
  }
  if (r->why) return pv_bad_json(pv, r);
  return pv_error_strs(pv, &code, &msg);
}

int pv_error_span(provider *pv, const pv_span *s) {
  jr r;
  pv_span_reader(s, &r);
  return pv_error(pv, &r);
}

int pv_slot(provider *pv, const pv_span *s, uint64_t *i, const char *what) {
  if (!pv_span_uint(s, i)) *i = 0;
  if (*i < PV_MAX_SLOTS) return 1;
  sluicep_fail(&pv->base, SLUICE_PROVIDER_FORMAT, pv->chunk_at,
               "the chunk at byte %llu: %s past 255", (unsigned long long)pv->chunk_at, what);
  return 0;
}

/* ---------------- member spans ---------------- */

int pv_members(jr *r, const char *const *keys, pv_span *out) {
  size_t nk = 0, count = 0;
  while (keys[nk]) out[nk++].p = NULL;
  if (!jr_enter_object(r)) return -1;
  jr_str k;
  while (jr_member(r, &count, &k)) {
    size_t i = 0;
    while (i < nk && !jr_is(&k, keys[i])) i++;
    if (i < nk) {
      if (!jr_raw(r, &out[i].p, &out[i].n)) return -1;
    } else if (!jr_skip(r)) {
      return -1;
    }
  }
  return r->why ? -1 : 0;
}

void pv_span_reader(const pv_span *s, jr *r) { jr_init(r, s->p, s->p ? s->n : 0); }

int pv_span_str(const pv_span *s, jr_str *out) {
  if (!s->p || s->p[0] != '"') return 0;
  jr r;
  pv_span_reader(s, &r);
  return jr_string(&r, out);
}

int pv_span_uint(const pv_span *s, uint64_t *v) {
  if (!s->p) return 0;
  jr r;
  pv_span_reader(s, &r);
  return jr_uint(&r, v);
}

int pv_span_true(const pv_span *s) { return s->p && s->n == 4 && memcmp(s->p, "true", 4) == 0; }

/* ---------------- detection ---------------- */

static const char *const anthropic_types[] = {"message_start", "message_delta", "message_stop",
                                              "content_block_start", "content_block_delta",
                                              "content_block_stop", "ping", NULL};
static const char *const cohere_types[] = {"message-start", "message-end", "content-start",
                                           "content-delta", "content-end", "tool-plan-delta",
                                           "tool-call-start", "tool-call-delta", "tool-call-end",
                                           "citation-start", "citation-end", NULL};

static int one_of(const jr_str *s, const char *const *list) {
  for (size_t i = 0; list[i]; i++)
    if (jr_is(s, list[i])) return 1;
  return 0;
}

/* ---------------- endpoints ---------------- */

static const struct {
  const char *name, *path;
  sluice_provider_kind provider;
} endpoints[SLUICE_ENDPOINT_COUNT] = {
    {"unknown", "", SLUICE_PROVIDER_AUTO},
    {"openai-chat", "/v1/chat/completions", SLUICE_PROVIDER_OPENAI},
    {"openai-completions", "/v1/completions", SLUICE_PROVIDER_COMPLETIONS},
    {"openai-responses", "/v1/responses", SLUICE_PROVIDER_RESPONSES},
    {"anthropic", "/v1/messages", SLUICE_PROVIDER_ANTHROPIC},
    {"gemini", "/v1beta/models/{model}:streamGenerateContent", SLUICE_PROVIDER_GEMINI},
    {"ollama-chat", "/api/chat", SLUICE_PROVIDER_OLLAMA},
    {"ollama-generate", "/api/generate", SLUICE_PROVIDER_OLLAMA},
    {"cohere", "/v2/chat", SLUICE_PROVIDER_COHERE},
    {"llamacpp", "/completion", SLUICE_PROVIDER_LLAMACPP},
};

const char *sluice_endpoint_name(sluice_endpoint e) {
  return (unsigned)e < SLUICE_ENDPOINT_COUNT ? endpoints[e].name : "unknown";
}

sluice_endpoint sluice_endpoint_from_name(const char *name) {
  for (int e = 1; name && e < SLUICE_ENDPOINT_COUNT; e++)
    if (strcmp(endpoints[e].name, name) == 0) return (sluice_endpoint)e;
  return SLUICE_ENDPOINT_UNKNOWN;
}

const char *sluice_endpoint_path(sluice_endpoint e) {
  return (unsigned)e < SLUICE_ENDPOINT_COUNT ? endpoints[e].path : "";
}

sluice_provider_kind sluice_endpoint_provider(sluice_endpoint e) {
  return (unsigned)e < SLUICE_ENDPOINT_COUNT ? endpoints[e].provider : SLUICE_PROVIDER_AUTO;
}

sluice_framing sluice_endpoint_framing(sluice_endpoint e) {
  return e == SLUICE_ENDPOINT_OLLAMA_CHAT || e == SLUICE_ENDPOINT_OLLAMA_GENERATE
             ? SLUICE_FRAMING_NDJSON
             : SLUICE_FRAMING_SSE;
}

static int path_ends(const char *p, size_t n, const char *suffix) {
  size_t k = strlen(suffix);
  return n >= k && memcmp(p + n - k, suffix, k) == 0;
}

sluice_endpoint sluice_endpoint_of_path(const char *path, size_t n) {
  const char *q = memchr(path, '?', n);
  if (q) n = (size_t)(q - path);
  /* the longer suffixes first: /chat/completions ends like /completions */
  static const struct {
    const char *suffix;
    sluice_endpoint e;
  } by_end[] = {{"/chat/completions", SLUICE_ENDPOINT_OPENAI_CHAT},
                {"/completions", SLUICE_ENDPOINT_OPENAI_COMPLETIONS},
                {"/responses", SLUICE_ENDPOINT_OPENAI_RESPONSES},
                {"/messages", SLUICE_ENDPOINT_ANTHROPIC},
                {":streamGenerateContent", SLUICE_ENDPOINT_GEMINI},
                {"/api/chat", SLUICE_ENDPOINT_OLLAMA_CHAT},
                {"/api/generate", SLUICE_ENDPOINT_OLLAMA_GENERATE},
                {"/v2/chat", SLUICE_ENDPOINT_COHERE},
                {"/completion", SLUICE_ENDPOINT_LLAMACPP}};
  for (size_t i = 0; i < sizeof by_end / sizeof by_end[0]; i++)
    if (path_ends(path, n, by_end[i].suffix)) return by_end[i].e;
  return SLUICE_ENDPOINT_UNKNOWN;
}

/* ---------------- detection ---------------- */

/* The model a chunk names, decoded into out (cut at a character). */
static void model_of(const pv_span *m, char *out, size_t cap) {
  jr_str s;
  out[0] = '\0';
  if (!pv_span_str(m, &s)) return;
  char buf[1024];
  if (s.n >= sizeof buf) s.n = sizeof buf - 1; /* decoding only shortens */
  size_t n = s.esc ? jr_decode(&s, buf) : s.n;
  const char *src = s.esc ? buf : s.p;
  if (n >= cap) n = cap - 1;
  n -= sluice_utf8_tail(src, n);
  memcpy(out, src, n);
  out[n] = '\0';
}

/* The model: "model", else the "model" of the "message" (Anthropic) or
 * "response" (Responses) object, else "modelVersion" (Gemini). */
static void note_model(const pv_span *m, char *out, size_t cap) {
  enum { MODEL, MESSAGE, RESPONSE, VERSION };
  static const char *const inner[] = {"model", NULL};
  pv_span in[1];
  model_of(&m[MODEL], out, cap);
  for (int k = MESSAGE; k <= RESPONSE && !out[0]; k++) {
    if (!m[k].p || m[k].p[0] != '{') continue;
    jr r;
    pv_span_reader(&m[k], &r);
    if (pv_members(&r, inner, in) == 0) model_of(&in[0], out, cap);
  }
  if (!out[0]) model_of(&m[VERSION], out, cap);
}

/* The endpoint of a chunk from its members, in a fixed order of evidence
 * (sluice.h, sluice_detect_chunk); UNKNOWN when it shows none, -1 on bad
 * JSON. The model it names goes to model (when not NULL). */
static int detect(const char *p, size_t n, char *model, size_t cap) {
  static const char *const keys[] = {"model", "message", "response", "modelVersion", "type",
                                     "object", "choices", "candidates", "usageMetadata",
                                     "promptFeedback", "done", "content", "stop", "error",
                                     "sequence_number", "code", NULL};
  enum { MODEL, MESSAGE, RESPONSE, VERSION, TYPE, OBJECT, CHOICES, CANDIDATES, USAGEMETA,
         FEEDBACK, DONE, CONTENT, STOP, ERROR, SEQ, CODE };
  pv_span m[16];
  jr r;
  jr_init(&r, p, n);
  if (pv_members(&r, keys, m)) return -1;
  if (model) note_model(m, model, cap);
  jr_str s;
  if (pv_span_str(&m[TYPE], &s)) {
    if (one_of(&s, anthropic_types)) return SLUICE_ENDPOINT_ANTHROPIC;
    if (one_of(&s, cohere_types)) return SLUICE_ENDPOINT_COHERE;
    if (s.n > 9 && memcmp(s.p, "response.", 9) == 0) return SLUICE_ENDPOINT_OPENAI_RESPONSES;
    if (jr_is(&s, "error")) {
      if (m[ERROR].p) return SLUICE_ENDPOINT_ANTHROPIC;
      if (m[SEQ].p || m[CODE].p || m[MESSAGE].p) return SLUICE_ENDPOINT_OPENAI_RESPONSES;
      return SLUICE_ENDPOINT_UNKNOWN;
    }
  }
  if (pv_span_str(&m[OBJECT], &s)) {
    if (jr_is(&s, "chat.completion.chunk")) return SLUICE_ENDPOINT_OPENAI_CHAT;
    if (jr_is(&s, "text_completion")) return SLUICE_ENDPOINT_OPENAI_COMPLETIONS;
  }
  if (m[CHOICES].p && m[CHOICES].p[0] == '[') {
    /* the first choice: a delta (chat) or a text (completions) */
    jr c;
    size_t count = 0, mc = 0;
    pv_span_reader(&m[CHOICES], &c);
    jr_enter_array(&c);
    if (jr_element(&c, &count) && jr_enter_object(&c)) {
      jr_str k;
      while (jr_member(&c, &mc, &k)) {
        if (jr_is(&k, "text")) return SLUICE_ENDPOINT_OPENAI_COMPLETIONS;
        if (jr_is(&k, "delta")) return SLUICE_ENDPOINT_OPENAI_CHAT;
        jr_skip(&c);
      }
    }
    return SLUICE_ENDPOINT_OPENAI_CHAT; /* choices: [] (a usage chunk) */
  }
  if (m[CANDIDATES].p || m[USAGEMETA].p || m[FEEDBACK].p) return SLUICE_ENDPOINT_GEMINI;
  if (m[DONE].p && (m[DONE].p[0] == 't' || m[DONE].p[0] == 'f'))
    return m[MESSAGE].p ? SLUICE_ENDPOINT_OLLAMA_CHAT : SLUICE_ENDPOINT_OLLAMA_GENERATE;
  if (m[CONTENT].p && m[STOP].p && (m[STOP].p[0] == 't' || m[STOP].p[0] == 'f'))
    return SLUICE_ENDPOINT_LLAMACPP;
  return SLUICE_ENDPOINT_UNKNOWN;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

sluice_status sluice_detect_chunk(const void *json, size_t n, sluice_detection *out) {
  const char *p = json;
  memset(out, 0, sizeof *out);
  size_t a = 0;
  while (a < n && is_space(p[a])) a++;
  if (a == n || p[a] != '{') return SLUICE_PROVIDER_FORMAT;
  jr v;
  jr_init(&v, p, n);
  if (!jr_skip(&v) || !jr_end(&v)) return SLUICE_PROVIDER_FORMAT;
  int e = detect(p, n, out->model, sizeof out->model);
  if (e < 0) return SLUICE_PROVIDER_FORMAT;
  out->endpoint = (sluice_endpoint)e;
  return SLUICE_OK;
}

static const pv_adapter *adapter_of(int kind) {
  static const pv_adapter *const all[] = {&pv_openai, &pv_completions, &pv_responses,
                                          &pv_anthropic, &pv_ollama, &pv_gemini, &pv_cohere,
                                          &pv_llamacpp};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if ((int)all[i]->kind == kind) return all[i];
  return NULL;
}

/* An error chunk that shows no provider ({"error": ...} before anything
 * else): reported, and detection goes on with the next chunk. */
static int generic_error(provider *pv, const char *p, size_t n) {
  static const char *const keys[] = {"error", NULL};
  pv_span m[1];
  jr r;
  jr_init(&r, p, n);
  if (pv_members(&r, keys, m)) return pv_bad_json(pv, &r);
  if (!m[0].p) return fail_format(pv, "no provider sends this chunk (choose one with the "
                                      "provider option)");
  pv_span_reader(&m[0], &r);
  return pv_error(pv, &r);
}

/* ---------------- chunks ---------------- */

/* The detector's one event (sluice_detect_new). */
static int told(provider *pv, sluice_endpoint e, int complete) {
  static const char *const framings[] = {"auto", "sse", "ndjson", "chunks"};
  pv->told = 1;
  const char *name = sluice_endpoint_name(e), *fr = framings[pv->framing_kind];
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_PROVIDER;
  ev.name = name;
  ev.name_len = strlen(name);
  ev.data = pv->model;
  ev.data_len = strlen(pv->model);
  ev.id = fr;
  ev.id_len = strlen(fr);
  ev.offset = complete ? pv->chunk_at : 0;
  ev.complete = complete;
  return sluicep_event(&pv->base, &ev);
}

/* One chunk's data (an SSE event's data or a JSON line). `complete` is 0
 * for the chunks framing's last line without its LF: if it cannot be
 * read, it is the cut-off end of a truncated recording, not an error. */
static int on_chunk(provider *pv, const char *p, size_t n, uint64_t at, int complete) {
  if (pv->told) return 0; /* a detector reads no further */
  pv->chunk_at = at;
  pv->chunk = p;
  size_t a = 0, b = n;
  while (a < b && is_space(p[a])) a++;
  while (b > a && is_space(p[b - 1])) b--;
  if (a == b) return 0; /* no data */
  if (p[a] != '{') {
    if (b - a == 6 && memcmp(p + a, "[DONE]", 6) == 0) {
      pv->st.done = 1;
      return 0;
    }
    if (!complete) return sluicep_emit(&pv->base, SLUICE_DROPPED, p, n);
    return fail_format(pv, "not a JSON object");
  }
  if (!complete) {
    /* validated before anything of it is reported */
    jr v;
    jr_init(&v, p, n);
    if (!jr_skip(&v) || !jr_end(&v)) return sluicep_emit(&pv->base, SLUICE_DROPPED, p, n);
  }
  if (!pv->ad) {
    int e = detect(p, n, pv->detect_only ? pv->model : NULL, sizeof pv->model);
    if (e < 0) {
      jr r;
      jr_init(&r, p, n);
      jr_skip(&r);
      return pv_bad_json(pv, &r);
    }
    if (pv->detect_only) return e == SLUICE_ENDPOINT_UNKNOWN ? 0 : told(pv, (sluice_endpoint)e, 1);
    if (e == SLUICE_ENDPOINT_UNKNOWN) return generic_error(pv, p, n);
    pv->endpoint = (sluice_endpoint)e;
    pv->ad = adapter_of(sluice_endpoint_provider(pv->endpoint));
  }
  if (pv->st.done && (pv->ad == &pv_openai || pv->ad == &pv_completions))
    return 0; /* a client stops reading at [DONE] */
  jr r;
  jr_init(&r, p, n);
  pv->st.any = 1;
  if (pv->ad->chunk(pv, &r)) return 1;
  if (!jr_end(&r)) return pv_bad_json(pv, &r);
  return 0;
}

/* The framing's sink. */
static int on_frame_event(void *user, const sluice_event *ev) {
  provider *pv = user;
  if (ev->type == SLUICE_EV_SSE) return on_chunk(pv, ev->data, ev->data_len, ev->offset, 1);
  if (ev->type == SLUICE_EV_RECORD)
    return on_chunk(pv, ev->data, ev->data_len, ev->offset, ev->complete);
  return 0; /* retry */
}

static int on_frame_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  provider *pv = user;
  return sluicep_emit(&pv->base, ch, p, n);
}

/* ---------------- the filter ---------------- */

/* The framing, once known. Non-zero on failure. */
static int open_framing(provider *pv, sluice_framing kind) {
  sluice_sink sink = {on_frame_emit, on_frame_event, pv};
  sluice_error err;
  sluice_status st;
  pv->framing_kind = kind;
  if (pv->spare[kind]) { /* already reset */
    pv->framing = pv->spare[kind];
    pv->spare[kind] = NULL;
    return 0;
  }
  if (kind == SLUICE_FRAMING_SSE) {
    sluice_sse_opts o;
    sluice_sse_opts_init(&o);
    o.max_line = pv->max_line;
    o.max_event = pv->max_event;
    st = sluice_sse_new(&pv->framing, &o, &sink, &pv->base.mem, &err);
  } else {
    sluice_lines_opts o;
    sluice_lines_opts_init(&o);
    o.max_line = pv->max_line;
    st = kind == SLUICE_FRAMING_NDJSON
             ? sluice_ndjson_new(&pv->framing, &o, &sink, &pv->base.mem, &err)
             : sluice_chunks_new(&pv->framing, &o, &sink, &pv->base.mem, &err);
  }
  if (st != SLUICE_OK) sluicep_fail(&pv->base, st, pv->base.at, "%s", err.message);
  return st != SLUICE_OK;
}

/* The framing's sticky error becomes the provider's (offsets are the same
 * stream's). */
static sluice_status framing_status(provider *pv, sluice_status st) {
  if (st != SLUICE_OK && pv->base.err.status == SLUICE_OK) {
    const sluice_error *e = sluice_get_error(pv->framing);
    sluicep_fail(&pv->base, e->status, e->offset, "%s", e->message);
  }
  return pv->base.err.status;
}

#define HEAD_MAX 4096 /* leading whitespace looked at to tell the framing */

static sluice_status provider_feed(sluice_filter *f, const char *p, size_t n) {
  provider *pv = (provider *)f;
  if (pv->told) return SLUICE_OK; /* a detector reads no further */
  if (!pv->framing) {
    /* auto: JSON lines when the first byte that is not whitespace is '{' */
    size_t i = 0;
    while (i < n && is_space(p[i]) && pv->head.len + i < HEAD_MAX) i++;
    if (i == n) {
      if (sluicep_buf_append(&pv->head, p, n))
        return sluicep_fail(f, SLUICE_NOMEM, f->at, "out of memory");
      return SLUICE_OK;
    }
    int json = pv->head.len + i < HEAD_MAX && p[i] == '{';
    if (open_framing(pv, json ? SLUICE_FRAMING_CHUNKS : SLUICE_FRAMING_SSE)) return f->err.status;
    if (pv->head.len) {
      sluice_status st = sluice_feed(pv->framing, pv->head.ptr, pv->head.len);
      sluicep_buf_free(&pv->head);
      if (framing_status(pv, st) != SLUICE_OK) return f->err.status;
    }
  }
  return framing_status(pv, sluice_feed(pv->framing, p, n));
}

static int end_event(provider *pv) {
  int complete;
  if (pv->ad) complete = pv->ad->complete(pv);
  else complete = pv->st.done; /* "[DONE]" alone: an empty OpenAI stream */
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_END;
  ev.complete = complete;
  return sluicep_event(&pv->base, &ev);
}

static sluice_status provider_finish(sluice_filter *f) {
  provider *pv = (provider *)f;
  if (!pv->framing) {
    /* nothing but whitespace: SSE, whose blank lines dispatch nothing */
    if (open_framing(pv, pv->framing_kind ? pv->framing_kind : SLUICE_FRAMING_SSE))
      return f->err.status;
    sluice_status st = sluice_feed(pv->framing, pv->head.ptr, pv->head.len);
    if (framing_status(pv, st) != SLUICE_OK) return f->err.status;
  }
  if (!pv->told && framing_status(pv, sluice_finish(pv->framing)) != SLUICE_OK)
    return f->err.status;
  if (!pv->detect_only) end_event(pv);
  else if (!pv->told) told(pv, SLUICE_ENDPOINT_UNKNOWN, 0);
  return f->err.status;
}

static void provider_destroy(sluice_filter *f) {
  provider *pv = (provider *)f;
  sluice_free(pv->framing);
  for (int k = 0; k <= SLUICE_FRAMING_CHUNKS; k++) sluice_free(pv->spare[k]);
  sluicep_buf_free(&pv->head);
  sluicep_buf_free(&pv->scratch);
  sluicep_buf_free(&pv->args);
}

/* sluice_reset: the stream state as the constructor leaves it. A framing
 * the option named is reset; a detected one is reset and set aside, to be
 * detected again (and then reused). */
static void provider_reset(sluice_filter *f) {
  provider *pv = (provider *)f;
  if (pv->framing_opt != SLUICE_FRAMING_AUTO) {
    sluice_reset(pv->framing);
  } else {
    if (pv->framing) {
      sluice_reset(pv->framing); /* every framing can be reset */
      sluice_free(pv->spare[pv->framing_kind]); /* none: open_framing took it */
      pv->spare[pv->framing_kind] = pv->framing;
    }
    pv->framing = NULL;
    pv->framing_kind = SLUICE_FRAMING_AUTO;
  }
  pv->head.len = pv->scratch.len = pv->args.len = 0;
  pv->ad = adapter_of(pv->forced);
  pv->endpoint = SLUICE_ENDPOINT_UNKNOWN;
  pv->told = 0;
  memset(pv->model, 0, sizeof pv->model);
  pv->chunk_at = 0;
  pv->chunk = NULL;
  memset(&pv->st, 0, sizeof pv->st);
}

static const sluicep_vtable provider_vt = {"provider", provider_feed, provider_finish,
                                           provider_destroy, provider_reset};
static const sluicep_vtable detect_vt = {"detect", provider_feed, provider_finish,
                                         provider_destroy, provider_reset};

static const char *const provider_names[SLUICE_PROVIDER_COUNT] = {
    "auto", "openai", "completions", "responses", "anthropic", "ollama", "gemini", "cohere",
    "llamacpp"};

const char *sluice_provider_name(sluice_provider_kind k) {
  return (unsigned)k < SLUICE_PROVIDER_COUNT ? provider_names[k] : "unknown";
}

sluice_provider_kind sluicep_provider_kind_of(const sluice_filter *f) {
  if (!f || f->vt != &provider_vt) return SLUICE_PROVIDER_AUTO;
  const provider *pv = (const provider *)f;
  return pv->ad ? pv->ad->kind : SLUICE_PROVIDER_AUTO;
}

void sluice_provider_opts_init_size(sluice_provider_opts *o, size_t size) {
  sluice_provider_opts d;
  memset(&d, 0, sizeof d);
  d.max_line = SLUICE_FRAME_DEFAULT_MAX;
  d.max_event = SLUICE_FRAME_DEFAULT_MAX;
  sluicep_opts_init(o, size, &d, sizeof d);
}

/* The provider filter, or (detect) the detector built on its framing and
 * detection. */
static sluice_status provider_make(sluice_filter **out, const sluice_provider_opts *opts,
                                   const sluice_sink *sink, const sluice_mem *mem,
                                   sluice_error *err, int detect_only) {
  *out = NULL;
  sluice_provider_opts o;
  sluice_provider_opts_init(&o);
  sluice_status st =
      opts ? sluicep_opts_take(&o, sizeof o, opts, "sluice_provider_opts", err) : SLUICE_OK;
  if (st != SLUICE_OK) return st;
  if ((unsigned)o.provider >= SLUICE_PROVIDER_COUNT)
    return sluicep_bad_option(err, "provider: no such provider (%d)", (int)o.provider);
  if ((unsigned)o.framing > SLUICE_FRAMING_CHUNKS)
    return sluicep_bad_option(err, "framing must be auto, sse, ndjson or chunks");
  if (o.choice >= PV_MAX_CHOICES) return sluicep_bad_option(err, "choice must be 0 to 63");
  sluice_filter *f;
  st = sluicep_filter_alloc(&f, sizeof(provider), detect_only ? &detect_vt : &provider_vt, sink,
                            mem, err);
  if (st != SLUICE_OK) return st;
  provider *pv = (provider *)f;
  sluicep_buf_init(&pv->head, &f->mem);
  sluicep_buf_init(&pv->scratch, &f->mem);
  sluicep_buf_init(&pv->args, &f->mem);
  pv->detect_only = detect_only;
  pv->forced = detect_only ? SLUICE_PROVIDER_AUTO : o.provider;
  pv->ad = adapter_of(pv->forced);
  pv->choice = o.choice;
  pv->max_line = o.max_line;
  pv->max_event = o.max_event;
  pv->framing_kind = pv->framing_opt = o.framing;
  if (o.framing != SLUICE_FRAMING_AUTO && open_framing(pv, o.framing)) {
    st = f->err.status;
    if (err) *err = f->err;
    sluice_free(f);
    return st;
  }
  *out = f;
  return SLUICE_OK;
}

sluice_status sluice_provider_new(sluice_filter **out, const sluice_provider_opts *o,
                                  const sluice_sink *sink, const sluice_mem *mem,
                                  sluice_error *err) {
  return provider_make(out, o, sink, mem, err, 0);
}

sluice_status sluice_detect_new(sluice_filter **out, const sluice_provider_opts *o,
                                const sluice_sink *sink, const sluice_mem *mem,
                                sluice_error *err) {
  return provider_make(out, o, sink, mem, err, 1);
}
