// SPDX-License-Identifier: Apache-2.0
/*
 * native_walk.c - the native unwinder's walk over a copy of a user stack
 * (see native_walk.h): for a deferred stack, once its process's tables
 * are in.  Rule for rule the BPF walker's uw_step() (a change to one is a
 * change to the other): for each frame, the mapping of the umaps entry
 * holding the pc, the last row at or below it, the CFA from the row, the
 * return address at CFA - 8 and the caller's rbp (and rbx) where the row
 * says, realigned frames (DRAP) by their saved CFA;
 * where no table covers the pc, one frame by rbp (unless cfi_only), or
 * the end at a context's entry.  A
 * read outside the copy ends the walk (UW_WALK_COPY): never a guess.
 */
#include <string.h>
#include "native_walk.h"

#define STACK_SPAN	(64ULL << 20)	/* as the BPF walker */
#define SIGCONTEXT_RBP	80		/* struct sigcontext_64 */
#define SIGCONTEXT_RBX	88
#define SIGCONTEXT_RSP	120
#define SIGCONTEXT_RIP	128

struct walk {
	const struct uw_walker *w;
	const struct uw_regs *r;
	uint64_t ip, sp, bp, low;
	uint64_t bx;		/* rbx, when bx_ok */
	bool exact;
	bool bx_ok;
	bool unmapped;		/* a pc in no mapping of the entry */
};

/* 8 bytes of the copy at addr; false outside it. */
static bool rd(const struct walk *k, uint64_t addr, uint64_t *v)
{
	uint64_t off = addr - k->r->sp;

	if (addr < k->r->sp || off > k->r->len || k->r->len - off < sizeof(*v))
		return false;
	memcpy(v, k->r->stack + off, sizeof(*v));
	return true;
}

/* The row for the frame's pc (pc - the mapping's adj in *rel), or NULL
 * (no mapping: k->unmapped, no row). */
static const struct ow_urow *find_row(struct walk *k, uint64_t pc,
				      uint32_t *rel)
{
	const struct ow_umaps *um = k->w->um;
	uint32_t lo = 0, hi, mid, n;
	const struct ow_umap *m;
	uint64_t off;

	if (!um)
		return NULL;
	hi = um->n > OW_UMAPS ? OW_UMAPS : um->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (um->m[mid].start <= k->ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || k->ip >= um->m[lo - 1].end) {
		k->unmapped = true;
		return NULL;
	}
	m = &um->m[lo - 1];
	if (m->first > k->w->nrows || m->nrows > k->w->nrows - m->first)
		return NULL;
	off = pc - m->adj;
	if (off > UINT32_MAX)
		return NULL;
	*rel = (uint32_t)off;
	lo = 0;
	n = hi = m->nrows;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->w->rows[m->first + mid].pc <= *rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && n ? &k->w->rows[m->first + lo - 1] : NULL;
}

/* One frame by rbp where the table has nothing to follow (why: no row,
 * or a rule not followed); -1: the walk stops (*end set). */
static int step_fp(struct walk *k, enum uw_walk_end why, enum uw_walk_end *end)
{
	uint64_t fp = k->bp, next_bp, ra;

	if (k->w->cfi_only || fp < k->low || fp - k->sp >= STACK_SPAN) {
		*end = why;
		return -1;
	}
	if (!rd(k, fp, &next_bp) || !rd(k, fp + 8, &ra)) {
		*end = UW_WALK_COPY;
		return -1;
	}
	k->ip = ra;
	k->sp = k->low = fp + 16;
	k->bp = next_bp;
	k->exact = false;
	k->bx_ok = false;	/* saved somewhere no table says */
	return 0;
}

/* A realigned frame (OW_DRAP_RULE): the CFA saved at rbp + 8 * r->rbp,
 * rbp where rbp points; -1: the walk stops (*end set). */
static int step_drap(struct walk *k, const struct ow_urow *r,
		     enum uw_walk_end *end)
{
	uint64_t cfa, bp, ra;

	if (!rd(k, k->bp + 8 * (int64_t)r->rbp, &cfa) || !rd(k, k->bp, &bp)) {
		*end = UW_WALK_COPY;
		return -1;
	}
	if (cfa <= k->sp || cfa - k->sp >= STACK_SPAN) {
		*end = UW_WALK_BAD;
		return -1;
	}
	if (!rd(k, cfa - 8, &ra)) {
		*end = UW_WALK_COPY;
		return -1;
	}
	if (r->rbx)
		k->bx_ok = false;
	k->ip = ra;
	k->bp = bp;
	k->sp = k->low = cfa;
	k->exact = false;
	return 0;
}

