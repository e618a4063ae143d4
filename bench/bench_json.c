/*
 * bench_json.c: `sluice bench json`, throughput of the JSON sanitizer.
 *
 * Generated inputs of at least 8 MB each: valid JSON, JSON with a trailing
 * comma in every object and array, JavaScript-ish LLM output with a repair
 * every few bytes, a fenced document cut off in the middle of a string, an
 * array nested one million deep, one input per rule of issue 14 (missing
 * quotes, unquoted values, wrapper calls, concatenation, ellipses, number
 * forms, a stringified document, NDJSON), and incremental mode fed a byte at
 * a time. For each: the repair pass alone (text out, no parse) in MB/s, at
 * N/2 and N bytes to show linear scaling, and the repair pass plus jansson's
 * load of the repaired text against jansson's own load of that text. Times
 * are CPU time, the median of --reps runs. A benchmark, not a test: it
 * prints figures and the targets, and never fails on speed.
 */
#include "harness.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

static const opt_cmd json_cmd = {
    .name = "bench json",
    .synopsis = "[options]",
    .intro =
        "Generates N MiB (default 8) of each input kind and runs the json filter\n"
        "over it in chunks of --chunk bytes (default 65536; the incremental kinds\n"
        "feed one byte at a time). Prints, per kind, the repair pass in MB/s at half\n"
        "and full size (time ratio ~2 = linear), the number of repairs, jansson's\n"
        "load of the repaired text, and repair plus load against load alone. CPU-time\n"
        "medians of --reps runs (default 5). --text runs the kinds whose name\n"
        "contains NAME.\n"
        "Targets: repair pass >= 300 MB/s on the repair-heavy input (llm-messy);\n"
        "repair plus jansson within 25% of jansson's own load time.\n",
};

typedef struct buf {
  char *p;
  size_t n, cap;
} buf;

static void add(buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = (b->n + n + 1) * 2;
    b->p = realloc(b->p, b->cap);
    if (!b->p) abort();
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}
#define ADDS(b, s) add((b), (s), strlen(s))

/* One record of the document; trailing commas when `tc`. */
static void record(buf *b, unsigned long i, int tc) {
  char tmp[512];
  int n = snprintf(tmp, sizeof tmp,
                   "{\"id\": %lu, \"name\": \"item %lu\", \"tags\": [\"alpha\", \"beta\"%s], "
                   "\"score\": %lu.25, \"ok\": %s, \"text\": \"a \\\"quoted\\\" caf\xc3\xa9 "
                   "line\\nwith escapes \\u00e9 and more words to read\", \"nested\": "
                   "{\"a\": [1, 2, 3%s], \"b\": null%s}%s}",
                   i, i, tc ? "," : "", i % 1000, (i & 1) ? "true" : "false", tc ? "," : "",
                   tc ? "," : "", tc ? "," : "");
  add(b, tmp, (size_t)n);
}

/* JavaScript-ish LLM output: unquoted keys, single quotes, Python
 * constants, comments, missing and trailing commas: about one repair every
 * 12 bytes. */
static void messy_record(buf *b, unsigned long i) {
  char tmp[512];
  int n = snprintf(tmp, sizeof tmp,
                   "{id: %lu, name: 'item %lu', ok: %s, none: None, // note\n"
                   "tags: ['alpha' 'beta',], score: %lu.25, text: \"it's \"so\" good\"}",
                   i, i, (i & 1) ? "True" : "False", i % 1000);
  add(b, tmp, (size_t)n);
}

enum kind {
  K_VALID, K_TRAILING, K_MESSY, K_FENCED, K_DEEP,
  /* one input per rule of issue 14 */
  K_QUOTES, K_UNQUOTED, K_CALLS, K_CONCAT, K_ELLIPSIS, K_NUMBERS, K_STRINGIFIED, K_NDJSON,
  /* incremental mode, a byte at a time */
  K_INC_BYTES, K_INC_DEEP, K_COUNT
};
static const char *const kind_names[K_COUNT] = {
    "valid", "trailing-commas", "llm-messy", "fenced-truncated", "deep-1M",
    "missing-quote", "unquoted", "calls", "concat", "ellipsis", "numbers", "stringified",
    "ndjson", "inc-bytes", "inc-deep"};

/* The record of each rule's input (every conversion takes the record
 * number). */
static const char *const rule_records[K_COUNT] = {
    [K_QUOTES] = "{\"id\": %lu, \"note\": \"done, see %lu, \"next\": [1, \"x, \"y\"]}",
    [K_UNQUOTED] = "{id: 746de9ad-d4ff-4c66-97d7-%012lu, at: 2024-01-02T10:00:%02lu, "
                   "url: https://x.io/a/%lu?q=1, v: 1.2.%lu, code: 0%lu}",
    [K_CALLS] = "{\"_id\": ObjectId(\"%024lu\"), \"n\": NumberLong(%lu), "
                "\"t\": new Date(%lu), \"ts\": Timestamp(%lu, 1)}",
    [K_CONCAT] = "{\"s\": \"part %lu\" + \" and \" +\n \"part %lu\"}",
    [K_ELLIPSIS] = "{\"a\": [%lu, %lu, ..., \xe2\x80\xa6], \"b\": 2, ...}",
    [K_NUMBERS] = "[0%lu, +%lu, .%lu, 0x%lx, NaN, -Infinity, %lu., 2.e5]",
    [K_STRINGIFIED] = "{\\\"id\\\": %lu, \\\"s\\\": \\\"a \\\\\\\"q\\\\\\\" \\\\u00e9\\\"}",
    [K_NDJSON] = "{\"id\": %lu, \"tags\": [\"a\", \"b\"], \"ok\": true}",
};

