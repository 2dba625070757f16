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
 *   often lack.)
 * sched_switch, next coming back on CPU: the blocked time is now - start;
 *   apply the block-time filter and add it to the active counts map under
 *   a key of target and waker identity and stacks.
 *
 * Hidden switches: some kernels hide tasks from tracing (this VM's hides
 * its agent), and no program runs on a CPU while one is current.  Each
 * CPU's last switched-in task is kept (oncpu): a switch taking another
 * task off means one was hidden.  The end of schedule() (sched_exit_tp,
 * where the kernel has it) switches in a task whose switch was hidden;
 * elsewhere its next switch-out ends its block at its wakeup.
 *
 * Filters (threads, state, block time, which stacks) run here, so stacks
 * the output would not show are never taken.  Nothing is lost silently:
 * every failure is counted per cause in the losses map, and the blocks
 * counted are counted too (for the live status line).
 *
 * Stacks: bpf_get_stack() writes into a per-CPU buffer; a 64-bit hash of
 * the valid frames (63 bits used) is the stack's reference.  When the
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
 * User space drains counts0/counts1 alternately (the "active" index).
 *
 * Each program exists twice: tp_btf (task storage, direct BTF pointers)
 * and raw_tp (a pid-keyed hash map) for kernels without tp_btf; user space
 * picks one set at load time.
 */
#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "offwake.h"

#define SEEN_EVENTS	3
#define EEXIST	17
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
const volatile __u32 unwind_mode = 0;		/* enum below */
const volatile bool follow = false;		/* -p: add the processes they
						 * start (--follow, -- CMD) */
const volatile __u32 chain_depth = 1;		/* levels of waker, 1 to
						 * OW_CHAIN_MAX */
const volatile __u64 chain_age_ns = 10000000;	/* oldest wakeup of a waker
						 * that still explains it */

/* --unwind: frame pointers only; CFI tables where a process has them and
 * frame pointers elsewhere; CFI tables only. */
enum { UNWIND_FP, UNWIND_AUTO, UNWIND_CFI };

enum { FILTER_NONE, FILTER_TGID, FILTER_PID, FILTER_USER, FILTER_KERNEL };

/* Which counts map the programs add to; flipped by user space. */
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

/* Per-task bookkeeping between switch-out, wakeup and switch-in. */
struct ow_task {
	__u64 start_ns;		/* switch-out time; 0: no block tracked */
	__u64 on_ns;		/* last switch-in time */
	__u64 wake_ns;		/* waker info time; 0: none */
	__u64 woke_ns;		/* the same, kept after the block ends: how
				 * old chain[] is when this task wakes one */
	__u64 t_kstack;		/* stack references, see offwake.h */
	__u64 t_ustack;
	__u8 blocked;		/* went off CPU to sleep (not preempted) */
	__u8 seen;		/* OW_EV_SEEN events sent */
	__u8 pad[6];
	/* the waker (chain[0]) and, with --chain-depth, who woke it ... */
	struct ow_level chain[OW_CHAIN_MAX];
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

/* CFI unwind rows of every table (offwake.h); sized by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ow_urow);
} rows SEC(".maps");

/* A process's mappings that have tables (key: tgid). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct ow_umaps);
} umaps SEC(".maps");

/* When each process without tables last asked for them (ns): once a
 * second at most (a process with no CFI at all keeps having none). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} asked SEC(".maps");

/*
 * The rows found for the last pcs walked, per CPU (direct-mapped by pc and
 * tgid): stacks repeat, and a hit saves both binary searches (about 15
 * cache misses in a large table).  An entry is valid for the process's
 * umaps entry it was found with (gen).
 */
#define UW_CACHE	1024
struct uw_cached {
	__u64 pc;		/* the address looked up */
	__u32 tgid;
	__u32 gen;
	struct ow_urow row;
};
struct uw_cache {
	struct uw_cached e[UW_CACHE];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uw_cache);
} uw_cache SEC(".maps");

/* How user stacks were walked (enum ow_unwind_stat), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OW_UW_NR);
	__type(key, __u32);
	__type(value, __u64);
} unwind_stats SEC(".maps");

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

static __always_inline void send_event(__u32 type, __u32 tgid, __u32 ptgid)
{
	struct ow_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		struct ow_event k = { .type = type, .tgid = tgid, .ptgid = ptgid };
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
	e->zero = 0;
	bpf_ringbuf_submit(e, 0);
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

#ifdef __TARGET_ARCH_x86
#define USER_CS		0x33		/* 64-bit user code segment */
#define STACK_SPAN	(64 << 20)	/* frames this far above sp at most */

