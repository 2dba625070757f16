// SPDX-License-Identifier: Apache-2.0
/*
 * t_cap_fold.c - unit tests of the capture's folding (src/capture/fold.c):
 * the four stacks of a key named as offwaketime names them, from a
 * kallsyms of our own (ksyms_load() is wrapped at link time: folder_init()
 * reads /proc/kallsyms, whose addresses need root) and this program's
 * own functions and pid for user frames.  Covers the tracing's frames
 * dropped at the leaf, try_to_wake_up dropped from the waker's stack only,
 * [unknown] frames, sanitised names, errno references (nothing shown for
 * EFAULT, Missed ... Stack for others), stacks not received yet or never,
 * interning, interrupt wakeups ([hardirq], [softirq]) hiding the waker's
 * user stack and ending the chain, chain levels, where frames are (for
 * pprof), and the lifetime of what is kept: transient stacks given up and
 * forgotten, user stacks held by their lineage until it is released.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <string.h>
#include <unistd.h>
#include "capture/fold.h"
#include "check.h"

static char kallsyms[] = "/tmp/t_cap_fold.XXXXXX";

/* Our kallsyms: symbol i at KBASE + i * 0x100. */
#define KBASE	0xffffffff81000000ULL
#define K(i, off)	(KBASE + (i) * 0x100 + (off))
enum { BPF_PROG, TRACEITER, SCHED, SCHEDULE, WEIRD, NANOSLEEP, TTWU,
       WAKE_UP, DATA, PFX, HRTIMER, SYSVEC, SOFTIRQ, DO_SOFTIRQ, BH_ENABLE,
       TCP_SEND, IRQ_EXIT, KSOFTIRQD, NET_RX };
static const char *const ksym_lines[] = {
	[BPF_PROG] = "T bpf_prog_6deef7357e7b4530_offwake_switch",
	[TRACEITER] = "T __traceiter_sched_switch",
	[SCHED] = "t __schedule",
	[SCHEDULE] = "T schedule",
	[WEIRD] = "t weird;name",
	[NANOSLEEP] = "T do_nanosleep",
	[TTWU] = "T try_to_wake_up",
	[WAKE_UP] = "T wake_up_process",
	[DATA] = "d some_data",		/* not code: WAKE_UP's */
	[PFX] = "T __pfx_hrtimer_wakeup",	/* padding: WAKE_UP's */
	[HRTIMER] = "T hrtimer_wakeup",
	[SYSVEC] = "T asm_sysvec_apic_timer_interrupt",
	[SOFTIRQ] = "T handle_softirqs",
	[DO_SOFTIRQ] = "t do_softirq.part.0",
	[BH_ENABLE] = "T __local_bh_enable_ip",
	[TCP_SEND] = "T tcp_sendmsg",
	[IRQ_EXIT] = "t __irq_exit_rcu",
	[KSOFTIRQD] = "t run_ksoftirqd",
	[NET_RX] = "t net_rx_action",
};

/* ksyms_load() as folder_init() calls it, on our kallsyms. */
struct ksyms *__real_ksyms_load(const char *path);
struct ksyms *__wrap_ksyms_load(const char *path)
{
	return __real_ksyms_load(path ? path : kallsyms);
}

/* User frames: functions of this program. */
__attribute__((noinline)) void fn_alpha(void)
{
	__asm__ volatile("nop; nop; nop; nop");
}

__attribute__((noinline)) void fn_beta(void)
{
	__asm__ volatile("nop; nop; nop; nop");
}

/* Code of this program with no function symbol (a label is not one),
 * after a function whose size ends before it: named after the file. */
__asm__(".text\n.p2align 4\n.type nosym_pre, @function\nnosym_pre:\n\tret\n"
	".size nosym_pre, 1\nnosym_code:\n\tnop\n\tnop\n\tret\n");
extern char nosym_code[];

#define UA(fn, off)	((uint64_t)(uintptr_t)(fn) + (off))

/* A folder with its maps and stack store; freed stacks are forgotten. */
struct env {
	struct procmaps *pm;
	struct stacks st;
	struct folder f;
	int forgot, freed;
};

