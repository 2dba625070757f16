/* SPDX-License-Identifier: Apache-2.0 */
/*
 * profile_load.h - reading a profile given on a command line: a folded
 * file or a flame graph SVG (told apart by content, SVGs read back with
 * unfold.c), "-" for standard input.  Shared by "diff" and "convert".
 */
#ifndef OW_PROFILE_LOAD_H
#define OW_PROFILE_LOAD_H

#include "fg.h"

/*
 * Add the stacks of the profile name to s.  Messages read
 * "offwake-svg: CMD: NAME: why"; lines with an invalid format are counted
 * and reported on stderr (not an error).  unit (unitlen bytes; may be
 * NULL): an SVG's count unit (its --countname), "" for folded text, which
 * does not say.  Returns 0, or -1 after printing the error.
 */
int profile_load(struct fg_stacks *s, const char *cmd, const char *name, char *unit,
		 size_t unitlen);

#endif
