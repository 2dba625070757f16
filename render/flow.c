/* SPDX-License-Identifier: Apache-2.0 */
/*
 * flow.c - turns the ordered lines of a stack set into frame nodes.
 *
 * Like flamegraph.pl: each line gets a root frame in front; frames shared
 * with the previous line stay open, the others are closed (becoming nodes
 * keyed by name, depth and end time) and opened.  Nodes with the same
 * name, depth and end string collapse into one, the later start winning.
 * A two-count line's delta (second count minus first) goes to the leaf it
 * opens, as flamegraph.pl gives it; for "diff" (inclusive) every open
 * frame adds it, so that a frame's delta is the change of its width.
 */
#include "flow.h"
#include "par.h"
#include "vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct fg_num fg_num_from(struct pnum p)
{
	struct fg_num n;

	if (p.is_nv) {
		n.kind = 2;
		n.d = p.nv;
	} else if (p.iv < 0) {
		n.kind = 1;
		n.i = (int64_t)p.iv;
	} else {
		n.kind = 0;
		n.u = (uint64_t)p.iv;
	}
	return n;
}

struct ids {
	uint32_t *v;
	size_t n, cap;
};

static int ids_reserve(struct ids *a, size_t more)
{
	return vec_reserve((void **)&a->v, &a->cap, a->n + more, sizeof(*a->v));
}

static int ids_push(struct ids *a, uint32_t x)
{
	if (a->n == a->cap && ids_reserve(a, 1))
		return -1;
	a->v[a->n++] = x;
	return 0;
}

/*
 * The open frames, as runs: the frames one flow step opens share their
 * start time, so a run records it once for depths from..(the next run's
 * from - 1).  Runs are kept as a stack; deeper runs are newer.
 */
struct opening {
	uint32_t from;		/* first depth the step opened */
	uint32_t leaf;		/* the line's deepest frame: it gets the delta */
	double sd;		/* start as a double, for the width test */
	struct pnum start;
	struct pnum delta;
	int has_delta;
	struct pnum incl;	/* inclusive: the deltas of the lines through
				 * its still open frames, summed */
};

struct state {
	struct fg_stacks *s;
	struct fg_flow *out;
	int chain;
	int inclusive;		/* deltas summed through every frame */
	double mwt;		/* minwidth in count units */
	uint32_t dashdash;
	struct ids prev, cur;
	struct ids g;		/* chain: the last line's fields, rewritten in place */
	struct ids divs;	/* chain: positions of its ";--;" dividers */
	struct opening *open;	/* a stack of runs */
	size_t nopen, open_cap;
	struct pnum t;
	/* the group of nodes closed at the same end string */
	char gstr[64];
	int gstr_nv;		/* gstr holds the group's end (a double's string) */
	struct fg_num gend;
	struct pnum gend_prune;
	double gend_d;
	size_t gstart;
	int gflows;
	struct fg_idtab gtab;	/* (frame, depth) -> node, for gflows > 1 */
};

static int push_opening(struct state *st, const struct opening *r)
{
	if (st->nopen == st->open_cap &&
	    vec_grow((void **)&st->open, &st->open_cap, sizeof(*st->open)))
		return -1;
	st->open[st->nopen++] = *r;
	return 0;
}

static uint32_t gkey(uint32_t frame, uint32_t depth)
{
	return fg_h32(ow_hash_mix(frame, depth));
}

static int gtab_insert(struct state *st, size_t idx)
{
	struct fg_idtab *t = &st->gtab;
	const struct fg_node *nd = &st->out->nodes[idx];
	uint32_t h = gkey(nd->frame, nd->depth);
	size_t i = h & t->mask;

	while (t->slot[i].id)
		i = (i + 1) & t->mask;
	return fg_idtab_put(t, i, idx, h);
}

static long gtab_find(struct state *st, uint32_t frame, uint32_t depth)
{
	struct fg_idtab *t = &st->gtab;
	uint32_t h = gkey(frame, depth);

	for (size_t i = h & t->mask; t->slot[i].id; i = (i + 1) & t->mask) {
		size_t idx = t->slot[i].id - 1;
		const struct fg_node *nd = &st->out->nodes[idx];
		if (t->slot[i].h == h && idx >= st->gstart && nd->frame == frame &&
		    nd->depth == depth)
			return (long)idx;
	}
	return -1;
}

