/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mkqs.h - sorting keys that are sequences (token bytes, or a line's
 * token ranks) with a multikey quicksort, on two threads when large.
 */
#ifndef FG_MKQS_H
#define FG_MKQS_H

#include <stddef.h>
#include <stdint.h>

struct fg_sortkey {
	const void *p;		/* the sequence */
	uint32_t len;		/* its length in elements */
	uint32_t idx;		/* the caller's index */
	uint64_t key;		/* the sort's own: the key at the current depth */
};

/* Sort by unsigned bytes / by uint32_t elements, a shorter sequence before
 * its extensions.  Equal keys keep no particular order.  0 or -1 (ENOMEM). */
int fg_sort_bytes(struct fg_sortkey *a, size_t n);
int fg_sort_ranks(struct fg_sortkey *a, size_t n);

#endif
