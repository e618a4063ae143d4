/*
 * test_json.c: properties of the json filter that golden cases cannot state.
 *
 * - Every prefix of a valid JSON document repairs to a text jansson loads
 *   (the untruncate-json property), and so does every incremental snapshot.
 *   Every prefix of every y_ input of the golden suite either repairs to a
 *   loadable text or is "empty" / "no_json".
 * - Repairing the repaired text changes nothing and reports no repair.
 * - A million-deep nesting and a million repairs run without recursion.
 * - Running out of memory at any allocation is SLUICE_NOMEM, never a crash.
 */
#include "sluice_kit.h"
#include "testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_json_push.h"   /* fuzz/: the same grammar, a byte at a time */
#include "fuzz_json_syntax.h" /* fuzz/: the grammar check for texts jansson refuses */


/* ---------------- running the filter ---------------- */

typedef struct result {
  sluice_status st;
  uint64_t err_off;
  char *value; /* the VALUE event's text */
  size_t value_len;
  int complete;
  char unload[32]; /* the VALUE event's reason when the text is not loadable */
  size_t repairs, snapshots, bad_snapshots;
  uint64_t ev_hash; /* FNV-1a over the repair kinds and offsets, in order */
  char *text;
  size_t text_len, text_cap;
  /* snapshots, rebuilt from their tail edits (sluice.h, json): the tail is
   * kept reversed, so that an edit costs its own size */
  int load_snapshots; /* load each rebuilt snapshot with jansson */
  char *rtail;
  size_t rtail_len, rtail_cap;
  uint64_t snap_bytes;     /* bytes carried by all snapshot events */
  size_t snap_max_data;    /* the largest one */
  char *last_snap;         /* the last snapshot rebuilt, when loaded */
  size_t last_snap_len;
  int last_snap_is_value;  /* the last snapshot equals the value */
} result;

/* The value is JSON, and marked not loadable exactly when jansson refuses
 * it, for the reason it gives. */
static int value_ok(const result *r, int deep) {
  const char *why;
  return json_text_check(r->value, r->value_len, deep, &why) && strcmp(why, r->unload) == 0;
}

static json_t *load(const char *p, size_t n) {
  json_t *v = json_loadb(p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
  if (!v) v = json_loadb(p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, NULL);
  return v;
}

static int r_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  result *r = user;
  if (ch != SLUICE_TEXT) return 0;
  if (r->text_len + n + 1 > r->text_cap) {
    r->text_cap = (r->text_len + n + 1) * 2;
    r->text = realloc(r->text, r->text_cap);
    if (!r->text) abort();
  }
  memcpy(r->text + r->text_len, p, n);
  r->text_len += n;
  return 0;
}

/* A snapshot event: offset = TEXT bytes so far (the snapshot's stable
 * prefix), drop `length` bytes from the front of the previous tail, prepend
 * `data`. Checks the edit's bounds, keeps the tail, and loads the rebuilt
 * snapshot when asked. */
static void snapshot_event(result *r, const sluice_event *ev) {
  r->snapshots++;
  r->snap_bytes += ev->data_len;
  if (ev->data_len > r->snap_max_data) r->snap_max_data = ev->data_len;
  if (ev->offset != r->text_len || ev->length > r->rtail_len) {
    r->bad_snapshots++;
    return;
  }
  r->rtail_len -= (size_t)ev->length;
  if (r->rtail_len + ev->data_len > r->rtail_cap) {
    r->rtail_cap = (r->rtail_len + ev->data_len) * 2;
    r->rtail = realloc(r->rtail, r->rtail_cap);
    if (!r->rtail) abort();
  }
  for (size_t k = ev->data_len; k-- > 0;) r->rtail[r->rtail_len++] = ev->data[k];
  if (!r->load_snapshots) return;
  size_t n = r->text_len + r->rtail_len;
  free(r->last_snap);
  r->last_snap = malloc(n + 1);
  if (!r->last_snap) abort();
  if (r->text_len) memcpy(r->last_snap, r->text, r->text_len);
  for (size_t k = 0; k < r->rtail_len; k++)
    r->last_snap[r->text_len + k] = r->rtail[r->rtail_len - 1 - k];
  r->last_snap_len = n;
  if (!json_text_check(r->last_snap, n, 0, NULL)) r->bad_snapshots++;
}

static int r_event(void *user, const sluice_event *ev) {
  result *r = user;
  if (ev->type == SLUICE_EV_REPAIR) {
    r->repairs++;
    if (!r->ev_hash) r->ev_hash = 1469598103934665603ULL;
    for (size_t i = 0; i < ev->name_len; i++)
      r->ev_hash = (r->ev_hash ^ (uint8_t)ev->name[i]) * 1099511628211ULL;
    r->ev_hash = (r->ev_hash ^ ev->offset) * 1099511628211ULL;
  }
  if (ev->type == SLUICE_EV_SNAPSHOT) snapshot_event(r, ev);
  if (ev->type == SLUICE_EV_VALUE) {
    free(r->value);
    r->value = malloc(ev->data_len + 1);
    if (!r->value) abort();
    memcpy(r->value, ev->data, ev->data_len);
    r->value_len = ev->data_len;
    r->complete = ev->complete;
    snprintf(r->unload, sizeof r->unload, "%.*s", (int)(ev->name_len < 31 ? ev->name_len : 31),
             ev->name ? ev->name : "");
    r->last_snap_is_value = r->snapshots && r->rtail_len == 0 && r->text_len == ev->data_len;
    if (r->load_snapshots)
      r->last_snap_is_value = r->last_snap_is_value && r->last_snap_len == ev->data_len &&
                              memcmp(r->last_snap, ev->data, ev->data_len) == 0;
  }
  return 0;
}

