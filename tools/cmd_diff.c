/*
 * cmd_diff.c: `sluice diff`, differential testing. Every case of the chosen
 * suites goes through the reference and through each other implementation,
 * in every split mode. A cell of the result (a case, an implementation)
 * says whether the implementation agrees with sluice, differs from it the
 * same way for every chunking, disagrees with itself across chunkings (the
 * finding its maintainers most need, with the smallest chunking that shows
 * it), crashed or hung, or does not support the case.
 *
 * An implementation is compared in the fields it answers with (its
 * whole-input answer's fields: a think filter that reports text and
 * reasoning is compared on text and thought), and an error with an error
 * whatever its code. Its own consistency is judged by the same code as
 * `sluice conform` (check_case with check_opts.self), so a broken process
 * is survived the same way.
 *
 * Cells are computed on -j workers, implementation by implementation (each
 * worker holds one process at a time); a cell keeps a few lines of detail,
 * capped, never an answer.
 */
#include "tools.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/progress.h"

enum kind { K_AGREES, K_DIFFERS, K_UNSTABLE, K_BROKEN, K_UNSUPPORTED, K_NOT_RUN, K_COUNT };
static const char *const kind_names[K_COUNT] = {"agrees",  "differs",     "unstable",
                                                "broken",  "unsupported", "not_run"};
static const char *const kind_marks[K_COUNT] = {"=", "≠", "±", "✗", "–", "·"};

static int is_divergence(int k) { return k == K_DIFFERS || k == K_UNSTABLE || k == K_BROKEN; }

/* A cell's detail is capped: a few diffs and chunkings, never an answer. */
#define DETAIL_MAX 6000

typedef struct peer {
  char *name, *cmd;
  char *about; /* "package version, licence", from peer.json */
  idnotes known;
  char **filters;  /* peer.json's "filters": the only ones asked of it (NULL: all) */
  size_t nfilters;
  int setup_error; /* under the run's mutex */
  char *setup_msg;
  _Atomic int sessions; /* what it has shown of streaming sessions (check.h) */
} peer;

typedef struct cell {
  unsigned char kind;
  unsigned char known; /* 1: listed as this kind; 2: listed as another kind */
  char *detail;
} cell;

typedef struct diffrun {
  runargs ra;
  peer *peers;
  size_t npeers;
  int format, quiet;
  const char *html_path, *md_path;
  strlist only;      /* --peer */
  strlist knowns;    /* --known NAME=FILE, as given */
  strlist peer_dirs; /* --peers */
  /* the run */
  const caselist *cl;
  cell *cells;       /* [peer * ncases + case] */
  char **ref_outcome; /* per case: "ok" or the reference's error code */
  atomic_size_t next, done, fresh; /* fresh: new divergences so far (--max-failures) */
  atomic_int max_reached;
  progress pg;
  pthread_mutex_t mu;
} diffrun;

enum { OUT_MARKDOWN, OUT_HTML, OUT_JSON };

/* ---------------- one cell ---------------- */

static void cap_detail(tbuf *b) {
  if (b->n <= DETAIL_MAX) return;
  size_t cut = DETAIL_MAX;
  while (cut > 0 && b->p[cut - 1] != '\n') cut--;
  b->n = cut ? cut : DETAIL_MAX;
  b->p[b->n] = '\0';
  tbuf_xadds(b, "(the rest of this detail is left out)\n");
}

static void show_input(tbuf *b, const tcase *c) {
  tbuf_xprintf(b, "input (%zu bytes): ", c->input.n);
  bytes_show(b, c->input.p, c->input.n, 400);
  tbuf_xprintf(b, "\noptions: %s\n", c->options);
}

static void run_cell(diffrun *d, target *t, peer *p, size_t ci, cell *out) {
  const tcase *c = &d->cl->v[ci];
  check_opts co = d->ra.co;
  co.self = 1;
  co.latency = LAT_OFF;
  co.sessions = &p->sessions;
  case_result r;
  check_case(t, c, &co, &r);
  tbuf b = {0};
  if (t->setup_error) {
    out->kind = K_NOT_RUN;
    goto done;
  }
  if (r.status == CASE_SKIP) {
    out->kind = K_UNSUPPORTED;
    if (r.note) tbuf_xadds(&b, r.note);
    goto done;
  }
  if (r.status == CASE_NOT_RUN) {
    out->kind = K_NOT_RUN;
    tbuf_xadds(&b, "not run: the deadline passed\n");
    goto done;
  }
  answer ref;
  chunking whole = {0};
  chunking_push(&whole, c->input.n);
  reference_answer(c->filter, c->options, c->input.p, &whole, t->lockstep, &ref);
  chunking_free(&whole);
  diff_opts o = {.ignore_codes = 1};
  if (r.whole && r.whole->ok) {
    o.fields = answer_fields(r.whole);
    /* only the events, and the keys of events, it can express */
    events_project(&ref.events, &r.whole->event_types, &r.whole->event_keys);
  }
  tbuf against = {0};
  int differs = r.whole && answer_diff(&ref, r.whole, &o, &against, "  ") != 0;
  answer_free(&ref);
  tbuf report = {0};
  case_result_text(&r, &report, 0);
  if (r.troubles) {
    out->kind = K_BROKEN;
    show_input(&b, c);
    tbuf_xprintf(&b, "%s crashed, hung or answered outside the protocol:\n", p->name);
    tbuf_xadd(&b, report.p, report.n);
  } else if (r.status == CASE_FAIL) {
    out->kind = K_UNSTABLE;
    show_input(&b, c);
    tbuf_xprintf(&b, "%s disagrees with itself. expected: %s on the whole input in one chunk; "
                     "actual: %s on this chunking:\n",
                 p->name, p->name, p->name);
    tbuf_xadd(&b, report.p, report.n);
    if (differs) {
      tbuf_xprintf(&b, "and on the whole input it differs from sluice. expected: sluice; "
                       "actual: %s:\n",
                   p->name);
      tbuf_xadd(&b, against.p, against.n);
    }
  } else if (differs) {
    out->kind = K_DIFFERS;
    show_input(&b, c);
    tbuf_xprintf(&b, "the same for every chunking. expected: sluice; actual: %s:\n", p->name);
    tbuf_xadd(&b, against.p, against.n);
    tbuf_xprintf(&b, "source: %s\n", c->source);
  } else {
    out->kind = K_AGREES;
  }
  tbuf_free(&report);
  tbuf_free(&against);
done:
  cap_detail(&b);
  out->detail = b.n ? tbuf_take(&b, NULL) : NULL;
  tbuf_free(&b);
  case_result_free(&r);
}

