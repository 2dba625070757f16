// SPDX-License-Identifier: Apache-2.0
/*
 * fold.c - the stacks of an aggregation key to frame names, as
 * offwaketime names them: kernel frames by ksym ("[unknown]" when not
 * found), user frames by the process's symbols, else after their file
 * as perf does ("[libc.so.6]"; "[unknown]" outside any mapping, or for
 * every frame without a symbol with folder.plain_unknown),
 * "[Missed Kernel Stack]" and "[Missed User Stack]" for stacks that could
 * not be taken (-EFAULT, the usual "no such stack here", shows nothing,
 * as in offwaketime), "[Lost ... Stack: backlog full]" for stacks taken
 * but not kept (the ring buffer and the stack backlog were both full).
 *
 * Each distinct stack is symbolised once and cached under its reference:
 * kernel stacks once as a target's and once as a waker's stack (the two
 * differ below), user stacks once per lineage (procmaps_slot(): the
 * processes forked from one exec) and version of the maps, and so is each
 * user address (most frames recur in many stacks).  The user stacks a
 * lineage used are held in the stack store until it is released (its
 * processes gone a while): then its caches are freed and those stacks
 * given up, so a fork storm does not grow them without end.  Kernel
 * stacks of interrupts' wakeups are new all the time (stacks_transient()):
 * the store gives them up once idle, and fold_forget() their cache entries.
 * Symbolised stacks are interned: one copy of each distinct frame list.
 * The capture resolves the keys it drains every half second, so frames
 * are named while their processes are alive and the output at the end
 * only assembles lines.
 *
 * Frames the tracing itself adds at the leaf of kernel stacks (our BPF
 * program, its trampoline and the tracepoint glue) are dropped; so is
 * try_to_wake_up at the leaf of the waker's stack, which offwaketime does
 * not show either.  The target's kernel stack thus ends at the blocking
 * point (...;schedule;__schedule).
 *
 * Wakeups from interrupt context are marked: the first interrupt entry
 * found walking the waker's kernel stack from its leaf tells hard IRQ
 * (asm_sysvec_*, common_interrupt, ...) from soft IRQ (handle_softirqs)
 * and NMI, and the graph gets a "[hardirq]", "[softirq]" or "[nmi]" frame
 * just before the waker's name.  The waker then is whatever task the
 * interrupt landed on, so its user stack is not shown (the interrupted
 * task did not cause the wakeup).  This needs the kernel stack (not -U).
 * A soft IRQ that a task ran itself, when it enabled them again (below
 * handle_softirqs: do_softirq, __local_bh_enable_ip; not __irq_exit_rcu
 * nor ksoftirqd), is not marked: that task is the waker, user stack and
 * chain included (over loopback, the receipt of what it is sending).
 * Each level of a wakeup chain (--chain-depth) is marked the same way,
 * and the chain ends at the first interrupt's wakeup: what woke the
 * interrupted task has nothing to do with it.
 *
 * For pprof (folder.locs), each frame's place is kept beside its name
 * (locs.c: its file's mapping and its address there), and symbolised
 * stacks are equal only when their places are too: two call sites in one
 * function are two locations in pprof, as they are two lines.
 *
 * Names must not contain ';' (the folded separator) nor line breaks:
 * ';' becomes ':' and each byte that may not be shown on a terminal
 * becomes '?' (common/safetext.h: C0 and C1 controls, DEL, invalid UTF-8).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fold.h"
#include "common/privs.h"
#include "common/safetext.h"
#include "common/util.h"
#include "base/hash.h"
#include "unwind/unwinder.h"

#define COUNT(a) (sizeof(a) / sizeof(*(a)))

/* What is kept about one lineage (its procmaps slot). */
struct lineage {
	struct htab stacks;	/* (reference, maps version) -> struct
				 * symstack; (reference, 0) -> &held: each
				 * user stack used, held in the stack store */
	struct htab names;	/* (address, maps version) -> frame name */
};

static const struct symstack held;

