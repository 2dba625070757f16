/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * offwake.h - the records the BPF programs and user space share: the
 * aggregation key, the loss counters, the stacks, and the process events
 * that tell user space when to learn a process's memory mappings.  The
 * includer provides __u32 and friends (vmlinux_min.h in BPF,
 * <linux/types.h> in user space).
 */
#ifndef OFFWAKE_H
#define OFFWAKE_H

#define OW_COMM_LEN	16
#define OW_MAX_STACK_DEPTH	127

/*
 * A stack reference: OW_NO_STACK when no stack was taken (-U, -K, kernel
 * thread, empty stack), an errno (below 4096) when taking it failed, else
 * a 64-bit hash of the stack's addresses with OW_STACK_HASH set.  The
 * addresses themselves reach user space once, in an OW_EV_STACK record,
 * before any key refers to them.
 */
#define OW_NO_STACK	0
#define OW_STACK_HASH	(1ULL << 63)

/*
 * Aggregation key: one blocked-time sum per distinct combination.  Keys
 * are zero-initialised before filling, so no padding bytes carry garbage
 * (the layout has none: 80 bytes of fixed-size fields).  A key with
 * waker[0] == 0 had no wakeup (the target was preempted, or the waker
 * was missed).
 */
struct ow_key {
	char target[OW_COMM_LEN];
	char waker[OW_COMM_LEN];
	__u64 t_kstack;
	__u64 t_ustack;
	__u64 w_kstack;
	__u64 w_ustack;
	__u32 t_pid;
	__u32 t_tgid;
	__u32 w_pid;
	__u32 w_tgid;
};

/* Loss counters (a per-CPU array indexed by these). */
enum ow_loss {
	OW_LOSS_STACK_FAULT,		/* -EFAULT: stack not readable */
	OW_LOSS_STACK_OTHER,		/* any other bpf_get_stack() error */
	OW_LOSS_STACK_LOST,		/* ring buffer full: stack not sent */
	OW_LOSS_START,			/* no per-task storage (switch or wakeup) */
	OW_LOSS_WAKER,			/* blocked task came back with no waker */
	OW_LOSS_COUNTS_FULL,		/* aggregation map full */
	OW_LOSS_EVENTS,			/* ring buffer full: process event lost */
	OW_LOSS_HIDDEN_SWITCH,		/* a switch the kernel did not report */
	OW_LOSS_END_AT_WAKEUP,		/* block end hidden: counted to wakeup */
	OW_LOSS_END_HIDDEN,		/* block end and wakeup hidden */
	OW_LOSS_NR,
};

/* Records for user space (ring buffer); each starts with its type. */
enum ow_event_type {
	OW_EV_SEEN = 1,		/* first events of a thread (or after an
				 * exec): learn its maps */
	OW_EV_EXEC = 2,		/* new program image: learn its maps again */
	OW_EV_FORK = 3,		/* new process: inherits its parent's maps */
	OW_EV_STACK = 4,	/* struct ow_stack: a stack not sent before */
};

struct ow_event {
	__u32 type;		/* enum ow_event_type */
	__u32 tgid;
	__u32 ptgid;		/* OW_EV_FORK: the parent's tgid */
	__u32 zero;
};

/* A stack's addresses, leaf first; only the first nr are sent. */
struct ow_stack {
	__u32 type;		/* OW_EV_STACK */
	__u32 nr;
	__u64 hash;		/* the reference keys use (OW_STACK_HASH set) */
	__u64 ips[OW_MAX_STACK_DEPTH];
};

#endif