/* chunk == 0: one feed; otherwise feeds of `chunk` bytes. Incremental runs
 * load every snapshot unless the input is large. */
static void run(result *r, const char *p, size_t n, size_t chunk, int incremental,
                size_t max_depth) {
  memset(r, 0, sizeof *r);
  r->load_snapshots = incremental && n <= 4096;
  sluice_json_opts o;
  sluice_json_opts_init(&o);
  o.incremental = incremental;
  o.max_depth = max_depth;
  sluice_sink sink = {r_emit, r_event, r};
  sluice_filter *f;
  r->st = sluice_json_new(&f, &o, &sink, NULL, NULL);
  if (r->st != SLUICE_OK) return;
  if (!chunk) chunk = n ? n : 1;
  for (size_t i = 0; i < n && r->st == SLUICE_OK; i += chunk)
    r->st = sluice_feed(f, p + i, n - i < chunk ? n - i : chunk);
  if (r->st == SLUICE_OK) r->st = sluice_finish(f);
  r->err_off = sluice_get_error(f)->offset;
  sluice_free(f);
}

static void result_free(result *r) {
  free(r->value);
  free(r->text);
  free(r->rtail);
  free(r->last_snap);
}

/* ---------------- the prefix property ---------------- */

static const char *const docs[] = {
    "{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"x\", \"y\"], \"ok\": true, \"n\": null}",
    "[1, -2.5e+3, 0, 0.125, 1E5, 12345678901234567890, -0]",
    "{\"s\": \"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00 end\"}",
    "{\"a\": {\"b\": [{\"c\": [[], {}, [[{\"d\": false}]]]}]}, \"e\": \"\"}",
    "{\"utf8\": \"caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8e\x89\"}",
    "  [ true , false , null , \"a b\" , { \"k\" : [ 1 , 2 ] } ]  ",
    "\"a top-level string with \\\"quotes\\\"\"",
    ("{\"tool\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3, "
     "\"units\": [\"C\"], \"extra\": {\"a\": null}}}"),
};

static void prefix_property_doc(const char *doc) {
  size_t n = strlen(doc);
  json_t *want = load(doc, n);
  CHECKF(want != NULL, "document does not load: %s", doc);
  for (size_t k = 1; k <= n; k++) {
    int blank = 1;
    for (size_t i = 0; i < k; i++)
      if (doc[i] != ' ') blank = 0;
    result r;
    run(&r, doc, k, 0, 0, 2048);
    if (blank) {
      CHECKF(r.st == SLUICE_JSON_EMPTY, "blank prefix %zu of %s: %s", k, doc,
            sluice_status_name(r.st));
      result_free(&r);
      continue;
    }
    CHECKF(r.st == SLUICE_OK, "prefix %zu of %s: %s", k, doc, sluice_status_name(r.st));
    if (r.st == SLUICE_OK) {
      json_t *v = load(r.value, r.value_len);
      CHECKF(v != NULL, "prefix %zu of %s gives invalid JSON: %.*s", k, doc, (int)r.value_len,
            r.value);
      CHECKF(r.text_len == r.value_len && memcmp(r.text, r.value, r.value_len) == 0,
            "TEXT differs from the value for prefix %zu of %s", k, doc);
      if (k == n) {
        CHECKF(v && json_equal(v, want), "the whole document changed value: %s", doc);
        CHECKF(r.complete, "the whole document is marked truncated: %s", doc);
        CHECKF(r.repairs == 0, "the whole valid document reported %zu repairs: %s", r.repairs,
              doc);
      }
      json_decref(v);
    }
    result_free(&r);
  }
  /* every snapshot of a byte-at-a-time incremental run is valid JSON, and
   * the last one is the value */
  result r;
  run(&r, doc, n, 1, 1, 2048);
  CHECKF(r.st == SLUICE_OK && r.snapshots > 0 && r.bad_snapshots == 0,
        "incremental run of %s: %zu of %zu snapshots invalid", doc, r.bad_snapshots, r.snapshots);
  CHECKF(r.last_snap_is_value, "incremental run of %s: the last snapshot is not the value", doc);
  result_free(&r);
  json_decref(want);
}

/* Every prefix of every y_ input of the golden suite: a loadable text, or no
 * value at all; and repairing the repaired text is a no-op. */
static size_t suite_inputs_checked;

static void check_suite_input(const char *id, const char *p, size_t n) {
  result whole;
  run(&whole, p, n, 0, 0, 2048);
  if (whole.st == SLUICE_OK) {
    /* idempotence */
    result again;
    run(&again, whole.value, whole.value_len, 0, 0, 2048);
    CHECKF(again.st == SLUICE_OK && again.value_len == whole.value_len &&
              memcmp(again.value, whole.value, whole.value_len) == 0,
          "%s: repairing the repaired text changed it", id);
    CHECKF(again.repairs == 0, "%s: repairing the repaired text reported %zu repairs", id,
          again.repairs);
    result_free(&again);
  }
  result_free(&whole);
  for (size_t k = 0; k <= n; k++) {
    result r;
    run(&r, p, k, 0, 0, 2048);
    if (r.st == SLUICE_OK) {
      /* 1e400 is kept as written and marked: jansson cannot load it */
      CHECKF(value_ok(&r, 0), "%s: prefix %zu gives invalid JSON (or a wrong mark \"%s\"): %.*s",
            id, k, r.unload, (int)r.value_len, r.value);
    } else {
      CHECKF(r.st == SLUICE_JSON_EMPTY || r.st == SLUICE_JSON_NO_VALUE,
            "%s: prefix %zu fails with %s", id, k, sluice_status_name(r.st));
    }
    result_free(&r);
  }
  suite_inputs_checked++;
}