/* Whether a peer is asked for cases of this filter. */
static int serves(const peer *p, const char *filter) {
  if (!p->filters) return 1;
  for (size_t i = 0; i < p->nfilters; i++)
    if (strcmp(p->filters[i], filter) == 0) return 1;
  return 0;
}

typedef struct worker_arg {
  diffrun *d;
} worker_arg;

static int kind_listed(const char *word, size_t wl, int kind);

/* Whether a cell is a new divergence (one its peer's known file does not
 * list as such): what --max-failures counts. */
static int fresh_divergence(const peer *p, const tcase *c, const cell *x) {
  if (!is_divergence(x->kind)) return 0;
  const idnote *e = idnotes_find(&p->known, c);
  return !e || !kind_listed(e->note, strcspn(e->note, " \t"), x->kind);
}

/* One cell: not run (the deadline, --max-failures, a peer that cannot
 * start), unsupported (a filter its peer.json does not list), or run. */
static void one_cell(diffrun *d, target *t, peer *p, size_t ci, cell *out) {
  size_t max = d->ra.max_failures;
  pthread_mutex_lock(&d->mu);
  int dead = p->setup_error;
  pthread_mutex_unlock(&d->mu);
  if (max && atomic_load(&d->fresh) >= max) atomic_store(&d->max_reached, 1);
  if (dead || (d->ra.co.deadline && now_seconds() > d->ra.co.deadline) ||
      (max && atomic_load(&d->fresh) >= max)) {
    out->kind = K_NOT_RUN;
  } else if (!serves(p, d->cl->v[ci].filter)) {
    /* as the peer would answer: no request spent on it */
    out->kind = K_UNSUPPORTED;
    out->detail = xstrdup("not a filter its peer.json lists in \"filters\"\n");
  } else {
    run_cell(d, t, p, ci, out);
    if (fresh_divergence(p, &d->cl->v[ci], out)) atomic_fetch_add(&d->fresh, 1);
    if (t->setup_error) {
      pthread_mutex_lock(&d->mu);
      if (!p->setup_error) {
        p->setup_error = 1;
        p->setup_msg = xstrdup(t->setup_msg.p ? t->setup_msg.p : "setup error");
      }
      pthread_mutex_unlock(&d->mu);
    }
  }
}

static void *worker(void *vp) {
  diffrun *d = ((worker_arg *)vp)->d;
  size_t nc = d->cl->n, total = nc * d->npeers;
  target t;
  size_t cur = (size_t)-1;
  for (;;) {
    size_t i = atomic_fetch_add(&d->next, 1);
    if (i >= total) break;
    size_t pi = i / nc, ci = i % nc;
    peer *p = &d->peers[pi];
    if (pi != cur) {
      if (cur != (size_t)-1) target_free(&t);
      target_init(&t, p->cmd, &d->ra.io);
      cur = pi;
    }
    one_cell(d, &t, p, ci, &d->cells[i]);
    size_t done = atomic_fetch_add(&d->done, 1) + 1;
    pthread_mutex_lock(&d->mu);
    progress_update(&d->pg, done, atomic_load(&d->fresh));
    pthread_mutex_unlock(&d->mu);
  }
  if (cur != (size_t)-1) target_free(&t);
  return NULL;
}

/* ---------------- known divergences ---------------- */

/* Whether the kind word of a known entry (`differs`, or alternatives as
 * in `differs|broken`, for a peer whose slowness makes the outcome depend
 * on the machine) names `kind`; with kind -1, whether every alternative
 * names a divergence at all. */
static int kind_listed(const char *word, size_t wl, int kind) {
  for (size_t i = 0; i <= wl;) {
    size_t n = 0;
    while (i + n < wl && word[i + n] != '|') n++;
    int named = 0;
    for (int j = 0; j < K_COUNT && !named; j++)
      named = is_divergence(j) && (kind < 0 || kind == j) && strlen(kind_names[j]) == n &&
              strncmp(word + i, kind_names[j], n) == 0;
    if (kind < 0 && !named) return 0;
    if (kind >= 0 && named) return 1;
    i += n + 1;
  }
  return kind < 0;
}

static int check_known_file(const peer *p) {
  for (size_t i = 0; i < p->known.n; i++) {
    const idnote *e = &p->known.v[i];
    if (!kind_listed(e->note, strcspn(e->note, " \t"), -1)) {
      fprintf(stderr,
              "sluice diff: %s: line %zu: after the case id comes differs, unstable or broken "
              "(or several, as differs|broken), then the reason\n",
              p->known.path, e->line);
      return -1;
    }
  }
  return 0;
}

static void mark_known(diffrun *d) {
  for (size_t pi = 0; pi < d->npeers; pi++)
    for (size_t ci = 0; ci < d->cl->n; ci++) {
      cell *x = &d->cells[pi * d->cl->n + ci];
      const idnote *e = idnotes_find(&d->peers[pi].known, &d->cl->v[ci]);
      if (!e) continue;
      x->known = kind_listed(e->note, strcspn(e->note, " \t"), x->kind) ? 1 : 2;
    }
}

/* The reason of a known entry (after its kind word). */
static const char *known_reason(const peer *p, const tcase *c) {
  const idnote *e = idnotes_find(&p->known, c);
  if (!e) return NULL;
  const char *s = e->note + strcspn(e->note, " \t");
  while (*s == ' ' || *s == '\t') s++;
  return s;
}

