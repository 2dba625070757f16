// SPDX-License-Identifier: Apache-2.0
/*
 * report.c - a capture's summaries on standard error, once it is over:
 * what was lost and how to avoid it, how stacks were taken (the kernel
 * and user stack caches, each unwinder's lines), and why nothing was
 * captured (the filters, what they kept out, the children -p left out).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture.h"
#include "engine.h"
#include "kstack_cache.h"
#include "offwake.skel.h"
#include "ustack_cache.h"
#include "common/proc.h"
#include "symbols/debuginfod.h"
#include "unwind/unwinder.h"
#include "common/util.h"

void capture_report_kstacks(const struct capture *c)
{
	if (c->skel && c->skel->rodata->want_kstack)
		kstack_cache_report(c->kc, c->kc_off);
	if (c->skel && c->skel->rodata->uc_on)
		ustack_cache_report(c->uc);
}

/* What debuginfod gave (nothing when no request was made). */
static void report_debuginfod(void)
{
	struct dbgfetch_stats st;
	char unused[128] = "";

	dbgfetch_stats(&st);
	if (!st.asked && !st.skipped)
		return;
	if (st.unused)
		snprintf(unused, sizeof(unused), "; %u received of another build (build id), not used",
			 st.unused);
	fprintf(stderr, OW_PROG ": %s: debuginfod: %u debug files from the server (or its cache) of %u asked, in %.1f s; %u not found, %u failed, %u timed out, %u not asked (past the %.0f s deadline, DEBUGINFOD_TIMEOUT)%s\n",
		st.timed_out || st.failed || st.skipped || st.unused ? "warning" : "note",
		st.got - st.unused, st.asked + st.skipped, st.seconds, st.missing,
		st.failed, st.timed_out, st.skipped, st.budget, unused);
}

uint64_t capture_events_lost(const struct capture *c)
{
	return c->losses[OW_LOSS_TIMELINE] + c->tl.lost;
}

