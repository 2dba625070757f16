/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * offwake.bpf.c - kernel side of offwake-svg: off-CPU time joined with the
 * waker's stack, summed in the kernel.
 *
 * sched_switch, prev going off CPU (prev is current): store the time and
 *   prev's own kernel and user stack references in its task-local storage.
 * sched_waking (always runs in the waker's context, unlike sched_wakeup,
 *   which may run on the target's CPU from the wake list): store the
 *   waker's comm, pids and stack references in the target's storage.
 *   With --chain-depth N >= 2, also the first N - 1 levels of the chain
 *   that last woke the waker, copied from the waker's own storage (no
 *   stack walked for them: they were taken when those wakeups happened),
 *   when that wakeup is at most chain_age_ns old; else the chain ends.
 *   (Whether the waker ran in interrupt context is read from its kernel
 *   stack in user space: the preempt count is a per-CPU variable, and
 *   typed ksyms for variables need CONFIG_KALLSYMS_ALL, which kernels
 *   often lack.  So is whether a soft IRQ ran on the current task's
 *   account, from its local_bh_enable(): then the task's user stack and
 *   chain, taken here as for any waker, are shown.)
 * sched_switch, next coming back on CPU: the blocked time is now - start;
 *   apply the block-time filter and add it to the active counts map under
 *   a key of target and waker identity and stacks.
 *
 * What is walked is only what may be kept (issue 31: a stack walk is most
 * of a program's cost, about 1.2 us a kernel stack here): the filters come
 * first; a waker's stacks are not taken for a wakee blocked for less than
 * half of -m so far (waker_stacks_wanted()); and with -m above the default
 * where the kernel has the end of schedule() (sched_exit_tp, 6.16), a
 * blocked task's own stacks are not taken at its switch-out but once its
 * block is known to be kept, at that tracepoint, in its own context, as it
 * comes back on CPU (lazy_stacks, end_pending()): it has not run since,
 * so they are the same stacks.
 *
 * Hidden switches: some kernels hide tasks from tracing (this VM's hides
 * its agent), and no program runs on a CPU while one is current.  Each
 * CPU's last switched-in task is kept (oncpu): a switch taking another
 * task off means one was hidden.  The block of a task switched in by a
 * hidden switch ends, at its next switch-out, where its CPU time since the
 * scheduler picked it puts that switch (end_hidden_block()); the end of
 * schedule() (sched_exit_tp), which would see it at once, is watched only
 * for lazy_stacks: a program run at every switch.
 *
 * Filters (threads, --cgroup, state, block time, which stacks) run here,
 * so stacks the output would not show are never taken.  Nothing is lost
 * silently: every failure is counted per cause in the losses map, and the
 * blocks counted are counted too (for the live status line).
 *
 * Stacks: bpf_get_stack() (a kernel stack: or the task's last one there,
 * checked again, kstack_cache.bpf.h) writes into a per-CPU buffer; a
 * 64-bit hash of the valid frames (63 bits used) is the stack's
 * reference.  When the
 * hash is not in its slot of "seen" (a direct-mapped cache: an array
 * indexed by the hash's low bits, each slot holding a whole hash), the
 * frames go to user space through the ring buffer, which keeps every
 * stack for the whole capture, and only then is the hash stored in the
 * slot.  When the ring buffer is full (user space behind), the stack is
 * kept in stack_backlog instead, which user space empties at its pace;
 * only when that is full too is it lost (counted, and its key refers to
 * ENOSPC, shown as a frame that says so).  So a key always refers to a
 * stack user space received or will fetch (or to an errno when it could
 * not be kept), equal stacks are sent once, and a
 * slot taken over by another hash only means a stack is sent again.
 * Unlike a stack-trace map, nothing collides or fills up.  (Slots are
 * written with single 8-byte stores, so CPUs racing on one leave one of
 * their hashes there, each sent.)
 * User space drains counts0/counts1 (and cslots0/cslots1 with their half
 * of cvals) alternately: "active", counted up at each drain, is even or
 * odd.
 *
 * Each program exists twice: tp_btf (task storage, direct BTF pointers)
 * and raw_tp (a pid-keyed hash map) for kernels without tp_btf; user space
 * picks one set at load time.  The tp_btf ones hand a user stack walk to
 * programs of its own, tail-called (see walkst below); the raw_tp ones
 * walk inline, by frame pointers.
 */
#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "offwake.h"
#include "unwind_native.bpf.h"
#include "unwind_python.bpf.h"
#include "unwind_test.bpf.h"
#include "kstack_cache.bpf.h"
#include "ustack_cache.bpf.h"
#include "cgroup_filter.bpf.h"

#define SEEN_EVENTS	3
#define EEXIST	17
/* uapi bpf.h's BPF_RB_*: bpf_ringbuf_query()'s, bpf_ringbuf_submit()'s */
enum { RB_AVAIL_DATA = 0, RB_NO_WAKEUP = 1, RB_FORCE_WAKEUP = 2 };
#define EFAULT	14
#define ENOSPC	28

char LICENSE[] SEC("license") = "GPL";

/* Configuration, set by user space before load. */
const volatile __u64 min_ns = 1000;		/* keep blocks >= this */
const volatile __u64 max_ns = ~0ULL;		/* keep blocks < this */
const volatile __u32 filter_mode = 0;		/* enum below */
const volatile bool state_filter = false;
const volatile __u32 state_mask = 0;		/* 0: running tasks only, else
						 * any bit of it */
const volatile bool want_kstack = true;
const volatile bool want_ustack = true;
const volatile __u32 seen_mask = 131072 - 1;	/* slots - 1, a power of 2 */
const volatile bool follow = false;		/* -p: add the processes they
						 * start (--follow, -- CMD) */
const volatile __u32 chain_depth = 1;		/* levels of waker, 1 to
						 * OW_CHAIN_MAX */
const volatile __u64 chain_age_ns = 10000000;	/* oldest wakeup of a waker
						 * that still explains it */
const volatile bool lazy_stacks = false;	/* a blocked task's stacks
						 * taken when its block ends,
						 * if kept (see below) */
const volatile bool timeline = false;		/* --timeline: long blocks
						 * sent as records too */
const volatile __u64 event_min_ns = 1000000;	/* --event-min */
const volatile __u64 tl_wake_bytes = 1024;	/* wake the reader past this
						 * much unread (a quarter) */

enum { FILTER_NONE, FILTER_TGID, FILTER_PID, FILTER_USER, FILTER_KERNEL };

/* Which counts maps the programs add to (active & 1); counted up by
 * user space at each drain. */
volatile __u32 active;
/*
 * Set by user space once every program is attached, cleared before they
 * are detached: no block starts or ends outside, so none can miss its
 * wakeup for want of the waking program (which is not held back: a
 * wakeup may come just before the switch-out of the block it ends).
 */
volatile __u32 armed;
/*
 * The last task seen switched in on some CPU but never switched out
 * there: kernels may hide tasks from tracing (this one hides its VM's
 * agent), and while one runs no program of ours runs on that CPU.
 */
volatile __u32 hidden_pid;

/* Where the system call entry is (entry_SYSCALL_64, set by user space
 * from kallsyms; 0: unknown): see process_context(). */
volatile __u64 syscall_lo, syscall_hi;

/*
 * The kernel functions that call the soft IRQ loop (set by user space
 * from kallsyms; hi 0: unused): task 1 where a task runs soft IRQs in its
 * own system call (do_softirq from local_bh_enable: loopback networking),
 * 0 on an interrupt's exit or in ksoftirqd.  See process_context().
 */
volatile struct ow_krange softirq_callers[OW_SOFTIRQ_CALLERS];

/* Per-task bookkeeping between switch-out, wakeup and switch-in. */
struct ow_task {
	__u64 start_ns;		/* switch-out time; 0: no block tracked */
	__u64 on_ns;		/* last switch-in time */
	__u64 wake_ns;		/* waker info time; 0: none */
	__u64 woke_ns;		/* the same, kept after the block ends: how
				 * old chain[] is when this task wakes one */
	__u64 t_kstack;		/* stack references, see offwake.h */
	__u64 t_ustack;
	__u64 end_ns;		/* lazy_stacks: the end of a block kept,
				 * whose stacks are still to be taken */
	__u64 ev_wake_ns;	/* timeline: the ending block's wakeup (0:
				 * none), kept for add_block() */
	__u32 ev_state;		/* timeline: the task state at switch-out */
	__u32 ev_pad;
	__u8 blocked;		/* went off CPU to sleep (not preempted) */
	__u8 seen;		/* OW_EV_SEEN events sent */
	__u8 pending;		/* lazy_stacks: end_ns is set */
	__u8 pending_woken;	/* ... and the block had its wakeup */
	__u32 cslot;		/* add_count(): ckey's slot + 1 (0: none) */
	/* the waker (chain[0]) and, with --chain-depth, who woke it ... */
	struct ow_level chain[OW_CHAIN_MAX];
	__u32 cactive;		/* ... in the period of this "active" */
	__u32 cpad;
	struct ow_key ckey;	/* ... the task's last counts key */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ow_task);
} tstore SEC(".maps");

/* raw_tp fallback for the above (max_entries 1 when unused). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct ow_task);
} thash SEC(".maps");

/* Allowed tgids (-p) or tids (-t). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} threads SEC(".maps");

/* Hashes of stacks sent to user space (--stack-storage-size slots). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 131072);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

/* Where bpf_get_stack() writes: one stack record per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ow_stack);
} scratch SEC(".maps");

/* Where a pointer is stored and read back as a number (root may), which
 * the verifier lets compare: an inlined lookup, not a helper call. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} spill SEC(".maps");

/*
 * Blocked time per key, one period's worth (user space drains them).
 * Allocated as used (the kernel's BPF allocator, safe here): room for a
 * burst of new keys costs no memory until it comes.
 */
struct counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 262144);
	__uint(key_size, OW_KEY_SIZE(1));	/* OW_KEY_SIZE(chain_depth),
						 * set by user space */
	__uint(value_size, sizeof(__u64));
};
struct counts_map counts0 SEC(".maps");
struct counts_map counts1 SEC(".maps");

