/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frametab.h - interned strings with dense ids (0, 1, 2, ... in first-seen
 * order), for the exporters' deduplicated frame and string tables.
 */
#ifndef OW_FRAMETAB_H
#define OW_FRAMETAB_H

#include <stddef.h>
#include <stdint.h>
#include "common/htab.h"

struct frametab {
	struct htab ids;	/* (hash, 0) -> first id + 1 */
	struct ft_name {
		char *s;	/* NUL-terminated copy */
		size_t len;
		uint32_t next;	/* next id with the same hash + 1, or 0 */
	} *v;
	size_t n, cap;
};

/* An empty table needs no init: {0}. */
void frametab_free(struct frametab *t);
/* The id of s (len bytes), added when new; 0 or -1 (ENOMEM). */
int frametab_id(struct frametab *t, const char *s, size_t len, uint32_t *id);

#endif
