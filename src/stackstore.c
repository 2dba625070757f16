// SPDX-License-Identifier: Apache-2.0
/*
 * stackstore.c - the stack store of stackstore.h.  The kernel side sends a stack
 * again when its hash fell out of its "seen" cache; the copy we have is
 * kept.
 */
#include <stdlib.h>
#include <string.h>
#include "stackstore.h"

void stacks_free(struct stacks *s)
{
	for (size_t i = 0; i < s->tab.size; i++)
		free(s->tab.tab[i].val);
	htab_free(&s->tab);
}

int stacks_add(struct stacks *s, const struct ow_stack *rec, size_t len)
{
	size_t head = offsetof(struct ow_stack, ips);
	struct rawstack *r;

	if (len < head || rec->nr > OW_MAX_STACK_DEPTH ||
	    len < head + rec->nr * sizeof(rec->ips[0]) ||
	    !(rec->hash & OW_STACK_HASH)) {
		s->bad++;
		return 0;
	}
	if (htab_get(&s->tab, rec->hash, 0))
		return 0;
	r = malloc(sizeof(*r) + rec->nr * sizeof(r->ips[0]));
	if (!r)
		return -1;
	r->nr = rec->nr;
	memcpy(r->ips, rec->ips, rec->nr * sizeof(r->ips[0]));
	if (htab_put(&s->tab, rec->hash, 0, r) < 0) {
		free(r);
		return -1;
	}
	return 0;
}

const struct rawstack *stacks_get(const struct stacks *s, uint64_t ref)
{
	if (!(ref & OW_STACK_HASH))
		return NULL;
	return htab_get(&s->tab, ref, 0);
}
