/*
 * cmd_think.c: `sluice think`: the think filter on standard input, in a
 * model family's reasoning format (--format, or the one --model selects)
 * or with the protocol's options (--options JSON). One channel is written:
 * the answer by default, or the reasoning, the markup, ...
 */
#include "tools.h"

#include "common/reference.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct think_args {
  const char *format, *model, *options;
  int thinking; /* -1 unset, 0 off, 1 on */
  int stream, explain;
  int channel; /* a sluice_channel */
} think_args;

/* In sluice_channel's order: the index is the channel. */
static const char *const channels[] = {"text", "thought", "other", "markup", "dropped", NULL};
static const char *const on_off[] = {"off", "on", NULL};

static const opt think_options[] = {
    {"format", 0, "NAME", OPT_STRING, OPT_AT(think_args, format, const char *),
     .help = "the reasoning format: deepseek-r1, qwen3, deepseek-v3.1, glm-4.5, kimi-k2, "
             "minimax-m2, mistral, granite, hunyuan, ernie-4.5, olmo3, seed-oss, step3, "
             "cohere-command, generic, or auto (the one --model selects; the default with "
             "--model)"},
    {"model", 0, "NAME", OPT_STRING, OPT_AT(think_args, model, const char *),
     .help = "the model that wrote the text: it selects the format (deepseek-reasoner, "
             "qwen3-8b, ...)"},
    {"thinking", 0, "on|off", OPT_CHOICE, OPT_AT(think_args, thinking, int), .choices = on_off,
     .help = "whether the chat template left reasoning on (default: the family's, or the "
             "model rule's)"},
    {"options", 0, "JSON", OPT_STRING, OPT_AT(think_args, options, const char *),
     .help = "the filter's protocol options instead (tags, start_in, mode anchored, ...)"},
    {"channel", 0, "NAME", OPT_CHOICE, OPT_AT(think_args, channel, int), .choices = channels,
     .help = "the channel written: text (default), thought, other, markup or dropped"},
    {"explain", 0, NULL, OPT_FLAG, OPT_AT(think_args, explain, int),
     .help = "say on standard error which format the model selected, by which rule"},
    {"stream", 0, NULL, OPT_FLAG, OPT_AT(think_args, stream, int),
     .help = "feed standard input as it arrives, writing as soon as the filter releases"},
    {0}};

static const opt_cmd think_cmd = {
    .name = "think",
    .synopsis = "[--format NAME | --model NAME | --options JSON] [options]",
    .intro = "Reads model output on standard input and writes it with the reasoning\n"
             "removed (or only the reasoning, --channel thought): the think filter in a\n"
             "model family's reasoning format (DESIGN.md \"think formats\"). With no\n"
             "format, model or options: channel mode, the default tags.\n",
    .tables = {think_options},
};

typedef struct writer {
  sluice_channel ch;
} writer;

static int write_channel(void *user, sluice_channel ch, const char *p, size_t n) {
  const writer *w = user;
  return ch == w->ch && fwrite(p, 1, n, stdout) != n;
}

/* The typed options: --options through the kit, then --format, --thinking
 * and the model's choice. 0, or 2 after a message. */
static int make_opts(const think_args *a, sluice_options **handle, sluice_think_opts *o) {
  const char *json = a->options ? a->options : "{}";
  sluice_error err;
  if (sluice_options_from_json(handle, "think", json, strlen(json), &err) != SLUICE_OK)
    return opt_error(&think_cmd, "--options", "%s", err.message);
  *o = *(const sluice_think_opts *)sluice_options_get(*handle);
  if (a->format && sluice_think_format_from_name(a->format, &o->format))
    return opt_error(&think_cmd, "--format", "no reasoning format \"%s\"", a->format);
  if (!a->format && a->model && o->format == SLUICE_THINK_FORMAT_NONE)
    o->format = SLUICE_THINK_FORMAT_AUTO;
  if (a->thinking >= 0) o->thinking = a->thinking;
  sluice_model_match m;
  sluice_think_opts_for_model(o, a->model, NULL, 0, &m);
  if (a->explain) {
    char why[512];
    sluice_model_match_describe(&m, why, sizeof why);
    fprintf(stderr, "sluice think: model \"%s\": %s; the filter: format %s\n",
            a->model ? a->model : "", why, sluice_think_format_name(o->format));
  }
  return 0;
}

int cmd_think(int argc, char **argv) {
  think_args a = {NULL, NULL, NULL, -1, 0, 0, SLUICE_TEXT};
  void *bases[] = {&a};
  int rc = opt_parse(&think_cmd, bases, argc, argv, NULL);
  if (rc >= 0) return rc;
  sluice_options *handle = NULL;
  sluice_think_opts o;
  rc = make_opts(&a, &handle, &o);
  writer w = {(sluice_channel)a.channel};
  sluice_sink sink = {write_channel, NULL, &w};
  sluice_filter *f = NULL;
  sluice_error err;
  if (rc == 0 && sluice_think_new(&f, &o, &sink, NULL, &err) != SLUICE_OK) {
    fprintf(stderr, "sluice think: %s\n", err.message);
    rc = 2;
  }
  sluice_options_free(handle);
  if (rc) return rc;
  sluice_status st;
  rc = feed_fd(f, STDIN_FILENO, a.stream, "think", &st);
  rc = rc == 0 ? filter_exit_status(f, st, "think") : 1;
  sluice_free(f);
  return rc;
}
