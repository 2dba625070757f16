// SPDX-License-Identifier: Apache-2.0
/*
 * tree.c - the live view's tree of blocked stacks and their wakers (see
 * tree.h), updated from a profile's samples at each refresh.
 *
 * A sample's frames are hashed once each; the whole sequence's two hashes
 * find its leaf (the node where it ends) in one table, so a stack seen
 * before costs no walk down the tree.  Each leaf sums this update's
 * samples (self_new: several samples can end at one node, as keys that
 * differ only in pids do); only the leaves whose sum changed walk up to
 * the root adding the difference, and a node changed in update g keeps
 * its total from before (prev, for the last interval's time) and brings
 * its decaying time to g before adding.  A node not changed keeps its
 * values: its last interval is 0 and its decay is applied when read.
 * Children are found by a scan of a few, or by (parent, hash of the
 * frame) in a second table past KIDS_SCAN;
 * a name is copied once for all its nodes.  Nodes, names and child
 * arrays are in an arena, freed at once.
 * Empty delimiters (the place of -d's "-" without -d) are not nodes.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"
#include "common/htab.h"
#include "export/profile.h"
#include "base/hash.h"

#define ARENA_CHUNK	(256 * 1024)
#define KIDS_SCAN	8	/* children found by a scan, not the index */

struct arena {
	char *cur;
	size_t left;
	char **chunks;
	size_t n;
};

struct live_tree {
	struct live_node root;
	struct htab kids;	/* (parent, frame hash) -> node, for the
				 * parents of more than KIDS_SCAN */
	struct htab leaves;	/* (sequence hashes) -> leaf node */
	struct htab names;	/* (hash, length) -> a name's one copy */
	struct live_node **leafv;	/* every leaf, to settle an update */
	size_t nleaves, capleaves;
	size_t nodes;
	struct arena arena;	/* nodes and names */
	uint32_t gen;		/* updates taken in */
	double decay[64];	/* the factor of 0..63 intervals */
	struct live_node **rows;	/* live_rows()'s array */
	size_t nrows, caprows;
};

static void *arena_alloc(struct arena *a, size_t len)
{
	char *p;

	len = (len + 15) & ~(size_t)15;
	if (len > a->left) {
		size_t sz = len > ARENA_CHUNK ? len : ARENA_CHUNK;
		char **v = realloc(a->chunks, (a->n + 1) * sizeof(*v));

		if (!v)
			return NULL;
		a->chunks = v;
		if (!(a->cur = calloc(1, sz)))
			return NULL;
		a->chunks[a->n++] = a->cur;
		a->left = sz;
	}
	p = a->cur;
	a->cur += len;
	a->left -= len;
	return p;
}

static void arena_free(struct arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->chunks[i]);
	free(a->chunks);
}

struct live_tree *live_tree_new(void)
{
	struct live_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->root.name = "all";
	t->root.len = 3;
	t->root.kind = OW_PF_NAME;
	t->root.open = true;
	for (int i = 0; i < 64; i++)
		t->decay[i] = pow(0.5, i / LIVE_HALF_LIFE);
	return t;
}

void live_tree_free(struct live_tree *t)
{
	if (!t)
		return;
	htab_free(&t->kids);
	htab_free(&t->leaves);
	htab_free(&t->names);
	free(t->leafv);
	free(t->rows);
	arena_free(&t->arena);
	free(t);
}

struct live_node *live_tree_root(struct live_tree *t)
{
	return &t->root;
}

uint32_t live_tree_updates(const struct live_tree *t)
{
	return t->gen;
}

size_t live_tree_stacks(const struct live_tree *t)
{
	return t->nleaves;
}

size_t live_tree_nodes(const struct live_tree *t)
{
	return t->nodes;
}

static uint64_t frame_hash(const struct ow_frame *f)
{
	return ow_hash(f->name, f->len) ^ ((uint64_t)f->kind << 56);
}

static bool same_frame(const struct live_node *n, const struct ow_frame *f)
{
	return n->kind == f->kind && n->len == f->len &&
	       !memcmp(n->name, f->name, f->len);
}

