/*
 * answer.c: answers, their canonical form, and the one comparison.
 */
#include "answer.h"

#include <string.h>

#include "bytes.h"

/* Byte fields inside events. */
static const char *const event_byte_keys[] = {"text", "data",   "event", "id",     "name",
                                              "reason", "code", "message", "model"};

void tstrs_push(tstrs *s, char *owned) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 8;
    s->v = xrealloc(s->v, xmul(s->cap, sizeof *s->v));
  }
  s->v[s->n++] = owned;
}

void tstrs_free(tstrs *s) {
  for (size_t i = 0; i < s->n; i++) free(s->v[i]);
  free(s->v);
  memset(s, 0, sizeof *s);
}

void answer_init(answer *a) {
  memset(a, 0, sizeof *a);
  a->truncated = -1;
  a->max_held = -1;
  a->offset = -1;
}

unsigned answer_fields(const answer *a) { return a->chan_present | a->has; }

void answer_free(answer *a) {
  free(a->code);
  free(a->message);
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) free(a->chan[c].p);
  tstrs_free(&a->events);
  tstrs_free(&a->snapshots);
  tstrs_free(&a->event_types);
  tstrs_free(&a->event_keys);
  free(a->value);
  free(a->unloadable);
  free(a->problem);
  free(a->value_why);
  answer_init(a);
}

void answer_set_error(answer *a, const char *code, const char *message, int64_t offset) {
  a->ok = 0;
  free(a->code);
  free(a->message);
  a->code = xstrdup(code);
  a->message = xstrdup(message);
  a->offset = offset;
  a->has_offset = offset >= 0;
}

static void add_problem(answer *a, const char *fmt, const char *arg) {
  if (a->problem) return; /* the first one says enough */
  tbuf b = {0};
  tbuf_xprintf(&b, fmt, arg);
  a->problem = tbuf_take(&b, NULL);
}

static char *dump_canonical(json_t *v) {
  char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
  if (!s) die("out of memory");
  return s;
}

char *event_canonical(json_t *ev, char *why, size_t wl) {
  if (!json_is_object(ev)) {
    snprintf(why, wl, "an event must be an object");
    return NULL;
  }
  json_t *c = json_deep_copy(ev);
  if (!c) die("out of memory");
  for (size_t k = 0; k < sizeof event_byte_keys / sizeof event_byte_keys[0]; k++) {
    const char *key = event_byte_keys[k];
    char bk[32];
    snprintf(bk, sizeof bk, "%s_b64", key);
    json_t *v = json_object_get(c, key), *b = json_object_get(c, bk);
    if (!v && !b) continue;
    tbytes bytes;
    if (v && !b && !json_is_string(v)) {
      /* a byte spec of the case format ({"hex": ...}) */
      if (bytes_from_spec(v, &bytes, why, wl)) {
        json_decref(c);
        return NULL;
      }
    } else if (bytes_field_get(c, key, &bytes) < 0) {
      snprintf(why, wl, "event field \"%s\" is malformed", key);
      json_decref(c);
      return NULL;
    }
    json_object_del(c, key);
    json_object_del(c, bk);
    int utf8 = sluice_utf8_valid(bytes.p, bytes.n);
    char *enc = utf8 ? NULL : b64_encode(bytes.p, bytes.n);
    json_t *s = utf8 ? json_stringn(bytes.p, bytes.n) : json_string(enc ? enc : "");
    if (!s || json_object_set_new(c, utf8 ? key : bk, s)) die("out of memory");
    free(enc);
    free(bytes.p);
  }
  char *out = dump_canonical(c);
  json_decref(c);
  return out;
}

char *value_canonical(const char *text, size_t n, char *why, size_t wl) {
  int nomem = 0;
  char *s = value_canonical_soft(text, n, why, wl, &nomem);
  if (nomem) die("out of memory");
  return s;
}

char *value_canonical_soft(const char *text, size_t n, char *why, size_t wl, int *nomem) {
  /* Every number as a real on both sides: an answer line that held a big
   * integer can only be read that way, and 1 and 1.0 are the same value. */
  json_error_t jerr;
  *nomem = 0;
  json_t *v = json_loadb(text, n, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL,
                         &jerr);
  if (!v) {
    if (json_error_code(&jerr) == json_error_out_of_memory) *nomem = 1;
    snprintf(why, wl, "%.100s at byte %d", jerr.text, jerr.position);
    return NULL;
  }
  char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
  json_decref(v);
  if (!s) {
    *nomem = 1;
    snprintf(why, wl, "out of memory");
  }
  return s;
}

