/*
 * json.c: the LLM JSON sanitizer (DESIGN.md §2 "json", seed 002): its life
 * cycle, the input outside the value, the end of the input and the
 * incremental snapshots. The value itself is json_value.c.
 *
 * The repaired text is appended to `out` and never edited: a byte is written
 * only once it is decided. It streams on TEXT as it is decided, and is held
 * whole for the VALUE event at the end (the one thing the semantics make us
 * hold; option max_bytes caps it).
 *
 * Output shape: compact (no whitespace outside strings); strings keep their
 * bytes and escapes as written, except for the repairs; numbers keep their
 * digits exactly (a 20-digit integer stays 20 digits, although jansson
 * cannot load it as an integer).
 *
 * Outside the value (conformance/suites/json/README.md has the decisions):
 * - The value starts at the first '{' or '[' of the input, or at the first
 *   opening of a ``` fence, whichever comes first; a '"' as the first
 *   non-space character starts a top-level string. A top-level number or
 *   literal is accepted only when it is the whole (trimmed) input, fence or
 *   JSONP argument.
 * - A name directly followed by '(' as the first thing of the input (or of a
 *   fence) is a JSONP call: callback({...}); gives the inner value.
 * - The first value wins; any text after it is reported once as
 *   "trailing_text" and ignored (never wrapped into an array), unless
 *   option ndjson collects the values into one.
 */
#include "json_private.h"

#define put sluicep_json_put
#define put1 sluicep_json_put1

/* ---------------- output and events ---------------- */

void sluicep_json_nomem(json_filter *j) {
  sluicep_fail(&j->base, SLUICE_NOMEM, j->pos, "out of memory");
  j->failed = 1;
}

void sluicep_json_repair(json_filter *j, const char *kind, size_t kind_len, uint64_t off) {
  sluicep_json_repair_inline(j, kind, kind_len, off);
}

void sluicep_json_fail(json_filter *j, sluice_status st, uint64_t off, const char *msg) {
  sluicep_fail(&j->base, st, off, "%s", msg);
  j->failed = 1;
}

void sluicep_json_unloadable(json_filter *j, const char *why, uint64_t off) {
  /* the earliest byte: decisions are not always made in input order (a
   * number is checked at its end) */
  if (!j->unload_why || off < j->unload_off) {
    j->unload_why = why;
    j->unload_off = off;
  }
}

static void emit_text(json_filter *j) {
  if (j->failed || j->out.len == j->emitted) return;
  if (sluicep_emit(&j->base, SLUICE_TEXT, j->out.ptr + j->emitted, j->out.len - j->emitted))
    j->failed = 1;
  j->emitted = j->out.len;
}

/* ---------------- before the value ---------------- */

static int lit_char(uint32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '+' || c == '.';
}

static int name_char(uint32_t c, int first) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$') return 1;
  return !first && ((c >= '0' && c <= '9') || c == '.');
}

/* The prose read as the name of a JSONP call: a name ("callback_123",
 * "jQuery.cb") or "new" and a name, as the first thing of the input or the
 * fence, directly followed by '('. */
enum { CS_NONE, CS_NAME, CS_NEW, CS_NAME2, CS_DEAD };

static void call_step(json_filter *j, uint32_t cp, uint64_t off) {
  switch (j->call_st) {
  case CS_NONE:
    if (sluicep_json_is_space(cp)) return;
    if (j->phase == P_START && name_char(cp, 1)) {
      j->call_st = CS_NAME;
      j->call_off = off;
      j->call_len = 1;
      j->call_new = cp == 'n';
      return;
    }
    break;
  case CS_NAME:
  case CS_NAME2:
    if (name_char(cp, 0)) {
      j->call_new = j->call_new && j->call_len < 3 && "new"[j->call_len] == (char)cp;
      j->call_len++;
      return;
    }
    if (sluicep_json_is_space(cp) && j->call_st == CS_NAME && j->call_new && j->call_len == 3) {
      j->call_st = CS_NEW;
      return;
    }
    break;
  case CS_NEW:
    if (sluicep_json_is_space(cp)) return;
    if (name_char(cp, 1)) {
      j->call_st = CS_NAME2;
      return;
    }
    break;
  default: break;
  }
  j->call_st = CS_DEAD;
}

static void mark_prose(json_filter *j, uint64_t off) {
  if (!j->has_prose) {
    j->has_prose = 1;
    j->prose_off = off;
  }
}