/*
 * The current task's user stack by its frame pointers, as the kernel's
 * perf_callchain_user() walks it (the interrupted ip, then the return
 * address of each frame), into ips; returns its size in bytes, or -1 for
 * a task this does not handle (32-bit).  Unlike the kernel, it stops at
 * a frame pointer that cannot be one: not above the previous frame, or
 * not within STACK_SPAN of the stack pointer (code built without frame
 * pointers leaves anything there).  The kernel would read on and fault,
 * which costs more than the rest of the walk (about 0.4 us here), or
 * return frames of garbage.
 */
static __always_inline long user_stack_fp(__u64 *ips)
{
	struct pt_regs *regs = (struct pt_regs *)
		bpf_task_pt_regs(bpf_get_current_task_btf());
	__u64 sp, bp, low, frame[2];
	__u32 i;

	if (BPF_CORE_READ(regs, cs) != USER_CS)
		return -1;
	sp = BPF_CORE_READ(regs, sp);
	bp = BPF_CORE_READ(regs, bp);
	ips[0] = BPF_CORE_READ(regs, ip);
	low = sp;
	for (i = 1; i < OW_MAX_STACK_DEPTH; i++) {
		if (bp < low || bp - sp >= STACK_SPAN ||
		    bpf_probe_read_user(frame, sizeof(frame), (void *)bp))
			break;
		ips[i] = frame[1];
		low = bp + sizeof(frame);
		bp = frame[0];
	}
	return i * sizeof(__u64);
}

/*
 * The CFI walk (--unwind=auto|cfi): one frame per bpf_loop() step.  For
 * the frame's pc, the process's mapping (binary search in its umaps
 * entry) gives its table, the table's rows (binary search in the rows
 * array) the rule: where the CFA is, and from it the return address
 * (CFA - 8) and the caller's rbp.  A return address is looked up one
 * byte back (the call may be a function's last instruction); an
 * interrupted pc (the first frame, or one a signal frame restores) as it
 * is.  Where no table covers the pc, --unwind=auto takes one frame by rbp
 * as user_stack_fp() does.  The walk ends honestly: at the outermost
 * frame (return address undefined), or where it cannot go on (counted by
 * cause in unwind_stats); never with a guessed frame.
 */
#define UW_ROW_STEPS	24	/* tables of up to 2^24 rows */
#define UW_MAP_STEPS	8	/* log2(OW_UMAPS) + 1 */
#define UW_SIGCONTEXT_RBP	80	/* struct sigcontext_64 */
#define UW_SIGCONTEXT_RSP	120
#define UW_SIGCONTEXT_RIP	128

struct uw_walk {
	__u64 *ips;
	struct ow_umaps *um;	/* NULL: the process has no tables */
	struct uw_cache *cache;	/* this CPU's */
	__u32 tgid;
	__u64 ip, sp, bp;
	__u64 low;		/* the frame-pointer walk's lower bound */
	__u32 n;		/* frames in ips */
	__u8 exact;		/* ip is an interrupted pc, not a return address */
	__u8 cfi, fp;		/* frames found by each method */
	__u8 stop;		/* enum ow_unwind_stat, or OW_UW_NR: none yet */
};

/*
 * The two searches are global functions: the verifier checks each once,
 * on its own, instead of every path through them at every call (which
 * multiplies with each binary search step and exceeds its limits).
 */