/* The canonical form of a parsed value (see value_canonical). */
static void set_value(answer *a, json_t *v) {
  char *text = dump_canonical(v), why[160];
  a->value = value_canonical(text, strlen(text), why, sizeof why);
  if (!a->value) {
    add_problem(a, "the value cannot be read back: %s", why);
    free(a->value_why);
    a->value_why = xstrdup(why);
  }
  free(text);
}

/* "unloadable": {"reason": STRING, "offset": INTEGER} (json: a valid text
 * a reader with doubles cannot load), kept as canonical JSON. */
static int set_unloadable(answer *a, json_t *u, char *why, size_t wl) {
  if (!u) return 0;
  a->has |= ANS_VALUE;
  json_t *r = json_object_get(u, "reason"), *o = json_object_get(u, "offset");
  if (!json_is_object(u) || json_object_size(u) != 2 || !json_is_string(r) ||
      !json_is_integer(o)) {
    snprintf(why, wl, "\"unloadable\" must be {\"reason\": string, \"offset\": integer}");
    return -1;
  }
  a->unloadable = dump_canonical(u);
  return 0;
}

static int is_snapshot(json_t *ev) {
  json_t *t = json_object_get(ev, "type");
  return json_is_string(t) && strcmp(json_string_value(t), "snapshot") == 0;
}

/* The events of an array, canonical, snapshots kept apart. -1 with
 * "events[i]: reason" in why at the first malformed one. */
static int add_events(answer *a, json_t *evs, char *why, size_t wl) {
  size_t i;
  json_t *ev;
  json_array_foreach(evs, i, ev) {
    char tmp[200];
    char *s = event_canonical(ev, tmp, sizeof tmp);
    if (!s) {
      snprintf(why, wl, "events[%zu]: %s", i, tmp);
      return -1;
    }
    tstrs_push(is_snapshot(ev) ? &a->snapshots : &a->events, s);
  }
  return 0;
}

void answer_from_json(answer *a, json_t *obj) {
  answer_init(a);
  if (!json_is_object(obj)) {
    add_problem(a, "%s", "the answer is not a JSON object");
    return;
  }
  json_t *ok = json_object_get(obj, "ok");
  if (!json_is_boolean(ok)) {
    add_problem(a, "%s", "the answer has no boolean \"ok\"");
    return;
  }
  a->ok = json_is_true(ok);
  if (!a->ok) {
    json_t *e = json_object_get(obj, "error");
    json_t *code = json_object_get(e, "code"), *msg = json_object_get(e, "message"),
           *off = json_object_get(e, "offset");
    if (!json_is_string(code)) {
      add_problem(a, "%s", "a failure answer needs \"error\": {\"code\": string, ...}");
      a->code = xstrdup("");
    } else {
      a->code = xstrndup(json_string_value(code), json_string_length(code));
    }
    a->message = xstrdup(json_is_string(msg) ? json_string_value(msg) : "");
    if (json_is_integer(off) || json_is_real(off)) {
      a->offset = (int64_t)json_number_value(off);
      a->has_offset = 1;
    }
    return;
  }
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    int rc = bytes_field_get(obj, sluice_channel_name((sluice_channel)c), &a->chan[c]);
    if (rc < 0) {
      add_problem(a, "the \"%s\" field is malformed (not a string, both forms, or bad base64)",
                  sluice_channel_name((sluice_channel)c));
      free(a->chan[c].p);
      a->chan[c].p = xstrdup("");
      a->chan[c].n = 0;
    } else if (rc == 1) {
      a->chan_present |= 1u << c;
    }
  }
  json_t *evs = json_object_get(obj, "events");
  char why[300];
  if (evs) a->has |= ANS_EVENTS;
  if (evs && !json_is_array(evs)) add_problem(a, "%s", "\"events\" must be an array");
  else if (add_events(a, evs, why, sizeof why)) add_problem(a, "an event is malformed: %s", why);
  json_t *v = json_object_get(obj, "value");
  if (v) {
    a->has |= ANS_VALUE;
    set_value(a, v);
  }
  if (set_unloadable(a, json_object_get(obj, "unloadable"), why, sizeof why)) {
    add_problem(a, "%s", why);
  }
  json_t *t = json_object_get(obj, "truncated");
  if (t) {
    a->has |= ANS_TRUNCATED;
    if (json_is_boolean(t)) a->truncated = json_is_true(t);
    else add_problem(a, "%s", "\"truncated\" must be a boolean");
  }
  static const char *const lists[] = {"event_types", "event_keys"};
  for (int l = 0; l < 2; l++) {
    json_t *arr = json_object_get(obj, lists[l]), *item;
    size_t i;
    if (!arr) continue;
    if (!json_is_array(arr)) add_problem(a, "\"%s\" must be an array of strings", lists[l]);
    json_array_foreach(arr, i, item) {
      if (!json_is_string(item)) {
        add_problem(a, "\"%s\" must be an array of strings", lists[l]);
        break;
      }
      tstrs_push(l ? &a->event_keys : &a->event_types, xstrdup(json_string_value(item)));
    }
  }
  json_t *mh = json_object_get(obj, "max_held");
  if (json_is_integer(mh) && json_integer_value(mh) >= 0) a->max_held = json_integer_value(mh);
}

