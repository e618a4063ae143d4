/*
 * test_opt.c: the option parser every command uses (tools/common/opt.c):
 * each kind stores what it should, ranges and bad values are refused with
 * "sluice CMD: --opt: reason" and exit status 2, both value forms, "--",
 * unknown options (with a hint), operands, and the generated --help.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opt.h"
#include "testutil.h"

typedef struct targs {
  int flag, jobs, fmt;
  size_t size;
  uint64_t seed;
  int64_t after;
  double timeout, speed, gap;
  const char *name;
  strlist tags;
  int calls;
  const char *called_with;
} targs;

static int on_filter(void *base, const char *value, char *why, size_t wl) {
  targs *t = base;
  t->calls++;
  t->called_with = value;
  if (value && strcmp(value, "bad") == 0) {
    snprintf(why, wl, "no filter \"%s\"", value);
    return -1;
  }
  if (value && strcmp(value, "told") == 0) {
    fprintf(stderr, "(reported by the handler)\n");
    return -1; /* reported already: no second message */
  }
  return 0;
}

static const char *const formats[] = {"text", "json", NULL};

static const opt test_opts[] = {
    {.kind = OPT_SECTION, .help = "Basics"},
    {"flag", 'f', NULL, OPT_FLAG, OPT_AT(targs, flag, int), .help = "a flag"},
    {"jobs", 'j', "N", OPT_INT, OPT_AT(targs, jobs, int), .help = "workers", .min = 1, .max = 256},
    {"size", 0, "BYTES", OPT_SIZE, OPT_AT(targs, size, size_t), .help = "a size"},
    {"seed", 0, "N", OPT_U64, OPT_AT(targs, seed, uint64_t), .help = "a seed"},
    {"after", 0, "N", OPT_I64, OPT_AT(targs, after, int64_t), .help = "a count"},
    {.kind = OPT_SECTION, .help = "Values"},
    {"timeout", 0, "SECONDS", OPT_POSITIVE, OPT_AT(targs, timeout, double),
     .help = "a long help text that has to be wrapped over more than one line, because it goes on "
     "and on past the seventy-ninth column"},
    {"speed", 0, "X", OPT_NUMBER, OPT_AT(targs, speed, double), .help = "a factor"},
    {"gap", 0, "MS", OPT_MILLIS, OPT_AT(targs, gap, double), .help = "milliseconds"},
    {"name", 0, "NAME", OPT_STRING, OPT_AT(targs, name, const char *), .help = "a name"},
    {"tag", 't', "TAG", OPT_LIST, OPT_AT(targs, tags, strlist), .help = "repeatable"},
    {"format", 0, "FMT", OPT_CHOICE, OPT_AT(targs, fmt, int), .help = "text or json",
     .choices = formats},
    {"filter", 0, "NAME[=JSON]", OPT_CALL, 0, .help = "first line\nsecond line", .fn = on_filter},
    {"think", 0, NULL, OPT_CALL, 0, .help = "a flag with a handler", .fn = on_filter},
    {0}};

static const opt_cmd test_cmd = {
    .name = "test",
    .synopsis = "FILE... [options]",
    .intro = "Tests the parser.",
    .outro = "The end.",
    .tables = {test_opts},
    .operands = "FILE",
    .min_operands = 1,
    .max_operands = 2,
};

/* Runs the parser on words (NULL-terminated; argv[0] is added), stderr
 * and stdout caught into err and out. Returns what opt_parse returned. */
static int run(targs *t, strlist *ops, const char *const *words, char *err, size_t en, char *out,
               size_t on) {
  char *argv[32] = {"test"};
  int argc = 1;
  while (words[argc - 1]) {
    argv[argc] = (char *)words[argc - 1];
    argc++;
  }
  memset(t, 0, sizeof *t);
  memset(ops, 0, sizeof *ops);
  FILE *ef = tmpfile(), *of = tmpfile();
  if (!ef || !of) abort();
  fflush(stderr);
  fflush(stdout);
  int saved_err = dup(2), saved_out = dup(1);
  dup2(fileno(ef), 2);
  dup2(fileno(of), 1);
  void *bases[] = {t};
  int rc = opt_parse(&test_cmd, bases, argc, argv, ops);
  fflush(stderr);
  fflush(stdout);
  dup2(saved_err, 2);
  dup2(saved_out, 1);
  close(saved_err);
  close(saved_out);
  FILE *fs[2] = {ef, of};
  char *bufs[2] = {err, out};
  size_t ns[2] = {en, on};
  for (int k = 0; k < 2; k++) {
    rewind(fs[k]);
    size_t n = fread(bufs[k], 1, ns[k] - 1, fs[k]);
    bufs[k][n] = '\0';
    fclose(fs[k]);
  }
  return rc;
}

