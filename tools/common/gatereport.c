/*
 * gatereport.c: the gate's report (gate.h): a row per case, a cell per
 * family of variants, and for every cell that is not "=" what happened and
 * how to see it again; as text, markdown, JSON lines, JUnit XML or one
 * self-contained HTML page.
 */
#include "gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"

/* ---------------- cells ---------------- */

typedef struct cell {
  const char *mark;    /* "=", "≠", "±", "✗", "–", "?", "" */
  int failing;         /* a difference or a broken answer */
  int known;           /* ... listed in --known */
  const gvariant *first; /* the first variant that is not "=" */
  size_t total, bad;
} cell;

gknown *gate_known_find(gknown *k, size_t n, const char *id, gfamily f) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(k[i].id, id) == 0 &&
        (strcmp(k[i].family, "*") == 0 || strcmp(k[i].family, gate_family_names[f]) == 0))
      return &k[i];
  return NULL;
}

static cell cell_of(const gcase *gc, gfamily f, gknown *k, size_t nk) {
  cell c = {"", 0, 0, NULL, 0, 0};
  size_t agree = 0, differ = 0, broken = 0, unsup = 0, notrun = 0;
  int same_why = 1;
  for (size_t i = 0; i < gc->nv; i++) {
    const gvariant *v = &gc->v[i];
    if (v->fam != f) continue;
    c.total++;
    switch (v->st) {
    case GS_AGREES: agree++; continue;
    case GS_DIFFERS: differ++; break;
    case GS_BROKEN: broken++; break;
    case GS_UNSUPPORTED: unsup++; break;
    default: notrun++; break;
    }
    if (!c.first) c.first = v;
    else if (v->st == GS_DIFFERS && strcmp(v->why, c.first->why) != 0) same_why = 0;
  }
  c.bad = differ + broken + notrun;
  if (!c.total) return c;
  if (notrun) c.mark = "?";
  else if (broken) c.mark = "✗";
  else if (differ) c.mark = differ == c.total - unsup && same_why ? "≠" : "±";
  else if (agree) c.mark = "=";
  else c.mark = "–";
  c.failing = differ || broken || notrun;
  gknown *kn = c.failing ? gate_known_find(k, nk, gc->id, f) : NULL;
  if (kn) {
    c.known = 1;
    kn->seen = 1;
  }
  return c;
}

/* ---------------- reproduction ---------------- */

static void repro(const gate *g, const gcase *gc, tbuf *out) {
  client_req req = {g->client, g->o.url, NULL, (const char *const *)g->headers, 0, 0};
  char model[256];
  snprintf(model, sizeof model, "%s%s", g->o.model_prefix ? g->o.model_prefix : "",
           gc->cap.model ? gc->cap.model : "m");
  req.model = model;
  tbuf_xprintf(out, "sluice serve --resplit %s %s &  # then, through the middleware:\n",
               gc->repro_spec, gc->cap.path);
  client_curl_command(&req, out);
  tbuf_xadds(out, "\n");
}

/* ---------------- text and markdown ---------------- */

static void details(const gate *g, const gcase *gc, gfamily f, const cell *c, tbuf *out,
                    int md) {
  if (!c->failing) { /* only variants that cannot be run */
    tbuf_xprintf(out, md ? "- **%s**, %s: cannot be run: %s\n" : "%s, %s: cannot be run: %s\n",
                 gc->id, gate_family_names[f], c->first->why);
    return;
  }
  tbuf_xprintf(out, md ? "- **%s**, %s (%zu of %zu variants)%s: %s `%s`: %s\n"
                       : "%s, %s (%zu of %zu variants)%s:\n  %s %s: %s\n",
               gc->id, gate_family_names[f], c->bad, c->total, c->known ? " [known]" : "",
               md ? "e.g." : "e.g.", c->first->label, c->first->why);
  if (f == GF_DELTAS && gc->repro_spec[0]) {
    tbuf r = {0};
    repro(g, gc, &r);
    tbuf_xprintf(out, md ? "  smallest delta cut: `%s`; to see it:\n  ```\n%s  ```\n"
                         : "  smallest delta cut: %s; to see it:\n%s",
                 gc->repro_spec, r.p);
    tbuf_free(&r);
  }
}

