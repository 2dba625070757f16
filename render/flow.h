/* SPDX-License-Identifier: Apache-2.0 */
/*
 * flow.h - merging the ordered lines into frame nodes, exactly as
 * flamegraph.pl's flow() does (spec §5, §8, and the chain rewrite §3.3).
 */
#ifndef FG_FLOW_H
#define FG_FLOW_H

#include "stacks.h"

/* A compact Perl number for per-node storage. */
struct fg_num {
	union {
		uint64_t u;
		int64_t i;
		double d;
	};
	uint8_t kind;	/* 0 unsigned, 1 negative integer, 2 double */
};

struct fg_num fg_num_from(struct pnum p);
static inline struct pnum fg_num_get(struct fg_num n)
{
	switch (n.kind) {
	case 0: return pnum_iv(n.u);
	case 1: return pnum_iv(n.i);
	}
	return pnum_nv(n.d);
}

struct fg_node {
	uint32_t frame;
	uint32_t depth;
	struct fg_num start, end;	/* end as read back from its string */
	struct fg_num delta;
	uint8_t has_delta;
	uint8_t dropped;	/* merged with a zero-width twin and pruned */
};

struct fg_flow {
	struct fg_node *nodes;
	size_t n, cap;
	struct pnum total;	/* T: the sum of the counts */
	struct pnum maxdelta;	/* at least 1 */
};

/* T, the sum of the counts, added in merge order as Perl adds them. */
int fg_flow_total(struct fg_stacks *s, int flamechart, struct pnum *total);

/*
 * Merge the stack set's lines (sorted, or input order for flamechart).
 * chain: apply the chain palette rewrite of waker frames.  inclusive: a
 * frame's delta is the sum of the deltas of the lines it spans (else,
 * as flamegraph.pl, the line's delta goes to the leaf it opens).  Nodes
 * narrower than minwidth_time (count units) are pruned as they close, so
 * only the nodes that will be drawn are kept.  Returns 0, or -1 on
 * allocation failure.
 */
int fg_flow_build(struct fg_stacks *s, int flamechart, int chain, int inclusive,
		  double minwidth_time, struct fg_flow *out);
/* From this many lines (default 50000) a sorted merge is done in two
 * halves on two threads when the lines allow it (fg_stacks_split()). */
extern size_t fg_flow_parallel_min;
void fg_flow_free(struct fg_flow *f);

#endif
