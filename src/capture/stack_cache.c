/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stack_cache.c - the summary line the stack caches share: how many
 * stacks were a task's last one there (checked, not walked), how many
 * were walked and kept, why the others were not, and any hit that
 * differed from the walk (the check settings' warning).
 */
#include <stdio.h>
#include "stack_cache.h"
#include "common/util.h"

void stack_cache_line(const struct stack_cache_counts *c)
{
	uint64_t all = c->hit + c->walked;

	if (!all)
		return;
	fprintf(stderr, OW_PROG ": %s: %llu of %llu the task's last one there, checked (%.1f%%); %llu walked%s, %llu of them kept for the next time%s%s%s\n",
		c->what, (unsigned long long)c->hit, (unsigned long long)all,
		100.0 * c->hit / all, (unsigned long long)c->walked,
		c->walked_note, (unsigned long long)c->learned,
		c->learned_note ? c->learned_note : "", *c->not_kept ? "; not kept: " : "", c->not_kept);
	if (c->mismatch)
		fprintf(stderr, OW_PROG ": warning: %s: %llu taken from the cache differed from %s (%s)\n",
			c->what, (unsigned long long)c->mismatch, c->walk, c->check);
}
