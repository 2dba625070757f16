// SPDX-License-Identifier: Apache-2.0
/*
 * t_cap_timeline.c - unit tests of the capture's long blocks
 * (src/capture/timeline.c) with agg.c's agg_find(): a record waits until
 * its key's entry is in the sums, is lost if it never comes (final), the
 * cap on records kept counts the rest as lost, a short or oversized
 * record is refused, the waker's ids are kept only with a wakeup, the
 * index gives each entry its events by start, and indexing again after
 * more came (a live view's next output) gives the grown set.  No root,
 * no BPF.
 */
#include <stdlib.h>
#include <string.h>
#include "capture/agg.h"
#include "capture/timeline.h"
#include "check.h"

static struct agg sums;

/* find() for timeline_resolve(): the key's entry in sums, or -1. */
static long find(void *ctx, const struct ow_key *k, bool final)
{
	(void)ctx;
	(void)final;
	return agg_find(&sums, k);
}

static void key_of(struct ow_key *k, unsigned i)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->target, "worker", 7);
	k->t_pid = 100 + i;
	k->t_tgid = 100;
	k->w_pid = 200 + i;
	k->w_tgid = 200;
}

/* Record of key i, start s, lasting d, woken at w (0: not). */
static void record(struct timeline *t, unsigned i, uint64_t s, uint64_t d,
		   uint64_t w)
{
	struct ow_tl_event ev = { .start_ns = s, .end_ns = s + d, .wake_ns = w,
				   .cpu = 1, .state = 2 };

	key_of(&ev.key, i);
	timeline_record(t, &ev, OW_TL_SIZE(1));
}

int main(void)
{
	struct timeline t = { .on = true, .max = 6 };
	const struct ow_long_block *b;
	struct ow_key k;
	size_t n;
	char big[sizeof(struct ow_tl_event) + 8] = { 0 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	record(&t, 0, 5000, 100, 5050);
	record(&t, 1, 1000, 200, 0);
	record(&t, 0, 2000, 300, 2100);
	timeline_record(&t, big, OW_TL_SIZE(1) - 8);	/* too short */
	timeline_record(&t, big, sizeof(big));		/* too long */
	check(t.nwait == 3 && t.lost == 2, "timeline: bad sizes refused, counted as lost",
	      "%zu waiting, %llu lost", t.nwait, (unsigned long long)t.lost);
	timeline_resolve(&t, find, NULL, false);
	check(t.n == 0 && t.nwait == 3 && t.lost == 2, "timeline: records wait for their key",
	      "%zu kept, %zu waiting, %llu lost", t.n, t.nwait, (unsigned long long)t.lost);
	key_of(&k, 1);
	agg_add(&sums, &k, 999);	/* entry 0: key 1 */
	key_of(&k, 0);
	agg_add(&sums, &k, 999);	/* entry 1: key 0 */
	check(agg_find(&sums, &k) == 1 && (key_of(&k, 2), agg_find(&sums, &k)) == -1,
	      "agg: agg_find finds the entries there and no other", "no");
	record(&t, 2, 3000, 50, 0);	/* key 2: never summed */
	timeline_resolve(&t, find, NULL, false);
	check(t.n == 3 && t.nwait == 1, "timeline: records kept once their key is in",
	      "%zu kept, %zu waiting", t.n, t.nwait);
	timeline_resolve(&t, find, NULL, true);
	check(t.nwait == 0 && t.lost == 3, "timeline: a key never summed: lost at the end",
	      "%zu waiting, %llu lost", t.nwait, (unsigned long long)t.lost);
	for (int i = 0; i < 4; i++)	/* room for 6: 3 more, 1 lost */
		record(&t, 1, 9000 - i, 10, 0);
	check(t.nwait == 3 && t.lost == 4, "timeline: past the cap, counted as lost",
	      "%zu waiting, %llu lost", t.nwait, (unsigned long long)t.lost);
	timeline_resolve(&t, find, NULL, true);
	check(!timeline_index(&t, sums.n + 1), "timeline: indexed", "no memory");
	b = timeline_of(&t, 1, &n);	/* key 0: starts 2000, 5000 */
	check(n == 2 && b[0].start_ns == 2000 && b[1].start_ns == 5000 &&
	      b[0].end_ns == 2300 && b[0].wakeup_ns == 2100 && b[0].tid == 100 &&
	      b[0].pid == 100 && b[0].waker_tid == 200 && b[0].waker_pid == 200 &&
	      b[0].cpu == 1 && b[0].state == 2,
	      "timeline: an entry's events by start, as recorded",
	      "%zu events, first at %llu", n, n ? (unsigned long long)b[0].start_ns : 0);
	b = timeline_of(&t, 0, &n);	/* key 1: 1000, then 8998..9000 */
	check(n == 4 && b[0].start_ns == 1000 && b[0].waker_tid == 0 &&
	      b[1].start_ns == 8998 && b[3].start_ns == 9000,
	      "timeline: not woken, no waker; sorted by start",
	      "%zu events, waker %u", n, n ? b[0].waker_tid : 0);
	timeline_of(&t, 2, &n);
	check(n == 0, "timeline: an entry without events has none", "%zu", n);
	timeline_of(&t, 99, &n);
	check(n == 0, "timeline: past the entries, none", "%zu", n);
	/* a live view's outputs: indexed again as the set grows */
	timeline_unindex(&t);
	timeline_of(&t, 1, &n);
	check(n == 0, "timeline: unindexed, none", "%zu", n);
	t.max = 10;
	record(&t, 0, 1500, 10, 0);	/* key 0: before its first two */
	record(&t, 3, 7000, 10, 0);	/* key 3: a new entry */
	key_of(&k, 3);
	agg_add(&sums, &k, 999);	/* entry 2 (the never summed key 2: no entry) */
	timeline_resolve(&t, find, NULL, false);
	check(!timeline_index(&t, sums.n), "timeline: indexed again, grown", "no memory");
	b = timeline_of(&t, 1, &n);
	check(n == 3 && b[0].start_ns == 1500 && b[1].start_ns == 2000 && b[2].start_ns == 5000,
	      "timeline: indexed again, an entry's old and new events by start",
	      "%zu events, first at %llu", n, n ? (unsigned long long)b[0].start_ns : 0);
	b = timeline_of(&t, 2, &n);
	check(n == 1 && b[0].start_ns == 7000 && timeline_of(&t, 0, &n) && n == 4,
	      "timeline: indexed again, a new entry's, the others' kept", "%zu", n);
	timeline_free(&t);
	agg_free(&sums);
	return failed;
}
