/* fuzz_import_yaml: `sluice capture import` of .yaml files in process (fuzz_import.h). */
#define IMPORT_EXT ".yaml"
#include "fuzz_import.h"
