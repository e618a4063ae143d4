/*
 * llamacpp.c: llama.cpp's /completion stream (its chat endpoint sends
 * OpenAI chunks: openai.c).
 *
 *   content         text (a thinking model's tags stay in it)
 *   stop: true      finish: stop_type ("eos", "word", "limit") when the
 *                   server gives it, else from stopped_eos, stopped_word or
 *                   stopped_limit; the end of the stream (there is no
 *                   [DONE])
 *   error           error (newer servers send data: {"error": ...}; older
 *                   ones an error: field, which SSE ignores)
 */
#include "provider.h"

static int chunk(provider *pv, jr *r) {
  static const char *const keys[] = {"content", "stop", "stop_type", "stopped_eos",
                                     "stopped_word", "stopped_limit", "error", NULL};
  enum { CONTENT, STOP, TYPE, EOS, WORD, LIMIT, ERROR };
  pv_span m[7];
  jr_str s;
  if (pv_members(r, keys, m)) return pv_bad_json(pv, r);
  pv->st.ch[0].seen = 1;
  if (m[ERROR].p && pv_error_span(pv, &m[ERROR])) return 1;
  if (pv_span_str(&m[CONTENT], &s) && pv_delta(pv, 0, "text", &s, 0)) return 1;
  if (!pv_span_true(&m[STOP])) return 0;
  pv->st.done = 1;
  if (pv_span_str(&m[TYPE], &s)) return pv_finish(pv, 0, &s);
  const char *why = pv_span_true(&m[EOS])     ? "eos"
                    : pv_span_true(&m[WORD])  ? "word"
                    : pv_span_true(&m[LIMIT]) ? "limit"
                                              : "";
  return pv_finish_lit(pv, 0, why);
}

static int complete(const provider *pv) { return pv->st.done; }

const pv_adapter pv_llamacpp = {SLUICE_PROVIDER_LLAMACPP, chunk, complete};