static void on_forget(void *ctx, uint64_t ref)
{
	((struct env *)ctx)->forgot++;
}

static void on_freed(void *ctx, uint64_t ref)
{
	struct env *e = ctx;

	e->freed++;
	fold_forget(&e->f, ref);
}

static int env_init(struct env *e, bool locs)
{
	memset(e, 0, sizeof(*e));
	e->pm = procmaps_new();
	e->st.max_idle = 2;
	e->st.forget = on_forget;
	e->st.freed = on_freed;
	e->st.ctx = e;
	if (!e->pm || folder_init(&e->f, e->pm, &e->st, NULL))
		return -1;
	e->f.locs = locs;
	return 0;
}

/* In the order fold.h asks for. */
static void env_free(struct env *e)
{
	procmaps_free(e->pm);
	folder_free(&e->f);
	stacks_free(&e->st);
}

static void send(struct env *e, uint64_t ref, const uint64_t *ips, uint32_t n)
{
	struct ow_stack rec = { .type = OW_EV_STACK, .nr = n, .hash = ref };

	memcpy(rec.ips, ips, n * sizeof(*ips));
	stacks_add(&e->st, &rec, sizeof(rec));
}

/* The frames of s joined by ';', leaf first. */
static const char *joined(const struct symstack *s)
{
	static char buf[1024];
	size_t len = 0;

	if (!s)
		return "(null)";
	buf[0] = 0;
	for (uint32_t i = 0; i < s->n && len < sizeof(buf); i++) {
		if (s->f[i].len != strlen(s->f[i].name))
			return "(bad length)";
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				i ? ";" : "", s->f[i].name);
	}
	return buf;
}

static void expect(const struct symstack *s, const char *want,
		   const char *name)
{
	const char *got = joined(s);

	check(!strcmp(got, want), name, "got \"%s\", want \"%s\"", got, want);
}

/* References of the stacks sent. */
enum {
	R_SLEEP = 1, R_SLEEP2, R_WEIRD, R_WAKE, R_IRQ, R_SOFT, R_USER, R_USER2,
	R_TYPED, R_NOSYM, R_SOFT_TASK, R_SOFT_EXIT, R_SOFT_KSOFTIRQD,
	R_SOFT_IRQ_IN_BH, R_SOFT_CUT,
	R_NEVER,
};
#define REF(r)	(OW_STACK_HASH | (r))

/* Soft IRQs run by a task (loopback) and on nobody's account. */
static void send_softirqs(struct env *e)
{
	const uint64_t task[] = { K(TTWU, 1), K(NET_RX, 2), K(SOFTIRQ, 3),
		K(DO_SOFTIRQ, 4), K(BH_ENABLE, 5), K(TCP_SEND, 6) };
	const uint64_t exit[] = { K(TTWU, 1), K(NET_RX, 2), K(SOFTIRQ, 3),
		K(IRQ_EXIT, 4), K(SYSVEC, 5), K(TCP_SEND, 6) };
	const uint64_t ksoftirqd[] = { K(TTWU, 1), K(SOFTIRQ, 3),
		K(KSOFTIRQD, 4) };
	/* an interrupt that landed in __local_bh_enable_ip ran them on exit */
	const uint64_t in_bh[] = { K(TTWU, 1), K(SOFTIRQ, 3), K(SYSVEC, 5),
		K(BH_ENABLE, 5), K(TCP_SEND, 6) };
	const uint64_t cut[] = { K(TTWU, 1), K(NET_RX, 2), K(SOFTIRQ, 3) };

	send(e, REF(R_SOFT_TASK), task, 6);
	send(e, REF(R_SOFT_EXIT), exit, 6);
	send(e, REF(R_SOFT_KSOFTIRQD), ksoftirqd, 3);
	send(e, REF(R_SOFT_IRQ_IN_BH), in_bh, 5);
	send(e, REF(R_SOFT_CUT), cut, 3);
}