/*
 * The same, faster: a key's blocked time in a slot of cvals (period
 * "active & 1": slots [0, OW_CSLOTS) or [OW_CSLOTS, 2 * OW_CSLOTS)), its
 * slot found by key in cslots0/cslots1 and handed out by cnext.  A task
 * keeps its last key and slot (ow_task.ckey): its next block with the
 * same key in the same period (a thread that blocks the same way again,
 * the common case) adds to the slot with no hashing (add_count()).  A
 * key takes a slot only for the task that blocked (the key has its pid),
 * so a slot's adds come from one CPU at a time.  When a period's slots
 * are all taken, keys go to counts0/counts1.  User space drains both.
 */
struct cslots_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, OW_CSLOTS);
	__uint(key_size, OW_KEY_SIZE(1));	/* as counts0 */
	__uint(value_size, sizeof(__u32));
};
struct cslots_map cslots0 SEC(".maps");
struct cslots_map cslots1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* read and zeroed in place */
	__uint(max_entries, 2 * OW_CSLOTS);
	__type(key, __u32);
	__type(value, __u64);
} cvals SEC(".maps");

/*
 * Each period's slots handed out so far by this CPU (entry 0 or 1): CPU c
 * hands out c, c + ncpus, c + 2 * ncpus ... (no atomic operation, none
 * needed: add_count() never runs nested on a CPU); past OW_CSLOTS, its
 * share is taken.  User space zeroes a period's when it drains it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} cnext SEC(".maps");
const volatile __u32 ncpus = 1;			/* possible CPUs */
const volatile __u32 cslots_max = OW_CSLOTS;	/* slots a period may use
						 * (fewer: tests) */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OW_LOSS_NR);
	__type(key, __u32);
	__type(value, __u64);
} losses SEC(".maps");

/*
 * The pid + 1 of the task the last switch seen on this CPU put on it (0:
 * none yet).  The next switch there must take that task off the CPU;
 * another prev means the kernel did not report a switch in between.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} oncpu SEC(".maps");

/* What the filters kept out (enum ow_filtered), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OW_F_NR);
	__type(key, __u32);
	__type(value, __u64);
} filtered SEC(".maps");

/* Blocks added to the counts maps, per CPU (one entry). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} blocks SEC(".maps");

/* --timeline's long blocks (struct ow_tl_event); sized by user space
 * (4 MiB, OFFWAKE_TIMELINE_BUFFER; a page when --timeline is off). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} tl_ring SEC(".maps");

/* Records for user space; sized by user space (--ring-buffer-size). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 * 1024 * 1024);
} events SEC(".maps");

/*
 * What the ring buffer had no room for, kept until user space fetches it
 * (a reader behind: a slow machine, a niced or sanitised profiler, a
 * burst of new stacks): stacks by their reference, process events by
 * themselves (equal ones are one).  Allocated as used; the bound is set
 * by user space (--backlog): only past it is anything lost.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct ow_stack);
} stack_backlog SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct ow_event);
	__type(value, __u8);
} event_backlog SEC(".maps");

/* Blocked time of blocks the counts map had no room for (ns, per CPU):
 * shown under a frame that says so, not dropped. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost_ns SEC(".maps");

/* Add one to entry idx of a per-CPU counter array. */
static __always_inline void count(void *map, __u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(map, &idx);

	if (v)
		(*v)++;
}

/* A process event; zero is the high half of OW_EV_PYSTACK's hash. */
static __always_inline void send_event_4(__u32 type, __u32 tgid, __u32 ptgid,
					 __u32 zero)
{
	struct ow_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		struct ow_event k = { .type = type, .tgid = tgid, .ptgid = ptgid,
				      .zero = zero };
		__u8 one = 1;
		long err = bpf_map_update_elem(&event_backlog, &k, &one,
					       BPF_NOEXIST);

		if (!err)
			count(&losses, OW_LOSS_EVENTS_KEPT);
		else if (err != -EEXIST)
			count(&losses, OW_LOSS_EVENTS);
		return;
	}
	e->type = type;
	e->tgid = tgid;
	e->ptgid = ptgid;
	e->zero = zero;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void send_event(__u32 type, __u32 tgid, __u32 ptgid)
{
	send_event_4(type, tgid, ptgid, 0);
}

/* One step of the stack hash: xor in a frame, multiply, fold. */
static __always_inline __u64 hash_step(__u64 h, __u64 x)
{
	h = (h ^ x) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* The end of the stack hash: murmur3's finaliser, every bit mixed. */
static __always_inline __u64 hash_end(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/*
 * A stack's reference: the hash of its flags, size and addresses.  A
 * global function, verified once on its own: inlined, its loop of up to
 * OW_MAX_STACK_DEPTH steps was verified again at every call site and for
 * every state reaching it.
 */
__noinline __u64 stack_hash(const struct ow_stack *st, __u64 flags, __u32 nr)
{
	__u64 h = hash_step(flags, nr);

	if (!st)
		return 0;
	for (__u32 i = 0; i < OW_MAX_STACK_DEPTH && i < nr; i++)
		h = hash_step(h, st->ips[i]);
	return (hash_end(h) & ~OW_STACK_DEFERRED) | OW_STACK_HASH;
}

/*
 * The user stack walks of the tp_btf programs, as programs of their own
 * (issue 51), verified one by one: a trigger (switch-out, the end of
 * schedule() for lazy_stacks, a wakeup) does its bookkeeping, takes the
 * kernel stack (one walker, kstack_cache.bpf.h, in each trigger: a tail
 * call more cost 40-60 ns a switch here) and tail-calls its array's
 * OW_WALK_USTACK program for the native user stack, which hands a Python
 * process's stack to OW_WALK_PYTHON for its Python frames.  The last of
 * them stores the reference (walk_store()) and ends the trigger's work
 * (walk_done()).  A tail call can only reach a program of
 * the caller's own hook, so each trigger has its array and its copy of
 * each (walk_ustack_switch, ...; user space fills the slots after the
 * load).  An empty slot is a walk not made: counted, the stack absent.
 * What passes from one to the next: the arguments (ctx), scratch's
 * frames, and walk_state.
 */
struct walk_state {
	__u64 held;		/* the user stack cache's reference (uc_take) */
	__u32 native;		/* native frames in scratch */
	__u32 pad;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk_state);
} walkst SEC(".maps");

#define WALKS(name)							\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PROG_ARRAY);			\
		__uint(max_entries, OW_WALK_SLOTS);			\
		__type(key, __u32);					\
		__type(value, __u32);					\
	} name SEC(".maps")