/* References that name no stored stack. */
const struct symstack fold_no_frames;
static const struct symstack missed_kernel = {
	.n = 1, .f = { { "[Missed Kernel Stack]", 21 } },
};
static const struct symstack missed_user = {
	.n = 1, .f = { { "[Missed User Stack]", 19 } },
};
/* ENOSPC: taken, but the ring buffer and the stack backlog were full */
static const struct symstack lost_kernel = {
	.n = 1, .f = { { "[Lost Kernel Stack: backlog full]", 33 } },
};
static const struct symstack lost_user = {
	.n = 1, .f = { { "[Lost User Stack: backlog full]", 31 } },
};

/* The names of marker frames (enum ow_marker). */
static const char *const marker_names[OW_MARK_NR] = {
	[OW_MARK_HARDIRQ] = "[hardirq]",
	[OW_MARK_SOFTIRQ] = "[softirq]",
	[OW_MARK_NMI] = "[nmi]",
	[OW_MARK_TRUNCATED] = "[truncated]",
};

/* A waker's kernel frame that says the wakeup ran in interrupt context. */
static const struct {
	const char *prefix;
	enum ow_marker mark;
} irq_entries[] = {
	{ "handle_softirqs", OW_MARK_SOFTIRQ }, { "__do_softirq", OW_MARK_SOFTIRQ },
	{ "asm_sysvec_", OW_MARK_HARDIRQ }, { "sysvec_", OW_MARK_HARDIRQ },
	{ "__sysvec_", OW_MARK_HARDIRQ }, { "asm_common_interrupt", OW_MARK_HARDIRQ },
	{ "common_interrupt", OW_MARK_HARDIRQ }, { "handle_irq_event", OW_MARK_HARDIRQ },
	{ "__handle_irq_event", OW_MARK_HARDIRQ }, { "asm_exc_nmi", OW_MARK_NMI },
	{ "exc_nmi", OW_MARK_NMI }, { "default_do_nmi", OW_MARK_NMI },
};

static const char *const plumbing[] = {
	"bpf_prog_", "bpf_trampoline_", "bpf_trace_run", "__bpf_trace_",
	"__traceiter_", "bpf_get_stack", "bpf_dispatcher_", "__bpf_prog_",
	"perf_callchain", "get_perf_callchain",
};

/* procmaps' release function: a lineage is gone. */
static void release_lineage(void *slot, void *ctx)
{
	struct lineage *ln = slot;
	struct folder *f = ctx;

	for (size_t i = 0; i < ln->stacks.size; i++)
		if (ln->stacks.tab[i].val == &held)
			stacks_drop(f->st, ln->stacks.tab[i].a);
	f->lineages--;
	f->lin_entries -= ln->stacks.used + ln->names.used;
	htab_free(&ln->stacks);
	htab_free(&ln->names);
	free(ln);
}

int folder_init(struct folder *f, struct procmaps *pm, struct stacks *st,
		struct ksyms_read *kr)
{
	memset(f, 0, sizeof(*f));
	f->pm = pm;
	f->st = st;
	f->ks = kr ? ksyms_load_wait(kr) : ksyms_load(NULL);
	if (!f->ks) {
		ow_err("reading /proc/kallsyms: %s", errno == EPERM ?
		       privs_kallsyms_hint() : strerror(errno));
		return -1;
	}
	f->us = usyms_new(pm);
	if (!f->us) {
		ow_err("starting symbolisation: %s", strerror(ENOMEM));
		return -1;
	}
	procmaps_on_release(pm, release_lineage, f);
	return 0;
}

void folder_free(struct folder *f)
{
	for (size_t i = 0; i < f->interned.size; i++) {
		struct symstack *s = f->interned.tab[i].val, *next;

		for (; s; s = next) {
			next = s->next;
			free(s);
		}
	}
	htab_free(&f->interned);
	htab_free(&f->cache);
	htab_free(&f->names);
	for (size_t i = 0; i < f->late.size; i++)
		free(f->late.tab[i].val);
	htab_free(&f->late);
	for (size_t i = 0; i < f->pysrc.size; i++)
		free(f->pysrc.tab[i].val);
	htab_free(&f->pysrc);
	for (size_t i = 0; i < f->npool; i++)
		free(f->pool[i]);
	free(f->pool);
	ksyms_free(f->ks);
	usyms_free(f->us);
	locs_free(&f->loctab);
	memset(f, 0, sizeof(*f));
}

/* Bytes of name[0..len) before the first one to replace: ';', or one
 * that may not be shown (ow_text_span(): a control, invalid UTF-8). */
