/*
 * opt.c: the option parser and the --help writer (opt.h).
 */
#include "opt.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void strlist_add(strlist *l, const char *s) {
  l->v = xrealloc((void *)l->v, xmul(l->n + 1, sizeof *l->v));
  l->v[l->n++] = s;
}

void strlist_free(strlist *l) {
  free((void *)l->v);
  l->v = NULL;
  l->n = 0;
}

int opt_error(const opt_cmd *c, const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "sluice %s: ", c->name);
  if (what) fprintf(stderr, "%s: ", what);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 2;
}

/* ---------------- finding an option ---------------- */

/* The option of long name name[0..n) or letter (n == 0), with its table's
 * index in *ti; NULL if none. */
static const opt *find(const opt_cmd *c, const char *name, size_t n, char letter, size_t *ti) {
  for (size_t t = 0; t < OPT_MAX_TABLES && c->tables[t]; t++)
    for (const opt *o = c->tables[t]; o->kind != OPT_END; o++) {
      if (o->kind == OPT_SECTION) continue;
      int hit = n ? strlen(o->name) == n && memcmp(o->name, name, n) == 0
                  : letter && o->letter == letter;
      if (hit) {
        *ti = t;
        return o;
      }
    }
  return NULL;
}

/* Edits (insert, delete, replace) between a[0..an) and b, capped at 9. */
static size_t distance(const char *a, size_t an, const char *b) {
  size_t bn = strlen(b), row[64];
  if (an >= 63 || bn >= 63) return 9;
  for (size_t j = 0; j <= bn; j++) row[j] = j;
  for (size_t i = 1; i <= an; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= bn; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[bn] < 9 ? row[bn] : 9;
}

/* The option a mistyped name most likely meant: the one it begins, or the
 * nearest within two edits; NULL when none stands out. */
static const char *nearest(const opt_cmd *c, const char *name, size_t n) {
  const char *best = NULL;
  size_t best_d = 3, prefixed = 0;
  const char *prefix_of = NULL;
  for (size_t t = 0; t < OPT_MAX_TABLES && c->tables[t]; t++)
    for (const opt *o = c->tables[t]; o->kind != OPT_END; o++) {
      if (o->kind == OPT_SECTION) continue;
      if (n && strncmp(o->name, name, n) == 0) {
        prefixed++;
        prefix_of = o->name;
      }
      size_t d = distance(name, n, o->name);
      if (d < best_d) {
        best_d = d;
        best = o->name;
      }
    }
  if (prefixed == 1) return prefix_of;
  return best_d <= (n > 4 ? 2u : 1u) ? best : NULL;
}

/* ---------------- storing a value ---------------- */

static int bad_value(char *why, size_t wl, const char *what, const char *v) {
  snprintf(why, wl, "must be %s, not \"%.60s\"", what, v);
  return -1;
}

/* The largest value an integer kind's type holds. */
static uint64_t kind_max(opt_kind k) {
  switch (k) {
  case OPT_INT: return INT_MAX;
  case OPT_SIZE: return SIZE_MAX;
  case OPT_I64: return INT64_MAX;
  default: return UINT64_MAX;
  }
}

static int store_integer(const opt *o, char *p, const char *v, char *why, size_t wl) {
  uint64_t max = o->max && o->max < kind_max(o->kind) ? o->max : kind_max(o->kind), u;
  if (parse_u64(v, &u) || u < o->min || u > max) {
    char range[96];
    if (max != kind_max(o->kind))
      snprintf(range, sizeof range, "a whole number from %llu to %llu",
               (unsigned long long)o->min, (unsigned long long)max);
    else if (o->min)
      snprintf(range, sizeof range, "a whole number of at least %llu",
               (unsigned long long)o->min);
    else
      snprintf(range, sizeof range, "a whole number");
    return bad_value(why, wl, range, v);
  }
  switch (o->kind) {
  case OPT_INT: *(int *)(void *)p = (int)u; break;
  case OPT_SIZE: *(size_t *)(void *)p = (size_t)u; break;
  case OPT_I64: *(int64_t *)(void *)p = (int64_t)u; break;
  default: *(uint64_t *)(void *)p = u; break;
  }
  return 0;
}

static int store_real(const opt *o, char *p, const char *v, char *why, size_t wl) {
  char *end;
  double d = *v ? strtod(v, &end) : NAN;
  int ok = *v && !*end && isfinite(d) && (o->kind == OPT_POSITIVE ? d > 0 : d >= 0);
  if (!ok)
    return bad_value(why, wl, o->kind == OPT_POSITIVE ? "a positive number" : "a number, 0 or more",
                     v);
  *(double *)(void *)p = d;
  return 0;
}

static int store_choice(const opt *o, char *p, const char *v, char *why, size_t wl) {
  size_t n = 0;
  for (; o->choices[n]; n++)
    if (strcmp(o->choices[n], v) == 0) {
      *(int *)(void *)p = (int)n;
      return 0;
    }
  /* "must be a, b or c" */
  char list[200] = "";
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(list);
    snprintf(list + l, sizeof list - l, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
             o->choices[i]);
  }
  return bad_value(why, wl, list, v);
}

