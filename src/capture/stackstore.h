/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stackstore.h - the stacks the kernel side sent (OW_EV_STACK records of the
 * ring buffer), kept by their reference: keys drained at any time can name
 * them, even long after the stack was first seen.  A user stack used by
 * one lineage of processes only (see procmaps.h) is given up once that
 * lineage is gone and the stack was not used for STACKS_IDLE sweeps, in
 * two steps (see stackstore.c); so is a kernel stack of an interrupt's
 * wakeup once unused as long.
 */
#ifndef OW_STACKS_H
#define OW_STACKS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/htab.h"
#include "offwake.h"

struct rawstack {
	uint32_t nr;
	uint32_t holders;	/* lineages that used it (user stacks): 0,
				 * 1, or STACKS_KEPT */
	uint32_t used;		/* the sweep it was last used at */
	bool unseen;		/* the kernel side was told to forget it */
	uint64_t ips[];		/* leaf first */
};

/* Kept: its addresses are not randomised (or two lineages used it). */
#define STACKS_KEPT	2
/* Sweeps without a use before a stack no lineage holds is given up. */
#define STACKS_IDLE	30

struct stacks {
	struct htab tab;	/* (hash, 0) -> struct rawstack */
	uint64_t bad;		/* malformed records (never expected) */
	bool fixed;		/* no address randomisation: keep all */
	uint32_t sweeps;	/* stacks_sweep() calls */
	uint32_t max_idle;	/* STACKS_IDLE (tests may lower it) */
	uint64_t *idle;		/* stacks no lineage holds any more */
	size_t nidle, idlecap;
	/* called for a stack given up, so the kernel side sends it again */
	void (*forget)(void *ctx, uint64_t ref);
	/* called for a stack freed, so what was cached under ref goes too */
	void (*freed)(void *ctx, uint64_t ref);
	void *ctx;
	uint64_t given_up;	/* stacks freed so far */
};

void stacks_free(struct stacks *s);
/* Keep the stack of an OW_EV_STACK record of len bytes; 0 or -1 (ENOMEM). */
int stacks_add(struct stacks *s, const struct ow_stack *rec, size_t len);
/* The stack with reference ref (now used), or NULL when not received. */
const struct rawstack *stacks_get(struct stacks *s, uint64_t ref);
/* One more lineage holds the (received) stack ref. */
void stacks_hold(struct stacks *s, uint64_t ref);
/* Keep the stack ref for good: processes of any lineage may take it. */
void stacks_keep(struct stacks *s, uint64_t ref);
/* One fewer does: unless another did, the stack becomes idle. */
void stacks_drop(struct stacks *s, uint64_t ref);
/*
 * The (received) stack ref is used for a moment only: a kernel stack of
 * a wakeup from an interrupt, whose frames below the interrupt are
 * wherever the CPU was (any instruction of the kernel), so that such
 * stacks are new all the time.  It becomes idle at once.
 */
void stacks_transient(struct stacks *s, uint64_t ref);
/* Give up the idle stacks unused for max_idle sweeps (then as many
 * again); call every second or so. */
void stacks_sweep(struct stacks *s);

#endif
