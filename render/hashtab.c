/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hashtab.c - allocation and growth of the id hash table (hashtab.h).
 */
#include "hashtab.h"

#include <stdlib.h>

int fg_idtab_init(struct fg_idtab *t, size_t cap)
{
	t->slot = calloc(cap, sizeof(*t->slot));
	t->hash = malloc(cap * sizeof(*t->hash));
	t->mask = cap - 1;
	t->used = 0;
	return t->slot && t->hash ? 0 : -1;
}

void fg_idtab_free(struct fg_idtab *t)
{
	free(t->slot);
	free(t->hash);
	t->slot = NULL;
	t->hash = NULL;
}

int fg_idtab_reserve(struct fg_idtab *t)
{
	if ((t->used + 1) * 8 <= (t->mask + 1) * 5)
		return 0;
	struct fg_idtab n;
	size_t cap = (t->mask + 1) * 2;
	if (fg_idtab_init(&n, cap) < 0) {
		fg_idtab_free(&n);
		return -1;
	}
	for (size_t i = 0; i <= t->mask; i++) {
		if (!t->slot[i])
			continue;
		size_t j = t->hash[i] & n.mask;
		while (n.slot[j])
			j = (j + 1) & n.mask;
		n.slot[j] = t->slot[i];
		n.hash[j] = t->hash[i];
	}
	n.used = t->used;
	fg_idtab_free(t);
	*t = n;
	return 0;
}