/* Options and chunking per kind (0: the --chunk size). */
static int kind_ndjson(enum kind k) { return k == K_NDJSON; }
static int kind_incremental(enum kind k) { return k == K_INC_BYTES || k == K_INC_DEEP; }

static buf generate(enum kind k, size_t size) {
  buf b = {NULL, 0, 0};
  if (k == K_DEEP) {
    /* one million levels, with a small object at each, at least `size` bytes */
    size_t levels = 1000000, per = size / levels > 10 ? size / levels - 10 : 1;
    char *pad = malloc(per + 1);
    memset(pad, 'v', per);
    pad[per] = '\0';
    for (size_t i = 0; i < levels; i++) {
      ADDS(&b, "[{\"k\":\"");
      ADDS(&b, pad);
      ADDS(&b, "\"},");
    }
    for (size_t i = 0; i < levels; i++) ADDS(&b, "]");
    free(pad);
    return b;
  }
  if (rule_records[k]) {
    const char *sep = k == K_NDJSON ? "\n" : k == K_STRINGIFIED ? ", " : ",\n ";
    ADDS(&b, k == K_STRINGIFIED ? "\"[" : k == K_NDJSON ? "" : "[");
    for (unsigned long i = 0; b.n < size; i++) {
      char tmp[512];
      int n = snprintf(tmp, sizeof tmp, rule_records[k], i, i % 60, i, i, i);
      if (i) ADDS(&b, sep);
      add(&b, tmp, (size_t)n);
    }
    ADDS(&b, k == K_STRINGIFIED ? "]\"" : k == K_NDJSON ? "\n" : "]");
    return b;
  }
  if (k == K_INC_DEEP) { /* the nesting of issue 14: '[' after '[' */
    size_t n = size / 16;
    b.p = malloc(n + 1);
    if (!b.p) abort();
    memset(b.p, '[', n);
    b.n = b.cap = n;
    b.p[n] = '\0';
    return b;
  }
  if (k == K_INC_BYTES) size /= 16; /* a snapshot per byte: a smaller input */
  if (k == K_FENCED) ADDS(&b, "Here is the data you asked for:\n```json\n");
  ADDS(&b, "[");
  for (unsigned long i = 0; b.n < size; i++) {
    if (i) ADDS(&b, k == K_MESSY ? "\n " : ",\n ");
    if (k == K_MESSY) messy_record(&b, i);
    else record(&b, i, k == K_TRAILING || k == K_INC_BYTES);
  }
  if (k == K_FENCED) {
    /* cut in the middle of the last record's text string */
    char *q = strstr(b.p + b.n - 400, "line\\nwith");
    b.n = (size_t)(q - b.p) + 2;
    b.p[b.n] = '\0';
  } else {
    ADDS(&b, k == K_TRAILING ? ",]" : "]");
  }
  return b;
}

char *bench_json_text(const char *kind, size_t size, size_t *n) {
  for (int k = 0; k < K_COUNT; k++)
    if (strcmp(kind_names[k], kind) == 0) {
      buf b = generate((enum kind)k, size);
      *n = b.n;
      return b.p;
    }
  return NULL;
}

typedef struct outc {
  buf text;
  size_t repairs, streamed;
  uint64_t snapshot_bytes; /* carried by the snapshot events */
} outc;

/* The text streams on TEXT; the sink only counts it (what a caller that
 * forwards it does), and keeps the VALUE event's copy for the load. */
static int o_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  outc *o = user;
  (void)p;
  if (ch == SLUICE_TEXT) o->streamed += n;
  return 0;
}

static int o_event(void *user, const sluice_event *ev) {
  outc *o = user;
  if (ev->type == SLUICE_EV_REPAIR) o->repairs++;
  if (ev->type == SLUICE_EV_VALUE) add(&o->text, ev->data, ev->data_len);
  if (ev->type == SLUICE_EV_SNAPSHOT) o->snapshot_bytes += ev->data_len;
  return 0;
}

typedef struct repair_run {
  enum kind k;
  const char *p;
  size_t n, chunk;
  outc *o;
  int failed;
} repair_run;