/* The reference keeps its own decisions on i_ cases (the conformance kit
 * only notes a difference there, leaving other implementations free): the
 * answer, with the case's options, equals the recorded one. */
static size_t pinned_checked;

static void check_pinned(const char *id, json_t *opts, const char *p, size_t n, json_t *expect) {
  char *otext = opts ? json_dumps(opts, JSON_COMPACT) : NULL;
  result r;
  memset(&r, 0, sizeof r);
  sluice_sink sink = {r_emit, r_event, &r};
  sluice_filter *f;
  r.st = sluice_filter_new_json(&f, "json", otext, otext ? strlen(otext) : 0, &sink, NULL, NULL);
  free(otext);
  if (r.st == SLUICE_OK) {
    r.st = sluice_once(f, p, n);
    r.err_off = sluice_get_error(f)->offset;
    sluice_free(f);
  }
  json_t *err = json_object_get(expect, "error");
  if (err) {
    json_t *off = json_object_get(err, "offset");
    CHECKF(strcmp(sluice_status_name(r.st), json_string_value(json_object_get(err, "code"))) == 0 &&
              (!off || (json_int_t)r.err_off == json_integer_value(off)),
          "%s: %s at %llu, not the recorded error", id, sluice_status_name(r.st),
          (unsigned long long)r.err_off);
  } else {
    /* the recorded repairs, hashed as r_event hashes them */
    uint64_t h = 0;
    size_t i, nrep = 0;
    json_t *e;
    json_array_foreach(json_object_get(expect, "events"), i, e) {
      const char *kind = json_string_value(json_object_get(e, "kind"));
      if (!kind) continue;
      nrep++;
      if (!h) h = 1469598103934665603ULL;
      for (const char *k = kind; *k; k++) h = (h ^ (uint8_t)*k) * 1099511628211ULL;
      h = (h ^ (uint64_t)json_integer_value(json_object_get(e, "offset"))) * 1099511628211ULL;
    }
    json_t *text = json_object_get(expect, "text");
    CHECKF(r.st == SLUICE_OK && json_is_string(text) && r.value_len == json_string_length(text) &&
              memcmp(r.value, json_string_value(text), r.value_len) == 0 &&
              r.complete == !json_is_true(json_object_get(expect, "truncated")) &&
              r.repairs == nrep && r.ev_hash == h,
          "%s: the reference no longer gives the recorded answer (%s: %.*s)", id,
          sluice_status_name(r.st), (int)r.value_len, r.value ? r.value : "");
  }
  result_free(&r);
  pinned_checked++;
}

/* ---------------- valid JSON is the identity ---------------- */

/* The input without the whitespace between tokens: what the filter must give
 * for valid JSON. */
static size_t strip_ws(const char *p, size_t n, char *out) {
  size_t m = 0;
  int in = 0;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (in) {
      out[m++] = c;
      if (c == '\\' && i + 1 < n) out[m++] = p[++i];
      else if (c == '"') in = 0;
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      out[m++] = c;
      in = c == '"';
    }
  }
  return m;
}

/* Valid JSON in, the same JSON out: no repair, no truncation, the text the
 * input less its whitespace, whole and a byte at a time. */
static size_t identity_checked;

static void check_identity(const char *id, const char *p, size_t n) {
  char *want = malloc(n + 1);
  if (!want) abort();
  size_t wn = strip_ws(p, n, want);
  for (int bytewise = 0; bytewise < 2; bytewise++) {
    result r;
    run(&r, p, n, bytewise, 0, 2048);
    CHECKF(r.st == SLUICE_OK && r.repairs == 0 && r.complete && r.value_len == wn &&
              memcmp(r.value, want, wn) == 0 && value_ok(&r, 0),
          "%s: valid JSON changed (%s, %zu repairs): %.*s", id, sluice_status_name(r.st),
          r.repairs, (int)r.value_len, r.value ? r.value : "");
    result_free(&r);
  }
  free(want);
  identity_checked++;
}

/* Random valid documents: every kind of token, escapes, UTF-8, numbers in
 * all their forms, the four whitespace characters between tokens. */
static void gen_ws(uint64_t *seed, char *d, size_t *n);
static uint64_t rng(uint64_t *s);

static void gen_value(uint64_t *seed, char *d, size_t *n, int depth) {
  static const char *const scalars[] = {
      "0", "-0", "1", "-12", "3.25", "1e5", "2E-3", "-0.0e+0", "12345678901234567890",
      "1.5e300", "true", "false", "null", "\"\"", "\"a b\"", "\"\\\" \\\\ \\/ \\b\\f\\n\\r\\t\"",
      "\"\\u00e9\\ud83d\\ude00\\u0000\"", "\"caf\xc3\xa9 \xe2\x80\x9c \xf0\x9f\x8e\x89\"",
      "\"x, \\\"y\\\": 1}\"", "\"[1] {a} // # /* */\"", "\"' ` \xe2\x80\xa6 ...\"", "\"http://x.y/z?a=1\""};
  uint64_t r = rng(seed) % 10;
  if (depth < 6 && r < 3) {
    int obj = r == 0;
    size_t k = rng(seed) % 4;
    d[(*n)++] = obj ? '{' : '[';
    for (size_t i = 0; i < k; i++) {
      if (i) d[(*n)++] = ',';
      gen_ws(seed, d, n);
      if (obj) {
        const char *key = rng(seed) % 2 ? "\"k\"" : "\"a \\\"q\\\" \xc3\xa9\"";
        memcpy(d + *n, key, strlen(key));
        *n += strlen(key);
        gen_ws(seed, d, n);
        d[(*n)++] = ':';
        gen_ws(seed, d, n);
      }
      gen_value(seed, d, n, depth + 1);
      gen_ws(seed, d, n);
    }
    d[(*n)++] = obj ? '}' : ']';
    return;
  }
  const char *s = scalars[rng(seed) % (sizeof scalars / sizeof scalars[0])];
  memcpy(d + *n, s, strlen(s));
  *n += strlen(s);
}

