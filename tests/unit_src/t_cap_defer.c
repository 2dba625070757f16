// SPDX-License-Identifier: Apache-2.0
/*
 * t_cap_defer.c - unit tests of deferred user stacks without root
 * (src/unwind/native_walk.c, native_defer.c): a hand-made copy of a stack
 * and hand-made rows.  The walk over the copy follows the rows as the BPF
 * walker does (to the outermost frame), a copy too short for the stack
 * ends it where the copy ends ([truncated]), no entry means frame
 * pointers; copies wait until their process's tables are in, come out
 * under their own reference, and are walked early past the memory bound.
 * The umaps map is a fake one here (libbpf's lookup is wrapped).
 */
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "offwake.h"
#include "unwind/native_defer.h"
#include "unwind/native_walk.h"
#include "check.h"

#define UMAPS_FD	4343
#define TGID		77
#define SP		0x7ffd1000ULL

/* One mapped "file" [0x400000, 0x401000), row pcs from 0x400000: f at
 * 0x000 (rbp pushed: CFA = rsp + 16, rbp at CFA - 16), g at 0x100 (CFA =
 * rsp + 8), _start at 0x200 (the outermost), a gap at 0x300, a context's
 * entry (makecontext's __start_context: entered by a pushed address) at
 * 0x380, code whose CFA rule is not followed at 0x3c0, and such code with
 * rbp saved beside the return address (a frame pointer's layout) at
 * 0x3e0. */
static const struct ow_urow rows[] = {
	{ .pc = 0x000, .cfa = OW_CFA_RSP, .rbp = -2, .off = 16 },
	{ .pc = 0x100, .cfa = OW_CFA_RSP, .off = 8 },
	{ .pc = 0x200, .cfa = OW_CFA_END },
	{ .pc = 0x300, .cfa = OW_CFA_NONE },
	{ .pc = 0x380, .cfa = OW_CFA_RSP, .off = 8 },
	{ .pc = 0x3c0, .cfa = OW_CFA_NONE, .off = OW_NONE_RULE },
	{ .pc = 0x3e0, .cfa = OW_CFA_NONE, .off = OW_NONE_RULE, .rbp = -2 },
};
#define NROWS	(sizeof(rows) / sizeof(rows[0]))
static struct ow_umaps um = {
	.n = 1, .gen = 1,
	.m = { { 0x400000, 0x401000, 0x400000, 0, NROWS } },
};
static int have_entry = 1;

int __wrap_bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	if (fd != UMAPS_FD || *(const __u32 *)key != TGID || !have_entry)
		return -1;
	memcpy(value, &um, sizeof(um));
	return 0;
}

/* The stack: g (leaf, at 0x400150) called from f (0x400010), called from
 * _start (0x400210).  g's return address at sp; f's frame: saved rbp,
 * return address; then what _start left. */
static uint64_t stack[8] = {
	0x400010,		/* sp + 0: g returns into f */
	SP + 48,		/* sp + 8: f's saved rbp */
	0x400210,		/* sp + 16: f returns into _start */
	0, 0, 0, 0, 0,
};

static void test_walk(void)
{
	struct uw_walker w = { &um, rows, NROWS, false };
	struct uw_regs r = { 0x400150, SP, 0, 0, (const uint8_t *)stack,
			     sizeof(stack) };
	enum uw_walk_end end;
	__u64 ips[16];
	size_t n = uw_walk_copy(&w, &r, ips, 16, &end, NULL);

	check(n == 3 && end == UW_WALK_END && ips[0] == 0x400150 &&
	      ips[1] == 0x400010 && ips[2] == 0x400210,
	      "defer: a copy is walked by the rows to the outermost frame",
	      "%zu frames, end %d", n, end);
	r.len = 16;		/* f's return address is past the copy */
	n = uw_walk_copy(&w, &r, ips, 16, &end, NULL);
	check(n == 2 && end == UW_WALK_COPY,
	      "defer: a read past the copy ends the walk there",
	      "%zu frames, end %d", n, end);
	r.len = sizeof(stack);
	n = uw_walk_copy(&w, &r, ips, 2, &end, NULL);
	check(n == 2 && end == UW_WALK_DEPTH, "defer: the depth limit holds",
	      "%zu frames, end %d", n, end);
	/* no tables: frame pointers (rbp -> saved rbp 0, return address) */
	w.um = NULL;
	r.bp = SP + 8;
	n = uw_walk_copy(&w, &r, ips, 16, &end, NULL);
	check(n >= 2 && ips[1] == 0x400210,
	      "defer: without tables, frames by rbp", "%zu frames", n);
	w.cfi_only = true;
	n = uw_walk_copy(&w, &r, ips, 16, &end, NULL);
	check(n == 1 && end == UW_WALK_NOTABLE,
	      "defer: --unwind=cfi without tables: the leaf only",
	      "%zu frames, end %d", n, end);
}

