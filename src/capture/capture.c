// SPDX-License-Identifier: Apache-2.0
/*
 * capture.c - one capture session: its start (the kernel side loaded,
 * bpf_load.c; the unwinders started; kernel symbols read; the programs
 * attached and armed), its loop (the tick table's periodic jobs: the
 * status line, the unwinders' table builds, the drain, drain.c, the
 * sweeps; the caller's own jobs; the ring buffer polled between them),
 * its end (disarmed, detached, what is left drained, the counters read)
 * and its free.  The summaries are report.c's, the signals signals.c's.
 *
 * A user stack the kernel side could not walk because its process's
 * unwind tables were not in place yet comes as a copy of the stack's top
 * (bpf/unwind_copy.h), under a reference of its own: the copy waits
 * (native_defer.c) until the tables are built, between two ring buffer
 * reads, and is then walked into a stack under that reference, before
 * the drain that may find keys referring to it (those wait in pending).
 *
 * Process events from the ring buffer make us read /proc/PID/maps while
 * the process is alive (procmaps.c), so frames of processes that exit
 * before the end are still named.  Every SWEEP_MS, processes gone for
 * GRACE_S (long enough for their last keys to be drained) are forgotten,
 * and so, GRACE_S later, are their lineages' caches and, once idle, user
 * stacks (stackstore.c); a stack given up is cleared from the kernel's
 * "seen" cache, so it is sent again should it come back.  ELF files unused
 * for FILE_IDLE sweeps are forgotten too (read again if needed).
 *
 * On a terminal, the status line (progress.c) shows every STATUS_MS the
 * time, the blocks counted (a per-CPU counter of the kernel side), the
 * distinct stacks and keys, and how full the last drained map was.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "capture.h"
#include "engine.h"
#include "bpf_load.h"
#include "drain.h"
#include "kbtf.h"
#include "ustack_cache.h"
#include "memstats.h"
#include "common/proc.h"
#include "offwake.skel.h"
#include "walks.h"
#include "progsyms.h"
#include "signals.h"
#include "symbols/debuginfod.h"
#include "unwind/unwinder.h"
#include "common/progress.h"
#include "common/settings.h"
#include "common/util.h"
#include "base/outfile.h"

#define POLL_MS		100
#define POLL_SLICE	0.05	/* s: the longest a poll keeps control */
#define STATUS_MS	250
#define SWEEP_MS	1000
#define GRACE_S		3.0
#define FILE_IDLE	60		/* sweeps an unused ELF file is kept */
/*
 * Test settings from the environment (env_uint()): OFFWAKE_FILE_IDLE
 * replaces FILE_IDLE (OFFWAKE_RAW_TP=1, the raw_tp set only, is read by
 * bpf_load.c, OFFWAKE_STACKS_IDLE by drain.c); OFFWAKE_MEMSTATS=FILE appends a line of the
 * capture's memory, table by table, to FILE every MEMSTATS_S seconds
 * (memstats.c: make soak); OFFWAKE_ARM_DELAY_MS=N waits N ms right
 * after attaching, before the rest of the start and the arming (a slow
 * start's gap, where the waking program works already: t_unwind_scope).
 */
#define MEMSTATS_S	5
/*
 * The end of a capture with a DURATION, exact: a thread sleeps until then
 * and disarms the programs itself, whatever the main loop is busy with
 * (symbolising a burst of new stacks, reading a large ELF file), which
 * once made a "1 s" capture trace 1.7 s.
 */
struct ender {
	pthread_t thread;
	struct offwake_bpf *skel;
	struct timespec at;	/* CLOCK_MONOTONIC */
	double ended;		/* when it disarmed, 0: not (yet) */
};

static double now_s(void);

static void *end_at(void *arg)
{
	struct ender *e = arg;

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &e->at, NULL) == EINTR)
		;
	__atomic_store_n(&e->skel->bss->armed, 0, __ATOMIC_RELEASE);
	e->ended = now_s();	/* read after the join */
	capsig_stop = 1;
	return NULL;
}