static void gen_ws(uint64_t *seed, char *d, size_t *n) {
  static const char ws[] = " \t\n\r";
  size_t k = rng(seed) % 4;
  for (size_t i = 0; i < k; i++) d[(*n)++] = ws[rng(seed) % 4];
}

static void valid_identity_property(void) {
  uint64_t seed = 0x2545F4914F6CDD1DULL;
  char *doc = malloc(1 << 20);
  if (!doc) abort();
  size_t before = identity_checked;
  for (int t = 0; t < 5000; t++) {
    size_t n = 0;
    gen_ws(&seed, doc, &n);
    gen_value(&seed, doc, &n, 0);
    gen_ws(&seed, doc, &n);
    char id[32];
    snprintf(id, sizeof id, "random valid %d", t);
    check_identity(id, doc, n);
  }
  CHECKF(identity_checked - before == 5000, "identity: %zu documents", identity_checked - before);
  free(doc);
}

static void suite_property(const char *dir) {
  DIR *d = opendir(dir);
  CHECKF(d != NULL, "cannot open %s", dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    json_t *f = json_load_file(path, JSON_ALLOW_NUL, NULL);
    CHECKF(f != NULL, "cannot load %s", path);
    json_t *fopts = json_object_get(f, "options");
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(f, "cases"), i, c) {
      const char *id = json_string_value(json_object_get(c, "id"));
      json_t *in = json_object_get(c, "input");
      json_t *opts = json_object_get(c, "options");
      if (!opts) opts = fopts;
      json_t *expect = json_object_get(c, "expect");
      if (id && id[0] == 'i' && expect && json_is_string(in))
        check_pinned(id, opts, json_string_value(in), json_string_length(in), expect);
      /* plain string inputs with the default options (incremental too) */
      if (!id || id[0] != 'y' || !json_is_string(in) ||
          (opts && json_object_get(opts, "max_depth")))
        continue;
      check_suite_input(id, json_string_value(in), json_string_length(in));
      const char *src = json_string_value(json_object_get(c, "source"));
      if (src && strncmp(src, "JSONTestSuite", 13) == 0)
        check_identity(id, json_string_value(in), json_string_length(in));
    }
    json_decref(f);
  }
  closedir(d);
}

/* ---------------- random documents ---------------- */

/* Fragments LLM output is made of, glued at random: every result must be
 * the same for every chunking, load in jansson, and repair to itself. */
/* (No "e" after a digit: an exponent like 1e900 is kept as written and
 * jansson rejects it.) */
static const char *const frags[] = {
    "{", "}", "[", "]", ",", ":", " ", "\n", "\"", "'", "\\", "u", "d83d", "de00", "00b1",
    "1", "-", ".", "0", "tr", "ue", "nul", "Non", "a", "key", "/", "*", "#", "```", "`",
    "\xc3\xa9", "\xe2\x80\x9c", "\xe2\x80\x9d", "\xff", "\t", "n", "x y", "json\n",
    /* issue 14 */
    "+", "...", "\xe2\x80\xa6", "ObjectId(", "NumberLong(", "new Date(", "Timestamp(1, 2)", ")",
    "cb(", ";", "0x1F", "05", "+1", ".5", "NaN", "-Infinity", "2024-01-02T10:00", "12abc",
    ", \"k\": ", "\\\"", "\"{\\\"", "https://x/y",
};