/* Start a flow step at time T: find or start the group of its end string.
 * Integer times are compared as integers; the string is made only when a
 * double is involved. */
static int group_at(struct state *st)
{
	char buf[64];
	int same;

	if (!st->t.is_nv && st->gend.kind == 0 && !st->gstr_nv) {
		same = st->out->n > st->gstart && (uint64_t)st->t.iv == st->gend.u;
		buf[0] = 0;
	} else {
		if (!st->gstr_nv)	/* the group's own string, made late */
			pnum_fmt(fg_num_get(st->gend), st->gstr, sizeof(st->gstr));
		pnum_fmt(st->t, buf, sizeof(buf));
		same = st->out->n > st->gstart && !strcmp(buf, st->gstr);
	}
	if (!same) {
		/* The end is read back from its string.  Perl's pruning reads
		 * that string afresh (an integral value is an exact integer);
		 * drawing first multiplies it, so there it stays a double. */
		struct pnum e = st->t;
		st->gstr_nv = e.is_nv;
		st->gend_prune = e;
		if (e.is_nv) {
			memcpy(st->gstr, buf, sizeof(buf));
			e = pnum_nv(strtod(buf, NULL));
			st->gend_prune = pnum_from_string_nv(e.nv);
		}
		st->gend = fg_num_from(e);
		st->gend_d = pnum_d(e);
		st->gstart = st->out->n;
		st->gflows = 1;
		return 0;
	}
	if (++st->gflows == 2) {
		for (size_t i = st->gstart; i < st->out->n; i++)
			if (gtab_insert(st, i))
				return -1;
	}
	return 0;
}

/* The width of the frames of a run closing now, for the minwidth test:
 * integers below 2^53 subtract exactly as doubles. */
static double run_width(const struct state *st, const struct opening *of)
{
	return !st->t.is_nv && st->t.iv < ((__int128)1 << 53) ? st->gend_d - of->sd :
	       pnum_d(pnum_sub(st->gend_prune, of->start));
}

static int close_frame(struct state *st, uint32_t frame, uint32_t depth, const struct opening *of,
		       double w)
{
	struct fg_flow *o = st->out;
	int has_delta = of->has_delta;
	struct pnum delta = st->inclusive ? of->incl : depth == of->leaf ? of->delta : pnum_iv(0);

	if (st->inclusive && has_delta && w >= st->mwt) {	/* the colour scale */
		struct pnum ad = pnum_cmp(delta, pnum_iv(0)) < 0 ? pnum_sub(pnum_iv(0), delta) : delta;
		if (pnum_cmp(ad, o->maxdelta) > 0)
			o->maxdelta = ad;
	}

	if (st->gflows > 1) {
		/* a node with the same name, depth and end string: Perl keeps
		 * one entry, with this later start, and tests its width again */
		long idx = gtab_find(st, frame, depth);
		if (idx >= 0) {
			o->nodes[idx].start = fg_num_from(of->start);
			if (has_delta) {
				o->nodes[idx].delta = fg_num_from(delta);
				o->nodes[idx].has_delta = 1;
			}
			o->nodes[idx].dropped = w < st->mwt;
			return 0;
		}
	}
	if (w < st->mwt)
		return 0;
	if (o->n == o->cap && vec_grow((void **)&o->nodes, &o->cap, sizeof(*o->nodes)))
		return -1;
	struct fg_node *nd = &o->nodes[o->n++];
	nd->frame = frame;
	nd->depth = depth;
	nd->start = fg_num_from(of->start);
	nd->end = st->gend;
	nd->has_delta = (uint8_t)has_delta;
	nd->dropped = 0;
	if (has_delta)
		nd->delta = fg_num_from(delta);
	if (st->gflows > 1)
		return gtab_insert(st, o->n - 1);
	return 0;
}

/* One flow() call: close what differs from the previous line, open the
 * new.  The first `same` frames are known to be equal. */
