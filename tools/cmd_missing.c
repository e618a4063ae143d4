/*
 * cmd_missing.c: the commands a build left out because a library was
 * missing at configure time (CMakeLists.txt, SLUICE_WITH_*): each says
 * which, and how to get it, instead of being an unknown command.
 */
#include "tools.h"

#if !defined(SLUICE_HAVE_SERVE) || !defined(SLUICE_HAVE_RECORD) || !defined(SLUICE_HAVE_IMPORT) || \
    !defined(SLUICE_HAVE_GATE)
static int missing(const char *cmd, const char *lib, const char *pkg, const char *option) {
  fprintf(stderr,
          "sluice %s: this sluice was built without %s (configure found no %s; install it "
          "and configure again, or ask for it with -D%s=ON to be told why)\n",
          cmd, lib, pkg, option);
  return 2;
}
#endif

#ifndef SLUICE_HAVE_SERVE
int cmd_serve(int argc, char **argv) {
  (void)argc, (void)argv;
  return missing("serve", "libmicrohttpd", "libmicrohttpd-dev", "SLUICE_WITH_SERVE");
}
#endif

#ifndef SLUICE_HAVE_RECORD
int cmd_record(int argc, char **argv) {
  (void)argc, (void)argv;
  return missing("record", "libmicrohttpd or libcurl", "libmicrohttpd-dev and libcurl-dev",
                 "SLUICE_WITH_RECORD");
}
#endif

#ifndef SLUICE_HAVE_IMPORT
int cmd_capture(int argc, char **argv) {
  (void)argc, (void)argv;
  return missing("capture", "libyaml", "libyaml-dev", "SLUICE_WITH_IMPORT");
}
#endif

#ifndef SLUICE_HAVE_GATE
int cmd_gate(int argc, char **argv) {
  (void)argc, (void)argv;
  return missing("gate", "libmicrohttpd or libcurl", "libmicrohttpd-dev and libcurl-dev",
                 "SLUICE_WITH_GATE");
}
#endif
