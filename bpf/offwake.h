/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * offwake.h - the records the BPF programs and user space share: the
 * aggregation key, the loss counters, and the process events that tell
 * user space when to learn a process's memory mappings.  The includer
 * provides __u32 and friends (vmlinux_min.h in BPF, <linux/types.h> in
 * user space).
 */
#ifndef OFFWAKE_H
#define OFFWAKE_H

#define OW_COMM_LEN	16

/* Stack id when no stack was asked for (-U, -K, kernel thread, IRQ). */
#define OW_NO_STACK	(-1)

/*
 * Aggregation key: one blocked-time sum per distinct combination.  Keys
 * are zero-initialised before filling, so no padding bytes carry garbage
 * (the layout has none: 64 bytes of fixed-size fields).  Stack ids are
 * >= 0 for a stored stack, OW_NO_STACK when not taken, or -errno when
 * bpf_get_stackid() failed.  A key with waker[0] == 0 had no wakeup
 * (the target was preempted, or the waker was missed).
 */
struct ow_key {
	char target[OW_COMM_LEN];
	char waker[OW_COMM_LEN];
	__s32 t_kstack;
	__s32 t_ustack;
	__s32 w_kstack;
	__s32 w_ustack;
	__u32 t_pid;
	__u32 t_tgid;
	__u32 w_pid;
	__u32 w_tgid;
};

/* Loss counters (a per-CPU array indexed by these). */
enum ow_loss {
	OW_LOSS_STACK_COLLISION,	/* -EEXIST: bucket holds another stack */
	OW_LOSS_STACK_FULL,		/* -ENOMEM/-E2BIG: stack map full */
	OW_LOSS_STACK_FAULT,		/* -EFAULT: stack not readable */
	OW_LOSS_STACK_OTHER,		/* any other stack error */
	OW_LOSS_START,			/* no per-task storage at switch-out */
	OW_LOSS_WAKER,			/* blocked task came back with no waker */
	OW_LOSS_COUNTS_FULL,		/* aggregation map full */
	OW_LOSS_EVENTS,			/* ring buffer full: process event lost */
	OW_LOSS_NR,
};

/* Process events for user space (ring buffer). */
enum ow_event_type {
	OW_EV_SEEN = 1,		/* first events of a thread (or after an
				 * exec): learn its maps */
	OW_EV_EXEC = 2,		/* new program image: learn its maps again */
	OW_EV_FORK = 3,		/* new process: inherits its parent's maps */
};

struct ow_event {
	__u32 type;		/* enum ow_event_type */
	__u32 tgid;
	__u32 ptgid;		/* OW_EV_FORK: the parent's tgid */
	__u32 zero;
};

#endif
