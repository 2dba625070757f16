/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memstats.h - what a capture's memory is made of, table by table, one
 * line at a time (OFFWAKE_MEMSTATS=FILE, for `make soak`, tests/soak.sh).
 */
#ifndef OW_MEMSTATS_H
#define OW_MEMSTATS_H

#include <stdio.h>

struct capture;

/* Append one line "t=SECONDS name=VALUE ..." about c to f. */
void memstats_line(FILE *f, struct capture *c, double t);

#endif
