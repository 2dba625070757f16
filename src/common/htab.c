// SPDX-License-Identifier: Apache-2.0
/*
 * htab.c - the two-word-key hash table of htab.h: linear probing, grown
 * to keep it at most half full; deletion shifts the entries after the
 * hole back (no tombstones).
 */
#include <errno.h>
#include <stdlib.h>
#include "htab.h"

static size_t mix(uint64_t a, uint64_t b)
{
	uint64_t x = (a ^ (b * 0xff51afd7ed558ccdULL)) * 0xc4ceb9fe1a85ec53ULL;

	return x ^ (x >> 31);
}

static struct htab_slot *slot(struct htab_slot *tab, size_t size,
			      uint64_t a, uint64_t b)
{
	size_t i = mix(a, b) & (size - 1);

	while (tab[i].val && (tab[i].a != a || tab[i].b != b))
		i = (i + 1) & (size - 1);
	return &tab[i];
}

void htab_free(struct htab *h)
{
	free(h->tab);
	h->tab = NULL;
	h->size = h->used = 0;
}

void *htab_get(const struct htab *h, uint64_t a, uint64_t b)
{
	if (!h->size)
		return NULL;
	return slot(h->tab, h->size, a, b)->val;
}

static int grow(struct htab *h)
{
	size_t nsize = h->size ? h->size * 2 : 8;
	struct htab_slot *nt = calloc(nsize, sizeof(*nt));

	if (!nt) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < h->size; i++)
		if (h->tab[i].val)
			*slot(nt, nsize, h->tab[i].a, h->tab[i].b) = h->tab[i];
	free(h->tab);
	h->tab = nt;
	h->size = nsize;
	return 0;
}

int htab_put(struct htab *h, uint64_t a, uint64_t b, void *val)
{
	struct htab_slot *s;

	if ((h->used + 1) * 2 > h->size && grow(h) < 0)
		return -1;
	s = slot(h->tab, h->size, a, b);
	if (!s->val)
		h->used++;
	*s = (struct htab_slot){ a, b, val };
	return 0;
}

void htab_del(struct htab *h, uint64_t a, uint64_t b)
{
	size_t mask = h->size - 1, i, j;

	if (!h->size)
		return;
	i = slot(h->tab, h->size, a, b) - h->tab;
	if (!h->tab[i].val)
		return;
	h->used--;
	/* move back each later entry of the run whose home is not in (i, j] */
	for (j = (i + 1) & mask; h->tab[j].val; j = (j + 1) & mask) {
		size_t home = mix(h->tab[j].a, h->tab[j].b) & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			h->tab[i] = h->tab[j];
			i = j;
		}
	}
	h->tab[i].val = NULL;
}
