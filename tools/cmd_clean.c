/*
 * cleancmd.c: `sluice clean --config FILE [--stream]`: the response cleaner
 * on standard input. The config file is the filter's protocol options,
 * {"endpoint": {...}, "node": {...}, "globals": {...}}, with the proxy's own
 * keys. Only the cleaned text (the TEXT channel) is written.
 */
#include "tools.h"

#include "../lib/src/kit/kit_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char clean_usage[] =
    "usage: sluice clean --config FILE [--stream]\n"
    "\n"
    "Reads an LLM response on standard input and writes it cleaned by the\n"
    "response cleaner pipeline (think removal, prefixes, trim) to standard output.\n"
    "\n"
    "  --config FILE   JSON options: {\"endpoint\": {...}, \"node\": {...},\n"
    "                  \"globals\": {...}} (see conformance/suites/clean/README.md)\n"
    "  --stream        feed standard input as it arrives, writing text as soon as\n"
    "                  the filter releases it (default: read it whole first)\n"
    "  --strict        refuse settings the cleaner does not use (by default they\n"
    "                  are reported on stderr and ignored, so a proxy's endpoint\n"
    "                  or node file can be pasted in whole)\n";

/* Drops the keys of the proxy's sections that are not cleaning settings
 * (a proxy's endpoint file also holds its URL, context size and so on),
 * reporting each one. Returns the options text to use (malloc'd), or NULL
 * when the config is not a JSON object (the filter then reports it). */
static char *drop_foreign_keys(const tbytes *cfg, const char *path) {
  json_t *o = json_loadb(cfg->p, cfg->n, JSON_ALLOW_NUL, NULL);
  if (!json_is_object(o)) {
    json_decref(o);
    return NULL;
  }
  static const char *const sections[] = {"endpoint", "node", "globals"};
  for (int i = 0; i < 3; i++) {
    json_t *sec = json_object_get(o, sections[i]);
    if (!json_is_object(sec)) continue;
    const char *key;
    json_t *v, *tmp;
    json_object_foreach_safe(sec, tmp, key, v) {
      if (sluicep_clean_known_key(sections[i], key) == 0) {
        fprintf(stderr, "sluice clean: %s: ignoring %s.%s (not a cleaning setting)\n", path,
                sections[i], key);
        json_object_del(sec, key);
      }
    }
  }
  char *s = json_dumps(o, JSON_COMPACT);
  json_decref(o);
  return s;
}

static int write_text(void *user, sluice_channel ch, const char *p, size_t n) {
  FILE *out = user;
  if (ch != SLUICE_TEXT) return 0;
  if (fwrite(p, 1, n, out) != n) return 1;
  return 0;
}

int cmd_clean(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    fputs(clean_usage, stdout);
    return 0;
  }
  const char *config = NULL;
  int stream = 0, strict = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
      config = argv[++i];
    } else if (strcmp(argv[i], "--stream") == 0) {
      stream = 1;
    } else if (strcmp(argv[i], "--strict") == 0) {
      strict = 1;
    } else {
      fprintf(stderr, "sluice clean: unknown argument \"%s\"\n\n%s", argv[i], clean_usage);
      return 2;
    }
  }
  if (!config) {
    fprintf(stderr, "sluice clean: --config FILE is required\n\n%s", clean_usage);
    return 2;
  }
  FILE *cf = fopen(config, "rb");
  if (!cf) {
    fprintf(stderr, "sluice clean: cannot open %s: %s\n", config, strerror(errno));
    return 2;
  }
  tbytes opts;
  int read_rc = read_all(cf, &opts, 16 << 20);
  int read_errno = errno;
  fclose(cf);
  if (read_rc) {
    fprintf(stderr, "sluice clean: cannot read %s: %s\n", config,
            read_errno == EFBIG ? "larger than 16 MiB" : strerror(read_errno));
    return 2;
  }
  sluice_sink sink = {write_text, NULL, stdout};
  sluice_filter *f = NULL;
  sluice_error err;
  char *lenient = strict ? NULL : drop_foreign_keys(&opts, config);
  sluice_status st = lenient ? sluice_filter_new_json(&f, "clean", lenient, strlen(lenient), &sink,
                                                      NULL, &err)
                             : sluice_filter_new_json(&f, "clean", opts.p, opts.n, &sink, NULL,
                                                      &err);
  free(lenient);
  free(opts.p);
  if (st != SLUICE_OK) {
    fprintf(stderr, "sluice clean: %s: %s\n", config, err.message);
    return 2;
  }
  /* The output is the same either way (split invariance); --stream only
   * shows each block's text as soon as it is released. */
  int rc = feed_fd(f, STDIN_FILENO, stream, "clean", &st);
  if (rc == 0) rc = filter_exit_status(f, st, "clean");
  else rc = 1;
  sluice_free(f);
  return rc;
}