WALKS(walks_switch);
WALKS(walks_end);
WALKS(walks_waking);

/* bpf_get_stack() for the current task, user stacks by the native
 * unwinder (unwind_native.bpf.h; its walks counted on side, enum
 * ow_uw_side), kernel stacks through the task's cache of them
 * (kstack_cache.bpf.h). */
static __always_inline long take_stack(void *ctx, struct ow_stack *st,
				       __u64 flags, bool btf, __u32 side,
				       struct kc_entry **kheld)
{
	__u64 *ips = st->ips;
	long len;

	if ((flags & BPF_F_USER_STACK) && btf) {
		len = uw_user_stack(bpf_get_current_task_btf(), st, side);
		if (len >= 0 || len == UW_DEFERRED)
			return len;
	}
	if (!(flags & BPF_F_USER_STACK) && btf)
		return kc_stack(ctx, st, side, kheld);
	return bpf_get_stack(ctx, ips, OW_MAX_STACK_DEPTH * sizeof(*ips),
			     flags);
}

/*
 * The current stack (kernel, or user with BPF_F_USER_STACK) as a
 * reference (see offwake.h); a stack not sent before is sent now.  Every
 * failure is counted by cause.
 */
static __always_inline __u64 stack_finish(struct ow_stack *st, __u64 flags,
					  bool btf, __u32 side, __u32 nr,
					  __u32 native, __u64 held,
					  struct kc_entry *kheld);

/*
 * A user stack the task had last time there (ustack_cache.bpf.h), if
 * user space still has it (else walked: sent again), and no Python frames
 * to add to it: its reference, else 0 (walk it; *held: what the cache
 * had, for the walk's checks).  Asked by the triggers themselves, so that
 * a hit costs no tail call.
 */
static __always_inline __u64 user_cached(__u32 side, __u64 *held)
{
	__u64 *sent, ref, id = bpf_get_current_pid_tgid();
	struct uc_entry *hit = 0;
	__u32 slot;
	int py;

	*held = 0;
	if (!(ref = uc_take(side, &hit)) || !hit)
		return 0;
	slot = ref & seen_mask;
	sent = bpf_map_lookup_elem(&seen, &slot);
	py = py_none_again(id >> 32, (__u32)id, hit->aux);
	if (py < 0)
		return 0;
	*held = ref;
	if (!sent || *sent != ref) {
		count(&uc_stats, OW_UC_UNSEEN);
	} else if (!uc_verify) {
		uc_hit(hit);
		if (py)
			count(&py_stats, OW_PY_NO_THREAD);
		return ref;
	} else {	/* walked too, compared below */
		count(&uc_stats, OW_UC_HIT);
	}
	return 0;
}

/* The walk slot of tgid's interpreter, whose frames come after the native
 * ones: OW_WALK_PYTHON, OW_WALK_TEST, or 0 (none; OW_WALK_USTACK is no
 * interpreter's).  A new interpreter's walker is a line here, its slot, its
 * WALK_PROGS program and its rows in walks.c. */
static __always_inline __u32 interp_slot(__u32 tgid)
{
	if (python_mode && py_maybe(tgid))
		return OW_WALK_PYTHON;
	if (test_walk_of(tgid))
		return OW_WALK_TEST;
	return 0;
}

/* (pheld: the trigger asked user_cached() already: what it had) */
static __always_inline __u64 get_stack(void *ctx, __u64 flags, bool btf,
				       __u32 side, void *walks,
				       const __u64 *pheld)
{
	struct ow_stack *st;
	__u32 zero = 0, nr, native;
	long len;
	__u64 held = 0, ref, id = bpf_get_current_pid_tgid();
	struct kc_entry *kheld = 0;
	__u32 slot;

	if ((flags & BPF_F_USER_STACK) && btf) {
		if (pheld)
			held = *pheld;
		else if ((ref = user_cached(side, &held)))
			return ref;
	}
	st = bpf_map_lookup_elem(&scratch, &zero);
	if (!st)
		return ENOSPC;
	st->nr = 0;
	len = take_stack(ctx, st, flags, btf, side, &kheld);
	if (len == UW_DEFERRED) {	/* its own reference (unwind_copy.h) */
		if ((flags & BPF_F_USER_STACK) && python_mode)
			py_deferred();
		return st->ips[0];
	}
	if (len < 0) {
		count(&losses, len == -EFAULT ? OW_LOSS_STACK_FAULT :
						OW_LOSS_STACK_OTHER);
		return -len;
	}
	nr = native = (__u64)len / sizeof(__u64);
	/* an interpreter's frames after the native ones (interp_slot()): by
	 * its walk's program (walks: see walk_user()), else here (CPython's
	 * on the raw_tp programs) */
	if ((flags & BPF_F_USER_STACK) && (slot = interp_slot(id >> 32))) {
		if (walks) {
			struct walk_state *ws = bpf_map_lookup_elem(&walkst, &zero);

			if (ws) {
				ws->held = held;
				ws->native = native;
				bpf_tail_call(ctx, walks, slot);
			}
			if (slot == OW_WALK_PYTHON)
				count(&py_stats, OW_PY_NOT_LOADED);
			else
				count(&losses, OW_LOSS_WALK_PROG);
		} else if (slot == OW_WALK_PYTHON) {
			nr = py_append(st, nr);
		}
	}
	return stack_finish(st, flags, btf, side, nr, native, held, kheld);
}

/* The rest of get_stack(): st's nr frames (native of them the native
 * walk's, held what the user stack cache had) hashed, sent if new. */
static __always_inline __u64 stack_finish(struct ow_stack *st, __u64 flags,
					  bool btf, __u32 side, __u32 nr,
					  __u32 native, __u64 held,
					  struct kc_entry *kheld)
{
	__u64 h, *sent, id = bpf_get_current_pid_tgid();
	__u32 slot, last;
	int py;