/* The index of the mapping of um containing ip, or -1. */
__noinline int uw_map(const struct ow_umaps *um, __u64 ip)
{
	__u32 lo = 0, hi, mid;

	if (!um)
		return -1;
	hi = um->n;
	if (hi > OW_UMAPS)
		hi = OW_UMAPS;
	for (int k = 0; k < UW_MAP_STEPS && lo < hi; k++) {
		mid = lo + (hi - lo) / 2;
		if (um->m[mid & (OW_UMAPS - 1)].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ip >= um->m[(lo - 1) & (OW_UMAPS - 1)].end)
		return -1;
	return lo - 1;
}

/* The index in rows of the last of rows[first .. first + n) whose pc is
 * <= pc, or -1. */
__noinline int uw_row(__u32 first, __u32 n, __u32 pc)
{
	__u32 lo = 0, hi = n, mid, idx;
	const struct ow_urow *r;

	for (int k = 0; k < UW_ROW_STEPS && lo < hi; k++) {
		mid = lo + (hi - lo) / 2;
		idx = first + mid;
		r = bpf_map_lookup_elem(&rows, &idx);
		if (!r)
			return -1;
		if (r->pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? (int)(first + lo - 1) : -1;
}

/* Ask user space for tgid's tables (see asked). */
static __always_inline void ask_tables(__u32 tgid)
{
	__u64 now = bpf_ktime_get_ns(), *last = bpf_map_lookup_elem(&asked, &tgid);

	if (last && now - *last < 1000000000ULL)
		return;
	bpf_map_update_elem(&asked, &tgid, &now, BPF_ANY);
	send_event(OW_EV_TABLES, tgid, 0);
}

/* One frame by rbp (no table here); 1: the walk stops. */
static __always_inline int uw_step_fp(struct uw_walk *w)
{
	__u64 frame[2];

	if (unwind_mode == UNWIND_CFI) {
		w->stop = OW_UW_STOP_NOTABLE;
		return 1;
	}
	if (w->bp < w->low || w->bp - w->sp >= STACK_SPAN ||
	    bpf_probe_read_user(frame, sizeof(frame), (void *)w->bp)) {
		w->stop = OW_UW_STOP_NOTABLE;
		return 1;
	}
	w->ip = frame[1];
	w->sp = w->bp + sizeof(frame);
	w->low = w->sp;
	w->bp = frame[0];
	w->exact = 0;
	w->fp = 1;
	return 0;
}

static int uw_step(__u32 i, void *ctx)
{
	struct uw_walk *w = ctx;
	const struct ow_umap *m;
	const struct ow_urow *r = 0;
	struct uw_cached *ce = 0;
	__u64 cfa, ra, regs[3], pc;
	__u32 n = w->n, idx;
	int k;

	if (n >= OW_MAX_STACK_DEPTH) {
		w->stop = OW_UW_STOP_DEPTH;
		return 1;
	}
	if (w->ip < 4096) {		/* a null return address: the end */
		w->stop = OW_UW_END;
		return 1;
	}
	w->ips[n] = w->ip;
	w->n = n + 1;
	pc = w->ip - !w->exact;
	if (w->um && w->cache) {
		idx = (__u32)(pc ^ (pc >> 11) ^ (w->tgid * 0x9e3779b1U));
		ce = &w->cache->e[idx & (UW_CACHE - 1)];
		if (ce->pc == pc && ce->tgid == w->tgid && ce->gen == w->um->gen)
			r = &ce->row;
	}
	k = !r && w->um ? uw_map(w->um, w->ip) : -1;
	if (!r && w->um && k < 0)
		ask_tables(w->tgid);	/* a library loaded since (dlopen)? */
	if (k >= 0) {
		barrier_var(k);		/* uw_map() gives < OW_UMAPS: the mask
					 * is the bound the verifier sees */
		m = &w->um->m[k & (OW_UMAPS - 1)];
		k = uw_row(m->first, m->nrows, (__u32)(pc - m->adj));
		idx = k;
		if (k >= 0)
			r = bpf_map_lookup_elem(&rows, &idx);
		if (r && ce) {
			ce->pc = pc;
			ce->tgid = w->tgid;
			ce->gen = w->um->gen;
			ce->row = *r;
		}
	}
	if (!r || r->cfa == OW_CFA_NONE) {
		if (r && unwind_mode == UNWIND_CFI) {
			w->stop = OW_UW_STOP_RULE;
			return 1;
		}
		return uw_step_fp(w);
	}
	w->cfi = 1;
	switch (r->cfa) {
	case OW_CFA_RSP:
		cfa = w->sp + r->off;
		break;
	case OW_CFA_RSP_X8:
		cfa = w->sp + 8 * (__s64)r->off;
		break;
	case OW_CFA_RBP:
		cfa = w->bp + r->off;
		break;
	case OW_CFA_PLT:
		cfa = w->sp + 8 + ((w->ip & 15) >= (__u64)r->off ? 8 : 0);
		break;
	case OW_CFA_END:
		w->stop = OW_UW_END;
		return 1;
	case OW_CFA_SIGNAL:
		/* the interrupted registers, saved in the sigcontext */
		cfa = w->sp + r->off;
		if (bpf_probe_read_user(&regs[0], 8, (void *)(cfa + UW_SIGCONTEXT_RBP)) ||
		    bpf_probe_read_user(&regs[1], 8, (void *)(cfa + UW_SIGCONTEXT_RSP)) ||
		    bpf_probe_read_user(&regs[2], 8, (void *)(cfa + UW_SIGCONTEXT_RIP))) {
			w->stop = OW_UW_STOP_READ;
			return 1;
		}
		w->bp = regs[0];
		w->sp = w->low = regs[1];
		w->ip = regs[2];
		w->exact = 1;
		return 0;
	default:
		w->stop = OW_UW_STOP_RULE;
		return 1;
	}
	if (cfa <= w->sp || cfa - w->sp >= STACK_SPAN) {
		w->stop = OW_UW_STOP_BAD;
		return 1;
	}
	/* rbp pushed first (CFA - 16, beside the return address) is the
	 * common case of code with frame pointers: one read for both */
	if (r->rbp == -2) {
		if (bpf_probe_read_user(regs, 16, (void *)(cfa - 16))) {
			w->stop = OW_UW_STOP_READ;
			return 1;
		}
		w->bp = regs[0];
		ra = regs[1];
	} else if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)) ||
		   (r->rbp && bpf_probe_read_user(&w->bp, sizeof(w->bp),
						  (void *)(cfa + 8 * (__s64)r->rbp)))) {
		w->stop = OW_UW_STOP_READ;
		return 1;
	}
	w->ip = ra;
	w->sp = w->low = cfa;
	w->exact = 0;
	return 0;
}