static void table(const gate *g, gknown *k, size_t nk, tbuf *out, int md, int *fails) {
  tbuf det = {0};
  if (md)
    tbuf_xprintf(out, "| case | %s | %s | %s | %s |\n|---|---|---|---|---|\n",
                 gate_family_names[0], gate_family_names[1], gate_family_names[2],
                 gate_family_names[3]);
  else
    tbuf_xprintf(out, "%-48s %-10s %-10s %-10s %s\n", "case", gate_family_names[0],
                 gate_family_names[1], gate_family_names[2], gate_family_names[3]);
  for (size_t i = 0; i < g->ncases; i++) {
    const gcase *gc = &g->cases[i];
    tbuf_xprintf(out, md ? "| %s |" : "%-48s", gc->id);
    for (int f = 0; f < GF_COUNT; f++) {
      cell c = cell_of(gc, (gfamily)f, k, nk);
      char m[16];
      int len = snprintf(m, sizeof m, "%s%s", c.mark, c.known ? "k" : "");
      /* the marks are one column wide, whatever their bytes */
      int width = (int)sluice_utf8_count(m, (size_t)len);
      tbuf_xprintf(out, md ? " %s |" : " %s%*s", m, md ? 0 : 10 - width, "");
      if (c.failing && !c.known) (*fails)++;
      if (c.first) details(g, gc, (gfamily)f, &c, &det, md);
    }
    tbuf_xadds(out, "\n");
  }
  if (det.n) {
    tbuf_xadds(out, md ? "\n## Details\n\n" : "\n");
    tbuf_xadd(out, det.p, det.n);
  }
  tbuf_free(&det);
}

/* "version 2, digest 0123456789abcdef, 21 files" when --suite read suites,
 * else nothing: what the gate was checked against, in every format. */
static int suites_said(const gate *g, tbuf *out) {
  if (!g->suites.files) return 0;
  suites_describe(&g->suites, out);
  return 1;
}

/* ---------------- JSON, JUnit, HTML ---------------- */

/* The first JSON record: the run, as conform's. */
static void json_run(const gate *g, tbuf *out) {
  jsonw w;
  jw_init(&w, out);
  jw_begin_object(&w);
  jw_kstring(&w, "record", "run");
  jw_kstring(&w, "command", "gate");
  jw_kstring(&w, "url", g->o.url);
  jw_kstring(&w, "sluice", sluice_version());
  if (g->suites.files) {
    char digest[24];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)g->suites.digest);
    jw_kstring(&w, "suites_version", g->suites.version);
    jw_kstring(&w, "suites_digest", digest);
  }
  jw_key(&w, "cases");
  jw_int(&w, (int64_t)g->ncases);
  jw_end_object(&w);
  if (w.failed) die("out of memory");
  tbuf_xadds(out, "\n");
}

static const char *status_name(gstatus s) {
  static const char *const n[] = {"pending", "agrees", "differs", "broken", "unsupported",
                                  "not_run"};
  return n[s];
}

static void json_records(const gate *g, gknown *k, size_t nk, tbuf *out, int *fails) {
  json_run(g, out);
  for (size_t i = 0; i < g->ncases; i++) {
    const gcase *gc = &g->cases[i];
    for (int f = 0; f < GF_COUNT; f++) {
      cell c = cell_of(gc, (gfamily)f, k, nk);
      if (!c.total) continue;
      if (c.failing && !c.known) (*fails)++;
      for (size_t v = 0; v < gc->nv; v++) {
        const gvariant *x = &gc->v[v];
        if (x->fam != (gfamily)f) continue;
        jsonw w;
        jw_init(&w, out);
        jw_begin_object(&w);
        jw_kstring(&w, "record", "variant");
        jw_key(&w, "case");
        jw_string(&w, gc->id, strlen(gc->id));
        jw_key(&w, "family");
        jw_string(&w, gate_family_names[f], strlen(gate_family_names[f]));
        jw_key(&w, "variant");
        jw_string(&w, x->label, strlen(x->label));
        jw_key(&w, "status");
        jw_string(&w, status_name(x->st), strlen(status_name(x->st)));
        jw_key(&w, "known");
        jw_bool(&w, c.known);
        jw_key(&w, "why");
        jw_string(&w, x->why, strlen(x->why));
        jw_end_object(&w);
        if (w.failed) die("out of memory");
        tbuf_xadds(out, "\n");
      }
    }
  }
}

static void xml_text(tbuf *out, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '<': tbuf_xadds(out, "&lt;"); break;
    case '>': tbuf_xadds(out, "&gt;"); break;
    case '&': tbuf_xadds(out, "&amp;"); break;
    case '"': tbuf_xadds(out, "&quot;"); break;
    default: tbuf_xadd(out, s, 1);
    }
  }
}

/* The suites named (suites_said) as XML text between before and after. */
static void suites_xml(const gate *g, tbuf *out, const char *before, const char *after) {
  tbuf su = {0};
  if (suites_said(g, &su)) {
    tbuf_xadds(out, before);
    xml_text(out, su.p);
    tbuf_xadds(out, after);
  }
  tbuf_free(&su);
}

