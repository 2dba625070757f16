/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * ustack_cache.h - what the user stack cache's two sides share
 * (ustack_cache.bpf.h, src/capture/ustack_cache.c): its per-CPU counts.
 * Included by offwake.h.
 */
#ifndef OW_USTACK_CACHE_H
#define OW_USTACK_CACHE_H

/* How user stacks walked by CFI were taken (the uc_stats map). */
enum ow_uc_stat {
	OW_UC_HIT,		/* the task's last stack there: its registers
				 * and every word the walk read unchanged */
	OW_UC_WALKED,		/* walked (none kept, or it did not hold) */
	OW_UC_LEARNED,		/* ... and kept for the next time */
	OW_UC_UNSEEN,		/* held, but user space had given it up:
				 * walked to be sent again */
	/* why a walk was not kept */
	OW_UC_OPEN,		/* it did not end at an outermost frame (or
				 * a pc without a table) */
	OW_UC_FRAMES,		/* a signal, realigned or rbx-based frame */
	OW_UC_DEEP,		/* more words than an entry holds */
	OW_UC_SPREAD,		/* words too far apart or out of order */
	OW_UC_MISMATCH,		/* OFFWAKE_USTACK_CHECK: a hit differed from
				 * the walk (must stay 0) */
	OW_UC_NR
};

/*
 * A hit's counts, one counter (the uc_hits map) where the walk it stands
 * for counted up to five (OW_UC_HIT and uw_count()'s): by side, how it
 * was walked (OW_UW_NR: by frame pointers, --unwind=fp), why it stopped
 * and whether it met a rule not followed.  User space adds them into the
 * two (ustack_cache_add_hits()).  Needs unwind_native.h.
 */
#define OW_UC_HIT_IDX(side, cls, stop, unf) \
	((((side) * (OW_UW_NR + 1) + (cls)) * OW_UW_NR + (stop)) * 2 + !!(unf))
#define OW_UC_HITS	(OW_UW_SIDES * (OW_UW_NR + 1) * OW_UW_NR * 2)

#endif