static void send_all(struct env *e)
{
	const uint64_t sleep[] = { K(BPF_PROG, 0x40), K(TRACEITER, 8),
		K(SCHED, 0x10), K(SCHEDULE, 4), K(NANOSLEEP, 0x20), 0x1000 };
	const uint64_t sleep2[] = { K(TRACEITER, 9), K(SCHED, 0x11),
		K(SCHEDULE, 5), K(NANOSLEEP, 0x21), 0x2000 };
	const uint64_t weird[] = { K(SCHEDULE, 1), K(WEIRD, 1) };
	const uint64_t wake[] = { K(BPF_PROG, 1), K(TTWU, 0x30),
		K(DATA, 0x10), K(HRTIMER, 1) };
	const uint64_t irq[] = { K(TTWU, 1), K(PFX, 0x10), K(SYSVEC, 3) };
	const uint64_t soft[] = { K(TTWU, 1), K(WAKE_UP, 2), K(SOFTIRQ, 3) };
	const uint64_t user[] = { UA(fn_alpha, 1), UA(fn_beta, 2), 0x10 };
	const uint64_t user2[] = { UA(fn_alpha, 2), UA(fn_beta, 3), 0x20 };
	/* typed frames: a marker, a native frame, a kind with no namer, an
	 * unknown marker */
	const uint64_t typed[] = { OW_FRAME(OW_FRAME_MARKER, OW_MARK_TRUNCATED),
		UA(fn_beta, 1), OW_FRAME(OW_FRAME_KINDS, 0x1234),
		OW_FRAME(OW_FRAME_MARKER, 99) };

	send(e, REF(R_SLEEP), sleep, 6);
	send(e, REF(R_SLEEP2), sleep2, 5);
	send(e, REF(R_WEIRD), weird, 2);
	send(e, REF(R_WAKE), wake, 4);
	send(e, REF(R_IRQ), irq, 3);
	send(e, REF(R_SOFT), soft, 3);
	send(e, REF(R_USER), user, 3);
	send(e, REF(R_USER2), user2, 3);
	send(e, REF(R_TYPED), typed, 4);
	send_softirqs(e);
}

static void key(struct agg_entry *e, uint64_t tk, uint64_t tu, uint64_t wk,
		uint64_t wu)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->key.target, "sleeper", 8);
	memcpy(e->key.waker, "waker", 6);
	e->key.t_kstack = tk;
	e->key.t_ustack = tu;
	e->key.w_kstack = wk;
	e->key.w_ustack = wu;
	e->key.t_pid = e->key.t_tgid = getpid();
	e->key.w_pid = e->key.w_tgid = getpid();
}

/* Level i + 2 of e's wakeup chain: comm, its stacks, in this process. */
static void level(struct agg_entry *e, int i, const char *comm, uint64_t kstack,
		  uint64_t ustack)
{
	snprintf(e->key.up[i].comm, sizeof(e->key.up[i].comm), "%s", comm);
	e->key.up[i].kstack = kstack;
	e->key.up[i].ustack = ustack;
	e->key.up[i].tgid = getpid();
}

static const char want_sleep[] = "__schedule;schedule;do_nanosleep;[unknown]";
static const char want_user[] = "fn_alpha;fn_beta;[unknown]";

static void test_names(struct env *v)
{
	struct agg_entry e, e2;

	key(&e, REF(R_SLEEP), REF(R_USER), REF(R_WAKE), REF(R_USER2));
	check(!fold_resolve(&v->f, &e, false), "fold: a key of received stacks resolves",
	      "returned -1");
	expect(e.stk[KS_T_KERNEL], want_sleep,
	       "fold: kernel stack: tracing frames dropped at the leaf, [unknown] below the first symbol");
	expect(e.stk[KS_W_KERNEL], "wake_up_process;hrtimer_wakeup",
	       "fold: waker's kernel stack: try_to_wake_up dropped, a data symbol is not a function");
	expect(e.stk[KS_T_USER], want_user,
	       "fold: user stack: this program's functions by name, [unknown]");
	check(e.stk[KS_T_USER] == e.stk[KS_W_USER] && !e.stk[KS_W_KERNEL]->ctx,
	      "fold: stacks showing the same frames are one (interned)",
	      "two copies");
	key(&e2, REF(R_WAKE), REF(R_USER2), REF(R_SLEEP2), OW_NO_STACK);
	fold_resolve(&v->f, &e2, false);
	expect(e2.stk[KS_T_KERNEL],
	       "try_to_wake_up;wake_up_process;hrtimer_wakeup",
	       "fold: the same stack as a target's keeps try_to_wake_up");
	check(e2.stk[KS_W_KERNEL] == e.stk[KS_T_KERNEL],
	      "fold: another kernel stack of the same frames is the same pointer",
	      "%s", joined(e2.stk[KS_W_KERNEL]));
	check(e2.stk[KS_W_USER] == &fold_no_frames,
	      "fold: no stack taken shows no frames", "%s",
	      joined(e2.stk[KS_W_USER]));
	key(&e2, REF(R_WEIRD), OW_NO_STACK, OW_NO_STACK, OW_NO_STACK);
	fold_resolve(&v->f, &e2, false);
	expect(e2.stk[KS_T_KERNEL], "schedule;weird:name",
	       "fold: ';' in a name becomes ':'");
}