/* ---------------- tallies and order ---------------- */

typedef struct tally {
  size_t n[K_COUNT];
  size_t fresh; /* divergences not known */
  size_t stale; /* known entries whose cell now agrees (or is another kind) */
} tally;

static void count(const diffrun *d, size_t pi, tally *t) {
  memset(t, 0, sizeof *t);
  for (size_t ci = 0; ci < d->cl->n; ci++) {
    const cell *x = &d->cells[pi * d->cl->n + ci];
    t->n[x->kind]++;
    if (is_divergence(x->kind) && x->known != 1) t->fresh++;
    if (x->known == 2 && !is_divergence(x->kind) && x->kind != K_NOT_RUN) t->stale++;
  }
}

/* 1 if any implementation does not agree on case ci (unsupported aside). */
static int row_differs(const diffrun *d, size_t ci) {
  for (size_t pi = 0; pi < d->npeers; pi++) {
    int k = d->cells[pi * d->cl->n + ci].kind;
    if (k != K_AGREES && k != K_UNSUPPORTED) return 1;
  }
  return 0;
}

/* The cases in output order: by suite, rows that differ first, then the
 * case order. */
static size_t *row_order(const diffrun *d) {
  size_t n = d->cl->n, *o = xcalloc(n ? n : 1, sizeof *o), k = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && strcmp(d->cl->v[j].suite, d->cl->v[i].suite) == 0) j++;
    for (int pass = 0; pass < 2; pass++)
      for (size_t ci = i; ci < j; ci++)
        if (row_differs(d, ci) == !pass) o[k++] = ci;
    i = j;
  }
  return o;
}

/* 1 if no implementation supports any case of order[i..j). */
static int none_supported(const diffrun *d, const size_t *order, size_t i, size_t j) {
  for (size_t k = i; k < j; k++)
    for (size_t pi = 0; pi < d->npeers; pi++)
      if (d->cells[pi * d->cl->n + order[k]].kind != K_UNSUPPORTED) return 0;
  return 1;
}

static const char *ref_text(const diffrun *d, size_t ci) {
  return d->ref_outcome[ci] ? d->ref_outcome[ci] : "?";
}

/* A detail's number: its anchor in the page ("d17"). */
static size_t detail_no(const diffrun *d, size_t pi, size_t ci) { return pi * d->cl->n + ci + 1; }

/* ---------------- markdown ---------------- */

