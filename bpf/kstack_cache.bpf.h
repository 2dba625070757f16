/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * kstack_cache.bpf.h - a task's kernel stack taken again without the
 * kernel's walk, when it provably is the one it had last time there
 * (issue 31: bpf_get_stack()'s ORC walk is about 1.2 us of a program's
 * 2; a thread blocks and wakes others from the same places over and
 * over).
 *
 * Each task keeps, per side (enum ow_uw_side: the blocked task at its
 * switch, the waker at its wakeup), the last two kernel stacks the kernel
 * walked there (KC_WAYS: a thread often alternates between two, a read
 * and a write, or a sleep and a preemption), with the ORC entry of each of its frames (the kernel's
 * own table, __start_orc_unwind_ip/__start_orc_unwind, read once per
 * frame when the stack is learned).  Taking it again replays the
 * kernel's ORC unwinder (arch/x86/kernel/unwind_orc.c) with those
 * entries: from the BPF program's frame (a frame pointer's, as the
 * kernel unwinds JITed code), each frame's CFA from sp or bp plus the
 * entry's offset, the return address at CFA - 8, bp restored where the
 * entry says, to the system call's user-mode registers or the stack's
 * end.  Each return address read must be the frame the entry has: the
 * unwinder's only inputs are these addresses, the registers it restores
 * and the entries, which follow from the addresses, so when every read
 * agrees the kernel's walk would have given the same frames (a random
 * system call stack offset, CONFIG_RANDOMIZE_KSTACK_OFFSET, moves the
 * frames below do_syscall_64 by up to 1 KiB each time: its frame is
 * bp-based and the replay follows it).  At the first disagreement the
 * kernel walks it (bpf_get_stack()) and the new stack is learned.  A
 * stack whose every rule can be is replayed flattened (kc_replay_flat():
 * each return address at its fixed distance from the last bp-based
 * frame, about 3x fewer instructions a frame); OFFWAKE_KSTACK_FLAT=0
 * keeps the general loop (kc_replay()).
 *
 * Where the walk starts: bpf_get_stack() starts at the BPF program's own
 * frame, which the kernel unwinds by its frame pointer (a JITed program
 * pushes rbp on the kernel stack even when its BPF stack is a private
 * one, as ours is on 6.18: r10 is not on the kernel stack).  The
 * program's context, the tracepoint's arguments, is an array in
 * bpf_trace_runN()'s frame on the kernel stack, a fixed distance above
 * the program's frame: that distance is learned with each entry, where
 * the first copy of the stack's second frame (the return address into
 * bpf_trace_runN()) below the context is, and checked by the replay like
 * every frame.
 *
 * Learned only when every frame is in the kernel's text (a module's or
 * BPF's have other tables), the stack is on the task's own stack (not an
 * interrupt's), and the replay of the walk just taken gives it back
 * exactly; anything else is walked each time, counted by cause
 * (enum ow_kc_stat).  OFFWAKE_KSTACK_CHECK=1 walks each hit too and
 * counts the ones that differ (the tests' check; never seen).
 *
 * The includer provides count() and the ORC layout check is user
 * space's (src/capture/kstack_cache.c): kc_orc_nr stays 0, and the cache
 * off, on a kernel whose struct orc_entry is not the one below.
 */
#ifndef KSTACK_CACHE_BPF_H
#define KSTACK_CACHE_BPF_H

#define KC_MAX		32		/* frames an entry holds */
#define KC_STACK	16384		/* THREAD_SIZE, x86-64 */
#define KC_SEARCH	24		/* binary search steps: 16M entries */
#define KC_BELOW	512		/* how far below its context a program's
					 * frame is looked for */

/* arch/x86/include/asm/orc_types.h (5.19 and later: type has 3 bits) */
#define ORC_REG_UNDEFINED	0
#define ORC_REG_PREV_SP		1
#define ORC_REG_BP		4
#define ORC_REG_SP		5
#define ORC_TYPE_END_OF_STACK	1
#define ORC_TYPE_CALL		2
#define ORC_TYPE_REGS		3
#define KC_REGS_CS		136	/* offsetof(struct pt_regs, cs) */
#define KC_REGS_SIZE		168	/* sizeof(struct pt_regs) */

/* The kernel's ORC table and text (set by user space; kc_orc_nr 0: off). */
volatile __u64 kc_orc_ip, kc_orc, kc_orc_nr, kc_text_lo, kc_text_hi;
const volatile bool kc_check = false;	/* OFFWAKE_KSTACK_CHECK */
const volatile bool kc_flat_on = true;	/* OFFWAKE_KSTACK_FLAT=0: off */
const volatile bool kc_direct = false;	/* kc_read()'s loads (user space
					 * tries a load with it first) */

/* One frame: its return address and the ORC entry of its code. */
struct kc_frame {
	__u64 ip;
	__s16 sp_off, bp_off;
	__u8 sp_reg, bp_reg, type;
	__u8 signal;	/* the next frame is looked up at its own address,
			 * not the call before it (an interrupt's frame) */
};

/* A frame of the flattened replay (kc_flatten(), kc_replay_flat()). */
#define KC_FL_BASE	1	/* its CFA is bp-based: the base from here on */
#define KC_FL_BP	2	/* bp restored here is used by a later frame */
struct kc_flat {
	__s16 at;		/* its return address, from the base */
	__s16 sp;		/* sp before it, from the base (KC_FL_BASE) */
	__s16 bp;		/* where bp is restored from, from the base
				 * after it (KC_FL_BP) */
	__u8 flags;
	__u8 pad;
};

struct kc_entry {
	__u32 nr;		/* frames, ip0 included; 0: none */
	__u8 ok;		/* learned: replayed exactly */
	__u8 flat;		/* ... and flattened (fl, bp0, regs, regs_at) */
	__u8 bp0;		/* the program's frame's saved bp is used */
	__u8 regs;		/* the outermost frame is the registers at
				 * the kernel's entry (else the stack's end) */
	__s32 regs_at;		/* ... where, from the last base */
	__u64 ip0;		/* the BPF program's own frame */
	__u64 below;		/* the program's frame pointer is this much
				 * below its context (the top comment) */
	__u64 failed;		/* kc_sign() of the last stack not kept
				 * (kc_learn() failed): not tried again */
	struct kc_frame f[KC_MAX];
	__u64 ref;		/* the stack's reference (offwake.h), once the
				 * caller has hashed it; 0: not yet */
	struct kc_flat fl[KC_MAX];	/* the replay, flattened */
};

#define KC_WAYS		2		/* stacks kept per side */
struct kc_task {
	__u64 spill;		/* where a pointer becomes a number */
	__u8 last[OW_UW_SIDES];	/* the way taken last, per side */
	__u8 pad[6];
	struct kc_entry e[OW_UW_SIDES][KC_WAYS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kc_task);
} kcache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OW_KC_NR);
	__type(key, __u32);
	__type(value, __u64);
} kc_stats SEC(".maps");

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* 8 bytes of the kernel stack [base, base + KC_STACK) at a; -1 off it.
 * Where the kernel lets a program cast a number to a pointer it may load
 * from (bpf_rdonly_cast() to void: 6.x), a plain load, which the JIT
 * makes fault-safe; else bpf_probe_read_kernel(), a helper call. */
