/*
 * gate.c: the gate's cases, variants and run (gate.h).
 */
#include "gate.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sluice_kit.h"

const char *const gate_family_names[GF_COUNT] = {"recorded", "deltas", "network", "faults"};

/* ---------------- captures ---------------- */

/* A copy of c that an upstream entry can own. */
void gate_capture_dup(capture *dst, const capture *c) {
  *dst = *c;
  dst->path = xstrdup(c->path);
  dst->name = xstrdup(c->name);
  dst->body.p = xmalloc(c->body.n + 1);
  memcpy(dst->body.p, c->body.p ? c->body.p : "", c->body.n);
  dst->pieces = xmalloc(xmul(c->npieces ? c->npieces : 1, sizeof *c->pieces));
  if (c->npieces) memcpy(dst->pieces, c->pieces, c->npieces * sizeof *c->pieces);
  memset(&dst->headers, 0, sizeof dst->headers);
  for (size_t i = 0; i < c->headers.n; i++) tstrs_push(&dst->headers, xstrdup(c->headers.v[i]));
  dst->model = c->model ? xstrdup(c->model) : NULL;
}

int gate_capture_write(capture *dst, const capture *like, const rs_content *content,
                       const rs_spec *spec) {
  tbuf body = {0};
  size_t *ends = NULL, n = 0;
  if (rs_write(content, spec, &body, &ends, &n)) {
    free(ends);
    tbuf_free(&body);
    return -1;
  }
  gate_capture_dup(dst, like);
  capture_set_body(dst, &body, ends, n);
  free(ends);
  return 0;
}

/* ---------------- what is expected ---------------- */

/* --expect think: each choice's text through a think filter, its hidden
 * text joining the reasoning; format "auto" is the capture's model's. */
static void expect_think(gate *g, gcase *gc) {
  outcome *o = &gc->expected;
  sluice_think_opts opts = *(const sluice_think_opts *)sluice_options_get(g->think);
  sluice_think_opts_for_model(&opts, gc->cap.model, NULL, 0, NULL);
  for (int c = 0; c < NORM_MAX_CHOICES; c++) {
    nchoice *ch = &o->ch[c];
    if (!ch->text.n) continue;
    sluice_output *out;
    if (sluice_output_new(&out, NULL) != SLUICE_OK) die("out of memory");
    sluice_sink sink = sluice_output_sink(out);
    sluice_filter *f;
    sluice_error err;
    if (sluice_think_new(&f, &opts, &sink, NULL, &err) != SLUICE_OK)
      die("the think filter for %s: %s", gc->cap.path, err.message);
    sluice_once(f, ch->text.p, ch->text.n);
    size_t tn, hn;
    const char *t = sluice_output_channel(out, SLUICE_TEXT, &tn);
    const char *h = sluice_output_channel(out, SLUICE_THOUGHT, &hn);
    ch->text.n = 0;
    tbuf_xadd(&ch->text, t, tn);
    tbuf_xadd(&ch->reasoning, h, hn);
    sluice_free(f);
    sluice_output_free(out);
  }
}

typedef struct piping {
  outcome *o;
  sluice_endpoint e;
} piping;

static int on_pipeline_event(void *user, const sluice_event *ev) {
  piping *p = user;
  outcome_add_event(p->o, ev, p->e);
  return 0;
}

/* A think stage of format "auto": it takes the capture's model's format
 * (only then is the model given: it would switch harmony on as well). */
static int by_model(const sluice_pipeline_opts *po) {
  for (size_t i = 0; i < po->nstages; i++)
    if (po->stages[i].kind == SLUICE_FILTER_THINK && po->stages[i].opts &&
        ((const sluice_think_opts *)po->stages[i].opts)->format == SLUICE_THINK_FORMAT_AUTO)
      return 1;
  return 0;
}

