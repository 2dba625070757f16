/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * unwind_native.bpf.h - the native code unwinder: a task's user stack
 * walked by the CFI tables user space puts in the rows and umaps maps
 * (src/unwind/native_maps.c, built by src/unwind/native_tables.c; the
 * records in unwind_native.h), with frames by frame pointers where no
 * table covers the pc (--unwind=auto) or for every frame (--unwind=fp).
 *
 * It knows nothing of the programs that call it (sched_switch,
 * sched_waking): uw_user_stack(task, ips) fills ips with the user stack
 * of task, which must be the current task (its memory is read with
 * bpf_probe_read_user()), leaf first, and returns its size in bytes, or
 * -1 for a task it does not handle (32-bit, another architecture: the
 * caller falls back to bpf_get_stack()).  The next unwinder (an
 * interpreter's: CPython) goes beside it, in a header of its own.
 *
 * The includer provides vmlinux_min.h, the bpf/ helpers' headers and
 * offwake.h, and the functions declared below: count() (a per-CPU
 * counter) and send_event() (a record for user space: here, to ask for a
 * process's tables).  A stack it
 * cannot walk because its process's tables are late is deferred
 * (unwind_copy.bpf.h): uw_user_stack() returns UW_DEFERRED, and the
 * stack's reference in ips[0].
 */
#ifndef UNWIND_NATIVE_BPF_H
#define UNWIND_NATIVE_BPF_H

static __always_inline void count(void *map, __u32 idx);
static __always_inline void send_event(__u32 type, __u32 tgid, __u32 ptgid);

#include "unwind_copy.bpf.h"	/* where tables are late: walked later */

/* Set by user space before load: enum below. */
const volatile __u32 unwind_mode = 0;

/* --unwind: frame pointers only; CFI tables where a process has them and
 * frame pointers elsewhere; CFI tables only. */
enum { UNWIND_FP, UNWIND_AUTO, UNWIND_CFI };

/* CFI unwind rows of every table (unwind_native.h); sized by user space. */
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

/* Their generations, by tgid's slot (unwind_native.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OW_UMAPS_GEN_SLOTS);
	__type(key, __u32);
	__type(value, struct ow_umaps_gen);
} umaps_gen SEC(".maps");

/* tgid's slot of umaps_gen (shared with other tgids), or NULL. */
static __always_inline struct ow_umaps_gen *umaps_gen_slot(__u32 tgid)
{
	__u32 slot = tgid & (OW_UMAPS_GEN_SLOTS - 1);

	return bpf_map_lookup_elem(&umaps_gen, &slot);
}

/* Set tgid's generation (0: no tables). */
static __always_inline void umaps_gen_set(__u32 tgid, __u32 gen)
{
	struct ow_umaps_gen *g = umaps_gen_slot(tgid);

	if (g)	/* one 8-byte store: a reader sees both or neither */
		*(volatile __u64 *)g = (__u64)gen << 32 | tgid;
}

/*
 * tgid's tables' generation: 0 when it has none (umaps holds no entry).
 * Its slot first, then umaps.
 */
static __always_inline __u32 umaps_gen_of(__u32 tgid)
{
	struct ow_umaps_gen *g = umaps_gen_slot(tgid);
	struct ow_umaps *um;
	__u64 v;

	if (g) {
		v = *(volatile __u64 *)g;
		if ((__u32)v == tgid)
			return v >> 32;
	}
	um = bpf_map_lookup_elem(&umaps, &tgid);
	return um ? um->gen : 0;
}

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
	__uint(max_entries, OW_UW_NR * OW_UW_SIDES);
	__type(key, __u32);
	__type(value, __u64);
} unwind_stats SEC(".maps");

#ifdef __TARGET_ARCH_x86
#define USER_CS		0x33		/* 64-bit user code segment */
#define STACK_SPAN	(64 << 20)	/* frames this far above sp at most */

/*
 * What a walk read (per CPU: the last walk's), for the user stack
 * cache (ustack_cache.bpf.h): the walk is a function of the registers it
 * started from, the tables and the words it read, so a stack whose
 * registers and words are unchanged would be walked the same again.  Step
 * i (frame i to frame i + 1) read the return address ra at cfa - 8 and,
 * when rbp is not 0, the caller's rbp bp at cfa + 8 * rbp.  Kept only for
 * a walk that read nothing else (odd: it did) and reached the outermost
 * frame with every pc in a table (ok), or, by frame pointers, ended where
 * the last frame pointer read cannot be one (ok; cls OW_UW_NR: such walks
 * are not counted in unwind_stats).
 */
#define UW_TRAIL	64		/* steps kept (steps says how many were) */
struct uw_read {
	__u64 cfa, ra, bp;
	__s8 rbp;
	__u8 pad[7];
};
struct uw_trail {
	__u64 ip, sp, bp;	/* the registers the walk started from */
	__u32 steps;
	__u32 gen;		/* of the process's tables (umaps) */
	__u8 ok, odd;
	__u8 cls, stop, unfollowed;	/* its counts (uw_count()) */
	__u8 pad[3];
	struct uw_read s[UW_TRAIL];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uw_trail);
} uw_trails SEC(".maps");