	st->nr = nr;		/* for process_context() too */
	if (!nr)
		return OW_NO_STACK;
	if (kheld && kheld->ref) {	/* a kernel stack hashed before */
		h = kheld->ref;
	} else {
		h = stack_hash(st, flags, nr);
		if (kheld)
			kheld->ref = h;
	}
	if ((flags & BPF_F_USER_STACK) && btf) {
		if (held && held != h)	/* OFFWAKE_USTACK_CHECK */
			count(&uc_stats, OW_UC_MISMATCH);
		/* kept without Python frames only, for a thread that has
		 * none to add (py_none()) */
		if (!held && nr == native &&
		    (py = py_none(id >> 32, (__u32)id)) >= 0)
			uc_keep(side, h, py);
	}
	slot = h & seen_mask;
	sent = bpf_map_lookup_elem(&seen, &slot);
	if (!sent)
		return ENOSPC;
	if (*sent == h)
		return h;
	st->type = OW_EV_STACK;
	st->nr = nr;
	st->hash = h;
	if (nr > OW_MAX_STACK_DEPTH)
		nr = OW_MAX_STACK_DEPTH;
	/* a bound the verifier sees on the register used (OW_MAX_STACK_DEPTH
	 * is 127: the mask keeps every value the test above lets through) */
	barrier_var(nr);
	nr &= 0x7f;
	if (bpf_ringbuf_output(&events, st, sizeof(*st) - sizeof(st->ips) +
			       nr * sizeof(__u64), 0)) {
		/* no room: kept until user space fetches it (another CPU
		 * may have kept the same stack a moment ago: one copy) */
		long err = bpf_map_update_elem(&stack_backlog, &h, st,
					       BPF_NOEXIST);

		if (err && err != -EEXIST) {
			count(&losses, OW_LOSS_STACK_LOST);
			return ENOSPC;
		}
		count(&losses, OW_LOSS_STACK_KEPT);
	}
	*sent = h;
	/* Python frames (after the native ones): named in user space from
	 * the process's memory, now, while it lives */
	last = nr - 1;
	barrier_var(last);
	if ((flags & BPF_F_USER_STACK) && python_mode && last < OW_MAX_STACK_DEPTH &&
	    OW_FRAME_KIND(st->ips[last]) == OW_FRAME_INTERP)
		send_event_4(OW_EV_PYSTACK, bpf_get_current_pid_tgid() >> 32,
			   (__u32)h, (__u32)(h >> 32));
	return h;
}

/*
 * Field f of task t: a plain load in the tp_btf programs (btf true: their
 * task pointers are the kernel's own, trusted, loads fault-safe), a
 * bpf_probe_read_kernel() call, about 10 ns each, in the raw_tp ones.  btf
 * is a constant in each program: only one of the two is compiled.
 */
#define T_READ(btf, t, f)	((btf) ? (t)->f : BPF_CORE_READ(t, f))

