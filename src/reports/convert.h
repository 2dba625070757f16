/* SPDX-License-Identifier: Apache-2.0 */
/*
 * convert.h - "offwake-svg convert": a profile (folded or SVG) to pprof,
 * speedscope or folded text.
 */
#ifndef OW_CONVERT_H
#define OW_CONVERT_H

/* offwake-svg convert [OPTIONS] [FILE...]; returns the exit status. */
int convert_main(int argc, char **argv);

#endif