/*
 * The current task's user stack by its frame pointers, as the kernel's
 * perf_callchain_user() walks it (the interrupted ip, then the return
 * address of each frame), into ips; returns its size in bytes, or -1 for
 * a task this does not handle (32-bit).  Unlike the kernel, it stops at
 * a frame pointer that cannot be one: not above the previous frame, or
 * not within STACK_SPAN of the stack pointer (code built without frame
 * pointers leaves anything there).  The kernel would read on and fault,
 * which costs more than the rest of the walk (about 0.4 us here), or
 * return frames of garbage.  A global function (its loop verified once,
 * not again at each of its callers and their states); st NULL: -1.
 */
__noinline long user_stack_fp(struct ow_stack *st, struct uw_trail *t)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 sp, bp, low, frame[2], *ips;
	__u32 i;
	bool ended = false;

	if (!st)
		return -1;
	ips = st->ips;
	if (BPF_CORE_READ(regs, cs) != USER_CS)
		return -1;
	sp = BPF_CORE_READ(regs, sp);
	bp = BPF_CORE_READ(regs, bp);
	ips[0] = BPF_CORE_READ(regs, ip);
	if (t) {
		t->ip = ips[0];
		t->sp = sp;
		t->bp = bp;
		t->odd = 0;
		t->gen = 0;
		t->cls = OW_UW_NR;
	}
	low = sp;
	for (i = 1; i < OW_MAX_STACK_DEPTH; i++) {
		if (bp < low || bp - sp >= STACK_SPAN) {
			ended = true;	/* (what the words read say) */
			break;
		}
		if (bpf_probe_read_user(frame, sizeof(frame), (void *)bp))
			break;
		ips[i] = frame[1];
		if (t && i - 1 < UW_TRAIL) {
			t->s[i - 1].cfa = bp + sizeof(frame);
			t->s[i - 1].rbp = -2;
			t->s[i - 1].ra = frame[1];
			t->s[i - 1].bp = frame[0];
		}
		low = bp + sizeof(frame);
		bp = frame[0];
	}
	if (t) {
		t->steps = i - 1;
		t->ok = ended;
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
 * as user_stack_fp() does.  rbx is followed for rows whose CFA is rbx +
 * off (ld.so's lazy-binding resolver): its value at the switch comes from
 * the task's registers, and each frame that saved it moves where the
 * caller's value is (bx_at); it is read only when a row needs it.  A
 * frame walked by rbp, or whose rbx rule a row cannot say, leaves it
 * unknown until a frame above saves it again.  The walk ends honestly: at the outermost
 * frame (return address undefined), or where it cannot go on (counted by
 * cause in unwind_stats); never with a guessed frame.
 */
#define UW_ROW_STEPS	24	/* tables of up to 2^24 rows */
#define UW_SIGCONTEXT_RBP	80	/* struct sigcontext_64 */
#define UW_SIGCONTEXT_RBX	88
#define UW_SIGCONTEXT_RSP	120
#define UW_SIGCONTEXT_RIP	128

/* A walk's state: scalars only (uw_frame() sees it as plain memory). */
struct uw_walk {
	__u32 tgid;
	__u64 ip, sp, bp;
	__u64 bx;		/* rbx, when bx_at is 0 */
	__u64 bx_at;		/* else the address rbx is saved at */
	__u64 low;		/* the frame-pointer walk's lower bound */
	__u32 n;		/* frames in ips */
	__u8 exact;		/* ip is an interrupted pc, not a return address */
	__u8 cfi, fp;		/* frames found by each method */
	__u8 stop;		/* enum ow_unwind_stat, or OW_UW_NR: none yet */
	__u8 bx_ok;		/* rbx (bx, bx_at) is known */
	__u8 unfollowed;	/* a row OW_NONE_RULE was met */
	/* (the u8s after n: a field put between them made this kernel's
	 * verifier (6.18) fail uw_step with "verifier bug: callback
	 * leftover stack slots": add new ones at the end) */
	__u64 miss;		/* a pc found by CFI in no mapping of um
				 * (tables late?), 0: none */
};

/* What a frame's step works with: the state, the maps' values it reads
 * and writes (bpf_loop()'s context for uw_step()). */
struct uw_loop {
	struct uw_walk w;
	struct ow_umaps *um;	/* NULL: the process has no tables */
	struct ow_stack *st;	/* the frames found */
	struct uw_cache *cache;	/* this CPU's */
	struct uw_trail *trail;	/* what the walk read (NULL: not kept) */
};

/* A word the walk read and where: see struct uw_trail. */
static __always_inline void uw_trail_add(struct uw_walk *w, struct uw_trail *t,
					 __u64 cfa, __s8 rbp, __u64 ra, __u64 bp)
{
	__u32 i = w->n - 1;

	if (!t)
		return;
	t->steps = w->n;
	if (i >= UW_TRAIL)
		return;
	t->s[i].cfa = cfa;
	t->s[i].rbp = rbp;
	t->s[i].ra = ra;
	t->s[i].bp = bp;
}

/* A step whose reads a trail does not say (realigned, signal, rbx-based
 * frames). */
static __always_inline void uw_trail_odd(struct uw_trail *t)
{
	if (t)
		t->odd = 1;
}

/*
 * The two searches are global functions: the verifier checks each once,
 * on its own, instead of every path through them at every call (which
 * multiplies with each binary search step and exceeds its limits).
 */

/*
 * The index of the mapping of um containing ip, or -1.  The search takes
 * power-of-two steps (idx gains one bit a step): the verifier sees fewer
 * distinct states than with lo/hi bounds (those exceeded its limit at
 * OW_UMAPS 512).
 */
/*
 * One step of uw_map()'s search: idx | step when the first idx | step
 * entries (of n) start at or below ip, else idx.  A global function: its
 * result is a number the verifier does not follow, where inline each
 * step's two outcomes doubled the paths after it (2^9 of them, about
 * 60k instructions processed of each program's 116k).
 */
__noinline __u32 uw_map_step(const struct ow_umaps *um, __u32 n, __u32 idx,
			     __u32 step, __u64 ip)
{
	__u32 j = idx | step;

	if (um && j <= n && j <= OW_UMAPS &&
	    um->m[(j - 1) & (OW_UMAPS - 1)].start <= ip)
		return j;
	return idx;
}

__noinline int uw_map(const struct ow_umaps *um, __u64 ip)
{
	__u32 n, idx = 0;

	if (!um)
		return -1;
	n = um->n;
	if (n > OW_UMAPS)
		n = OW_UMAPS;
	/* idx: how many of the first entries start at or below ip */
	for (__u32 step = OW_UMAPS / 2; step; step >>= 1)
		idx = uw_map_step(um, n, idx, step, ip);
	if (idx > OW_UMAPS)	/* (it is not: a bound the verifier sees) */
		return -1;
	barrier_var(idx);	/* (the masks below kept) */
	if (idx < n && um->m[idx & (OW_UMAPS - 1)].start <= ip)
		idx++;		/* n == OW_UMAPS: the last entry */
	barrier_var(idx);
	if (!idx || ip >= um->m[(idx - 1) & (OW_UMAPS - 1)].end)
		return -1;
	return idx - 1;
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

/* One frame by rbp where the table has nothing to follow (why: no row,
 * or a rule we do not follow, the reason a stop is counted as); 1: the
 * walk stops. */
static __always_inline int uw_step_fp(struct uw_walk *w, struct uw_trail *t,
				      __u8 why)
{
	__u64 frame[2];

	if (unwind_mode == UNWIND_CFI ||
	    w->bp < w->low || w->bp - w->sp >= STACK_SPAN ||
	    bpf_probe_read_user(frame, sizeof(frame), (void *)w->bp)) {
		w->stop = why;
		return 1;
	}
	uw_trail_add(w, t, w->bp + sizeof(frame), -2, frame[1], frame[0]);
	w->ip = frame[1];
	w->sp = w->bp + sizeof(frame);
	w->low = w->sp;
	w->bp = frame[0];
	w->exact = 0;
	w->fp = 1;
	w->bx_ok = 0;		/* saved somewhere no table says */
	return 0;
}

/*
 * A realigned frame (gcc's DRAP): the CFA was saved below rbp (at rbp +
 * 8 * r->rbp), rbp itself where rbp points; rbx, when saved, relative to
 * rbp: lost.  A frame-pointer step would take rbp + 16 for the CFA, off
 * by the alignment's padding, and add a wrong frame above.  1: the walk
 * stops.
 */
static __always_inline int uw_step_drap(struct uw_walk *w, struct uw_trail *t,
					const struct ow_urow *r)
{
	__u64 cfa, bp, ra;

	uw_trail_odd(t);
	if (bpf_probe_read_user(&cfa, sizeof(cfa),
				(void *)(w->bp + 8 * (__s64)r->rbp)) ||
	    bpf_probe_read_user(&bp, sizeof(bp), (void *)w->bp)) {
		w->stop = OW_UW_STOP_READ;
		return 1;
	}
	if (cfa <= w->sp || cfa - w->sp >= STACK_SPAN) {
		w->stop = OW_UW_STOP_BAD;
		return 1;
	}
	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8))) {
		w->stop = OW_UW_STOP_READ;
		return 1;
	}
	if (r->rbx)
		w->bx_ok = 0;
	w->cfi = 1;
	w->ip = ra;
	w->bp = bp;
	w->sp = w->low = cfa;
	w->exact = 0;
	return 0;
}

