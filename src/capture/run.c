// SPDX-License-Identifier: Apache-2.0
/*
 * run.c - the capture command: check the -p/-t ids, --cgroup's directory
 * and the SVG's options and open the output before tracing (a typo fails
 * at once, not after a long capture),
 * capture with a status line on a terminal, and the live views asked for
 * (--live, --serve: cli.h's table ow_live_views) (SIGHUP, SIGINT and
 * SIGTERM end it, and the output is still written; before tracing
 * started, they end the start: nothing traced, no output made or
 * replaced, exit status 128 + the signal), write the output, then report
 * what was lost and how to avoid it, and which traced ids exited.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/types.h>
#include "capture.h"
#include "cgroup.h"
#include "cli.h"
#include "offwake.h"
#include "output.h"
#include "symbols/procmaps.h"
#include "common/progress.h"
#include "common/settings.h"
#include "common/util.h"
#include "export/writers.h"

/*
 * Maps sized by options must fit the machine: --stack-storage-size
 * 2147483647 took 16 GiB of kernel memory without a word.  A quarter of
 * the RAM at most for each; the message says what it would need.
 */
static int check_memory(const struct capture_cfg *o)
{
	uint64_t slots = 1, ram, need, rb;
	uint32_t backlog;
	struct sysinfo si;

	if (sysinfo(&si))
		return 0;
	ram = (uint64_t)si.totalram * si.mem_unit;
	while (slots < o->stack_storage_size)	/* as the capture rounds */
		slots *= 2;
	need = slots * sizeof(uint64_t);
	if (need > ram / 4) {
		ow_err("--stack-storage-size %u: its map would take %.1f GiB of kernel memory (%llu slots of 8 bytes), more than a quarter of this machine's %.1f GiB",
		       o->stack_storage_size, need / 1073741824.0,
		       (unsigned long long)slots, ram / 1073741824.0);
		return -1;
	}
	capture_buffer_sizes(o, &rb, &backlog);
	need = rb + (uint64_t)backlog * sizeof(struct ow_stack);
	if ((o->ringbuf_mb || o->stack_backlog) && need > ram / 4) {
		ow_err("--ring-buffer-size %llu, --backlog %u: %.1f GiB of kernel memory at most (a ring buffer of %llu MB and %u stacks of %zu bytes), more than a quarter of this machine's %.1f GiB",
		       (unsigned long long)(rb >> 20), backlog,
		       need / 1073741824.0, (unsigned long long)(rb >> 20),
		       backlog, sizeof(struct ow_stack), ram / 1073741824.0);
		return -1;
	}
	need = o->unwind_mb << 20;
	if (o->unwind != OW_UNWIND_FP && need > ram / 4) {
		ow_err("--unwind-memory %llu: %.1f GiB of kernel memory for unwind tables is more than a quarter of this machine's %.1f GiB",
		       (unsigned long long)o->unwind_mb, need / 1073741824.0,
		       ram / 1073741824.0);
		return -1;
	}
	return 0;
}

/*
 * -- CMD: fork it now, held before exec until tracing starts (it reads a
 * byte from a pipe: capture_run() writes it once the programs are armed),
 * traced by its pid and followed to every process it starts.  Its standard
 * streams are its own, except that its standard output goes to our
 * standard error when ours carries the SVG or folded output.
 */