static size_t clean_span(const char *name, size_t len, size_t *bad)
{
	size_t n = ow_text_span(name, len, 0, bad);
	const char *semi = memchr(name, ';', n);

	if (semi) {
		*bad = 1;
		return semi - name;
	}
	return n;
}

/* s[0..len) as it is shown, in place: each ';' becomes ':', each byte
 * that may not be shown '?'. */
static void clean_copy(char *s, size_t len)
{
	size_t i = 0, bad;

	while (i < len) {
		i += clean_span(s + i, len - i, &bad);
		if (i < len) {
			memset(s + i, s[i] == ';' ? ':' : '?', bad);
			i += bad;
		}
	}
}

/* name, or a sanitised copy of it kept in the pool. */
static const char *clean(struct folder *f, const char *name, size_t max)
{
	size_t len = strnlen(name, max), i, bad;
	char *copy;

	i = clean_span(name, len, &bad);
	if (i == len && len < max)
		return name;
	if (ow_grow(&f->pool, &f->poolcap, f->npool, sizeof(*f->pool)) < 0 ||
	    !(copy = strndup(name, len)))
		return "[unknown]";
	clean_copy(copy, len);
	f->pool[f->npool++] = copy;
	return copy;
}

const char *fold_comm(struct folder *f, const char *comm)
{
	/* no comm fills its 16 bytes: the marker is no task's name */
	if (!memcmp(comm, OW_WAKER_UNSEEN, OW_COMM_LEN))
		return OW_WAKER_UNSEEN;
	return clean(f, comm, OW_COMM_LEN);
}

void fold_comm_key(char *comm)
{
	size_t len = strnlen(comm, OW_COMM_LEN);

	if (len == OW_COMM_LEN)
		return;		/* no NUL: not a kernel's comm */
	clean_copy(comm, len);
	memset(comm + len, 0, OW_COMM_LEN - len);
}

static bool has_prefix(const char *name, const char *prefix)
{
	return !strncmp(name, prefix, strlen(prefix));
}

static bool is_plumbing(const char *name)
{
	for (size_t i = 0; i < COUNT(plumbing); i++)
		if (has_prefix(name, plumbing[i]))
			return true;
	return false;
}

/* The interrupt entry frame i of s is, or OW_MARK_NR if none. */
static enum ow_marker irq_entry(const struct symstack *s, size_t i)
{
	for (size_t j = 0; j < COUNT(irq_entries); j++)
		if (has_prefix(s->f[i].name, irq_entries[j].prefix))
			return irq_entries[j].mark;
	return OW_MARK_NR;
}

/*
 * Whether the soft IRQ entered at frame i of s ran on a task's account
 * (ksyms_softirq_callers; an interrupt's entry, irq_entries, counts
 * as an interrupt's exit); when its caller is not found (a stack cut short),
 * it did not.
 */
static bool softirq_of_task(const struct symstack *s, size_t i)
{
	while (++i < s->n) {
		for (size_t j = 0; j < ksyms_nsoftirq_callers; j++)
			if (ksyms_is(s->f[i].name, ksyms_softirq_callers[j].name))
				return ksyms_softirq_callers[j].task;
		enum ow_marker m = irq_entry(s, i);

		if (m != OW_MARK_NR && m != OW_MARK_SOFTIRQ)
			return false;
	}
	return false;
}

/*
 * "[hardirq]" etc. when a waker's kernel stack is an interrupt's: NULL
 * for a soft IRQ that a task ran itself (the task is the waker).
 */
static const char *irq_frame(const struct symstack *s)
{
	for (size_t i = 0; i < s->n; i++) {
		enum ow_marker m = irq_entry(s, i);

		if (m == OW_MARK_SOFTIRQ && softirq_of_task(s, i))
			return NULL;
		if (m != OW_MARK_NR)
			return marker_names[m];
	}
	return NULL;
}

/* A stack for n frames (and where they are, with f->locs): fill all n. */
static struct symstack *new_symstack(struct folder *f, size_t n)
{
	struct symstack *s = malloc(sizeof(*s) + n * sizeof(s->f[0]) +
				    (f->locs ? n * sizeof(struct symloc) : 0));

	if (s) {
		s->ctx = NULL;
		s->next = NULL;
		s->n = 0;
		s->has_locs = f->locs;
	}
	return s;
}