/* The current task's user stack by CFI (see uw_step), into ips; its size
 * in bytes, or -1 for a task this does not handle (32-bit). */
static __always_inline long user_stack_cfi(__u64 *ips)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct uw_walk w = {};
	__u32 tgid = task->tgid, zero = 0;

	if (BPF_CORE_READ(regs, cs) != USER_CS)
		return -1;
	w.um = bpf_map_lookup_elem(&umaps, &tgid);
	if (!w.um)
		ask_tables(tgid);
	if (!w.um && unwind_mode == UNWIND_AUTO) {
		count(&unwind_stats, OW_UW_FP);
		return user_stack_fp(ips);
	}
	w.ips = ips;
	w.tgid = tgid;
	w.cache = bpf_map_lookup_elem(&uw_cache, &zero);
	w.ip = BPF_CORE_READ(regs, ip);
	w.sp = w.low = BPF_CORE_READ(regs, sp);
	w.bp = BPF_CORE_READ(regs, bp);
	w.exact = 1;
	w.stop = OW_UW_NR;
	bpf_loop(OW_MAX_STACK_DEPTH, uw_step, &w, 0);
	if (w.stop == OW_UW_NR)
		w.stop = OW_UW_STOP_DEPTH;
	count(&unwind_stats, w.cfi ? (w.fp ? OW_UW_MIXED : OW_UW_CFI) : OW_UW_FP);
	count(&unwind_stats, w.stop);
	return w.n * sizeof(__u64);
}
#endif

/* bpf_get_stack() for the current task, user stacks by user_stack_cfi()
 * or user_stack_fp(). */
static __always_inline long take_stack(void *ctx, __u64 *ips, __u64 flags,
				       bool btf)
{
#ifdef __TARGET_ARCH_x86
	long len;

	if ((flags & BPF_F_USER_STACK) && btf) {
		len = unwind_mode == UNWIND_FP ? user_stack_fp(ips) :
						 user_stack_cfi(ips);
		if (len >= 0)
			return len;
	}
#endif
	return bpf_get_stack(ctx, ips, OW_MAX_STACK_DEPTH * sizeof(*ips),
			     flags);
}

/*
 * The current stack (kernel, or user with BPF_F_USER_STACK) as a
 * reference (see offwake.h); a stack not sent before is sent now.  Every
 * failure is counted by cause.
 */
