/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stack_cache.h - the summary line the stack caches share (kernel:
 * kstack_cache.c, user: ustack_cache.c).
 */
#ifndef OW_STACK_CACHE_H
#define OW_STACK_CACHE_H

#include <stdint.h>

/* What a stack cache did, for stack_cache_line(). */
struct stack_cache_counts {
	const char *what;	/* "kernel stacks" */
	uint64_t hit, walked, learned;
	const char *walked_note;	/* after "N walked" ("" none) */
	const char *learned_note;	/* after "N of them kept ..." (NULL:
					 * none) */
	const char *not_kept;	/* "N cause, ..." ("" none) */
	uint64_t mismatch;	/* hits that differed from the walk */
	const char *walk, *check;	/* "the kernel's walk", its env var */
};

/* "WHAT: H of N the task's last one there, checked ...", and a warning
 * for hits that differed; nothing when nothing was taken. */
void stack_cache_line(const struct stack_cache_counts *c);

#endif