static void md_fence(tbuf *b, const char *text) {
  /* A fence longer than any run of backticks inside. */
  size_t run = 0, longest = 0;
  for (const char *s = text; *s; s++) {
    run = *s == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  size_t f = longest < 3 ? 3 : longest + 1;
  for (size_t i = 0; i < f; i++) tbuf_xadds(b, "`");
  tbuf_xadds(b, "text\n");
  tbuf_xadds(b, text);
  if (b->n && b->p[b->n - 1] != '\n') tbuf_xadds(b, "\n");
  for (size_t i = 0; i < f; i++) tbuf_xadds(b, "`");
  tbuf_xadds(b, "\n");
}

static void modes_text(tbuf *b, unsigned modes) {
  int first = 1;
  for (int m = 0; m < M_COUNT; m++)
    if (modes & (1u << m)) {
      tbuf_xprintf(b, "%s%s", first ? "" : ", ", split_mode_names[m]);
      first = 0;
    }
}

static void write_markdown(const diffrun *d, tbuf *b) {
  const caselist *cl = d->cl;
  tbuf_xprintf(b, "# sluice diff\n\nsluice %s against %zu implementation%s on %zu cases; split "
                  "modes: ",
               sluice_version(), d->npeers, d->npeers == 1 ? "" : "s", cl->n);
  modes_text(b, d->ra.co.modes);
  tbuf_xadds(b, "; suites: ");
  suites_describe(cl, b);
  tbuf_xadds(b, ".\n\n`=` agrees with sluice for every chunking · `≠` differs, the same way for "
                "every chunking · `±` disagrees with itself across chunkings · `✗` crashed, hung "
                "or answered outside the protocol · `–` not supported · `(k)` a known "
                "divergence. Each implementation is compared in the fields it reports.\n\n");
  tbuf_xadds(b, "| implementation | about | agrees | differs | unstable | broken | unsupported | "
                "new |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (size_t pi = 0; pi < d->npeers; pi++) {
    tally t;
    count(d, pi, &t);
    tbuf_xprintf(b, "| %s | %s | %zu | %zu | %zu | %zu | %zu | %zu |\n", d->peers[pi].name,
                 d->peers[pi].about ? d->peers[pi].about : "", t.n[K_AGREES], t.n[K_DIFFERS],
                 t.n[K_UNSTABLE], t.n[K_BROKEN], t.n[K_UNSUPPORTED], t.fresh);
  }
  size_t *order = row_order(d);
  for (size_t i = 0; i < cl->n;) {
    size_t j = i;
    while (j < cl->n && strcmp(cl->v[order[j]].suite, cl->v[order[i]].suite) == 0) j++;
    if (none_supported(d, order, i, j)) {
      tbuf_xprintf(b, "\n## %s (%zu cases)\n\nNo implementation here supports these cases.\n",
                   cl->v[order[i]].suite, j - i);
      i = j;
      continue;
    }
    tbuf_xprintf(b, "\n## %s (%zu cases)\n\n| case | sluice |", cl->v[order[i]].suite, j - i);
    for (size_t pi = 0; pi < d->npeers; pi++) tbuf_xprintf(b, " %s |", d->peers[pi].name);
    tbuf_xadds(b, "\n|---|---|");
    for (size_t pi = 0; pi < d->npeers; pi++) tbuf_xadds(b, "---|");
    tbuf_xadds(b, "\n");
    for (size_t k = i; k < j; k++) {
      size_t ci = order[k];
      tbuf_xprintf(b, "| %s | %s |", cl->v[ci].id, ref_text(d, ci));
      for (size_t pi = 0; pi < d->npeers; pi++) {
        const cell *x = &d->cells[pi * cl->n + ci];
        if (x->detail && x->kind != K_UNSUPPORTED)
          tbuf_xprintf(b, " [%s](#d%zu)%s |", kind_marks[x->kind], detail_no(d, pi, ci),
                       x->known == 1 ? " (k)" : "");
        else
          tbuf_xprintf(b, " %s |", kind_marks[x->kind]);
      }
      tbuf_xadds(b, "\n");
    }
    i = j;
  }
  tbuf_xadds(b, "\n## Details\n");
  for (size_t k = 0; k < cl->n; k++) {
    size_t ci = order[k];
    for (size_t pi = 0; pi < d->npeers; pi++) {
      const cell *x = &d->cells[pi * cl->n + ci];
      if (!x->detail || x->kind == K_UNSUPPORTED) continue;
      tbuf_xprintf(b, "\n<a id=\"d%zu\"></a>\n### %s/%s · %s · %s\n\n", detail_no(d, pi, ci),
                   cl->v[ci].suite, cl->v[ci].id, d->peers[pi].name, kind_names[x->kind]);
      const char *why = known_reason(&d->peers[pi], &cl->v[ci]);
      if (why) tbuf_xprintf(b, "Known: %s\n\n", why);
      md_fence(b, x->detail);
    }
  }
  free(order);
}

/* ---------------- html ---------------- */

static void esc(tbuf *b, const char *s) { markup_escape(b, s, strlen(s)); }

/* The page's head: the style, what was run, the legend and the summary
 * table. */
static void html_head(const diffrun *d, tbuf *b) {
  const caselist *cl = d->cl;
  tbuf_xadds(b,
             "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
             "<title>sluice diff</title>\n<style>\n"
             "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\n"
             "table{border-collapse:collapse;margin:1em 0}\n"
             "th,td{border:1px solid #ccc;padding:2px 8px;text-align:center}\n"
             "td.case{text-align:left;font-family:monospace}\n"
             "td.agrees{background:#d9f2d9}td.differs{background:#ffe7a6}\n"
             "td.unstable{background:#ff9c9c;font-weight:bold}td.broken{background:#c9a0dc}\n"
             "td.unsupported{background:#eee;color:#888}td.not_run{background:#fff}\n"
             "td.known{opacity:.55}td a{color:inherit;text-decoration:none;display:block}\n"
             "pre{background:#f6f6f6;padding:.8em;overflow-x:auto;white-space:pre-wrap}\n"
             "div.detail{border-top:1px solid #ddd;margin-top:1em}\n"
             "</style></head><body>\n<h1>sluice diff</h1>\n<p>sluice ");
  esc(b, sluice_version());
  tbuf_xprintf(b, " against %zu implementation%s on %zu cases; split modes: ", d->npeers,
               d->npeers == 1 ? "" : "s", cl->n);
  tbuf modes = {0};
  modes_text(&modes, d->ra.co.modes);
  tbuf_xadds(&modes, "; suites: ");
  suites_describe(cl, &modes);
  esc(b, modes.p);
  tbuf_free(&modes);
  tbuf_xadds(b, ". Each implementation is compared in the fields it reports; an error with an "
                "error whatever its code.</p>\n<p>");
  for (int k = 0; k < K_COUNT - 1; k++)
    tbuf_xprintf(b, "<span style=\"padding:0 .5em\" class=\"%s\">%s %s</span> ", kind_names[k],
                 kind_marks[k], kind_names[k]);
  tbuf_xadds(b, " (faded: a known divergence)</p>\n<table><tr><th>implementation</th><th>"
                "about</th>");
  for (int k = 0; k < K_COUNT - 1; k++) tbuf_xprintf(b, "<th>%s</th>", kind_names[k]);
  tbuf_xadds(b, "<th>new</th></tr>\n");
  for (size_t pi = 0; pi < d->npeers; pi++) {
    tally t;
    count(d, pi, &t);
    tbuf_xadds(b, "<tr><td class=\"case\">");
    esc(b, d->peers[pi].name);
    tbuf_xadds(b, "</td><td>");
    esc(b, d->peers[pi].about ? d->peers[pi].about : "");
    tbuf_xadds(b, "</td>");
    for (int k = 0; k < K_COUNT - 1; k++) tbuf_xprintf(b, "<td>%zu</td>", t.n[k]);
    tbuf_xprintf(b, "<td>%zu</td></tr>\n", t.fresh);
  }
  tbuf_xadds(b, "</table>\n");
}

/* A table per suite, its rows in `order`. */
static void html_suites(const diffrun *d, tbuf *b, const size_t *order) {
  const caselist *cl = d->cl;
  for (size_t i = 0; i < cl->n;) {
    size_t j = i;
    while (j < cl->n && strcmp(cl->v[order[j]].suite, cl->v[order[i]].suite) == 0) j++;
    tbuf_xadds(b, "<h2>");
    esc(b, cl->v[order[i]].suite);
    if (none_supported(d, order, i, j)) {
      tbuf_xprintf(b, " (%zu cases)</h2>\n<p>No implementation here supports these cases.</p>\n",
                   j - i);
      i = j;
      continue;
    }
    tbuf_xprintf(b, " (%zu cases)</h2>\n<table><tr><th>case</th><th>sluice</th>", j - i);
    for (size_t pi = 0; pi < d->npeers; pi++) {
      tbuf_xadds(b, "<th>");
      esc(b, d->peers[pi].name);
      tbuf_xadds(b, "</th>");
    }
    tbuf_xadds(b, "</tr>\n");
    for (size_t k = i; k < j; k++) {
      size_t ci = order[k];
      tbuf_xadds(b, "<tr><td class=\"case\">");
      esc(b, cl->v[ci].id);
      tbuf_xadds(b, "</td><td>");
      esc(b, ref_text(d, ci));
      tbuf_xadds(b, "</td>");
      for (size_t pi = 0; pi < d->npeers; pi++) {
        const cell *x = &d->cells[pi * cl->n + ci];
        tbuf_xprintf(b, "<td class=\"%s%s\" title=\"%s\">", kind_names[x->kind],
                     x->known == 1 ? " known" : "", kind_names[x->kind]);
        if (x->detail) tbuf_xprintf(b, "<a href=\"#d%zu\">%s</a>", detail_no(d, pi, ci),
                                    kind_marks[x->kind]);
        else tbuf_xadds(b, kind_marks[x->kind]);
        tbuf_xadds(b, "</td>");
      }
      tbuf_xadds(b, "</tr>\n");
    }
    tbuf_xadds(b, "</table>\n");
    i = j;
  }
}

/* The details of every cell that has some, with its anchor. */
static void html_details(const diffrun *d, tbuf *b, const size_t *order) {
  const caselist *cl = d->cl;
  tbuf_xadds(b, "<h2>Details</h2>\n");
  for (size_t k = 0; k < cl->n; k++) {
    size_t ci = order[k];
    for (size_t pi = 0; pi < d->npeers; pi++) {
      const cell *x = &d->cells[pi * cl->n + ci];
      if (!x->detail) continue;
      tbuf_xprintf(b, "<div class=\"detail\" id=\"d%zu\"><h3>", detail_no(d, pi, ci));
      esc(b, cl->v[ci].suite);
      tbuf_xadds(b, "/");
      esc(b, cl->v[ci].id);
      tbuf_xadds(b, " · ");
      esc(b, d->peers[pi].name);
      tbuf_xprintf(b, " · %s</h3>\n", kind_names[x->kind]);
      const char *why = known_reason(&d->peers[pi], &cl->v[ci]);
      if (why) {
        tbuf_xadds(b, "<p>Known: ");
        esc(b, why);
        tbuf_xadds(b, "</p>\n");
      }
      tbuf_xadds(b, "<pre>");
      esc(b, x->detail);
      tbuf_xadds(b, "</pre></div>\n");
    }
  }
}

static void write_html(const diffrun *d, tbuf *b) {
  html_head(d, b);
  size_t *order = row_order(d);
  html_suites(d, b, order);
  html_details(d, b, order);
  tbuf_xadds(b, "</body></html>\n");
  free(order);
}

/* ---------------- json ---------------- */

static void jw_str(jsonw *w, const char *key, const char *v) {
  jw_key(w, key);
  jw_string(w, v, strlen(v));
}

static void write_json(const diffrun *d, tbuf *b) {
  const caselist *cl = d->cl;
  for (size_t pi = 0; pi < d->npeers; pi++)
    for (size_t ci = 0; ci < cl->n; ci++) {
      const cell *x = &d->cells[pi * cl->n + ci];
      const tcase *c = &cl->v[ci];
      jsonw w;
      jw_init(&w, b);
      jw_begin_object(&w);
      jw_str(&w, "suite", c->suite);
      jw_str(&w, "file", c->file);
      jw_str(&w, "case", c->id);
      jw_str(&w, "impl", d->peers[pi].name);
      jw_str(&w, "status", kind_names[x->kind]);
      jw_str(&w, "reference", ref_text(d, ci));
      jw_key(&w, "known");
      jw_bool(&w, x->known == 1);
      const char *why = known_reason(&d->peers[pi], c);
      if (why) jw_str(&w, "known_reason", why);
      if (x->detail) jw_str(&w, "detail", x->detail);
      jw_end_object(&w);
      if (w.failed) die("out of memory");
      tbuf_xadds(b, "\n");
    }
  jsonw w;
  jw_init(&w, b);
  jw_begin_object(&w);
  jw_key(&w, "suites_version");
  if (cl->version) jw_string(&w, cl->version, strlen(cl->version));
  else jw_null(&w);
  char digest[24];
  snprintf(digest, sizeof digest, "%016llx", (unsigned long long)cl->digest);
  jw_str(&w, "suites_digest", digest);
  jw_key(&w, "summary");
  jw_begin_array(&w);
  for (size_t pi = 0; pi < d->npeers; pi++) {
    tally t;
    count(d, pi, &t);
    jw_begin_object(&w);
    jw_str(&w, "impl", d->peers[pi].name);
    if (d->peers[pi].about) jw_str(&w, "about", d->peers[pi].about);
    for (int k = 0; k < K_COUNT; k++) {
      jw_key(&w, kind_names[k]);
      jw_int(&w, (int64_t)t.n[k]);
    }
    jw_key(&w, "new");
    jw_int(&w, (int64_t)t.fresh);
    jw_end_object(&w);
  }
  jw_end_array(&w);
  jw_end_object(&w);
  if (w.failed) die("out of memory");
  tbuf_xadds(b, "\n");
}

/* ---------------- implementations ---------------- */

static void add_peer(diffrun *d, const char *name, const char *cmd, const char *about) {
  for (size_t i = 0; i < d->npeers; i++)
    if (strcmp(d->peers[i].name, name) == 0) die("diff: two implementations named \"%s\"", name);
  d->peers = xrealloc(d->peers, xmul(d->npeers + 1, sizeof *d->peers));
  peer *p = &d->peers[d->npeers++];
  memset(p, 0, sizeof *p);
  p->name = xstrdup(name);
  p->cmd = xstrdup(cmd);
  p->about = about ? xstrdup(about) : NULL;
}

static peer *find_peer(diffrun *d, const char *name) {
  for (size_t i = 0; i < d->npeers; i++)
    if (strcmp(d->peers[i].name, name) == 0) return &d->peers[i];
  return NULL;
}

/* NAME=VALUE: the name (malloc'd) and the value; NULL if no '='. */
static char *split_named(const char *arg, const char **value) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || !eq[1]) return NULL;
  *value = eq + 1;
  return xstrndup(arg, (size_t)(eq - arg));
}

