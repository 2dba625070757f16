/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * ustack_cache.bpf.h - a task's user stack taken again without walking
 * it, when it provably is the one it had last time there (issue 31: the
 * CFI walk, one bpf_probe_read_user() a frame, was about 450 ns of each
 * program's 650 once kernel stacks were cached; a thread blocks and
 * wakes others from the same places over and over).
 *
 * A CFI walk (unwind_native.bpf.h) is a function of the registers it
 * starts from (ip, sp, bp), the process's tables and the words it reads
 * from the stack: the walker leaves what it read in its trail.  Each task
 * keeps, per side (enum ow_uw_side), its last two stacks (UC_WAYS), each
 * with the registers, the tables' generation, every word read (where,
 * from sp, and its value) and the stack's reference.  Taking it again
 * compares the registers and the generation, reads the words back in a
 * few reads of whole spans of the stack (UC_WIN bytes at most each, one
 * helper call where the walk made one a frame) and compares them: when
 * all agree, the walk would read the same words from the same places and
 * give the same frames, so the reference is the stack's.  Anything else
 * is walked, and the walk's trail learned.
 *
 * Kept only for walks that read nothing a trail does not say (no signal,
 * realigned or rbx-based frame) and reached the outermost frame with every
 * pc in a table.  Counted by cause (enum ow_uc_stat).  A Python process's
 * stack is the caller's to judge (py_none(): a thread without Python
 * state has none of its frames to add).  OFFWAKE_USTACK_CHECK=1 walks each hit too and counts the
 * ones that differ (the tests' check); OFFWAKE_USTACK_CACHE=0 turns the
 * cache off (src/capture/capture.c).
 *
 * The includer provides count() and umaps_gen_of() (unwind_native.bpf.h).
 */
#ifndef USTACK_CACHE_BPF_H
#define USTACK_CACHE_BPF_H

#define UC_WORDS	48		/* words an entry checks */
#define UC_WINS		16		/* reads it takes them in */
#define UC_WIN		4096		/* bytes a read takes at most */
#define UC_BUF		8192		/* bytes all of them take at most */
#define UC_WAYS		2		/* stacks kept per side */

const volatile bool uc_on = false;	/* set by user space */
const volatile bool uc_verify = false;	/* OFFWAKE_USTACK_CHECK */

struct uc_entry {
	__u64 ref;		/* the stack's reference; 0: none kept */
	__u64 ip, sp, bp;	/* the registers the walk started from */
	__u32 gen;		/* of the process's tables */
	__u8 nwin, nword;
	__u8 cls, stop, unfollowed;	/* the walk's counts (uw_count()) */
	__u8 pad;
	__u16 hits_idx;		/* ... as OW_UC_HIT_IDX(), for uc_hit() */
	__u64 aux;		/* the caller's, kept with it (offwake.bpf.c:
				 * when the thread was last found without
				 * Python state) */
	__u32 win_off[UC_WINS];	/* each read: from sp, its length, where
				 * in the buffer it goes */
	__u16 win_len[UC_WINS], win_pos[UC_WINS];
	__u16 word_pos[UC_WORDS];	/* each word: where in the buffer */
	__u64 word[UC_WORDS];		/* ... and its value */
};

struct uc_task {
	__u8 last[OW_UW_SIDES];	/* the way taken last, per side */
	__u8 pad[6];
	struct uc_entry e[OW_UW_SIDES][UC_WAYS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct uc_task);
} ucache SEC(".maps");

/* Where a check reads the words into, per CPU. */
struct uc_buf {
	__u8 b[UC_BUF + UC_WIN];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uc_buf);
} uc_bufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OW_UC_NR);
	__type(key, __u32);
	__type(value, __u64);
} uc_stats SEC(".maps");

/* Hits, by the counts of the walks they stand for (OW_UC_HIT_IDX()). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OW_UC_HITS);
	__type(key, __u32);
	__type(value, __u64);
} uc_hits SEC(".maps");

/*
 * Whether e's words are still there, sp (the stack pointer, e's) up:
 * 0, else 1.  A global function: verified once.
 */