/* One frame by the row r; -1: the walk stops (*end set). */
static int step_row(struct walk *k, const struct ow_urow *r,
		    enum uw_walk_end *end)
{
	uint64_t cfa, ra, v[3];

	switch (r->cfa) {
	case OW_CFA_RSP:
		cfa = k->sp + r->off;
		break;
	case OW_CFA_RSP_X8:
		cfa = k->sp + 8 * (uint64_t)(uint16_t)r->off;
		break;
	case OW_CFA_RBP:
		cfa = k->bp + r->off;
		break;
	case OW_CFA_PLT:
		cfa = k->sp + 8 + ((k->ip & 15) >= (uint64_t)r->off ? 8 : 0);
		break;
	case OW_CFA_RBX:
		if (!k->bx_ok) {
			*end = UW_WALK_RULE;
			return -1;
		}
		cfa = k->bx + r->off;
		break;
	case OW_CFA_END:
		*end = UW_WALK_END;
		return -1;
	case OW_CFA_SIGNAL:
		cfa = k->sp + r->off;
		if (!rd(k, cfa + SIGCONTEXT_RBP, &v[0]) ||
		    !rd(k, cfa + SIGCONTEXT_RSP, &v[1]) ||
		    !rd(k, cfa + SIGCONTEXT_RIP, &v[2])) {
			*end = UW_WALK_COPY;
			return -1;
		}
		k->bp = v[0];
		k->sp = k->low = v[1];
		k->ip = v[2];
		k->bx_ok = rd(k, cfa + SIGCONTEXT_RBX, &k->bx);
		k->exact = true;
		return 0;
	default:
		*end = UW_WALK_RULE;
		return -1;
	}
	if (cfa <= k->sp || cfa - k->sp >= STACK_SPAN) {
		*end = UW_WALK_BAD;
		return -1;
	}
	if (!rd(k, cfa - 8, &ra) ||
	    (r->rbp && !rd(k, cfa + 8 * (int64_t)r->rbp, &k->bp))) {
		*end = UW_WALK_COPY;
		return -1;
	}
	if (r->rbx == OW_RBX_LOST)
		k->bx_ok = false;
	else if (r->rbx)	/* (outside the copy: not known above) */
		k->bx_ok = rd(k, cfa - 8 * (uint64_t)r->rbx, &k->bx);
	k->ip = ra;
	k->sp = k->low = cfa;
	k->exact = false;
	return 0;
}

/* Whether the return address k->ip (its byte before in no table's range)
 * is the first byte of one: a frame entered by a pushed address, not a
 * call (makecontext's __start_context): the stack's outermost frame. */
static bool at_entry(struct walk *k)
{
	uint32_t rel;
	const struct ow_urow *row = find_row(k, k->ip, &rel);

	return row && row->pc == rel && row->cfa != OW_CFA_NONE;
}

/* The walk of uw_walk_copy(), from k's registers. */
static size_t walk_regs(struct walk *k, __u64 *ips, size_t max,
			enum uw_walk_end *end)
{
	const struct ow_urow *row;
	uint32_t rel;
	size_t n = 0;

	for (;;) {
		if (n >= max) {
			*end = UW_WALK_DEPTH;
			return n;
		}
		if (k->ip < 4096) {	/* a null return address: the end */
			*end = UW_WALK_END;
			return n;
		}
		ips[n++] = k->ip;
		row = find_row(k, k->ip - !k->exact, &rel);
		if (row && row->cfa == OW_CFA_NONE && row->off == OW_DRAP_RULE) {
			if (step_drap(k, row, end))
				return n;
		} else if (row && row->cfa == OW_CFA_NONE && row->off == OW_NONE_RULE) {
			if (row->rbp != -2) {	/* no frame pointer's layout */
				*end = UW_WALK_RULE;
				return n;
			}
			if (step_fp(k, UW_WALK_RULE, end))
				return n;
		} else if (!row || row->cfa == OW_CFA_NONE) {
			if (!k->exact && at_entry(k)) {
				*end = UW_WALK_ENTRY;
				return n;
			}
			if (step_fp(k, UW_WALK_NOTABLE, end))
				return n;
		} else if (step_row(k, row, end)) {
			return n;
		}
	}
}

size_t uw_walk_copy(const struct uw_walker *w, const struct uw_regs *r,
		    __u64 *ips, size_t max, enum uw_walk_end *end,
		    bool *unmapped)
{
	struct walk k = { w, r, r->ip, r->sp, r->bp, r->sp, r->bx, true, true,
			  false };
	size_t n = walk_regs(&k, ips, max, end);

	if (unmapped)
		*unmapped = k.unmapped;
	return n;
}