static void start_value(json_filter *j) {
  int fence = j->in_fence, prose = j->has_prose;
  if (prose && fence && j->fence_off < j->prose_off) {
    REPAIR(j, "fence", j->fence_off);
    REPAIR(j, "leading_text", j->prose_off);
  } else {
    if (prose) REPAIR(j, "leading_text", j->prose_off);
    if (fence) REPAIR(j, "fence", j->fence_off);
  }
  if (j->in_call) REPAIR(j, "function_call", j->call_off);
  j->phase = P_VALUE;
  j->vs = V_VALUE;
  j->ticks = 0;
  j->value_started = 1;
  j->call_st = CS_DEAD;
  if (j->ndjson && !j->wrapped) { /* the array that collects the values */
    j->wrapped = 1;
    put1(j, '[');
  }
  if (j->in_call) { /* its ')' closes the frame, whatever the value is */
    j->in_call = 0;
    j->top_call = 1;
    sluicep_json_push_call(j);
  }
}

/* The '(' of a JSONP call: the value (or a scalar, as in a fence) follows. */
static void top_call(json_filter *j) {
  if (j->has_prose && j->prose_off == j->call_off) j->has_prose = 0; /* the name was no prose */
  j->in_call = 1;
  j->call_used = 1;
  j->call_st = CS_DEAD;
  j->litn = 0;
  j->lit_state = 0;
  j->phase = P_START;
}

/* A top-level scalar in a fence or a call ended with it: frozen. */
static void freeze_lit(json_filter *j) {
  if (j->lit_state == 1 || j->lit_state == 2) j->lit_state = 4;
  else if (j->lit_state != 4) j->lit_state = 3;
}

/* A run of backticks ended (at a code point that is not one, or at the end
 * of the input). Returns 1 if it opened a fence. */
static int ticks_end(json_filter *j) {
  int t = j->ticks;
  j->ticks = 0;
  if (t < 3) {
    mark_prose(j, j->tick_off);
    if (j->lit_state != 4) j->lit_state = 3;
    j->call_st = CS_DEAD;
    j->phase = P_PROSE;
    return 0;
  }
  if (!j->in_fence) {
    j->in_fence = 1;
    j->fence_off = j->tick_off;
    j->litn = 0;
    j->lit_state = 0;
    j->call_st = CS_NONE;
    j->phase = P_FINFO;
    return 1;
  }
  /* a fence closed without a value in it */
  j->in_fence = 0;
  mark_prose(j, j->fence_off);
  freeze_lit(j);
  j->call_st = CS_DEAD;
  j->phase = P_PROSE;
  return 0;
}

static int prose_cp(json_filter *j, uint32_t cp, uint64_t off) {
  if (cp == '`') {
    sluicep_json_tick(j, off);
    return 1;
  }
  if (j->ticks) {
    ticks_end(j);
    return 0;
  }
  if (cp == 0xFEFF && off == 0) {
    REPAIR(j, "bom", off);
    return 1;
  }
  if (cp == '(' && (j->call_st == CS_NAME || j->call_st == CS_NAME2)) {
    top_call(j);
    return 1;
  }
  if (cp == ')' && j->in_call) { /* callback_123(2); */
    j->in_call = 0;
    j->semi_ok = 1;
    freeze_lit(j);
    mark_prose(j, off);
    j->phase = P_PROSE;
    return 1;
  }
  if (cp == ';' && j->semi_ok) {
    j->semi_ok = 0;
    return 1;
  }
  j->semi_ok = 0;
  if (j->bslash) { /* \"hello\": an escaped string without its quotes */
    j->bslash = 0;
    if (cp == '"') {
      if (j->has_prose && j->prose_off == j->bslash_off) j->has_prose = 0;
      start_value(j);
      REPAIR(j, "stringified_json", j->bslash_off);
      j->unesc = UNESC_BARE;
      sluicep_json_top_quote(j, j->bslash_off);
      return 1;
    }
  }
  if (cp == '\\' && j->phase == P_START) j->bslash = 1, j->bslash_off = off;
  call_step(j, cp, off);
  if (sluicep_json_is_space(cp)) {
    if (j->lit_state == 1) j->lit_state = 2;
    return 1;
  }
  if (cp == '{' || cp == '[') {
    start_value(j);
    return 0;
  }
  if (cp == '"' && j->phase == P_START) {
    uint64_t q = off;
    start_value(j);
    if (j->stack.len) return 0; /* callback("x"): a string inside the call */
    sluicep_json_top_quote(j, q);
    return 1;
  }
  mark_prose(j, off);
  j->phase = P_PROSE;
  if (j->lit_state <= 1 && j->litn < JSON_LIT_MAX && lit_char(cp)) {
    j->lit[j->litn++] = (char)cp;
    j->lit_state = 1;
  } else if (j->lit_state != 4) {
    j->lit_state = 3;
  }
  return 1;
}

