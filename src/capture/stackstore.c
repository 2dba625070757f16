// SPDX-License-Identifier: Apache-2.0
/*
 * stackstore.c - the stack store of stackstore.h.  The kernel side sends a stack
 * again when its hash fell out of its "seen" cache; the copy we have is
 * kept.  User stacks hold addresses of one address space: with address
 * space randomisation each exec'd process and its forks have stacks of
 * their own, so a fork storm would fill the store with stacks no live
 * process can take again; they are given up with their lineage.  Not at
 * once: a key drained after an exec is resolved in the new lineage, yet
 * may name a stack of the old one that its other processes still use, so
 * a stack is only given up once it was not used for STACKS_IDLE sweeps
 * (half a minute: no key on the way names it, unless a task of another
 * lineage with the very same addresses blocked all that time).  A stack
 * whose addresses are not randomised (code of a non-PIE program), or that
 * two lineages used, is kept, as is every stack without randomisation.
 * Kernel stacks are kept too (the same code paths recur), except those of
 * wakeups from interrupts (stacks_transient()): below the interrupt they
 * hold whatever the CPU was running, so a busy system makes a hundred
 * new ones a second (a 10-minute soak: 100,000, nearly all its kernel
 * stacks), each used by a key drained within a second of being taken.
 *
 * Giving up takes two steps.  The kernel side uses a stack it has sent
 * without sending it again, and a key names it only when its block ends:
 * so first the kernel side is told to forget it (forget()), which makes
 * any later use send it again, and only after another max_idle sweeps
 * without a use or a resend is it freed.  (Freeing at once lost the
 * stacks of blocks that began just before: non-PIE programs such as gcc's
 * cc1 give every process of a build some of the very same stacks.)  Only
 * a block begun before the first step and reported after the second, more
 * than STACKS_IDLE seconds later, could still miss its stack; it would be
 * counted ("stacks never received").  A stack freed is also dropped from
 * the caches keyed by its reference (freed()).
 */
#include <stdlib.h>
#include <string.h>
#include "stackstore.h"
#include "common/util.h"

void stacks_free(struct stacks *s)
{
	for (size_t i = 0; i < s->tab.size; i++)
		free(s->tab.tab[i].val);
	htab_free(&s->tab);
	free(s->idle);
}

int stacks_add(struct stacks *s, const struct ow_stack *rec, size_t len)
{
	size_t head = offsetof(struct ow_stack, ips);
	struct rawstack *r;

	if (len < head || rec->nr > OW_MAX_STACK_DEPTH ||
	    len < head + rec->nr * sizeof(rec->ips[0]) ||
	    !(rec->hash & OW_STACK_HASH)) {
		s->bad++;
		return 0;
	}
	r = htab_get(&s->tab, rec->hash, 0);
	if (r) {		/* sent again: in use again */
		r->used = s->sweeps;
		r->unseen = false;
		return 0;
	}
	r = malloc(sizeof(*r) + rec->nr * sizeof(r->ips[0]));
	if (!r)
		return -1;
	r->nr = rec->nr;
	r->holders = 0;
	r->used = s->sweeps;
	r->unseen = false;
	memcpy(r->ips, rec->ips, rec->nr * sizeof(r->ips[0]));
	if (htab_put(&s->tab, rec->hash, 0, r) < 0) {
		free(r);
		return -1;
	}
	return 0;
}

const struct rawstack *stacks_get(struct stacks *s, uint64_t ref)
{
	struct rawstack *r;

	if (!(ref & OW_STACK_HASH))
		return NULL;
	r = htab_get(&s->tab, ref, 0);
	if (r)
		r->used = s->sweeps;
	return r;
}

void stacks_hold(struct stacks *s, uint64_t ref)
{
	struct rawstack *r = htab_get(&s->tab, ref, 0);

	if (r && r->holders < STACKS_KEPT)
		r->holders++;
}

void stacks_keep(struct stacks *s, uint64_t ref)
{
	struct rawstack *r = htab_get(&s->tab, ref, 0);

	if (r)
		r->holders = STACKS_KEPT;
}

void stacks_drop(struct stacks *s, uint64_t ref)
{
	struct rawstack *r = htab_get(&s->tab, ref, 0);

	if (!r || r->holders != 1)
		return;
	r->holders = 0;
	if (!s->fixed && !ow_grow(&s->idle, &s->idlecap, s->nidle,
				  sizeof(*s->idle)))
		s->idle[s->nidle++] = ref;	/* (else kept) */
}

void stacks_transient(struct stacks *s, uint64_t ref)
{
	struct rawstack *r = htab_get(&s->tab, ref, 0);

	if (r && !r->holders && !ow_grow(&s->idle, &s->idlecap, s->nidle,
					 sizeof(*s->idle)))
		s->idle[s->nidle++] = ref;	/* (else kept) */
}

void stacks_sweep(struct stacks *s)
{
	size_t n = 0;

	s->sweeps++;
	for (size_t i = 0; i < s->nidle; i++) {
		uint64_t ref = s->idle[i];
		struct rawstack *r = htab_get(&s->tab, ref, 0);

		if (!r || r->holders)	/* given up already, or held again */
			continue;
		if (s->sweeps - r->used >= s->max_idle) {
			if (r->unseen) {	/* step two */
				htab_del(&s->tab, ref, 0);
				free(r);
				s->given_up++;
				if (s->freed)
					s->freed(s->ctx, ref);
				continue;
			}
			r->unseen = true;	/* step one */
			r->used = s->sweeps;
			if (s->forget)
				s->forget(s->ctx, ref);
		}
		s->idle[n++] = ref;
	}
	s->nidle = n;
}
