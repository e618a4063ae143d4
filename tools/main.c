/*
 * main.c: the sluice command: a dispatcher over the subcommands.
 */
#include "tools.h"

#include <string.h>

static const char usage[] =
    "usage: sluice COMMAND [options]\n"
    "\n"
    "Commands:\n"
    "  proto     serve the JSON-lines filter protocol on stdin/stdout\n"
    "  conform   run the golden conformance suites in every split mode\n"
    "  bench     measure filter throughput and hold-back\n"
    "  mkcorpus  write the conformance cases as fuzz seed corpora\n"
    "  clean     clean an LLM response on stdin with a proxy config (--config FILE)\n"
    "  json      repair the JSON value on standard input\n"
    "  serve     a mock upstream: serve recorded provider streams over HTTP\n"
    "  record    a recording proxy: forward requests, write captures\n"
    "  capture   import recordings made elsewhere (cassettes, HAR, AI SDK chunks)\n"
    "\n"
    "Run \"sluice COMMAND --help\" for a command's options.\n";

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    puts("sluice " SLUICE_VERSION_STRING);
    return 0;
  }
  static const struct {
    const char *name;
    int (*run)(int, char **);
  } cmds[] = {{"proto", cmd_proto}, {"conform", cmd_conform}, {"bench", cmd_bench},
                {"mkcorpus", cmd_mkcorpus},
                {"clean", cmd_clean},
                {"json", cmd_json},
                {"serve", cmd_serve},
                {"record", cmd_record},
                {"capture", cmd_capture}};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    if (strcmp(argv[1], cmds[i].name) == 0) return cmds[i].run(argc - 1, argv + 1);
  fprintf(stderr, "sluice: unknown command \"%s\"\n\n%s", argv[1], usage);
  return 2;
}
