/*
 * pipeline.c: provider -> filters -> deltas (DESIGN.md §2 pipelines; seed
 * 003's path: the provider's stream parsed into deltas, cleaned, re-emitted).
 *
 * The provider's events drive everything. Each text delta of a choice is
 * fed, as one feed, to that choice's chain of filters (think, clean,
 * monitor, harmony; built when the choice first needs it): a filter's TEXT
 * feeds the next filter, and everything else a filter releases, with the
 * last filter's TEXT, is collected by kind. When the feed returns (or
 * before a filter's event is passed on, so the order holds), what was
 * collected becomes the pipeline's deltas, in the order reasoning, text,
 * other, markup, dropped. The deltas are thus cut where the provider's
 * chunks are, a point the content fixes, so the pipeline is split
 * invariant because the provider and every filter are.
 *
 * A choice's chain is finished when the provider reports the choice's
 * finish (so its held bytes come out before the finish event) or at the
 * end; a later delta of the choice starts a new chain (Responses sends
 * several responses in one stream). With "arguments" on, each tool call's
 * arguments go through a json filter of their own the same way.
 *
 * Filter events: stop (monitor) and repair (json) of the choice the
 * channels show are passed on; a think filter's thought records are not
 * (the text is in the reasoning deltas, and their offsets count the
 * filter's own THOUGHT bytes, which the pipeline's THOUGHT interleaves
 * with the provider's reasoning), nor json's value and snapshots.
 */
#include "provider.h"

#include <stdio.h>
#include <string.h>

enum kind { K_REASONING, K_TEXT, K_OTHER, K_MARKUP, K_DROPPED, K_COUNT };
static const char *const kind_names[K_COUNT] = {"reasoning", "text", "other", "markup",
                                                "dropped"};
static const sluice_channel kind_channels[K_COUNT] = {SLUICE_THOUGHT, SLUICE_TEXT, SLUICE_OTHER,
                                                      SLUICE_MARKUP, SLUICE_DROPPED};

#define MAX_CHAIN (SLUICE_PIPELINE_MAX_STAGES + 1) /* harmony first, then the stages */
#define MAX_CALLS 256                              /* tool calls with open json filters */

typedef struct pipeline pipeline;

/* A sink for stage k of a chain. */
typedef struct link {
  pipeline *pl;
  struct chain *ch;
  int k;
} link;

typedef struct chain {
  sluice_filter *f[MAX_CHAIN];
  link links[MAX_CHAIN];
  int n;
} chain;

typedef struct call {
  size_t choice, index;
  sluice_filter *json;
} call;

typedef struct stage_def {
  sluice_filter_kind kind;
  void *opts; /* a copy (sluicep_opts_copy) */
} stage_def;

struct pipeline {
  sluice_filter base;
  sluice_filter *pv;
  size_t shown; /* the choice the channels show */
  stage_def stages[MAX_CHAIN];
  int nstages;
  void *args_opts; /* json options for arguments (a copy), or NULL: off */
  chain *chains[PV_MAX_CHOICES];
  call *calls;
  size_t ncalls, cap_calls;
  /* what the filters released during the current feed */
  sluicep_buf out[K_COUNT];
  size_t cur_choice;
  int cur_args;       /* collecting a json filter's output (arguments deltas) */
  size_t cur_index;   /* ... of this tool call */
  link args_link;     /* the json filters' sink (what they release is collected) */
  char explain[512];  /* how the model chose (sluice_pipeline_explain) */
};

/* ---------------- passing things on ---------------- */

static int pass_event(pipeline *pl, const sluice_event *ev) {
  return sluicep_event(&pl->base, ev);
}

static int delta(pipeline *pl, size_t choice, const char *kind, const char *p, size_t n,
                 size_t index, sluice_channel ch) {
  return sluicep_delta(&pl->base, pl->shown, choice, kind, p, n, index, ch);
}

/* The collected bytes, as deltas. */
static int flush(pipeline *pl) {
  for (int k = 0; k < K_COUNT; k++) {
    sluicep_buf *b = &pl->out[k];
    if (!b->len) continue;
    int rc;
    if (pl->cur_args && k == K_TEXT)
      rc = delta(pl, pl->cur_choice, "arguments", b->ptr, b->len, pl->cur_index, SLUICE_OTHER);
    else
      rc = delta(pl, pl->cur_choice, kind_names[k], b->ptr, b->len, 0, kind_channels[k]);
    b->len = 0;
    if (rc) return 1;
  }
  return 0;
}

/* ---------------- the filters' sinks ---------------- */