/* Where frame i of s (of n) is; fill in order. */
static struct symloc *loc_of(struct symstack *s, size_t n, size_t i)
{
	return (struct symloc *)(s->f + n) + i;
}

/* Hash of what a symbolised stack shows (its name pointers, and places). */
static uint64_t content_hash(const struct symstack *s)
{
	const struct symloc *l = symstack_locs(s);
	uint64_t h = (uintptr_t)s->ctx ^ s->n;

	for (uint32_t i = 0; i < s->n; i++)
		h = (h ^ (uintptr_t)s->f[i].name ^ (l ? l[i].addr : 0)) *
		    0x9e3779b97f4a7c15ULL;
	return h ^ h >> 31;
}

static bool same_content(const struct symstack *a, const struct symstack *b)
{
	if (a->n != b->n || a->ctx != b->ctx)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->f[i].name != b->f[i].name)
			return false;
	return !a->has_locs || !memcmp(symstack_locs(a), symstack_locs(b),
				       a->n * sizeof(struct symloc));
}

/*
 * The one copy of what s shows (s itself when new, else s is freed), or
 * NULL when out of memory: equal symbolised stacks of different raw
 * stacks or processes share a pointer, which the SVG output merges by.
 */
static struct symstack *intern(struct folder *f, struct symstack *s)
{
	uint64_t h = content_hash(s);
	struct symstack *head = htab_get(&f->interned, h, 0);

	for (struct symstack *o = head; o; o = o->next) {
		if (same_content(o, s)) {
			free(s);
			return o;
		}
	}
	s->next = head;
	if (htab_put(&f->interned, h, 0, s) < 0) {
		free(s);
		return NULL;
	}
	f->nstacks++;
	f->stack_bytes += sizeof(*s) + s->n * sizeof(s->f[0]);
	return s;
}

/* A frame name as shown: sanitised, "[unknown]" when not found. */
static const char *shown(struct folder *f, const char *name)
{
	return name ? clean(f, name, SIZE_MAX) : "[unknown]";
}

void folder_sweep(struct folder *f, unsigned max_idle)
{
	usyms_sweep(f->us, max_idle);
}

/*
 * A user frame's name as shown, one copy per distinct name: usyms forgets
 * files (folder_sweep()), and symbolised stacks compare names by pointer.
 */
static const char *kept_name(struct folder *f, const char *name)
{
	size_t len;
	uint64_t h;
	const char *k;
	char *copy;

	if (!name)
		return shown(f, name);
	len = strlen(name);
	h = ow_hash(name, len);
	k = htab_get(&f->names, h, len);
	if (k && !strcmp(k, name))
		return k;
	k = clean(f, name, SIZE_MAX);
	if (k == name) {	/* clean: not copied yet */
		if (ow_grow(&f->pool, &f->poolcap, f->npool,
			    sizeof(*f->pool)) < 0 || !(copy = strdup(name)))
			return "[unknown]";
		f->pool[f->npool++] = copy;
		k = copy;
	}
	if (!htab_get(&f->names, h, len))
		htab_put(&f->names, h, len, (void *)k);
	return k;
}

static void add_frame(struct symstack *s, const char *name)
{
	s->f[s->n++] = (struct symframe){ name, strlen(name) };
}

/*
 * Frame resolution by kind (offwake.h's typed frames): one namer per kind
 * of frame, given where the frame was (its process, that process's
 * lineage and maps version) and the frame's value.  A new kind of code is
 * a new row.
 */
struct frame_ctx {
	struct folder *f;
	uint32_t tgid;
	struct lineage *ln;	/* the process's lineage, or NULL */
	uint64_t version;	/* of its maps */
};

static const char *user_name(struct folder *f, struct lineage *ln,
			     uint64_t version, uint32_t tgid, uint64_t addr);

static const char *kernel_namer(const struct frame_ctx *x, uint64_t addr)
{
	return shown(x->f, ksyms_name(x->f->ks, addr));
}

/* Native code: the ELF files' symbols, then JIT perf maps (usyms.c). */
static const char *native_namer(const struct frame_ctx *x, uint64_t addr)
{
	return user_name(x->f, x->ln, x->version, x->tgid, addr);
}

/* An interpreter's frames: the first unwinder that knows the value
 * names it (src/unwind/unwinder.h: CPython's, python.c). */
