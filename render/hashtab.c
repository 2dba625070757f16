/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hashtab.c - allocation and growth of the id hash table (hashtab.h).
 */
#include "hashtab.h"

#include <stdlib.h>

int fg_idtab_init(struct fg_idtab *t, size_t cap)
{
	t->slot = calloc(cap, sizeof(*t->slot));
	t->mask = cap - 1;
	t->used = 0;
	return t->slot ? 0 : -1;
}

void fg_idtab_free(struct fg_idtab *t)
{
	free(t->slot);
	t->slot = NULL;
}

int fg_idtab_put(struct fg_idtab *t, size_t i, uint32_t id, uint32_t h)
{
	t->slot[i].id = id + 1;
	t->slot[i].h = h;
	t->used++;
	if (t->used * 8 <= (t->mask + 1) * 5)
		return 0;
	struct fg_idtab n;
	if (fg_idtab_init(&n, (t->mask + 1) * 2))
		return -1;
	for (size_t k = 0; k <= t->mask; k++) {
		if (!t->slot[k].id)
			continue;
		size_t j = t->slot[k].h & n.mask;
		while (n.slot[j].id)
			j = (j + 1) & n.mask;
		n.slot[j] = t->slot[k];
	}
	n.used = t->used;
	fg_idtab_free(t);
	*t = n;
	return 0;
}
