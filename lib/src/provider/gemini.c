/*
 * gemini.c: Gemini streamGenerateContent with alt=sse (the Gemini API and
 * Vertex AI; SSE with CRLF between events, no [DONE]).
 *
 *   candidates[i].content.parts[k]   text: text, or reasoning when the part
 *                                    has "thought": true; functionCall with
 *                                    a name: a tool call (its id when
 *                                    given), its args object compacted as
 *                                    the arguments. Vertex's streamed
 *                                    partialArgs are not assembled: such a
 *                                    call shows with its name only
 *   candidates[i].finishReason       finish
 *   usageMetadata                    usage, from the chunk that finishes
 *                                    (every chunk repeats the running
 *                                    totals)
 *   promptFeedback.blockReason       finish of choice 0 (a blocked prompt)
 *   error                            error (status, message)
 *
 * thoughtSignature is opaque and ignored. A stream is complete when every
 * candidate that appeared has a finishReason.
 */
#include "provider.h"

static int function_call(provider *pv, size_t c, const pv_span *fc) {
  static const char *const keys[] = {"name", "id", "args", NULL};
  pv_span m[3];
  jr r;
  jr_str name, id;
  pv_span_reader(fc, &r);
  if (jr_peek(&r) != JR_OBJECT) return 0;
  if (pv_members(&r, keys, m)) return pv_bad_json(pv, &r);
  if (!pv_span_str(&m[0], &name)) return 0; /* a streamed call's later parts */
  int has_id = pv_span_str(&m[1], &id);
  long t = pv_tool(pv, c, -1, has_id ? &id : NULL, &name);
  if (t < 0) return 1;
  if (!m[2].p || m[2].p[0] != '{') return 0;
  return pv_arguments_json(pv, c, &m[2], (size_t)t);
}

static int parts(provider *pv, size_t c, const pv_span *content) {
  static const char *const ckeys[] = {"parts", NULL};
  static const char *const pkeys[] = {"text", "thought", "functionCall", NULL};
  pv_span cm[1], m[3];
  jr r;
  pv_span_reader(content, &r);
  if (jr_peek(&r) != JR_OBJECT) return 0;
  if (pv_members(&r, ckeys, cm)) return pv_bad_json(pv, &r);
  pv_span_reader(&cm[0], &r);
  if (!cm[0].p || !jr_enter_array(&r)) return 0;
  size_t count = 0;
  while (jr_element(&r, &count)) {
    if (jr_peek(&r) != JR_OBJECT) {
      if (!jr_skip(&r)) break;
      continue;
    }
    if (pv_members(&r, pkeys, m)) break;
    jr_str s;
    if (pv_span_str(&m[0], &s) &&
        pv_delta(pv, c, pv_span_true(&m[1]) ? "reasoning" : "text", &s, 0))
      return 1;
    if (m[2].p && function_call(pv, c, &m[2])) return 1;
  }
  return r.why ? pv_bad_json(pv, &r) : 0;
}

static int chunk(provider *pv, jr *r) {
  static const char *const keys[] = {"candidates", "usageMetadata", "promptFeedback", "error",
                                     NULL};
  enum { CANDIDATES, USAGE, FEEDBACK, ERROR };
  static const char *const ckeys[] = {"content", "finishReason", "index", NULL};
  pv_span m[4], cm[3];
  jr_str s;
  int finished = 0;
  if (pv_members(r, keys, m)) return pv_bad_json(pv, r);
  if (m[ERROR].p && pv_error_span(pv, &m[ERROR])) return 1;
  if (m[CANDIDATES].p) {
    jr cr;
    size_t count = 0;
    pv_span_reader(&m[CANDIDATES], &cr);
    if (jr_enter_array(&cr)) {
      while (jr_element(&cr, &count)) {
        if (jr_peek(&cr) != JR_OBJECT) {
          if (!jr_skip(&cr)) break;
          continue;
        }
        if (pv_members(&cr, ckeys, cm)) break;
        uint64_t c;
        if (!pv_span_uint(&cm[2], &c)) c = count - 1;
        if (!pv_choice_ok(pv, c)) return 1;
        if (cm[0].p && parts(pv, (size_t)c, &cm[0])) return 1;
        if (pv_span_str(&cm[1], &s)) {
          if (pv_finish(pv, (size_t)c, &s)) return 1;
          finished = 1;
        }
      }
      if (cr.why) return pv_bad_json(pv, &cr);
    }
  }
  if (m[FEEDBACK].p && m[FEEDBACK].p[0] == '{') {
    static const char *const fkeys[] = {"blockReason", NULL};
    pv_span f[1];
    jr fr;
    pv_span_reader(&m[FEEDBACK], &fr);
    if (pv_members(&fr, fkeys, f)) return pv_bad_json(pv, &fr);
    if (pv_span_str(&f[0], &s)) {
      pv_choice_ok(pv, 0);
      if (pv_finish(pv, 0, &s)) return 1;
      finished = 1;
    }
  }
  if (finished && m[USAGE].p && m[USAGE].p[0] == '{') {
    jr u;
    pv_span_reader(&m[USAGE], &u);
    return pv_usage(pv, &u);
  }
  return 0;
}

const pv_adapter pv_gemini = {SLUICE_PROVIDER_GEMINI, chunk, pv_all_finished};