/* How walks end: at a context's entry (the outermost frame of a
 * coroutine's stack), and at a rule not followed (not "no table"). */
static void test_walk_ends(void)
{
	static const uint64_t co[4] = { 0x400380 };	/* g returns to the
							 * entry's first byte */
	struct uw_walker w = { &um, rows, NROWS, false };
	struct uw_regs r = { 0x400150, SP, 0, 0, (const uint8_t *)co,
			     sizeof(co) };
	enum uw_walk_end end;
	__u64 ips[16];
	size_t n = uw_walk_copy(&w, &r, ips, 16, &end, NULL);

	check(n == 2 && end == UW_WALK_ENTRY && ips[1] == 0x400380,
	      "defer: a return address at a table's first byte after a gap: the context's entry, the end",
	      "%zu frames, end %d", n, end);
	r.ip = 0x4003c8;	/* a rule not followed, rbp 0: no frame */
	n = uw_walk_copy(&w, &r, ips, 16, &end, NULL);
	check(n == 1 && end == UW_WALK_RULE,
	      "defer: a rule not followed, no frame pointer: counted as the rule",
	      "%zu frames, end %d", n, end);
	r.ip = 0x4003e8;	/* the same with a frame pointer's layout: */
	r.sp = SP;		/* one frame by rbp, then _start */
	r.stack = (const uint8_t *)stack;
	r.len = sizeof(stack);
	r.bp = SP + 8;
	n = uw_walk_copy(&w, &r, ips, 16, &end, NULL);
	check(n == 2 && end == UW_WALK_END && ips[1] == 0x400210,
	      "defer: a rule not followed, rbp saved beside the return address: one frame by rbp",
	      "%zu frames, end %d", n, end);
	r.bp = 0;
	r.ip = 0x400310;	/* in the gap itself: no table */
	n = uw_walk_copy(&w, &r, ips, 16, &end, NULL);
	check(n == 1 && end == UW_WALK_NOTABLE,
	      "defer: a pc in no table's range, no frame pointer: no table",
	      "%zu frames, end %d", n, end);
}

/* A pc in no mapping of the entry is told (a file a partial entry
 * leaves out); a pc in a mapping without a row is not. */
static void test_walk_unmapped(void)
{
	struct uw_walker w = { &um, rows, NROWS, false };
	struct uw_regs r = { 0x400150, SP, SP + 8, 0, (const uint8_t *)stack,
			     sizeof(stack) };
	enum uw_walk_end end;
	bool unmapped = true;
	__u64 ips[16];
	size_t n = uw_walk_copy(&w, &r, ips, 16, &end, &unmapped);

	check(n == 3 && !unmapped, "defer: a walk inside the entry's mappings: none unmapped",
	      "%zu frames, unmapped %d", n, unmapped);
	r.ip = 0x400310;	/* the gap: mapped, no row */
	uw_walk_copy(&w, &r, ips, 16, &end, &unmapped);
	check(!unmapped, "defer: a pc in a mapping without a row is not unmapped", "unmapped");
	r.ip = 0x400150;
	um.m[0].end = 0x400200;	/* _start's part left out */
	n = uw_walk_copy(&w, &r, ips, 16, &end, &unmapped);
	um.m[0].end = 0x401000;
	check(n == 3 && unmapped && ips[2] == 0x400210,
	      "defer: a return address in no mapping is told (and walked by rbp)",
	      "%zu frames, unmapped %d", n, unmapped);
}

static struct ow_ucopy rec;
static __u64 got_ref;
static __u32 got_nr;
static __u64 got_last;
static int gots;

static void got(void *ctx, const struct ow_stack *st, size_t len)
{
	got_ref = st->hash;
	got_nr = st->nr;
	got_last = st->ips[st->nr - 1];
	gots++;
}

static bool ready_flag;
static int missed_asks;
static bool ready(void *ctx, uint32_t tgid, bool missed)
{
	missed_asks += missed;
	return ready_flag && tgid == TGID;
}

/* A partial entry: a walk that misses waits until more_in; the entry
 * then maps f and _start too (their file's full pass is in). */
static bool more_in;
static bool ready_partial(void *ctx, uint32_t tgid, bool missed)
{
	missed_asks += missed;
	if (missed && more_in)
		um.m[0].end = 0x401000;
	return !missed || more_in;
}

/* ready() reading the ring buffer: a copy arrives during the walk */
static bool ready_adding(void *ctx, uint32_t tgid, bool missed)
{
	uw_defer_add(ctx, &rec, OW_UCOPY_HEAD + rec.len);
	return true;
}

