/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stacks.h - internals of the stack set shared with the merge (flow.c).
 *
 * Each folded line is cut into tokens: every frame with the ';' that
 * follows it, and a final token holding the leaf frame, the whitespace and
 * the count(s).  Comparing lines byte by byte is the same as comparing
 * their token sequences token by token, so the lines are stored as a trie
 * of interned tokens, and walking the trie with children in token byte
 * order visits the lines in flamegraph.pl's sort order without ever
 * sorting the lines themselves.
 */
#ifndef FG_STACKS_H
#define FG_STACKS_H

#include "fg.h"
#include "hashtab.h"
#include "pnum.h"

#define FG_NONE UINT32_MAX

/* A count as read from the text: exact integer or double. */
struct fg_textcount {
	union {
		uint64_t u;
		double d;
	};
	uint8_t nv;
};

struct fg_leafinfo {
	struct fg_textcount c1, c2;	/* c2 only for two-count lines */
	uint8_t two;
};

/* One line (or several identical lines) as the walk hands it over. */
struct fg_line {
	const uint32_t *fields;	/* frame ids of the ';'-split stack, root first,
				 * trailing empty fields NOT yet dropped */
	size_t nfields;
	size_t same;		/* fields[0..same) are the previous line's */
	const struct fg_leafinfo *info;
	uint64_t mult;		/* how many identical lines */
};

typedef int (*fg_line_fn)(void *ctx, const struct fg_line *l);

/* Visit the lines in sorted order (sorted=1) or input order (0);
 * leaves_only: only the counts are wanted (fields NULL, nfields 0). */
int fg_stacks_walk(struct fg_stacks *s, int sorted, int leaves_only, fg_line_fn fn, void *ctx);
/* Sorted lines lo..hi-1 (after a sorted walk or fg_stacks_split()); the
 * first one's same is 0.  Two ranges can be walked at once. */
int fg_stacks_walk_range(struct fg_stacks *s, size_t lo, size_t hi, fg_line_fn fn, void *ctx);
/*
 * Where a sorted walk can be cut in two: a line near the middle whose
 * first frame differs from the line before (so the two share only the
 * root) and whose width is not 0; *before gets the sum of the widths
 * before it.  0 when there is none, or when a width is not an integer
 * (or a two-count line) or the sum would reach 2^53.
 */
size_t fg_stacks_split(struct fg_stacks *s, uint64_t *before);

/* Frame names by id (not NUL-terminated). */
const char *fg_frame_name(const struct fg_stacks *s, uint32_t id, size_t *len);
size_t fg_frame_count(const struct fg_stacks *s);
/* Id of name + "_[w]" (interned on demand); FG_NONE on allocation failure. */
uint32_t fg_frame_waker(struct fg_stacks *s, uint32_t id);
/* Id of a frame name, interned if new; FG_NONE on allocation failure. */
uint32_t fg_frame_intern(struct fg_stacks *s, const char *name, size_t len);
/* Id of the frame with this exact name, or FG_NONE. */
uint32_t fg_frame_lookup(const struct fg_stacks *s, const char *name, size_t len);

struct pnum fg_textcount_pnum(struct fg_textcount c);

/* Parse the lines of a block of text (the last one may lack its newline). */
int fg_stacks_add_block(struct fg_stacks *s, const char *buf, size_t len);
/* An empty stack set with the same settings (--reverse). */
struct fg_stacks *fg_stacks_new_like(const struct fg_stacks *s);

/* Lines first..first+count-1 of one of two stack sets (owner 0: the
 * destination, 1: the other), one block of the input. */
struct fg_block {
	size_t first, count;
	int owner;
};

/* Append src to dst, the lines ordered as the blocks list them. */
int fg_stacks_merge_blocks(struct fg_stacks *dst, const struct fg_stacks *src,
			   const struct fg_block *blocks, size_t nblocks);

/* The total of the widths when it is known without a walk (every count an
 * integer, no overflow): returns 1 and sets *total, else 0. */
int fg_stacks_exact_total(const struct fg_stacks *s, struct pnum *total);

#endif