/* Start the ender for start + seconds; 0, or -1 (the loop ends it then). */
static int ender_start(struct ender *e, struct offwake_bpf *skel, double start,
		       uint64_t seconds)
{
	double at = start + seconds;

	e->skel = skel;
	e->at.tv_sec = (time_t)at;
	e->at.tv_nsec = (long)((at - (double)e->at.tv_sec) * 1e9);
	e->ended = 0;
	return pthread_create(&e->thread, NULL, end_at, e) ? -1 : 0;
}

/* Stop the ender (SIGINT may come first); when it disarmed, or 0. */
static double ender_stop(struct ender *e)
{
	pthread_cancel(e->thread);	/* clock_nanosleep: a cancellation point */
	pthread_join(e->thread, NULL);
	return e->ended;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A number from the environment (test settings), else def. */
static unsigned env_uint(const char *name, unsigned def)
{
	return ow_setting_uint(name, def);
}

static void show_status(struct capture *c, const struct capture_cfg *o,
			struct progress *pg, double elapsed)
{
	char when[64], text[256];
	uint64_t blocks = 0;
	int n;

	if (o->duration)
		snprintf(when, sizeof(when), "%.1f / %llu s", elapsed,
			 (unsigned long long)o->duration);
	else
		snprintf(when, sizeof(when), "%.1f s (Ctrl-C ends)", elapsed);
	drain_percpu(c->skel->maps.blocks, &blocks, 1);
	n = snprintf(text, sizeof(text),
		     "capturing %s, %llu blocks, %zu stacks, %zu keys, map %.0f%%",
		     when, (unsigned long long)blocks, c->stacks.tab.used,
		     c->agg.n, c->fill);
	for (size_t i = 0; i < ow_nunwinders && n > 0 && (size_t)n < sizeof(text); i++)
		if (c->uws[i] && ow_unwinders[i]->status) {
			ow_unwinders[i]->status(c->uws[i], text + n, sizeof(text) - n);
			n += strlen(text + n);
		}
	progress_status(pg, text);
}

void capture_buffer_sizes(const struct capture_cfg *o, uint64_t *rb_bytes,
			  uint32_t *backlog)
{
	bpfload_buffer_sizes(o, rb_bytes, backlog);
}

/* The host's calls (unwinder.h): a stack walked by an unwinder, stored
 * as if the kernel side had sent it; the ring buffer read between two
 * table builds, and during one (a large file's takes seconds in a
 * sanitised build: a process that lived less would be read too late,
 * its maps gone, its frames [unknown]); a stored stack. */
static void got_walked(void *ctx, const void *st, size_t len)
{
	drain_record(ctx, (void *)st, len);
}

static void keep_up(void *ctx)
{
	struct capture *c = ctx;

	ring_buffer__consume(c->rb);
}

/* ow_uw_host's load_walks: an interpreter's walks, late (walks.h). */
static int load_walks(void *ctx, int slot)
{
	struct capture *c = ctx;

	return walks_load_late(&c->walks, c->skel, slot);
}

static const uint64_t *stored_stack(void *ctx, uint64_t ref, uint32_t *nr)
{
	struct capture *c = ctx;
	const struct rawstack *r = stacks_get(&c->stacks, ref);

	*nr = r ? r->nr : 0;
	return r ? r->ips : NULL;
}

/* The process of the -p/-t id i (0: none). */
static uint32_t id_tgid(const struct capture_cfg *o, size_t i)
{
	return o->threads == OW_THREADS_TGID ? o->ids[i] :
	       o->threads == OW_THREADS_TID ? procmaps_tgid(o->ids[i]) : 0;
}

/*
 * The unwinders (src/unwind/unwinders.c's table), each started in turn
 * with what it needs of the capture (struct ow_uw_host); the -p/-t
 * processes' tables are in before tracing starts.
 */
static int unwinders_start(struct capture *c, const struct capture_cfg *o)
{
	uint32_t *tgids = o->nids ? calloc(o->nids, sizeof(*tgids)) : NULL;

	c->uws = calloc(ow_nunwinders, sizeof(*c->uws));
	if (!c->uws || (o->nids && !tgids)) {
		free(tgids);
		ow_err("starting the unwinders: %s", strerror(ENOMEM));
		return -1;
	}
	for (size_t i = 0; i < o->nids; i++)
		tgids[i] = id_tgid(o, i);
	c->uw_tgids = tgids;
	c->uwh = (struct ow_uw_host){
		.pm = c->pm, .obj = c->skel->obj, .tgids = tgids, .ntgids = o->nids,
		.cfi_only = o->unwind == OW_UNWIND_CFI,
		.python_lines = o->python == OW_PYTHON_LINES, .stop = &capsig_stop,
		.walks = (const uint64_t (*)[OW_UW_NR])c->uw, .ctx = c,
		.keep_up = keep_up, .got_stack = got_walked, .stack = stored_stack,
		.load_walks = load_walks,
	};
	for (size_t i = 0; i < ow_nunwinders; i++)
		if (ow_unwinders[i]->start && ow_unwinders[i]->start(&c->uwh, &c->uws[i]))
			return -1;
	return 0;
}

/*
 * The kernel side loaded (bpf_load.c), then the threads map filled, the
 * unwinders started and the drain's ring buffer and counts opened.
 */
static int load(struct capture *c, const struct capture_cfg *o)
{
	if (bpfload_open(c, o))
		return -1;
	progress_phase(c->pg, "starting: the traced processes' unwind tables");
	if (bpfload_threads(c, o) || unwinders_start(c, o) || drain_open(c))
		return -1;
	return 0;
}

/* The start cut short by a signal (stop before the arming): nothing
 * traced, -- CMD not let exec (it exits, 127); -1. */
static int interrupted(struct capture *c)
{
	c->interrupted = capsig_got ? capsig_got : SIGINT;
	if (c->cfg.cmd_go >= 0)
		close(c->cfg.cmd_go);
	c->cfg.cmd_go = -1;
	return -1;
}

/*
 * OFFWAKE_MEMSTATS=FILE, opened before the start (a bad FILE fails at
 * once) and as -o's files are: no link another user planted in /tmp.
 */
static int memstats_open(struct capture *c)
{
	const char *path = ow_setting_str("OFFWAKE_MEMSTATS"), *why;
	int fd;

	if (!path || !*path)
		return 0;
	fd = ow_outfile_append(path, &why);
	if (fd >= 0 && (c->memstats = fdopen(fd, "a")))
		return 0;
	ow_err("OFFWAKE_MEMSTATS=%s: %s", path, why ? why : strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The name of the task the kernel hid (read now: it may exit later). */
static void name_hidden(struct capture *c)
{
	c->hidden_pid = c->skel->bss->hidden_pid;
	ow_proc_comm(c->hidden_pid, c->hidden_comm);
}

/* The tick table's jobs: each returns the seconds to its next run, or
 * a negative number on an error that ends the capture. */
static double tick_status(struct capture *c, double t)
{
	if (!c->pg)
		return 3600;
	show_status(c, &c->cfg, c->pg, t - c->start);
	return STATUS_MS / 1000.0;
}

static double tick_tables(struct capture *c, double t)
{
	for (size_t i = 0; i < ow_nunwinders; i++)
		if (c->uws[i] && ow_unwinders[i]->tables)
			ow_unwinders[i]->tables(c->uws[i], c->end);
	return 0;	/* every pass */
}

static double tick_drain(struct capture *c, double t)
{
	int ms = drain_tick(c);

	return ms < 0 ? -1 : ms / 1000.0;
}

static double tick_sweep(struct capture *c, double t)
{
	procmaps_sweep(c->pm, t, GRACE_S);
	stacks_sweep(&c->stacks);
	folder_sweep(&c->fo, c->file_idle);
	for (size_t i = 0; i < ow_nunwinders; i++)
		if (c->uws[i] && ow_unwinders[i]->sweep)
			ow_unwinders[i]->sweep(c->uws[i], c->file_idle);
	return SWEEP_MS / 1000.0;
}

static double tick_memstats(struct capture *c, double t)
{
	if (!c->memstats)
		return 3600;
	memstats_line(c->memstats, c, t - c->start);
	return MEMSTATS_S;
}

/* The loop's periodic jobs, in the order they run when due together;
 * first: seconds after the start of the first run. */
static const struct tick {
	const char *name;
	double (*run)(struct capture *c, double now);
	double first;
} ticks[] = {
	{ "status", tick_status, 0 },
	{ "tables", tick_tables, 0 },
	{ "drain", tick_drain, DRAIN_FAST_MS / 1000.0 },	/* the first burst */
	{ "sweep", tick_sweep, SWEEP_MS / 1000.0 },
	{ "memstats", tick_memstats, SWEEP_MS / 1000.0 },
};
#define NTICKS (sizeof(ticks) / sizeof(ticks[0]))
_Static_assert(NTICKS <= sizeof(((struct capture *)0)->next_tick) /
			 sizeof(double), "next_tick[] too small");

struct capture *capture_new(void)
{
	struct capture *c = calloc(1, sizeof(*c));

	if (!c)
		ow_err("starting the capture: %s", strerror(ENOMEM));
	return c;
}

int capture_every(struct capture *c, double every,
		  int (*job)(struct capture *c, void *ctx), void *ctx)
{
	if (c->njobs == CAPTURE_JOBS)
		return -1;
	c->jobs[c->njobs++] = (struct capture_job){ every, 0, job, ctx };
	return 0;
}

void capture_stop(void)
{
	capsig_stop = 1;
}

int capture_start(struct capture *c, const struct capture_cfg *o,
		  struct progress *pg)
{
	struct ender *ender;
	struct ksyms_read *kr;
	unsigned arm_delay;
	int err;

	c->cfg = *o;
	c->pg = pg;
	c->merge = o->merge;
	c->group = o->group;
	c->file_idle = env_uint("OFFWAKE_FILE_IDLE", FILE_IDLE);
	c->tl.on = o->timeline;
	c->tl.max = ow_setting_uint("OFFWAKE_TIMELINE_MAX", TIMELINE_MAX);
	c->pm = procmaps_new();
	if (!c->pm) {
		ow_err("starting the capture: %s", strerror(ENOMEM));
		return -1;
	}
	capsig_install();
	if (memstats_open(c))
		return -1;
	/* kallsyms read while the programs load (on the other CPU: 80 ms
	 * of the 260 here), our programs named after (progsyms.c: their
	 * frames are plumbing); a signal is looked for after each step
	 * (the load's own: above) */
	kr = ksyms_load_async(NULL);
	if (load(c, o) || capsig_stop) {
		if (kr)
			ksyms_free(ksyms_load_wait(kr));
		return capsig_stop ? interrupted(c) : -1;
	}
	progress_phase(c->pg, "starting: reading the kernel's symbols");
	if (folder_init(&c->fo, c->pm, &c->stacks, kr) || capsig_stop)
		return capsig_stop ? interrupted(c) : -1;
	if (kr && (err = progsyms_add(c->fo.ks, c->skel->obj))) {
		ow_err("naming the BPF programs: %s", strerror(err));
		return -1;
	}
	usyms_stop_flag(c->fo.us, &capsig_stop);	/* a CRC check ends at SIGINT */
	bpfload_kstack_cache(c);	/* before attaching: a tracer's start is short */
	kbtf_free();		/* start-up's questions to it are done */
	/* before attaching too: the waking program is not held back until
	 * armed, and without the system call entry an interrupt's waker
	 * passes for process context (its user stack walked, its process's
	 * tables built, though neither traced nor a waker shown) */
	bpfload_syscall_entry(c);
	if (capsig_stop || bpfload_attach(c))
		return capsig_stop ? interrupted(c) : -1;
	if ((arm_delay = env_uint("OFFWAKE_ARM_DELAY_MS", 0)))
		nanosleep(&(struct timespec){ arm_delay / 1000,
					      arm_delay % 1000 * 1000000L }, NULL);
	c->fo.locs = o->locs;	/* addresses and files too */
	c->fo.plain_unknown = o->plain_unknown;
	c->fo.uwt = ow_unwinders;	/* interpreter frames' names */
	c->fo.uw = c->uws;
	c->fo.nuw = ow_nunwinders;
	drain_keep_stacks(c);
	if (capsig_stop)	/* the last look before the arming */
		return interrupted(c);
	/* the traced window is the one stated: it starts here (everything
	 * attached, kernel symbols read) and ends at the disarming in
	 * capture_finish() */
	__atomic_store_n(&c->skel->bss->armed, 1, __ATOMIC_RELEASE);
	c->start = now_s();
	c->tl.clock_start_ns = llround(c->start * 1e9);	/* (CLOCK_MONOTONIC) */
	c->slow_factor = env_uint("OFFWAKE_SLOW_READER", 0);	/* while tracing */
	ender = o->duration ? malloc(sizeof(*ender)) : NULL;
	if (ender && ender_start(ender, c->skel, c->start, o->duration))
		free(ender), ender = NULL;
	c->ender = ender;
	if (o->cmd_go >= 0 && o->cmd_pid > 0) {	/* tracing: CMD may exec now */
		if (write(o->cmd_go, "x", 1) != 1)
			ow_err("starting the command: %s", strerror(errno));
		close(o->cmd_go);
		c->cfg.cmd_go = -1;
	}
	c->end = o->duration ? c->start + o->duration : 0;
	for (size_t i = 0; i < NTICKS; i++)
		c->next_tick[i] = c->start + ticks[i].first;
	for (int i = 0; i < c->njobs; i++)
		c->jobs[i].next = c->start + c->jobs[i].every;
	return 0;
}

/* Run what is due in the tick table and the jobs; the seconds to the next
 * due one, or -1 to end the capture. */
static double run_due(struct capture *c)
{
	double t = now_s(), next = t + POLL_MS / 1000.0, d;

	for (size_t i = 0; i < NTICKS; i++) {
		if (t < c->next_tick[i])
			goto later;
		d = ticks[i].run(c, t);
		if (d < 0)
			return -1;
		c->next_tick[i] = (d ? now_s() : t) + d;
		if (!d)
			continue;
later:
		next = fmin(next, c->next_tick[i]);
	}
	for (int i = 0; i < c->njobs; i++) {
		struct capture_job *j = &c->jobs[i];

		if (t >= j->next) {
			if (j->run(c, j->ctx))
				return -1;
			j->next = now_s() + j->every;
		}
		next = fmin(next, j->next);
	}
	if (c->end)
		next = fmin(next, c->end);
	return fmax(next - now_s(), 0);
}

int capture_loop(struct capture *c)
{
	const struct capture_cfg *o = &c->cfg;

	while (!capsig_stop) {
		double wait;
		int r;

		if (c->end && now_s() >= c->end)
			break;
		if (o->cmd_pid > 0 &&
		    waitpid(o->cmd_pid, &c->cmd_status, WNOHANG) == o->cmd_pid) {
			c->cmd_done = true;	/* -- CMD exited: the capture ends */
			break;
		}
		wait = run_due(c);
		if (wait < 0)
			return -1;
		c->poll_until = now_s() + fmax(wait, POLL_SLICE);
		c->poll_records = 0;
		r = ring_buffer__poll(c->rb, (int)(wait * 1000) + 1);
		c->poll_until = 0;
		if (r < 0 && r != POLL_YIELD && errno != EINTR)
			break;
	}
	return 0;
}

int capture_snapshot(struct capture *c,
		     int (*write)(struct capture *c, void *ctx), void *ctx)
{
	if (!c->finished) {
		c->seconds = now_s() - c->start;	/* the output's, so far */
		ring_buffer__consume(c->rb);
		if (drain_tick(c) < 0)
			return -1;
		c->seconds = now_s() - c->start;	/* traced so far: the
							 * subtitle's time */
	}
	return write(c, ctx);
}

int capture_finish(struct capture *c)
{
	double ended = 0;
	uint64_t *hits;
	int err = 0;

	/* disarmed first: blocks ending while the waking program is being
	 * detached would seem to have no waker */
	if (c->ender) {
		ended = ender_stop(c->ender);
		free(c->ender);
		c->ender = NULL;
	}
	__atomic_store_n(&c->skel->bss->armed, 0, __ATOMIC_RELEASE);
	c->slow_factor = 0;
	c->seconds = (ended ? ended : now_s()) - c->start;	/* what was traced */
	c->tl.clock_end_ns = llround((c->start + c->seconds) * 1e9);
	c->user_threads = c->cfg.threads == OW_THREADS_ALL ||
			  c->cfg.threads == OW_THREADS_USER;
	progress_phase(c->pg, "finishing");
	offwake_bpf__detach(c->skel);
	c->finished = true;
	err = drain_backlog(c);
	for (size_t i = 0; i < ow_nunwinders; i++)	/* before the drains */
		if (c->uws[i] && ow_unwinders[i]->finish)
			ow_unwinders[i]->finish(c->uws[i]);
	err = drain_last(c, err);
	if (c->fo.nlate) {	/* tracing has ended: the servers wait no one */
		progress_phase(c->pg, "names: late ones (debuginfod, perf maps)");
		fold_late_names(&c->fo);
	}
	drain_percpu(c->skel->maps.losses, c->losses, OW_LOSS_NR);
	drain_percpu(c->skel->maps.unwind_stats, c->uw[0], OW_UW_SIDES * OW_UW_NR);
	drain_percpu(c->skel->maps.kc_stats, c->kc, OW_KC_NR);
	drain_percpu(c->skel->maps.uc_stats, c->uc, OW_UC_NR);
	if ((hits = calloc(OW_UC_HITS, sizeof(*hits)))) {	/* (uc_hit()) */
		drain_percpu(c->skel->maps.uc_hits, hits, OW_UC_HITS);
		ustack_cache_add_hits(hits, c->uw, c->uc);
		free(hits);
	}
	drain_percpu(c->skel->maps.filtered, c->filtered, OW_F_NR);
	if (c->losses[OW_LOSS_HIDDEN_SWITCH])
		name_hidden(c);
	if (c->memstats) {
		memstats_line(c->memstats, c, c->seconds);
		fclose(c->memstats);
		c->memstats = NULL;
	}
	return err;
}

int capture_run(struct capture *c, const struct capture_cfg *o,
		struct progress *pg)
{
	int err = capture_start(c, o, pg);

	if (!err)
		err = capture_loop(c);
	if (c->skel && c->start) {
		int e = capture_finish(c);

		err = err ? err : e;
	}
	return err;
}

double capture_seconds(const struct capture *c)
{
	return c->finished ? c->seconds : now_s() - c->start;
}

bool capture_empty(const struct capture *c)
{
	return !c->agg.n;
}

int capture_interrupted(const struct capture *c)
{
	if (c->interrupted) {
		const char *sig = sigabbrev_np(c->interrupted);

		ow_err("interrupted (SIG%s) before tracing started: nothing was traced",
		       sig ? sig : "?");
	}
	return c->interrupted;
}

bool capture_cmd_status(const struct capture *c, int *status)
{
	if (c->cmd_done)
		*status = c->cmd_status;
	return c->cmd_done;
}

void capture_free(struct capture *c)
{
	if (!c)
		return;
	if (c->ender) {
		ender_stop(c->ender);
		free(c->ender);
	}
	if (c->memstats)
		fclose(c->memstats);
	drain_close(c);
	for (size_t i = 0; c->uws && i < ow_nunwinders; i++)
		if (c->uws[i] && ow_unwinders[i]->free)
			ow_unwinders[i]->free(c->uws[i]);
	free(c->uws);
	free(c->uw_tgids);
	walks_free(c->walks);
	offwake_bpf__destroy(c->skel);
	procmaps_free(c->pm);		/* first: it releases fold's caches */
	folder_free(&c->fo);
	dbgfetch_end();
	stacks_free(&c->stacks);
	agg_free(&c->agg);
	agg_free(&c->pending);
	timeline_free(&c->tl);
	free(c);
}