static void test_queue(void)
{
	struct uw_defer *d = uw_defer_new(UMAPS_FD, rows, NROWS, false, 1 << 20);
	struct uw_defer_stats st;
	size_t len;

	rec.type = OW_EV_UCOPY;
	rec.ref = OW_DEFER_REF(1, 5);
	rec.tgid = TGID;
	rec.ip = 0x400150;
	rec.sp = SP;
	rec.len = sizeof(stack);
	memcpy(rec.data, stack, sizeof(stack));
	len = OW_UCOPY_HEAD + rec.len;
	check(d && !uw_defer_add(d, &rec, len) &&
	      uw_defer_add(d, &rec, OW_UCOPY_HEAD + 8) < 0,
	      "defer: a copy is kept; a record shorter than it says is refused",
	      "add failed");
	ready_flag = false;
	check(uw_defer_walk(d, ready, got, NULL) == 0 && !gots,
	      "defer: a copy waits while its tables are not in", "%d walked", gots);
	ready_flag = true;
	check(uw_defer_walk(d, ready, got, NULL) == 1 && gots == 1 &&
	      got_ref == rec.ref && got_nr == 3,
	      "defer: once they are, its stack comes under its own reference",
	      "%d walked, ref %#llx, %u frames", gots, (unsigned long long)got_ref,
	      got_nr);
	rec.len = 16;		/* cut: [truncated] marks the end */
	uw_defer_add(d, &rec, OW_UCOPY_HEAD + rec.len);
	uw_defer_walk(d, ready, got, NULL);
	check(got_nr == 3 && got_last == OW_FRAME(OW_FRAME_MARKER, OW_MARK_TRUNCATED),
	      "defer: a stack the copy cut ends with [truncated]",
	      "%u frames, last %#llx", got_nr, (unsigned long long)got_last);
	uw_defer_get_stats(d, &st);
	check(st.received == 2 && st.whole == 1 && st.cut == 1 && st.bad == 1 &&
	      !st.kept && !st.bytes && st.bytes_max > sizeof(stack),
	      "defer: counted (received, whole, cut, malformed, bytes)",
	      "%llu %llu %llu %llu kept %zu bytes %zu",
	      (unsigned long long)st.received, (unsigned long long)st.whole,
	      (unsigned long long)st.cut, (unsigned long long)st.bad, st.kept,
	      st.bytes);
	uw_defer_free(d);

	/* past the memory bound: walked at once, counted as early */
	d = uw_defer_new(UMAPS_FD, rows, NROWS, false, 10);
	rec.len = sizeof(stack);
	uw_defer_add(d, &rec, len);
	ready_flag = false;
	gots = 0;
	uw_defer_walk(d, ready, got, NULL);
	uw_defer_get_stats(d, &st);
	check(gots == 1 && st.early == 1,
	      "defer: past the memory bound, walked at once (early)",
	      "%d walked, %llu early", gots, (unsigned long long)st.early);
	gots = 0;
	uw_defer_add(d, &rec, len);
	uw_defer_walk(d, ready_adding, got, d);
	uw_defer_get_stats(d, &st);
	check(gots == 1 && st.kept == 1,
	      "defer: a copy added during a walk waits for the next",
	      "%d walked, %zu kept", gots, st.kept);
	have_entry = 0;		/* the process gone: frame pointers */
	uw_defer_walk(d, NULL, got, NULL);
	uw_defer_get_stats(d, &st);
	check(gots == 2 && !st.kept, "defer: every copy is walked at the end",
	      "%d walked, %zu kept", gots, st.kept);
	uw_defer_free(d);

	/* a partial entry: the copy that meets a file it leaves out waits
	 * for the full set, and is walked by it */
	d = uw_defer_new(UMAPS_FD, rows, NROWS, false, 1 << 20);
	have_entry = 1;
	gots = missed_asks = 0;
	more_in = false;
	um.m[0].end = 0x400200;
	uw_defer_add(d, &rec, len);
	uw_defer_walk(d, ready_partial, got, NULL);
	uw_defer_get_stats(d, &st);
	check(!gots && st.kept == 1 && st.waited == 1 && missed_asks == 1,
	      "defer: a walk that meets a file a partial entry leaves out waits for the rest",
	      "%d walked, %zu kept, %llu waited, %d asks", gots, st.kept,
	      (unsigned long long)st.waited, missed_asks);
	more_in = true;
	uw_defer_walk(d, ready_partial, got, NULL);
	uw_defer_get_stats(d, &st);
	check(gots == 1 && got_nr == 3 && !st.kept && st.whole == 1,
	      "defer: then walked whole by the full set",
	      "%d walked, %u frames, %zu kept, %llu whole", gots, got_nr,
	      st.kept, (unsigned long long)st.whole);
	um.m[0].end = 0x401000;
	uw_defer_free(d);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_walk();
	test_walk_ends();
	test_walk_unmapped();
	test_queue();
	return failed;
}