/* ---------------- after the value ---------------- */

void sluicep_json_value_ended(json_filter *j) {
  j->phase = P_TRAIL;
  j->ticks = 0;
}

static int trail_cp(json_filter *j, uint32_t cp, uint64_t off) {
  if (cp == '`') {
    sluicep_json_tick(j, off);
    return 1;
  }
  if (j->ticks) {
    int t = j->ticks;
    j->ticks = 0;
    if (t >= 3 && j->in_fence) {
      j->in_fence = 0;
    } else {
      REPAIR(j, "trailing_text", j->tick_off);
      j->phase = P_IGNORE;
      return 1;
    }
  }
  if (j->cm != CM_NONE) { /* inside a comment, or after a '/' */
    int c = sluicep_json_comment_cp(j, cp, off);
    if (c > 0) return 1;
    REPAIR(j, "trailing_text", j->cm_off);
    j->phase = P_IGNORE;
    return 1;
  }
  if (sluicep_json_is_space(cp)) return 1;
  if (cp == ';' && j->semi_ok) {
    j->semi_ok = 0;
    return 1;
  }
  j->semi_ok = 0;
  int c = sluicep_json_comment_cp(j, cp, off);
  if (c > 0) return 1;
  if (c < 0) { /* a '/' that started no comment */
    REPAIR(j, "trailing_text", j->cm_off);
    j->phase = P_IGNORE;
    return 1;
  }
  if (cp == '}' || cp == ']') {
    REPAIR(j, "redundant_closer", off);
    return 1;
  }
  if (cp == '"' && j->quote_ok) {
    j->quote_ok = 0;
    return 1;
  }
  if (j->ndjson && cp == ',') return 1;
  if (j->ndjson && (cp == '{' || cp == '[' || cp == '"')) { /* the next value */
    put1(j, ',');
    j->phase = P_VALUE;
    j->vs = V_VALUE;
    if (cp != '"') return 0;
    sluicep_json_top_quote(j, off);
    return 1;
  }
  REPAIR(j, "trailing_text", off);
  j->phase = P_IGNORE;
  return 1;
}

int sluicep_json_outside_cp(json_filter *j, uint32_t cp, uint64_t off) {
  switch (j->phase) {
  case P_START:
  case P_PROSE: return prose_cp(j, cp, off);
  case P_FINFO:
    if (cp < 0x80 && (lit_char(cp) || cp == '_')) return 1;
    j->phase = P_START;
    return 0;
  case P_TRAIL: return trail_cp(j, cp, off);
  default: return 1;
  }
}

/* ---------------- snapshots ---------------- */

/* Nothing to complete at the innermost level: the head is empty. (Only a
 * shortcut: the trial run below would write nothing either.) */
static int head_empty(const json_filter *j) {
  char t = j->stack.len ? j->stack.ptr[j->stack.len - 1] : 0;
  return j->vs == V_KEY || j->vs == V_AFTER || j->vs == V_SKIP || (j->vs == V_VALUE && t == '[');
}

/* A snapshot is the text so far (TEXT[0..offset)) and a tail that makes it
 * a JSON text: the head (what the end of the input would complete now: a
 * closing quote, a held token, ":null") and the closers of the open
 * containers, innermost first. The event carries the tail as an edit of
 * the previous one: drop `length` bytes from its front, prepend `data`.
 * Pushing a container prepends its closer; the closers below the lowest
 * stack depth since the last snapshot never change, so each snapshot costs
 * its head plus the containers opened or closed since: linear in total. */