static int stage_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  link *l = user;
  pipeline *pl = l->pl;
  if (ch == SLUICE_TEXT && l->ch && l->k + 1 < l->ch->n)
    return sluice_feed(l->ch->f[l->k + 1], p, n) != SLUICE_OK;
  int k = ch == SLUICE_TEXT ? K_TEXT : ch == SLUICE_THOUGHT ? K_REASONING
          : ch == SLUICE_OTHER ? K_OTHER : ch == SLUICE_MARKUP ? K_MARKUP : K_DROPPED;
  if (sluicep_buf_append(&pl->out[k], p, n) == 0) return 0;
  sluicep_fail(&pl->base, SLUICE_NOMEM, pl->base.at, "out of memory collecting a delta");
  return 1;
}

static int stage_event(void *user, const sluice_event *ev) {
  link *l = user;
  pipeline *pl = l->pl;
  if (ev->type != SLUICE_EV_STOP && ev->type != SLUICE_EV_REPAIR) return 0;
  if (pl->cur_choice != pl->shown) return 0;
  /* what was released before the event comes before it */
  return flush(pl) || pass_event(pl, ev);
}

/* ---------------- building chains ---------------- */

static void set_link(link *l, pipeline *pl, chain *ch, int k) {
  l->pl = pl;
  l->ch = ch;
  l->k = k;
}

static sluice_status build(pipeline *pl, sluice_filter_kind kind, const void *opts, link *l,
                           sluice_filter **out, sluice_error *err) {
  sluice_sink sink = {stage_emit, stage_event, l};
  return sluice_filter_new(out, kind, opts, &sink, &pl->base.mem, err);
}

static void chain_free(chain *ch, const sluice_mem *m) {
  if (!ch) return;
  for (int k = 0; k < ch->n; k++) sluice_free(ch->f[k]);
  sluicep_dealloc(m, ch);
}

/* A new chain for a choice; NULL with *err set (never NULL here). */
static chain *chain_new(pipeline *pl, sluice_error *err) {
  chain *ch = sluicep_calloc(&pl->base.mem, sizeof *ch);
  if (!ch) {
    sluicep_set_error(err, SLUICE_NOMEM, pl->base.at, "out of memory building a filter chain");
    return NULL;
  }
  for (int k = 0; k < pl->nstages; k++) {
    set_link(&ch->links[k], pl, ch, k);
    if (build(pl, pl->stages[k].kind, pl->stages[k].opts, &ch->links[k], &ch->f[k], err) !=
        SLUICE_OK) {
      chain_free(ch, &pl->base.mem);
      return NULL;
    }
    ch->n = k + 1;
  }
  return ch;
}

/* A stage's failure (its callback chain reports SLUICE_CALLBACK upward) as
 * the pipeline's error, at the offset of the chunk being read: the
 * stage's own offset counts the choice's text, not the stream. */
static int take_stage_error(pipeline *pl, sluice_filter *const *fs, int n, const char *what) {
  if (pl->base.err.status != SLUICE_OK) return 1;
  const sluice_error *e = NULL;
  for (int k = n - 1; k >= 0 && !e; k--) {
    const sluice_error *x = sluice_get_error(fs[k]);
    if (x->status != SLUICE_OK && x->status != SLUICE_CALLBACK) e = x;
  }
  if (!e) e = sluice_get_error(fs[0]);
  const provider *pv = (const provider *)pl->pv;
  sluicep_fail(&pl->base, e->status, pv->chunk_at,
               "%s of choice %zu: %s (at byte %llu of its text)", what, pl->cur_choice,
               e->message, (unsigned long long)e->offset);
  return 1;
}

/* ---------------- text through the chains ---------------- */

static int text_delta(pipeline *pl, size_t c, const char *p, size_t n) {
  if (!pl->nstages) return delta(pl, c, "text", p, n, 0, SLUICE_TEXT);
  if (!pl->chains[c]) {
    sluice_error err;
    pl->chains[c] = chain_new(pl, &err);
    if (!pl->chains[c]) {
      sluicep_fail(&pl->base, err.status, ((provider *)pl->pv)->chunk_at, "%s", err.message);
      return 1;
    }
  }
  chain *ch = pl->chains[c];
  pl->cur_choice = c;
  pl->cur_args = 0;
  if (sluice_feed(ch->f[0], p, n) != SLUICE_OK)
    return take_stage_error(pl, ch->f, ch->n, "the filters");
  return flush(pl);
}

