/*
 * ollama.c: Ollama's native streams, NDJSON.
 *
 *   /api/generate   response: text; thinking: reasoning (think on)
 *   /api/chat       message.content: text; message.thinking: reasoning;
 *                   message.tool_calls[]: whole calls (function.name, and
 *                   function.arguments as a JSON object, given compacted)
 *   both            done: true with done_reason: finish (an empty reason
 *                   when an older server gives none); prompt_eval_count
 *                   and eval_count: usage, as {"prompt_eval_count": N,
 *                   "eval_count": M}; error: error
 *
 * Without think, a thinking model's <think> tags stay in the text (Go
 * escapes them as \u003c, which decodes to '<'). A stream is complete
 * with done: true.
 */
#include "provider.h"

#include <stdio.h>
#include <string.h>

static int tool_calls(provider *pv, const pv_span *calls) {
  static const char *const ckeys[] = {"function", "id", NULL};
  static const char *const fkeys[] = {"name", "arguments", NULL};
  jr r;
  size_t count = 0;
  pv_span_reader(calls, &r);
  if (!jr_enter_array(&r)) return 0;
  while (jr_element(&r, &count)) {
    pv_span c[2], f[2];
    if (jr_peek(&r) != JR_OBJECT) {
      if (!jr_skip(&r)) break;
      continue;
    }
    if (pv_members(&r, ckeys, c)) break;
    jr fr;
    pv_span_reader(&c[0], &fr);
    if (!c[0].p || jr_peek(&fr) != JR_OBJECT) continue;
    if (pv_members(&fr, fkeys, f)) return pv_bad_json(pv, &fr);
    jr_str id, name;
    int has_id = pv_span_str(&c[1], &id), has_name = pv_span_str(&f[0], &name);
    long t = pv_tool(pv, 0, -1, has_id ? &id : NULL, has_name ? &name : NULL);
    if (t < 0) return 1;
    if (!f[1].p) continue;
    jr_str args;
    if (pv_span_str(&f[1], &args)) {
      if (pv_delta(pv, 0, "arguments", &args, (size_t)t)) return 1;
      continue;
    }
    if (pv_arguments_json(pv, 0, &f[1], (size_t)t)) return 1; /* an object */
  }
  return r.why ? pv_bad_json(pv, &r) : 0;
}

static int chunk(provider *pv, jr *r) {
  static const char *const keys[] = {"response", "thinking", "message", "done", "done_reason",
                                     "error", "prompt_eval_count", "eval_count", NULL};
  enum { RESPONSE, THINKING, MESSAGE, DONE, REASON, ERROR, PROMPT, EVAL };
  static const char *const mkeys[] = {"content", "thinking", "tool_calls", NULL};
  pv_span m[8], msg[3];
  jr_str s;
  if (pv_members(r, keys, m)) return pv_bad_json(pv, r);
  pv->st.ch[0].seen = 1;
  if (m[ERROR].p && pv_error_span(pv, &m[ERROR])) return 1;
  if (pv_span_str(&m[THINKING], &s) && pv_delta(pv, 0, "reasoning", &s, 0)) return 1;
  if (pv_span_str(&m[RESPONSE], &s) && pv_delta(pv, 0, "text", &s, 0)) return 1;
  if (m[MESSAGE].p && m[MESSAGE].p[0] == '{') {
    jr mr;
    pv_span_reader(&m[MESSAGE], &mr);
    if (pv_members(&mr, mkeys, msg)) return pv_bad_json(pv, &mr);
    if (pv_span_str(&msg[1], &s) && pv_delta(pv, 0, "reasoning", &s, 0)) return 1;
    if (pv_span_str(&msg[0], &s) && pv_delta(pv, 0, "text", &s, 0)) return 1;
    if (msg[2].p && tool_calls(pv, &msg[2])) return 1;
  }
  if (!pv_span_true(&m[DONE])) return 0;
  pv->st.done = 1;
  int fin = pv_span_str(&m[REASON], &s) ? pv_finish(pv, 0, &s) : pv_finish_lit(pv, 0, "");
  if (fin) return 1;
  uint64_t prompt, eval;
  int hp = pv_span_uint(&m[PROMPT], &prompt), he = pv_span_uint(&m[EVAL], &eval);
  if (!hp && !he) return 0;
  char usage[96];
  int n;
  if (hp && he)
    n = snprintf(usage, sizeof usage, "{\"prompt_eval_count\":%llu,\"eval_count\":%llu}",
                 (unsigned long long)prompt, (unsigned long long)eval);
  else if (hp)
    n = snprintf(usage, sizeof usage, "{\"prompt_eval_count\":%llu}", (unsigned long long)prompt);
  else
    n = snprintf(usage, sizeof usage, "{\"eval_count\":%llu}", (unsigned long long)eval);
  return pv_usage_text(pv, usage, (size_t)n);
}

static int complete(const provider *pv) { return pv->st.done; }

const pv_adapter pv_ollama = {SLUICE_PROVIDER_OLLAMA, chunk, complete};