static int flow(struct state *st, const struct pnum *d, size_t same)
{
	struct ids *a = &st->prev, *b = &st->cur;

	while (same < a->n && same < b->n && a->v[same] == b->v[same])
		same++;
	if (a->n > same || b->n > same) {
		if (a->n > same && group_at(st))
			return -1;
		/* the frames close deepest first, a run at a time; a run
		 * narrower than minwidth goes at once, unless a node of the
		 * group might be its frames' twin */
		for (size_t i = a->n; i > same;) {
			while (st->open[st->nopen - 1].from > i - 1)
				st->nopen--;	/* that run is closed */
			const struct opening *of = &st->open[st->nopen - 1];
			size_t lo = of->from > same ? of->from : same;
			double w = run_width(st, of);
			if (w < st->mwt && st->gflows <= 1) {
				i = lo;
				continue;
			}
			for (; i > lo; i--)
				if (close_frame(st, a->v[i - 1], i - 1, of, w))
					return -1;
		}
		while (st->nopen && st->open[st->nopen - 1].from >= same)
			st->nopen--;
		if (b->n > same) {
			struct opening r = { (uint32_t)same, (uint32_t)(b->n - 1), pnum_d(st->t),
					     st->t, d ? *d : pnum_iv(0), d != NULL, pnum_iv(0) };
			if (push_opening(st, &r))
				return -1;
		}
	}
	struct ids tmp = *a;
	*a = *b;
	*b = tmp;
	return 0;
}

/*
 * Perl: split(";--;", stack), annotate later parts, join again (spec
 * §3.3).  Field i keeps its position: it becomes "--" where it divides
 * (a "--" field with a ';' on both sides, not right after the previous
 * divider), itself before the first divider, its waker name ("_[w]")
 * after.  Fields [0, same) are the last line's, so their rewrite in g
 * and their dividers are kept.
 */
static int chain_fields(struct state *st, const uint32_t *f, size_t n, size_t same)
{
	struct ids *g = &st->g, *divs = &st->divs;
	uint32_t dd = st->dashdash;

	if (same > g->n)
		same = g->n;
	while (divs->n && divs->v[divs->n - 1] >= same)
		divs->n--;
	g->n = same;
	if (ids_reserve(g, n - same))
		return -1;
	for (size_t i = same; i < n; i++) {
		if (f[i] == dd && i >= 1 && i + 1 < n &&
		    (!divs->n || divs->v[divs->n - 1] != i - 1)) {
			if (ids_push(divs, i))
				return -1;
			g->v[i] = dd;
		} else if (divs->n) {
			if ((g->v[i] = fg_frame_waker(st->s, f[i])) == FG_NONE)
				return -1;
		} else {
			g->v[i] = f[i];
		}
	}
	g->n = n;
	return 0;
}

/* The rewritten line after the root: split drops trailing empty parts
 * (a single empty field each); with one part left, join leaves ";--;"
 * and an empty field after it, with none, a lone empty field before. */
static int chain_rewrite(struct state *st, const uint32_t *f, size_t n, size_t same,
			 struct ids *out)
{
	const struct ids *divs = &st->divs;

	if (chain_fields(st, f, n, same))
		return -1;
	size_t nparts = divs->n + 1, np = nparts;	/* np: those kept */
#define PART_START(k) ((k) ? divs->v[(k) - 1] + 1 : 0)
#define PART_END(k) ((k) + 1 < nparts ? divs->v[k] : n)
	while (np && PART_END(np - 1) - PART_START(np - 1) == 1 && f[PART_START(np - 1)] == 0)
		np--;
	size_t end = np ? PART_END(np - 1) : 0;
#undef PART_START
#undef PART_END
	if (ids_reserve(out, end + 3))
		return -1;
	if (!np)	/* undef . ";--;" */
		out->v[out->n++] = 0;
	memcpy(out->v + out->n, st->g.v, end * sizeof(*out->v));
	out->n += end;
	if (np <= 1) {	/* first . ";--;" leaves an empty last field */
		out->v[out->n++] = st->dashdash;
		out->v[out->n++] = 0;
	}
	return 0;
}