static const char *interp_namer(const struct frame_ctx *x, uint64_t value)
{
	const struct folder *f = x->f;

	for (size_t i = 0; i < f->nuw; i++) {
		const char *name;

		if (f->uw[i] && f->uwt[i]->frame_name &&
		    (name = f->uwt[i]->frame_name(f->uw[i], x->tgid, value)))
			return kept_name(x->f, name);
	}
	return "[python]";
}

static const char *marker_namer(const struct frame_ctx *x, uint64_t mark)
{
	return mark < OW_MARK_NR ? marker_names[mark] : "[unknown marker]";
}

typedef const char *(*frame_namer)(const struct frame_ctx *x, uint64_t value);
static const frame_namer namers[OW_FRAME_KINDS] = {
	[OW_FRAME_NATIVE] = native_namer,
	[OW_FRAME_KERNEL] = kernel_namer,
	[OW_FRAME_JIT] = native_namer,
	[OW_FRAME_MARKER] = marker_namer,
	[OW_FRAME_INTERP] = interp_namer,
};

/* A frame's name: through its kind's namer. */
static const char *frame_name(const struct frame_ctx *x, uint64_t entry)
{
	uint32_t kind = OW_FRAME_KIND(entry);

	if (kind >= OW_FRAME_KINDS || !namers[kind])
		return "[unknown frame kind]";
	return namers[kind](x, OW_FRAME_VALUE(entry));
}

static struct symstack *kernel_stack(struct folder *f,
				     const struct rawstack *r, bool waker)
{
	struct symstack *s;
	const char *name;
	uint32_t i = 0, n;

	while (i < r->nr && (name = ksyms_name(f->ks, r->ips[i])) &&
	       is_plumbing(name))
		i++;
	if (waker && i < r->nr && (name = ksyms_name(f->ks, r->ips[i])) &&
	    !strcmp(name, "try_to_wake_up"))
		i++;
	n = r->nr - i;
	if (!(s = new_symstack(f, n)))
		return NULL;
	for (; i < r->nr; i++) {
		struct frame_ctx x = { f, 0, NULL, 0 };

		if (f->locs)
			*loc_of(s, n, s->n) = locs_kernel(&f->loctab, r->ips[i]);
		add_frame(s, namers[OW_FRAME_KERNEL](&x, r->ips[i]));
	}
	if (waker)
		s->ctx = irq_frame(s);
	return s;
}

/* The lineage of tgid r is from (*version: of its maps), or NULL. */
static struct lineage *lineage(struct folder *f, uint32_t tgid,
			       const struct rawstack *r, uint64_t *version)
{
	void **slot = procmaps_slot(f->pm, tgid, r->ips[0], version);

	if (slot && !*slot && (*slot = calloc(1, sizeof(struct lineage))))
		f->lineages++;
	return slot ? *slot : NULL;
}

/* ln uses the user stack ref: the store keeps it while ln lasts. */
static void hold(struct folder *f, struct lineage *ln, uint64_t ref)
{
	if (!htab_get(&ln->stacks, ref, 0) &&
	    !htab_put(&ln->stacks, ref, 0, (void *)&held)) {
		stacks_hold(f->st, ref);
		f->lin_entries++;
	}
}

/*
 * A frame in a file whose names wait for debuginfod (usyms_deferred()),
 * or JIT code its process's perf map has no line for yet (usyms_jit_late():
 * runtimes write lines while they run): until fold_late_names(), its
 * name is a placeholder of its own (the file's label, "[anon]"), one per
 * address, which symbolised stacks compare by pointer as any name.
 */
struct late_name {
	const void *file;	/* NULL: JIT code of tgid at vaddr */
	uint32_t tgid;
	uint64_t vaddr;
	char text[];
};

static const char *late_name(struct folder *f, const void *file,
			     uint32_t tgid, uint64_t vaddr, const char *label)
{
	struct late_name *l = malloc(sizeof(*l) + strlen(label) + 1);

	if (!l)
		return "[unknown]";
	l->file = file;
	l->tgid = tgid;
	l->vaddr = vaddr;
	strcpy(l->text, label);
	if (htab_put(&f->late, (uintptr_t)l->text, 0, l) < 0) {
		free(l);
		return "[unknown]";
	}
	f->nlate++;
	return l->text;
}