static void snapshot(json_filter *j) {
  if (j->failed || !j->value_started) return;
  size_t mark = j->out.len, hlen = 0, d = j->stack.len;
  /* A mismatched closer still undecided: finishing would close every frame
   * (the inner closers missing), the same text as the tail of the state it
   * came in, so that state's head is taken (no trial closing every frame). */
  enum json_vstate vs = j->vs;
  if (vs == V_MISCLOSE) j->vs = j->mis_vs;
  if (j->phase == P_VALUE && !head_empty(j)) {
    /* The head is what finishing would write: run that code on the state
     * and restore the state (all held data lives in the struct). */
    json_filter saved = *j;
    j->quiet = 1;
    sluicep_json_finish_token(j, j->pos);
    if (!j->failed && j->phase == P_VALUE && j->stack.len) sluicep_json_fill_in(j, j->pos);
    sluice_status st = j->failed ? j->base.err.status : SLUICE_OK;
    sluicep_buf out = j->out, stack = j->stack;
    /* finishing may close frames (a string that ended before held closers):
     * their closers are in the head, the tail closes the frames below */
    d = stack.len;
    *j = saved;
    j->vs = vs;
    j->out.ptr = out.ptr;
    j->out.cap = out.cap;
    j->stack.ptr = stack.ptr;
    j->stack.cap = stack.cap;
    if (st == SLUICE_NOMEM) {
      sluicep_json_nomem(j);
      return;
    }
    if (st != SLUICE_OK) return; /* no valid text for this prefix (1e400): no snapshot */
    hlen = out.len - mark;
  }
  j->vs = vs;
  const char *head = j->out.ptr + mark;
  size_t from = 0;
  uint64_t drop = 0;
  int wrap = j->wrapped; /* the ndjson array's ']' ends the tail while it is open */
  if (j->snap_started) {
    from = j->snap_lwm;
    drop = j->snap_head.len + j->snap_dropc + (uint64_t)(j->snap_wrap && !wrap);
    for (; from > d; from--) /* frames the head closes, from the previous tail */
      if (j->stack.ptr[from - 1] != '(') drop++;
  }
  sluicep_buf *s = &j->snap_scratch;
  s->len = 0;
  if (j->snap_started && drop == j->snap_head.len && from == d && hlen == j->snap_head.len &&
      (hlen == 0 || memcmp(head, j->snap_head.ptr, hlen) == 0)) {
    drop = 0; /* unchanged */
  } else {
    if (sluicep_buf_reserve(s, hlen + (d - from) + 1) ||
        sluicep_buf_reserve(&j->snap_head, hlen)) {
      sluicep_json_nomem(j);
      return;
    }
    memcpy(s->ptr, head, hlen);
    s->len = hlen;
    for (size_t k = d; k-- > from;)
      if (j->stack.ptr[k] != '(') s->ptr[s->len++] = j->stack.ptr[k] == '{' ? '}' : ']';
    if (wrap && !j->snap_wrap) s->ptr[s->len++] = ']';
    if (hlen) memcpy(j->snap_head.ptr, head, hlen);
    j->snap_head.len = hlen;
  }
  j->snap_started = 1;
  j->snap_lwm = d;
  j->snap_dropc = 0;
  j->snap_wrap = wrap;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_SNAPSHOT;
  ev.offset = j->out.len;
  ev.length = drop;
  ev.data = s->len ? s->ptr : "";
  ev.data_len = s->len;
  if (sluicep_event(&j->base, &ev)) j->failed = 1;
}

/* ---------------- feed, finish ---------------- */

static sluice_status json_feed(sluice_filter *f, const char *p, size_t n) {
  json_filter *j = (json_filter *)f;
  /* The value event needs the whole repaired text, so it is held. The cap
   * is on input bytes (the same offset for every chunking); what is held
   * is at most a few times that (\u00XX for a raw control byte). */
  if (j->max_bytes && n > j->max_bytes - j->pos) {
    sluicep_json_process(j, p, (size_t)(j->max_bytes - j->pos));
    if (!j->failed)
      sluicep_fail(f, SLUICE_LIMIT, j->max_bytes, "the input exceeded max_bytes (%zu)",
                   j->max_bytes);
    j->failed = 1;
    return f->err.status;
  }
  sluicep_json_process(j, p, n);
  emit_text(j);
  if (j->incremental) snapshot(j);
  return f->err.status;
}

/* A top-level scalar held in prose: the whole trimmed input (or fence, or
 * JSONP argument), read by the same token rules as a nested one. */
static int lit_value(json_filter *j) {
  if (!(j->lit_state == 1 || j->lit_state == 2 || j->lit_state == 4) || j->litn == 0) return 0;
  int eof = j->lit_state != 4; /* not ended by a closing fence or a call's ')' */
  if (!sluicep_json_top_scalar(j, j->lit, j->litn, j->prose_off, eof, 0)) return 0;
  if (j->call_used) REPAIR(j, "function_call", j->call_off);
  if (j->ndjson) {
    j->wrapped = 1;
    put1(j, '[');
  }
  return sluicep_json_top_scalar(j, j->lit, j->litn, j->prose_off, eof, 1);
}

