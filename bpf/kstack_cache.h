/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * kstack_cache.h - what the kernel stack cache's two sides share
 * (kstack_cache.bpf.h, src/capture/kstack_cache.c): its per-CPU counts.
 * Included by offwake.h.
 */
#ifndef OW_KSTACK_CACHE_H
#define OW_KSTACK_CACHE_H

/* How kernel stacks were taken (the kc_stats map). */
enum ow_kc_stat {
	OW_KC_HIT,		/* the task's last stack there, checked again */
	OW_KC_WALKED,		/* walked by bpf_get_stack() (not cached, or
				 * the cached one did not hold) */
	OW_KC_LEARNED,		/* ... and kept for the next time */
	OW_KC_IRQ,		/* taken on an interrupt's stack: walked */
	OW_KC_OFF_STACK,	/* a read off the task's stack */
	OW_KC_FOREIGN,		/* a frame outside the kernel's text (a
				 * module, BPF): no ORC entry we read */
	OW_KC_DEEP,		/* more frames than an entry holds */
	OW_KC_RULE,		/* an ORC rule not followed (registers saved
				 * by an interrupt, an indirect CFA...) */
	OW_KC_NO_END,		/* the walk did not end at user mode or the
				 * stack's end (cut, or an error) */
	OW_KC_AGAIN,		/* the stack not kept last time there: not
				 * tried again */
	OW_KC_MISMATCH,		/* OFFWAKE_KSTACK_CHECK: a hit differed from
				 * the walk (must stay 0) */
	OW_KC_FLAT,		/* learned, and flattened (taken again by
				 * kc_replay_flat()) */
	OW_KC_NR
};

#endif