/* The frames of s whose names waited: named now. */
static void name_late(struct folder *f, struct symstack *s)
{
	for (uint32_t j = 0; j < s->n; j++) {
		struct late_name *l = htab_get(&f->late, (uintptr_t)s->f[j].name, 0);
		const char *name;

		if (!l)
			continue;
		name = l->file ? usyms_deferred_name(f->us, l->file, l->vaddr) :
			usyms_jit_name_now(f->us, l->tgid, l->vaddr);
		if (!name && !f->plain_unknown)
			name = l->text;
		name = kept_name(f, name);
		s->f[j] = (struct symframe){ name, strlen(name) };
	}
}

void fold_late_names(struct folder *f)
{
	if (!f->nlate)
		return;
	usyms_fetch(f->us);
	for (size_t i = 0; i < f->interned.size; i++)
		for (struct symstack *s = f->interned.tab[i].val; s; s = s->next)
			name_late(f, s);
}

/* The name of a user address in tgid (ln: its lineage, or NULL). */
static const char *user_name(struct folder *f, struct lineage *ln,
			     uint64_t version, uint32_t tgid, uint64_t addr)
{
	const char *name = ln ? htab_get(&ln->names, addr, version) : NULL;
	const void *file;
	uint64_t vaddr;

	if (!name && usyms_deferred(f->us, tgid, addr, &file, &vaddr)) {
		name = late_name(f, file, 0, vaddr, usyms_deferred_label(file));
		if (ln && !htab_put(&ln->names, addr, version, (void *)name))
			f->lin_entries++;
	}
	if (!name) {
		name = usyms_name(f->us, tgid, addr);
		if (!name && usyms_jit_late(f->us, tgid, addr)) {
			name = late_name(f, NULL, tgid, addr, f->plain_unknown ?
					 "[unknown]" : "[anon]");
			if (ln && !htab_put(&ln->names, addr, version, (void *)name))
				f->lin_entries++;
			return name;
		}
		if (!name && !f->plain_unknown)
			name = usyms_file_name(f->us, tgid, addr);
		name = kept_name(f, name);
		if (ln && !htab_put(&ln->names, addr, version, (void *)name))
			f->lin_entries++;	/* (else uncached) */
	}
	return name;
}

/* Whether processes of other lineages can take r too (see usyms_fixed()). */
static bool fixed_stack(struct folder *f, const struct rawstack *r,
			uint32_t tgid)
{
	for (uint32_t i = 0; i < r->nr; i++)
		if (!usyms_fixed(f->us, tgid, r->ips[i]))
			return false;
	return true;
}

/* The signal trampoline: the kernel makes its first byte a signal
 * handler's return address (sa_restorer). */
static const char sigreturn_name[] = "__restore_rt";

/*
 * A user frame's name: a return address's one byte back, in the call
 * instruction (a call may be its function's last instruction: a noreturn
 * callee; the return address is then the next function's, or padding),
 * as perf, gdb and pprof do; an interrupted pc (the leaf, and the frame a
 * signal trampoline restores) and the trampoline's entry (a handler's
 * return address that no call pushed) as they are.
 */
static const char *frame_name_at(const struct frame_ctx *x, uint64_t entry,
				 bool exact)
{
	uint32_t kind = OW_FRAME_KIND(entry);
	const char *name = frame_name(x, entry);

	if (exact || (kind != OW_FRAME_NATIVE && kind != OW_FRAME_JIT) ||
	    !OW_FRAME_VALUE(entry) || !strcmp(name, sigreturn_name))
		return name;
	return frame_name(x, entry - 1);
}

/* Whether an unwinder knows where interpreter frame value of tgid is. */
static bool interp_where(const struct folder *f, uint32_t tgid, uint64_t value,
			 const char **func, const char **file, int *line)
{
	for (size_t i = 0; i < f->nuw; i++)
		if (f->uw[i] && f->uwt[i]->frame_where &&
		    f->uwt[i]->frame_where(f->uw[i], tgid, value, func, file, line))
			return true;
	return false;
}

/* Where the interpreter frame entry of tgid is: its code object's file
 * and first line (pprof's Function), or NULL. */