/* Typed frames (offwake.h): each frame named by its kind's namer. */
static void test_typed(struct env *v)
{
	struct agg_entry e;

	key(&e, OW_NO_STACK, REF(R_TYPED), OW_NO_STACK, OW_NO_STACK);
	fold_resolve(&v->f, &e, false);
	expect(e.stk[KS_T_USER],
	       "[truncated];fn_beta;[unknown frame kind];[unknown marker]",
	       "fold: typed frames: a marker by name, a native frame by symbol, a kind without a namer and a marker out of range said so");
}

static void test_errors(struct env *v)
{
	struct agg_entry e;

	key(&e, EFAULT, OW_NO_STACK, ENOMEM, EEXIST);
	fold_resolve(&v->f, &e, false);
	check(e.stk[KS_T_KERNEL] == &fold_no_frames &&
	      e.stk[KS_T_USER] == &fold_no_frames,
	      "fold: EFAULT and no stack show no frames", "%s / %s",
	      joined(e.stk[KS_T_KERNEL]), joined(e.stk[KS_T_USER]));
	expect(e.stk[KS_W_KERNEL], "[Missed Kernel Stack]",
	       "fold: an errno kernel stack reference is a missed stack");
	expect(e.stk[KS_W_USER], "[Missed User Stack]",
	       "fold: an errno user stack reference is a missed stack");

	key(&e, REF(R_SLEEP), REF(R_NEVER), REF(R_WAKE), OW_NO_STACK);
	check(fold_resolve(&v->f, &e, false) == -1 && !e.stk[KS_T_KERNEL] &&
	      !v->f.missing,
	      "fold: a stack not received yet leaves the key unresolved",
	      "missing %llu", (unsigned long long)v->f.missing);
	check(!fold_resolve(&v->f, &e, true) && v->f.missing == 1,
	      "fold: at the end it is a missed stack, counted",
	      "missing %llu", (unsigned long long)v->f.missing);
	expect(e.stk[KS_T_USER], "[Missed User Stack]",
	       "fold: a user stack never received shows as missed");
}

