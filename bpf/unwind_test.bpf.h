/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * unwind_test.bpf.h - the kernel half of the test-only unwinder
 * (tests/unit_src/unwind_test.c, built into offwake-svg-xu for
 * tests/t_unwinders.sh): the proof that an interpreter's BPF walker is its
 * file, its slot (offwake.h's OW_WALK_TEST), a line of offwake.bpf.c's
 * WALK_PROGS and rows of src/capture/walks.c's table.  Its programs are in
 * every object but loaded only when that row asks (walks_load_late()),
 * never by offwake-svg.  The process it claims (test_walk_tgid, set by the
 * row's start) gets one interpreter frame, OW_TEST_FRAME, after its native
 * frames, which the row names.
 */
#ifndef OW_UNWIND_TEST_BPF_H
#define OW_UNWIND_TEST_BPF_H

volatile __u32 test_walk_tgid;	/* 0: none */

/* Whether tgid's user stacks go to the test walker. */
static __always_inline bool test_walk_of(__u32 tgid)
{
	return test_walk_tgid && test_walk_tgid == tgid;
}

/* The n native frames of st and the test frame: how many. */
static __always_inline __u32 test_append(struct ow_stack *st, __u32 n)
{
	if (n >= OW_MAX_STACK_DEPTH)
		return n;
	st->ips[n] = OW_FRAME(OW_FRAME_INTERP, OW_TEST_FRAME);
	return n + 1;
}

#endif
