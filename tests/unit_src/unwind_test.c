// SPDX-License-Identifier: Apache-2.0
/*
 * unwind_test.c - an unwinder that exists for tests/t_unwinders.sh only:
 * the proof that a new unwinder is one file plus its row in the
 * unwinders' table (src/unwind/unwinders.c's OW_TEST_UNWINDER row; the
 * Makefile builds build/tests_src/offwake-svg-xu with both).  It counts
 * the calls of its lifecycle, says them in its summary line, and says
 * when it is freed.  Its kernel half (bpf/unwind_test.bpf.h, slot
 * OW_WALK_TEST) is loaded by its start, late, as an interpreter's walker
 * is: the first -p/-- CMD process's user stacks then end in one frame of
 * its own, OW_TEST_FRAME, which it names TEST_FRAME_NAME.
 */
#include <errno.h>
#include <stdlib.h>
#include "unwind/unwinder.h"
#include "common/util.h"

#define TEST_FRAME_NAME	"[test-walker]"

struct counts {
	size_t tgids;			/* -p/-t processes at the start */
	uint32_t tgid;			/* the process its walker claims */
	int walks;			/* load_walks()'s answer, -1: not asked */
	uint64_t events[OW_EV_PYSTACK + 1];	/* by type */
	uint64_t records, tables, sweeps, stitched, names, finished;
};

static int test_start(const struct ow_uw_host *h, void **state)
{
	struct counts *n = calloc(1, sizeof(*n));

	if (!n)
		return -1;
	n->tgids = h->ntgids;
	n->walks = -1;
	if (h->ntgids && h->tgids[0] && h->load_walks) {
		volatile __u32 *claim = ow_uw_global(h, "test_walk_tgid");

		n->walks = claim ? h->load_walks(h->ctx, OW_WALK_TEST) : ENOENT;
		if (!n->walks) {
			n->tgid = h->tgids[0];
			*claim = n->tgid;
		}
	}
	*state = n;
	return 0;
}

static void test_event(void *state, const struct ow_uw_event *ev)
{
	struct counts *n = state;

	if (ev->e->type <= OW_EV_PYSTACK)
		n->events[ev->e->type]++;
}

static int test_record(void *state, const void *data, size_t len)
{
	((struct counts *)state)->records++;
	return 1;	/* not its own: the next row's */
}

static void test_tables(void *state, double end)
{
	((struct counts *)state)->tables++;
}

static void test_sweep(void *state, unsigned max_idle)
{
	((struct counts *)state)->sweeps++;
}

static void test_finish(void *state)
{
	((struct counts *)state)->finished++;
}

static const char *test_frame_name(void *state, uint32_t tgid, uint64_t value)
{
	struct counts *n = state;

	n->names++;
	return n->tgid && tgid == n->tgid && value == OW_TEST_FRAME ?
	       TEST_FRAME_NAME : NULL;
}

static uint32_t test_stitch(void *state, const uint64_t *ips, uint32_t nr,
			    ow_uw_frame_name name, void *ctx, uint32_t *order)
{
	((struct counts *)state)->stitched++;
	return 0;	/* shown as walked */
}

static void test_memstats(void *state, FILE *f)
{
	const struct counts *n = state;

	fprintf(f, " test_sweeps=%llu", n ? (unsigned long long)n->sweeps : 0ULL);
}

static void test_summary(void *state, const struct ow_uw_host *h)
{
	const struct counts *n = state;

	fprintf(stderr, OW_PROG ": test unwinder: walker %s for %u\n",
		n->walks ? "not loaded" : "loaded", n->tgid);
	fprintf(stderr, OW_PROG ": test unwinder: started with %zu processes; events: %llu seen, %llu exec, %llu fork, %llu tables; %llu records, %llu table passes, %llu sweeps, %llu stacks stitched, %llu names asked, finished %llu\n",
		n->tgids, (unsigned long long)n->events[OW_EV_SEEN],
		(unsigned long long)n->events[OW_EV_EXEC],
		(unsigned long long)n->events[OW_EV_FORK],
		(unsigned long long)n->events[OW_EV_TABLES],
		(unsigned long long)n->records, (unsigned long long)n->tables,
		(unsigned long long)n->sweeps, (unsigned long long)n->stitched,
		(unsigned long long)n->names, (unsigned long long)n->finished);
}

static void test_free(void *state)
{
	fprintf(stderr, OW_PROG ": test unwinder: freed\n");
	free(state);
}

const struct ow_unwinder ow_unwinder_test = {
	.name = "test",
	.start = test_start,
	.event = test_event,
	.record = test_record,
	.tables = test_tables,
	.sweep = test_sweep,
	.finish = test_finish,
	.frame_name = test_frame_name,
	.stitch = test_stitch,
	.memstats = test_memstats,
	.summary = test_summary,
	.free = test_free,
};
