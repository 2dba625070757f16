// SPDX-License-Identifier: Apache-2.0
/*
 * frametab.c - string interning for the exporters: a name's id is found
 * by its hash (ow_hash) in an htab, names sharing a hash are chained.
 */
#include "frametab.h"
#include "common/util.h"
#include "base/hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void frametab_free(struct frametab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].s);
	free(t->v);
	htab_free(&t->ids);
	memset(t, 0, sizeof(*t));
}

int frametab_id(struct frametab *t, const char *s, size_t len, uint32_t *id)
{
	uint64_t h = ow_hash(s, len);
	uintptr_t first = (uintptr_t)htab_get(&t->ids, h, 0);
	struct ft_name *e;

	for (uintptr_t i = first; i; i = t->v[i - 1].next) {
		e = &t->v[i - 1];
		if (e->len == len && !memcmp(e->s, s, len)) {
			*id = i - 1;
			return 0;
		}
	}
	if (t->n >= UINT32_MAX - 1 || ow_grow(&t->v, &t->cap, t->n, sizeof(*t->v))) {
		errno = ENOMEM;
		return -1;
	}
	e = &t->v[t->n];
	if (!(e->s = malloc(len + 1)))
		return -1;
	memcpy(e->s, s, len);
	e->s[len] = 0;
	e->len = len;
	e->next = first;
	if (htab_put(&t->ids, h, 0, (void *)(uintptr_t)(t->n + 1))) {
		free(e->s);
		return -1;
	}
	*id = t->n++;
	return 0;
}