__noinline int uc_check(const struct uc_entry *e, struct uc_buf *b)
{
	__u32 nwin, nword, len, pos;

	if (!e || !b)
		return 1;
	nwin = e->nwin;
	nword = e->nword;
	for (__u32 i = 0; i < UC_WINS && i < nwin; i++) {
		len = e->win_len[i];
		pos = e->win_pos[i];
		if (len > UC_WIN || pos >= UC_BUF)
			return 1;
		if (bpf_probe_read_user(b->b + pos, len,
					(void *)(e->sp + e->win_off[i])))
			return 1;
	}
	for (__u32 j = 0; j < UC_WORDS && j < nword; j++) {
		pos = e->word_pos[j];
		if (pos >= UC_BUF)
			return 1;
		if (*(__u64 *)(b->b + pos) != e->word[j])
			return 1;
	}
	return 0;
}

/* uc_learn()'s state, one word a bpf_loop() step (a bounded loop's
 * paths multiply past the verifier's limit): scalars only, see
 * uc_learn_word(). */
struct uc_learning {
	__u64 start, end;	/* the read being gathered, from sp */
	__u32 nw, nwin, pos;	/* words, reads, buffer bytes before it */
	int why;
};

/* bpf_loop()'s context for uc_learn_step(). */
struct uc_learn_loop {
	struct uc_learning l;
	struct uc_entry *e;
	const struct uw_trail *t;
};

/*
 * Word idx of the trail t into e: step idx / 2's rbp (when read: even),
 * then its return address (odd); 1: stop.  A global function, verified
 * once: as the callback itself it was verified again for each word (the
 * word count is an index: the states never converge), about 47k
 * instructions of each program.
 */
__noinline int uc_learn_word(__u32 idx, struct uc_learning *l,
			     struct uc_entry *e, const struct uw_trail *t)
{
	__u32 i = idx / 2, k = idx & 1, nw, nwin;
	__u64 a, v, off;
	__s64 rbp;

	if (!l || !t || !e || i >= UW_TRAIL)
		return 1;
	nw = l->nw;
	nwin = l->nwin;
	barrier_var(i);
	i &= UW_TRAIL - 1;	/* (the bound the verifier sees) */
	rbp = t->s[i].rbp;
	if (!k && !rbp)
		return 0;
	a = k ? t->s[i].cfa - 8 : t->s[i].cfa + 8 * rbp;
	v = k ? t->s[i].ra : t->s[i].bp;
	off = a - t->sp;
	if (a < t->sp || off >= (1ULL << 31)) {
		l->why = OW_UC_SPREAD;
		return 1;
	}
	if (nw >= UC_WORDS) {
		l->why = OW_UC_DEEP;
		return 1;
	}
	if (!nwin || off < l->start || off + 8 > l->start + UC_WIN) {
		/* a read of its own: the last one ends */
		if (nwin) {
			e->win_len[(nwin - 1) & (UC_WINS - 1)] = l->end - l->start;
			l->pos += l->end - l->start;
		}
		if (nwin >= UC_WINS || l->pos > UC_BUF - UC_WIN) {
			l->why = OW_UC_SPREAD;
			return 1;
		}
		e->win_off[nwin] = off;
		e->win_pos[nwin] = l->pos;
		l->nwin = nwin + 1;
		l->start = off;
		l->end = off + 8;
	}
	if (off + 8 > l->end)
		l->end = off + 8;
	e->word_pos[nw] = l->pos + (off - l->start);
	e->word[nw] = v;
	l->nw = nw + 1;
	return 0;
}

static int uc_learn_step(__u32 idx, void *ctx)
{
	struct uc_learn_loop *x = ctx;

	return uc_learn_word(idx, &x->l, x->e, x->t) ? 1 : 0;
}

/*
 * Learn the walk in trail t into e (the reference is the caller's to
 * set): its words, gathered into reads of at most UC_WIN bytes.  0, or
 * why not (enum ow_uc_stat).  A global function.
 */