int answer_from_expect(answer *a, json_t *ex, char *why, size_t wl) {
  answer_init(a);
  json_t *err = json_object_get(ex, "error");
  if (err) {
    json_t *code = json_object_get(err, "code"), *off = json_object_get(err, "offset");
    if (!json_is_string(code) || (off && !json_is_integer(off))) {
      snprintf(why, wl, "\"error\" needs a string \"code\" and an integer \"offset\" if any");
      return -1;
    }
    answer_set_error(a, json_string_value(code), "", off ? json_integer_value(off) : -1);
    return 0;
  }
  a->ok = 1;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    json_t *spec = json_object_get(ex, sluice_channel_name((sluice_channel)c));
    a->chan_present |= 1u << c;
    if (!spec) {
      a->chan[c].p = xstrdup("");
      continue;
    }
    char tmp[300];
    if (bytes_from_spec(spec, &a->chan[c], tmp, sizeof tmp)) {
      snprintf(why, wl, "expect.%s: %s", sluice_channel_name((sluice_channel)c), tmp);
      return -1;
    }
  }
  json_t *evs = json_object_get(ex, "events");
  char tmp[300];
  if (evs && !json_is_array(evs)) {
    snprintf(why, wl, "expect.events must be an array");
    return -1;
  }
  if (add_events(a, evs, tmp, sizeof tmp)) {
    snprintf(why, wl, "expect.%s", tmp);
    return -1;
  }
  json_t *v = json_object_get(ex, "value");
  if (v) set_value(a, v);
  if (set_unloadable(a, json_object_get(ex, "unloadable"), tmp, sizeof tmp)) {
    snprintf(why, wl, "expect.%s", tmp);
    return -1;
  }
  json_t *t = json_object_get(ex, "truncated");
  if (t) {
    if (!json_is_boolean(t)) {
      snprintf(why, wl, "expect.truncated must be a boolean");
      return -1;
    }
    a->truncated = json_is_true(t);
  }
  return 0;
}

static int listed(const tstrs *l, const char *s, size_t n) {
  for (size_t i = 0; i < l->n; i++)
    if (strlen(l->v[i]) == n && memcmp(l->v[i], s, n) == 0) return 1;
  return 0;
}

void events_project(tstrs *events, const tstrs *types, const tstrs *keys) {
  if (!types->n && !keys->n) return;
  size_t out = 0;
  for (size_t i = 0; i < events->n; i++) {
    json_t *ev = json_loads(events->v[i], JSON_ALLOW_NUL, NULL);
    json_t *t = json_object_get(ev, "type");
    int keep = ev && (!types->n || (json_is_string(t) && listed(types, json_string_value(t),
                                                                 json_string_length(t))));
    if (keep && keys->n) {
      const char *k;
      json_t *v;
      void *tmp;
      json_object_foreach_safe(ev, tmp, k, v) {
        size_t kl = strlen(k);
        if (kl > 4 && strcmp(k + kl - 4, "_b64") == 0) kl -= 4;
        if (strcmp(k, "type") != 0 && !listed(keys, k, kl)) json_object_del(ev, k);
      }
    }
    free(events->v[i]);
    if (keep) events->v[out++] = dump_canonical(ev);
    json_decref(ev);
  }
  events->n = out;
}

/* ---------------- the comparison ---------------- */

void diff_first_free(diff_first *f) {
  free(f->field);
  free(f->expected);
  free(f->actual);
  memset(f, 0, sizeof *f);
}

/* Where a comparison's differences go: rendered lines (out), and the first
 * one as fields (first). Either may be NULL. */
