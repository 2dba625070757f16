/* SPDX-License-Identifier: Apache-2.0 */
/*
 * unfold.h - reading folded stacks back out of a flame graph SVG (made by
 * offwake-svg or flamegraph.pl), for "offwake-svg unfold" and for the SVG
 * inputs of "offwake-svg diff".
 */
#ifndef OW_UNFOLD_H
#define OW_UNFOLD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One recovered stack: frames[0] is the root-most frame (the "all" root
 * itself is not included), count is the stack's own (self) count. */
typedef int (*unfold_fn)(void *ctx, const char *const *frames, const size_t *lens,
			 size_t nframes, uint64_t count);

/* Does this start of a file look like an SVG ("<?xml" or "<svg", after
 * an optional UTF-8 byte order mark and white space; or XML in UTF-16 or
 * UTF-32, by its byte order mark or its first "<")? */
int unfold_is_svg(const char *head, size_t len);

/*
 * Parse the SVG read from f and call fn for every stack with a non-zero
 * self count, in the graph's order (depth first, left to right).  Messages
 * read "offwake-svg: CMD: FILE: why".  The share of the total lost to
 * pruned frames is reported on stderr.  Returns 0, or -1 after printing
 * the error (fn returning nonzero also stops with -1, fn prints).
 */
int unfold_read(FILE *f, const char *cmd, const char *file, unfold_fn fn, void *ctx);
/* The same, and the graph's count unit (its root's "all (N UNIT, 100%)":
 * the --countname it was made with) into unit (unitlen bytes, cut, NUL
 * ended) when it is not NULL. */
int unfold_read_unit(FILE *f, const char *cmd, const char *file, unfold_fn fn, void *ctx,
		     char *unit, size_t unitlen);

/* offwake-svg unfold GRAPH.svg */
int unfold_main(int argc, char **argv);

#endif