static __always_inline long kc_read(__u64 *v, __u64 a, __u64 base)
{
	if (a < base || a > base + KC_STACK - 8)
		return -1;
	if (kc_direct) {
		*v = *(__u64 *)bpf_rdonly_cast((void *)a, 0);
		return 0;
	}
	return bpf_probe_read_kernel(v, 8, (void *)a);
}

/* Whether a replay of e into out may start: 0, else why not. */
static __always_inline int kc_replay_ok(const struct kc_entry *e,
					const struct ow_stack *out)
{
	if (!e || !out)
		return OW_KC_RULE;
	if (e->nr < 2 || e->nr > KC_MAX)
		return OW_KC_DEEP;
	return 0;
}

/* The outermost frame's registers at regs (a struct pt_regs on the
 * stack [base, base + KC_STACK)): 0 when they are user mode's (the walk
 * ends there), else why not (an interrupt's: not followed). */
static __always_inline int kc_user_regs(__u64 regs, __u64 base)
{
	__u64 cs = 0;

	if (regs + KC_REGS_SIZE > base + KC_STACK ||
	    kc_read(&cs, regs + KC_REGS_CS, base))
		return OW_KC_OFF_STACK;
	return (cs & 3) == 3 ? 0 : OW_KC_RULE;
}

/*
 * Replay the kernel's ORC walk from the BPF program's frame (fp, its
 * frame pointer) with e's entries; out gets the frames (from the second:
 * frames that agree with e's, so learning may replay into the frames it
 * learns from).
 * 0: e's frames exactly, else why not (enum ow_kc_stat; OW_KC_WALKED: a
 * frame differs).  A global function: verified once.
 */
