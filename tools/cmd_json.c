/*
 * jsoncmd.c: `sluice json`, the JSON sanitizer on standard input.
 */
#include "tools.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct jctx {
  int incremental, log;
  tbytes text, tail; /* --incremental: TEXT so far, the last snapshot's tail */
} jctx;

static const opt jctx_options[] = {
    {"incremental", 0, NULL, OPT_FLAG, OPT_AT(jctx, incremental, int),
     .help = "print a valid JSON snapshot of the prefix after each block read (the last line "
             "is the final value)"},
    {"log", 0, NULL, OPT_FLAG, OPT_AT(jctx, log, int),
     .help = "print each repair (kind and input offset), whether the input was truncated "
             "and, when the text is valid JSON that jansson cannot load, why (reason and "
             "input offset) on standard error"},
    {0}};

static const opt json_options[] = {
    {"max-depth", 0, "N", OPT_SIZE, OPT_AT(sluice_json_opts, max_depth, size_t),
     .help = "nesting limit (default 2048, as jansson; 0 = none)"},
    {0}};

static const opt_cmd json_cmd = {
    .name = "json",
    .synopsis = "[--incremental] [--log] [--max-depth N]",
    .intro = "Reads standard input, repairs the JSON value in it (prose and fences\n"
             "around it, comments, quotes, commas, truncation, ...) and prints the\n"
             "repaired JSON text on one line. Exits 1 with the error code and byte\n"
             "offset on standard error when there is no value (\"empty\", \"no_json\",\n"
             "\"depth\").\n",
    .tables = {jctx_options, json_options},
};

static int grow(tbytes *b, size_t n) {
  char *p = realloc(b->p, n ? n : 1);
  if (!p) return -1;
  b->p = p;
  return 0;
}

/* A write error stops the filter (SLUICE_CALLBACK), reported as such. */
static int on_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  jctx *c = user;
  if (ch != SLUICE_TEXT) return 0;
  if (!c->incremental) return fwrite(p, 1, n, stdout) != n;
  if (grow(&c->text, c->text.n + n)) return 1;
  memcpy(c->text.p + c->text.n, p, n);
  c->text.n += n;
  return 0;
}

/* A snapshot: TEXT[0..offset) and the tail, edited (drop `length` bytes from
 * its front, prepend `data`; sluice.h, json). */
static int print_snapshot(jctx *c, const sluice_event *ev) {
  size_t keep = c->tail.n - (size_t)ev->length;
  if (grow(&c->tail, ev->data_len + keep)) return 1;
  memmove(c->tail.p + ev->data_len, c->tail.p + ev->length, keep);
  if (ev->data_len) memcpy(c->tail.p, ev->data, ev->data_len);
  c->tail.n = ev->data_len + keep;
  return fwrite(c->text.p, 1, (size_t)ev->offset, stdout) != (size_t)ev->offset ||
         fwrite(c->tail.p, 1, c->tail.n, stdout) != c->tail.n || fputc('\n', stdout) == EOF ||
         fflush(stdout) != 0;
}

static int on_event(void *user, const sluice_event *ev) {
  jctx *c = user;
  if (ev->type == SLUICE_EV_REPAIR && c->log)
    fprintf(stderr, "repair %.*s at %llu\n", (int)ev->name_len, ev->name,
            (unsigned long long)ev->offset);
  if (ev->type == SLUICE_EV_SNAPSHOT && c->incremental && print_snapshot(c, ev)) return 1;
  if (ev->type == SLUICE_EV_VALUE && c->log) {
    fprintf(stderr, "truncated %s\n", ev->complete ? "false" : "true");
    /* the text is still the answer; a caller loading it with jansson
     * needs to know it will be refused, and for what */
    if (ev->name)
      fprintf(stderr, "unloadable %.*s at %llu\n", (int)ev->name_len, ev->name,
              (unsigned long long)ev->offset);
  }
  return 0;
}

int cmd_json(int argc, char **argv) {
  jctx c = {0, 0, {NULL, 0}, {NULL, 0}};
  sluice_json_opts o;
  sluice_json_opts_init(&o);
  void *bases[] = {&c, &o};
  int usage = opt_parse(&json_cmd, bases, argc, argv, NULL);
  if (usage >= 0) return usage;
  o.incremental = c.incremental;
  sluice_sink sink = {on_emit, on_event, &c};
  sluice_filter *f;
  sluice_error err;
  if (sluice_json_new(&f, &o, &sink, NULL, &err) != SLUICE_OK) {
    fprintf(stderr, "sluice json: %s\n", err.message);
    return 2;
  }
  /* Each block is fed as soon as it arrives, so --incremental follows a
   * pipe as it streams. */
  sluice_status st;
  int rc = feed_fd(f, STDIN_FILENO, 0, "json", &st);
  if (rc == 0 && st == SLUICE_OK && !c.incremental) fputc('\n', stdout);
  rc = rc ? 1 : filter_exit_status(f, st, "json");
  sluice_free(f);
  free(c.text.p);
  free(c.tail.p);
  return rc;
}
