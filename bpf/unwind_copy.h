/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * unwind_copy.h - the deferred user stack: what the native unwinder sends
 * instead of a stack when the process's unwind tables are not in place
 * yet (a new image, a library mapped since its tables were built): the
 * registers and a copy of the top of the user stack, walked in user space
 * with the same rows once the tables are in (src/unwind/native_defer.c,
 * native_walk.c).  Included by offwake.h.
 */
#ifndef OW_UNWIND_COPY_H
#define OW_UNWIND_COPY_H

/* Bytes of user stack copied, from sp up (perf's --call-graph dwarf copies
 * 8 KiB by default); the stack's top ends the copy earlier. */
#define OW_UCOPY_MAX	(16 * 1024)
#define OW_UCOPY_PAGE	4096

/*
 * The stack reference of a deferred stack: unique per record (the CPU and
 * a per-CPU sequence number), OW_STACK_HASH and this bit set (a hash of
 * frames never has it).  User space stores the walked frames under it.
 */
#define OW_STACK_DEFERRED	(1ULL << 62)
#define OW_DEFER_REF(cpu, seq)	(OW_STACK_HASH | OW_STACK_DEFERRED | \
				 ((__u64)(cpu) << 40) | ((seq) & ((1ULL << 40) - 1)))

struct ow_ucopy {
	__u32 type;		/* OW_EV_UCOPY */
	__u32 len;		/* bytes of data[] sent: the stack at sp.. */
	__u64 ref;		/* OW_DEFER_REF() */
	__u32 tgid, pid;
	__u64 ns;		/* when (CLOCK_MONOTONIC): the maps read
				 * after it hold the stack's code */
	__u64 ip, sp, bp, bx;	/* the user registers at the switch */
	__u8 data[OW_UCOPY_MAX + OW_UCOPY_PAGE];	/* (a page more: room the
						 * verifier sees for a read) */
};

#define OW_UCOPY_HEAD	__builtin_offsetof(struct ow_ucopy, data)

/* What became of the stacks the walker could not walk for want of tables
 * (per-CPU array). */
enum ow_defer_stat {
	OW_DF_SENT,		/* deferred: copy sent to user space */
	OW_DF_NO_ROOM,		/* ring buffer full: walked by frame pointers */
	OW_DF_LIMIT,		/* too many for one version of the tables:
				 * walked by frame pointers */
	OW_DF_NR,
};

/* Deferrals per process and version of its tables at most (a mapping its
 * tables never cover would otherwise be deferred at every block). */
#define OW_DEFER_PER_GEN	2048

#endif
