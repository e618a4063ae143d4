/*
 * responses.c: OpenAI Responses streams (and the servers that copy them,
 * with or without event: lines: the chunk's "type" is what counts).
 *
 *   response.created                    a new response
 *   response.output_item.added          a function_call item: a tool call
 *                                       (call_id, name), by output_index
 *   response.output_text.delta          text
 *   response.refusal.delta              refusal
 *   response.reasoning_summary_text.delta, response.reasoning_text.delta
 *                                       reasoning (summaries, raw text)
 *   response.function_call_arguments.delta
 *                                       the arguments of the call at
 *                                       output_index
 *   response.completed / .incomplete / .failed
 *                                       finish: "completed", the
 *                                       incomplete reason, or "failed"
 *                                       (with its error when no error
 *                                       event came before); usage
 *   error                               error (code, message)
 *
 * There is no [DONE]: a stream is complete when its last chunk is one of
 * the three terminal events. One capture holds four responses
 * in a row; each starts its tool-call indexes at 0 again.
 */
#include "provider.h"

#include <string.h>

/* The tool call of output item i (started without id and name if its
 * output_item.added was not seen). */
static long call_of(provider *pv, uint64_t i) {
  if (pv->st.slot_kind[i]) return pv->st.slot_tool[i];
  long t = pv_tool(pv, 0, -1, NULL, NULL);
  if (t >= 0) {
    pv->st.slot_kind[i] = 1;
    pv->st.slot_tool[i] = (uint16_t)t;
  }
  return t;
}

static int item_added(provider *pv, const pv_span *index, const pv_span *item) {
  static const char *const keys[] = {"type", "call_id", "name", "arguments", NULL};
  uint64_t i;
  pv_span m[4];
  jr r;
  jr_str type, id, name, args;
  if (!pv_slot(pv, index, &i, "an output_index")) return 1;
  pv_span_reader(item, &r);
  if (!item->p || jr_peek(&r) != JR_OBJECT) return 0;
  if (pv_members(&r, keys, m)) return pv_bad_json(pv, &r);
  if (!pv_span_str(&m[0], &type) || !jr_is(&type, "function_call")) return 0;
  int has_id = pv_span_str(&m[1], &id), has_name = pv_span_str(&m[2], &name);
  long t = pv_tool(pv, 0, -1, has_id ? &id : NULL, has_name ? &name : NULL);
  if (t < 0) return 1;
  pv->st.slot_kind[i] = 1;
  pv->st.slot_tool[i] = (uint16_t)t;
  return pv_span_str(&m[3], &args) && pv_delta(pv, 0, "arguments", &args, (size_t)t);
}

/* A terminal event: its response's status, error and usage. */
static int terminal(provider *pv, const pv_span *resp, const char *status) {
  static const char *const keys[] = {"usage", "error", "incomplete_details", NULL};
  pv_span m[3];
  jr r;
  pv->st.open = 0;
  pv_span_reader(resp, &r);
  if (resp->p && jr_peek(&r) == JR_OBJECT) {
    if (pv_members(&r, keys, m)) return pv_bad_json(pv, &r);
  } else {
    m[0].p = m[1].p = m[2].p = NULL;
  }
  if (status[0] == 'f' && !pv->st.error && m[1].p && m[1].p[0] == '{') {
    pv_span_reader(&m[1], &r);
    if (pv_error(pv, &r)) return 1;
  }
  int fin;
  jr_str reason;
  static const char *const ikeys[] = {"reason", NULL};
  pv_span d[1];
  pv_span_reader(&m[2], &r);
  if (status[0] == 'i' && m[2].p && jr_peek(&r) == JR_OBJECT && pv_members(&r, ikeys, d) == 0 &&
      pv_span_str(&d[0], &reason))
    fin = pv_finish(pv, 0, &reason);
  else
    fin = pv_finish_lit(pv, 0, status);
  if (fin) return 1;
  if (m[0].p && m[0].p[0] == '{') {
    pv_span_reader(&m[0], &r);
    return pv_usage(pv, &r);
  }
  return 0;
}

static int chunk(provider *pv, jr *r) {
  static const char *const keys[] = {"type", "delta", "output_index", "item", "response",
                                     "code", "message", "error", NULL};
  enum { TYPE, DELTA, INDEX, ITEM, RESPONSE, CODE, MESSAGE, ERROR };
  pv_span m[8];
  if (pv_members(r, keys, m)) return pv_bad_json(pv, r);
  jr_str type, s, code, msg;
  uint64_t i;
  if (!pv_span_str(&m[TYPE], &type)) return 0;
  pv->st.ch[0].seen = 1;
  pv->st.open = 1; /* until a terminal event */
  if (jr_is(&type, "response.output_text.delta"))
    return pv_span_str(&m[DELTA], &s) && pv_delta(pv, 0, "text", &s, 0);
  if (jr_is(&type, "response.reasoning_summary_text.delta") ||
      jr_is(&type, "response.reasoning_text.delta"))
    return pv_span_str(&m[DELTA], &s) && pv_delta(pv, 0, "reasoning", &s, 0);
  if (jr_is(&type, "response.refusal.delta"))
    return pv_span_str(&m[DELTA], &s) && pv_delta(pv, 0, "refusal", &s, 0);
  if (jr_is(&type, "response.function_call_arguments.delta")) {
    if (!pv_slot(pv, &m[INDEX], &i, "an output_index")) return 1;
    if (!pv_span_str(&m[DELTA], &s)) return 0;
    long t = call_of(pv, i);
    return t < 0 || pv_delta(pv, 0, "arguments", &s, (size_t)t);
  }
  if (jr_is(&type, "response.output_item.added")) return item_added(pv, &m[INDEX], &m[ITEM]);
  if (jr_is(&type, "response.created")) {
    memset(&pv->st.ch[0], 0, sizeof pv->st.ch[0]);
    memset(pv->st.slot_kind, 0, sizeof pv->st.slot_kind);
    pv->st.ch[0].seen = 1;
    pv->st.error = 0;
    return 0;
  }
  if (jr_is(&type, "response.completed")) return terminal(pv, &m[RESPONSE], "completed");
  if (jr_is(&type, "response.incomplete")) return terminal(pv, &m[RESPONSE], "incomplete");
  if (jr_is(&type, "response.failed")) return terminal(pv, &m[RESPONSE], "failed");
  if (jr_is(&type, "error")) {
    if (m[ERROR].p && m[ERROR].p[0] == '{') return pv_error_span(pv, &m[ERROR]);
    int has_code = pv_span_str(&m[CODE], &code), has_msg = pv_span_str(&m[MESSAGE], &msg);
    return pv_error_strs(pv, has_code ? &code : NULL, has_msg ? &msg : NULL);
  }
  return 0;
}

static int complete(const provider *pv) { return pv->st.any && !pv->st.open; }

const pv_adapter pv_responses = {SLUICE_PROVIDER_RESPONSES, chunk, complete};
