/*
 * gemini.c: Gemini streamGenerateContent with alt=sse (the Gemini API and
 * Vertex AI; SSE with CRLF between events, no [DONE]).
 *
 *   candidates[i].content.parts[k]   text: text, or reasoning when the part
 *                                    has "thought": true; functionCall with
 *                                    a name: a tool call (its id when
 *                                    given), its args object compacted as
 *                                    the arguments. A call with
 *                                    "willContinue" streams its arguments
 *                                    in the parts that follow (Vertex's
 *                                    partialArgs: a JSON path and a piece
 *                                    of its value each), assembled here
 *                                    into the call's JSON text as they
 *                                    come, closed by the part without
 *                                    willContinue
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

#include <string.h>

/* ---------------- streamed arguments (partialArgs) ----------------
 * Each piece names its value by an RFC 9535 path of names and indexes
 * ($.a.b, $['a b'], $.list[0]) and carries a string (which may come in
 * several pieces: willContinue), a number, a boolean or null. The text is
 * written as it goes: the containers the new path shares with the open
 * ones stay open, the others close, new ones open; a string value stays
 * open while its pieces continue. Only the open path is held. */

/* Text of the arguments, collected while a part is read and sent as one
 * delta when it ends (flush_args). */
static int args_text(provider *pv, const char *p, size_t n) {
  if (sluicep_buf_append(&pv->args, p, n) == 0) return 0;
  sluicep_fail(&pv->base, SLUICE_NOMEM, pv->base.at, "out of memory assembling arguments");
  return 1;
}

static int flush_args(provider *pv, size_t choice, long tool) {
  if (!pv->args.len) return 0;
  size_t n = pv->args.len;
  pv->args.len = 0;
  return pv_delta_bytes(pv, choice, "arguments", pv->args.ptr, n, (size_t)tool);
}

static int bad_path(provider *pv, const char *why) {
  sluicep_fail(&pv->base, SLUICE_PROVIDER_FORMAT, pv->chunk_at,
               "the chunk at byte %llu: a partialArgs jsonPath %s",
               (unsigned long long)pv->chunk_at, why);
  return 1;
}

/* The path p[0..n) (decoded) as segments into out ('k' name or 'i'
 * index, then its text, then NUL); the number of segments, or -1. */
static int parse_path(const char *p, size_t n, char *out, size_t cap, uint16_t *ends) {
  size_t i = 1, o = 0;
  int depth = 0;
  if (n == 0 || p[0] != '$') return -1;
  while (i < n) {
    char kind;
    size_t a, b;
    if (p[i] == '.') {
      a = ++i;
      while (i < n && p[i] != '.' && p[i] != '[') i++;
      b = i;
      kind = 'k';
    } else if (p[i] == '[' && i + 1 < n && (p[i + 1] == '\'' || p[i + 1] == '"')) {
      /* a quoted name: its escapes of a quote, a backslash or a slash are
       * undone here (others are refused); member_head escapes again */
      char q = p[i + 1];
      if (depth == PV_PARTIAL_DEPTH) return -1;
      out[o++] = 'k';
      size_t start = o;
      for (i += 2; i < n && p[i] != q; i++) {
        char ch = p[i];
        if (ch == '\\') {
          if (++i == n || !strchr("'\"\\/", p[i])) return -1;
          ch = p[i];
        }
        if (o + 2 > cap) return -1;
        out[o++] = ch;
      }
      if (i + 1 >= n || p[i + 1] != ']' || o == start) return -1;
      i += 2;
      out[o++] = '\0';
      ends[depth++] = (uint16_t)o;
      continue;
    } else if (p[i] == '[') {
      a = ++i;
      while (i < n && p[i] >= '0' && p[i] <= '9') i++;
      if (i == a || i >= n || p[i] != ']') return -1;
      b = i++;
      kind = 'i';
    } else {
      return -1;
    }
    if (b == a || depth == PV_PARTIAL_DEPTH || o + (b - a) + 2 > cap) return -1;
    out[o++] = kind;
    memcpy(out + o, p + a, b - a);
    o += b - a;
    out[o++] = '\0';
    ends[depth++] = (uint16_t)o;
  }
  return depth;
}

/* Writes a member's key (with its comma) or an element's comma into
 * container d (0: the arguments object). */
static int member_head(provider *pv, int d, const char *seg) {
  pv_partial *pa = &pv->st.partial;
  if (pa->members[d] && args_text(pv, ",", 1)) return 1;
  pa->members[d] = 1;
  if (seg[0] != 'k') return 0;
  /* a name from a path holds no quote or backslash that needs escaping
   * but what RFC 9535 allows in a quoted name: escape those two */
  if (args_text(pv, "\"", 1)) return 1;
  for (const char *k = seg + 1; *k; k++)
    if ((*k == '"' || *k == '\\') ? args_text(pv, "\\", 1) || args_text(pv, k, 1)
                                   : args_text(pv, k, 1))
      return 1;
  return args_text(pv, "\":", 2);
}

static int close_to(provider *pv, int keep) {
  pv_partial *pa = &pv->st.partial;
  if (pa->string_open) {
    pa->string_open = 0;
    if (args_text(pv, "\"", 1)) return 1;
  }
  while (pa->depth > keep) {
    /* the container opened for segment `depth` closes by that segment's
     * kind: an index's is an array */
    const char *child = pa->path + pa->seg_end[pa->depth - 1];
    if (args_text(pv, child[0] == 'i' ? "]" : "}", 1)) return 1;
    pa->depth--;
  }
  return 0;
}

