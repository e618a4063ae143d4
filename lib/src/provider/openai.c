/*
 * openai.c: OpenAI chat completion chunks, as OpenAI and the servers that
 * copy the shape send them (DeepSeek, Groq, vLLM, SGLang, OpenRouter,
 * Mistral, llama.cpp's and Ollama's /v1 endpoints, LM Studio), and the
 * legacy completions endpoint.
 *
 *   choices[i].delta.content          text (Mistral: an array of parts,
 *                                     {type: text, text} and {type:
 *                                     thinking, thinking: [{text}]})
 *   .reasoning_content / .reasoning   reasoning (DeepSeek and llama.cpp /
 *                                     newer vLLM, Groq, OpenRouter); when a
 *                                     delta has both, the first one read
 *                                     counts (some servers send the text
 *                                     twice)
 *   .refusal                          refusal
 *   .tool_calls[k]                    a call by its index; without one, a
 *                                     new call when it has an id or a name,
 *                                     else more of the last call
 *   choices[i].finish_reason          finish
 *   choices[i].text                   text (completions)
 *   usage, error                      usage, error (OpenRouter also sends
 *                                     finish_reason "error")
 *
 * The stream ends cleanly at data: [DONE]. A .chunks.jsonl recording has
 * no [DONE] (the recorder drops it), so there it ends cleanly when every
 * choice that appeared has finished.
 */
#include "provider.h"

#include <string.h>

static int bad(provider *pv, jr *r) { return pv_bad_json(pv, r); }

/* {"type": "text", "text": ...} and {"type": "thinking", "thinking": [...]}
 * parts of a Mistral content array. */
static int content_parts(provider *pv, size_t c, jr *r) {
  static const char *const keys[] = {"type", "text", "thinking", NULL};
  size_t count = 0;
  jr_enter_array(r);
  while (jr_element(r, &count)) {
    pv_span m[3];
    if (jr_peek(r) != JR_OBJECT) {
      if (!jr_skip(r)) break;
      continue;
    }
    if (pv_members(r, keys, m)) break;
    jr_str type, text;
    if (!pv_span_str(&m[0], &type)) continue;
    if (jr_is(&type, "text") && pv_span_str(&m[1], &text)) {
      if (pv_delta(pv, c, "text", &text, 0)) return 1;
    } else if (jr_is(&type, "thinking") && m[2].p) {
      if (pv_span_str(&m[2], &text)) {
        if (pv_delta(pv, c, "reasoning", &text, 0)) return 1;
        continue;
      }
      jr t;
      size_t tc = 0;
      pv_span_reader(&m[2], &t);
      if (!jr_enter_array(&t)) continue;
      while (jr_element(&t, &tc)) {
        pv_span tm[3];
        if (jr_peek(&t) != JR_OBJECT) {
          jr_skip(&t);
          continue;
        }
        if (pv_members(&t, keys, tm)) break;
        if (pv_span_str(&tm[1], &text) && pv_delta(pv, c, "reasoning", &text, 0)) return 1;
      }
    }
  }
  return r->why ? bad(pv, r) : 0;
}

static int tool_calls(provider *pv, size_t c, jr *r) {
  size_t count = 0;
  jr_enter_array(r);
  while (jr_element(r, &count)) {
    if (jr_peek(r) != JR_OBJECT) {
      if (!jr_skip(r)) break;
      continue;
    }
    uint64_t index = 0;
    int has_index = 0, has_id = 0, has_name = 0, has_args = 0;
    jr_str id, name, args, k;
    size_t mc = 0;
    jr_enter_object(r);
    while (jr_member(r, &mc, &k)) {
      if (jr_is(&k, "index")) has_index = jr_uint(r, &index);
      else if (jr_is(&k, "id") && jr_peek(r) == JR_STRING) has_id = jr_string(r, &id);
      else if (jr_is(&k, "function") && jr_enter_object(r)) {
        size_t fc = 0;
        while (jr_member(r, &fc, &k)) {
          if (jr_is(&k, "name") && jr_peek(r) == JR_STRING) has_name = jr_string(r, &name);
          else if (jr_is(&k, "arguments") && jr_peek(r) == JR_STRING)
            has_args = jr_string(r, &args);
          else if (!jr_skip(r)) break;
        }
      } else if (!jr_skip(r)) {
        break;
      }
    }
    if (r->why) break;
    long want = has_index ? (index < PV_MAX_TOOLS ? (long)index : PV_MAX_TOOLS) : -1;
    if (!has_index && !has_id && !has_name && pv->st.ch[c].ntools)
      want = pv->st.ch[c].last_tool; /* more arguments of the last call */
    long t = pv_tool(pv, c, want, has_id ? &id : NULL, has_name ? &name : NULL);
    if (t < 0) return 1;
    if (has_args && pv_delta(pv, c, "arguments", &args, (size_t)t)) return 1;
  }
  return r->why ? bad(pv, r) : 0;
}