/*
 * Whether the return address w->ip, whose byte before is in no table's
 * range, is the first byte of one: a frame entered by a pushed address,
 * not by a call (makecontext's __start_context, a coroutine's entry):
 * the outermost frame of that stack.
 */
static __always_inline bool uw_entry(struct uw_walk *w,
				     const struct ow_umaps *um)
{
	const struct ow_urow *r;
	const struct ow_umap *m;
	int k = uw_map(um, w->ip);
	__u32 pc, idx;

	if (k < 0)
		return false;
	barrier_var(k);
	m = &um->m[k & (OW_UMAPS - 1)];
	pc = (__u32)(w->ip - m->adj);
	k = uw_row(m->first, m->nrows, pc);
	idx = k;
	r = k >= 0 ? bpf_map_lookup_elem(&rows, &idx) : 0;
	return r && r->pc == pc && r->cfa != OW_CFA_NONE;
}

/* rbx of the frame being walked into w->bx; 1: the walk stops. */
static __always_inline int uw_rbx(struct uw_walk *w)
{
	if (!w->bx_ok) {
		w->stop = OW_UW_STOP_RULE;
		return 1;
	}
	if (w->bx_at) {
		if (bpf_probe_read_user(&w->bx, sizeof(w->bx), (void *)w->bx_at)) {
			w->stop = OW_UW_STOP_READ;
			return 1;
		}
		w->bx_at = 0;
	}
	return 0;
}

