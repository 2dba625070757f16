/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hashtab.h - the open-addressing table of 32-bit ids shared by the stack
 * set and the merge, whose keys live with the caller (the caller
 * compares), hashed with base/hash.h.  Internal to render/; the capture
 * side's table (src/common/htab.h) says why it is a different table.
 */
#ifndef FG_HASHTAB_H
#define FG_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"

/* Open-addressing table of ids; a slot keeps the id (+1, so 0 = empty)
 * and 32 bits of the key's hash, which also place it. */
struct fg_slot {
	uint32_t id;
	uint32_t h;
};

struct fg_idtab {
	struct fg_slot *slot;
	size_t mask;	/* capacity - 1 */
	size_t used;
};

static inline uint32_t fg_h32(uint64_t h)
{
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

int fg_idtab_init(struct fg_idtab *t, size_t cap_pow2);
void fg_idtab_free(struct fg_idtab *t);
/* Fill slot i (found empty by the caller's probe), growing the table when
 * more than 5/8 full; returns -1 on allocation failure. */
int fg_idtab_put(struct fg_idtab *t, size_t i, uint32_t id, uint32_t h);

#endif