static const struct export_src *python_src(struct folder *f, uint32_t tgid,
					   uint64_t entry)
{
	uint64_t code = OW_PY_CODE(OW_FRAME_VALUE(entry));
	struct export_src *src = htab_get(&f->pysrc, code, tgid);
	const char *func, *file;
	int line;

	if (src || !interp_where(f, tgid, OW_FRAME_VALUE(entry), &func, &file, &line) ||
	    !(src = malloc(sizeof(*src))))
		return src;
	*src = (struct export_src){ file, line };
	if (htab_put(&f->pysrc, code, tgid, src) < 0) {
		free(src);
		return NULL;
	}
	return src;
}

/* Where frame entry of tgid (at its leaf when exact) is, for pprof. */
static struct symloc user_loc(struct folder *f, uint32_t tgid, uint64_t entry,
			      bool exact)
{
	switch (OW_FRAME_KIND(entry)) {
	case OW_FRAME_NATIVE:
		return locs_user(&f->loctab, tgid, procmaps_find(f->pm, tgid, entry),
				 entry, exact);
	case OW_FRAME_INTERP:
		return (struct symloc){ NULL, 0, python_src(f, tgid, entry) };
	default:
		return (struct symloc){ NULL, 0, NULL };
	}
}

/* The name of native frame i of the stack, for the unwinders' stitch
 * (where an interpreter's loop is). */
struct stitch_ctx {
	const struct frame_ctx *x;
	const struct rawstack *r;
};

static const char *native_at(void *ctx, uint32_t i)
{
	const struct stitch_ctx *c = ctx;

	return frame_name_at(c->x, c->r->ips[i], i == 0);
}

/* The order the nr first frames of r are shown in (into order): the
 * first unwinder's whose frames they carry, else as walked. */
static uint32_t stitch(const struct folder *f, const struct frame_ctx *x,
		       const struct rawstack *r, uint32_t nr, uint32_t *order)
{
	struct stitch_ctx sc = { x, r };
	uint32_t n;

	for (size_t i = 0; i < f->nuw; i++)
		if (f->uw[i] && f->uwt[i]->stitch &&
		    (n = f->uwt[i]->stitch(f->uw[i], r->ips, nr, native_at, &sc, order)))
			return n;
	for (n = 0; n < nr; n++)
		order[n] = n;
	return nr;
}

/*
 * A user stack's frames, leaf first; one the depth limit cut (as deep as
 * the walker goes) ends in [truncated] where its outer frames would be.
 * An interpreter's frames (after the native ones) are stitched in where
 * the interpreter ran them (the unwinders' stitch: python_stitch.c).
 */
static struct symstack *user_stack(struct folder *f, const struct rawstack *r,
				   uint32_t tgid, struct lineage *ln,
				   uint64_t version)
{
	bool cut = ow_uw_native_frames(r->ips, r->nr) >= OW_MAX_STACK_DEPTH;
	struct frame_ctx x = { f, tgid, ln, version };
	uint32_t order[OW_MAX_STACK_DEPTH], nr = r->nr;
	bool exact = true;	/* the leaf: an interrupted pc */
	struct symstack *s;
	size_t n;

	if (nr > OW_MAX_STACK_DEPTH)
		nr = OW_MAX_STACK_DEPTH;
	nr = stitch(f, &x, r, nr, order);
	n = nr + cut;
	if (!(s = new_symstack(f, n)))
		return NULL;
	for (uint32_t j = 0; j < nr; j++) {
		uint32_t i = order[j];
		uint64_t e = r->ips[i];
		const char *name;

		if (f->locs)
			*loc_of(s, n, j) = user_loc(f, tgid, e, exact);
		name = frame_name_at(&x, e, exact);
		add_frame(s, name);
		if (OW_FRAME_KIND(e) != OW_FRAME_INTERP)
			exact = !strcmp(name, sigreturn_name);
	}
	if (cut) {
		if (f->locs)
			*loc_of(s, n, s->n) = (struct symloc){ NULL, 0, NULL };
		add_frame(s, marker_names[OW_MARK_TRUNCATED]);
	}
	return s;
}

/*
 * The symbolised stack for reference ref: a user stack of tgid, else a
 * kernel stack (of a waker or not).  NULL when not received (and !final).
 */
