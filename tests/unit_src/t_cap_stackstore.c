// SPDX-License-Identifier: Apache-2.0
/*
 * t_cap_stackstore.c - unit tests of the capture's stack store
 * (src/capture/stackstore.c): records kept by their hash reference, a
 * resent stack keeping its first copy, malformed records counted, and the
 * lifetime of stacks: held by lineages, kept for good, given up after
 * max_idle idle sweeps in two steps (forget(), then freed()), a use or a
 * resend putting that off, interrupt wakeups' stacks idle at once, and
 * nothing given up without address randomisation.  No root, no BPF.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "capture/stackstore.h"
#include "check.h"

#define IDLE	3

/* What the callbacks were told, in order. */
struct calls {
	uint64_t forgot[16], freed[16];
	int nforgot, nfreed;
};

static void on_forget(void *ctx, uint64_t ref)
{
	struct calls *c = ctx;

	if (c->nforgot < 16)
		c->forgot[c->nforgot++] = ref;
}

static void on_freed(void *ctx, uint64_t ref)
{
	struct calls *c = ctx;

	if (c->nfreed < 16)
		c->freed[c->nfreed++] = ref;
}

static void init(struct stacks *s, struct calls *c)
{
	memset(s, 0, sizeof(*s));
	memset(c, 0, sizeof(*c));
	s->max_idle = IDLE;
	s->forget = on_forget;
	s->freed = on_freed;
	s->ctx = c;
}

/* Send the stack ref of n frames first, first + 1, ... as the kernel does. */
static int send(struct stacks *s, uint64_t ref, uint32_t n, uint64_t first)
{
	struct ow_stack rec = { .type = OW_EV_STACK, .nr = n, .hash = ref };

	for (uint32_t i = 0; i < n; i++)
		rec.ips[i] = first + i;
	return stacks_add(s, &rec, offsetof(struct ow_stack, ips) +
			  n * sizeof(rec.ips[0]));
}

/* A new store with one stack, ref, that its one lineage dropped. */
static void idle_stack(struct stacks *s, struct calls *c, uint64_t ref)
{
	init(s, c);
	send(s, ref, 4, 0x7f0000001000);
	stacks_hold(s, ref);
	stacks_drop(s, ref);
}

static void sweeps(struct stacks *s, int n)
{
	while (n--)
		stacks_sweep(s);
}

static void test_store(void)
{
	struct stacks s;
	struct calls c;
	struct ow_stack rec = { .type = OW_EV_STACK, .nr = 2,
				.hash = OW_STACK_HASH | 9 };
	const struct rawstack *r;
	size_t head = offsetof(struct ow_stack, ips);

	init(&s, &c);
	send(&s, OW_STACK_HASH | 1, 3, 0x1000);
	send(&s, OW_STACK_HASH | 2, 1, 0x2000);
	send(&s, OW_STACK_HASH | 1, 2, 0x9000);	/* resent: first copy kept */
	r = stacks_get(&s, OW_STACK_HASH | 1);
	check(r && r->nr == 3 && r->ips[0] == 0x1000 && r->ips[2] == 0x1002,
	      "stackstore: kept by reference, leaf first, first copy kept",
	      "nr %u ips[0] %#llx", r ? r->nr : 0,
	      r ? (unsigned long long)r->ips[0] : 0ULL);
	check(s.tab.used == 2, "stackstore: a resent stack is stored once",
	      "%zu stored", s.tab.used);
	check(!stacks_get(&s, OW_STACK_HASH | 3) && !stacks_get(&s, 1) &&
	      !stacks_get(&s, OW_NO_STACK),
	      "stackstore: unknown references and errnos name no stack",
	      "%s", "one gave a stack");
	stacks_add(&s, &rec, head - 1);			/* short header */
	stacks_add(&s, &rec, head + 8);			/* short frames */
	rec.hash = 9;					/* no hash bit */
	stacks_add(&s, &rec, head + 16);
	rec.hash = OW_STACK_HASH | 9;
	rec.nr = OW_MAX_STACK_DEPTH + 1;		/* too deep */
	stacks_add(&s, &rec, sizeof(rec));
	check(s.bad == 4 && s.tab.used == 2,
	      "stackstore: malformed records counted, not stored",
	      "bad %llu, %zu stored", (unsigned long long)s.bad, s.tab.used);
	stacks_free(&s);
}

/* Dropped by its one lineage: forgotten after IDLE sweeps, freed after
 * IDLE more, each callback once, with the reference. */
