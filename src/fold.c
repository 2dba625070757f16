// SPDX-License-Identifier: Apache-2.0
/*
 * fold.c - an aggregation key to frame names, as offwaketime names them:
 * kernel frames by ksym ("[unknown]" when not found), user frames by the
 * process's symbols ("[unknown]"), "[Missed Kernel Stack]" and
 * "[Missed User Stack]" for stacks that could not be stored (-EFAULT, the
 * usual "no such stack here", shows nothing, as in offwaketime).
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
 *
 * Names must not contain ';' (the folded separator) nor line breaks:
 * ';' becomes ':' and control characters become '?'.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fold.h"
#include "util.h"

static const struct {
	const char *prefix, *frame;
} irq_entries[] = {
	{ "handle_softirqs", "[softirq]" }, { "__do_softirq", "[softirq]" },
	{ "asm_sysvec_", "[hardirq]" }, { "sysvec_", "[hardirq]" },
	{ "__sysvec_", "[hardirq]" }, { "asm_common_interrupt", "[hardirq]" },
	{ "common_interrupt", "[hardirq]" }, { "handle_irq_event", "[hardirq]" },
	{ "__handle_irq_event", "[hardirq]" }, { "asm_exc_nmi", "[nmi]" },
	{ "exc_nmi", "[nmi]" }, { "default_do_nmi", "[nmi]" },
};

static const char *const plumbing[] = {
	"bpf_prog_", "bpf_trampoline_", "bpf_trace_run", "__bpf_trace_",
	"__traceiter_", "bpf_get_stack", "bpf_dispatcher_", "__bpf_prog_",
	"perf_callchain", "get_perf_callchain",
};

int folder_init(struct folder *f, struct capture *cap)
{
	memset(f, 0, sizeof(*f));
	f->cap = cap;
	f->ks = ksyms_load(NULL);
	if (!f->ks) {
		ow_err("reading /proc/kallsyms: %s%s", strerror(errno),
		       errno == EPERM ? " (addresses hidden: run as root)" : "");
		return -1;
	}
	f->us = usyms_new(cap->pm);
	if (!f->us) {
		ow_err("starting symbolisation: %s", strerror(ENOMEM));
		return -1;
	}
	return 0;
}

void folder_free(struct folder *f)
{
	for (size_t i = 0; i < f->npool; i++)
		free(f->pool[i]);
	free(f->pool);
	ksyms_free(f->ks);
	usyms_free(f->us);
	memset(f, 0, sizeof(*f));
}

static bool bad_char(unsigned char c)
{
	return c == ';' || c < 0x20 || c == 0x7f;
}

/* name, or a sanitised copy of it kept in the pool. */
static const char *clean(struct folder *f, const char *name, size_t max)
{
	size_t len = strnlen(name, max), i;
	char *copy;

	for (i = 0; i < len && !bad_char(name[i]); i++)
		;
	if (i == len && len < max)
		return name;
	if (ow_grow(&f->pool, &f->poolcap, f->npool, sizeof(*f->pool)) < 0 ||
	    !(copy = strndup(name, len)))
		return "[unknown]";
	for (i = 0; i < len; i++)
		if (bad_char(copy[i]))
			copy[i] = copy[i] == ';' ? ':' : '?';
	f->pool[f->npool++] = copy;
	return copy;
}

static bool is_plumbing(const char *name)
{
	for (size_t i = 0; i < sizeof(plumbing) / sizeof(*plumbing); i++)
		if (!strncmp(name, plumbing[i], strlen(plumbing[i])))
			return true;
	return false;
}

static void kernel_frames(struct folder *f, int32_t id, bool waker,
			  const char **out, size_t *n)
{
	uint64_t ips[OW_MAX_STACK_DEPTH];
	int depth = capture_stack(f->cap, id, ips), i = 0;
	const char *name;

	*n = 0;
	if (depth < 0) {
		if (id != OW_NO_STACK && id != -EFAULT)
			out[(*n)++] = "[Missed Kernel Stack]";
		return;
	}
	while (i < depth && (name = ksyms_name(f->ks, ips[i])) &&
	       is_plumbing(name))
		i++;
	if (waker && i < depth && (name = ksyms_name(f->ks, ips[i])) &&
	    !strcmp(name, "try_to_wake_up"))
		i++;
	for (; i < depth; i++) {
		name = ksyms_name(f->ks, ips[i]);
		out[(*n)++] = name ? clean(f, name, SIZE_MAX) : "[unknown]";
	}
}

static void user_frames(struct folder *f, int32_t id, uint32_t tgid,
			const char **out, size_t *n)
{
	uint64_t ips[OW_MAX_STACK_DEPTH];
	int depth = capture_stack(f->cap, id, ips);
	const char *name;

	*n = 0;
	if (depth < 0) {
		if (id != OW_NO_STACK && id != -EFAULT)
			out[(*n)++] = "[Missed User Stack]";
		return;
	}
	for (int i = 0; i < depth; i++) {
		name = usyms_name(f->us, tgid, ips[i]);
		out[(*n)++] = name ? clean(f, name, SIZE_MAX) : "[unknown]";
	}
}

/* "[hardirq]" etc. when the waker's kernel stack is an interrupt's. */
static const char *irq_frame(const char *const *frames, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < sizeof(irq_entries) / sizeof(*irq_entries);
		     j++)
			if (!strncmp(frames[i], irq_entries[j].prefix,
				     strlen(irq_entries[j].prefix)))
				return irq_entries[j].frame;
	return NULL;
}

void fold_key(struct folder *f, const struct ow_key *k, struct folded *out)
{
	out->target = clean(f, k->target, sizeof(k->target));
	out->waker = clean(f, k->waker, sizeof(k->waker));
	user_frames(f, k->t_ustack, k->t_tgid, out->frames[FOLD_T_USER],
		    &out->n[FOLD_T_USER]);
	kernel_frames(f, k->t_kstack, false, out->frames[FOLD_T_KERNEL],
		      &out->n[FOLD_T_KERNEL]);
	kernel_frames(f, k->w_kstack, true, out->frames[FOLD_W_KERNEL],
		      &out->n[FOLD_W_KERNEL]);
	out->wctx = irq_frame(out->frames[FOLD_W_KERNEL], out->n[FOLD_W_KERNEL]);
	if (out->wctx)
		out->n[FOLD_W_USER] = 0;
	else
		user_frames(f, k->w_ustack, k->w_tgid, out->frames[FOLD_W_USER],
			    &out->n[FOLD_W_USER]);
}
