/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * offwake.h - the records the BPF programs and user space share: the
 * aggregation key, the loss counters, the stacks, and the process events
 * that tell user space when to learn a process's memory mappings; the
 * native unwinder's records are in unwind_native.h, included here.  The
 * includer provides __u32 and friends (vmlinux_min.h in BPF,
 * <linux/types.h> in user space).
 */
#ifndef OFFWAKE_H
#define OFFWAKE_H

#include "unwind_native.h"
#include "unwind_copy.h"
#include "unwind_python.h"
#include "kstack_cache.h"
#include "ustack_cache.h"

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
/* Not taken, on purpose: a waker's stacks when its wakee had been blocked
 * for less than half of -m (ENODATA; shown as a missed stack) */
#define OW_STACK_SKIPPED	61

/*
 * The waker's name in a key whose task went to sleep (it was not
 * preempted) but whose wakeup was not seen (OW_LOSS_WAKER): its 16 bytes
 * fill key.waker with no NUL, which no task's comm does (the kernel ends
 * one within its 16), so a traced process cannot name itself so.  A key
 * with an empty waker (waker[0] == 0, no pid) is a preemption.
 */
#define OW_WAKER_UNSEEN	"[waker not seen]"
_Static_assert(sizeof(OW_WAKER_UNSEEN) == OW_COMM_LEN + 1,
	       "OW_WAKER_UNSEEN must fill a comm without its NUL");

/*
 * One level of a wakeup chain (--chain-depth): a thread that woke the
 * level below it, its stacks taken when it did.
 */
struct ow_level {
	char comm[OW_COMM_LEN];
	__u64 kstack;
	__u64 ustack;
	__u32 pid;
	__u32 tgid;
};

/* Levels a chain can have: the waker, and who woke it, up to 4 deep. */
#define OW_CHAIN_MAX	4

/*
 * Aggregation key: one blocked-time sum per distinct combination.  Keys
 * are zero-initialised before filling, so no padding bytes carry garbage
 * (the layout has none: fixed-size fields).  A key with waker[0] == 0
 * had no wakeup (the target was preempted); one whose waker is
 * OW_WAKER_UNSEEN slept but its wakeup was missed.
 *
 * The waker is level 1 of the wakeup chain; up[] holds levels 2 to
 * --chain-depth (up[0]: the thread that last woke the waker before it
 * woke the target), a level with comm[0] == 0 and all above it absent
 * (the chain ended).  The counts maps' keys are OW_KEY_SIZE(depth)
 * bytes, the key's first bytes: at depth 1 the 80 bytes of the fields
 * before up[], so the default costs the maps nothing more.
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
	struct ow_level up[OW_CHAIN_MAX - 1];
};

#define OW_KEY_SIZE(depth) (__builtin_offsetof(struct ow_key, up) + \
			    ((depth) - 1) * sizeof(struct ow_level))

/* Slots of the counts array per period (offwake.bpf.c: cvals): keys
 * past them go to the counts hash maps. */
#define OW_CSLOTS	65536

/* Loss counters (a per-CPU array indexed by these). */
enum ow_loss {
	OW_LOSS_STACK_FAULT,		/* -EFAULT: stack not readable */
	OW_LOSS_STACK_OTHER,		/* any other bpf_get_stack() error */
	OW_LOSS_STACK_LOST,		/* ring buffer and stack backlog full:
					 * stack not sent */
	OW_LOSS_START,			/* no per-task storage (switch or wakeup) */
	OW_LOSS_WAKER,			/* blocked task came back with no waker */
	OW_LOSS_COUNTS_FULL,		/* aggregation map full */
	OW_LOSS_EVENTS,			/* ring buffer and event backlog full:
					 * process event lost */
	OW_LOSS_HIDDEN_SWITCH,		/* a switch the kernel did not report */
	OW_LOSS_END_AT_WAKEUP,		/* block end hidden: counted to wakeup */
	OW_LOSS_END_HIDDEN,		/* block end and wakeup hidden */
	OW_LOSS_WAKER_EARLY,		/* a block kept whose waker's stacks were
					 * not taken: woken before half of -m
					 * (OW_STACK_SKIPPED) */
	OW_LOSS_LAZY_STACKS,		/* a block kept whose own stacks were
					 * not taken: the end of schedule() was
					 * not seen (lazy_stacks) */
	/* not losses: what the ring buffer had no room for, kept in the
	 * backlog maps until user space fetched it */
	OW_LOSS_STACK_KEPT,
	OW_LOSS_EVENTS_KEPT,
	/* not a loss: a block whose return to CPU was hidden, ended where
	 * the task's CPU time since it was picked puts it */
	OW_LOSS_END_BY_RUNTIME,
	OW_LOSS_WALK_PROG,		/* a stack walk's program not there
					 * (offwake.bpf.c: walkst): not taken */
	OW_LOSS_TIMELINE,		/* --timeline: a long block's record not
					 * sent, the timeline ring buffer full
					 * (its time is in the sums) */
	OW_LOSS_NR,
};

/* What the filters kept out (a per-CPU array indexed by these), to say
 * why a capture found nothing. */
enum ow_filtered {
	OW_F_SWITCHES,		/* switch-outs of the threads traced (-p, -t, -u, -k) */
	OW_F_STATE,		/* of them, in another state (--state) */
	OW_F_SHORT,		/* blocks shorter than -m */
	OW_F_LONG,		/* blocks longer than -M */
	OW_F_NR,
};

