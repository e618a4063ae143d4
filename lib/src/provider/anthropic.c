/*
 * anthropic.c: Anthropic Messages streams.
 *
 *   message_start            a new message (its usage: usage)
 *   content_block_start      block i is text, thinking, redacted_thinking
 *                            or tool_use (a tool call: id and name)
 *   content_block_delta      text_delta: text; thinking_delta: reasoning;
 *                            input_json_delta: the arguments of block i's
 *                            call; signature_delta and citations: nothing
 *   message_delta            stop_reason: finish; usage: usage
 *   message_stop             the end of the message
 *   ping                     nothing
 *   error                    error (error.type, error.message)
 *
 * Redacted thinking carries no text (its data is encrypted), so it shows
 * as nothing. A stream is complete when message_stop is its last chunk.
 * Anthropic has one choice: 0.
 */
#include "provider.h"

#include <string.h>

enum { BLOCK_OTHER = 0, BLOCK_TEXT, BLOCK_THINKING, BLOCK_TOOL };

static int block_start(provider *pv, const pv_span *index, const pv_span *block) {
  static const char *const keys[] = {"type", "id", "name", "text", "thinking", NULL};
  uint64_t i;
  pv_span m[5];
  jr r;
  if (!pv_slot(pv, index, &i, "a content block index")) return 1;
  pv_span_reader(block, &r);
  if (!block->p || jr_peek(&r) != JR_OBJECT) return 0;
  if (pv_members(&r, keys, m)) return pv_bad_json(pv, &r);
  jr_str type, s, name;
  pv->st.slot_kind[i] = BLOCK_OTHER;
  if (!pv_span_str(&m[0], &type)) return 0;
  if (jr_is(&type, "text")) {
    pv->st.slot_kind[i] = BLOCK_TEXT;
    if (pv_span_str(&m[3], &s)) return pv_delta(pv, 0, "text", &s, 0);
  } else if (jr_is(&type, "thinking")) {
    pv->st.slot_kind[i] = BLOCK_THINKING;
    if (pv_span_str(&m[4], &s)) return pv_delta(pv, 0, "reasoning", &s, 0);
  } else if (jr_is(&type, "tool_use") || jr_is(&type, "server_tool_use")) {
    int has_id = pv_span_str(&m[1], &s), has_name = pv_span_str(&m[2], &name);
    long t = pv_tool(pv, 0, -1, has_id ? &s : NULL, has_name ? &name : NULL);
    if (t < 0) return 1;
    pv->st.slot_kind[i] = BLOCK_TOOL;
    pv->st.slot_tool[i] = (uint16_t)t;
  }
  return 0;
}

static int block_delta(provider *pv, const pv_span *index, const pv_span *d) {
  static const char *const keys[] = {"type", "text", "thinking", "partial_json", NULL};
  uint64_t i;
  pv_span m[4];
  jr r;
  if (!pv_slot(pv, index, &i, "a content block index")) return 1;
  pv_span_reader(d, &r);
  if (!d->p || jr_peek(&r) != JR_OBJECT) return 0;
  if (pv_members(&r, keys, m)) return pv_bad_json(pv, &r);
  jr_str type, s;
  if (!pv_span_str(&m[0], &type)) return 0;
  if (jr_is(&type, "text_delta") && pv_span_str(&m[1], &s)) return pv_delta(pv, 0, "text", &s, 0);
  if (jr_is(&type, "thinking_delta") && pv_span_str(&m[2], &s))
    return pv_delta(pv, 0, "reasoning", &s, 0);
  if (jr_is(&type, "input_json_delta") && pv_span_str(&m[3], &s)) {
    long t =
        pv->st.slot_kind[i] == BLOCK_TOOL ? pv->st.slot_tool[i] : pv_tool(pv, 0, -1, NULL, NULL);
    if (t < 0) return 1;
    if (pv->st.slot_kind[i] != BLOCK_TOOL) {
      pv->st.slot_kind[i] = BLOCK_TOOL;
      pv->st.slot_tool[i] = (uint16_t)t;
    }
    return pv_delta(pv, 0, "arguments", &s, (size_t)t);
  }
  return 0; /* signature_delta, citations_delta */
}

/* message_start: a new message; its usage. */
static int message_start(provider *pv, const pv_span *msg) {
  static const char *const keys[] = {"usage", NULL};
  pv_span m[1];
  jr r;
  memset(&pv->st.ch[0], 0, sizeof pv->st.ch[0]);
  memset(pv->st.slot_kind, 0, sizeof pv->st.slot_kind);
  pv->st.ch[0].seen = 1;
  pv_span_reader(msg, &r);
  if (!msg->p || jr_peek(&r) != JR_OBJECT) return 0;
  if (pv_members(&r, keys, m)) return pv_bad_json(pv, &r);
  if (!m[0].p || m[0].p[0] != '{') return 0;
  pv_span_reader(&m[0], &r);
  return pv_usage(pv, &r);
}

static int chunk(provider *pv, jr *r) {
  static const char *const keys[] = {"type", "index", "content_block", "delta", "message",
                                     "usage", "error", NULL};
  enum { TYPE, INDEX, BLOCK, DELTA, MESSAGE, USAGE, ERROR };
  pv_span m[7];
  if (pv_members(r, keys, m)) return pv_bad_json(pv, r);
  jr_str type, s;
  jr sub;
  if (!pv_span_str(&m[TYPE], &type)) return 0;
  /* every chunk but message_stop leaves a message open */
  pv->st.open = !jr_is(&type, "message_stop");
  if (jr_is(&type, "content_block_delta")) return block_delta(pv, &m[INDEX], &m[DELTA]);
  if (jr_is(&type, "content_block_start")) return block_start(pv, &m[INDEX], &m[BLOCK]);
  if (jr_is(&type, "message_start")) return message_start(pv, &m[MESSAGE]);
  if (jr_is(&type, "message_delta")) {
    static const char *const dkeys[] = {"stop_reason", NULL};
    pv_span d[1];
    pv_span_reader(&m[DELTA], &sub);
    if (m[DELTA].p && jr_peek(&sub) == JR_OBJECT) {
      if (pv_members(&sub, dkeys, d)) return pv_bad_json(pv, &sub);
      if (pv_span_str(&d[0], &s) && pv_finish(pv, 0, &s)) return 1;
    }
    if (m[USAGE].p && m[USAGE].p[0] == '{') {
      pv_span_reader(&m[USAGE], &sub);
      return pv_usage(pv, &sub);
    }
    return 0;
  }
  if (jr_is(&type, "error") && m[ERROR].p) return pv_error_span(pv, &m[ERROR]);
  return 0; /* ping, content_block_stop */
}

static int complete(const provider *pv) { return pv->st.any && !pv->st.open; }

const pv_adapter pv_anthropic = {SLUICE_PROVIDER_ANTHROPIC, chunk, complete};
