/*
 * outcmp.h: the one comparison of two collectors (sluice_output), for the
 * unit tests and the fuzz targets: every channel byte for byte and every
 * event on every field (type, name, data, id, offset, length, complete).
 */
#ifndef SLUICE_TOOLS_OUTCMP_H
#define SLUICE_TOOLS_OUTCMP_H

#include <stddef.h>

#include "sluice.h"

/* 0 when a and b hold the same output, else 1 with what differs in why.
 * Snapshot events (one per feed by nature) are skipped unless
 * with_snapshots is set. */
int output_compare(const sluice_output *a, const sluice_output *b, int with_snapshots, char *why,
                   size_t wl);

#endif