static void junit(const gate *g, gknown *k, size_t nk, tbuf *out, int *fails) {
  tbuf_xadds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"sluice gate\">\n");
  for (int f = 0; f < GF_COUNT; f++) {
    tbuf_xprintf(out, "<testsuite name=\"%s\">\n", gate_family_names[f]);
    suites_xml(g, out, "<properties><property name=\"suites\" value=\"", "\"/></properties>\n");
    for (size_t i = 0; i < g->ncases; i++) {
      cell c = cell_of(&g->cases[i], (gfamily)f, k, nk);
      if (!c.total) continue;
      tbuf_xadds(out, "<testcase classname=\"gate\" name=\"");
      xml_text(out, g->cases[i].id);
      tbuf_xadds(out, "\">");
      if (c.failing && !c.known) {
        (*fails)++;
        tbuf_xprintf(out, "<failure message=\"%s: ", c.first->label);
        xml_text(out, c.first->why);
        tbuf_xadds(out, "\"/>");
      } else if (c.mark[0] == '\xe2' && strcmp(c.mark, "–") == 0) {
        tbuf_xadds(out, "<skipped/>");
      }
      tbuf_xadds(out, "</testcase>\n");
    }
    tbuf_xadds(out, "</testsuite>\n");
  }
  tbuf_xadds(out, "</testsuites>\n");
}

/* The class of a cell's mark: its colour on the page. */
static const char *mark_class(const cell *c) {
  if (!c->total) return "none";
  if (c->known) return "known";
  if (!c->failing) return strcmp(c->mark, "=") == 0 ? "ok" : "na";
  return strcmp(c->mark, "±") == 0 ? "unstable" : strcmp(c->mark, "≠") == 0 ? "differs" : "broken";
}

static void html_head(const gate *g, tbuf *out) {
  size_t runs = 0;
  for (size_t i = 0; i < g->ncases; i++) runs += g->cases[i].nv;
  tbuf_xadds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<title>sluice gate</title><style>body{font-family:sans-serif;margin:2em}"
                  "table{border-collapse:collapse}td,th{border:1px solid #999;padding:.3em .6em}"
                  "td.mark{text-align:center}.ok{background:#dfd}.differs{background:#fc9}"
                  ".unstable{background:#f99}.broken{background:#c66;color:#fff}"
                  ".na{background:#eee;color:#777}.known{background:#ffe;color:#999}"
                  "p span{padding:0 .4em;margin-right:.3em}pre{white-space:pre-wrap}"
                  "</style></head><body>\n<h1>sluice gate</h1>\n<p>");
  xml_text(out, g->o.url);
  tbuf_xprintf(out, ": %zu cases, %zu variants.</p>\n<p><span class=\"ok\">= agrees</span> "
                    "<span class=\"differs\">&#8800; differs</span> <span class=\"unstable\">"
                    "&#177; differs in some variants</span> <span class=\"broken\">&#10007; no "
                    "usable answer</span> <span class=\"na\">&#8211; cannot be run</span> "
                    "<span class=\"known\">(known: listed in --known)</span></p>\n",
               g->ncases, runs);
  suites_xml(g, out, "<p>suites: ", "</p>\n");
}

static void html(const gate *g, gknown *k, size_t nk, tbuf *out, int *fails) {
  html_head(g, out);
  tbuf_xadds(out, "<table id=\"gate\"><tr><th>case</th>");
  for (int f = 0; f < GF_COUNT; f++) tbuf_xprintf(out, "<th>%s</th>", gate_family_names[f]);
  tbuf_xadds(out, "</tr>\n");
  tbuf det = {0};
  for (size_t i = 0; i < g->ncases; i++) {
    const gcase *gc = &g->cases[i];
    tbuf_xadds(out, "<tr><td>");
    xml_text(out, gc->id);
    tbuf_xadds(out, "</td>");
    for (int f = 0; f < GF_COUNT; f++) {
      cell c = cell_of(gc, (gfamily)f, k, nk);
      if (c.failing && !c.known) (*fails)++;
      tbuf_xprintf(out, "<td class=\"mark %s\" title=\"", mark_class(&c));
      if (c.first) xml_text(out, c.first->why);
      tbuf_xprintf(out, "\">%s%s</td>", c.mark, c.known ? " (known)" : "");
      if (c.first) details(g, gc, (gfamily)f, &c, &det, 0);
    }
    tbuf_xadds(out, "</tr>\n");
  }
  tbuf_xprintf(out, "</table>\n<p>%d new difference%s.</p>\n<h2>Details</h2>\n<pre>", *fails,
               *fails == 1 ? "" : "s");
  if (det.p) xml_text(out, det.p);
  tbuf_xadds(out, "</pre>\n</body></html>\n");
  tbuf_free(&det);
}

/* 1 when this run has variants of the known entry's case in its family (any
 * family for "*"): an entry of a known list shared by several runs (a
 * gateway checked in two configurations, or without some families) is
 * stale only in a run that checked what it names. */