static uint64_t rng(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* 1 to max_parts fragments glued at random into doc (room for 60 of the
 * longest); their length. */
static size_t gen_frags(uint64_t *seed, char *doc, size_t max_parts) {
  size_t n = 0, parts = 1 + rng(seed) % max_parts;
  for (size_t k = 0; k < parts; k++) {
    const char *f = frags[rng(seed) % (sizeof frags / sizeof frags[0])];
    size_t l = strlen(f);
    memcpy(doc + n, f, l);
    n += l;
  }
  return n;
}

static void random_property(void) {
  uint64_t seed = 0x9E3779B97F4A7C15ULL;
  char doc[1024];
  size_t checked = 0;
  for (int t = 0; t < 20000; t++) {
    size_t n = gen_frags(&seed, doc, 60);
    result a, b;
    run(&a, doc, n, 0, 0, 2048);
    run(&b, doc, n, 1 + rng(&seed) % 7, 1, 2048);
    CHECKF(a.st == b.st && a.err_off == b.err_off, "random %d: status differs by chunking", t);
    if (a.st == SLUICE_OK && b.st == SLUICE_OK) {
      CHECKF(a.value_len == b.value_len && memcmp(a.value, b.value, a.value_len) == 0 &&
                a.complete == b.complete && a.ev_hash == b.ev_hash && a.repairs == b.repairs,
            "random %d: the answer differs by chunking: %.*s", t, (int)n, doc);
      CHECKF(b.bad_snapshots == 0 && b.last_snap_is_value,
            "random %d: an invalid snapshot, or the last is not the value: %.*s", t, (int)n, doc);
      json_t *v = load(a.value, a.value_len);
      CHECKF(v != NULL, "random %d: invalid JSON %.*s from %.*s", t, (int)a.value_len, a.value,
            (int)n, doc);
      json_decref(v);
      result c;
      run(&c, a.value, a.value_len, 0, 0, 2048);
      CHECKF(c.st == SLUICE_OK && c.repairs == 0 && c.value_len == a.value_len &&
                memcmp(c.value, a.value, a.value_len) == 0,
            "random %d: not idempotent: %.*s", t, (int)a.value_len, a.value);
      result_free(&c);
      checked++;
    }
    result_free(&a);
    result_free(&b);
  }
  CHECKF(checked > 10000, "only %zu random documents gave a value", checked);
}

/* ---------------- the grammar a byte at a time ---------------- */

/* fuzz_json_push.h against the whole-text checks, for p[0..n): read whole
 * and resumed from a copy taken at every cut, non-strict it is
 * json_syntax_ok exactly; strict it accepts no more than that, and nothing
 * json_text_check refuses (at a depth jansson takes). */
static size_t push_valid, push_strict_valid;

static void push_agrees(const char *p, size_t n) {
  int want = json_syntax_ok(p, n);
  jpush a, b, c;
  jp_init(&a, 0);
  jp_init(&b, 0);
  jp_init(&c, 1);
  jp_feed(&a, p, n);
  CHECKF(jp_complete(&a) == want, "push grammar: %d, json_syntax_ok %d: %.*s", jp_complete(&a),
         want, (int)n, p);
  jp_feed(&c, p, n);
  int strict = jp_complete(&c) && c.peak <= 2048;
  CHECKF(!strict || want, "push grammar: strict accepts what json_syntax_ok refuses: %.*s", (int)n, p);
  CHECKF(!strict || json_text_check(p, n, 0, NULL),
         "push grammar: strict accepts what json_text_check refuses: %.*s", (int)n, p);
  push_valid += (size_t)want;
  push_strict_valid += (size_t)strict;
  jp_free(&a);
  jp_init(&a, 0);
  for (size_t k = 0; k <= n; k++) { /* a: p[0..k), b: a copy of it, then the rest */
    jp_copy(&b, &a);
    jp_feed(&b, p + k, n - k);
    CHECKF(jp_complete(&b) == want, "push grammar: resumed at %zu, %d: %.*s", k, jp_complete(&b),
           (int)n, p);
    if (k < n) jp_feed(&a, p + k, 1);
  }
  jp_free(&a);
  jp_free(&b);
  jp_free(&c);
}

static void push_grammar_property(void) {
  /* jansson's surrogate rules, which only strict keeps */
  static const struct {
    const char *text;
    int strict;
  } sur[] = {
      {"\"\\ud83d\\ude00\"", 1}, {"\"\\ud83d\"", 0},        {"\"\\ude00\"", 0},
      {"\"\\ud83dx\"", 0},         {"\"\\ud83d\\u0041\"", 0}, {"[\"\\uDBFF\\uDFFF\"]", 1},
      {"\"\\ud83d\\ud83d\"", 0},  {"{\"\\ud800\\udc00\":1}", 1},
  };
  for (size_t i = 0; i < sizeof sur / sizeof sur[0]; i++) {
    const char *t = sur[i].text;
    jpush j;
    jp_init(&j, 1);
    jp_feed(&j, t, strlen(t));
    CHECKF(jp_complete(&j) == sur[i].strict, "push grammar: strict %d on %s", jp_complete(&j), t);
    CHECKF(json_text_check(t, strlen(t), 0, NULL) == sur[i].strict,
           "push grammar: jansson does not read %s as strict does", t);
    jp_free(&j);
    push_agrees(t, strlen(t));
  }
  /* every rule's edge, each way (lengths given: some hold a NUL) */
  static const struct {
    const char *text;
    size_t n;
  } edges[] = {
      {"1.", 2},          {"[1.]", 4},        {"1.5", 3},         {"-", 1},
      {"-0", 2},          {"-01", 3},         {"01", 2},          {"1e", 2},
      {"1e+", 3},         {"1E-5", 4},        {"1.0e+05", 7},     {"0e", 2},
      {"tru", 3},         {"nul", 3},         {"falsey", 6},      {"true ", 5},
      {"[1,]", 4},        {"[,1]", 4},        {"[]", 2},          {"[ ]", 3},
      {"{}", 2},          {"{,}", 3},         {"{\"a\":1,}", 8},   {"{\"a\" 1}", 7},
      {"{\"a\":}", 6},     {"{1:2}", 5},       {"[1]]", 4},        {"[1}", 3},
      {" \t\n\r1 ", 6},   {"\f1", 2},         {"\xef\xbb\xbf" "1", 4}, {"1 2", 3},
      {"\"\\\0\"", 4},     {"\"\\x\"", 4},     {"\"\\/\"", 4},     {"\"\x1f\"", 3},
      {"\"\x7f\"", 3},      {"\"\0\"", 3},       {"\"\\u12G4\"", 8}, {"\"\\u12\"", 6},
      {"\"\xc3\xa9\"", 4},  {"\"\xc3\"", 3},     {"\"\xed\xa0\x80\"", 5}, {"\"\xed\x9f\xbf\"", 5},
      {"\"\xe0\x9f\xbf\"", 5}, {"\"\xf0\x90\x80\x80\"", 6}, {"\"\xf4\x90\x80\x80\"", 6}, {"\"\xc1\xbf\"", 4},
      {"\"\xf5\x80\x80\x80\"", 6}, {"\"\x80\"", 3}, {"\"a", 2},          {"", 0},
      {"true\0", 5},     {"[true,false,null]", 17}, {"{\"a\":[{\"b\":-1.5e3}]}", 20}, {" ", 1},
  };
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) push_agrees(edges[i].text, edges[i].n);
  /* the random documents of random_property, what the filter makes of
   * them (JSON), and that with a byte changed or cut */
  uint64_t seed = 0x2545F4914F6CDD1DULL;
  char doc[1024];
  for (int t = 0; t < 3000; t++) {
    size_t n = gen_frags(&seed, doc, 40);
    push_agrees(doc, n);
    result a;
    run(&a, doc, n, 0, 0, 2048);
    if (a.st == SLUICE_OK && a.value_len < sizeof doc) {
      push_agrees(a.value, a.value_len);
      memcpy(doc, a.value, a.value_len);
      n = a.value_len;
      if (n) {
        static const char swaps[] = "\"\\u0e.-+]}[{:, \x01\xc3";
        doc[rng(&seed) % n] = swaps[rng(&seed) % (sizeof swaps - 1)];
        push_agrees(doc, n);
        push_agrees(doc, rng(&seed) % n);
      }
    }
    result_free(&a);
  }
  CHECKF(push_valid > 2000 && push_strict_valid > 2000,
         "push grammar: only %zu texts JSON (%zu strict)", push_valid, push_strict_valid);
}