static int on_line(void *ctx, const struct fg_line *l)
{
	struct state *st = ctx;
	struct ids *cur = &st->cur;
	struct pnum c1 = fg_textcount_pnum(l->info->c1), delta, *d = NULL;

	cur->n = 0;
	if (ids_push(cur, 0))	/* the root */
		return -1;
	if (st->chain) {
		if (chain_rewrite(st, l->fields, l->nfields, l->same, cur))
			return -1;
	} else {
		if (ids_reserve(cur, l->nfields + 1))
			return -1;
		memcpy(cur->v + cur->n, l->fields, l->nfields * sizeof(*cur->v));
		cur->n += l->nfields;
	}
	while (cur->n > 1 && cur->v[cur->n - 1] == 0)	/* trailing empty fields */
		cur->n--;
	struct pnum width = c1;
	if (l->info->two) {
		width = fg_textcount_pnum(l->info->c2);
		delta = pnum_sub(width, c1);
		struct pnum ad = pnum_cmp(delta, pnum_iv(0)) < 0 ? pnum_sub(pnum_iv(0), delta) : delta;
		if (!st->inclusive && pnum_cmp(ad, st->out->maxdelta) > 0)
			st->out->maxdelta = ad;
		d = &delta;
	}
	/* the first same fields are the last line's: so is their rewrite
	 * (a field's depends only on the fields before it, and the last
	 * field differs), up to where either line was cut short */
	size_t same = 1 + l->same;
	if (same > st->prev.n)
		same = st->prev.n;
	if (same > cur->n)
		same = cur->n;
	if (flow(st, d, same))
		return -1;
	if (d && st->inclusive) {	/* every frame of the line spans it */
		struct pnum dm = l->mult == 1 ? *d : pnum_mul(*d, pnum_iv(l->mult));
		for (size_t i = 0; i < st->nopen; i++)
			st->open[i].incl = pnum_add(st->open[i].incl, dm);
	}
	/* identical lines: T += width once per line, exactly as Perl adds */
	if (!width.is_nv && !st->t.is_nv &&
	    (width.iv == 0 || (__int128)l->mult <= ((__int128)UINT64_MAX - st->t.iv) / width.iv)) {
		st->t = pnum_iv(st->t.iv + (__int128)l->mult * width.iv);
		return 0;
	}
	for (uint64_t m = 0; m < l->mult; m++)
		st->t = pnum_add(st->t, width);
	return 0;
}

static int add_width(void *ctx, const struct fg_line *l)
{
	struct pnum *t = ctx;

	*t = pnum_add(*t, fg_textcount_pnum(l->info->two ? l->info->c2 : l->info->c1));
	return 0;
}

int fg_flow_total(struct fg_stacks *s, int flamechart, struct pnum *total)
{
	if (fg_stacks_exact_total(s, total))
		return 0;
	*total = pnum_iv(0);
	return fg_stacks_walk(s, !flamechart, 1, add_width, total);
}

size_t fg_flow_parallel_min = 50000;

static int state_init(struct state *st, struct fg_stacks *s, struct fg_flow *out, int chain,
		      int inclusive, double mwt, uint32_t dashdash, struct pnum t0)
{
	memset(st, 0, sizeof(*st));
	memset(out, 0, sizeof(*out));
	st->s = s;
	st->out = out;
	st->chain = chain;
	st->inclusive = inclusive;
	st->mwt = mwt;
	st->dashdash = dashdash;
	st->t = t0;
	out->maxdelta = pnum_iv(1);
	return fg_idtab_init(&st->gtab, 64);
}

static void state_free(struct state *st)
{
	free(st->prev.v);
	free(st->cur.v);
	free(st->g.v);
	free(st->divs.v);
	free(st->open);
	fg_idtab_free(&st->gtab);
}

/* The last flow step: close every frame (but the root, when more lines
 * come after these). */
static int close_all(struct state *st, int keep_root)
{
	st->cur.n = 0;
	if (keep_root && ids_push(&st->cur, 0))
		return -1;
	return flow(st, NULL, 0);
}

