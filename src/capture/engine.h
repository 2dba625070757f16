/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine.h - the state of one capture, for the capture's own files only
 * (capture.c runs it; output.c and memstats.c read it): everyone else goes
 * through capture.h's calls (tests/t_layout.sh checks).
 */
#ifndef OW_ENGINE_H
#define OW_ENGINE_H

#include <stdint.h>
#include "agg.h"
#include "capture_cfg.h"
#include "unwind/native_defer.h"
#include "unwind/native_maps.h"
#include "unwind/python_names.h"
#include "unwind/python_procs.h"
#include "fold.h"
#include "symbols/procmaps.h"
#include "stackstore.h"

struct offwake_bpf;
struct ring_buffer;

struct capture;

/* A job of the capture's loop (capture_every()), with its next time. */
struct capture_job {
	double every;			/* seconds */
	double next;
	int (*run)(struct capture *c, void *ctx);
	void *ctx;
};
#define CAPTURE_JOBS	8

struct capture {
	struct offwake_bpf *skel;
	struct ring_buffer *rb;
	struct procmaps *pm;
	struct stacks stacks;		/* the stacks received */
	struct folder fo;		/* symbolised stacks */
	struct agg agg;			/* key (pids dropped when merge) ->
					 * blocked ns and stacks */
	struct agg pending;		/* keys whose stacks are not in yet */
	struct capture_cfg cfg;		/* what it was started with */
	struct progress *pg;		/* the status line, or NULL */
	bool merge;			/* sum by what the output shows */
	enum ow_group group;		/* and keep the pids it shows */
	size_t resolves;		/* keys symbolised, to read the ring
					 * buffer every so often */
	uint64_t losses[OW_LOSS_NR];
	uint64_t kept;			/* stacks and events the kernel side
					 * kept in its backlogs, at the last
					 * look (see fetch_backlog) */
	uint32_t hidden_pid;		/* a task the kernel hides (see
					 * OW_LOSS_HIDDEN_SWITCH) */
	char hidden_comm[OW_COMM_LEN];	/* its name, when still alive */
	bool user_threads;		/* all user threads traced (the
					 * hidden ones could have been) */
	uint64_t drain_errors;		/* keys user space could not store */
	double poll_until;	/* a poll hands back control by then (0: never) */
	unsigned poll_records;	/* records handled in this poll */
	double seconds;			/* how long the capture ran */
	double fill;			/* % of the last drained counts map */
	int drains;			/* which counts map is active */
	enum ow_unwind unwind;		/* as asked, or fp where CFI cannot
					 * run (the raw_tp set) */
	struct cfi *cfi;		/* unwind tables (NULL: fp) */
	void *rows;			/* the rows map, mapped */
	size_t rows_len;
	__u64 *cvals;			/* the counts slots' values, mapped */
	uint64_t uw[OW_UW_SIDES][OW_UW_NR];	/* how user stacks were walked,
					 * blocked threads' and wakers' */
	struct uw_defer *defer;		/* deferred user stacks (NULL: fp) */
	uint64_t df[OW_DF_NR];		/* the kernel side's deferrals */
	struct uw_defer_stats defer_st;
	double defer_until;		/* tables built for them until then */
	uint64_t filtered[OW_F_NR];	/* what the filters kept out */
	int interrupted;		/* the signal that came before tracing
					 * started (nothing traced), or 0 */
	bool cmd_done;			/* -- CMD exited, with cmd_status */
	int cmd_status;
	struct cfi_stats cfi_st;
	struct pyprocs *py;		/* CPython processes (NULL: --python=off) */
	struct pynames *pyn;		/* their frames' names */
	struct walks_late *walks;	/* walks' programs loaded late (walks.h):
					 * CPython's, at the first such process */
	int py_walk_err;		/* why CPython's would not load, or 0 */
	double py_walk_ms;		/* how long their load took */
	uint64_t pys[OW_PY_NR];		/* how Python stacks went */
	uint64_t kc[OW_KC_NR];		/* how kernel stacks were taken */
	const char *kc_off;		/* why there is no kernel stack cache
					 * (NULL: there is one) */
	uint64_t uc[OW_UC_NR];		/* how user stacks were taken */
	/* the loop (capture_loop()) */
	double start, end;		/* end: 0 without a DURATION */
	double next_tick[8];		/* the tick table's next times */
	struct capture_job jobs[CAPTURE_JOBS];	/* capture_every() */
	int njobs;
	void *ender;			/* DURATION's ender thread, or NULL */
	FILE *memstats;			/* OFFWAKE_MEMSTATS, or NULL */
	unsigned file_idle;
	bool finished;			/* capture_finish() ran */
};

#endif