/* Finishes choice c's chain, its held bytes becoming deltas. */
static int chain_finish(pipeline *pl, size_t c) {
  chain *ch = pl->chains[c];
  if (!ch) return 0;
  pl->cur_choice = c;
  pl->cur_args = 0;
  for (int k = 0; k < ch->n; k++)
    if (sluice_finish(ch->f[k]) != SLUICE_OK)
      return take_stage_error(pl, ch->f, ch->n, "the filters");
  int rc = flush(pl);
  chain_free(ch, &pl->base.mem);
  pl->chains[c] = NULL;
  return rc;
}

/* ---------------- arguments through json ---------------- */

static call *find_call(pipeline *pl, size_t c, size_t index) {
  for (size_t i = 0; i < pl->ncalls; i++)
    if (pl->calls[i].choice == c && pl->calls[i].index == index) return &pl->calls[i];
  return NULL;
}

static int args_delta(pipeline *pl, size_t c, size_t index, const char *p, size_t n) {
  if (!pl->args_opts) return delta(pl, c, "arguments", p, n, index, SLUICE_OTHER);
  call *cl = find_call(pl, c, index);
  if (!cl) {
    if (pl->ncalls == MAX_CALLS) {
      sluicep_fail(&pl->base, SLUICE_LIMIT, ((provider *)pl->pv)->chunk_at,
                   "more than %d tool calls with open arguments", MAX_CALLS);
      return 1;
    }
    if (pl->ncalls == pl->cap_calls) {
      size_t cap = pl->cap_calls ? pl->cap_calls * 2 : 4;
      call *v = sluicep_realloc(&pl->base.mem, pl->calls, cap * sizeof *v);
      if (!v) {
        sluicep_fail(&pl->base, SLUICE_NOMEM, pl->base.at, "out of memory");
        return 1;
      }
      pl->calls = v;
      pl->cap_calls = cap;
    }
    cl = &pl->calls[pl->ncalls];
    memset(cl, 0, sizeof *cl);
    cl->choice = c;
    cl->index = index;
    sluice_error err;
    if (build(pl, SLUICE_FILTER_JSON, pl->args_opts, &pl->args_link, &cl->json, &err) !=
        SLUICE_OK) {
      sluicep_fail(&pl->base, err.status, ((provider *)pl->pv)->chunk_at, "%s", err.message);
      return 1;
    }
    pl->ncalls++;
  }
  pl->cur_choice = c;
  pl->cur_args = 1;
  pl->cur_index = index;
  if (sluice_feed(cl->json, p, n) != SLUICE_OK)
    return take_stage_error(pl, &cl->json, 1, "the arguments json filter");
  return flush(pl);
}

/* Finishes the json filters of choice c's calls, in the order they opened.
 * A call without arguments (json's "empty") gives none. */
static int args_finish(pipeline *pl, size_t c) {
  size_t keep = 0;
  int rc = 0;
  for (size_t i = 0; i < pl->ncalls; i++) {
    call *cl = &pl->calls[i];
    if (cl->choice != c || rc) {
      pl->calls[keep++] = *cl;
      continue;
    }
    pl->cur_choice = c;
    pl->cur_args = 1;
    pl->cur_index = cl->index;
    sluice_status st = sluice_finish(cl->json);
    if (st != SLUICE_OK && st != SLUICE_JSON_EMPTY)
      rc = take_stage_error(pl, &cl->json, 1, "the arguments json filter");
    else
      rc = flush(pl);
    sluice_free(cl->json);
  }
  pl->ncalls = keep;
  return rc;
}

/* ---------------- the provider's events ---------------- */

static int on_provider_event(void *user, const sluice_event *ev) {
  pipeline *pl = user;
  size_t c = (size_t)ev->offset;
  switch (ev->type) {
  case SLUICE_EV_DELTA:
    if (ev->name_len == 4 && memcmp(ev->name, "text", 4) == 0)
      return text_delta(pl, c, ev->data, ev->data_len);
    if (ev->name_len == 9 && memcmp(ev->name, "arguments", 9) == 0)
      return args_delta(pl, c, (size_t)ev->length, ev->data, ev->data_len);
    {
      /* reasoning and refusal pass through */
      int refusal = ev->name_len == 7 && memcmp(ev->name, "refusal", 7) == 0;
      return delta(pl, c, refusal ? "refusal" : "reasoning", ev->data, ev->data_len, 0,
                   refusal ? SLUICE_TEXT : SLUICE_THOUGHT);
    }
  case SLUICE_EV_FINISH:
    if (chain_finish(pl, c) || args_finish(pl, c)) return 1;
    return pass_event(pl, ev);
  case SLUICE_EV_END:
    for (size_t i = 0; i < PV_MAX_CHOICES; i++)
      if (chain_finish(pl, i)) return 1;
    for (size_t i = 0; i < PV_MAX_CHOICES && pl->ncalls; i++)
      if (args_finish(pl, i)) return 1;
    return pass_event(pl, ev);
  default:
    return pass_event(pl, ev);
  }
}