/* --expect PIPELINE-FILE: the pipeline's deltas over the capture. */
static int expect_pipeline(gate *g, gcase *gc, char *why, size_t wl) {
  piping p = {&gc->expected, gc->cap.family};
  sluice_sink sink = {NULL, on_pipeline_event, &p};
  sluice_filter *f;
  sluice_pipeline_opts po = *(const sluice_pipeline_opts *)sluice_options_get(g->pipeline);
  if (!po.model && by_model(&po)) po.model = gc->cap.model;
  if (sluice_pipeline_new(&f, &po, &sink, NULL, NULL) != SLUICE_OK)
    die("the pipeline was checked before");
  sluice_status st = sluice_once(f, gc->cap.body.p, gc->cap.body.n);
  if (st != SLUICE_OK) snprintf(why, wl, "%s", sluice_get_error(f)->message);
  sluice_free(f);
  gc->expected.failed = gc->expected.errors || !gc->expected.complete;
  return st == SLUICE_OK ? 0 : -1;
}

static int expect_case(gate *g, gcase *gc) {
  char why[256] = "";
  int rc = g->expect == GE_PIPELINE
               ? expect_pipeline(g, gc, why, sizeof why)
               : outcome_read(&gc->expected, gc->cap.body.p, gc->cap.body.n, gc->cap.family,
                              why, sizeof why);
  if (rc) {
    fprintf(stderr, "sluice gate: %s: the capture cannot be read: %s\n", gc->cap.path, why);
    return -1;
  }
  if (g->expect == GE_THINK) expect_think(g, gc);
  outcome_settle(&gc->expected, g->client);
  return 0;
}

/* ---------------- variants ---------------- */

static gvariant *add_variant(gcase *gc, gfamily fam, const char *label) {
  gc->v = xrealloc(gc->v, xmul(gc->nv + 1, sizeof *gc->v));
  gvariant *v = &gc->v[gc->nv++];
  memset(v, 0, sizeof *v);
  v->fam = fam;
  snprintf(v->label, sizeof v->label, "%s", label);
  up_behave_default(&v->how);
  v->how.speed = 0; /* no pacing: the case's content, as fast as it goes */
  return v;
}

static void unsupported(gvariant *v, const char *why) {
  v->st = GS_UNSUPPORTED;
  snprintf(v->why, sizeof v->why, "%s", why);
}

/* The single cuts: every content position, or max evenly spread. */
static void single_cuts(gcase *gc, uint64_t max) {
  uint64_t n = gc->content.points > 1 ? gc->content.points - 1 : 0;
  uint64_t k = n < max ? n : max;
  for (uint64_t i = 0; i < k; i++) {
    uint64_t pos = 1 + (n <= max ? i : i * n / k);
    char label[32];
    snprintf(label, sizeof label, "at:%llu", (unsigned long long)pos);
    gvariant *v = add_variant(gc, GF_DELTAS, label);
    rs_at(&v->rs, &pos, 1);
  }
}