void capture_report_losses(const struct capture *c)
{
	static const char *const what[OW_LOSS_NR] = {
		[OW_LOSS_STACK_FAULT] = "stacks not readable (-EFAULT): usually a task without a user stack (exiting, or kernel-only)",
		[OW_LOSS_STACK_OTHER] = "stacks not taken for other reasons",
		[OW_LOSS_STACK_LOST] = "stacks lost: the ring buffer and the stack backlog were both full (user space fell behind); their blocked time is shown under [Lost ... Stack: backlog full] frames; raise --backlog (or --ring-buffer-size)",
		[OW_LOSS_START] = "events missed: no task storage (kernel memory, or busy on that CPU)",
		[OW_LOSS_WAKER] = "blocks without their waker (the wakeup was not seen)",
		[OW_LOSS_COUNTS_FULL] = "blocks without their stacks: the counts map was full between two drains (over 262144 distinct keys in one period); their blocked time is shown as " OW_LOST_BLOCKS "; -m US or a lower --chain-depth makes fewer keys",
		[OW_LOSS_EVENTS] = "process events lost: the ring buffer and the event backlog were both full (some exited processes may show [unknown] frames); raise --ring-buffer-size",
		[OW_LOSS_HIDDEN_SWITCH] = "context switches the kernel did not report: it hides some tasks from tracing, and no event is seen on a CPU while one runs",
		[OW_LOSS_END_AT_WAKEUP] = "blocks whose return to CPU the kernel did not report: counted up to their wakeup",
		[OW_LOSS_END_HIDDEN] = "blocks whose end the kernel did not report, and no wakeup either: not counted",
		[OW_LOSS_LAZY_STACKS] = "blocks kept without their own stacks: the end of schedule() was not seen when they ended (shown as [Missed ... Stack])",
		[OW_LOSS_WAKER_EARLY] = "blocks woken before half of -m that waited as long again for a CPU: kept, but their waker's stacks were not taken (shown as [Missed ... Stack])",
		[OW_LOSS_WALK_PROG] = "stacks not taken: a stack walk's BPF program was not in its slot (a bug: please report it)",
	};

	/* hidden switches matter when their tasks were to be traced, or
	 * when they explain a loss */
	bool hidden = c->user_threads || c->losses[OW_LOSS_WAKER] ||
		      c->losses[OW_LOSS_END_AT_WAKEUP] ||
		      c->losses[OW_LOSS_END_HIDDEN] ||
		      c->losses[OW_LOSS_END_BY_RUNTIME];

	for (int i = 0; i < OW_LOSS_NR; i++)
		if (c->losses[i] && what[i] && (i != OW_LOSS_HIDDEN_SWITCH || hidden))
			fprintf(stderr, OW_PROG ": warning: %llu %s\n",
				(unsigned long long)c->losses[i], what[i]);
	if (c->losses[OW_LOSS_HIDDEN_SWITCH] && hidden)
		fprintf(stderr, OW_PROG ": note: a hidden task: pid %u (%s); a wakeup made while such a task ran (by it, or by an interrupt) has no waker\n",
			c->hidden_pid, c->hidden_comm);
	if (c->losses[OW_LOSS_END_BY_RUNTIME] && hidden)
		fprintf(stderr, OW_PROG ": note: %llu blocks whose return to CPU the kernel did not report: ended where the task's CPU time since the scheduler picked it puts that return\n",
			(unsigned long long)c->losses[OW_LOSS_END_BY_RUNTIME]);
	if (c->losses[OW_LOSS_STACK_KEPT] || c->losses[OW_LOSS_EVENTS_KEPT])
		fprintf(stderr, OW_PROG ": note: user space fell behind: %llu stacks and %llu process events waited in the kernel's backlogs until read\n",
			(unsigned long long)c->losses[OW_LOSS_STACK_KEPT],
			(unsigned long long)c->losses[OW_LOSS_EVENTS_KEPT]);
	if (c->tl.on)	/* (their time is in the sums all the same) */
		fprintf(stderr, OW_PROG ": timeline: %zu blocks of at least %llu us kept as events (%.1f KB/s from the kernel), %llu lost%s\n",
			c->tl.n, (unsigned long long)c->cfg.event_min_us,
			c->tl.clock_end_ns > c->tl.clock_start_ns ?
			c->tl.bytes / 1e3 / ((c->tl.clock_end_ns - c->tl.clock_start_ns) / 1e9) : 0.0,
			(unsigned long long)capture_events_lost(c),
			c->losses[OW_LOSS_TIMELINE] ? " (the timeline ring buffer was full: user space fell behind)" :
			c->tl.lost ? " (past the events kept in memory, OFFWAKE_TIMELINE_MAX)" : "");
	if (c->drain_errors)
		fprintf(stderr, OW_PROG ": warning: %llu keys or stacks dropped in user space: out of memory\n",
			(unsigned long long)c->drain_errors);
	report_debuginfod();
	procmaps_report_denied();
	usyms_report(c->fo.us);
	if (c->fo.missing || c->stacks.bad)
		fprintf(stderr, OW_PROG ": warning: %llu stacks never received, %llu malformed (please report)\n",
			(unsigned long long)c->fo.missing,
			(unsigned long long)c->stacks.bad);
}

void capture_report_unwind(const struct capture *c)
{
	for (size_t i = 0; c->uws && i < ow_nunwinders; i++)
		if (c->uws[i] && ow_unwinders[i]->summary)
			ow_unwinders[i]->summary(c->uws[i], &c->uwh);
}

/* Whether id is one of the -p/-t ids. */
static bool is_traced(const struct capture_cfg *o, uint32_t id)
{
	for (size_t i = 0; i < o->nids; i++)
		if (o->ids[i] == id)
			return true;
	return false;
}

/*
 * The child processes of the -p processes (not followed) that -p leaves
 * out: a parent that never went off CPU (nginx's master, a stopped shell)
 * while its children did the work is a common first try.  A few are
 * named, with the -p list that traces them too.
 */