static const char *jstr(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

/* One DIR/NAME/peer.json. -1 after a message. */
static int load_peer(diffrun *d, const char *dir, const char *sub) {
  tbuf path = {0};
  tbuf_xprintf(&path, "%s/%s/peer.json", dir, sub);
  json_error_t jerr;
  json_t *o = json_load_file(path.p, 0, &jerr);
  int rc = -1;
  if (!o) {
    fprintf(stderr, "sluice diff: %s: line %d: %s\n", path.p, jerr.line, jerr.text);
    goto out;
  }
  const char *name = jstr(o, "name"), *cmd = jstr(o, "command"), *known = jstr(o, "known");
  if (!name) name = sub;
  if (!cmd) {
    fprintf(stderr, "sluice diff: %s: needs a string \"command\"\n", path.p);
    goto out;
  }
  int wanted = d->only.n == 0;
  for (size_t i = 0; i < d->only.n && !wanted; i++) wanted = strcmp(d->only.v[i], name) == 0;
  if (!wanted) {
    rc = 0;
    goto out;
  }
  tbuf full = {0}, about = {0};
  tbuf_xadds(&full, "cd ");
  tbuf folder = {0};
  tbuf_xprintf(&folder, "%s/%s", dir, sub);
  sh_quote(&full, folder.p);
  tbuf_xprintf(&full, " && %s", cmd);
  const char *pkg = jstr(o, "package"), *ver = jstr(o, "version"), *lic = jstr(o, "licence");
  if (pkg) tbuf_xprintf(&about, "%s%s%s", pkg, ver ? " " : "", ver ? ver : "");
  if (lic) tbuf_xprintf(&about, "%s%s", about.n ? ", " : "", lic);
  add_peer(d, name, full.p, about.n ? about.p : NULL);
  json_t *fl = json_object_get(o, "filters");
  if (fl) {
    peer *p = &d->peers[d->npeers - 1];
    size_t i;
    json_t *v;
    p->filters = xcalloc(json_array_size(fl) + 1, sizeof *p->filters);
    json_array_foreach(fl, i, v) {
      if (!json_is_string(v)) break;
      p->filters[p->nfilters++] = xstrdup(json_string_value(v));
    }
    if (!json_is_array(fl) || p->nfilters != json_array_size(fl)) {
      fprintf(stderr, "sluice diff: %s: \"filters\" must be an array of filter names\n", path.p);
      tbuf_free(&full);
      tbuf_free(&about);
      tbuf_free(&folder);
      goto out;
    }
  }
  rc = 0;
  if (known) {
    tbuf kp = {0};
    tbuf_xprintf(&kp, "%s/%s", folder.p, known);
    rc = idnotes_load(&d->peers[d->npeers - 1].known, "diff", kp.p);
    tbuf_free(&kp);
  }
  tbuf_free(&full);
  tbuf_free(&about);
  tbuf_free(&folder);
out:
  json_decref(o);
  tbuf_free(&path);
  return rc;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_peers(diffrun *d, const char *dir) {
  DIR *dh = opendir(dir);
  if (!dh) {
    fprintf(stderr, "sluice diff: %s: %s\n", dir, strerror(errno));
    return -1;
  }
  char **subs = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(dh))) {
    if (e->d_name[0] == '.') continue;
    tbuf p = {0};
    struct stat st;
    tbuf_xprintf(&p, "%s/%s/peer.json", dir, e->d_name);
    if (stat(p.p, &st) == 0 && S_ISREG(st.st_mode)) {
      subs = xrealloc(subs, xmul(n + 1, sizeof *subs));
      subs[n++] = xstrdup(e->d_name);
    }
    tbuf_free(&p);
  }
  closedir(dh);
  qsort(subs, n, sizeof *subs, cmp_names); /* the same columns on every machine */
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    if (!rc) rc = load_peer(d, dir, subs[i]);
    free(subs[i]);
  }
  free(subs);
  if (!rc && n == 0) {
    fprintf(stderr, "sluice diff: no */peer.json in %s\n", dir);
    rc = -1;
  }
  return rc;
}

