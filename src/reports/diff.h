/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diff.h - "offwake-svg diff": differential flame graph of two profiles.
 */
#ifndef OW_DIFF_H
#define OW_DIFF_H

/* offwake-svg diff [OPTIONS] BEFORE AFTER; returns the exit status. */
int diff_main(int argc, char **argv);

#endif