/* ---------------- prose ---------------- */

/* Pieces of prose, with what triggers the rules of issue 14: commas before
 * quoted words and colons, calls, '+', ellipses, dates, hex, NaN. */
static const char *const prose_words[] = {
    "Sure", "here", "is", "the", "answer", ",", ":", ";", ".", "!", "?", "\"", "'",
    "(", ")", "note(important)", "callback", "+", "...", "\xe2\x80\xa6", "2024-01-02", "10:30",
    "42", "-1", "0x1F", "NaN", "True", "None", "\"key\": ", ", \"b\": ", "\n", " ", " ", " ",
    "https://x.y/z", "ObjectId(\"a\")", "\\\"", "\\", "#", "//", "/*", "*/", "caf\xc3\xa9",
};

/* No key is ever made up from prose: text without '{' or '[' gives no value
 * or a scalar (never an object or array), and prose inside a valid string
 * comes back unchanged (no rule fires inside a string). */
static void prose_property(void) {
  uint64_t seed = 0xC2B2AE3D27D4EB4FULL;
  size_t nw = sizeof prose_words / sizeof prose_words[0], scalars = 0;
  char doc[2048], wrapped[4200];
  for (int t = 0; t < 20000; t++) {
    size_t n = 0, parts = 1 + rng(&seed) % 40;
    for (size_t k = 0; k < parts; k++) {
      const char *w = prose_words[rng(&seed) % nw];
      memcpy(doc + n, w, strlen(w));
      n += strlen(w);
    }
    result r;
    run(&r, doc, n, 1 + rng(&seed) % 5, 0, 2048);
    CHECKF(r.st == SLUICE_OK || r.st == SLUICE_JSON_NO_VALUE || r.st == SLUICE_JSON_EMPTY,
          "prose %d: %s: %.*s", t, sluice_status_name(r.st), (int)n, doc);
    if (r.st == SLUICE_OK) {
      scalars++;
      CHECKF(r.value_len && r.value[0] != '{' && r.value[0] != '[',
            "prose %d made up a container: %.*s from %.*s", t, (int)r.value_len, r.value, (int)n,
            doc);
    }
    result_free(&r);
    /* the same prose as a string value, escaped as JSON: unchanged */
    size_t m = 0;
    memcpy(wrapped, "{\"text\": \"", 10);
    m = 10;
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)doc[i];
      if (c == '"' || c == '\\') wrapped[m++] = '\\';
      if (c == '\n') {
        wrapped[m++] = '\\';
        c = 'n';
      }
      wrapped[m++] = (char)c;
    }
    memcpy(wrapped + m, "\", \"n\": 1}", 10);
    m += 10;
    run(&r, wrapped, m, 1 + rng(&seed) % 5, 0, 2048);
    json_t *want = load(wrapped, m), *got = r.st == SLUICE_OK ? load(r.value, r.value_len) : NULL;
    CHECKF(want && got && json_equal(want, got) && r.repairs == 0,
          "prose %d inside a string changed: %.*s", t, (int)m, wrapped);
    json_decref(want);
    json_decref(got);
    result_free(&r);
  }
  CHECKF(scalars > 100, "only %zu prose inputs gave a scalar", scalars);
}

/* ---------------- no recursion ---------------- */

