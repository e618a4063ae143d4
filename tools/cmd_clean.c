/*
 * cmd_clean.c: `sluice clean --config FILE [--stream]`: the response cleaner
 * on standard input. The config file is the filter's protocol options,
 * {"endpoint": {...}, "node": {...}, "globals": {...}}, with the proxy's own
 * keys. Only the cleaned text (the TEXT channel) is written.
 */
#include "tools.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct clean_args {
  const char *config;
  int stream, strict;
} clean_args;

static const opt clean_options[] = {
    {"config", 0, "FILE", OPT_STRING, OPT_AT(clean_args, config, const char *),
     .help = "JSON options: {\"endpoint\": {...}, \"node\": {...}, \"globals\": {...}} (see "
             "conformance/suites/clean/README.md); required"},
    {"stream", 0, NULL, OPT_FLAG, OPT_AT(clean_args, stream, int),
     .help = "feed standard input as it arrives, writing text as soon as the filter releases "
             "it (default: read it whole first)"},
    {"strict", 0, NULL, OPT_FLAG, OPT_AT(clean_args, strict, int),
     .help = "refuse settings the cleaner does not use (by default they are reported on "
             "stderr and ignored, so a proxy's endpoint or node file can be pasted in whole)"},
    {0}};

static const opt_cmd clean_cmd = {
    .name = "clean",
    .synopsis = "--config FILE [--stream] [--strict]",
    .intro = "Reads an LLM response on standard input and writes it cleaned by the\n"
             "response cleaner pipeline (think removal, prefixes, trim) to standard output.\n",
    .tables = {clean_options},
};

/* The section and the key an "unknown option" error of the clean filter
 * names, when it is one of a proxy's sections (endpoint, node, globals):
 * the kit says `unknown option "KEY" for filter clean (in "SECTION")`.
 * 1 when found, with both copied out. */
static int foreign_key(const char *msg, char *section, size_t sl, char *key, size_t kl) {
  static const char head[] = "unknown option \"", mid[] = "\" for filter clean (in \"";
  static const char *const sections[] = {"endpoint", "node", "globals"};
  const char *k = msg, *m = strstr(msg, mid);
  if (strncmp(msg, head, sizeof head - 1) != 0 || !m) return 0;
  k += sizeof head - 1;
  const char *sec = m + sizeof mid - 1, *end = strchr(sec, '"');
  if (!end || strcmp(end, "\")") != 0 || (size_t)(m - k) >= kl) return 0;
  for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
    if (strlen(sections[i]) == (size_t)(end - sec) && strncmp(sec, sections[i], (size_t)(end - sec)) == 0) {
      snprintf(section, sl, "%s", sections[i]);
      snprintf(key, kl, "%.*s", (int)(m - k), k);
      return 1;
    }
  return 0;
}

/* The filter, made from the config with the keys of the proxy's sections
 * that are not cleaning settings dropped (a proxy's endpoint file also
 * holds its URL, context size and so on), each one reported. The filter
 * itself judges what a cleaning setting is: each unknown key it names is
 * dropped and the filter made again, so the command keeps no second list
 * of the settings to drift from the library's. A config that is not a
 * JSON object goes to the filter as it is, to be reported. */
static sluice_status clean_new_lenient(sluice_filter **f, const tbytes *cfg, const char *path,
                                       const sluice_sink *sink, sluice_error *err) {
  json_t *o = json_loadb(cfg->p, cfg->n, JSON_ALLOW_NUL, NULL);
  if (!json_is_object(o)) {
    json_decref(o);
    return sluice_filter_new_json(f, "clean", cfg->p, cfg->n, sink, NULL, err);
  }
  for (;;) {
    char *text = json_dumps(o, JSON_COMPACT);
    if (!text) die("out of memory");
    sluice_status st = sluice_filter_new_json(f, "clean", text, strlen(text), sink, NULL, err);
    free(text);
    char section[16], key[160];
    json_t *sec = NULL;
    if (st == SLUICE_BAD_OPTION && foreign_key(err->message, section, sizeof section, key, sizeof key))
      sec = json_object_get(o, section);
    if (!sec || !json_object_get(sec, key)) {
      json_decref(o);
      return st;
    }
    fprintf(stderr, "sluice clean: %s: ignoring %s.%s (not a cleaning setting)\n", path, section,
            key);
    json_object_del(sec, key);
  }
}

static int write_text(void *user, sluice_channel ch, const char *p, size_t n) {
  FILE *out = user;
  if (ch != SLUICE_TEXT) return 0;
  if (fwrite(p, 1, n, out) != n) return 1;
  return 0;
}

/* The config file's text. 0, or 2 after a message. */
static int read_config(const char *config, tbytes *opts) {
  FILE *cf = fopen(config, "rb");
  if (!cf) {
    fprintf(stderr, "sluice clean: cannot open %s: %s\n", config, strerror(errno));
    return 2;
  }
  int read_rc = read_all(cf, opts, 16 << 20);
  int read_errno = errno;
  fclose(cf);
  if (read_rc) {
    fprintf(stderr, "sluice clean: cannot read %s: %s\n", config,
            read_errno == EFBIG ? "larger than 16 MiB" : strerror(read_errno));
    return 2;
  }
  return 0;
}

int cmd_clean(int argc, char **argv) {
  clean_args a = {NULL, 0, 0};
  void *bases[] = {&a};
  int rc = opt_parse(&clean_cmd, bases, argc, argv, NULL);
  if (rc >= 0) return rc;
  if (!a.config) return opt_error(&clean_cmd, NULL, "needs --config FILE (see --help)");
  tbytes opts;
  if (read_config(a.config, &opts)) return 2;
  sluice_sink sink = {write_text, NULL, stdout};
  sluice_filter *f = NULL;
  sluice_error err;
  sluice_status st = a.strict ? sluice_filter_new_json(&f, "clean", opts.p, opts.n, &sink, NULL, &err)
                              : clean_new_lenient(&f, &opts, a.config, &sink, &err);
  free(opts.p);
  if (st != SLUICE_OK) {
    fprintf(stderr, "sluice clean: %s: %s\n", a.config, err.message);
    return 2;
  }
  /* The output is the same either way (split invariance); --stream only
   * shows each block's text as soon as it is released. */
  rc = feed_fd(f, STDIN_FILENO, a.stream, "clean", &st);
  if (rc == 0) rc = filter_exit_status(f, st, "clean");
  else rc = 1;
  sluice_free(f);
  return rc;
}