static const struct symstack *resolve(struct folder *f, uint64_t ref,
				      bool user, uint32_t tgid, bool waker,
				      bool final)
{
	const struct symstack *missed = user ? &missed_user : &missed_kernel;
	struct htab *cache = &f->cache;
	struct lineage *ln = NULL;
	const struct rawstack *r;
	struct symstack *s;
	uint64_t sub = waker;

	if (ref == OW_NO_STACK || ref == EFAULT)
		return &fold_no_frames;
	if (ref == ENOSPC)
		return user ? &lost_user : &lost_kernel;
	if (!(ref & OW_STACK_HASH))
		return missed;		/* an errno: not taken or not sent */
	r = stacks_get(f->st, ref);	/* (and notes the use) */
	if (!r) {
		if (!final)
			return NULL;
		f->missing++;
		return missed;
	}
	if (user) {
		ln = lineage(f, tgid, r, &sub);
		cache = ln ? &ln->stacks : NULL;
	}
	s = cache ? htab_get(cache, ref, sub) : NULL;
	if (s)
		return s;
	s = user ? user_stack(f, r, tgid, ln, sub) : kernel_stack(f, r, waker);
	if (!s || !(s = intern(f, s)))
		return missed;
	if (cache && !htab_put(cache, ref, sub, s) && ln) {
		f->lin_entries++;
		hold(f, ln, ref);
	}
	if (user && fixed_stack(f, r, tgid))
		stacks_keep(f->st, ref);
	if (!user && s->ctx) {		/* an interrupt's wakeup */
		stacks_transient(f->st, ref);
		f->transient++;
	}
	return s;
}

int fold_resolve(struct folder *f, struct agg_entry *e, bool final)
{
	struct ow_key *k = &e->key;
	const struct symstack *s[KS_NR], *up[OW_CHAIN_MAX - 1][LS_NR] = { 0 };
	bool irq;
	int n;

	s[KS_T_USER] = resolve(f, k->t_ustack, true, k->t_tgid, false, final);
	s[KS_T_KERNEL] = resolve(f, k->t_kstack, false, 0, false, final);
	s[KS_W_KERNEL] = resolve(f, k->w_kstack, false, 0, true, final);
	s[KS_W_USER] = resolve(f, k->w_ustack, true, k->w_tgid, false, final);
	for (int i = 0; i < KS_NR; i++)
		if (!s[i])
			return -1;
	irq = s[KS_W_KERNEL]->ctx;
	for (n = 0; n < OW_CHAIN_MAX - 1 && k->up[n].comm[0] && !irq; n++) {
		const struct ow_level *l = &k->up[n];

		up[n][LS_KERNEL] = resolve(f, l->kstack, false, 0, true, final);
		up[n][LS_USER] = resolve(f, l->ustack, true, l->tgid, false, final);
		if (!up[n][LS_KERNEL] || !up[n][LS_USER])
			return -1;
		if ((irq = up[n][LS_KERNEL]->ctx))
			up[n][LS_USER] = &fold_no_frames;
	}
	if (s[KS_W_KERNEL]->ctx)	/* the interrupted task did not wake it */
		s[KS_W_USER] = &fold_no_frames;
	/* an interrupt's wakeup ends the chain (the key is summed so) */
	memset(k->up + n, 0, sizeof(k->up) - n * sizeof(k->up[0]));
	memcpy(e->stk, s, sizeof(s));
	memcpy(e->up, up, sizeof(up));
	return 0;
}

void fold_forget(struct folder *f, uint64_t ref)
{
	htab_del(&f->cache, ref, 0);
	htab_del(&f->cache, ref, 1);
}

void folder_counts(const struct folder *f, struct fold_counts *n)
{
	const size_t slot = sizeof(struct htab_slot);

	n->interned = f->stack_bytes + f->interned.size * slot;
	n->names = f->poolcap * sizeof(*f->pool) + f->names.size * slot;
	for (size_t i = 0; i < f->npool; i++)
		n->names += strlen(f->pool[i]) + 1;
	n->kcache = f->cache.size * slot;
	n->transient = 0;
	for (size_t i = 0; i < f->cache.size; i++) {
		const struct symstack *s = f->cache.tab[i].val;

		n->transient += s && s->ctx;
	}
	/* each entry in a table at most half full */
	n->lineages = f->lineages * sizeof(struct lineage) +
		      f->lin_entries * 2 * slot;
}