/* Interrupt wakeups: marked, the waker's user stack hidden, chain ended. */
static void test_irq(struct env *v)
{
	struct agg_entry e;

	key(&e, REF(R_SLEEP), REF(R_USER), REF(R_IRQ), REF(R_USER2));
	level(&e, 0, "level2", REF(R_WAKE), REF(R_USER));
	fold_resolve(&v->f, &e, false);
	check(e.stk[KS_W_KERNEL]->ctx &&
	      !strcmp(e.stk[KS_W_KERNEL]->ctx, "[hardirq]"),
	      "fold: a wakeup from a hard interrupt is marked [hardirq]",
	      "ctx %s", e.stk[KS_W_KERNEL]->ctx);
	expect(e.stk[KS_W_KERNEL], "wake_up_process;asm_sysvec_apic_timer_interrupt",
	       "fold: the interrupt's kernel stack is shown (__pfx_ padding is not a function)");
	check(e.stk[KS_W_USER] == &fold_no_frames,
	      "fold: the interrupted task's user stack is not shown", "%s",
	      joined(e.stk[KS_W_USER]));
	check(!e.key.up[0].comm[0] && !e.key.up[0].kstack && !e.up[0][LS_KERNEL],
	      "fold: an interrupt's wakeup ends the chain", "level 2 kept");

	key(&e, REF(R_SLEEP), REF(R_USER), REF(R_WAKE), REF(R_USER2));
	level(&e, 0, "level2", REF(R_SOFT), REF(R_USER));
	level(&e, 1, "level3", REF(R_WAKE), OW_NO_STACK);
	fold_resolve(&v->f, &e, false);
	check(e.stk[KS_W_USER] != &fold_no_frames && e.up[0][LS_KERNEL] &&
	      e.up[0][LS_KERNEL]->ctx &&
	      !strcmp(e.up[0][LS_KERNEL]->ctx, "[softirq]") &&
	      e.up[0][LS_USER] == &fold_no_frames,
	      "fold: a chain level woken by a soft interrupt is marked, its user stack hidden",
	      "%s", joined(e.up[0][LS_KERNEL]));
	check(!e.key.up[1].comm[0] && !e.up[1][LS_KERNEL],
	      "fold: the chain ends at that level", "level 3 kept");
}

/*
 * A soft IRQ a task ran itself (do_softirq from local_bh_enable: over
 * loopback, the receipt of what it sends) is the task's wakeup: not
 * marked, its user stack shown, the chain going on; on an interrupt's
 * exit, in ksoftirqd, or with its caller not known, it stays [softirq].
 */
static void test_softirq_of_task(struct env *v)
{
	static const struct {
		int ref;
		const char *mark;
		const char *name;
	} cases[] = {
		{ R_SOFT_TASK, NULL, "fold: a soft IRQ run by a task's local_bh_enable is its wakeup" },
		{ R_SOFT_EXIT, "[softirq]", "fold: a soft IRQ on an interrupt's exit is marked [softirq]" },
		{ R_SOFT_KSOFTIRQD, "[softirq]", "fold: a soft IRQ in ksoftirqd is marked [softirq]" },
		{ R_SOFT_IRQ_IN_BH, "[softirq]", "fold: an interrupt's exit inside local_bh_enable is marked [softirq]" },
		{ R_SOFT_CUT, "[softirq]", "fold: a soft IRQ whose caller is not in the stack is marked [softirq]" },
	};
	struct agg_entry e;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *ctx;
		bool ok;

		key(&e, REF(R_SLEEP), REF(R_USER), REF(cases[i].ref),
		    REF(R_USER2));
		level(&e, 0, "level2", REF(R_WAKE), REF(R_USER));
		fold_resolve(&v->f, &e, false);
		ctx = e.stk[KS_W_KERNEL]->ctx;
		if (cases[i].mark)
			ok = ctx && !strcmp(ctx, cases[i].mark) &&
			     e.stk[KS_W_USER] == &fold_no_frames &&
			     !e.key.up[0].comm[0];
		else
			ok = !ctx && e.stk[KS_W_USER] != &fold_no_frames &&
			     e.key.up[0].comm[0] && e.up[0][LS_KERNEL];
		check(ok, cases[i].name, "marked %s, user stack %s, chain %s",
		      ctx ? ctx : "(none)", joined(e.stk[KS_W_USER]),
		      e.key.up[0].comm[0] ? "goes on" : "ends");
	}
	expect(e.stk[KS_W_KERNEL], "net_rx_action;handle_softirqs",
	       "fold: a soft IRQ cut short shows what was taken");
}

static void test_chain(struct env *v)
{
	struct agg_entry e;

	key(&e, REF(R_SLEEP), REF(R_USER), REF(R_WAKE), REF(R_USER2));
	level(&e, 0, "level2", REF(R_WAKE), REF(R_USER));
	fold_resolve(&v->f, &e, false);
	expect(e.up[0][LS_KERNEL], "wake_up_process;hrtimer_wakeup",
	       "fold: a chain level's kernel stack is a waker's");
	expect(e.up[0][LS_USER], want_user, "fold: a chain level's user stack");
	check(!e.up[1][LS_KERNEL] && !e.up[1][LS_USER] &&
	      e.key.up[0].comm[0],
	      "fold: the chain's end stays NULL, its levels in the key",
	      "level 2 %s", e.key.up[0].comm[0] ? "kept" : "cleared");
}

