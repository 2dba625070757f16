/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agg.h - user-space sums of blocked time per aggregation key, filled by
 * draining the kernel's counts maps during the capture, each with the
 * key's four stacks once they are symbolised (fold.c).
 */
#ifndef OW_AGG_H
#define OW_AGG_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include "offwake.h"

/* The stacks of a key. */
enum key_stack {
	KS_T_USER,		/* target user stack */
	KS_T_KERNEL,		/* target kernel stack */
	KS_W_KERNEL,		/* waker kernel stack */
	KS_W_USER,		/* waker user stack */
	KS_NR,
};

/* The stacks of a level of the wakeup chain past the waker (key.up[]). */
enum level_stack {
	LS_KERNEL,
	LS_USER,
	LS_NR,
};

struct symstack;

struct agg_entry {
	struct ow_key key;
	uint64_t ns;
	/* Symbolised stacks; NULL until fold_resolve() did them. */
	const struct symstack *stk[KS_NR];
	/* Those of key.up[] (--chain-depth); NULL past the chain's end. */
	const struct symstack *up[OW_CHAIN_MAX - 1][LS_NR];
};

struct agg_slot {
	uint64_t hash;		/* of the key */
	size_t idx;		/* entry + 1; 0: empty slot */
};

/* An empty table needs no init: {0}. */
struct agg {
	struct agg_entry *ent;	/* the entries, in order of arrival */
	size_t n, cap;
	struct agg_slot *slots;	/* open addressing, power-of-two size */
	size_t size;
};

void agg_free(struct agg *a);
/*
 * Add ns (which must be > 0) to key's sum; returns the key's entry
 * (valid until the next add), or NULL (ENOMEM).
 */
struct agg_entry *agg_add(struct agg *a, const struct ow_key *key,
			  uint64_t ns);
/* The index of key's entry, or -1 when it has none. */
long agg_find(const struct agg *a, const struct ow_key *key);

#endif