/*
 * One half of a walk cut where two lines share only the root: the first
 * half closes all but the root; the second starts with the root open
 * since 0 and the time at the sum of the first half's widths.  Node for
 * node, the two give what one walk gives.
 */
struct half {
	struct state st;
	struct fg_flow out;
	size_t lo, hi;
	int ret;
};

static void *walk_half(void *arg)
{
	struct half *h = arg;

	h->ret = fg_stacks_walk_range(h->st.s, h->lo, h->hi, on_line, &h->st);
	if (!h->ret)
		h->ret = close_all(&h->st, h->hi < fg_stacks_lines(h->st.s));
	return NULL;
}

/* Every waker name the chain rewrite can ask for, interned beforehand:
 * the two halves then only read the frame table. */
static int intern_wakers(struct fg_stacks *s)
{
	for (size_t f = 0, n = fg_frame_count(s); f < n; f++)
		if (fg_frame_waker(s, (uint32_t)f) == FG_NONE)
			return -1;
	return 0;
}

static int build_halves(struct fg_stacks *s, size_t k, uint64_t before, int chain, double mwt,
			uint32_t dashdash, struct fg_flow *out)
{
	struct half h[2];
	struct opening root = { 0, 0, 0, pnum_iv(0), pnum_iv(0), 0, pnum_iv(0) };
	int ret = -1;

	if (chain && intern_wakers(s))
		return -1;
	/* both made (|, not ||), so both can be freed */
	if (state_init(&h[0].st, s, &h[0].out, chain, 0, mwt, dashdash, pnum_iv(0)) |
	    state_init(&h[1].st, s, &h[1].out, chain, 0, mwt, dashdash, pnum_iv(before)))
		goto out;
	h[0].lo = 0;
	h[0].hi = k;
	h[1].lo = k;
	h[1].hi = fg_stacks_lines(s);
	if (ids_push(&h[1].st.prev, 0) || push_opening(&h[1].st, &root))
		goto out;
	fg_both(walk_half, &h[1], &h[0]);
	if (h[0].ret || h[1].ret) {
		errno = ENOMEM;	/* a walk fails only to grow (errno is per thread) */
		goto out;
	}
	struct fg_flow *a = &h[0].out, *b = &h[1].out;
	if (pnum_cmp(b->maxdelta, a->maxdelta) > 0)
		a->maxdelta = b->maxdelta;
	if (vec_reserve((void **)&a->nodes, &a->cap, a->n + b->n, sizeof(*a->nodes)))
		goto out;
	memcpy(a->nodes + a->n, b->nodes, b->n * sizeof(*b->nodes));
	*out = *a;
	out->n = a->n + b->n;
	out->total = h[1].st.t;
	a->nodes = NULL;
	ret = 0;
out:
	state_free(&h[0].st);
	state_free(&h[1].st);
	fg_flow_free(&h[0].out);
	fg_flow_free(&h[1].out);
	return ret;
}

int fg_flow_build(struct fg_stacks *s, int flamechart, int chain, int inclusive,
		  double minwidth_time, struct fg_flow *out)
{
	/* the chain rewrite's divider ("--" joins the parts it splits) */
	uint32_t dashdash = chain ? fg_frame_intern(s, "--", 2) : FG_NONE;
	uint64_t before;
	struct state st;
	size_t k;
	int ret;

	if (chain && dashdash == FG_NONE)
		return -1;
	/* (inclusive deltas run through the root: one walk) */
	if (!flamechart && !inclusive && fg_stacks_lines(s) >= fg_flow_parallel_min &&
	    (k = fg_stacks_split(s, &before)))
		return build_halves(s, k, before, chain, minwidth_time, dashdash, out);
	ret = state_init(&st, s, out, chain, inclusive, minwidth_time, dashdash, pnum_iv(0));
	if (!ret)
		ret = fg_stacks_walk(s, !flamechart, 0, on_line, &st);
	if (!ret)
		ret = close_all(&st, 0);
	out->total = st.t;
	state_free(&st);
	return ret;
}

void fg_flow_free(struct fg_flow *f)
{
	free(f->nodes);
	f->nodes = NULL;
	f->n = f->cap = 0;
}