static void delta_variants(gate *g, gcase *gc, const char *modes) {
  if (gc->no_resplit) return; /* a case of its own kind: no column to fill */
  if (!gc->resplittable) {
    gvariant *v = add_variant(gc, GF_DELTAS, "any");
    char why[160];
    snprintf(why, sizeof why, "the deltas of %s streams cannot be written again (OpenAI chat "
                              "and Anthropic can)", sluice_endpoint_name(gc->cap.family));
    unsupported(v, why);
    return;
  }
  char *copy = xstrdup(modes), *save = NULL;
  for (char *m = strtok_r(copy, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
    int all = strcmp(m, "all") == 0;
    if (all || strcmp(m, "whole") == 0) add_variant(gc, GF_DELTAS, "whole")->rs.mode = RS_WHOLE;
    if (all || strcmp(m, "single") == 0) single_cuts(gc, g->o.max_single);
    if (all || strcmp(m, "codepoint") == 0)
      add_variant(gc, GF_DELTAS, "codepoint")->rs.mode = RS_CODEPOINT;
    for (uint64_t seed = 1; seed <= 2 && (all || strcmp(m, "random") == 0); seed++) {
      char label[32];
      snprintf(label, sizeof label, "random:%llu", (unsigned long long)seed);
      gvariant *v = add_variant(gc, GF_DELTAS, label);
      v->rs.mode = RS_RANDOM;
      v->rs.seed = seed;
    }
  }
  free(copy);
}

static void network_variants(gcase *gc, const char *modes) {
  char *copy = xstrdup(modes), *save = NULL;
  for (char *m = strtok_r(copy, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
    if (strcmp(m, "all") == 0) {
      network_variants(gc, "bytes,random:1,7");
      continue;
    }
    if (strcmp(m, "random") == 0) m = "random:1";
    gvariant *v = add_variant(gc, GF_NETWORK, m);
    char why[120];
    if (up_rechunk_parse(&v->how, m, why, sizeof why)) unsupported(v, why);
  }
  free(copy);
}

static void fault_variants(gcase *gc, const char *modes) {
  int64_t half = (int64_t)gc->cap.body.n / 2;
  char *copy = xstrdup(modes), *save = NULL;
  for (char *m = strtok_r(copy, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
    if (strcmp(m, "all") == 0) {
      fault_variants(gc, "cut,reset,error,status:500,status:429");
      continue;
    }
    gvariant *v = add_variant(gc, GF_FAULTS, m);
    v->must_fail = 1;
    if (strcmp(m, "cut") == 0) v->how.cut_after = half;
    else if (strcmp(m, "reset") == 0) v->how.drop_after = half;
    else if (strcmp(m, "stall") == 0) {
      v->how.stall_after = half;
      v->how.stall_for = 2;
    } else if (strcmp(m, "error") == 0) v->how.error_after = half;
    else if (strncmp(m, "status:", 7) == 0 && atoi(m + 7) >= 400 && atoi(m + 7) <= 599)
      v->how.status = atoi(m + 7);
    else unsupported(v, "a fault is cut, reset, stall, error or status:CODE (400 to 599)");
  }
  free(copy);
}

static void variants(gate *g, gcase *gc) {
  add_variant(gc, GF_RECORDED, "recorded");
  if (g->o.resplit && strcmp(g->o.resplit, "none") != 0) delta_variants(g, gc, g->o.resplit);
  if (g->o.rechunk && strcmp(g->o.rechunk, "none") != 0) network_variants(gc, g->o.rechunk);
  if (g->o.faults && strcmp(g->o.faults, "none") != 0) fault_variants(gc, g->o.faults);
}

/* ---------------- loading ---------------- */

static int is_capture(const char *name) {
  static const char *const ends[] = {".sse", ".ndjson", ".chunks.jsonl", ".capture.jsonl"};
  size_t l = strlen(name);
  for (size_t i = 0; i < 4; i++)
    if (l > strlen(ends[i]) && strcmp(name + l - strlen(ends[i]), ends[i]) == 0) return 1;
  return 0;
}

int gate_add_case(gate *g, const char *id, capture *cap, const char *no_resplit) {
  gcase gc;
  memset(&gc, 0, sizeof gc);
  gc.cap = *cap;
  memset(cap, 0, sizeof *cap);
  gc.id = xstrdup(id);
  char why[200];
  gc.no_resplit = no_resplit;
  gc.resplittable = !no_resplit && rs_supported(gc.cap.family) &&
                    rs_load(&gc.content, gc.cap.body.p, gc.cap.body.n, gc.cap.family,
                            gc.cap.model, why, sizeof why) == 0;
  outcome_init(&gc.expected);
  if (expect_case(g, &gc)) {
    if (gc.resplittable) rs_free(&gc.content);
    outcome_free(&gc.expected);
    capture_free(&gc.cap);
    free(gc.id);
    return -1;
  }
  variants(g, &gc);
  g->cases = xrealloc(g->cases, xmul(g->ncases + 1, sizeof *g->cases));
  g->cases[g->ncases++] = gc;
  return 0;
}

static int load_one(gate *g, const char *path) {
  capture cap;
  memset(&cap, 0, sizeof cap);
  tbuf err = {0};
  if (capture_load(&cap, path, 0, &err)) {
    fprintf(stderr, "sluice gate: %.*s\n", (int)err.n, err.p);
    tbuf_free(&err);
    capture_free(&cap);
    return -1;
  }
  char *id = xstrdup(cap.name);
  int rc = gate_add_case(g, id, &cap, NULL);
  free(id);
  return rc;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The capture files of a folder, in name order. */
static int load_dir(gate *g, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "sluice gate: cannot read the folder %s\n", dir);
    return -1;
  }
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (is_capture(e->d_name)) {
      names = xrealloc(names, xmul(n + 1, sizeof *names));
      names[n++] = xstrdup(e->d_name);
    }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_names);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    tbuf p = {0};
    tbuf_xprintf(&p, "%s/%s", dir, names[i]);
    if (!rc) rc = load_one(g, p.p);
    tbuf_free(&p);
    free(names[i]);
  }
  free(names);
  return rc;
}