/* One piece: its path and value. */
static int partial_arg(provider *pv, const pv_span *path, const pv_span *value, int value_kind,
                       int more) {
  pv_partial *pa = &pv->st.partial;
  jr_str ps;
  if (!pv_span_str(path, &ps)) return bad_path(pv, "is missing");
  char dec[PV_PARTIAL_PATH], segs[PV_PARTIAL_PATH];
  if (ps.n >= sizeof dec) return bad_path(pv, "is too long");
  size_t pn = ps.esc ? jr_decode(&ps, dec) : ps.n;
  if (!ps.esc) memcpy(dec, ps.p, ps.n);
  uint16_t ends[PV_PARTIAL_DEPTH];
  int depth = parse_path(dec, pn, segs, sizeof segs, ends);
  if (depth <= 0) return bad_path(pv, "is not a path of names and indexes");
  if (!pa->started) {
    pa->started = 1;
    if (args_text(pv, "{", 1)) return 1;
  }
  size_t leaf_len = ends[depth - 1];
  int same_leaf = pa->string_open && pa->seg_end[pa->depth] == leaf_len &&
                  pa->depth == depth - 1 && memcmp(pa->path, segs, leaf_len) == 0;
  if (!same_leaf) {
    /* the containers shared with the open path stay open */
    int common = 0;
    while (common < pa->depth && common < depth - 1 && ends[common] == pa->seg_end[common] &&
           memcmp(pa->path, segs, ends[common]) == 0)
      common++;
    if (close_to(pv, common)) return 1;
    for (int d = common; d < depth; d++) {
      const char *seg = segs + (d ? ends[d - 1] : 0);
      if (member_head(pv, d, seg)) return 1;
      if (d + 1 < depth) { /* a container for the next segment */
        const char *next = segs + ends[d];
        if (args_text(pv, next[0] == 'i' ? "[" : "{", 1)) return 1;
        pa->members[d + 1] = 0;
        pa->depth = (uint16_t)(d + 1);
      }
    }
    memcpy(pa->path, segs, leaf_len);
    memcpy(pa->seg_end, ends, sizeof ends[0] * (size_t)depth);
    if (value_kind == JR_STRING && args_text(pv, "\"", 1)) return 1;
  }
  if (value_kind == JR_STRING) {
    /* the string's JSON text between its quotes is already escaped */
    if (args_text(pv, value->p + 1, value->n - 2)) return 1;
    pa->string_open = more;
    return more ? 0 : args_text(pv, "\"", 1);
  }
  return args_text(pv, value->p, value->n);
}

static int partial_args(provider *pv, const pv_span *list) {
  static const char *const keys[] = {"jsonPath", "stringValue", "numberValue", "boolValue",
                                     "nullValue", "willContinue", NULL};
  pv_span m[6];
  jr r;
  size_t count = 0;
  pv_span_reader(list, &r);
  if (!jr_enter_array(&r)) return 0;
  while (jr_element(&r, &count)) {
    if (jr_peek(&r) != JR_OBJECT) {
      if (!jr_skip(&r)) break;
      continue;
    }
    if (pv_members(&r, keys, m)) break;
    int kind = m[1].p && m[1].p[0] == '"' ? JR_STRING
               : m[2].p ? JR_NUMBER
               : m[3].p ? JR_TRUE
               : m[4].p ? JR_NULL
                        : JR_ERROR;
    if (kind == JR_ERROR) continue; /* no value: nothing to write */
    pv_span v = kind == JR_STRING ? m[1] : kind == JR_NUMBER ? m[2] : kind == JR_TRUE ? m[3] : m[4];
    if (kind == JR_NULL) v = (pv_span){"null", 4};
    if (partial_arg(pv, &m[0], &v, kind, pv_span_true(&m[5]))) return 1;
  }
  return r.why ? pv_bad_json(pv, &r) : 0;
}

/* The end of a streamed call: what is open closes. */
static int partial_end(provider *pv) {
  pv_partial *pa = &pv->st.partial;
  if (!pa->open) return 0;
  int rc = pa->started ? close_to(pv, 0) || args_text(pv, "}", 1) : 0;
  rc = rc || flush_args(pv, pa->choice, pa->tool);
  memset(pa, 0, sizeof *pa);
  return rc;
}

static int function_call(provider *pv, size_t c, const pv_span *fc) {
  static const char *const keys[] = {"name", "id", "args", "partialArgs", "willContinue", NULL};
  enum { NAME, ID, ARGS, PARTIAL, MORE };
  pv_span m[5];
  jr r;
  jr_str name, id;
  pv_span_reader(fc, &r);
  if (jr_peek(&r) != JR_OBJECT) return 0;
  if (pv_members(&r, keys, m)) return pv_bad_json(pv, &r);
  pv_partial *pa = &pv->st.partial;
  if (pv_span_str(&m[NAME], &name)) {
    if (partial_end(pv)) return 1; /* a new call ends the streamed one */
    int has_id = pv_span_str(&m[ID], &id);
    long t = pv_tool(pv, c, -1, has_id ? &id : NULL, &name);
    if (t < 0) return 1;
    if (m[ARGS].p && m[ARGS].p[0] == '{' && pv_arguments_json(pv, c, &m[ARGS], (size_t)t))
      return 1;
    if (!pv_span_true(&m[MORE])) return 0;
    pa->open = 1;
    pa->choice = c;
    pa->tool = t;
  } else if (!pa->open || pa->choice != c) {
    return 0; /* a piece of no call we know */
  }
  /* one delta per part: a part that ends the call carries its closers */
  if (m[PARTIAL].p && partial_args(pv, &m[PARTIAL])) return 1;
  return pv_span_true(&m[MORE]) ? flush_args(pv, pa->choice, pa->tool) : partial_end(pv);
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