/* Append x to the growing array *v of *n (room for *cap): in the arena
 * (a node's children: freed with it, the old array left there) or
 * malloc'd (arena NULL). */
static int push(struct arena *arena, struct live_node ***v, size_t *n,
		size_t *cap, struct live_node *x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 2;	/* most nodes have one child */
		struct live_node **nv = arena ? arena_alloc(arena, c * sizeof(*nv)) :
					realloc(*v, c * sizeof(*nv));

		if (!nv)
			return -1;
		if (arena && *n)
			memcpy(nv, *v, *n * sizeof(*nv));
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* f's name, copied once (NUL-terminated) for every node of that name. */
static const char *name_of(struct live_tree *t, const struct ow_frame *f,
			   uint64_t h)
{
	char *name = htab_get(&t->names, h, f->len);

	if (name && !memcmp(name, f->name, f->len))
		return name;
	if (!(name = arena_alloc(&t->arena, f->len + 1)))
		return NULL;
	memcpy(name, f->name, f->len);
	name[f->len] = 0;
	if (!htab_get(&t->names, h, f->len) &&	/* else a collision: a copy */
	    htab_put(&t->names, h, f->len, name))
		return NULL;
	return name;
}

static uint64_t node_hash(const struct live_node *n)
{
	return ow_hash(n->name, n->len) ^ ((uint64_t)n->kind << 56);
}

/* Index n (hash h) under p, unless its key is taken (two frames of one
 * hash: the other is found, then p's children are scanned). */
static int index_kid(struct live_tree *t, struct live_node *p,
		     struct live_node *n, uint64_t h)
{
	if (htab_get(&t->kids, (uintptr_t)p, h))
		return 0;
	return htab_put(&t->kids, (uintptr_t)p, h, n);
}

/* Add n (hash h) to p's children: indexed once there are more than
 * KIDS_SCAN of them (most nodes have one: no index). */
static int add_kid(struct live_tree *t, struct live_node *p,
		   struct live_node *n, uint64_t h)
{
	size_t nk = p->nkids, cap = p->capkids;
	int r = push(&t->arena, &p->kids, &nk, &cap, n);

	if (r || nk > UINT32_MAX)
		return -1;
	p->nkids = nk;
	p->capkids = cap;
	if (p->nkids == KIDS_SCAN + 1)
		for (uint32_t i = 0; i < p->nkids && !r; i++)
			r = index_kid(t, p, p->kids[i], node_hash(p->kids[i]));
	else if (p->nkids > KIDS_SCAN + 1)
		r = index_kid(t, p, n, h);
	return r;
}

/* p's child for frame f (hash h), made when new; NULL: out of memory. */
static struct live_node *kid(struct live_tree *t, struct live_node *p,
			     const struct ow_frame *f, uint64_t h)
{
	struct live_node *n = p->nkids > KIDS_SCAN ?
			      htab_get(&t->kids, (uintptr_t)p, h) : NULL;
	const char *name;

	if (n && same_frame(n, f))
		return n;
	if (n || p->nkids <= KIDS_SCAN)	/* few, or two frames of one hash */
		for (uint32_t i = 0; i < p->nkids; i++)
			if (same_frame(p->kids[i], f))
				return p->kids[i];
	if (!(name = name_of(t, f, h)) || !(n = arena_alloc(&t->arena, sizeof(*n))))
		return NULL;
	*n = (struct live_node){
		.name = name, .len = f->len, .kind = f->kind,
		.waker = p->waker || f->kind == OW_PF_DIVIDER,
		.depth = p == &t->root ? 0 : p->depth + 1, .parent = p,
		.gen = UINT32_MAX, .dec_gen = t->gen,
	};
	if (add_kid(t, p, n, h))
		return NULL;
	t->nodes++;
	return n;
}

/* The node where s ends, made with its path when new; NULL: none (no
 * frames) or out of memory (errno). */
static struct live_node *leaf_of(struct live_tree *t, const struct ow_sample *s)
{
	uint64_t a = 0x243f6a8885a308d3ULL, b = 0x13198a2e03707344ULL;
	struct live_node *n;
	size_t used = 0;

	for (size_t i = 0; i < s->nframes; i++) {
		uint64_t h;

		h = frame_hash(&s->frames[i]);
		a = ow_hash_mix(a ^ h, 0x452821e638d01377ULL);
		b = ow_hash_mix(b + h, 0xbe5466cf34e90c6cULL + used++);
	}
	if (!used) {
		errno = 0;
		return NULL;
	}
	if ((n = htab_get(&t->leaves, a, b)))
		return n;
	n = &t->root;
	for (size_t i = 0; i < s->nframes && n; i++)
		n = kid(t, n, &s->frames[i], frame_hash(&s->frames[i]));
	if (!n)
		return NULL;
	if (htab_put(&t->leaves, a, b, n))
		return NULL;
	if (!n->leaf) {	/* else two sequences of one leaf: a hash collision */
		if (push(NULL, &t->leafv, &t->nleaves, &t->capleaves, n))
			return NULL;
		n->leaf = true;
		n->self_gen = t->gen;	/* not counted as gone below */
	}
	return n;
}

static int take_sample(void *ctx, const struct ow_sample *s)
{
	struct live_tree *t = ctx;
	struct live_node *n = leaf_of(t, s);
	int64_t v;

	if (!fg_count_int64(s->value, &v))	/* a capture's are integers */
		v = (int64_t)fg_count_double(s->value);
	if (!n)
		return errno ? -1 : 0;
	if (n->self_gen != t->gen) {
		n->self_gen = t->gen;
		n->self_new = 0;
	}
	n->self_new += v;
	return 0;
}

/* The decaying time of n brought to the update gen. */
static double decayed(const struct live_tree *t, const struct live_node *n,
		      uint32_t gen)
{
	uint32_t k = gen - n->dec_gen;

	return k < 64 ? n->dec * t->decay[k] : n->dec * pow(0.5, k / LIVE_HALF_LIFE);
}

/* Add d to n and every node above it, in update t->gen. */
static void add_up(struct live_tree *t, struct live_node *n, int64_t d)
{
	for (; n; n = n->parent) {
		if (n->gen != t->gen) {
			n->gen = t->gen;
			n->prev = n->total;
		}
		if (n->dec_gen != t->gen) {
			n->dec = decayed(t, n, t->gen);
			n->dec_gen = t->gen;
		}
		n->total += d;
		n->dec += d;
	}
}

int live_tree_update(struct live_tree *t, const struct ow_profile *p)
{
	int r;

	t->gen++;
	r = ow_profile_foreach(p, take_sample, t);
	for (size_t i = 0; i < t->nleaves; i++) {
		struct live_node *n = t->leafv[i];
		int64_t now = n->self_gen == t->gen ? n->self_new : 0;

		if (r && n->self_gen != t->gen)
			continue;	/* not seen: the walk stopped early */
		if (now != n->self) {
			add_up(t, n, now - n->self);
			n->self = now;
		}
	}
	return r ? -1 : 0;
}

double live_value(const struct live_tree *t, const struct live_node *n,
		  enum live_view v)
{
	switch (v) {
	case LIVE_INTERVAL:
		return n->gen == t->gen ? n->total - n->prev : 0;
	case LIVE_DECAY:
		return decayed(t, n, t->gen);
	default:
		return n->total;
	}
}

/* Sorting by a view: qsort_r's context. */
struct by_view {
	const struct live_tree *t;
	enum live_view v;
};

static int cmp_hot(const void *a, const void *b, void *ctx)
{
	const struct by_view *bv = ctx;
	const struct live_node *x = *(struct live_node *const *)a;
	const struct live_node *y = *(struct live_node *const *)b;
	double vx = live_value(bv->t, x, bv->v), vy = live_value(bv->t, y, bv->v);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->total != y->total)	/* then by all time */
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

void live_sort_kids(struct live_tree *t, struct live_node *n, enum live_view v)
{
	struct by_view bv = { t, v };

	if (n->nkids > 1)
		qsort_r(n->kids, n->nkids, sizeof(*n->kids), cmp_hot, &bv);
}

/*
 * Visit the nodes under the root depth first, children sorted by v, into
 * every node (all) or the open ones only, without recursion: a stack of
 * the nodes still to visit, each node's children pushed in reverse order.
 * 0, visit()'s non-zero result, or -1 when out of memory.
 */
static int walk(struct live_tree *t, enum live_view v, bool all,
		int (*visit)(struct live_node *n, void *ctx), void *ctx)
{
	struct live_node **stack = NULL, *node = &t->root;
	size_t sp = 0, cap = 0;
	int r = 0;

	for (;;) {
		if (node != &t->root && (r = visit(node, ctx)))
			break;
		if ((all || node->open) && node->nkids) {
			live_sort_kids(t, node, v);
			for (size_t i = node->nkids; i-- > 0 && !r;)
				r = push(NULL, &stack, &sp, &cap, node->kids[i]);
		}
		if (r || !sp)
			break;
		node = stack[--sp];
	}
	free(stack);
	return r;
}

/* live_rows()'s visit: ctx is the tree, and t->nrows the rows so far. */
static int add_row(struct live_node *n, void *ctx)
{
	struct live_tree *t = ctx;

	return push(NULL, &t->rows, &t->nrows, &t->caprows, n);
}

size_t live_rows(struct live_tree *t, enum live_view v,
		 struct live_node ***rows)
{
	t->nrows = 0;
	*rows = t->rows;
	if (walk(t, v, false, add_row, t))
		return 0;
	*rows = t->rows;
	return t->nrows;
}

/* n's hottest child by v (by the time since the start when v has none). */
static struct live_node *hottest(struct live_tree *t, struct live_node *n,
				 enum live_view v)
{
	struct live_node *best = NULL;
	double bv = -1;

	for (int pass = 0; pass < 2 && !best; pass++)
		for (uint32_t i = 0; i < n->nkids; i++) {
			double x = pass ? n->kids[i]->total :
				   live_value(t, n->kids[i], v);

			if (x > bv && (x > 0 || pass)) {
				bv = x;
				best = n->kids[i];
			}
		}
	return best;
}

struct live_node *live_follow(struct live_tree *t, struct live_node *n,
			      enum live_view v)
{
	struct live_node *k;

	while ((k = hottest(t, n, v))) {
		n->open = true;
		n = k;
		if (n->kind == OW_PF_DIVIDER)
			break;
	}
	return n;
}

bool live_has_text(const struct live_node *n, const char *needle)
{
	size_t len = strlen(needle);

	if (!len || len > n->len)
		return false;
	for (size_t i = 0; i + len <= n->len; i++)
		if (!strncasecmp(n->name + i, needle, len))
			return true;
	return false;
}

/* live_search()'s state and visit. */
struct search {
	const char *needle;
	const struct live_node *after;
	bool passed;
	struct live_node *first, *hit;
	size_t seen, hit_at;
};

static int visit_match(struct live_node *n, void *ctx)
{
	struct search *s = ctx;

	if (live_has_text(n, s->needle)) {
		s->seen++;
		if (!s->first)
			s->first = n;
		if (s->passed && !s->hit) {
			s->hit = n;
			s->hit_at = s->seen;
		}
	}
	if (n == s->after)
		s->passed = true;
	return 0;
}

struct live_node *live_search(struct live_tree *t, enum live_view v,
			      const char *needle, const struct live_node *after,
			      size_t *nth, size_t *count)
{
	struct search s = { needle, after, after == NULL, NULL, NULL, 0, 0 };

	*count = *nth = 0;
	if (!*needle)
		return NULL;
	walk(t, v, true, visit_match, &s);
	if (!s.hit && s.first) {	/* wrapped around */
		s.hit = s.first;
		s.hit_at = 1;
	}
	*count = s.seen;
	*nth = s.hit_at;
	for (struct live_node *n = s.hit ? s.hit->parent : NULL; n; n = n->parent)
		n->open = true;
	return s.hit;
}