/*
 * Interrupt stacks: given up by the store, then forgotten by the folder:
 * R_IRQ, R_SOFT and the four marked ones of send_softirqs(); not a soft
 * IRQ a task ran (R_SOFT_TASK), a wakeup as any other.
 */
#define TRANSIENT	6
static void test_transient(struct env *v)
{
	struct agg_entry e;
	size_t cached = v->f.cache.used;
	struct fold_counts n;

	folder_counts(&v->f, &n);
	check(v->f.transient >= TRANSIENT && n.transient == TRANSIENT,
	      "fold: interrupt wakeups' kernel stacks counted as transient",
	      "%llu seen, %zu cached", (unsigned long long)v->f.transient,
	      n.transient);
	for (int i = 0; i < 4 * 2 + 1; i++)
		stacks_sweep(&v->st);
	folder_counts(&v->f, &n);
	check(v->freed == TRANSIENT &&
	      v->f.cache.used == cached - TRANSIENT && !n.transient &&
	      !stacks_get(&v->st, REF(R_IRQ)) && stacks_get(&v->st, REF(R_WAKE)) &&
	      stacks_get(&v->st, REF(R_SOFT_TASK)),
	      "fold: transient stacks given up and dropped from the cache",
	      "%d freed, cache %zu -> %zu", v->freed, cached, v->f.cache.used);
	key(&e, REF(R_SLEEP), REF(R_USER), REF(R_IRQ), OW_NO_STACK);
	check(fold_resolve(&v->f, &e, false) == -1,
	      "fold: a stack given up is not received any more", "resolved");
}

/* User stacks held while their lineage lives: procmaps_free releases it. */
static void test_lineage(struct env *v)
{
	const struct rawstack *r = stacks_get(&v->st, REF(R_USER));
	uint32_t held = r ? r->holders : 99;
	size_t idle = v->st.nidle;

	check(held == 1 && v->f.lineages == 1,
	      "fold: a user stack is held by its lineage",
	      "holders %u, %zu lineages", held, v->f.lineages);
	procmaps_free(v->pm);
	v->pm = procmaps_new();
	r = stacks_get(&v->st, REF(R_USER));
	/* the user stacks resolved: R_USER, R_USER2, R_TYPED */
	check(r && !r->holders && v->st.nidle == idle + 3 && !v->f.lineages,
	      "fold: released lineage: its user stacks become idle",
	      "holders %u, idle %zu -> %zu", r ? r->holders : 99, idle,
	      v->st.nidle);
}

static void test_comm(struct env *v)
{
	const char *plain = "gzip";

	check(fold_comm(&v->f, plain) == plain,
	      "fold: a clean command name is used as it is", "copied");
	check(!strcmp(fold_comm(&v->f, "a;b\nc\x7f"), "a:b?c?"),
	      "fold: ';' and control characters in command names replaced",
	      "%s", fold_comm(&v->f, "a;b\nc\x7f"));
	check(!strcmp(fold_comm(&v->f, "\x1b]0;\xc2\x9b\x9b\xff\xce\xbb"), "?]0:????\xce\xbb"),
	      "fold: C1 controls and invalid UTF-8 in command names replaced",
	      "%s", fold_comm(&v->f, "\x1b]0;\xc2\x9b\x9b\xff\xce\xbb"));
	check(!strcmp(fold_comm(&v->f, "0123456789abcdefXYZ"), "0123456789abcdef"),
	      "fold: command names cut at OW_COMM_LEN", "%s",
	      fold_comm(&v->f, "0123456789abcdefXYZ"));
}