static void gcase_free(gcase *gc) {
  for (size_t k = 0; k < gc->nv; k++) rs_spec_free(&gc->v[k].rs);
  free(gc->v);
  free(gc->id);
  capture_free(&gc->cap);
  if (gc->resplittable) rs_free(&gc->content);
  outcome_free(&gc->expected);
}

/* Keeps the cases keep takes, in order, and frees the others; how many it
 * dropped. */
static size_t keep_cases(gate *g, int (*keep)(const gate *, const gcase *)) {
  size_t kept = 0, n = g->ncases;
  for (size_t i = 0; i < n; i++) {
    if (!keep(g, &g->cases[i])) {
      gcase_free(&g->cases[i]);
      continue;
    }
    if (kept != i) g->cases[kept] = g->cases[i];
    kept++;
  }
  g->ncases = kept;
  return n - kept;
}

/* --shard K/N: the cases whose name falls in shard K. */
static int in_shard(const gate *g, const gcase *gc) {
  return name_shard(gc->id, g->o.sel.shard_n) == g->o.sel.shard_k - 1;
}

int gate_load(gate *g) {
  for (size_t i = 0; i < g->o.operands.n; i++) {
    struct stat st;
    const char *p = g->o.operands.v[i];
    if (stat(p, &st)) {
      fprintf(stderr, "sluice gate: %s: no such file or folder\n", p);
      return -1;
    }
    if ((S_ISDIR(st.st_mode) ? load_dir(g, p) : load_one(g, p))) return -1;
  }
  if (g->o.suites && gate_suite_cases(g, g->o.suites)) return -1;
  if (g->o.sel.shard_n) keep_cases(g, in_shard);
  if (!g->ncases) {
    fprintf(stderr, "sluice gate: no case to run (name captures or --suite%s)\n",
            g->o.sel.shard_n ? "; none falls in this shard" : "");
    return -1;
  }
  return 0;
}

/* ---------------- one request ---------------- */

typedef struct result {
  client_resp resp;
  int requests;
  sluice_endpoint asked;
} result;

/* Serves capture cap (taken) as how says to one request of the client. */
static void exchange(gate *g, capture *cap, const up_behave *how, result *r) {
  char token[48], model[256];
  snprintf(token, sizeof token, "sluice-gate-%lu", (unsigned long)atomic_fetch_add(&g->token, 1));
  snprintf(model, sizeof model, "%s%s", g->o.model_prefix ? g->o.model_prefix : "", token);
  up_entry *e = upstream_add(g->up, cap, how, token);
  client_req req = {g->client, g->o.url, model, (const char *const *)g->headers, g->o.timeout,
                    (size_t)64 << 20};
  client_send(&req, &r->resp);
  up_entry_stats(g->up, e, &r->requests, &r->asked);
  upstream_remove(g->up, e);
}

