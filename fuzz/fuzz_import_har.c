/* fuzz_import_har: `sluice capture import` of .har files in process (fuzz_import.h). */
#define IMPORT_EXT ".har"
#include "fuzz_import.h"