static int delta(provider *pv, size_t c, jr *r) {
  if (jr_peek(r) != JR_OBJECT) return jr_skip(r) ? 0 : bad(pv, r);
  size_t count = 0;
  int reasoned = 0;
  jr_str k, s;
  jr_enter_object(r);
  while (jr_member(r, &count, &k)) {
    int t = jr_peek(r);
    if (jr_is(&k, "content") && t == JR_STRING) {
      if (jr_string(r, &s) && pv_delta(pv, c, "text", &s, 0)) return 1;
    } else if (jr_is(&k, "content") && t == JR_ARRAY) {
      if (content_parts(pv, c, r)) return 1;
    } else if ((jr_is(&k, "reasoning_content") || jr_is(&k, "reasoning")) && t == JR_STRING) {
      if (jr_string(r, &s) && !reasoned) {
        if (pv_delta(pv, c, "reasoning", &s, 0)) return 1;
        reasoned = s.n > 0;
      }
    } else if (jr_is(&k, "refusal") && t == JR_STRING) {
      if (jr_string(r, &s) && pv_delta(pv, c, "refusal", &s, 0)) return 1;
    } else if (jr_is(&k, "tool_calls") && t == JR_ARRAY) {
      if (tool_calls(pv, c, r)) return 1;
    } else if (!jr_skip(r)) {
      break;
    }
  }
  return r->why ? bad(pv, r) : 0;
}

/* One element of choices. Its index usually comes first; when it comes
 * after the delta, the delta is read once the index is known. */
static int choice(provider *pv, jr *r, int completions) {
  if (jr_peek(r) != JR_OBJECT) return jr_skip(r) ? 0 : bad(pv, r);
  uint64_t index = 0;
  int has_index = 0, has_finish = 0, has_text = 0;
  pv_span later = {NULL, 0};
  jr_str k, finish, text;
  size_t count = 0;
  jr_enter_object(r);
  while (jr_member(r, &count, &k)) {
    if (jr_is(&k, "index")) {
      has_index = jr_uint(r, &index);
      if (has_index && !pv_choice_ok(pv, index)) return 1;
    } else if (!completions && jr_is(&k, "delta")) {
      if (has_index) {
        if (delta(pv, (size_t)index, r)) return 1;
      } else if (!jr_raw(r, &later.p, &later.n)) {
        break;
      }
    } else if (completions && jr_is(&k, "text") && jr_peek(r) == JR_STRING) {
      if (!jr_string(r, &text)) break;
      if (has_index) {
        if (pv_delta(pv, (size_t)index, "text", &text, 0)) return 1;
      } else {
        has_text = 1;
      }
    } else if (jr_is(&k, "finish_reason") && jr_peek(r) == JR_STRING) {
      has_finish = jr_string(r, &finish);
    } else if (!jr_skip(r)) {
      break;
    }
  }
  if (r->why) return bad(pv, r);
  if (!has_index) {
    index = 0; /* a single choice without its index */
    pv_choice_ok(pv, 0);
  }
  if (later.p) {
    jr d;
    pv_span_reader(&later, &d);
    if (delta(pv, (size_t)index, &d)) return 1;
  }
  if (has_text && pv_delta(pv, (size_t)index, "text", &text, 0)) return 1;
  return has_finish && pv_finish(pv, (size_t)index, &finish);
}

static int chunk(provider *pv, jr *r, int completions) {
  size_t count = 0;
  jr_str k;
  jr_enter_object(r);
  while (jr_member(r, &count, &k)) {
    int t = jr_peek(r);
    if (jr_is(&k, "choices") && t == JR_ARRAY) {
      size_t cc = 0;
      jr_enter_array(r);
      while (jr_element(r, &cc))
        if (choice(pv, r, completions)) return 1;
    } else if (jr_is(&k, "usage") && t == JR_OBJECT) {
      if (pv_usage(pv, r)) return 1;
    } else if (jr_is(&k, "error") && (t == JR_OBJECT || t == JR_STRING)) {
      if (pv_error(pv, r)) return 1;
    } else if (!jr_skip(r)) {
      break;
    }
  }
  return r->why ? bad(pv, r) : 0;
}

static int chat_chunk(provider *pv, jr *r) { return chunk(pv, r, 0); }
static int completions_chunk(provider *pv, jr *r) { return chunk(pv, r, 1); }

static int complete(const provider *pv) {
  if (pv->st.done) return 1;
  return pv->framing_kind != SLUICE_FRAMING_SSE && pv_all_finished(pv);
}

const pv_adapter pv_openai = {SLUICE_PROVIDER_OPENAI, chat_chunk, complete};
const pv_adapter pv_completions = {SLUICE_PROVIDER_COMPLETIONS, completions_chunk, complete};