static __always_inline __u32 task_state(struct task_struct *t, bool btf)
{
	if (bpf_core_field_exists(t->__state))
		return T_READ(btf, t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

static __always_inline bool state_ok(struct task_struct *t, bool btf)
{
	__u32 s;

	if (!state_filter)
		return true;
	s = task_state(t, btf);
	/* as bcc's offwaketime: 0 selects running (preempted) tasks, any
	 * other mask a task with any of its bits ("p->__state & MASK") */
	if (state_mask == 0)
		return s == 0;
	return (s & state_mask) != 0;
}

/* -p, -t, -u, -k (filter_mode) */
static __always_inline bool mode_ok(struct task_struct *t, __u32 pid,
				    bool btf)
{
	__u32 id;

	switch (filter_mode) {
	case FILTER_TGID:
		id = T_READ(btf, t, tgid);
		return bpf_map_lookup_elem(&threads, &id) != 0;
	case FILTER_PID:
		return bpf_map_lookup_elem(&threads, &pid) != 0;
	case FILTER_USER:
		return !(T_READ(btf, t, flags) & PF_KTHREAD);
	case FILTER_KERNEL:
		return T_READ(btf, t, flags) & PF_KTHREAD;
	}
	return true;
}

/* Whether t is traced: the thread filter and --cgroup, both. */
static __always_inline bool thread_ok(struct task_struct *t, __u32 pid,
				      bool btf)
{
	return mode_ok(t, pid, btf) && cgroup_ok(t);
}

/* The task's bookkeeping; with create, made (and announced) if new. */
static __always_inline struct ow_task *task_info(struct task_struct *t,
						 __u32 pid, bool create,
						 bool btf)
{
	static const struct ow_task zero;
	struct ow_task *ti;

	if (btf) {
		ti = bpf_task_storage_get(&tstore, t, 0,
				create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	} else {
		ti = bpf_map_lookup_elem(&thash, &pid);
		if (!ti && create) {
			bpf_map_update_elem(&thash, &pid, &zero, BPF_NOEXIST);
			ti = bpf_map_lookup_elem(&thash, &pid);
		}
	}
	if (!ti) {
		if (create)
			count(&losses, OW_LOSS_START);
		return 0;
	}
	/*
	 * Announce the first few events of a thread (and after an exec):
	 * the first may come before the dynamic loader mapped the libraries.
	 */
	if (create && ti->seen < SEEN_EVENTS) {
		ti->seen++;
		send_event(OW_EV_SEEN, T_READ(btf, t, tgid), 0);
	}
	return ti;
}

/*
 * Add delta to key's count in map (a constant at each call, so that the
 * verifier makes the lookup a direct call, not the generic helper's
 * indirect one through the map's ops: add_count()).
 */
static __always_inline void add_count_to(void *map, struct ow_key *key,
					 __u64 delta)
{
	__u64 *v;
	long err;

	v = bpf_map_lookup_elem(map, key);
	if (v) {
		__sync_fetch_and_add(v, delta);
		return;
	}
	err = bpf_map_update_elem(map, key, &delta, BPF_NOEXIST);
	if (err == -EEXIST) {
		v = bpf_map_lookup_elem(map, key);
		if (v)
			__sync_fetch_and_add(v, delta);
	} else if (err) {
		__u32 zero = 0;

		count(&losses, OW_LOSS_COUNTS_FULL);
		v = bpf_map_lookup_elem(&lost_ns, &zero);
		if (v)
			*v += delta;
	}
}

/* Whether two counts keys are the same (OW_KEY_SIZE(chain_depth) bytes):
 * no branch a word, so that the verifier sees one. */
static __always_inline bool same_key(const struct ow_key *a,
				     const struct ow_key *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	__u64 d = 0;

#pragma unroll
	for (__u32 i = 0; i < OW_KEY_SIZE(1) / 8; i++)
		d |= x[i] ^ y[i];
	if (chain_depth > 1) {
#pragma unroll
		for (__u32 i = OW_KEY_SIZE(1) / 8; i < sizeof(*a) / 8; i++)
			d |= x[i] ^ y[i];
	}
	return !d;
}

/*
 * Key's slot in period idx (cslots0/cslots1), taken if it has none; -1
 * when the period's slots are all taken (or the map failed).
 */
static __always_inline long slot_of(void *slots, __u32 idx, struct ow_key *key)
{
	__u32 *s = bpf_map_lookup_elem(slots, key), *next, slot;
	long err;

	if (s)
		return *s;
	next = bpf_map_lookup_elem(&cnext, &idx);
	if (!next)
		return -1;
	slot = *next * ncpus + bpf_get_smp_processor_id();
	if (slot >= cslots_max || slot >= OW_CSLOTS)
		return -1;
	(*next)++;
	err = bpf_map_update_elem(slots, key, &slot, BPF_NOEXIST);
	if (err == -EEXIST) {	/* another CPU's, just now (ours stays 0) */
		s = bpf_map_lookup_elem(slots, key);
		return s ? *s : -1;
	}
	return err ? -1 : slot;
}

/* Add delta to key's count, a block of the task whose storage ti is. */
static __always_inline void add_count(struct ow_task *ti, struct ow_key *key,
				      __u64 delta)
{
	__u32 act = active, idx = act & 1, k;
	__u64 *v;
	long slot;

	count(&blocks, 0);
	if (ti->cslot && ti->cactive == act && same_key(&ti->ckey, key)) {
		slot = ti->cslot - 1;
	} else {
		slot = idx ? slot_of(&cslots1, 1, key) : slot_of(&cslots0, 0, key);
		if (slot < 0) {		/* slots full: by key */
			ti->cslot = 0;
			if (idx)
				add_count_to(&counts1, key, delta);
			else
				add_count_to(&counts0, key, delta);
			return;
		}
		if (chain_depth > 1)
			ti->ckey = *key;
		else
			__builtin_memcpy(&ti->ckey, key, OW_KEY_SIZE(1));
		ti->cactive = act;
		ti->cslot = slot + 1;
	}
	k = idx * OW_CSLOTS + (__u32)slot;
	v = bpf_map_lookup_elem(&cvals, &k);
	if (v)
		__sync_fetch_and_add(v, delta);
}

/* add_block()'s key, built here rather than on the stack (200 bytes: the
 * end of schedule()'s program, with the kernel walk beside it, went past
 * the verifier's 512 bytes of stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ow_key);
} keybuf SEC(".maps");

/*
 * --timeline: a block of at least event_min_ns (start_ns to start_ns +
 * delta) sent as a record too, its key as the counts have it; a full ring
 * is counted (OW_LOSS_TIMELINE), its time in the sums all the same.
 * Without --timeline the verifier prunes it (a .rodata constant).
 */
static __always_inline void send_long_block(const struct ow_task *ti,
					    const struct ow_key *key,
					    __u64 delta)
{
	struct ow_tl_event *ev;

	if (!timeline || delta < event_min_ns)
		return;
	if (chain_depth > 1)
		ev = bpf_ringbuf_reserve(&tl_ring, sizeof(*ev), 0);
	else
		ev = bpf_ringbuf_reserve(&tl_ring, OW_TL_SIZE(1), 0);
	if (!ev) {
		count(&losses, OW_LOSS_TIMELINE);
		return;
	}
	ev->start_ns = ti->start_ns;
	ev->end_ns = ti->start_ns + delta;
	ev->wake_ns = ti->ev_wake_ns;
	ev->cpu = bpf_get_smp_processor_id();
	ev->state = ti->ev_state;
	__builtin_memcpy(&ev->key, key, OW_KEY_SIZE(1));
	if (chain_depth > 1)
		__builtin_memcpy(ev->key.up, key->up, sizeof(key->up));
	/* the reader is not woken for each (a wakeup per event, and its
	 * switches, would cost more than the event): it reads at its ticks,
	 * or when a quarter of the ring is waiting */
	bpf_ringbuf_submit(ev, bpf_ringbuf_query(&tl_ring, RB_AVAIL_DATA) >=
			       tl_wake_bytes ? RB_FORCE_WAKEUP : RB_NO_WAKEUP);
}

/*
 * Add a block of t (delta ns) to the counts, with the waker's identity and
 * stacks when woken says they are its own.
 */
static __always_inline void add_block(struct task_struct *t, __u32 pid,
				      struct ow_task *ti, __u64 delta,
				      bool woken, bool btf)
{
	struct ow_key *key;
	__u32 zero = 0;

	key = bpf_map_lookup_elem(&keybuf, &zero);
	if (!key)
		return;
	__builtin_memset(key, 0, sizeof(*key));

	if (btf)
		__builtin_memcpy(key->target, t->comm, OW_COMM_LEN);
	else
		BPF_CORE_READ_INTO(&key->target, t, comm);
	key->t_pid = pid;
	key->t_tgid = T_READ(btf, t, tgid);
	key->t_kstack = ti->t_kstack;
	key->t_ustack = ti->t_ustack;
	if (woken) {
		__builtin_memcpy(key->waker, ti->chain[0].comm, OW_COMM_LEN);
		key->w_pid = ti->chain[0].pid;
		key->w_tgid = ti->chain[0].tgid;
		key->w_kstack = ti->chain[0].kstack;
		key->w_ustack = ti->chain[0].ustack;
#pragma unroll
		for (__u32 i = 1; i < OW_CHAIN_MAX; i++)
			if (i < chain_depth)
				key->up[i - 1] = ti->chain[i];
		if (key->w_kstack == OW_STACK_SKIPPED ||
		    key->w_ustack == OW_STACK_SKIPPED)
			count(&losses, OW_LOSS_WAKER_EARLY);
	} else if (ti->blocked) {	/* not a preemption: say so */
		count(&losses, OW_LOSS_WAKER);
		__builtin_memcpy(key->waker, OW_WAKER_UNSEEN, OW_COMM_LEN);
	}
	add_count(ti, key, delta);
	send_long_block(ti, key, delta);
}

/*
 * The block of t that ended at end (start_ns to end): -m and -M, then
 * counted (with lazy_stacks, once its stacks are taken: end_pending()).
 */
static __always_inline void end_block(struct task_struct *t, __u32 pid,
				      struct ow_task *ti, __u64 end,
				      bool woken, bool btf)
{
	__u64 delta = end - ti->start_ns;

	if (delta < min_ns || delta >= max_ns) {
		count(&filtered, delta < min_ns ? OW_F_SHORT : OW_F_LONG);
		ti->start_ns = 0;
		return;
	}
	if (timeline)	/* (with lazy_stacks, wake_ns is gone by then) */
		ti->ev_wake_ns = woken ? ti->wake_ns : 0;
	if (lazy_stacks) {
		ti->end_ns = end;
		ti->pending = 1;
		ti->pending_woken = woken;
		return;
	}
	add_block(t, pid, ti, delta, woken, btf);
	ti->start_ns = 0;
}

/*
 * When t, going off CPU now, came back on it by a switch the kernel did
 * not report: now less the CPU time it has had since it was picked (the
 * scheduler's own account, updated for this switch before the tracepoint;
 * set when picked by the fair class: under another, or with a figure that
 * does not fit the block, 0).  IRQ and steal time while it ran are not in
 * that CPU time: the end may be that much late.
 */
static __always_inline __u64 hidden_on_ns(struct task_struct *t,
					  const struct ow_task *ti, __u64 now,
					  bool btf)
{
	__u64 sum = T_READ(btf, t, se.sum_exec_runtime);
	__u64 picked = T_READ(btf, t, se.prev_sum_exec_runtime);
	__u64 on;

	if (sum < picked || sum - picked > now - ti->start_ns)
		return 0;
	on = now - (sum - picked);
	return on >= ti->wake_ns ? on : 0;
}

/*
 * t is going off CPU again while its last block never ended: the switch
 * that put it back on CPU was not reported (see hidden_pid).  The block
 * ends where t's CPU time puts that switch (hidden_on_ns()); failing that,
 * a block whose wakeup was seen ends at that wakeup (its wait for a CPU is
 * left out); any other (a wakeup not seen either, or a preemption) is
 * counted as lost.  (So the end of schedule() need not be watched for
 * them: a program run at every switch, about 10% of the capture's cost.)
 */
static __always_inline void end_hidden_block(struct task_struct *t,
					     __u32 pid, struct ow_task *ti,
					     __u64 now, bool btf)
{
	__u64 on = hidden_on_ns(t, ti, now, btf);

	if (on) {
		count(&losses, OW_LOSS_END_BY_RUNTIME);
		end_block(t, pid, ti, on, ti->wake_ns > ti->on_ns, btf);
	} else if (ti->blocked && ti->wake_ns > ti->start_ns) {
		count(&losses, OW_LOSS_END_AT_WAKEUP);
		end_block(t, pid, ti, ti->wake_ns, true, btf);
	} else {
		count(&losses, OW_LOSS_END_HIDDEN);
		ti->start_ns = 0;
	}
	ti->on_ns = on ? on : now;
	ti->wake_ns = 0;
}

/* The current task's user stack into *ref: the cache's (user_cached()),
 * else by its walk's program (see walkst), which stores it and ends the
 * trigger's work; that one not there, counted (the stack absent). */
static __always_inline void walk_user(void *ctx, void *walks, __u32 side,
				      __u64 *ref)
{
	struct walk_state *ws;
	__u32 zero = 0;
	__u64 held;

	if ((*ref = user_cached(side, &held)))
		return;
	*ref = OW_NO_STACK;
	ws = bpf_map_lookup_elem(&walkst, &zero);
	if (ws) {
		ws->held = held;
		bpf_tail_call(ctx, walks, OW_WALK_USTACK);
	}
	count(&losses, OW_LOSS_WALK_PROG);
}

/*
 * The current task's own stacks, for the block it starts (at its switch-
 * out) or, with lazy_stacks, for the block that ended as it came back on
 * CPU: the same, since it has not run since (its kernel stack differs in
 * the tracepoint's frames only, which user space leaves out, and in where
 * __schedule() calls it).
 */
static __always_inline void own_stacks(void *ctx, struct task_struct *t,
				       struct ow_task *ti, bool btf,
				       void *walks)
{
	ti->t_kstack = want_kstack ? get_stack(ctx, 0, btf, OW_UW_BLOCKED, 0, 0) :
				     OW_NO_STACK;
	ti->t_ustack = OW_NO_STACK;
	if (!want_ustack || (T_READ(btf, t, flags) & PF_KTHREAD))
		return;
	if (btf)	/* by the walk's program: what follows is its */
		walk_user(ctx, walks, OW_UW_BLOCKED, &ti->t_ustack);
	else
		ti->t_ustack = get_stack(ctx, BPF_F_USER_STACK, btf,
					  OW_UW_BLOCKED, 0, 0);
}

/* lazy_stacks: a pending block of t counted, with the stacks it has. */
static __always_inline void count_pending(struct task_struct *t, __u32 pid,
					  struct ow_task *ti, bool btf)
{
	add_block(t, pid, ti, ti->end_ns - ti->start_ns, ti->pending_woken,
		  btf);
	ti->start_ns = 0;
}

/*
 * lazy_stacks: the block of the current task that ended when it came back
 * on CPU, counted now, with the stacks it blocked with.  A block still
 * pending when the task next goes off CPU (the end of schedule() was not
 * seen) is counted without them (OW_LOSS_LAZY_STACKS).
 */
static __always_inline void end_pending(void *ctx, struct task_struct *t,
					__u32 pid, struct ow_task *ti,
					bool here, bool btf)
{
	if (!lazy_stacks || !ti->pending)
		return;
	ti->pending = 0;
	if (here) {	/* (the walks then count it: walk_done()) */
		own_stacks(ctx, t, ti, btf, &walks_end);
	} else {
		ti->t_kstack = ti->t_ustack = OW_STACK_SKIPPED;
		count(&losses, OW_LOSS_LAZY_STACKS);
	}
	count_pending(t, pid, ti, btf);
}

static __always_inline void switch_out(void *ctx, bool preempt,
				       struct task_struct *prev, __u32 pid,
				       __u64 now, bool btf)
{
	struct ow_task *ti;
	__u32 state;
	bool keep;

	if (pid == 0 || !thread_ok(prev, pid, btf))
		return;
	count(&filtered, OW_F_SWITCHES);
	keep = state_ok(prev, btf);
	if (!keep)
		count(&filtered, OW_F_STATE);
	ti = task_info(prev, pid, keep, btf);
	if (!ti)
		return;
	/* lazy_stacks: a block still pending, or one a hidden switch-in
	 * ends here, is counted without its stacks: they are not prev's now */
	end_pending(ctx, prev, pid, ti, false, btf);
	if (ti->start_ns)
		end_hidden_block(prev, pid, ti, now, btf);
	end_pending(ctx, prev, pid, ti, false, btf);
	if (!keep)
		return;
	state = task_state(prev, btf);
	ti->start_ns = now;
	if (timeline)
		ti->ev_state = state;
	/* A task preempted while it was going to sleep is still runnable. */
	ti->blocked = !preempt && state != 0;
	if (!ti->blocked)
		ti->wake_ns = 0;	/* preempted: no wakeup will come */
	if (lazy_stacks)
		return;		/* taken when it ends, if kept */
	own_stacks(ctx, prev, ti, btf, &walks_switch);
}

static __always_inline void switch_in(struct task_struct *next, __u32 pid,
				      __u64 now, bool btf)
{
	struct ow_task *ti;
	__u64 last_on;

	if (pid == 0)
		return;
	ti = task_info(next, pid, false, btf);
	if (!ti)
		return;
	last_on = ti->on_ns;
	ti->on_ns = now;
	if (ti->start_ns && !ti->pending)
		end_block(next, pid, ti, now, ti->wake_ns > last_on, btf);
	ti->wake_ns = 0;
}

/*
 * Levels 2 and up of the chain of a task the current one wakes (now):
 * the chain that last woke the current task, when that wakeup was at most
 * chain_age_ns ago (else none: it ran on its own account since).  No
 * stack is walked: the levels were taken when those wakeups happened.
 */
static __always_inline void chain_from_waker(struct ow_task *ti, __u64 now,
					     bool btf)
{
	static const struct ow_level none;
	struct ow_task *wi;
	__u32 pid;
	bool keep;

	if (btf) {
		wi = bpf_task_storage_get(&tstore, bpf_get_current_task_btf(),
					  0, 0);
	} else {
		pid = (__u32)bpf_get_current_pid_tgid();
		wi = bpf_map_lookup_elem(&thash, &pid);
	}
	keep = wi && wi->woke_ns && now - wi->woke_ns <= chain_age_ns;
#pragma unroll
	for (__u32 i = 1; i < OW_CHAIN_MAX; i++)
		if (i < chain_depth)
			ti->chain[i] = keep ? wi->chain[i - 1] : none;
}

/*
 * Whether the current task wakes in process context (its own system
 * call), not in an interrupt that landed on it: an interrupt's waker is
 * whatever task it interrupted, whose user stack is not shown (fold.c), so
 * it is not walked (nor are its unwind tables asked for).  (The preempt
 * count would say it directly, but it is a per-CPU variable: see the top
 * of this file.)  Two tests:
 * - x86-64 runs an interrupt that came in kernel mode (hard, and the soft
 *   ones after it) on the per-CPU IRQ stack: ctx (the tracepoint's
 *   arguments, on the current stack) is then off the task's own stack.
 *   So do soft IRQs a task runs in its own system call (do_softirq() from
 *   local_bh_enable(): a send over loopback wakes the receiver there):
 *   those are the task's wakeups (softirq_of_task()).
 *   32 KiB: THREAD_SIZE with KASAN, twice the usual; an IRQ stack that
 *   close above a task's stack is at worst taken for process context.
 * - one that came in user mode runs on the task's stack: the outermost
 *   frame of the kernel stack just taken (get_stack() leaves it in
 *   scratch) is then the interrupt's entry, not the system call's (when
 *   user space found entry_SYSCALL_64; a page fault's wakeup is left out
 *   as well).
 */
#define TASK_STACK_SPAN	(32 << 10)
#define SOFTIRQ_SCAN	48	/* frames of the kernel stack looked at */

/* Whether ip is in one of softirq_callers: its task flag, else -1. */
static __always_inline int softirq_caller(__u64 ip)
{
	for (__u32 j = 0; j < OW_SOFTIRQ_CALLERS; j++)
		if (ip >= softirq_callers[j].lo && ip < softirq_callers[j].hi)
			return softirq_callers[j].task;
	return -1;
}

/* softirq_of_task()'s walk over the kernel stack's frames */
struct softirq_scan {
	const struct ow_stack *st;
	int task;
};

static int softirq_step(__u32 i, void *ctx)
{
	struct softirq_scan *q = ctx;
	int r;

	if (i >= OW_MAX_STACK_DEPTH)
		return 1;
	r = softirq_caller(q->st->ips[i]);
	if (r < 0)
		return 0;
	q->task = r;
	return 1;
}

/*
 * On the IRQ stack: whether the soft IRQ this runs in was run by the task
 * itself (the first of softirq_callers found in the kernel stack just
 * taken, leaf first, is a task's: fold.c's softirq_of_task() decides the
 * same for the display).  By bpf_loop(): its body is verified once, not
 * for each of 48 frames and each state reaching it (about 20k of the
 * waking kernel walk's 50k instructions, inlined).
 */
static __always_inline bool softirq_of_task(bool btf)
{
	struct softirq_scan q = {};
	__u32 zero = 0, n;

	if (!want_kstack || !(q.st = bpf_map_lookup_elem(&scratch, &zero)))
		return false;
	n = q.st->nr < SOFTIRQ_SCAN ? q.st->nr : SOFTIRQ_SCAN;
	if (btf) {
		bpf_loop(n, softirq_step, &q, 0);
		return q.task;
	}
	/* raw_tp: for kernels before bpf_loop (5.17) */
	for (__u32 i = 0; i < SOFTIRQ_SCAN && i < q.st->nr; i++) {
		__u64 ip = q.st->ips[i];

		for (__u32 j = 0; j < OW_SOFTIRQ_CALLERS; j++)
			if (ip >= softirq_callers[j].lo &&
			    ip < softirq_callers[j].hi)
				return softirq_callers[j].task;
	}
	return false;
}

static __always_inline bool process_context(void *ctx,
					    struct task_struct *cur, bool btf)
{
	__u64 base = (__u64)T_READ(btf, cur, stack), at = 0, outer;
	struct ow_stack *st;
	__u32 zero = 0, i;
	__u64 *sp = bpf_map_lookup_elem(&spill, &zero);

	/* the pointer's value as a number (about 10 ns less than a
	 * bpf_probe_read_kernel() of it) */
	if (sp) {
		*(void *volatile *)sp = ctx;
		at = *(volatile __u64 *)sp;
	}
	if (at - base >= TASK_STACK_SPAN)
		return softirq_of_task(btf);
	if (!syscall_lo || !want_kstack)
		return true;
	st = bpf_map_lookup_elem(&scratch, &zero);
	if (!st)
		return true;
	i = st->nr - 1;		/* nr 0 (no stack): not below the depth */
	if (i >= OW_MAX_STACK_DEPTH)
		return true;
	outer = st->ips[i];
	return outer >= syscall_lo && outer < syscall_hi;
}

/*
 * Whether the waker's stacks are worth walking for the wakee's block so
 * far (now - start): -m before any stack walk.  A block woken before half
 * of -m is left out at its switch-in unless it waited that long again for
 * a CPU (then it is kept without its waker's stacks, counted as
 * OW_LOSS_WAKER_EARLY).  Only with -m above the default (1 us): a wakeup
 * from another CPU can come while the switch-out's program still runs,
 * well within 0.5 us of its start.  With --chain-depth, every wakeup's
 * stacks are taken: a level above may explain a later block.
 */
static __always_inline bool waker_stacks_wanted(const struct ow_task *ti,
						__u64 now)
{
	return min_ns <= 1000 || chain_depth > 1 || !ti->start_ns ||
	       now - ti->start_ns >= min_ns / 2;
}

/* The waker's (the current task's) stacks into level l of a chain. */
static __always_inline void waker_stacks(void *ctx, struct ow_level *l,
					 struct task_struct *cur, bool btf)
{
	l->kstack = want_kstack ? get_stack(ctx, 0, btf, OW_UW_WAKER, 0, 0) :
				  OW_NO_STACK;
	l->ustack = OW_NO_STACK;
	if (!want_ustack || (T_READ(btf, cur, flags) & PF_KTHREAD) ||
	    !process_context(ctx, cur, btf))
		return;
	if (btf)	/* by the walk's program, the last thing done */
		walk_user(ctx, &walks_waking, OW_UW_WAKER, &l->ustack);
	else
		l->ustack = get_stack(ctx, BPF_F_USER_STACK, btf, OW_UW_WAKER, 0, 0);
}

static __always_inline void waking(void *ctx, struct task_struct *p, bool btf)
{
	struct task_struct *cur = btf ? bpf_get_current_task_btf() :
				 (struct task_struct *)bpf_get_current_task();
	__u32 pid;
	struct ow_task *ti;
	__u64 now, id;

	/*
	 * A task waking itself is running: it has no block to explain (and
	 * taking its stacks would keep this program busy with interrupts on,
	 * ttwu of current holds no irq-disabling lock, so that the kernel's
	 * recursion guard skipped wakeups an interrupt made meanwhile).
	 */
	if (p == cur)
		return;
	pid = T_READ(btf, p, pid);
	if (pid == 0 || !thread_ok(p, pid, btf) || !state_ok(p, btf))
		return;
	/*
	 * Created here too: the wakeup can come before the target's
	 * sched_switch (it is woken between setting its state and the
	 * tracepoint), so its first block may not have made the storage yet.
	 */
	ti = task_info(p, pid, true, btf);
	if (!ti)
		return;
	now = bpf_ktime_get_ns();
	if (ti->start_ns && now - ti->start_ns >= max_ns)
		return;		/* the block is too long already */
	id = bpf_get_current_pid_tgid();
	if (chain_depth > 1)
		chain_from_waker(ti, now, btf);
	ti->wake_ns = now;
	ti->woke_ns = now;
	ti->chain[0].pid = (__u32)id;
	ti->chain[0].tgid = id >> 32;
	if (btf)	/* (a helper call in the raw_tp program) */
		__builtin_memcpy(ti->chain[0].comm, cur->comm, OW_COMM_LEN);
	else
		bpf_get_current_comm(ti->chain[0].comm,
				     sizeof(ti->chain[0].comm));
	if (waker_stacks_wanted(ti, now)) {
		waker_stacks(ctx, &ti->chain[0], cur, btf);
	} else {
		ti->chain[0].kstack = want_kstack ? OW_STACK_SKIPPED : OW_NO_STACK;
		ti->chain[0].ustack = want_ustack &&
			!(T_READ(btf, cur, flags) & PF_KTHREAD) ?
			OW_STACK_SKIPPED : OW_NO_STACK;
	}
}

/*
 * Whether a switch this CPU made was not reported, seen from the next one
 * that takes off_pid off it: the last one seen put another task on it
 * (counted, and that task noted).  This CPU runs on_pid from now on.
 */
static __always_inline bool switched_unseen(__u32 off_pid, __u32 on_pid)
{
	__u32 zero = 0;
	__u64 *on = bpf_map_lookup_elem(&oncpu, &zero);
	bool unseen = false;

	if (!on)
		return false;
	if (*on && *on != (__u64)off_pid + 1) {
		count(&losses, OW_LOSS_HIDDEN_SWITCH);
		hidden_pid = *on - 1;
		unseen = true;
	}
	*on = (__u64)on_pid + 1;
	return unseen;
}

static __always_inline void on_switch(void *ctx, bool preempt,
				      struct task_struct *prev,
				      struct task_struct *next, bool btf)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 prev_pid, next_pid;

	if (!armed)
		return;
	prev_pid = T_READ(btf, prev, pid);
	next_pid = T_READ(btf, next, pid);
	switched_unseen(prev_pid, next_pid);
	/* next first: prev's user stack walk ends the program (walk_user()) */
	switch_in(next, next_pid, now, btf);
	switch_out(ctx, preempt, prev, prev_pid, now, btf);
}

static __always_inline void on_fork(struct task_struct *parent,
				    struct task_struct *child)
{
	__u32 pid = BPF_CORE_READ(child, pid);
	__u32 tgid = BPF_CORE_READ(child, tgid);
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	struct ow_pyproc *pp;
	struct ow_umaps *um;

	if (pid != tgid)
		return;		/* a thread: its process is traced or not */
	/* the child has its parent's maps, so its tables, from its first
	 * block (user space's copy, with the files held, comes later: until
	 * then its stacks would be deferred); a stale entry of a reused tgid
	 * is replaced */
	if (unwind_mode != UNWIND_FP &&
	    (um = bpf_map_lookup_elem(&umaps, &ptgid)) &&
	    !bpf_map_update_elem(&umaps, &tgid, um, BPF_ANY))
		umaps_gen_set(tgid, um->gen);
	/* and its interpreter, where its parent's is */
	if (python_mode && py_maybe(ptgid) &&
	    (pp = bpf_map_lookup_elem(&pyprocs, &ptgid)) &&
	    !bpf_map_update_elem(&pyprocs, &tgid, pp, BPF_ANY))
		__sync_fetch_and_or(&python_bits[OW_PY_BIT_WORD(tgid)],
				    OW_PY_BIT(tgid));
	/* --follow: a traced process's child is traced from its first
	 * switch (added here, in the kernel: no /proc polling, no gap) */
	if (follow && filter_mode == FILTER_TGID) {
		__u8 one = 1;

		if (bpf_map_lookup_elem(&threads, &ptgid))
			bpf_map_update_elem(&threads, &tgid, &one, BPF_ANY);
	}
	/* (a child outside --cgroup gets no tables: it is not traced) */
	send_event_4(OW_EV_FORK, tgid, ptgid,
		     cgroup_ok(child) ? 0 : OW_EV_OUTSIDE);
}

/*
 * A new image: user space reads its maps now (the program and the dynamic
 * loader are mapped) and again at the task's next block (libraries too).
 */
static __always_inline void on_exec(struct task_struct *p, bool btf)
{
	struct ow_task *ti = task_info(p, BPF_CORE_READ(p, pid), false, btf);
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (ti)
		ti->seen = 0;
	/* the old image's tables describe other code: its stacks are
	 * deferred until user space has loaded the new image's (asked for
	 * afresh: the once-a-second limit was the old image's) */
	bpf_map_delete_elem(&umaps, &tgid);
	umaps_gen_set(tgid, 0);
	bpf_map_delete_elem(&asked, &tgid);
	bpf_map_delete_elem(&defers, &tgid);
	bpf_map_delete_elem(&pyprocs, &tgid);	/* found again if Python */
	send_event_4(OW_EV_EXEC, tgid, 0, cgroup_ok(p) ? 0 : OW_EV_OUTSIDE);
}

/* --- the walks' programs (see walkst) ------------------------------- */

enum walk_trigger { TRIG_SWITCH, TRIG_END, TRIG_WAKING };

/* The storage a trigger's walks fill: the current task's own (its block's
 * stacks), or for a wakeup the wakee p's (its waker's). */
static __always_inline struct ow_task *walk_dest(int trig,
						 struct task_struct *p)
{
	if (trig != TRIG_WAKING)
		p = bpf_get_current_task_btf();
	return bpf_task_storage_get(&tstore, p, 0, 0);
}

static __always_inline void walk_store(struct ow_task *ti, int trig,
				       bool user, __u64 ref)
{
	if (trig == TRIG_WAKING && user)
		ti->chain[0].ustack = ref;
	else if (trig == TRIG_WAKING)
		ti->chain[0].kstack = ref;
	else if (user)
		ti->t_ustack = ref;
	else
		ti->t_kstack = ref;
}

/* What the trigger had left to do once the stacks are taken. */
static __always_inline void walk_done(struct ow_task *ti, int trig)
{
	struct task_struct *cur = bpf_get_current_task_btf();

	if (trig == TRIG_END)
		count_pending(cur, cur->pid, ti, true);
}

#define WALK_SIDE(trig)	((trig) == TRIG_WAKING ? OW_UW_WAKER : OW_UW_BLOCKED)
#define WALKS_OF(trig)	((trig) == TRIG_SWITCH ? (void *)&walks_switch :	\
			 (trig) == TRIG_END ? (void *)&walks_end :		\
			 (void *)&walks_waking)

static __always_inline void walk_ustack(void *ctx, int trig,
					struct task_struct *p)
{
	struct ow_task *ti = walk_dest(trig, p);
	__u32 zero = 0;
	struct walk_state *ws = bpf_map_lookup_elem(&walkst, &zero);
	__u64 ref;

	if (!ti || !ws)
		return;
	ref = get_stack(ctx, BPF_F_USER_STACK, true, WALK_SIDE(trig),
			WALKS_OF(trig), &ws->held);
	walk_store(ti, trig, true, ref);
	walk_done(ti, trig);
}

/* An interpreter's walk (slot: a constant), after the native one. */
static __always_inline void walk_interp(void *ctx, int trig,
					struct task_struct *p, __u32 slot)
{
	struct ow_task *ti = walk_dest(trig, p);
	__u32 zero = 0, nr;
	struct walk_state *ws = bpf_map_lookup_elem(&walkst, &zero);
	struct ow_stack *st = bpf_map_lookup_elem(&scratch, &zero);

	if (!ti || !ws || !st)
		return;
	nr = slot == OW_WALK_PYTHON ? py_append(st, ws->native) :
				      test_append(st, ws->native);
	walk_store(ti, trig, true,
		   stack_finish(st, BPF_F_USER_STACK, true, WALK_SIDE(trig), nr,
				ws->native, ws->held, 0));
	walk_done(ti, trig);
}

/* Each walk for each trigger: NAME_TRIGGER, of the trigger's hook (the
 * arguments, its prototype, last: it holds commas). */
#define WALK_PROG(prog, hook, call, ...)				\
	SEC("tp_btf/" hook)						\
	int BPF_PROG(prog, __VA_ARGS__)					\
	{								\
		call;							\
		return 0;						\
	}
#define WALK_PROGS(trig, name, hook, p, ...)				\
	WALK_PROG(walk_ustack_##name, hook, walk_ustack(ctx, trig, p),	\
		  __VA_ARGS__)						\
	WALK_PROG(walk_python_##name, hook,				\
		  walk_interp(ctx, trig, p, OW_WALK_PYTHON), __VA_ARGS__)	\
	WALK_PROG(walk_test_##name, hook,				\
		  walk_interp(ctx, trig, p, OW_WALK_TEST), __VA_ARGS__)
#define SWITCH_ARGS	bool preempt, struct task_struct *prev, struct task_struct *next
WALK_PROGS(TRIG_SWITCH, switch, "sched_switch", 0, SWITCH_ARGS)
WALK_PROGS(TRIG_END, end, "sched_exit_tp", 0, bool is_switch)
WALK_PROGS(TRIG_WAKING, waking, "sched_waking", wakee, struct task_struct *wakee)

/* --- the triggers -------------------------------------------------- */

SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	on_switch(ctx, preempt, prev, next, true);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	on_switch(ctx, preempt, prev, next, false);
	return 0;
}