/*
 * One frame of the walk: 0 to go on, 1 when it stops (why in w->stop).  A
 * global function, verified once on its own: as bpf_loop()'s callback
 * itself it was verified again for each frame until the walk's states
 * converged, which they do not (the frame count is an index), about 400k
 * of a program's 529k instructions processed.  Its pointers come as
 * arguments (um, cache, trail may be NULL): a global function sees its
 * memory arguments as plain bytes.
 */
/*
 * The row for pc (w->ip's, one byte back unless exact) into *row, through
 * this CPU's cache of them: 1 found, 0 none (w->miss set when no mapping
 * of um has pc: a library loaded since?).  A global function of its own:
 * inside uw_frame() its paths multiplied with the rules'.
 */
__noinline int uw_lookup(struct uw_walk *w, const struct ow_umaps *um,
			 struct uw_cache *cache, __u64 pc, struct ow_urow *row)
{
	const struct ow_urow *r = 0;
	const struct ow_umap *m;
	struct uw_cached *ce = 0;
	__u32 idx;
	int k;

	if (!w || !um || !row)
		return 0;
	if (cache) {
		idx = (__u32)(pc ^ (pc >> 11) ^ (w->tgid * 0x9e3779b1U));
		ce = &cache->e[idx & (UW_CACHE - 1)];
		if (ce->pc == pc && ce->tgid == w->tgid && ce->gen == um->gen) {
			*row = ce->row;
			return 1;
		}
	}
	k = uw_map(um, w->ip);
	if (k < 0) {
		if (!w->miss)	/* (1: no frame to defer for) */
			w->miss = w->fp ? 1 : w->ip;
		return 0;
	}
	barrier_var(k);		/* uw_map() gives < OW_UMAPS: the mask is
				 * the bound the verifier sees */
	m = &um->m[k & (OW_UMAPS - 1)];
	k = uw_row(m->first, m->nrows, (__u32)(pc - m->adj));
	idx = k;
	if (k < 0 || !(r = bpf_map_lookup_elem(&rows, &idx)))
		return 0;
	*row = *r;
	if (ce) {
		ce->pc = pc;
		ce->tgid = w->tgid;
		ce->gen = um->gen;
		ce->row = *r;
	}
	return 1;
}