static void deep_and_many(void) {
  const size_t N = 1000000;
  char *p = malloc(2 * N + 8);
  if (!p) abort();
  memset(p, '[', N);
  memset(p + N, ']', N);
  result r;
  run(&r, p, 2 * N, 0, 0, 0);
  CHECKF(r.st == SLUICE_OK && r.complete && r.repairs == 0 && r.value_len == 2 * N &&
            memcmp(r.value, p, 2 * N) == 0,
        "a million-deep nesting did not pass through unchanged");
  result_free(&r);
  /* truncated: a million closers appended in stack order, fed in chunks
   * with a snapshot after each */
  memset(p, '[', N);
  p[N] = '1';
  run(&r, p, N + 1, 4096, 1, 0);
  /* (the snapshots are too deep for jansson: only counted) */
  CHECKF(r.st == SLUICE_OK && !r.complete && r.value_len == 2 * N + 1 &&
            r.snapshots == (N + 1 + 4095) / 4096 + 1 && r.last_snap_is_value,
        "a million-deep truncated nesting: status %s, %zu bytes", sluice_status_name(r.st),
        r.value_len);
  if (r.value_len == 2 * N + 1)
    CHECKF(r.value[N] == '1' && r.value[N + 1] == ']' && r.value[2 * N] == ']',
          "closers of the truncated nesting are wrong");
  result_free(&r);
  /* objects: every level gets its closer after a null for the last key */
  size_t M = 200000, k = 0;
  for (size_t i = 0; i < M; i++) {
    memcpy(p + k, "{\"a\":", 5);
    k += 5;
  }
  run(&r, p, k, 1000, 0, 0);
  CHECKF(r.st == SLUICE_OK && !r.complete && r.value_len == k + 4 + M &&
            memcmp(r.value + k, "null}", 5) == 0 && r.value[k + 3 + M] == '}',
        "deep truncated objects: %s, %zu bytes", sluice_status_name(r.st), r.value_len);
  result_free(&r);
  /* the default limit: an error with the offset of the bracket, no crash */
  memset(p, '[', N);
  run(&r, p, N, 0, 0, 2048);
  CHECKF(r.st == SLUICE_JSON_DEPTH && r.err_off == 2048, "depth limit: %s at %llu",
        sluice_status_name(r.st), (unsigned long long)r.err_off);
  result_free(&r);
  /* at the default limit the repaired text loads in jansson: 2048 empty
   * levels, 2047 around a scalar, 2046 around an object whose key gets a
   * null (truncated) */
  static const char *const inner[] = {"", "1", "{\"k\""};
  for (int t = 0; t < 3; t++) {
    size_t d = (size_t)2048 - (size_t)t; /* the object is a level too */
    memset(p, '[', d);
    strcpy(p + d, inner[t]);
    run(&r, p, d + strlen(inner[t]), 0, 0, 2048);
    json_t *v = r.st == SLUICE_OK ? load(r.value, r.value_len) : NULL;
    CHECKF(v != NULL, "%zu levels around \"%s\" do not load", d, inner[t]);
    json_decref(v);
    result_free(&r);
    /* one level more is an error, never a text jansson rejects */
    memset(p, '[', d + 1);
    strcpy(p + d + 1, inner[t]);
    run(&r, p, d + 1 + strlen(inner[t]), 0, 0, 2048);
    CHECKF(r.st == SLUICE_JSON_DEPTH, "%zu levels around \"%s\": %s", d + 1, inner[t],
          sluice_status_name(r.st));
    result_free(&r);
  }
  /* a million repairs: missing commas and trailing commas */
  for (size_t i = 0; i < N; i++) {
    p[2 * i] = '1';
    p[2 * i + 1] = (i % 2) ? ' ' : ',';
  }
  p[0] = '[';
  p[2 * N - 1] = ']';
  run(&r, p, 2 * N, 0, 0, 2048);
  CHECKF(r.st == SLUICE_OK && r.repairs == N / 2, "a million repairs: %zu reported", r.repairs);
  json_t *arr = r.st == SLUICE_OK ? load(r.value, r.value_len) : NULL;
  CHECKF(arr && json_array_size(arr) == N - 1, "a million repairs: %zu values",
        arr ? json_array_size(arr) : 0);
  json_decref(arr);
  result_free(&r);
  free(p);
}

/* ---------------- snapshot sizes ---------------- */

/* Feeds p[0..n) one byte at a time with incremental on. */
static void run_bytewise(result *r, const char *p, size_t n, size_t max_depth, int load_each) {
  run(r, p, n, 1, 1, max_depth);
  if (!load_each || r->st != SLUICE_OK) return;
  result_free(r); /* again, loading every snapshot (small inputs only) */
  memset(r, 0, sizeof *r);
  r->load_snapshots = 1;
  sluice_json_opts o;
  sluice_json_opts_init(&o);
  o.incremental = 1;
  o.max_depth = max_depth;
  sluice_sink sink = {r_emit, r_event, r};
  sluice_filter *f;
  if ((r->st = sluice_json_new(&f, &o, &sink, NULL, NULL)) != SLUICE_OK) return;
  for (size_t i = 0; i < n && r->st == SLUICE_OK; i++) r->st = sluice_feed(f, p + i, 1);
  if (r->st == SLUICE_OK) r->st = sluice_finish(f);
  sluice_free(f);
}

/* A snapshot after every feed costs what changed since the last one, not
 * the prefix: the bytes of all snapshot events stay proportional to the
 * input, however deep it nests. */