/*
 * The end of __schedule(), in the context of the task it leaves on CPU
 * (kernels since 6.16; attached for lazy_stacks only): its pending block
 * counted with its stacks; when the switch to that task was not reported,
 * it is switched in here, at the right time.
 */
SEC("tp_btf/sched_exit_tp")
int BPF_PROG(schedule_end_btf, bool is_switch)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 pid = cur->pid;

	struct ow_task *ti;

	if (!armed)
		return 0;
	if (switched_unseen(pid, pid))
		switch_in(cur, pid, bpf_ktime_get_ns(), true);
	if (lazy_stacks && pid && (ti = task_info(cur, pid, false, true)))
		end_pending(ctx, cur, pid, ti, true, true);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(waking_btf, struct task_struct *p)
{
	waking(ctx, p, true);
	return 0;
}

SEC("raw_tp/sched_waking")
int BPF_PROG(waking_raw, struct task_struct *p)
{
	waking(ctx, p, false);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork_btf, struct task_struct *parent, struct task_struct *child)
{
	on_fork(parent, child);
	/*
	 * The child's storage is made now, where nothing holds this CPU's
	 * task-storage lock: a task preempted in a task-storage operation
	 * holds it (per CPU, only migration is disabled), and then storage
	 * can be found but not made, so a first switch-out would be lost.
	 */
	if (thread_ok(child, BPF_CORE_READ(child, pid), false))
		bpf_task_storage_get(&tstore, child, 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(fork_raw, struct task_struct *parent, struct task_struct *child)
{
	on_fork(parent, child);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(exec_btf, struct task_struct *p)
{
	on_exec(p, true);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(exec_raw, struct task_struct *p)
{
	on_exec(p, false);
	return 0;
}