__noinline int kc_replay(const struct kc_entry *e, struct ow_stack *out,
			 __u64 fp, __u64 base)
{
	__u64 ip = 0, sp, bp = 0, cfa, next = 0;
	__u32 nr;
	int why = kc_replay_ok(e, out);

	if (why)
		return why;
	nr = e->nr;
	/* the program's frame: CFA = fp + 16, like the kernel's orc_fp_entry */
	if (kc_read(&bp, fp, base) || kc_read(&ip, fp + 8, base))
		return OW_KC_OFF_STACK;
	sp = fp + 16;
	for (__u32 j = 1; j < KC_MAX; j++) {
		const struct kc_frame *f = &e->f[j];

		if (j >= nr || ip != f->ip)
			return OW_KC_WALKED;
		out->ips[j] = ip;
		if (f->type == ORC_TYPE_END_OF_STACK)
			return j == nr - 1 ? 0 : OW_KC_NO_END;
		if (f->sp_reg == ORC_REG_SP)
			cfa = sp + f->sp_off;
		else if (f->sp_reg == ORC_REG_BP)
			cfa = bp + f->sp_off;
		else
			return OW_KC_RULE;
		if (f->type == ORC_TYPE_REGS) {
			/* the registers at the kernel's entry */
			why = kc_user_regs(cfa, base);
			if (why)
				return why;
			return j == nr - 1 ? 0 : OW_KC_NO_END;
		}
		if (f->type != ORC_TYPE_CALL)
			return OW_KC_RULE;
		if (cfa <= sp || kc_read(&next, cfa - 8, base))
			return OW_KC_OFF_STACK;
		if (f->bp_reg == ORC_REG_PREV_SP) {
			if (kc_read(&bp, cfa + f->bp_off, base))
				return OW_KC_OFF_STACK;
		} else if (f->bp_reg == ORC_REG_BP) {
			if (kc_read(&bp, bp + f->bp_off, base))
				return OW_KC_OFF_STACK;
		} else if (f->bp_reg != ORC_REG_UNDEFINED) {
			return OW_KC_RULE;
		}
		sp = cfa;
		ip = next;
	}
	return OW_KC_DEEP;
}

/*
 * kc_replay() flattened (issue 31: about 3x fewer instructions a frame):
 * a frame whose CFA is sp-based (most: ORC kernels keep no frame
 * pointer) is a fixed distance above the last bp-based frame's CFA
 * (__schedule()'s, do_syscall_64()'s) or the program's frame, the base,
 * so each return address is read where it must be from the base, the
 * base moved at a bp-based frame, bp read only where a later frame uses
 * it (kc_flatten() marks those).  Only for an entry flattened whole; the
 * same answers as kc_replay() (kc_learn() has both give the stack back
 * before it sets flat).  A global function: verified once.
 */
__noinline int kc_replay_flat(const struct kc_entry *e, struct ow_stack *out,
			      __u64 fp, __u64 base)
{
	__u64 b = fp, bp = 0, ip = 0, cfa;
	__u32 nr;
	int why = kc_replay_ok(e, out);

	if (why)
		return why;
	nr = e->nr;
	if (e->bp0 && kc_read(&bp, fp, base))
		return OW_KC_OFF_STACK;
	for (__u32 j = 1; j < KC_MAX && j < nr; j++) {
		const struct kc_flat *l = &e->fl[j];

		if (kc_read(&ip, b + (__s64)l->at, base))
			return OW_KC_OFF_STACK;
		if (ip != e->f[j].ip)
			return OW_KC_WALKED;
		out->ips[j] = ip;
		if (l->flags & KC_FL_BASE) {
			cfa = bp + e->f[j].sp_off;
			if (cfa <= b + (__s64)l->sp)
				return OW_KC_OFF_STACK;
			b = cfa;
		}
		if ((l->flags & KC_FL_BP) && kc_read(&bp, b + (__s64)l->bp, base))
			return OW_KC_OFF_STACK;
	}
	/* the stack's end, or the registers at the kernel's entry */
	return e->regs ? kc_user_regs(b + e->regs_at, base) : 0;
}