#define RUN(...) run(&t, &ops, (const char *const[]){__VA_ARGS__, NULL}, err, sizeof err, out, sizeof out)

static void test_every_kind(void) {
  targs t;
  strlist ops;
  char err[1024], out[4096];
  int rc = RUN("a.txt", "--flag", "-j", "4", "--size=4096", "--seed", "18446744073709551615",
               "--after=9223372036854775807", "--timeout", "2.5", "--speed=0", "--gap", "1500",
               "--name", "x", "-t", "one", "--tag=two", "-tthree", "--format", "json", "--filter",
               "think=1", "--think", "b.txt");
  CHECKF(rc == -1, "rc %d, stderr %s", rc, err);
  CHECK(t.flag == 1 && t.jobs == 4 && t.size == 4096);
  CHECK(t.seed == UINT64_MAX && t.after == INT64_MAX);
  CHECK(t.timeout == 2.5 && t.speed == 0 && t.gap == 1.5);
  CHECK(t.name && strcmp(t.name, "x") == 0);
  CHECK(t.tags.n == 3 && strcmp(t.tags.v[0], "one") == 0 && strcmp(t.tags.v[1], "two") == 0 &&
        strcmp(t.tags.v[2], "three") == 0);
  CHECK(t.fmt == 1);
  CHECK(t.calls == 2 && t.called_with == NULL); /* --think: no value */
  CHECK(ops.n == 2 && strcmp(ops.v[0], "a.txt") == 0 && strcmp(ops.v[1], "b.txt") == 0);
  CHECKF(err[0] == '\0', "stderr: %s", err);
  strlist_free(&t.tags);
  strlist_free(&ops);
  /* -j4: a short option's value attached; the last value given wins */
  rc = RUN("-j4", "--name", "a", "--name=b", "f");
  CHECK(rc == -1 && t.jobs == 4 && strcmp(t.name, "b") == 0);
  strlist_free(&ops);
}