static __always_inline __u64 get_stack(void *ctx, __u64 flags, bool btf)
{
	struct ow_stack *st;
	__u32 zero = 0, nr, slot;
	long len;
	__u64 h, *sent;

	st = bpf_map_lookup_elem(&scratch, &zero);
	if (!st)
		return ENOSPC;
	len = take_stack(ctx, st->ips, flags, btf);
	if (len < 0) {
		count(&losses, len == -EFAULT ? OW_LOSS_STACK_FAULT :
						OW_LOSS_STACK_OTHER);
		return -len;
	}
	nr = (__u64)len / sizeof(__u64);
	if (!nr)
		return OW_NO_STACK;
	h = hash_step(flags, nr);
	for (__u32 i = 0; i < OW_MAX_STACK_DEPTH && i < nr; i++)
		h = hash_step(h, st->ips[i]);
	h = hash_end(h) | OW_STACK_HASH;
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
	return h;
}

static __always_inline __u32 task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

static __always_inline bool state_ok(struct task_struct *t)
{
	__u32 s;

	if (!state_filter)
		return true;
	s = task_state(t);
	/* as bcc's offwaketime: 0 selects running (preempted) tasks, any
	 * other mask a task with any of its bits ("p->__state & MASK") */
	if (state_mask == 0)
		return s == 0;
	return (s & state_mask) != 0;
}

static __always_inline bool thread_ok(struct task_struct *t, __u32 pid)
{
	__u32 id;

	switch (filter_mode) {
	case FILTER_TGID:
		id = BPF_CORE_READ(t, tgid);
		return bpf_map_lookup_elem(&threads, &id) != 0;
	case FILTER_PID:
		return bpf_map_lookup_elem(&threads, &pid) != 0;
	case FILTER_USER:
		return !(BPF_CORE_READ(t, flags) & PF_KTHREAD);
	case FILTER_KERNEL:
		return BPF_CORE_READ(t, flags) & PF_KTHREAD;
	}
	return true;
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
		send_event(OW_EV_SEEN, BPF_CORE_READ(t, tgid), 0);
	}
	return ti;
}