/* kc_flatten()'s state, one frame a bpf_loop() step (a bounded loop's
 * paths, one a frame whose restore bp is, multiply past the verifier's
 * budget; learning is rare, the step's call costs nothing that counts). */
struct kc_flattening {
	__s32 sp, at;		/* sp and the next return address, from the
				 * base */
	__u32 src;		/* the frame whose restore bp is now (0: the
				 * program's frame) */
	int ret;		/* 0: flattened whole; -1: not (yet) */
};

/* bpf_loop()'s context for kc_flatten_step(). */
struct kc_flatten_loop {
	struct kc_flattening fl;
	struct kc_entry *e;
};

/*
 * Frame idx + 1 of entry e (kc_flatten()); 1: stop.  A global function,
 * verified once (as the callback itself, again for each frame: the
 * frame's index keeps the states apart); its state fl scalars only.
 */
__noinline int kc_flatten_frame(__u32 idx, struct kc_flattening *fl,
				struct kc_entry *e)
{
	__u32 j = idx + 1, nr;
	__s32 sp, cfa, r;
	const struct kc_frame *f;
	struct kc_flat *l;

	if (!fl || !e || j >= KC_MAX)
		return 1;
	sp = fl->sp;
	barrier_var(j);
	j &= KC_MAX - 1;	/* (the bound the verifier sees) */
	nr = e->nr;
	f = &e->f[j];
	l = &e->fl[j];
	l->at = fl->at;
	l->flags = 0;
	if (f->type == ORC_TYPE_END_OF_STACK) {
		fl->ret = j == nr - 1 ? 0 : -1;
		return 1;
	}
	if (f->sp_reg == ORC_REG_SP) {
		cfa = sp + f->sp_off;
		/* (a frame's CFA above its sp, as kc_replay() checks; the
		 * registers' may be at sp) */
		if (cfa <= -KC_STACK || cfa >= KC_STACK ||
		    (cfa <= sp && f->type != ORC_TYPE_REGS))
			return 1;
	} else if (f->sp_reg == ORC_REG_BP) {
		if (fl->src)	/* bp used: its restore is read */
			e->fl[fl->src & (KC_MAX - 1)].flags |= KC_FL_BP;
		else
			e->bp0 = 1;
		l->flags = KC_FL_BASE;
		l->sp = sp;
		cfa = 0;	/* the new base */
	} else {
		return 1;
	}
	if (f->type == ORC_TYPE_REGS) {
		if (j == nr - 1) {
			e->regs = 1;
			e->regs_at = cfa;
			fl->ret = 0;
		}
		return 1;
	}
	if (f->type != ORC_TYPE_CALL)
		return 1;
	if (f->bp_reg == ORC_REG_PREV_SP) {
		r = cfa + f->bp_off;
		if (r <= -KC_STACK || r >= KC_STACK)
			return 1;
		l->bp = r;
		fl->src = j;
		/* a slot outside an sp-based frame: read anyway, as
		 * kc_replay() does (a read off the stack fails) */
		if (l->flags || r < sp || r > cfa - 8)
			l->flags |= KC_FL_BP;
	} else if (f->bp_reg != ORC_REG_UNDEFINED) {
		return 1;
	}
	fl->at = cfa - 8;
	fl->sp = cfa;
	return 0;
}

static int kc_flatten_step(__u32 idx, void *ctx)
{
	struct kc_flatten_loop *x = ctx;

	return kc_flatten_frame(idx, &x->fl, x->e) ? 1 : 0;
}

/*
 * e's replay flattened for kc_replay_flat() (fl, bp0, regs, regs_at), from its
 * entries, as kc_replay()'s loop goes: sp starts 16 above fp (the first
 * base), an sp-based frame's CFA is sp plus its offset, a bp-based one's
 * bp plus its offset (the next base), the next return address 8 below the
 * CFA, bp restored from CFA plus the entry's offset (read only when a
 * later frame uses it, or outside its frame).  0, or -1 for a rule it
 * does not flatten (bp from bp, an interrupt's frame inside the stack):
 * kc_replay() then, every time.
 */