typedef struct sink {
  tbuf *out;
  const char *indent;
  diff_first *first;
} sink;

static int wanted(const sink *k) { return k->out || (k->first && !k->first->field); }

static void line_pair(sink *k, const char *field, const char *exp, const char *act) {
  if (k->first && !k->first->field) {
    k->first->field = xstrdup(field);
    k->first->expected = xstrdup(exp);
    k->first->actual = xstrdup(act);
  }
  if (!k->out) return;
  tbuf_xprintf(k->out, "%s%-9s expected %s\n%s%-9s actual   %s\n", k->indent, field, exp,
               k->indent, "", act);
}

static void show(tbuf *b, const char *p, size_t n, size_t max) {
  b->n = 0;
  bytes_show(b, p, n, max);
}

static int strs_diff(const tstrs *e, const tstrs *a, const char *name, sink *k) {
  size_t i = 0;
  while (i < e->n && i < a->n && strcmp(e->v[i], a->v[i]) == 0) i++;
  if (i == e->n && i == a->n) return 0;
  if (wanted(k)) {
    char field[32];
    snprintf(field, sizeof field, "%s[%zu]", name, i);
    tbuf es = {0}, as = {0};
    tbuf_xadds(&es, i < e->n ? e->v[i] : "(none)");
    tbuf_xadds(&as, i < a->n ? a->v[i] : "(none)");
    if (e->n != a->n) {
      tbuf_xprintf(&es, "  (%zu %s in all)", e->n, name);
      tbuf_xprintf(&as, "  (%zu %s in all)", a->n, name);
    }
    line_pair(k, field, es.p, as.p);
    tbuf_free(&es);
    tbuf_free(&as);
  }
  return 1;
}

int tstrs_diff(const tstrs *e, const tstrs *a, const char *name, tbuf *out,
               const char *indent) {
  sink k = {out, indent, NULL};
  return strs_diff(e, a, name, &k);
}

/* One answer is an error and the other is not. */
static void diff_ok(const answer *exp, const answer *act, sink *k) {
  tbuf es = {0}, as = {0};
  if (exp->ok) {
    tbuf_xprintf(&as, "an error: %s (%s", act->code ? act->code : "?",
                 act->message ? act->message : "");
    if (act->has_offset) tbuf_xprintf(&as, ", offset %lld", (long long)act->offset);
    tbuf_xadds(&as, ")");
    line_pair(k, "ok", "true", as.p);
  } else {
    tbuf_xprintf(&es, "an error: %s", exp->code);
    if (exp->has_offset) tbuf_xprintf(&es, " at offset %lld", (long long)exp->offset);
    line_pair(k, "ok", es.p, "true (no error)");
  }
  tbuf_free(&es);
  tbuf_free(&as);
}

/* Both are errors: their codes (and offsets, with o->offsets). */
static int diff_error(const answer *exp, const answer *act, const diff_opts *o, sink *k) {
  int ignore = o && o->ignore_codes;
  int code_differs = !ignore && strcmp(exp->code, act->code ? act->code : "") != 0;
  int off_differs = !ignore && o && o->offsets && exp->has_offset &&
                    (!act->has_offset || act->offset != exp->offset);
  if (!code_differs && !off_differs) return 0;
  if (wanted(k)) {
    tbuf es = {0}, as = {0};
    tbuf_xprintf(&es, "%s", exp->code);
    if (exp->has_offset) tbuf_xprintf(&es, " at offset %lld", (long long)exp->offset);
    tbuf_xprintf(&as, "%s", act->code ? act->code : "");
    if (act->has_offset) tbuf_xprintf(&as, " at offset %lld", (long long)act->offset);
    if (act->message && *act->message) tbuf_xprintf(&as, " (%s)", act->message);
    line_pair(k, "error", es.p, as.p);
    tbuf_free(&es);
    tbuf_free(&as);
  }
  return 1;
}

