/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stackstore.h - the stacks the kernel side sent (OW_EV_STACK records of the
 * ring buffer), kept by their reference for the whole capture: keys drained
 * at any time can name them, even long after the stack was first seen.
 */
#ifndef OW_STACKS_H
#define OW_STACKS_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include "htab.h"
#include "offwake.h"

struct rawstack {
	uint32_t nr;
	uint64_t ips[];		/* leaf first */
};

struct stacks {
	struct htab tab;	/* (hash, 0) -> struct rawstack */
	uint64_t bad;		/* malformed records (never expected) */
};

void stacks_free(struct stacks *s);
/* Keep the stack of an OW_EV_STACK record of len bytes; 0 or -1 (ENOMEM). */
int stacks_add(struct stacks *s, const struct ow_stack *rec, size_t len);
/* The stack with reference ref, or NULL when not received. */
const struct rawstack *stacks_get(const struct stacks *s, uint64_t ref);

#endif