static void snapshot_sizes(void) {
  const size_t N = 65536;
  char *p = malloc(200000);
  if (!p) abort();
  result r;
  /* 64 K feeds of one '[' each, no depth limit */
  memset(p, '[', N);
  run_bytewise(&r, p, N, 0, 0);
  CHECKF(r.st == SLUICE_OK && r.snapshots == N + 1 && r.bad_snapshots == 0 &&
            r.last_snap_is_value && r.snap_bytes <= 2 * N && r.snap_max_data <= 2,
        "64K one-byte '[' feeds: %s, %zu snapshots, %llu bytes of snapshots (largest %zu)",
        sluice_status_name(r.st), r.snapshots, (unsigned long long)r.snap_bytes,
        r.snap_max_data);
  result_free(&r);
  /* shallow enough for jansson: every rebuilt snapshot loads */
  run_bytewise(&r, p, 2000, 0, 1);
  CHECKF(r.st == SLUICE_OK && r.snapshots == 2001 && r.bad_snapshots == 0 && r.last_snap_is_value,
        "2000 one-byte '[' feeds: %zu of %zu snapshots invalid", r.bad_snapshots, r.snapshots);
  result_free(&r);
  /* 96 KB of records with every kind of token, a byte at a time */
  size_t n = 0;
  for (unsigned i = 0; n < 96 * 1024; i++)
    n += (size_t)snprintf(p + n, 200000 - n,
                          "%s{\"id\": %u, \"name\": 'item %u', ok: True, \"tags\": [\"a\", "
                          "\"b\"], \"x\": {\"y\": [1.5e3, null, \"caf\xc3\xa9\"]}}",
                          i ? ", " : "[", i, i);
  run_bytewise(&r, p, n, 0, 0);
  CHECKF(r.st == SLUICE_OK && r.snapshots == n + 1 && r.bad_snapshots == 0 &&
            r.last_snap_is_value && r.snap_bytes <= 8 * n && r.snap_max_data <= 64,
        "96 KB a byte at a time: %s, %llu bytes of snapshots for %zu input bytes (largest %zu)",
        sluice_status_name(r.st), (unsigned long long)r.snap_bytes, n, r.snap_max_data);
  result_free(&r);
  /* nested objects with a dangling key at every level */
  n = 0;
  for (size_t i = 0; i < 20000; i++) {
    memcpy(p + n, "{\"k\": ", 6);
    n += 6;
  }
  run_bytewise(&r, p, n, 0, 0);
  CHECKF(r.st == SLUICE_OK && r.bad_snapshots == 0 && r.last_snap_is_value &&
            r.snap_bytes <= 4 * n && r.snap_max_data <= 16,
        "nested dangling keys: %s, %llu bytes of snapshots for %zu input bytes",
        sluice_status_name(r.st), (unsigned long long)r.snap_bytes, n);
  result_free(&r);
  free(p);
}

/* The holds of issue 27 a byte at a time with a snapshot after each: a
 * closer after a missing quote (the snapshot closes the string before it
 * and takes the frames it closes), a mismatched closer waiting for the next
 * token, a word after a quote and a line break. Every snapshot loads; the
 * last one is the value. */
static void held_snapshots(void) {
  static const char *const ins[] = {
      "{\"a\": [{\"b\": \"x]}  ]} \n", "{\"a\": [{\"b\": \"x]}  ]} y\"}]}",
      "{\"k\": [\"v1\",\"v2\"}  , \"k2\": [1}}", "[{\"a\": 1]  ",
      "{\n \"a\": \"John\"\n  last name: Smith\n}", "[\"say \"hi\"\nthere now\"]",
      "[[[[{\"a\": \"b}}}}", "[{\"i\":1{\"i\":2,{\"i\":[3}, 4]",
  };
  for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
    result r;
    run_bytewise(&r, ins[i], strlen(ins[i]), 2048, 1);
    CHECKF(r.st == SLUICE_OK && r.bad_snapshots == 0 && r.last_snap_is_value &&
              r.snapshots == strlen(ins[i]) + 1,
          "held input %zu: %zu of %zu snapshots invalid, or the last is not the value: %s", i,
          r.bad_snapshots, r.snapshots, ins[i]);
    result_free(&r);
  }
}

/* ---------------- out of memory ---------------- */

static void nomem(void) {
  const char *in = "Sure! ```json\n{a: 'x\\u00e9', \"b\": [1 2, tru, \"" /* many repairs */
                   "long string long string long string long string\", {\"c\": nul";
  size_t n = strlen(in);
  int saw_nomem = 0, saw_ok = 0;
  /* the Nth allocation fails, for every N until a run needs no failure */
  for (long k = 0; k < 100000 && !saw_ok; k++) {
    test_faulty fa;
    sluice_mem m = test_faulty_mem(&fa, k);
    result r;
    memset(&r, 0, sizeof r);
    sluice_json_opts o;
    sluice_json_opts_init(&o);
    o.incremental = 1;
    sluice_sink sink = {r_emit, r_event, &r};
    sluice_filter *f;
    sluice_status st = sluice_json_new(&f, &o, &sink, &m, NULL);
    if (st == SLUICE_OK) {
      for (size_t i = 0; i < n && st == SLUICE_OK; i += 7)
        st = sluice_feed(f, in + i, n - i < 7 ? n - i : 7);
      if (st == SLUICE_OK) st = sluice_finish(f);
      sluice_free(f);
    }
    CHECKF(fa.failed ? st == SLUICE_NOMEM : st == SLUICE_OK, "allocation %ld: %s", k,
          sluice_status_name(st));
    CHECKF(fa.live == 0, "allocation %ld: %ld blocks leaked", k, fa.live);
    if (st == SLUICE_NOMEM) saw_nomem = 1;
    if (st == SLUICE_OK) saw_ok = 1;
    result_free(&r);
  }
  CHECKF(saw_nomem && saw_ok, "failure injection reached neither outcome");
}

int main(int argc, char **argv) {
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) prefix_property_doc(docs[i]);
  for (int a = 1; a < argc; a++) suite_property(argv[a]); /* json, json-testsuite */
  if (argc > 1) {
    CHECKF(suite_inputs_checked >= 300, "only %zu suite inputs checked", suite_inputs_checked);
    CHECKF(pinned_checked >= 20, "only %zu i_ cases checked", pinned_checked);
  }
  if (argc > 2) CHECKF(identity_checked == 95, "%zu JSONTestSuite y_ files, not 95", identity_checked);
  valid_identity_property();
  random_property();
  push_grammar_property();
  prose_property();
  deep_and_many();
  snapshot_sizes();
  held_snapshots();
  nomem();
  if (failures) {
    fprintf(stderr, "test_json: %d failures\n", failures);
    return 1;
  }
  printf("test_json: ok (%zu suite inputs, %zu i_ answers)\n", suite_inputs_checked,
         pinned_checked);
  return 0;
}