/* Checks and stores value (NULL for an option that takes none). 0, or -1
 * with the reason in why. */
static int store(const opt *o, void *base, const char *v, char *why, size_t wl) {
  char *p = (char *)base + o->at;
  uint64_t u;
  switch (o->kind) {
  case OPT_FLAG: *(int *)(void *)p = 1; return 0;
  case OPT_STRING: *(const char **)(void *)p = v; return 0;
  case OPT_LIST: strlist_add((strlist *)(void *)p, v); return 0;
  case OPT_INT:
  case OPT_SIZE:
  case OPT_U64:
  case OPT_I64: return store_integer(o, p, v, why, wl);
  case OPT_NUMBER:
  case OPT_POSITIVE: return store_real(o, p, v, why, wl);
  case OPT_MILLIS:
    if (parse_u64(v, &u)) return bad_value(why, wl, "a whole number of milliseconds", v);
    *(double *)(void *)p = (double)u / 1000;
    return 0;
  case OPT_CHOICE: return store_choice(o, p, v, why, wl);
  case OPT_CALL: return o->fn(base, v, why, wl);
  default: snprintf(why, wl, "not an option (a table's mistake)"); return -1;
  }
}

/* ---------------- parsing ---------------- */

static int help_asked(const char *a) { return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0; }

static int print_help(const opt_cmd *c) {
  tbuf b = {0};
  opt_help(c, &b);
  int rc = fwrite_checked(c->name, b.p, b.n, stdout) || fflush_checked(c->name, stdout) ? 2 : 0;
  tbuf_free(&b);
  return rc;
}

/* Reads the option at argv[*i] (and its value, moving *i past it). -1 to
 * go on, else an exit status. */
static int one_option(const opt_cmd *c, void *const *bases, int argc, char **argv, int *i) {
  const char *a = argv[*i], *value = NULL;
  char shown[80];
  const opt *o;
  size_t ti = 0;
  if (a[1] == '-') { /* --name, --name=value */
    const char *eq = strchr(a + 2, '=');
    size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    snprintf(shown, sizeof shown, "--%.*s", (int)(n < 60 ? n : 60), a + 2);
    o = find(c, a + 2, n, 0, &ti);
    if (!o) {
      const char *near = nearest(c, a + 2, n);
      if (near)
        return opt_error(c, shown, "unknown option; did you mean --%s? (see sluice %s --help)",
                         near, c->name);
      return opt_error(c, shown, "unknown option (see sluice %s --help)", c->name);
    }
    if (eq && !o->arg) return opt_error(c, shown, "takes no value");
    if (eq) value = eq + 1;
  } else { /* -x, -xVALUE */
    snprintf(shown, sizeof shown, "-%c", a[1]);
    o = find(c, NULL, 0, a[1], &ti);
    if (!o || (a[2] && !o->arg))
      return opt_error(c, a[2] ? a : shown, "unknown option (see sluice %s --help)", c->name);
    if (a[2]) value = a + 2;
  }
  if (o->arg && !value) {
    if (*i + 1 >= argc) return opt_error(c, shown, "needs a value: %s %s", shown, o->arg);
    value = argv[++*i];
  }
  char why[300] = "";
  if (store(o, bases[ti], value, why, sizeof why) == 0) return -1;
  return *why ? opt_error(c, shown, "%s", why) : 2;
}