/* ---------------- options ---------------- */

/* NAME=VALUE (--impl, --known): the name (malloc'd) and *value; NULL with
 * the reason in why. */
static char *named_arg(const char *v, const char *what, const char **value, char *why,
                       size_t wl) {
  char *name = split_named(v, value);
  if (!name) snprintf(why, wl, "needs NAME=%s, not \"%.60s\"", what, v);
  return name;
}

static int impl_arg(void *base, const char *v, char *why, size_t wl) {
  const char *cmd;
  char *name = named_arg(v, "COMMAND", &cmd, why, wl);
  if (!name) return -1;
  add_peer(base, name, cmd, NULL);
  free(name);
  return 0;
}

static int known_arg(void *base, const char *v, char *why, size_t wl) {
  const char *file;
  char *name = named_arg(v, "FILE", &file, why, wl);
  if (!name) return -1;
  free(name); /* read once every implementation is known (settle_peers) */
  strlist_add(&((diffrun *)base)->knowns, v);
  return 0;
}

static int captures_arg(void *base, const char *v, char *why, size_t wl) {
  runargs *ra = &((diffrun *)base)->ra;
  (void)why, (void)wl;
  ra->captures = xrealloc((void *)ra->captures, xmul(ra->ncaptures + 1, sizeof *ra->captures));
  ra->captures[ra->ncaptures++] = v;
  return 0;
}

static const char *const formats[] = {"markdown", "html", "json", NULL}; /* OUT_* */