/* The body's head, for a message. */
static void head_of(const tbuf *b, char *out, size_t n) {
  size_t k = b->n < 120 ? b->n : 120;
  snprintf(out, n, "%.*s", (int)k, b->p ? b->p : "");
  for (char *p = out; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
}

static void judge(gate *g, const gcase *gc, gvariant *v, result *r) {
  char head[128];
  head_of(&r->resp.body, head, sizeof head);
  v->seconds = r->resp.seconds;
  if (r->requests && r->asked != gc->cap.family) {
    v->st = GS_UNSUPPORTED;
    snprintf(v->why, sizeof v->why, "the middleware asked the upstream for %s; the capture "
                                    "answers %s", sluice_endpoint_name(r->asked),
             sluice_endpoint_name(gc->cap.family));
    return;
  }
  outcome act;
  outcome_init(&act);
  char why[256] = "";
  int unreadable = r->resp.failed || r->resp.status >= 400 ||
                   outcome_read(&act, r->resp.body.p, r->resp.body.n, g->client, why, sizeof why);
  outcome_settle(&act, g->client);
  if (v->must_fail) {
    int failed = unreadable || act.failed;
    v->st = failed ? GS_AGREES : GS_DIFFERS;
    if (!failed)
      snprintf(v->why, sizeof v->why, "the upstream failed (%s), but the client saw a normal "
                                      "completion", v->label);
  } else if (r->resp.failed || r->resp.status >= 400 || !r->requests) {
    v->st = GS_BROKEN;
    if (r->resp.failed) snprintf(v->why, sizeof v->why, "no answer: %s", r->resp.why);
    else if (!r->requests)
      snprintf(v->why, sizeof v->why, "the middleware never asked the upstream (HTTP %ld: %s)",
               r->resp.status, head);
    else snprintf(v->why, sizeof v->why, "HTTP %ld: %s", r->resp.status, head);
  } else if (unreadable) {
    v->st = GS_DIFFERS;
    snprintf(v->why, sizeof v->why, "the client cannot read the stream: %s", why);
  } else {
    v->st = outcome_compare(&gc->expected, &act, v->why, sizeof v->why) ? GS_DIFFERS : GS_AGREES;
  }
  outcome_free(&act);
}

static void run_variant(gate *g, gcase *gc, gvariant *v) {
  capture cap;
  if (v->fam == GF_DELTAS) {
    if (gate_capture_write(&cap, &gc->cap, &gc->content, &v->rs)) {
      unsupported(v, "the stream could not be written again");
      return;
    }
  } else {
    gate_capture_dup(&cap, &gc->cap);
  }
  result r;
  memset(&r, 0, sizeof r);
  exchange(g, &cap, &v->how, &r);
  judge(g, gc, v, &r);
  tbuf_free(&r.resp.body);
}

/* ---------------- the run ---------------- */

static pthread_mutex_t jobs_mu = PTHREAD_MUTEX_INITIALIZER;

/* The next variant to run (case and index), or 0 when none is left. */
static int next_job(gate *g, gcase **gc, gvariant **v) {
  pthread_mutex_lock(&jobs_mu);
  int found = 0;
  while (!found && g->next_job < g->njobs) {
    size_t k = g->next_job++, ci = 0;
    while (k >= g->cases[ci].nv) k -= g->cases[ci++].nv;
    *gc = &g->cases[ci];
    *v = &g->cases[ci].v[k];
    found = (*v)->st == GS_PENDING && (!g->max_stop || (*gc)->started);
  }
  if (found) (*gc)->started = 1;
  if (found && g->o.deadline > 0 && now_seconds() - g->t0 > g->o.deadline) {
    g->stop = 1;
    found = 0;
  }
  pthread_mutex_unlock(&jobs_mu);
  return found;
}

static void *worker(void *arg) {
  gate *g = arg;
  gcase *gc;
  gvariant *v;
  while (next_job(g, &gc, &v)) {
    run_variant(g, gc, v);
    pthread_mutex_lock(&jobs_mu);
    g->done++;
    if (v->st != GS_AGREES && v->st != GS_UNSUPPORTED) {
      g->failed++;
      if (!gc->counted && !gate_known_find(g->known, g->nknown, gc->id, v->fam)) {
        gc->counted = 1;
        g->failed_cases++;
        if (g->o.max_failures && g->failed_cases >= g->o.max_failures) g->max_stop = 1;
      }
    }
    progress_update(&g->pg, g->done, g->failed);
    pthread_mutex_unlock(&jobs_mu);
  }
  return NULL;
}

/* ---------------- minimizing a deltas failure ---------------- */

/* 1 if the content with cuts at[0..n) still gives the failure. */
static int still_fails(gate *g, gcase *gc, const uint64_t *at, size_t n) {
  gvariant v;
  memset(&v, 0, sizeof v);
  v.fam = GF_DELTAS;
  up_behave_default(&v.how);
  v.how.speed = 0;
  rs_at(&v.rs, at, n);
  run_variant(g, gc, &v);
  rs_spec_free(&v.rs);
  return v.st == GS_DIFFERS;
}

/* Fewer cuts that still fail, by removing halves, then quarters, ... of
 * the set (delta debugging), within a budget of requests. */
static size_t shrink(gate *g, gcase *gc, uint64_t *at, size_t n) {
  int budget = 160;
  size_t parts = 2;
  uint64_t *trial = xmalloc(xmul(n ? n : 1, sizeof *at));
  while (n > 1 && budget > 0) {
    int cut = 0;
    size_t size = (n + parts - 1) / parts;
    for (size_t s = 0; s < n && budget > 0 && !cut; s += size) {
      size_t k = 0, end = s + size < n ? s + size : n;
      for (size_t i = 0; i < n; i++)
        if (i < s || i >= end) trial[k++] = at[i];
      budget--;
      if (k && still_fails(g, gc, trial, k)) {
        memcpy(at, trial, k * sizeof *at);
        n = k;
        parts = parts > 2 ? parts - 1 : 2;
        cut = 1;
      }
    }
    if (!cut) {
      if (parts >= n) break;
      parts = parts * 2 < n ? parts * 2 : n;
    }
  }
  free(trial);
  return n;
}

static void minimize(gate *g, gcase *gc) {
  gvariant *first = NULL;
  /* a difference that no delta cut makes needs no cut to be seen */
  int some_agree = 0;
  for (size_t i = 0; i < gc->nv; i++)
    some_agree |= gc->v[i].fam == GF_DELTAS && gc->v[i].st == GS_AGREES;
  if (!some_agree) return;
  for (size_t i = 0; i < gc->nv; i++) {
    gvariant *v = &gc->v[i];
    if (v->fam != GF_DELTAS || v->st != GS_DIFFERS) continue;
    if (v->rs.mode == RS_AT && v->rs.nat == 1) { /* a single cut: two deltas at most */
      rs_format(&v->rs, gc->repro_spec, sizeof gc->repro_spec);
      return;
    }
    if (!first) first = v;
  }
  if (!first) return;
  if (first->rs.mode != RS_CODEPOINT && first->rs.mode != RS_RANDOM) {
    rs_format(&first->rs, gc->repro_spec, sizeof gc->repro_spec);
    return;
  }
  /* start from every position: the codepoint split, which holds any cut */
  size_t n = gc->content.points > 1 ? (size_t)gc->content.points - 1 : 0;
  uint64_t *at = xmalloc(xmul(n ? n : 1, sizeof *at));
  for (size_t i = 0; i < n; i++) at[i] = i + 1;
  if (n && still_fails(g, gc, at, n)) {
    n = shrink(g, gc, at, n);
    rs_spec s;
    rs_at(&s, at, n);
    rs_format(&s, gc->repro_spec, sizeof gc->repro_spec);
    rs_spec_free(&s);
  } else {
    rs_format(&first->rs, gc->repro_spec, sizeof gc->repro_spec);
  }
  free(at);
}

static int begun(const gate *g, const gcase *gc) {
  (void)g;
  return gc->started;
}

void gate_run(gate *g) {
  g->njobs = 0;
  for (size_t i = 0; i < g->ncases; i++) g->njobs += g->cases[i].nv;
  g->t0 = now_seconds();
  progress_init(&g->pg, "gate", "variants", g->njobs, g->o.quiet);
  int n = g->o.jobs > 0 ? g->o.jobs : 1;
  pthread_t *th = xcalloc((size_t)n, sizeof *th);
  for (int i = 0; i < n; i++)
    if (pthread_create(&th[i], NULL, worker, g)) die("cannot start a worker thread");
  for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
  free(th);
  progress_clear(&g->pg);
  if (g->max_stop) g->cases_not_run = keep_cases(g, begun); /* --max-failures */
  for (size_t i = 0; i < g->ncases; i++) {
    for (size_t k = 0; k < g->cases[i].nv; k++)
      if (g->cases[i].v[k].st == GS_PENDING) g->cases[i].v[k].st = GS_NOT_RUN;
    if (!g->stop) minimize(g, &g->cases[i]);
  }
}

void gate_free(gate *g) {
  for (size_t i = 0; i < g->ncases; i++) gcase_free(&g->cases[i]);
  free(g->cases);
  g->cases = NULL;
  g->ncases = 0;
  free(g->suites.version);
  g->suites.version = NULL;
}
