/*
 * cohere.c: Cohere v2 chat streams.
 *
 *   content-delta      delta.message.content.text: text;
 *                      delta.message.content.thinking: reasoning
 *   tool-plan-delta    delta.message.tool_plan: reasoning (the plan the
 *                      model writes before its calls)
 *   tool-call-start    a tool call at "index": delta.message.tool_calls
 *                      (id, function.name, function.arguments)
 *   tool-call-delta    delta.message.tool_calls.function.arguments
 *   message-end        delta.finish_reason: finish; delta.usage: usage;
 *                      the end of the stream
 *
 * Other events (message-start, content-start, citations) carry nothing
 * here. A stream is complete when message-end is its last chunk.
 */
#include "provider.h"

/* The value of obj.key (and then of .key2 in it, when given); p is NULL
 * when there is none. *bad is set on bad JSON. */
static pv_span dig(provider *pv, const pv_span *obj, const char *key, const char *key2, int *bad) {
  pv_span out = {NULL, 0}, m[1];
  const char *path[2] = {key, key2};
  pv_span cur = *obj;
  for (int i = 0; i < 2 && path[i]; i++) {
    const char *const keys[] = {path[i], NULL};
    jr r;
    pv_span_reader(&cur, &r);
    if (!cur.p || jr_peek(&r) != JR_OBJECT) return out;
    if (pv_members(&r, keys, m)) {
      *bad = pv_bad_json(pv, &r);
      return out;
    }
    cur = m[0];
  }
  return cur;
}

static int chunk(provider *pv, jr *r) {
  static const char *const keys[] = {"type", "index", "delta", NULL};
  enum { TYPE, INDEX, DELTA };
  pv_span m[3];
  jr_str type, s;
  int bad = 0;
  if (pv_members(r, keys, m)) return pv_bad_json(pv, r);
  if (!pv_span_str(&m[TYPE], &type)) return 0;
  pv->st.ch[0].seen = 1;
  pv->st.open = !jr_is(&type, "message-end");
  pv_span msg = dig(pv, &m[DELTA], "message", NULL, &bad);
  if (bad) return 1;
  if (jr_is(&type, "content-delta")) {
    pv_span c = dig(pv, &msg, "content", NULL, &bad);
    pv_span t = dig(pv, &c, "text", NULL, &bad), th = dig(pv, &c, "thinking", NULL, &bad);
    if (bad) return 1;
    if (pv_span_str(&th, &s) && pv_delta(pv, 0, "reasoning", &s, 0)) return 1;
    return pv_span_str(&t, &s) && pv_delta(pv, 0, "text", &s, 0);
  }
  if (jr_is(&type, "tool-plan-delta")) {
    pv_span t = dig(pv, &msg, "tool_plan", NULL, &bad);
    return bad || (pv_span_str(&t, &s) && pv_delta(pv, 0, "reasoning", &s, 0));
  }
  if (jr_is(&type, "tool-call-start") || jr_is(&type, "tool-call-delta")) {
    uint64_t i = 0;
    pv_span_uint(&m[INDEX], &i);
    pv_span tc = dig(pv, &msg, "tool_calls", NULL, &bad);
    pv_span id = dig(pv, &tc, "id", NULL, &bad), name = dig(pv, &tc, "function", "name", &bad);
    pv_span args = dig(pv, &tc, "function", "arguments", &bad);
    if (bad) return 1;
    jr_str ids, names;
    int has_id = pv_span_str(&id, &ids), has_name = pv_span_str(&name, &names);
    long t = pv_tool(pv, 0, i < PV_MAX_TOOLS ? (long)i : PV_MAX_TOOLS, has_id ? &ids : NULL,
                     has_name ? &names : NULL);
    if (t < 0) return 1;
    return pv_span_str(&args, &s) && pv_delta(pv, 0, "arguments", &s, (size_t)t);
  }
  if (jr_is(&type, "message-end")) {
    pv_span fin = dig(pv, &m[DELTA], "finish_reason", NULL, &bad);
    pv_span usage = dig(pv, &m[DELTA], "usage", NULL, &bad);
    if (bad) return 1;
    if (pv_span_str(&fin, &s) && pv_finish(pv, 0, &s)) return 1;
    if (usage.p && usage.p[0] == '{') {
      jr u;
      pv_span_reader(&usage, &u);
      return pv_usage(pv, &u);
    }
  }
  return 0;
}

static int complete(const provider *pv) { return pv->st.any && !pv->st.open; }

const pv_adapter pv_cohere = {SLUICE_PROVIDER_COHERE, chunk, complete};