int opt_parse(const opt_cmd *c, void *const *bases, int argc, char **argv, strlist *operands) {
  int options_done = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int is_option = !options_done && a[0] == '-' && a[1] != '\0';
    if (is_option && strcmp(a, "--") == 0) {
      options_done = 1;
      continue;
    }
    if (is_option && help_asked(a)) return print_help(c);
    if (is_option) {
      int rc = one_option(c, bases, argc, argv, &i);
      if (rc >= 0) return rc;
      continue;
    }
    if (!c->operands || !operands || (c->max_operands && operands->n == c->max_operands))
      return opt_error(c, NULL, "unexpected argument \"%.60s\" (see sluice %s --help)", a,
                       c->name);
    strlist_add(operands, a);
  }
  if (c->operands && operands && operands->n < c->min_operands)
    return opt_error(c, NULL, "needs %s (see sluice %s --help)", c->operands, c->name);
  return -1;
}

/* ---------------- --help ---------------- */

#define HELP_WIDTH 79 /* the longest line */
#define HELP_COLUMN 22 /* where an option's text starts */

/* Appends text, word-wrapped: the first line goes on from column `col`
 * (already written), the next ones are indented to `indent`. "\n" breaks
 * a line. */
static void wrap(tbuf *out, const char *text, size_t col, size_t indent) {
  int fresh = 1; /* nothing written on this line yet */
  for (const char *s = text; *s;) {
    size_t word = strcspn(s, " \n");
    if (!fresh && col + 1 + word > HELP_WIDTH) {
      tbuf_xprintf(out, "\n%*s", (int)indent, "");
      col = indent;
    } else if (!fresh) {
      tbuf_xadds(out, " ");
      col++;
    }
    tbuf_xadd(out, s, word);
    col += word;
    fresh = 0;
    s += word;
    if (*s == '\n' && s[1]) {
      tbuf_xprintf(out, "\n%*s", (int)indent, "");
      col = indent;
      fresh = 1;
    }
    while (*s == ' ' || *s == '\n') s++;
  }
  tbuf_xadds(out, "\n");
}

static void help_line(tbuf *out, char letter, const char *name, const char *arg,
                      const char *help) {
  size_t start = out->n;
  tbuf_xadds(out, "  ");
  if (letter) tbuf_xprintf(out, "-%c, ", letter);
  tbuf_xprintf(out, "--%s%s%s", name, arg ? " " : "", arg ? arg : "");
  size_t col = out->n - start;
  size_t pad = col + 2 <= HELP_COLUMN ? HELP_COLUMN - col : 2;
  tbuf_xprintf(out, "%*s", (int)pad, "");
  wrap(out, help ? help : "", col + pad, HELP_COLUMN);
}

/* A table's own mistake (a value kind without the value's name, a flag
 * with one, a choice without its words, a call without its function) ends
 * the command when its --help is written: tests/cli_help.sh writes every
 * command's, so no such table ships. */
static void check_entry(const opt_cmd *c, const opt *o) {
  int takes = o->kind != OPT_FLAG && o->kind != OPT_CALL;
  if ((takes && !o->arg) || (o->kind == OPT_FLAG && o->arg) ||
      (o->kind == OPT_CHOICE && !o->choices) || (o->kind == OPT_CALL && !o->fn))
    die("%s: --%s: the option table is wrong: its kind and its fields disagree", c->name,
        o->name);
}

static void add_block(tbuf *out, const char *text) {
  tbuf_xadds(out, text);
  if (out->n && out->p[out->n - 1] != '\n') tbuf_xadds(out, "\n");
}

void opt_help(const opt_cmd *c, tbuf *out) {
  tbuf_xprintf(out, "usage: sluice %s%s%s\n", c->name, c->synopsis ? " " : "",
               c->synopsis ? c->synopsis : "");
  if (c->intro) {
    tbuf_xadds(out, "\n");
    add_block(out, c->intro);
  }
  tbuf_xadds(out, "\n");
  for (size_t t = 0; t < OPT_MAX_TABLES && c->tables[t]; t++)
    for (const opt *o = c->tables[t]; o->kind != OPT_END; o++) {
      if (o->kind == OPT_SECTION) {
        tbuf_xprintf(out, "%s:\n", o->help);
        continue;
      }
      check_entry(c, o);
      help_line(out, o->letter, o->name, o->arg, o->help);
    }
  help_line(out, 'h', "help", NULL, "this text");
  if (c->outro) {
    tbuf_xadds(out, "\n");
    add_block(out, c->outro);
  }
}
