/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tree.h - the live view's model: the profile's samples (export/profile.h,
 * blocked time since the start, taken again at every refresh) as a tree of
 * frames, root first: the blocked thread, its stack, the "--" and its
 * waker's stack.  Each node has its blocked time since the start, in the
 * last interval (between the last two updates) and decaying (each
 * interval's time halves every LIVE_HALF_LIFE intervals), and whether the
 * view shows its children.  An update costs the hashing of each sample's
 * frames and a walk up from the samples whose time changed; nothing of
 * the curses screen (tui.c) or of the capture.
 */
#ifndef OW_LIVE_TREE_H
#define OW_LIVE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ow_profile;

/* What the rows show and are sorted by. */
enum live_view {
	LIVE_INTERVAL,		/* the last interval */
	LIVE_TOTAL,		/* since the start */
	LIVE_DECAY,		/* decaying */
	LIVE_VIEWS,
};

/* Intervals for the decaying view's time to halve. */
#define LIVE_HALF_LIFE	5.0

struct live_node {
	const char *name;	/* NUL-terminated copy */
	struct live_node *parent;	/* NULL: the root */
	struct live_node **kids;	/* in the order last sorted */
	uint32_t nkids, capkids;
	uint32_t len;
	uint16_t depth;		/* 0: a thread's row */
	uint8_t kind;		/* enum ow_pf_kind */
	bool waker : 1;		/* past a "--": a waker's side */
	bool open : 1;		/* the view shows its children */
	bool leaf : 1;		/* some sample ends here */
	int64_t total;		/* since the start */
	int64_t self;		/* of the samples that end here */
	int64_t self_new;	/* their sum in the update under way */
	int64_t prev;		/* total before the update gen */
	double dec;		/* decaying time at the update dec_gen */
	uint32_t gen, dec_gen, self_gen;
};

struct live_tree;

/* An empty tree; NULL when out of memory. */
struct live_tree *live_tree_new(void);
void live_tree_free(struct live_tree *t);
/*
 * Take in p's samples (their values since the start); 0, or -1 when out
 * of memory (the tree is as before, less what did not fit).
 */
int live_tree_update(struct live_tree *t, const struct ow_profile *p);
/* The root (its children are the threads; its total is every sample's). */
struct live_node *live_tree_root(struct live_tree *t);
/* The updates taken in, and the distinct stacks (leaf nodes) seen. */
uint32_t live_tree_updates(const struct live_tree *t);
size_t live_tree_stacks(const struct live_tree *t);
size_t live_tree_nodes(const struct live_tree *t);

/* n's time in view v (at the last update). */
double live_value(const struct live_tree *t, const struct live_node *n,
		  enum live_view v);
/* Sort n's children by v, hottest first (equal: by name). */
void live_sort_kids(struct live_tree *t, struct live_node *n, enum live_view v);
/*
 * The rows the view shows, in order: the root's children and, under each
 * open node, its children sorted by v.  *rows is the tree's own array,
 * valid until the next call; returns how many, or 0 when out of memory.
 */
size_t live_rows(struct live_tree *t, enum live_view v,
		 struct live_node ***rows);
/*
 * Follow the hottest path (by v) down from n, opening each node on it:
 * to the next "--" (the waker side starts below it) or where the path
 * ends.  Returns where it stopped.
 */
struct live_node *live_follow(struct live_tree *t, struct live_node *n,
			      enum live_view v);
/* Whether n's name has needle in it (case-insensitive; "" has none). */
bool live_has_text(const struct live_node *n, const char *needle);
/*
 * The first node after `after` (NULL: from the top), in the order the rows
 * would show if every node were open (sorted by v), whose name has needle
 * in it (case-insensitive), wrapping around; its ancestors are opened.
 * *nth and *count: which match it is and how many there are.  NULL when
 * none.
 */
struct live_node *live_search(struct live_tree *t, enum live_view v,
			      const char *needle, const struct live_node *after,
			      size_t *nth, size_t *count);

#endif