#define CHILDREN_SHOWN	8
#define CHILDREN_READ	64
static void report_children(const struct capture_cfg *o)
{
	struct ow_child kids[CHILDREN_READ];
	char comm[OW_PROC_COMM], named[512], ids[256];
	size_t n, got, kept, shown, ln, li;

	for (size_t i = 0; i < o->nids; i++) {
		n = ow_proc_children(o->ids[i], kids, CHILDREN_READ);
		got = n < CHILDREN_READ ? n : CHILDREN_READ;
		kept = 0;
		for (size_t k = 0; k < got; k++)
			if (!is_traced(o, kids[k].pid))
				kids[kept++] = kids[k];
		n -= got - kept;
		got = kept;
		if (!got)
			continue;
		shown = got < CHILDREN_SHOWN ? got : CHILDREN_SHOWN;
		ow_proc_comm(o->ids[i], comm);
		ln = li = 0;
		for (size_t j = 0; j < o->nids && li < sizeof(ids); j++)
			li += snprintf(ids + li, sizeof(ids) - li, "%s%u",
				       j ? "," : "", o->ids[j]);
		for (size_t k = 0; k < shown && ln < sizeof(named) &&
				   li < sizeof(ids); k++) {
			ln += snprintf(named + ln, sizeof(named) - ln, "%s%u (%s)",
				       k ? ", " : "", kids[k].pid, kids[k].comm);
			li += snprintf(ids + li, sizeof(ids) - li, ",%u",
				       kids[k].pid);
		}
		fprintf(stderr, OW_PROG ": note: process %u (%s) has %zu child process%s, not traced by -p: %s%s; -p %s traces %s too (--follow adds only the ones it starts during the capture)\n",
			o->ids[i], comm, n, n > 1 ? "es" : "", named,
			n > shown ? ", ..." : "", ids, n > shown ?
			"these" : n > 1 ? "them" : "it");
	}
}

void capture_report_empty(const struct capture *c)
{
	const struct capture_cfg *o = &c->cfg;
	char filters[256] = "", *f = filters;
	size_t room = sizeof(filters);
	int n;

#define ADD(...) do { n = snprintf(f, room, __VA_ARGS__); \
		      if (n > 0 && (size_t)n < room) { f += n; room -= n; } } while (0)
	if (o->threads == OW_THREADS_TGID || o->threads == OW_THREADS_TID) {
		ADD(" %s ", o->threads == OW_THREADS_TGID ? "-p" : "-t");
		for (size_t i = 0; i < o->nids; i++)
			ADD("%s%u", i ? "," : "", o->ids[i]);
	} else if (o->threads != OW_THREADS_ALL) {
		ADD(" %s", o->threads == OW_THREADS_USER ? "-u" : "-k");
	}
	if (o->cgroup)
		ADD(" --cgroup %s", o->cgroup);
	if (o->min_block_us != 1)
		ADD(" -m %llu", (unsigned long long)o->min_block_us);
	if (o->max_block_us != UINT64_MAX)
		ADD(" -M %llu", (unsigned long long)o->max_block_us);
	if (o->has_state)
		ADD(" --state %u", o->state);
#undef ADD
	if (!c->filtered[OW_F_SWITCHES]) {
		ow_err("no blocked time matched%s in %.1f s: the threads traced never went off CPU%s",
		       filters[0] ? filters : " (no filter)", c->seconds,
		       o->nids ? " (idle, or gone?)" : "");
		if (o->threads == OW_THREADS_TGID && !o->follow)
			report_children(o);
		return;
	}
	ow_err("no blocked time matched%s in %.1f s: the threads traced went off CPU %llu times; %llu blocks were shorter than -m, %llu longer than -M, %llu switches in other states (--state)",
	       filters[0] ? filters : " (no filter)", c->seconds,
	       (unsigned long long)c->filtered[OW_F_SWITCHES],
	       (unsigned long long)c->filtered[OW_F_SHORT],
	       (unsigned long long)c->filtered[OW_F_LONG],
	       (unsigned long long)c->filtered[OW_F_STATE]);
}
