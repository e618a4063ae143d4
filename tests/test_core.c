#include "sluice.h"
#include <stdio.h>
int main(void) { printf("%s\n", sluice_status_name(SLUICE_OK)); return 0; }