/* Each bad command line: its exit status and its exact message. */
static void test_errors(void) {
  static const struct {
    const char *words[4];
    const char *message;
  } cases[] = {
      {{"--jobs", "0", "f"}, "sluice test: --jobs: must be a whole number from 1 to 256, not \"0\"\n"},
      {{"-j", "257", "f"}, "sluice test: -j: must be a whole number from 1 to 256, not \"257\"\n"},
      {{"--jobs=x", "f"}, "sluice test: --jobs: must be a whole number from 1 to 256, not \"x\"\n"},
      {{"--size", "-1", "f"}, "sluice test: --size: must be a whole number, not \"-1\"\n"},
      {{"--seed", "18446744073709551616", "f"},
       "sluice test: --seed: must be a whole number, not \"18446744073709551616\"\n"},
      {{"--after", "9223372036854775808", "f"},
       "sluice test: --after: must be a whole number, not \"9223372036854775808\"\n"},
      {{"--timeout", "0", "f"}, "sluice test: --timeout: must be a positive number, not \"0\"\n"},
      {{"--timeout", "inf", "f"},
       "sluice test: --timeout: must be a positive number, not \"inf\"\n"},
      {{"--speed", "-1", "f"}, "sluice test: --speed: must be a number, 0 or more, not \"-1\"\n"},
      {{"--speed", "", "f"}, "sluice test: --speed: must be a number, 0 or more, not \"\"\n"},
      {{"--gap", "1.5", "f"},
       "sluice test: --gap: must be a whole number of milliseconds, not \"1.5\"\n"},
      {{"--format", "xml", "f"}, "sluice test: --format: must be text or json, not \"xml\"\n"},
      {{"--filter", "bad", "f"}, "sluice test: --filter: no filter \"bad\"\n"},
      {{"--filter", "told", "f"}, "(reported by the handler)\n"},
      {{"--flag=1", "f"}, "sluice test: --flag: takes no value\n"},
      {{"f", "--name"}, "sluice test: --name: needs a value: --name NAME\n"},
      {{"-fx", "f"}, "sluice test: -fx: unknown option (see sluice test --help)\n"},
      {{"--flg", "f"},
       "sluice test: --flg: unknown option; did you mean --flag? (see sluice test --help)\n"},
      {{"--time", "f"},
       "sluice test: --time: unknown option; did you mean --timeout? (see sluice test --help)\n"},
      {{"--frobnicate", "f"}, "sluice test: --frobnicate: unknown option (see sluice test --help)\n"},
      {{"-z", "f"}, "sluice test: -z: unknown option (see sluice test --help)\n"},
      {{"--name", "x"}, "sluice test: needs FILE (see sluice test --help)\n"},
      {{"a", "b", "c"}, "sluice test: unexpected argument \"c\" (see sluice test --help)\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    targs t;
    strlist ops;
    char err[1024], out[256];
    const char *w[5] = {cases[i].words[0], cases[i].words[1], cases[i].words[2],
                        cases[i].words[3], NULL};
    int rc = run(&t, &ops, w, err, sizeof err, out, sizeof out);
    CHECKF(rc == 2, "case %zu: rc %d", i, rc);
    CHECKF(strcmp(err, cases[i].message) == 0, "case %zu: stderr %s", i, err);
    CHECKF(out[0] == '\0', "case %zu: stdout %s", i, out);
    strlist_free(&t.tags);
    strlist_free(&ops);
  }
}

static void test_operands(void) {
  targs t;
  strlist ops;
  char err[1024], out[256];
  /* "--" ends the options; "-" is an operand (standard input) */
  int rc = RUN("--", "--flag");
  CHECK(rc == -1 && t.flag == 0 && ops.n == 1 && strcmp(ops.v[0], "--flag") == 0);
  strlist_free(&ops);
  rc = RUN("-", "--flag");
  CHECK(rc == -1 && t.flag == 1 && ops.n == 1 && strcmp(ops.v[0], "-") == 0);
  strlist_free(&ops);
  /* a value is taken as it is, even one that looks like an option */
  rc = RUN("--name", "--flag", "f");
  CHECK(rc == -1 && t.flag == 0 && strcmp(t.name, "--flag") == 0);
  strlist_free(&ops);
}

static const char want_help[] =
    "usage: sluice test FILE... [options]\n"
    "\n"
    "Tests the parser.\n"
    "\n"
    "Basics:\n"
    "  -f, --flag          a flag\n"
    "  -j, --jobs N        workers\n"
    "  --size BYTES        a size\n"
    "  --seed N            a seed\n"
    "  --after N           a count\n"
    "Values:\n"
    "  --timeout SECONDS   a long help text that has to be wrapped over more than\n"
    "                      one line, because it goes on and on past the\n"
    "                      seventy-ninth column\n"
    "  --speed X           a factor\n"
    "  --gap MS            milliseconds\n"
    "  --name NAME         a name\n"
    "  -t, --tag TAG       repeatable\n"
    "  --format FMT        text or json\n"
    "  --filter NAME[=JSON]  first line\n"
    "                      second line\n"
    "  --think             a flag with a handler\n"
    "  -h, --help          this text\n"
    "\n"
    "The end.\n";

static void test_help(void) {
  tbuf b = {0};
  opt_help(&test_cmd, &b);
  CHECKF(strcmp(b.p, want_help) == 0, "got:\n%s", b.p);
  tbuf_free(&b);
  /* --help anywhere, before any check of the rest: exit status 0 */
  targs t;
  strlist ops;
  char err[1024], out[4096];
  int rc = RUN("--jobs", "2", "--help", "--bogus");
  CHECK(rc == 0);
  CHECKF(strcmp(out, want_help) == 0, "stdout:\n%s", out);
  CHECK(err[0] == '\0');
  rc = RUN("-h");
  CHECK(rc == 0 && strcmp(out, want_help) == 0);
  /* after "--" it is an operand */
  rc = RUN("--", "--help");
  CHECK(rc == -1 && ops.n == 1);
  strlist_free(&ops);
}

int main(void) {
  test_every_kind();
  test_errors();
  test_operands();
  test_help();
  if (failures) {
    fprintf(stderr, "test_opt: %d checks failed\n", failures);
    return 1;
  }
  printf("test_opt: all passed\n");
  return 0;
}