/* With locs (pprof): where each frame is, and stacks apart by place. */
static void test_locs(void)
{
	struct env v;
	struct agg_entry e, e2;
	const struct symloc *ul, *kl;
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (env_init(&v, true)) {
		check(0, "fold: locs: init", "%s", strerror(errno));
		return;
	}
	exe[len > 0 ? len : 0] = 0;
	send_all(&v);
	key(&e, REF(R_SLEEP), REF(R_USER), REF(R_WAKE), REF(R_USER2));
	fold_resolve(&v.f, &e, false);
	key(&e2, REF(R_SLEEP2), REF(R_USER2), REF(R_WAKE), OW_NO_STACK);
	fold_resolve(&v.f, &e2, false);
	ul = symstack_locs(e.stk[KS_T_USER]);
	kl = symstack_locs(e.stk[KS_T_KERNEL]);
	check(e.stk[KS_T_USER] != e.stk[KS_W_USER] &&
	      e.stk[KS_T_KERNEL] != e2.stk[KS_T_KERNEL] &&
	      !strcmp(joined(e.stk[KS_T_USER]), joined(e.stk[KS_W_USER])),
	      "fold: locs: the same names at other places are other stacks",
	      "interned as one");
	check(ul && ul[0].map && !strcmp(ul[0].map->path, exe) &&
	      ul[0].addr == UA(fn_alpha, 1) && ul[1].addr == UA(fn_beta, 1) &&
	      ul[1].map == ul[0].map && !ul[2].map,
	      "fold: locs: user frames in this program's mapping, callers moved back by one",
	      "map %s addr %#llx", ul && ul[0].map ? ul[0].map->path : "-",
	      ul ? (unsigned long long)ul[0].addr : 0ULL);
	check(kl && kl[0].map && !strcmp(kl[0].map->path, "[kernel.kallsyms]") &&
	      kl[0].addr == K(SCHED, 0x10) - 1 && kl[3].addr == 0x1000 - 1,
	      "fold: locs: kernel frames in [kernel.kallsyms], as call sites",
	      "addr %#llx", kl ? (unsigned long long)kl[0].addr : 0ULL);
	env_free(&v);
}

/*
 * User frames without a symbol are named after their file, as perf does
 * ("[t_cap_fold]", "[vdso]"), or "[unknown]" as offwaketime with
 * plain_unknown; "[unknown]" stays for an address in no mapping.
 */
static void test_file_names(bool plain)
{
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	const uint64_t ips[] = { UA(nosym_code, 1), UA(fn_alpha, 1),
		vdso ? vdso + 0x10 : 0x30, 0x10 };
	const char *want = plain ? "[unknown];fn_alpha;[unknown];[unknown]" :
		vdso ? "[t_cap_fold];fn_alpha;[vdso];[unknown]" :
		"[t_cap_fold];fn_alpha;[unknown];[unknown]";
	struct agg_entry e;
	struct env v;

	if (env_init(&v, false)) {
		check(0, "fold: file names: folder_init", "%s", strerror(errno));
		return;
	}
	v.f.plain_unknown = plain;
	send(&v, REF(R_NOSYM), ips, 4);
	key(&e, OW_NO_STACK, REF(R_NOSYM), OW_NO_STACK, OW_NO_STACK);
	fold_resolve(&v.f, &e, false);
	expect(e.stk[KS_T_USER], want, plain ?
	       "fold: plain_unknown: frames without a symbol are [unknown], as offwaketime's" :
	       "fold: a user frame without a symbol is named after its file ([vdso] for the vDSO), [unknown] in no mapping");
	env_free(&v);
}

int main(void)
{
	struct env v;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = mkstemp(kallsyms);
	if (fd < 0) {
		check(0, "fold: temporary kallsyms", "%s", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < sizeof(ksym_lines) / sizeof(*ksym_lines); i++)
		dprintf(fd, "%016llx %s\n", K(i, 0), ksym_lines[i]);
	close(fd);
	if (env_init(&v, false)) {
		check(0, "fold: folder_init on our kallsyms", "%s", strerror(errno));
		unlink(kallsyms);
		return 1;
	}
	send_all(&v);
	test_names(&v);
	test_errors(&v);
	test_typed(&v);
	test_irq(&v);
	test_softirq_of_task(&v);
	test_chain(&v);
	test_transient(&v);
	test_lineage(&v);
	test_comm(&v);
	env_free(&v);
	test_file_names(false);
	test_file_names(true);
	test_locs();
	unlink(kallsyms);
	return failed;
}
