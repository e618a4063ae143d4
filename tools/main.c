/*
 * main.c: the sluice command: a dispatcher over the subcommands, each with
 * its own options and --help (tools/common/opt.h).
 */
#include "tools.h"

#include <string.h>

static const struct {
  const char *name;
  int (*run)(int, char **);
  const char *about;
} cmds[] = {
    {"proto", cmd_proto, "serve the JSON-lines filter protocol on stdin/stdout"},
    {"conform", cmd_conform, "run the golden conformance suites in every split mode"},
    {"diff", cmd_diff, "compare other implementations with sluice, case by case"},
    {"bench", cmd_bench, "measure filter throughput and hold-back"},
    {"mkcorpus", cmd_mkcorpus, "write the conformance cases as fuzz seed corpora"},
    {"think", cmd_think, "remove the reasoning from model output on stdin (--format, --model)"},
    {"clean", cmd_clean, "clean an LLM response on stdin with a proxy config (--config FILE)"},
    {"json", cmd_json, "repair the JSON value on standard input"},
    {"replay", cmd_replay, "replay a captured provider stream through a pipeline"},
    {"serve", cmd_serve, "a mock upstream: serve recorded provider streams over HTTP"},
    {"record", cmd_record, "a recording proxy: forward requests, write captures"},
    {"capture", cmd_capture, "import recordings made elsewhere (cassettes, HAR, AI SDK chunks)"},
    {"gate", cmd_gate, "check a running middleware over HTTP against the mock upstream"},
};

static void usage(FILE *fp) {
  fputs("usage: sluice COMMAND [options]\n\nCommands:\n", fp);
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    fprintf(fp, "  %-9s %s\n", cmds[i].name, cmds[i].about);
  fputs("\nRun \"sluice COMMAND --help\" for a command's options.\n", fp);
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    puts("sluice " SLUICE_VERSION_STRING);
    return 0;
  }
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    if (strcmp(argv[1], cmds[i].name) == 0) return cmds[i].run(argc - 1, argv + 1);
  fprintf(stderr, "sluice: unknown command \"%s\"\n\n", argv[1]);
  usage(stderr);
  return 2;
}
