/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeline.h - a capture's long blocks (--timeline, --event-min): the
 * kernel side's records (bpf/offwake.h's struct ow_tl_event) kept until
 * their key is in the sums, then as profile.h's struct ow_long_block
 * beside the index of the key's sums entry (agg.h), and indexed by entry
 * for the output (timeline.c).  Bounded: past max kept, counted as lost.
 */
#ifndef OW_TIMELINE_H
#define OW_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "offwake.h"
#include "export/profile.h"

#define TIMELINE_MAX	(1u << 20)	/* events kept, by default */

struct tl_event {
	struct ow_long_block b;
	size_t ent;			/* its key's entry in the sums */
};

struct timeline {
	bool on;
	size_t max;			/* events kept at most (waiting included) */
	uint64_t lost;			/* not kept: past max, out of memory,
					 * a record of a wrong size, or their
					 * key never summed */
	uint64_t bytes;			/* of the kernel side's records */
	struct tl_event *ev;		/* kept, in order of arrival */
	size_t n, cap;
	struct ow_tl_event *wait;	/* their key not in the sums yet */
	size_t nwait, wait_cap;
	uint64_t clock_start_ns, clock_end_ns;	/* armed, disarmed */
	/* timeline_index()'s: ev sorted by (entry, start), its blocks */
	struct ow_long_block *blocks;
	size_t *first;			/* entry i's: blocks[first[i], first[i+1]) */
	size_t nindexed, nfirst;
};

/* The kernel side's record (len bytes, the key OW_KEY_SIZE(depth)) kept
 * until its key's entry is known. */
void timeline_record(struct timeline *t, const void *data, size_t len);
/*
 * Each waiting record given its entry: find() returns the index of the
 * sums entry of a record's key, or -1 (not in yet, or not ever: final).
 * Those not found wait for the next call; final: they are lost.
 */
void timeline_resolve(struct timeline *t,
		      long (*find)(void *ctx, const struct ow_key *k, bool final),
		      void *ctx, bool final);
/* The events kept so far indexed by entry (nent: the sums' entries, all
 * those the events name); 0 or -1.  Called again on a grown set (each
 * output), it indexes it anew. */
int timeline_index(struct timeline *t, size_t nent);
/* The index's memory freed (timeline_of() then gives none). */
void timeline_unindex(struct timeline *t);
/* Entry ent's events, by start (timeline_index()'s). */
const struct ow_long_block *timeline_of(const struct timeline *t, size_t ent,
					size_t *n);
void timeline_free(struct timeline *t);

#endif
