/* SPDX-License-Identifier: Apache-2.0 */
/*
 * events.h - internals of the event set (fg.h's fg_events): the stacks
 * that carry long blocks, their frames interned, and the blocks in time,
 * which the heat map (heatmap.c) draws and embeds for the page's script.
 */
#ifndef FG_EVENTS_H
#define FG_EVENTS_H

#include "fg.h"
#include "hashtab.h"
#include "vec.h"

struct fg_ev {
	uint32_t stack;		/* index into stacks */
	uint64_t start_ns, dur_ns;
};

struct fg_evstack {
	size_t first;		/* into ids */
	uint32_t n;
	uint32_t h;
};

struct fg_events {
	uint64_t length_ns;	/* the capture's length */
	uint64_t ns_per_count;	/* the stack set's count unit, in ns */
	struct fg_stacks *names;	/* a private stack set: its frame table */
	VEC(uint32_t) ids;	/* every stack's frame ids, root first */
	VEC(struct fg_evstack) stacks;
	struct fg_idtab stacktab;	/* ids -> stack */
	VEC(struct fg_ev) ev;
};

#endif