static const opt diff_options[] = {
    {.kind = OPT_SECTION, .help = "Implementations"},
    {"impl", 0, "NAME=COMMAND", OPT_CALL, 0, .fn = impl_arg,
     .help = "an implementation (run with sh -c); repeatable"},
    {"known", 0, "NAME=FILE", OPT_CALL, 0, .fn = known_arg,
     .help = "its known divergences: lines \"CASE-ID KIND reason\" (SUITE/CASE-ID also; KIND: "
             "differs, unstable or broken, or several as differs|broken; # comments). A "
             "listed cell does not fail the run; one that now agrees is reported"},
    {"peers", 0, "DIR", OPT_LIST, OPT_AT(diffrun, peer_dirs, strlist),
     .help = "every DIR/*/peer.json: {\"name\", \"command\" (run in that folder), \"known\" (a "
             "file there), \"package\", \"version\", \"licence\", \"filters\" (the only ones it "
             "is asked for)}"},
    {"peer", 0, "NAME", OPT_LIST, OPT_AT(diffrun, only, strlist),
     .help = "only this one of --peers; repeatable"},
    {"captures", 0, "PATH", OPT_CALL, 0, .fn = captures_arg,
     .help = "also every recorded provider stream in PATH (a capture file or a folder of "
             ".sse, .ndjson, .chunks.jsonl, .capture.jsonl): its body a case of suite "
             "\"captures\" for the provider filter, its pieces the recorded chunking; "
             "--suite captures: only these"},
    {.kind = OPT_SECTION, .help = "Output"},
    {"format", 0, "FMT", OPT_CHOICE, OPT_AT(diffrun, format, int), .choices = formats,
     .help = "markdown (default), html (a self-contained page) or json (a JSON line per cell, "
             "then a summary line)"},
    {"html", 0, "FILE", OPT_STRING, OPT_AT(diffrun, html_path, const char *),
     .help = "also write the HTML page to FILE"},
    {"markdown", 0, "FILE", OPT_STRING, OPT_AT(diffrun, md_path, const char *),
     .help = "also write the Markdown to FILE"},
    {"quiet", 'q', NULL, OPT_FLAG, OPT_AT(diffrun, quiet, int),
     .help = "no progress line on stderr"},
    {0}};

static const opt_cmd diff_cmd = {
    .name = "diff",
    .synopsis = "(--impl NAME=COMMAND | --peers DIR) ... [options]",
    .intro =
        "Runs every selected case through the reference and each implementation (a\n"
        "command serving the filter protocol, conformance/FORMAT.md) in every split\n"
        "mode, and writes a table: cases as rows grouped by suite, rows where the\n"
        "implementations differ first, the reference and each implementation as\n"
        "columns. A cell is one of:\n"
        "  =  agrees with sluice for every chunking\n"
        "  ≠  differs from sluice, the same way for every chunking\n"
        "  ±  disagrees with itself: some chunking gives another answer than the\n"
        "     whole input (the smallest such chunking is shown)\n"
        "  ✗  crashed, hung or answered outside the protocol\n"
        "  –  not supported (it answered \"unsupported\")\n"
        "An implementation is compared in the fields its answers have (one that\n"
        "reports only text and thought is compared on those), and an error with an\n"
        "error whatever its code. Exit status: 0 when every divergence is a known\n"
        "one, 1 when there is a new one (or the deadline passed), 2 a usage or setup\n"
        "error (an implementation that cannot start).\n",
    .outro = "sluice diff runs every split mode but pair-cuts and exhaustive unless --modes\n"
             "says otherwise, and at most 256 single cuts per case, spread evenly.\n",
    .tables = {diff_options, runargs_options, select_options},
};

/* What the options name, once all are read: the peers of --peers, then
 * --peer and --known checked against them. -1 after a message. */
static int settle_peers(diffrun *d) {
  int rc = 0;
  for (size_t i = 0; i < d->peer_dirs.n && !rc; i++) rc = load_peers(d, d->peer_dirs.v[i]);
  for (size_t i = 0; i < d->only.n && !rc; i++)
    if (!find_peer(d, d->only.v[i])) {
      fprintf(stderr, "sluice diff: --peer %s: no such peer in --peers\n", d->only.v[i]);
      rc = -1;
    }
  for (size_t i = 0; i < d->knowns.n && !rc; i++) {
    const char *file = NULL;
    char *name = split_named(d->knowns.v[i], &file); /* checked by known_arg */
    peer *p = find_peer(d, name);
    if (!p) {
      fprintf(stderr, "sluice diff: --known %s: no implementation of that name\n", name);
      rc = -1;
    } else {
      rc = idnotes_load(&p->known, "diff", file);
    }
    free(name);
  }
  for (size_t i = 0; i < d->npeers && !rc; i++) rc = check_known_file(&d->peers[i]);
  if (!rc && d->npeers == 0) {
    fprintf(stderr, "sluice diff: name an implementation (--impl NAME=COMMAND or --peers DIR)\n");
    rc = -1;
  }
  return rc;
}

static void free_run(diffrun *d) {
  for (size_t i = 0; i < d->npeers; i++) {
    free(d->peers[i].name);
    free(d->peers[i].cmd);
    free(d->peers[i].about);
    free(d->peers[i].setup_msg);
    for (size_t j = 0; j < d->peers[i].nfilters; j++) free(d->peers[i].filters[j]);
    free(d->peers[i].filters);
    idnotes_free(&d->peers[i].known);
  }
  free(d->peers);
  strlist_free(&d->only);
  strlist_free(&d->knowns);
  strlist_free(&d->peer_dirs);
  free((void *)d->ra.captures);
  runargs_free(&d->ra);
}

static int write_to(const char *path, const tbuf *b) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "sluice diff: %s: %s\n", path, strerror(errno));
    return -1;
  }
  int rc = fwrite_checked("diff", b->p, b->n, f);
  if (fclose(f) != 0 && !rc) {
    fprintf(stderr, "sluice diff: %s: %s\n", path, strerror(errno));
    rc = -1;
  }
  return rc;
}

/* ---------------- the run ---------------- */

/* The options, then the peers and the cases. -1 to go on, else the exit
 * status. */
static int setup(diffrun *d, caselist *cl, int argc, char **argv) {
  memset(d, 0, sizeof *d);
  runargs_init(&d->ra, "diff", argc);
  /* By default not the two modes that send thousands of requests per short
   * case: a peer is slower than the library, and a disagreement a cut pair
   * shows, the random and byte-at-a-time modes show too (then minimized). */
  d->ra.co.modes &= ~((1u << M_PAIRS) | (1u << M_EXHAUSTIVE));
  d->ra.co.sp.max_single = 256;
  void *bases[] = {d, &d->ra, &d->ra.filter};
  int rc = opt_parse(&diff_cmd, bases, argc, argv, NULL);
  if (rc < 0 && (settle_peers(d) || runargs_finish(&d->ra, cl))) rc = 2;
  return rc;
}