__noinline int uw_frame(struct uw_walk *w, const struct ow_umaps *um,
			struct ow_stack *st, struct uw_cache *cache,
			struct uw_trail *t)
{
	struct ow_urow row;
	const struct ow_urow *r = 0;
	__u64 cfa, ra, regs[3], pc;
	__u32 n;

	if (!w || !st)
		return 1;
	n = w->n;
	if (n >= OW_MAX_STACK_DEPTH) {
		w->stop = OW_UW_STOP_DEPTH;
		return 1;
	}
	if (w->ip < 4096) {		/* a null return address: the end */
		w->stop = OW_UW_END;
		return 1;
	}
	st->ips[n] = w->ip;
	w->n = n + 1;
	pc = w->ip - !w->exact;
	if (uw_lookup(w, um, cache, pc, &row))
		r = &row;
	if (r && r->cfa == OW_CFA_NONE && r->off == OW_DRAP_RULE)
		return uw_step_drap(w, t, r);
	if (!r || r->cfa == OW_CFA_NONE) {
		if (r && r->off == OW_NONE_RULE) {
			w->unfollowed = 1;
			if (r->rbp != -2) {	/* no frame pointer's layout */
				w->stop = OW_UW_STOP_RULE;
				return 1;
			}
			return uw_step_fp(w, t, OW_UW_STOP_RULE);
		}
		if (!w->exact && um && uw_entry(w, um)) {
			w->stop = OW_UW_END_ENTRY;
			return 1;
		}
		return uw_step_fp(w, t, OW_UW_STOP_NOTABLE);
	}
	w->cfi = 1;
	switch (r->cfa) {
	case OW_CFA_RSP:
		cfa = w->sp + r->off;
		break;
	case OW_CFA_RSP_X8:
		cfa = w->sp + 8 * (__u64)(__u16)r->off;
		break;
	case OW_CFA_RBP:
		cfa = w->bp + r->off;
		break;
	case OW_CFA_PLT:
		cfa = w->sp + 8 + ((w->ip & 15) >= (__u64)r->off ? 8 : 0);
		break;
	case OW_CFA_RBX:
		uw_trail_odd(t);
		if (uw_rbx(w))
			return 1;
		cfa = w->bx + r->off;
		break;
	case OW_CFA_END:
		w->stop = OW_UW_END;
		return 1;
	case OW_CFA_SIGNAL:
		/* the interrupted registers, saved in the sigcontext */
		uw_trail_odd(t);
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
		w->bx_at = cfa + UW_SIGCONTEXT_RBX;
		w->bx_ok = 1;
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
	uw_trail_add(w, t, cfa, r->rbp, ra, w->bp);
	if (r->rbx) {
		w->bx_at = cfa - 8 * (__u64)r->rbx;
		w->bx_ok = r->rbx != OW_RBX_LOST;
	}
	w->ip = ra;
	w->sp = w->low = cfa;
	w->exact = 0;
	return 0;
}

/* bpf_loop()'s step: one frame (ctx: struct uw_loop). */
static int uw_step(__u32 i, void *ctx)
{
	struct uw_loop *l = ctx;

	return uw_frame(&l->w, l->um, l->st, l->cache, l->trail) ? 1 : 0;
}

/* A walk's counts in unwind_stats: how it was walked (cls: OW_UW_CFI,
 * OW_UW_MIXED or OW_UW_FP) and why it stopped, on side. */
static __always_inline void uw_count(__u32 side, __u32 cls, __u32 stop,
				     bool unfollowed)
{
	side *= OW_UW_NR;
	count(&unwind_stats, side + cls);
	if (stop == OW_UW_END_ENTRY)	/* an end, of its own kind */
		count(&unwind_stats, side + OW_UW_END);
	count(&unwind_stats, side + stop);
	if (unfollowed)
		count(&unwind_stats, side + OW_UW_UNFOLLOWED);
}

/* The current task's user stack by CFI (see uw_step), into ips; its size
 * in bytes, or -1 for a task this does not handle (32-bit). */
static __always_inline long user_stack_cfi(struct task_struct *task,
					   struct ow_stack *st, __u32 side)
{
	__u64 *ips = st->ips;
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct uw_loop l = {};
	struct uw_walk *w = &l.w;
	__u32 tgid = task->tgid, zero = 0, cls;
	long len;