static void repair_body(void *v) {
  repair_run *r = v;
  outc *o = r->o;
  o->text.n = 0;
  o->repairs = 0;
  o->streamed = 0;
  o->snapshot_bytes = 0;
  sluice_json_opts opts;
  sluice_json_opts_init(&opts);
  opts.max_depth = 0;
  opts.ndjson = kind_ndjson(r->k);
  opts.incremental = kind_incremental(r->k);
  sluice_sink sink = {o_emit, o_event, o};
  sluice_filter *f;
  if (sluice_json_new(&f, &opts, &sink, NULL, NULL) != SLUICE_OK) {
    r->failed = 1;
    return;
  }
  if (bench_feed(f, r->p, r->n, r->chunk, NULL) != SLUICE_OK) r->failed = 1;
  sluice_free(f);
}

/* The repair pass: CPU seconds (median of reps); the text and repair count
 * of the last run stay in *o. */
static double repair_pass(enum kind k, const char *p, size_t n, size_t chunk, int reps,
                          outc *o) {
  repair_run r = {k, p, n, chunk, o, 0};
  bench_time t = bench_measure(repair_body, &r, reps, 1);
  return r.failed ? -1 : t.cpu;
}

typedef struct load_run {
  const char *p;
  size_t n;
  int ok;
} load_run;

static void load_body(void *v) {
  load_run *r = v;
  json_t *j = json_loadb(r->p, r->n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
  r->ok = j != NULL;
  json_decref(j);
}

static double jansson_load(const char *p, size_t n, int reps, int *ok) {
  load_run r = {p, n, 0};
  bench_time t = bench_measure(load_body, &r, reps, 1);
  *ok = r.ok;
  return t.cpu;
}

int bench_json(int argc, char **argv) {
  bench_args a;
  int rc = bench_parse(argc, argv, &json_cmd, "mb chunk text", 8, &a);
  if (rc >= 0) return rc;
  size_t mb = a.mb, chunk = a.chunk ? a.chunk : 65536;
  int reps = a.reps;
  size_t size = mb << 20;
  fprintf(bench_out, "json sanitizer: %zu MiB per input, chunks of %zu bytes, CPU-time medians of %d runs\n\n", mb, chunk,
         reps);
  fprintf(bench_out, "%-17s %9s %9s %9s %9s %7s %9s %9s %10s %8s\n", "input", "bytes", "repairs", "t(N/2)",
         "t(N)", "ratio", "MB/s", "load MB/s", "rep+load", "vs load");
  for (int k = 0; k < K_COUNT; k++) {
    if (a.text && !strstr(kind_names[k], a.text)) continue;
    buf in = generate((enum kind)k, size);
    outc o = {{NULL, 0, 0}, 0, 0, 0};
    size_t c = kind_incremental((enum kind)k) ? 1 : chunk;
    /* N/2: the first half of the same input (a prefix repairs too) */
    double th = repair_pass((enum kind)k, in.p, in.n / 2, c, reps, &o);
    double t = repair_pass((enum kind)k, in.p, in.n, c, reps, &o);
    if (t < 0 || th < 0) {
      fprintf(bench_out, "%-17s the filter failed\n", kind_names[k]);
      free(in.p);
      free(o.text.p);
      continue;
    }
    int ok;
    double tl = jansson_load(o.text.p, o.text.n, reps, &ok);
    char load[32] = "n/a", both[32] = "n/a", vs[32] = "n/a";
    if (ok) {
      snprintf(load, sizeof load, "%.0f", (double)o.text.n / tl / 1e6);
      snprintf(both, sizeof both, "%.3fs", t + tl);
      snprintf(vs, sizeof vs, "+%.0f%%", 100.0 * t / tl);
    }
    fprintf(bench_out, "%-17s %9zu %9zu %8.3fs %8.3fs %7.2f %9.0f %9s %10s %8s\n", kind_names[k], in.n,
           o.repairs, th, t, t / th, (double)in.n / t / 1e6, load, both, vs);
    if (kind_incremental((enum kind)k))
      fprintf(bench_out, "%-17s %llu bytes in snapshot events for %zu one-byte feeds\n", "",
              (unsigned long long)o.snapshot_bytes, in.n);
    json_t *row = json_object();
    json_object_set_new(row, "input", json_string(kind_names[k]));
    json_object_set_new(row, "repairs", json_integer((json_int_t)o.repairs));
    json_object_set_new(row, "cpu_s_half", json_real(th));
    json_object_set_new(row, "cpu_s", json_real(t));
    json_object_set_new(row, "bytes", json_integer((json_int_t)in.n));
    json_object_set_new(row, "mb_s", json_real(bench_mbs(in.n, t)));
    if (ok) json_object_set_new(row, "jansson_load_cpu_s", json_real(tl));
    bench_report_add("json", row);
    free(in.p);
    free(o.text.p);
  }
  fprintf(bench_out, "\nratio: t(N)/t(N/2), 2.00 = linear. vs load: the repair pass as a share of\n"
         "jansson's load of the repaired text (target <= +25%%). deep-1M, inc-deep:\n"
         "jansson stops at depth 2048, so there is no load to compare with. inc-*: one\n"
         "byte per feed with a snapshot after each (inc-deep: '[' only, max_depth 0).\n");
  return 0;
}
