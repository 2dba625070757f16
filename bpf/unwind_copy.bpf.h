/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * unwind_copy.bpf.h - deferred user stacks (unwind_copy.h): when the CFI
 * walker (unwind_native.bpf.h) meets a pc its process's tables do not
 * cover yet, the registers and the top of the user stack go to user
 * space, which walks them with the same rows once the tables are in.
 *
 * Only where tables are late: the pc is in an executable file mapping
 * (bpf_find_vma()) that the process's umaps entry does not list, or the
 * process has no entry yet.  An anonymous mapping (JIT code) or a garbage
 * address is no late table: the walker goes on by frame pointers as
 * before.  User space lists every executable file mapping in the entry,
 * with or without a table, so a file without CFI is known and not
 * deferred again; OW_DEFER_PER_GEN bounds the rest.
 *
 * The copies have a ring buffer of their own (ucopies): they do not take
 * the room of the stacks and process events, nor those theirs.  The
 * includer provides count().
 */
#ifndef UNWIND_COPY_BPF_H
#define UNWIND_COPY_BPF_H

/* The copies for user space; sized by user space (as events). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 * 1024 * 1024);
} ucopies SEC(".maps");

/* The copy being made, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ow_ucopy);
} ucopy SEC(".maps");

/* Sequence numbers of deferred stacks (their references), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} defer_seq SEC(".maps");

/* What became of the deferred stacks (enum ow_defer_stat), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OW_DF_NR);
	__type(key, __u32);
	__type(value, __u64);
} defer_stats SEC(".maps");

/* Deferrals of a process under one version (gen) of its umaps entry. */
struct defer_count {
	__u32 gen;
	__u32 n;
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct defer_count);
} defers SEC(".maps");

static long uw_vma_is_code(struct task_struct *task, struct vm_area_struct *vma,
			   void *ctx)
{
	*(int *)ctx = BPF_CORE_READ(vma, vm_file) &&
		      (BPF_CORE_READ(vma, vm_flags) & VM_EXEC);
	return 0;
}

/* Whether ip is code of a file mapped in task (a busy mm counts as yes:
 * this is asked only where a table is missing; so does a kernel without
 * bpf_find_vma(): OW_DEFER_PER_GEN bounds it). */
static __always_inline bool uw_file_code(struct task_struct *task, __u64 ip)
{
	int code = 0;
	long err;

	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_find_vma))
		return true;
	err = bpf_find_vma(task, ip, uw_vma_is_code, &code, 0);
	return err == -16 /* EBUSY */ || (!err && code);
}

struct uw_copy_ctx {
	struct ow_ucopy *c;
	__u32 len;
};

/* One page (or the rest of the first) of the stack; 1: the copy ends. */
static int uw_copy_page(__u32 i, void *ctx)
{
	struct uw_copy_ctx *x = ctx;
	__u32 off = x->len, n;
	__u64 at = x->c->sp + off;

	if (off >= OW_UCOPY_MAX)
		return 1;
	/* to the page's end: 1 to OW_UCOPY_PAGE bytes, within data[] for
	 * any off below OW_UCOPY_MAX (the length sent stops there) */
	n = (~at & (OW_UCOPY_PAGE - 1)) + 1;
	barrier_var(off);
	off &= OW_UCOPY_MAX - 1;
	if (bpf_probe_read_user(x->c->data + off, n, (void *)at))
		return 1;	/* the stack's top (or a page not present) */
	x->len += n;
	return 0;
}

/*
 * Defer the current task's user stack (registers in regs; umaps entry
 * version gen, 0: none): its reference in ips[0], and -2; or 0 when it
 * is not deferred (the caller walks it as it can).
 */
#define UW_DEFERRED	(-2)
static __always_inline long uw_defer(struct task_struct *task,
				     struct pt_regs *regs, __u32 tgid,
				     __u32 gen, __u64 ip, __u64 *ips)
{
	struct uw_copy_ctx x = {};
	struct defer_count *dc, one = { gen, 1 };
	__u32 zero = 0;
	__u64 *seq;

	/* the bound first: a process past it costs no bpf_find_vma() */
	dc = bpf_map_lookup_elem(&defers, &tgid);
	if (dc && dc->gen == gen && dc->n >= OW_DEFER_PER_GEN) {
		count(&defer_stats, OW_DF_LIMIT);
		return 0;
	}
	if (!uw_file_code(task, ip))
		return 0;
	if (dc && dc->gen == gen) {
		dc->n++;
	} else {
		bpf_map_update_elem(&defers, &tgid, &one, BPF_ANY);
	}
	x.c = bpf_map_lookup_elem(&ucopy, &zero);
	seq = bpf_map_lookup_elem(&defer_seq, &zero);
	if (!x.c || !seq)
		return 0;
	x.c->type = OW_EV_UCOPY;
	x.c->ref = OW_DEFER_REF(bpf_get_smp_processor_id(), ++*seq);
	x.c->tgid = tgid;
	x.c->pid = task->pid;
	x.c->ns = bpf_ktime_get_ns();
	x.c->ip = BPF_CORE_READ(regs, ip);
	x.c->sp = BPF_CORE_READ(regs, sp);
	x.c->bp = BPF_CORE_READ(regs, bp);
	x.c->bx = BPF_CORE_READ(regs, bx);
	bpf_loop(OW_UCOPY_MAX / OW_UCOPY_PAGE + 1, uw_copy_page, &x, 0);
	if (x.len > OW_UCOPY_MAX)
		x.len = OW_UCOPY_MAX;
	x.c->len = x.len;
	if (bpf_ringbuf_output(&ucopies, x.c, OW_UCOPY_HEAD + x.len, 0)) {
		count(&defer_stats, OW_DF_NO_ROOM);
		return 0;
	}
	count(&defer_stats, OW_DF_SENT);
	ips[0] = x.c->ref;
	return UW_DEFERRED;
}

#endif