__noinline int uc_learn(struct uc_entry *e, const struct uw_trail *t)
{
	struct uc_learn_loop x = { .e = e, .t = t };
	struct uc_learning *l = &x.l;
	__u32 steps;

	if (!e || !t)
		return OW_UC_OPEN;
	e->ref = 0;
	if (!t->ok)
		return OW_UC_OPEN;
	if (t->odd)
		return OW_UC_FRAMES;
	steps = t->steps;
	if (steps > UW_TRAIL)
		return OW_UC_DEEP;
	bpf_loop(2 * steps, uc_learn_step, &x, 0);
	if (l->why)
		return l->why;
	if (!l->nwin)
		return OW_UC_OPEN;
	e->win_len[(l->nwin - 1) & (UC_WINS - 1)] = l->end - l->start;
	e->nwin = l->nwin;
	e->nword = l->nw;
	e->ip = t->ip;
	e->sp = t->sp;
	e->bp = t->bp;
	e->gen = t->gen;
	e->cls = t->cls;
	e->stop = t->stop;
	e->unfollowed = t->unfollowed;
	return 0;
}

/*
 * The current task's user stack's reference, from side's cache when it
 * holds (*hit: the entry, for uc_hit()), else 0: walk it.
 */
static __always_inline __u64 uc_take(__u32 side, struct uc_entry **hit)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pt_regs *regs;
	struct uc_task *ut;
	struct uc_entry *e;
	struct uc_buf *b;
	__u32 tgid, way, zero = 0, gen;
	__u64 ip, sp, bp;

	if (!uc_on || side >= OW_UW_SIDES || !t->mm)
		return 0;
	tgid = t->tgid;
	ut = bpf_task_storage_get(&ucache, t, 0, 0);
	if (!ut)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (regs->cs != USER_CS)
		return 0;
	ip = regs->ip;
	sp = regs->sp;
	bp = regs->bp;
	/* the tables' generation (frame pointers only: no tables, 0) */
	gen = unwind_mode == UNWIND_FP ? 0 : umaps_gen_of(tgid);
	b = bpf_map_lookup_elem(&uc_bufs, &zero);
	if ((!gen && unwind_mode != UNWIND_FP) || !b)
		return 0;
	way = ut->last[side] & 1;
	for (__u32 k = 0; k < UC_WAYS; k++, way ^= 1) {
		e = &ut->e[side][way];
		if (!e->ref || e->ip != ip || e->sp != sp || e->bp != bp ||
		    e->gen != gen || uc_check(e, b))
			continue;
		ut->last[side] = way;
		*hit = e;
		return e->ref;
	}
	return 0;
}

/* A stack taken from the cache: counted as the walk it stands for, in
 * one counter (about 15 ns a hit less than the walk's five). */
static __always_inline void uc_hit(const struct uc_entry *e)
{
	count(&uc_hits, e->hits_idx);
}

/* The walk just taken (its trail), whose reference is ref, kept on side
 * in the way not taken last, with aux. */
static __always_inline void uc_keep(__u32 side, __u64 ref, __u64 aux)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct uw_trail *tr;
	struct uc_task *ut;
	struct uc_entry *e;
	__u32 way, zero = 0;
	int why;

	if (!uc_on || side >= OW_UW_SIDES)
		return;
	count(&uc_stats, OW_UC_WALKED);
	tr = bpf_map_lookup_elem(&uw_trails, &zero);
	if (!tr || !tr->ok) {
		count(&uc_stats, OW_UC_OPEN);
		return;
	}
	ut = bpf_task_storage_get(&ucache, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ut)
		return;
	way = (ut->last[side] & 1) ^ 1;
	e = &ut->e[side][way];
	why = uc_learn(e, tr);
	if (why) {
		count(&uc_stats, why);
		return;
	}
	e->ref = ref;
	e->aux = aux;
	e->hits_idx = OW_UC_HIT_IDX(side, e->cls > OW_UW_NR ? OW_UW_NR : e->cls,
				    e->stop >= OW_UW_NR ? 0 : e->stop,
				    e->unfollowed);
	ut->last[side] = way;
	count(&uc_stats, OW_UC_LEARNED);
}

#endif