static __always_inline int kc_flatten(struct kc_entry *e)
{
	struct kc_flatten_loop x = { .fl = { .sp = 16, .at = 8, .ret = -1 },
				     .e = e };
	__u32 nr = e->nr;

	e->bp0 = 0;
	e->regs = 0;
	e->regs_at = 0;
	if (nr < 2 || nr > KC_MAX)
		return -1;
	bpf_loop(nr - 1, kc_flatten_step, &x, 0);
	return x.fl.ret;
}

/*
 * The ORC entry for kernel text address ip into f (the last entry at or
 * below it, as the kernel's __orc_find()); 0, or -1 when there is none.
 */
__noinline int kc_orc_find(__u64 ip, struct kc_frame *f)
{
	__u64 lo = 0, hi = kc_orc_nr, mid, a;
	__s32 rel = 0;
	__u8 e[6] = {};

	if (!f || !hi)
		return -1;
	/* [lo, hi): the first entry above ip is in it */
	for (__u32 i = 0; i < KC_SEARCH && lo < hi; i++) {
		mid = lo + (hi - lo) / 2;
		a = kc_orc_ip + mid * 4;
		if (bpf_probe_read_kernel(&rel, sizeof(rel), (void *)a))
			return -1;
		if (a + (__s64)rel <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo != hi || !lo ||
	    bpf_probe_read_kernel(e, sizeof(e), (void *)(kc_orc + (lo - 1) * 6)))
		return -1;
	f->sp_off = (__s16)(e[0] | e[1] << 8);
	f->bp_off = (__s16)(e[2] | e[3] << 8);
	f->sp_reg = e[4] & 15;
	f->bp_reg = e[4] >> 4;
	f->type = e[5] & 7;
	f->signal = (e[5] >> 3) & 1;
	return 0;
}

/* A stack's signature (its frames and their number), for kc_entry.failed:
 * a stack that cannot be learned (a module's frame, a rule not followed)
 * is not looked up in the ORC table again each time it comes. */
static __always_inline __u64 kc_sign(const struct ow_stack *st, __u32 nr)
{
	__u64 h = nr + 1;

	for (__u32 j = 0; j < KC_MAX && j < nr; j++)
		h = (h ^ st->ips[j]) * 0x9e3779b97f4a7c15ULL;
	return h | 1;
}

/*
 * Learn the nr frames in ips (just walked by the kernel) into e: each
 * frame's ORC entry, then a replay that must give them back.  0, or why
 * not (enum ow_kc_stat).  A global function.
 */
__noinline int kc_learn(struct kc_entry *e, struct ow_stack *st,
			__u32 nr, __u64 ctx, __u64 base)
{
	__u64 fp = 0, v = 0;
	__u32 signal = 0;
	__u64 ip;
	int why;

	if (!e || !st)
		return OW_KC_RULE;
	e->ok = 0;
	e->flat = 0;
	e->nr = 0;
	e->ref = 0;
	if (nr < 2 || nr > KC_MAX)
		return OW_KC_DEEP;
	e->ip0 = st->ips[0];
	for (__u32 j = 1; j < KC_MAX && j < nr; j++)	/* before any lookup */
		if (st->ips[j] < kc_text_lo || st->ips[j] >= kc_text_hi)
			return OW_KC_FOREIGN;
	for (__u32 j = 1; j < KC_MAX && j < nr; j++) {
		ip = st->ips[j];
		/* a return address is looked up at the call before it,
		 * unless the frame before was an interrupt's (signal) */
		if (kc_orc_find(signal ? ip : ip - 1, &e->f[j]))
			return OW_KC_FOREIGN;
		e->f[j].ip = ip;
		signal = e->f[j].signal;
	}
	e->nr = nr;
	/* the program's frame: its return address, the stack's second
	 * frame, is the first found below the context (the top comment) */
	for (__u32 k = 1; k < KC_BELOW / 8; k++)
		if (!kc_read(&v, ctx - 8 * k, base) && v == st->ips[1]) {
			fp = ctx - 8 * k - 8;
			break;
		}
	if (!fp)
		return OW_KC_NO_END;
	e->below = ctx - fp;
	why = kc_replay(e, st, fp, base);
	if (why)
		return why == OW_KC_WALKED ? OW_KC_NO_END : why;
	/* the same, flattened, or not */
	e->flat = kc_flat_on && !kc_flatten(e) &&
		  !kc_replay_flat(e, st, fp, base);
	e->ok = 1;
	return 0;
}

/* OFFWAKE_KSTACK_CHECK: the kernel's walk, to compare a hit with. */
struct kc_walk {
	__u64 ips[OW_MAX_STACK_DEPTH];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kc_walk);
} kc_cmp SEC(".maps");