	if (BPF_CORE_READ(regs, cs) != USER_CS)
		return -1;
	l.um = bpf_map_lookup_elem(&umaps, &tgid);
	if (!l.um) {		/* no tables yet: walked later, or asked for */
		len = uw_defer(task, regs, tgid, 0, BPF_CORE_READ(regs, ip), ips);
		if (len)
			return len;
		ask_tables(tgid);
	}
	if (!l.um && unwind_mode == UNWIND_AUTO) {
		count(&unwind_stats, side * OW_UW_NR + OW_UW_FP);
		return user_stack_fp(st, 0);
	}
	l.st = st;
	w->tgid = tgid;
	l.cache = bpf_map_lookup_elem(&uw_cache, &zero);
	l.trail = bpf_map_lookup_elem(&uw_trails, &zero);
	w->ip = BPF_CORE_READ(regs, ip);
	w->sp = w->low = BPF_CORE_READ(regs, sp);
	w->bp = BPF_CORE_READ(regs, bp);
	w->bx = BPF_CORE_READ(regs, bx);
	if (l.trail) {
		l.trail->ip = w->ip;
		l.trail->sp = w->sp;
		l.trail->bp = w->bp;
		l.trail->steps = 0;
		l.trail->odd = 0;
	}
	w->bx_ok = 1;
	w->exact = 1;
	w->stop = OW_UW_NR;
	bpf_loop(OW_MAX_STACK_DEPTH, uw_step, &l, 0);
	if (w->stop == OW_UW_NR)
		w->stop = OW_UW_STOP_DEPTH;
	if (w->miss) {		/* a pc in a library mapped since? */
		len = w->miss > 1 ? uw_defer(task, regs, tgid, l.um ? l.um->gen : 0,
					    w->miss, ips) : 0;
		if (len)
			return len;
		ask_tables(tgid);
	}
	cls = w->cfi ? (w->fp ? OW_UW_MIXED : OW_UW_CFI) : OW_UW_FP;
	uw_count(side, cls, w->stop, w->unfollowed);
	if (l.trail) {
		l.trail->gen = l.um ? l.um->gen : 0;
		l.trail->cls = cls;
		l.trail->stop = w->stop;
		l.trail->unfollowed = w->unfollowed;
		l.trail->ok = l.um && !w->miss && (w->stop == OW_UW_END ||
						  w->stop == OW_UW_END_ENTRY);
	}
	return w->n * sizeof(__u64);
}
#endif

/* The user stack of task (the current task) into ips, counted on side
 * (enum ow_uw_side); its size in bytes, or -1 for a task this does not
 * handle (see the top of this file). */
static __always_inline long uw_user_stack(struct task_struct *task,
					  struct ow_stack *st, __u32 side)
{
#ifdef __TARGET_ARCH_x86
	__u32 zero = 0;
	struct uw_trail *t = bpf_map_lookup_elem(&uw_trails, &zero);

	if (t)			/* (set by a CFI walk that can be kept) */
		t->ok = 0;
	/* An exiting task past exit_mm() (its last switch, the wakeups of
	 * its exit: its parent's wait4(), its joiner's futex) has no user
	 * memory left: nothing to read, no frames. */
	if (!task->mm) {
		count(&unwind_stats, side * OW_UW_NR + OW_UW_NO_MM);
		return 0;
	}
	return unwind_mode == UNWIND_FP ? user_stack_fp(st, t) :
					  user_stack_cfi(task, st, side);
#else
	return -1;
#endif
}

#endif
