/* fuzz_import_chunks: `sluice capture import` of .chunks.txt files in process (fuzz_import.h). */
#define IMPORT_EXT ".chunks.txt"
#include "fuzz_import.h"