static __always_inline void add_count(struct ow_key *key, __u64 delta)
{
	void *map = (active & 1) ? (void *)&counts1 : (void *)&counts0;
	__u64 *v;
	long err;

	count(&blocks, 0);

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

/*
 * Add the block of t that ended at end (start_ns to end) to the counts,
 * with the waker's identity and stacks when woken says they are its own.
 */
static __always_inline void end_block(struct task_struct *t, __u32 pid,
				      struct ow_task *ti, __u64 end,
				      bool woken)
{
	struct ow_key key = {};
	__u64 delta = end - ti->start_ns;

	ti->start_ns = 0;
	if (delta < min_ns || delta >= max_ns) {
		count(&filtered, delta < min_ns ? OW_F_SHORT : OW_F_LONG);
		return;
	}

	BPF_CORE_READ_INTO(&key.target, t, comm);
	key.t_pid = pid;
	key.t_tgid = BPF_CORE_READ(t, tgid);
	key.t_kstack = ti->t_kstack;
	key.t_ustack = ti->t_ustack;
	if (woken) {
		__builtin_memcpy(key.waker, ti->chain[0].comm, OW_COMM_LEN);
		key.w_pid = ti->chain[0].pid;
		key.w_tgid = ti->chain[0].tgid;
		key.w_kstack = ti->chain[0].kstack;
		key.w_ustack = ti->chain[0].ustack;
#pragma unroll
		for (__u32 i = 1; i < OW_CHAIN_MAX; i++)
			if (i < chain_depth)
				key.up[i - 1] = ti->chain[i];
	} else if (ti->blocked) {
		count(&losses, OW_LOSS_WAKER);
	}
	add_count(&key, delta);
}

/*
 * t is going off CPU again while its last block never ended: the switch
 * that put it back on CPU was not reported (see hidden_pid).  A block
 * whose wakeup was seen ends at that wakeup (its wait for a CPU is left
 * out); any other (a wakeup not seen either, or a preemption) is counted
 * as lost.
 */
static __always_inline void end_hidden_block(struct task_struct *t,
					     __u32 pid, struct ow_task *ti,
					     __u64 now)
{
	if (ti->blocked && ti->wake_ns > ti->start_ns) {
		count(&losses, OW_LOSS_END_AT_WAKEUP);
		end_block(t, pid, ti, ti->wake_ns, true);
	} else {
		count(&losses, OW_LOSS_END_HIDDEN);
		ti->start_ns = 0;
	}
	ti->on_ns = now;
	ti->wake_ns = 0;
}

static __always_inline void switch_out(void *ctx, bool preempt,
				       struct task_struct *prev, __u32 pid,
				       __u64 now, bool btf)
{
	struct ow_task *ti;
	__u32 state;
	bool keep;

	if (pid == 0 || !thread_ok(prev, pid))
		return;
	count(&filtered, OW_F_SWITCHES);
	keep = state_ok(prev);
	if (!keep)
		count(&filtered, OW_F_STATE);
	ti = task_info(prev, pid, keep, btf);
	if (!ti)
		return;
	if (ti->start_ns)
		end_hidden_block(prev, pid, ti, now);
	if (!keep)
		return;
	state = task_state(prev);
	ti->start_ns = now;
	/* A task preempted while it was going to sleep is still runnable. */
	ti->blocked = !preempt && state != 0;
	if (!ti->blocked)
		ti->wake_ns = 0;	/* preempted: no wakeup will come */
	ti->t_kstack = want_kstack ? get_stack(ctx, 0, btf) : OW_NO_STACK;
	if (want_ustack && !(BPF_CORE_READ(prev, flags) & PF_KTHREAD))
		ti->t_ustack = get_stack(ctx, BPF_F_USER_STACK, btf);
	else
		ti->t_ustack = OW_NO_STACK;
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
	if (ti->start_ns)
		end_block(next, pid, ti, now, ti->wake_ns > last_on);
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

static __always_inline void waking(void *ctx, struct task_struct *p, bool btf)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
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
	pid = BPF_CORE_READ(p, pid);
	if (pid == 0 || !thread_ok(p, pid) || !state_ok(p))
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
	bpf_get_current_comm(ti->chain[0].comm, sizeof(ti->chain[0].comm));
	ti->chain[0].kstack = want_kstack ? get_stack(ctx, 0, btf) : OW_NO_STACK;
	if (want_ustack && !(BPF_CORE_READ(cur, flags) & PF_KTHREAD))
		ti->chain[0].ustack = get_stack(ctx, BPF_F_USER_STACK, btf);
	else
		ti->chain[0].ustack = OW_NO_STACK;
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
	prev_pid = BPF_CORE_READ(prev, pid);
	next_pid = BPF_CORE_READ(next, pid);
	switched_unseen(prev_pid, next_pid);
	switch_out(ctx, preempt, prev, prev_pid, now, btf);
	switch_in(next, next_pid, now, btf);
}

static __always_inline void on_fork(struct task_struct *parent,
				    struct task_struct *child)
{
	__u32 pid = BPF_CORE_READ(child, pid);
	__u32 tgid = BPF_CORE_READ(child, tgid);

	if (pid != tgid)
		return;		/* a thread: its process is traced or not */
	/* --follow: a traced process's child is traced from its first
	 * switch (added here, in the kernel: no /proc polling, no gap) */
	if (follow && filter_mode == FILTER_TGID) {
		__u32 ptgid = BPF_CORE_READ(parent, tgid);
		__u8 one = 1;

		if (bpf_map_lookup_elem(&threads, &ptgid))
			bpf_map_update_elem(&threads, &tgid, &one, BPF_ANY);
	}
	send_event(OW_EV_FORK, tgid, BPF_CORE_READ(parent, tgid));
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
	/* the old image's tables describe other code: frame pointers until
	 * user space has loaded the new image's */
	bpf_map_delete_elem(&umaps, &tgid);
	send_event(OW_EV_EXEC, BPF_CORE_READ(p, tgid), 0);
}

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
 * (kernels since 6.16; attached where it exists): when the switch to that
 * task was not reported, it is switched in here, at the right time.
 */
SEC("tp_btf/sched_exit_tp")
int BPF_PROG(schedule_end_btf, bool is_switch)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 pid = BPF_CORE_READ(cur, pid);

	if (armed && switched_unseen(pid, pid))
		switch_in(cur, pid, bpf_ktime_get_ns(), true);
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
	if (thread_ok(child, BPF_CORE_READ(child, pid)))
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