/* The reference's outcome of every case: "ok" or its error code. */
static void reference_outcomes(diffrun *d) {
  const caselist *cl = d->cl;
  d->ref_outcome = xcalloc(cl->n, sizeof *d->ref_outcome);
  sluice_output *col;
  if (sluice_output_new(&col, NULL) != SLUICE_OK) die("out of memory");
  for (size_t ci = 0; ci < cl->n; ci++) {
    answer ref;
    chunking whole = {0};
    chunking_push(&whole, cl->v[ci].input.n);
    reference_answer(cl->v[ci].filter, cl->v[ci].options, cl->v[ci].input.p, &whole, col, &ref);
    d->ref_outcome[ci] = xstrdup(ref.ok ? "ok" : ref.code);
    answer_free(&ref);
    chunking_free(&whole);
  }
  sluice_output_free(col);
}

/* Every cell, on the -j workers. */
static void run_cells(diffrun *d) {
  size_t total = d->cl->n * d->npeers;
  d->cells = xcalloc(total ? total : 1, sizeof *d->cells);
  pthread_mutex_init(&d->mu, NULL);
  int jobs = d->ra.jobs;
  if ((size_t)jobs > total) jobs = (int)total;
  pthread_t *th = xcalloc((size_t)jobs + 1, sizeof *th);
  worker_arg wa = {d};
  progress_init(&d->pg, "diff", "cells", total, d->quiet);
  for (int j = 0; j < jobs; j++)
    if (pthread_create(&th[j], NULL, worker, &wa)) die("cannot start a worker thread");
  for (int j = 0; j < jobs; j++) pthread_join(th[j], NULL);
  progress_clear(&d->pg);
  free(th);
  mark_known(d);
}

/* The table on standard output, and the --html and --markdown files.
 * 0, or 1 after a write error. */
static int write_outputs(const diffrun *d) {
  tbuf out = {0};
  if (d->format == OUT_HTML) write_html(d, &out);
  else if (d->format == OUT_JSON) write_json(d, &out);
  else write_markdown(d, &out);
  int rc = fwrite_checked("diff", out.p, out.n, stdout) || fflush_checked("diff", stdout) ? 1 : 0;
  tbuf_free(&out);
  if (d->html_path) {
    write_html(d, &out);
    if (write_to(d->html_path, &out)) rc = 1;
    tbuf_free(&out);
  }
  if (d->md_path) {
    write_markdown(d, &out);
    if (write_to(d->md_path, &out)) rc = 1;
    tbuf_free(&out);
  }
  return rc;
}

/* The closing lines: per implementation, then the verdict. Returns the
 * exit status (rc: that of writing the outputs). */
static int conclude(const diffrun *d, int rc) {
  const caselist *cl = d->cl;
  size_t fresh = 0, not_run = 0, setup = 0;
  for (size_t pi = 0; pi < d->npeers; pi++) {
    tally t;
    count(d, pi, &t);
    fprintf(stderr, "%s: %zu agree, %zu differ, %zu unstable, %zu broken, %zu unsupported",
            d->peers[pi].name, t.n[K_AGREES], t.n[K_DIFFERS], t.n[K_UNSTABLE], t.n[K_BROKEN],
            t.n[K_UNSUPPORTED]);
    if (t.n[K_NOT_RUN]) fprintf(stderr, ", %zu not run", t.n[K_NOT_RUN]);
    fprintf(stderr, "; %zu new\n", t.fresh);
    if (t.stale)
      fprintf(stderr, "  %zu known divergence%s of %s no longer seen as listed (%s): update it\n",
              t.stale, t.stale == 1 ? " is" : "s are", d->peers[pi].name,
              d->peers[pi].known.path);
    for (size_t ci = 0; ci < cl->n && t.fresh; ci++) {
      const cell *x = &d->cells[pi * cl->n + ci];
      if (is_divergence(x->kind) && x->known != 1)
        fprintf(stderr, "  new: %s/%s %s\n", cl->v[ci].suite, cl->v[ci].id, kind_names[x->kind]);
    }
    if (atomic_load(&d->peers[pi].sessions) == SESSIONS_ABSENT)
      fprintf(stderr, "  note: %s: %s (its streaming modes were skipped)\n", d->peers[pi].name,
              session_absent_message);
    if (d->peers[pi].setup_error) {
      fprintf(stderr, "sluice diff: setup error: %s\n", d->peers[pi].setup_msg);
      setup++;
    }
    fresh += t.fresh;
    not_run += t.n[K_NOT_RUN];
  }
  if (atomic_load(&d->max_reached))
    fprintf(stderr, "stopped after %zu new divergences (--max-failures); %zu cells not run\n",
            d->ra.max_failures, not_run);
  fprintf(stderr, "%zu new divergence%s\n", fresh, fresh == 1 ? "" : "s");
  if (setup) rc = 2;
  else if (fresh || not_run) rc = 1;
  return rc;
}

int cmd_diff(int argc, char **argv) {
  diffrun d;
  caselist cl = {0};
  int rc = setup(&d, &cl, argc, argv);
  if (rc >= 0) {
    free_run(&d);
    caselist_free(&cl);
    return rc;
  }
  signal(SIGPIPE, SIG_IGN);
  json_object_seed(1); /* before any thread builds an object */
  d.cl = &cl;
  reference_outcomes(&d);
  run_cells(&d);
  rc = conclude(&d, write_outputs(&d));
  for (size_t i = 0; i < cl.n * d.npeers; i++) free(d.cells[i].detail);
  for (size_t i = 0; i < cl.n; i++) free(d.ref_outcome[i]);
  free(d.cells);
  free(d.ref_outcome);
  pthread_mutex_destroy(&d.mu);
  free_run(&d);
  caselist_free(&cl);
  return rc;
}