static void test_give_up(void)
{
	struct stacks s;
	struct calls c;
	uint64_t ref = OW_STACK_HASH | 5;

	idle_stack(&s, &c, ref);
	send(&s, OW_STACK_HASH | 6, 1, 0x10);	/* never held: kept */
	sweeps(&s, IDLE - 1);
	check(!c.nforgot, "stackstore: not given up before max_idle sweeps",
	      "forgot after %d sweeps", IDLE - 1);
	stacks_get(&s, ref);		/* a use: the count starts over */
	sweeps(&s, 1);
	check(!c.nforgot, "stackstore: a use puts giving up off",
	      "forgot %d", c.nforgot);
	sweeps(&s, IDLE - 1);
	check(c.nforgot == 1 && c.forgot[0] == ref && !c.nfreed &&
	      stacks_get(&s, ref),
	      "stackstore: step one after max_idle idle sweeps: forget(), kept",
	      "forgot %d freed %d", c.nforgot, c.nfreed);
	sweeps(&s, IDLE - 1);
	stacks_get(&s, ref);
	sweeps(&s, 1);
	check(c.nfreed == 0, "stackstore: a use after step one puts step two off",
	      "freed %d", c.nfreed);
	sweeps(&s, IDLE - 1);
	check(c.nfreed == 1 && c.freed[0] == ref && c.nforgot == 1 &&
	      s.given_up == 1 && !stacks_get(&s, ref) && s.tab.used == 1,
	      "stackstore: step two after max_idle more: freed(), gone",
	      "forgot %d freed %d given up %llu, %zu stored", c.nforgot,
	      c.nfreed, (unsigned long long)s.given_up, s.tab.used);
	sweeps(&s, 3 * IDLE);
	check(c.nfreed == 1 && c.nforgot == 1 && !s.nidle,
	      "stackstore: given up once, idle list empty after",
	      "forgot %d freed %d idle %zu", c.nforgot, c.nfreed, s.nidle);
	stacks_free(&s);
}

/* A resend after step one (the kernel side sent it again) keeps it. */
static void test_resend(void)
{
	struct stacks s;
	struct calls c;
	uint64_t ref = OW_STACK_HASH | 7;

	idle_stack(&s, &c, ref);
	sweeps(&s, IDLE);
	send(&s, ref, 4, 0x7f0000001000);
	sweeps(&s, IDLE);
	check(c.nforgot == 2 && !c.nfreed && stacks_get(&s, ref),
	      "stackstore: a resend after step one starts over",
	      "forgot %d freed %d", c.nforgot, c.nfreed);
	stacks_free(&s);
}

/* Two lineages, kept, fixed: never given up; held again: taken off. */
static void test_kept(void)
{
	struct stacks s;
	struct calls c;
	uint64_t two = OW_STACK_HASH | 1, kept = OW_STACK_HASH | 2,
		 again = OW_STACK_HASH | 3, fixed = OW_STACK_HASH | 4;

	init(&s, &c);
	for (uint64_t r = two; r <= again; r++)
		send(&s, r, 1, r);
	stacks_hold(&s, two);
	stacks_hold(&s, two);
	stacks_drop(&s, two);		/* two lineages: kept */
	stacks_hold(&s, kept);
	stacks_keep(&s, kept);
	stacks_drop(&s, kept);
	stacks_hold(&s, again);
	stacks_drop(&s, again);
	stacks_hold(&s, again);		/* before any sweep */
	sweeps(&s, 4 * IDLE);
	check(!c.nforgot && !c.nfreed && s.tab.used == 3 && !s.nidle,
	      "stackstore: stacks of two lineages, kept or held again stay",
	      "forgot %d freed %d, %zu stored, %zu idle", c.nforgot, c.nfreed,
	      s.tab.used, s.nidle);
	stacks_free(&s);

	init(&s, &c);
	s.fixed = true;
	send(&s, fixed, 1, 1);
	stacks_hold(&s, fixed);
	stacks_drop(&s, fixed);
	sweeps(&s, 4 * IDLE);
	check(!c.nforgot && !c.nfreed && stacks_get(&s, fixed),
	      "stackstore: nothing given up without address randomisation",
	      "forgot %d freed %d", c.nforgot, c.nfreed);
	stacks_free(&s);
}

/* An interrupt wakeup's kernel stack: idle at once, unless held. */
static void test_transient(void)
{
	struct stacks s;
	struct calls c;
	uint64_t irq = OW_STACK_HASH | 11, held = OW_STACK_HASH | 12;

	init(&s, &c);
	send(&s, irq, 3, 0xffffffff81000000);
	send(&s, held, 3, 0xffffffff82000000);
	stacks_hold(&s, held);
	stacks_transient(&s, irq);
	stacks_transient(&s, held);
	sweeps(&s, 2 * IDLE);
	check(c.nforgot == 1 && c.nfreed == 1 && c.freed[0] == irq &&
	      !stacks_get(&s, irq) && stacks_get(&s, held),
	      "stackstore: transient stacks given up after 2 x max_idle",
	      "forgot %d freed %d", c.nforgot, c.nfreed);
	stacks_free(&s);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_store();
	test_give_up();
	test_resend();
	test_kept();
	test_transient();
	return failed;
}