/* One channel, present and equal. 1 if it differs. */
static int diff_channel(const answer *exp, const answer *act, int c, size_t max, sink *k) {
  const tbytes *e = &exp->chan[c], *a = &act->chan[c];
  const char *name = sluice_channel_name((sluice_channel)c);
  tbuf es = {0}, as = {0};
  int differs = 1;
  if (!(act->chan_present & (1u << c))) {
    if (wanted(k)) {
      show(&es, e->p, e->n, max);
      line_pair(k, name, es.p, "(missing: every channel field must be present, even when empty)");
    }
  } else if (e->n == a->n && (e->n == 0 || memcmp(e->p, a->p, e->n) == 0)) {
    differs = 0;
  } else if (wanted(k)) {
    /* Show where they part, so a long channel's difference is visible. */
    size_t at = 0;
    while (at < e->n && at < a->n && e->p[at] == a->p[at]) at++;
    show(&es, e->p, e->n, max);
    show(&as, a->p, a->n, max);
    line_pair(k, name, es.p, as.p);
    if (k->out && (e->n > max || a->n > max))
      tbuf_xprintf(k->out, "%s%-9s (%zu and %zu bytes; they differ from byte %zu)\n", k->indent,
                   "", e->n, a->n, at);
  }
  tbuf_free(&es);
  tbuf_free(&as);
  return differs;
}

/* A value as shown: its JSON, "(none)", or why it could not be read. */
static void show_value(tbuf *b, const answer *a, size_t max) {
  b->n = 0;
  if (a->value) bytes_show(b, a->value, strlen(a->value), max);
  else if (a->value_why) tbuf_xprintf(b, "(a value the runner cannot read: %s)", a->value_why);
  else tbuf_xadds(b, "(none)");
}

static int diff_value(const answer *exp, const answer *act, size_t max, sink *k) {
  if (!exp->value && !act->value && !act->value_why) return 0;
  if (exp->value && act->value && strcmp(exp->value, act->value) == 0) return 0;
  if (wanted(k)) {
    tbuf es = {0}, as = {0};
    show_value(&es, exp, max);
    show_value(&as, act, max);
    line_pair(k, "value", es.p, as.p);
    tbuf_free(&es);
    tbuf_free(&as);
  }
  return 1;
}

/* The unloadable mark (json: a valid text a reader with doubles cannot
 * load), NULL on either side when absent. */
static int diff_unloadable(const answer *exp, const answer *act, size_t max, sink *k) {
  const char *e = exp->unloadable, *a = act->unloadable;
  if ((!e && !a) || (e && a && strcmp(e, a) == 0)) return 0;
  if (wanted(k)) {
    tbuf es = {0}, as = {0};
    show(&es, e ? e : "(none)", e ? strlen(e) : 6, max);
    show(&as, a ? a : "(none)", a ? strlen(a) : 6, max);
    line_pair(k, "unloadable", es.p, as.p);
    tbuf_free(&es);
    tbuf_free(&as);
  }
  return 1;
}

static int diff_fields(const answer *exp, const answer *act, const diff_opts *o, sink *k) {
  size_t max = o && o->show_bytes ? o->show_bytes : 200;
  unsigned fields = o && o->fields ? o->fields : ~0u;
  int nd = 0;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++)
    if (fields & (1u << c)) nd += diff_channel(exp, act, c, max, k);
  if (fields & ANS_EVENTS) nd += strs_diff(&exp->events, &act->events, "events", k);
  if (o && o->snapshots) nd += strs_diff(&exp->snapshots, &act->snapshots, "snapshots", k);
  if (fields & ANS_VALUE) nd += diff_value(exp, act, max, k) + diff_unloadable(exp, act, max, k);
  if ((fields & ANS_TRUNCATED) && exp->truncated != act->truncated &&
      (exp->truncated >= 0 || act->truncated >= 0)) {
    nd++;
    const char *names[] = {"(none)", "false", "true"};
    if (wanted(k)) line_pair(k, "truncated", names[exp->truncated + 1], names[act->truncated + 1]);
  }
  return nd;
}

int answer_diff(const answer *exp, const answer *act, const diff_opts *o, tbuf *out,
                const char *indent) {
  sink k = {out, indent, o ? o->first : NULL};
  if (act->unreadable) {
    /* nothing else of it can be compared */
    line_pair(&k, "answer", "a line of JSON the runner can read", act->problem);
    return 1;
  }
  int nd = 0;
  if (act->problem) {
    nd++;
    if (k.first && !k.first->field) line_pair(&(sink){NULL, "", k.first}, "answer",
                                              "a well-formed answer", act->problem);
    if (out) tbuf_xprintf(out, "%smalformed answer: %s\n", indent, act->problem);
  }
  if (exp->ok != act->ok) {
    diff_ok(exp, act, &k);
    return nd + 1;
  }
  if (!exp->ok) return nd + diff_error(exp, act, o, &k);
  return nd + diff_fields(exp, act, o, &k);
}