static int on_provider_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  pipeline *pl = user;
  /* The provider's channels are rebuilt from its deltas; only the
   * framing's DROPPED bytes (which have no event) come through. */
  if (ch != SLUICE_DROPPED) return 0;
  return sluicep_emit(&pl->base, ch, p, n);
}

/* The provider's failure, or a failure of ours inside its callbacks. */
static sluice_status take_provider_status(pipeline *pl, sluice_status st) {
  if (st != SLUICE_OK && pl->base.err.status == SLUICE_OK) {
    const sluice_error *e = sluice_get_error(pl->pv);
    sluicep_fail(&pl->base, e->status, e->offset, "%s", e->message);
  }
  return pl->base.err.status;
}

static sluice_status pipeline_feed(sluice_filter *f, const char *p, size_t n) {
  pipeline *pl = (pipeline *)f;
  return take_provider_status(pl, sluice_feed(pl->pv, p, n));
}

static sluice_status pipeline_finish(sluice_filter *f) {
  pipeline *pl = (pipeline *)f;
  return take_provider_status(pl, sluice_finish(pl->pv));
}

static void pipeline_destroy(sluice_filter *f) {
  pipeline *pl = (pipeline *)f;
  const sluice_mem *m = &f->mem;
  sluice_free(pl->pv);
  for (size_t i = 0; i < PV_MAX_CHOICES; i++) chain_free(pl->chains[i], m);
  for (size_t i = 0; i < pl->ncalls; i++) sluice_free(pl->calls[i].json);
  sluicep_dealloc(m, pl->calls);
  for (int k = 0; k < pl->nstages; k++) sluicep_dealloc(m, pl->stages[k].opts);
  sluicep_dealloc(m, pl->args_opts);
  for (int k = 0; k < K_COUNT; k++) sluicep_buf_free(&pl->out[k]);
}

static const sluicep_vtable pipeline_vt = {"pipeline", pipeline_feed, pipeline_finish,
                                           pipeline_destroy, NULL};

/* ---------------- construction ---------------- */

void sluice_pipeline_opts_init_size(sluice_pipeline_opts *o, size_t size) {
  sluice_pipeline_opts d;
  memset(&d, 0, sizeof d);
  d.harmony = -1;
  sluicep_opts_init(o, size, &d, sizeof d);
}

/* Filters a chain may hold: the ones that route text. */
static int text_filter(sluice_filter_kind k) {
  return k == SLUICE_FILTER_THINK || k == SLUICE_FILTER_CLEAN || k == SLUICE_FILTER_MONITOR ||
         k == SLUICE_FILTER_HARMONY;
}

/* A stage of the chains: its options are checked by building the filter
 * once (so a bad option is reported now, not at the first delta of the
 * stream), then copied, since the caller's may not outlive the pipeline. */
static sluice_status add_stage(pipeline *pl, sluice_filter_kind kind, const void *opts,
                               sluice_error *err) {
  sluice_filter *probe;
  sluice_status st = sluice_filter_new(&probe, kind, opts, NULL, &pl->base.mem, err);
  sluice_free(probe);
  if (st != SLUICE_OK) return st;
  if (kind == SLUICE_FILTER_JSON)
    return sluicep_opts_copy(kind, opts, &pl->base.mem, &pl->args_opts, err);
  stage_def *s = &pl->stages[pl->nstages];
  s->kind = kind;
  st = sluicep_opts_copy(kind, opts, &pl->base.mem, &s->opts, err);
  if (st == SLUICE_OK) pl->nstages++;
  return st;
}

/* A stage, with a think stage's format AUTO settled by the model's name
 * (on a full copy of the caller's options: theirs may be an older, smaller
 * struct) and said in pl->explain. */
