// SPDX-License-Identifier: Apache-2.0
/*
 * agg.c - an open-addressing hash table of aggregation keys and their
 * summed blocked time (ns).  Keys are compared as bytes: the kernel
 * zero-initialises them, so equal keys are equal byte for byte.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "agg.h"

int agg_init(struct agg *a)
{
	a->size = 1024;
	a->used = 0;
	a->tab = calloc(a->size, sizeof(*a->tab));
	return a->tab ? 0 : -1;
}

void agg_free(struct agg *a)
{
	free(a->tab);
	a->tab = NULL;
	a->size = a->used = 0;
}

static size_t hash_key(const struct ow_key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static struct agg_entry *slot(struct agg_entry *tab, size_t size,
			      const struct ow_key *k)
{
	size_t i = hash_key(k) & (size - 1);

	while (tab[i].ns && memcmp(&tab[i].key, k, sizeof(*k)))
		i = (i + 1) & (size - 1);
	return &tab[i];
}

static int grow(struct agg *a)
{
	size_t nsize = a->size * 2;
	struct agg_entry *nt = calloc(nsize, sizeof(*nt));

	if (!nt)
		return -1;
	for (size_t i = 0; i < a->size; i++)
		if (a->tab[i].ns)
			*slot(nt, nsize, &a->tab[i].key) = a->tab[i];
	free(a->tab);
	a->tab = nt;
	a->size = nsize;
	return 0;
}

int agg_add(struct agg *a, const struct ow_key *key, uint64_t ns)
{
	struct agg_entry *e;

	if (!ns)
		return 0;
	if ((a->used + 1) * 4 > a->size * 3 && grow(a) < 0) {
		errno = ENOMEM;
		return -1;
	}
	e = slot(a->tab, a->size, key);
	if (!e->ns) {
		e->key = *key;
		a->used++;
	}
	e->ns += ns;
	return 0;
}
