// SPDX-License-Identifier: Apache-2.0
/*
 * agg.c - aggregation keys and their summed blocked time (ns): a dense
 * array of entries, found through an open-addressing index of (hash,
 * entry) slots, so probing touches 16 bytes a slot and the output walks
 * the entries in one pass.  Keys are compared as bytes: the kernel
 * zero-initialises them, so equal keys are equal byte for byte.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "agg.h"
#include "common/util.h"

void agg_free(struct agg *a)
{
	free(a->ent);
	free(a->slots);
	memset(a, 0, sizeof(*a));
}

static uint64_t hash_key(const struct ow_key *k)
{
	uint64_t w[sizeof(*k) / 8], h = 0;

	memcpy(w, k, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
	}
	return h;
}

static struct agg_slot *slot(const struct agg *a, struct agg_slot *slots,
			     size_t size, uint64_t hash,
			     const struct ow_key *k)
{
	size_t i = hash & (size - 1);

	while (slots[i].idx && (slots[i].hash != hash ||
				memcmp(&a->ent[slots[i].idx - 1].key, k,
				       sizeof(*k))))
		i = (i + 1) & (size - 1);
	return &slots[i];
}

/* Double the slots (kept at most half full). */
static int grow(struct agg *a)
{
	size_t nsize = a->size ? a->size * 2 : 1024;
	struct agg_slot *ns = calloc(nsize, sizeof(*ns));

	if (!ns)
		return -1;
	for (size_t i = 0; i < a->size; i++) {
		size_t j = a->slots[i].hash & (nsize - 1);

		if (!a->slots[i].idx)
			continue;
		while (ns[j].idx)
			j = (j + 1) & (nsize - 1);
		ns[j] = a->slots[i];
	}
	free(a->slots);
	a->slots = ns;
	a->size = nsize;
	return 0;
}

struct agg_entry *agg_add(struct agg *a, const struct ow_key *key,
			  uint64_t ns)
{
	uint64_t hash = hash_key(key);
	struct agg_slot *s;
	struct agg_entry *e;

	if (((a->n + 1) * 2 > a->size && grow(a) < 0) ||
	    ow_grow(&a->ent, &a->cap, a->n, sizeof(*a->ent)) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	s = slot(a, a->slots, a->size, hash, key);
	if (!s->idx) {
		e = &a->ent[a->n++];
		memset(e, 0, sizeof(*e));
		e->key = *key;
		*s = (struct agg_slot){ hash, a->n };
	}
	e = &a->ent[s->idx - 1];
	e->ns += ns;
	return e;
}

long agg_find(const struct agg *a, const struct ow_key *key)
{
	const struct agg_slot *s;

	if (!a->size)
		return -1;
	s = slot(a, a->slots, a->size, hash_key(key), key);
	return s->idx ? (long)s->idx - 1 : -1;
}