static sluice_status json_finish(sluice_filter *f) {
  json_filter *j = (json_filter *)f;
  uint64_t end = j->pos;
  sluicep_json_end_input(j);
  if (j->failed) return f->err.status;
  switch (j->phase) {
  case P_START:
  case P_PROSE:
  case P_FINFO:
    if (j->ticks) ticks_end(j);
    if (!lit_value(j)) {
      if (j->has_prose || j->call_used)
        return sluicep_fail(f, SLUICE_JSON_NO_VALUE, end, "no JSON value found in the input");
      return sluicep_fail(f, SLUICE_JSON_EMPTY, end, "the input is empty or only whitespace");
    }
    break;
  case P_VALUE: sluicep_json_finalize_value(j, end); break;
  case P_TRAIL:
    if (j->ticks && !(j->ticks >= 3 && j->in_fence)) REPAIR(j, "trailing_text", j->tick_off);
    else if (j->cm == CM_SLASH) REPAIR(j, "trailing_text", j->cm_off);
    break;
  default: break;
  }
  if (j->failed) return f->err.status;
  if (j->wrapped) {
    put1(j, ']');
    j->wrapped = 0;
  }
  emit_text(j);
  if (j->incremental) {
    j->value_started = 1;
    snapshot(j);
  }
  if (j->failed) return f->err.status;
  sluice_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = SLUICE_EV_VALUE;
  ev.data = j->out.ptr ? j->out.ptr : "";
  ev.data_len = j->out.len;
  ev.complete = !j->truncated;
  if (j->unload_why) {
    ev.name = j->unload_why;
    ev.name_len = strlen(j->unload_why);
    ev.offset = j->unload_off;
  }
  sluicep_event(f, &ev);
  return f->err.status;
}

static void json_destroy(sluice_filter *f) {
  json_filter *j = (json_filter *)f;
  sluicep_buf_free(&j->out);
  sluicep_buf_free(&j->stack);
  sluicep_buf_free(&j->snap_head);
  sluicep_buf_free(&j->snap_scratch);
}

/* sluice_reset: every field of the stream back to the constructor's (zero,
 * phase P_START); the options and the four buffers (emptied) stay. */
static void json_reset(sluice_filter *f) {
  json_filter *j = (json_filter *)f;
  json_filter keep = *j;
  memset((char *)j + sizeof j->base, 0, sizeof *j - sizeof j->base);
  j->incremental = keep.incremental;
  j->ndjson = keep.ndjson;
  j->max_depth = keep.max_depth;
  j->max_bytes = keep.max_bytes;
  j->out = keep.out;
  j->stack = keep.stack;
  j->snap_head = keep.snap_head;
  j->snap_scratch = keep.snap_scratch;
  j->out.len = j->stack.len = j->snap_head.len = j->snap_scratch.len = 0;
  j->phase = P_START;
  j->rev.type = SLUICE_EV_REPAIR;
}

static const sluicep_vtable json_vt = {"json", json_feed, json_finish, json_destroy, json_reset};

/* ---------------- construction ---------------- */

void sluice_json_opts_init_size(sluice_json_opts *o, size_t size) {
  sluice_json_opts d;
  memset(&d, 0, sizeof d);
  d.max_depth = JSON_DEFAULT_MAX_DEPTH;
  sluicep_opts_init(o, size, &d, sizeof d);
}

sluice_status sluice_json_new(sluice_filter **out, const sluice_json_opts *opts,
                              const sluice_sink *sink, const sluice_mem *mem, sluice_error *err) {
  *out = NULL;
  sluice_json_opts local, *o = &local;
  sluice_json_opts_init(&local);
  sluice_status st = opts ? sluicep_opts_take(&local, sizeof local, opts, "sluice_json_opts", err)
                          : SLUICE_OK;
  if (st != SLUICE_OK) return st;
  sluice_filter *f;
  st = sluicep_filter_alloc(&f, sizeof(json_filter), &json_vt, sink, mem, err);
  if (st != SLUICE_OK) return st;
  json_filter *j = (json_filter *)f;
  sluicep_buf_init(&j->out, &f->mem);
  sluicep_buf_init(&j->stack, &f->mem);
  sluicep_buf_init(&j->snap_head, &f->mem);
  sluicep_buf_init(&j->snap_scratch, &f->mem);
  j->incremental = o->incremental != 0;
  j->ndjson = o->ndjson != 0;
  j->max_depth = o->max_depth;
  j->max_bytes = o->max_bytes;
  j->phase = P_START;
  j->rev.type = SLUICE_EV_REPAIR; /* the other fields stay zero */
  *out = f;
  return SLUICE_OK;
}