static int start_cmd(struct capture_cfg *o)
{
	uint32_t *id = malloc(sizeof(*id));
	int go[2];
	pid_t pid;

	if (!id || pipe2(go, O_CLOEXEC)) {
		ow_err("starting %s: %s", o->cmd[0], strerror(id ? errno : ENOMEM));
		free(id);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ow_err("starting %s: %s", o->cmd[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the capture did not start */
		if (!o->out_file && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(o->cmd[0], o->cmd);
		fprintf(stderr, OW_PROG ": %s: %s\n", o->cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(go[0]);
	*id = pid;
	o->ids = id;
	o->nids = 1;
	o->threads = OW_THREADS_TGID;
	o->follow = true;
	o->cmd_pid = pid;
	o->cmd_go = go[1];
	return 0;
}

/* The exit status after -- CMD: CMD's when it failed, else the capture's. */
static int cmd_exit(const struct capture *c, int r)
{
	int st;

	if (r || !capture_cmd_status(c, &st))
		return r;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : r;
}

/* What the engine keeps for the output o asks for (--serve offers pprof
 * too; a writer that needs events turns --timeline on). */
static void output_needs(struct capture_cfg *o)
{
	o->merge = !(ow_writer_needs(o->output) & OW_NEED_EACH_KEY);
	o->locs = (ow_writer_needs(o->output) & OW_NEED_ADDRS) || o->serve;
	o->timeline |= (ow_writer_needs(o->output) & OW_NEED_EVENTS) != 0;
}

/*
 * OFFWAKE_SNAPSHOT=FILE (a test setting, as the live views use the
 * snapshot call): every second, the output as it would be now, written
 * atomically to FILE while the capture goes on.
 */
struct snap {
	const char *path;
	const struct capture_cfg *o;
};

static int write_snapshot(struct capture *c, void *ctx)
{
	struct snap *sn = ctx;
	struct output out;

	if (output_open(&out, sn->path))
		return 0;	/* said; the capture goes on */
	output_write(&out, c, sn->o);
	return 0;
}

static int snapshot_job(struct capture *c, void *ctx)
{
	capture_snapshot(c, write_snapshot, ctx);
	return 0;
}

/* Each -p id must be a process, each -t id a thread; else exit status 2. */
static int check_ids(const struct capture_cfg *o)
{
	bool pid = o->threads == OW_THREADS_TGID;

	if (!pid && o->threads != OW_THREADS_TID)
		return 0;
	for (size_t i = 0; i < o->nids; i++) {
		uint32_t id = o->ids[i], tgid = procmaps_tgid(id);

		if (!tgid) {
			ow_err("%s %u: no such %s", pid ? "-p" : "-t", id,
			       pid ? "process" : "thread");
			return -1;
		}
		if (pid && tgid != id) {
			ow_err("-p %u: a thread of process %u, not a process (-t %u traces it)",
			       id, tgid, id);
			return -1;
		}
	}
	return 0;
}

/* The -p/-t ids that are gone by now (they were there at the start). */
static void report_exited(const struct capture_cfg *o)
{
	bool pid = o->threads == OW_THREADS_TGID;

	if (!pid && o->threads != OW_THREADS_TID)
		return;
	for (size_t i = 0; i < o->nids; i++)
		if (!procmaps_tgid(o->ids[i]))
			fprintf(stderr, OW_PROG ": %s %u exited during the capture\n",
				pid ? "process" : "thread", o->ids[i]);
}

/* Whether each live view o asks for can run here (a terminal, ...): 0,
 * or -1 after a message (a usage error). */
static int live_check(const struct capture_cfg *o)
{
	for (size_t i = 0; i < ow_nlive_views; i++)
		if (ow_live_views[i].wanted(o) && ow_live_views[i].check &&
		    ow_live_views[i].check(o))
			return -1;
	return 0;
}

/* The live views o asks for (cli.h), before the capture and before CMD
 * starts (a port in use fails at once; the screen first: -- CMD's
 * standard error is kept with ours).  0, or -1 after a message. */
static int live_start(const struct capture_cfg *o, struct capture *c, void **v)
{
	for (size_t i = 0; i < ow_nlive_views; i++)
		if (ow_live_views[i].wanted(o) && !(v[i] = ow_live_views[i].start(o, c)))
			return -1;
	return 0;
}

enum live_step { LIVE_STOP, LIVE_REPORT, LIVE_FREE };

static void live_step(void **v, enum live_step step)
{
	for (size_t i = 0; i < ow_nlive_views; i++) {
		const struct ow_live_view *l = &ow_live_views[i];

		if (!v[i])
			continue;
		if (step == LIVE_STOP) {
			l->stop(v[i]);
			if (!l->free)	/* stop() freed it */
				v[i] = NULL;
		} else if (step == LIVE_REPORT) {
			if (l->report)
				l->report(v[i]);
		} else {
			if (l->free)
				l->free(v[i]);
			v[i] = NULL;
		}
	}
}

int capture_main(struct capture_cfg *o)
{
	struct snap sn = { ow_setting_str("OFFWAKE_SNAPSHOT"), o };
	struct progress *pg;
	struct output out;
	struct capture *c;
	void *live[OW_LIVE_MAX] = { NULL };
	int r;

	if (live_check(o))
		return OW_EXIT_USAGE;
	if (check_ids(o) || (o->cgroup && cgroup_id_of(o->cgroup, &o->cgroup_id)))
		return OW_EXIT_USAGE;
	output_needs(o);
	if (check_memory(o))
		return OW_EXIT_USAGE;
	/* the SVG's options (--width, --nameattr FILE, ...) now, not after
	 * a long capture whose data would be lost */
	if ((o->output == OW_OUT_SVG || o->serve) && fg_options_check(&o->fg))
		return OW_EXIT_USAGE;
	if (output_open(&out, o->out_file))
		return OW_EXIT_FAIL;
	c = capture_new();
	if (!c || live_start(o, c, live) || (o->cmd && start_cmd(o))) {
		live_step(live, LIVE_STOP);
		live_step(live, LIVE_FREE);
		output_discard(&out);
		capture_free(c);
		return OW_EXIT_FAIL;
	}
	if (sn.path && *sn.path)
		capture_every(c, 1.0, snapshot_job, &sn);
	pg = progress_start(o->quiet || o->live);	/* the screen says it */
	r = capture_run(c, o, pg);
	live_step(live, LIVE_STOP);	/* the live views end with the capture */
	if (r) {
		progress_stop(pg);
		live_step(live, LIVE_FREE);	/* standard error back */
		output_discard(&out);
		r = capture_interrupted(c);
		if (r && o->cmd_pid > 0)	/* CMD exits: not let exec */
			while (waitpid(o->cmd_pid, NULL, 0) < 0 && errno == EINTR)
				;
		capture_free(c);
		return r ? 128 + r : OW_EXIT_FAIL;
	}
	progress_phase(pg, "writing the output");
	if (capture_empty(c))
		capture_report_empty(c);
	r = output_write(&out, c, o);
	progress_stop(pg);
	if (!out.broken_pipe) {
		capture_report_losses(c);
		if (!o->quiet)
			capture_report_unwind(c);
		if (!o->quiet)
			capture_report_kstacks(c);
		if (!o->cmd)
			report_exited(o);
		live_step(live, LIVE_REPORT);
	}
	live_step(live, LIVE_FREE);
	r = cmd_exit(c, r);	/* before capture_free() */
	capture_free(c);
	return r;
}