/* Records for user space (ring buffer); each starts with its type. */
enum ow_event_type {
	OW_EV_SEEN = 1,		/* first events of a thread (or after an
				 * exec): learn its maps */
	OW_EV_EXEC = 2,		/* new program image: learn its maps again */
	OW_EV_FORK = 3,		/* new process: inherits its parent's maps */
	OW_EV_STACK = 4,	/* struct ow_stack: a stack not sent before */
	OW_EV_TABLES = 5,	/* a user stack of tgid was walked without
				 * unwind tables (a waker not traced, or a
				 * process not seen yet): load them */
	OW_EV_UCOPY = 6,	/* struct ow_ucopy: a user stack to walk once
				 * its process's tables are in (unwind_copy.h) */
	OW_EV_PYSTACK = 7,	/* the stack just sent (hash: ptgid, then zero
				 * as the high half) has Python frames of tgid:
				 * read their names while it lives */
};

struct ow_event {
	__u32 type;		/* enum ow_event_type */
	__u32 tgid;
	__u32 ptgid;		/* OW_EV_FORK: the parent's tgid */
	__u32 zero;		/* (OW_EV_PYSTACK: the hash's high half;
				 * OW_EV_EXEC, OW_EV_FORK: OW_EV_OUTSIDE when
				 * the task is outside --cgroup) */
};
#define OW_EV_OUTSIDE	1

/*
 * Typed frames.  A stack record's entries are frames of a kind: a new kind
 * of code (an interpreter's frames beside the native ones) is a new kind,
 * not a new stack format.  Kernel stacks hold kernel frames only (kernel
 * addresses, untagged).  A user stack's entry carries its kind in the top
 * byte and its value below: OW_FRAME_NATIVE is 0, so a native frame is its
 * address as it is (user addresses are below 2^56).  User space names each
 * frame through the resolver of its kind (src/capture/fold.c's namers[]);
 * JIT code is native machine code to the kernel, told apart there (perf
 * maps).  Markers are frames that name a fact, not code (their value is an
 * enum ow_marker).
 */
enum ow_frame_kind {
	OW_FRAME_NATIVE = 0,	/* machine code of an ELF file or a JIT */
	OW_FRAME_KERNEL = 1,	/* (kernel stacks: never tagged) */
	OW_FRAME_JIT = 2,	/* (resolved in user space) */
	OW_FRAME_INTERP = 3,	/* an interpreter's frame */
	OW_FRAME_MARKER = 4,	/* value: enum ow_marker */
	OW_FRAME_KINDS,
};

enum ow_marker {
	OW_MARK_HARDIRQ,	/* [hardirq] */
	OW_MARK_SOFTIRQ,	/* [softirq] */
	OW_MARK_NMI,		/* [nmi] */
	OW_MARK_TRUNCATED,	/* [truncated]: the depth limit cut the stack */
	OW_MARK_NR,
};

#define OW_FRAME_SHIFT		56
#define OW_FRAME(kind, value)	(((__u64)(kind) << OW_FRAME_SHIFT) | (value))
#define OW_FRAME_KIND(entry)	((__u32)((entry) >> OW_FRAME_SHIFT))
#define OW_FRAME_VALUE(entry)	((entry) & ((1ULL << OW_FRAME_SHIFT) - 1))

/* A stack's frames, leaf first; only the first nr are sent. */
/* The slots of each trigger's array of walks' programs (offwake.bpf.c:
 * walkst), filled by user space after the load. */
enum ow_walk_slot {
	OW_WALK_USTACK,		/* the native user stack, then an interpreter's */
	OW_WALK_PYTHON,		/* CPython's frames (unwind_python.bpf.h) */
	OW_WALK_TEST,		/* the test-only unwinder's (unwind_test.bpf.h) */
	OW_WALK_SLOTS,
};
/* The frame value the test-only walker appends (OW_FRAME_INTERP). */
#define OW_TEST_FRAME	0x7e57

struct ow_stack {
	__u32 type;		/* OW_EV_STACK */
	__u32 nr;
	__u64 hash;		/* the reference keys use (OW_STACK_HASH set) */
	__u64 ips[OW_MAX_STACK_DEPTH];
};

/*
 * A long block (--timeline): a block of at least --event-min, also summed
 * under its key, sent through a ring buffer of its own (offwake.bpf.c:
 * timeline).  Only OW_TL_SIZE(chain_depth) bytes are sent: the key at
 * the counts maps' size.  Times are bpf_ktime_get_ns() (CLOCK_MONOTONIC).
 */
struct ow_tl_event {
	__u64 start_ns;		/* went off CPU */
	__u64 end_ns;		/* back on CPU (as counted) */
	__u64 wake_ns;		/* woken; 0: no wakeup seen */
	__u32 cpu;		/* the CPU it came back on */
	__u32 state;		/* its task state at the switch-out */
	struct ow_key key;
};
#define OW_TL_SIZE(depth) (__builtin_offsetof(struct ow_tl_event, key) + \
			   OW_KEY_SIZE(depth))

/* A kernel function's address range, and whether a soft IRQ it runs is
 * a task's own (offwake.bpf.c's softirq_callers). */
#define OW_SOFTIRQ_CALLERS	8
struct ow_krange {
	__u64 lo, hi;
	__u64 task;
};

#endif