static sluice_status add_model_stage(pipeline *pl, const sluice_pipeline_opts *o, size_t i,
                                     sluice_error *err) {
  const sluice_stage *s = &o->stages[i];
  if (s->kind != SLUICE_FILTER_THINK || !s->opts) return add_stage(pl, s->kind, s->opts, err);
  sluice_think_opts t;
  sluice_think_opts_init(&t);
  sluice_status st = sluicep_opts_take(&t, sizeof t, s->opts, "sluice_think_opts", err);
  if (st != SLUICE_OK) return st;
  if (t.format == SLUICE_THINK_FORMAT_AUTO) {
    sluice_model_match m;
    sluice_think_opts_for_model(&t, o->model, o->model_rules, o->nmodel_rules, &m);
    size_t w = strlen(pl->explain);
    if (w + 1 < sizeof pl->explain)
      w += (size_t)snprintf(pl->explain + w, sizeof pl->explain - w, "%sthink filter %zu: ",
                            w ? "; " : "", i);
    if (w + 1 < sizeof pl->explain)
      sluice_model_match_describe(&m, pl->explain + w, sizeof pl->explain - w);
  }
  return add_stage(pl, SLUICE_FILTER_THINK, &t, err);
}

size_t sluice_pipeline_explain(const sluice_filter *f, char *buf, size_t n) {
  if (!f || f->vt != &pipeline_vt) return (size_t)snprintf(buf, n, "not a pipeline");
  const pipeline *pl = (const pipeline *)f;
  const char *e = pl->explain[0] ? pl->explain : "no think filter of format auto";
  return (size_t)snprintf(buf, n, "%s", e);
}

static sluice_status check_opts(const sluice_pipeline_opts *o, sluice_error *err) {
  if (o->nstages > SLUICE_PIPELINE_MAX_STAGES || (o->nstages && !o->stages))
    return sluicep_bad_option(err, "at most %d filters", SLUICE_PIPELINE_MAX_STAGES);
  for (size_t i = 0; i < o->nstages; i++)
    if (!text_filter(o->stages[i].kind))
      return sluicep_bad_option(err, "filter %zu (\"%s\") is not a text filter: think, clean, "
                                     "monitor or harmony",
                                i, sluice_filter_kind_name(o->stages[i].kind));
  if (o->harmony < -1 || o->harmony > 1) return sluicep_bad_option(err, "harmony must be -1, 0 or 1");
  if (o->nmodel_rules && !o->model_rules)
    return sluicep_bad_option(err, "nmodel_rules is %zu but model_rules is NULL", o->nmodel_rules);
  return SLUICE_OK;
}

/* sluice_provider_detected takes a provider filter or a pipeline (whose
 * provider it asks); it lives here because the pipeline knows the
 * provider, not the other way round. */
sluice_provider_kind sluice_provider_detected(const sluice_filter *f) {
  if (f && f->vt == &pipeline_vt) f = ((const pipeline *)f)->pv;
  return sluicep_provider_kind_of(f);
}

sluice_status sluice_pipeline_new(sluice_filter **out, const sluice_pipeline_opts *opts,
                                  const sluice_sink *sink, const sluice_mem *mem,
                                  sluice_error *err) {
  *out = NULL;
  sluice_pipeline_opts o;
  sluice_pipeline_opts_init(&o);
  sluice_status st =
      opts ? sluicep_opts_take(&o, sizeof o, opts, "sluice_pipeline_opts", err) : SLUICE_OK;
  if (st == SLUICE_OK) st = check_opts(&o, err);
  if (st != SLUICE_OK) return st;
  int harmony = o.harmony == 1 || (o.harmony == -1 && o.model &&
                                   strcmp(o.model, "llama.cpp/gpt-oss") == 0);
  sluice_filter *f;
  st = sluicep_filter_alloc(&f, sizeof(pipeline), &pipeline_vt, sink, mem, err);
  if (st != SLUICE_OK) return st;
  pipeline *pl = (pipeline *)f;
  for (int k = 0; k < K_COUNT; k++) sluicep_buf_init(&pl->out[k], &f->mem);
  set_link(&pl->args_link, pl, NULL, 0);
  sluice_provider_opts po;
  if (o.provider) po = *o.provider;
  else sluice_provider_opts_init(&po);
  pl->shown = po.choice;
  sluice_sink ps = {on_provider_emit, on_provider_event, pl};
  st = sluice_provider_new(&pl->pv, &po, &ps, &f->mem, err);
  if (st == SLUICE_OK && harmony) {
    st = add_stage(pl, SLUICE_FILTER_HARMONY, NULL, err);
    snprintf(pl->explain, sizeof pl->explain, "harmony first (%s)",
             o.harmony == 1 ? "harmony on" : "model llama.cpp/gpt-oss");
  }
  for (size_t i = 0; i < o.nstages && st == SLUICE_OK; i++)
    st = add_model_stage(pl, &o, i, err);
  if (st == SLUICE_OK && o.arguments) st = add_stage(pl, SLUICE_FILTER_JSON, o.arguments, err);
  if (st != SLUICE_OK) {
    sluice_free(f);
    return st;
  }
  *out = f;
  return SLUICE_OK;
}