static int in_run(const gate *g, const gknown *k) {
  int any = strcmp(k->family, "*") == 0;
  for (size_t i = 0; i < g->ncases; i++) {
    const gcase *gc = &g->cases[i];
    if (strcmp(gc->id, k->id) != 0) continue;
    for (size_t v = 0; v < gc->nv; v++)
      if (any || strcmp(gate_family_names[gc->v[v].fam], k->family) == 0) return 1;
  }
  return 0;
}

int gate_report(const gate *g, gknown *known, size_t nknown, FILE *out) {
  tbuf b = {0};
  int fails = 0;
  const char *fmt = g->o.format ? g->o.format : "text";
  if (strcmp(fmt, "json") == 0) json_records(g, known, nknown, &b, &fails);
  else if (strcmp(fmt, "junit") == 0) junit(g, known, nknown, &b, &fails);
  else if (strcmp(fmt, "html") == 0) html(g, known, nknown, &b, &fails);
  else table(g, known, nknown, &b, strcmp(fmt, "markdown") == 0, &fails);
  size_t stale = 0;
  for (size_t i = 0; i < nknown; i++) stale += !known[i].seen && in_run(g, &known[i]);
  if (strcmp(fmt, "text") == 0 || strcmp(fmt, "markdown") == 0) {
    size_t runs = 0;
    for (size_t i = 0; i < g->ncases; i++) runs += g->cases[i].nv;
    tbuf_xadds(&b, "\n");
    if (g->suites.files) {
      tbuf_xadds(&b, "suites: ");
      suites_said(g, &b);
      tbuf_xadds(&b, strcmp(fmt, "markdown") == 0 ? "\n\n" : "\n");
    }
    tbuf_xprintf(&b, "%zu cases, %zu variants; %d new difference%s", g->ncases, runs, fails,
                 fails == 1 ? "" : "s");
    if (stale) tbuf_xprintf(&b, "; %zu known difference%s no longer seen", stale,
                            stale == 1 ? " is" : "s are");
    if (g->max_stop)
      tbuf_xprintf(&b, "; stopped at --max-failures %llu: %zu case%s with a new difference, "
                       "%zu case%s not run", (unsigned long long)g->o.max_failures,
                   g->failed_cases, g->failed_cases == 1 ? "" : "s", g->cases_not_run,
                   g->cases_not_run == 1 ? "" : "s");
    tbuf_xadds(&b, "\n");
    for (size_t i = 0; i < nknown; i++)
      if (!known[i].seen && in_run(g, &known[i]))
        tbuf_xprintf(&b, "no longer seen (remove it from --known): %s %s %s\n", known[i].id,
                     known[i].family, known[i].reason);
  }
  int rc = fwrite(b.p ? b.p : "", 1, b.n, out) == b.n ? 0 : -1;
  tbuf_free(&b);
  if (rc) return 2;
  return fails ? 1 : 0;
}

/* ---------------- the known list ---------------- */

int gate_known_load(const char *path, gknown **out, size_t *n) {
  *out = NULL;
  *n = 0;
  FILE *fp = fopen(path, "r");
  if (!fp) {
    fprintf(stderr, "sluice gate: --known: %s: cannot open\n", path);
    return -1;
  }
  char line[2048];
  size_t lineno = 0;
  int rc = 0;
  while (!rc && fgets(line, sizeof line, fp)) {
    lineno++;
    char *p = line + strspn(line, " \t");
    if (*p == '#' || *p == '\n' || *p == '\0') continue;
    char id[512], fam[32];
    int used = 0;
    if (sscanf(p, "%511s %31s %n", id, fam, &used) < 2) {
      fprintf(stderr, "sluice gate: %s: line %zu: expected CASE FAMILY REASON\n", path, lineno);
      rc = -1;
      break;
    }
    int ok = strcmp(fam, "*") == 0;
    for (int f = 0; f < GF_COUNT; f++) ok |= strcmp(fam, gate_family_names[f]) == 0;
    if (!ok) {
      fprintf(stderr, "sluice gate: %s: line %zu: the family is recorded, deltas, network, "
                      "faults or *, not \"%s\"\n", path, lineno, fam);
      rc = -1;
      break;
    }
    *out = xrealloc(*out, xmul(*n + 1, sizeof **out));
    gknown *k = &(*out)[(*n)++];
    k->id = xstrdup(id);
    k->family = xstrdup(fam);
    char *reason = p + used;
    reason[strcspn(reason, "\n")] = '\0';
    k->reason = xstrdup(reason);
    k->seen = 0;
  }
  if (!rc && ferror(fp)) {
    fprintf(stderr, "sluice gate: --known: %s: cannot read\n", path);
    rc = -1;
  }
  fclose(fp);
  if (rc) {
    gate_known_free(*out, *n);
    *out = NULL;
    *n = 0;
  }
  return rc;
}

void gate_known_free(gknown *k, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(k[i].id);
    free(k[i].family);
    free(k[i].reason);
  }
  free(k);
}