/* Whether the kernel's walk differs from the nr frames in ips (the
 * first, the program's own, is where the walk starts: not compared). */
static __always_inline bool kc_differs(void *ctx, const __u64 *ips, __u32 nr)
{
	__u32 zero = 0;
	struct kc_walk *w = bpf_map_lookup_elem(&kc_cmp, &zero);
	long len;

	if (!w)
		return false;
	len = bpf_get_stack(ctx, w->ips, sizeof(w->ips), 0);
	if (len != nr * sizeof(__u64))
		return true;
	for (__u32 j = 1; j < KC_MAX && j < nr; j++)
		if (w->ips[j] != ips[j])
			return true;
	return false;
}

/*
 * The current task's kernel stack into st->ips, as bpf_get_stack() (ctx, no
 * flags) would: from side's cache when it holds, else walked and
 * learned.  Returns bytes written, or bpf_get_stack()'s error; *held, the
 * entry that holds the stack (a hit, or just learned), whose ref the
 * caller reads, or sets once it has hashed the frames: the same frames,
 * the same reference, so a hit is not hashed again (20-40 ns a stack).
 */
static __always_inline long kc_stack(void *ctx, struct ow_stack *st,
				     __u32 side, struct kc_entry **held)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct kc_task *kt;
	struct kc_entry *e;
	__u64 at, base, *spill, sign;
	__u32 nr, way;
	long len;
	int why;

	if (!kc_orc_nr || side >= OW_UW_SIDES)
		goto walk;
	kt = bpf_task_storage_get(&kcache, t, 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!kt)
		goto walk;
	/* the context (on the kernel stack: the top comment) and the
	 * task's stack, as numbers (root may: pointers stored in a map and
	 * read back) */
	spill = &kt->spill;
	*(void *volatile *)spill = ctx;
	at = *(volatile __u64 *)spill;
	*(void *volatile *)spill = t->stack;
	base = *(volatile __u64 *)spill;
	if (at - base >= KC_STACK) {		/* an interrupt's stack */
		count(&kc_stats, OW_KC_IRQ);
		goto walk;
	}
	/* the way taken last first, then the other */
	way = kt->last[side] & 1;
	for (__u32 k = 0; k < KC_WAYS; k++, way ^= 1) {
		e = &kt->e[side][way];
		if (!e->ok || (e->flat ?
			       kc_replay_flat(e, st, at - e->below, base) :
			       kc_replay(e, st, at - e->below, base)))
			continue;
		kt->last[side] = way;
		*held = e;
		st->ips[0] = e->ip0;
		len = e->nr * sizeof(__u64);
		count(&kc_stats, OW_KC_HIT);
		if (kc_check && kc_differs(ctx, st->ips, e->nr))
			count(&kc_stats, OW_KC_MISMATCH);
		return len;
	}
	/* learned into the way not taken last */
	way = (kt->last[side] & 1) ^ 1;
	e = &kt->e[side][way];
	len = bpf_get_stack(ctx, st->ips, sizeof(st->ips), 0);
	count(&kc_stats, OW_KC_WALKED);
	if (len <= 0)
		return len;
	nr = (__u64)len / sizeof(__u64);
	if (nr > KC_MAX) {
		count(&kc_stats, OW_KC_DEEP);
		return len;
	}
	sign = kc_sign(st, nr);
	if (sign == e->failed) {
		count(&kc_stats, OW_KC_AGAIN);
		return len;
	}
	why = kc_learn(e, st, nr, at, base);
	count(&kc_stats, why ? why : OW_KC_LEARNED);
	if (!why && e->flat)
		count(&kc_stats, OW_KC_FLAT);
	e->failed = why ? sign : 0;
	if (!why) {
		kt->last[side] = way;
		*held = e;
	}
	return len;
walk:
	return bpf_get_stack(ctx, st->ips, sizeof(st->ips), 0);
}

#endif
