/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine.h - the state of one capture, for the capture's own files only
 * (capture.c runs it, with bpf_load.c, drain.c and report.c; output.c and
 * memstats.c read it): everyone else goes through capture.h's calls
 * (tests/t_layout.sh checks).
 */
#ifndef OW_ENGINE_H
#define OW_ENGINE_H

#include <stdint.h>
#include "agg.h"
#include "capture_cfg.h"
#include "unwind/unwinder.h"
#include "fold.h"
#include "symbols/procmaps.h"
#include "stackstore.h"
#include "timeline.h"

struct offwake_bpf;
struct ring_buffer;

struct capture;

/* The bottom frame of blocked time the counts maps had no room for. */
#define OW_LOST_BLOCKS	"[lost blocks]"

/* A job of the capture's loop (capture_every()), with its next time. */
struct capture_job {
	double every;			/* seconds */
	double next;
	int (*run)(struct capture *c, void *ctx);
	void *ctx;
};
#define CAPTURE_JOBS	8

/*
 * A capture's state, by part: each group is written by the file it names
 * (and read by the others).
 */
struct capture {
	/* the session (capture.c): what it was started with, its loop */
	struct capture_cfg cfg;		/* what it was started with */
	struct progress *pg;		/* the status line, or NULL */
	double start, end;		/* end: 0 without a DURATION */
	double next_tick[8];		/* the tick table's next times */
	struct capture_job jobs[CAPTURE_JOBS];	/* capture_every() */
	int njobs;
	void *ender;			/* DURATION's ender thread, or NULL */
	FILE *memstats;			/* OFFWAKE_MEMSTATS, or NULL */
	unsigned file_idle;
	int interrupted;		/* the signal that came before tracing
					 * started (nothing traced), or 0 */
	bool cmd_done;			/* -- CMD exited, with cmd_status */
	int cmd_status;
	double seconds;			/* how long the capture ran */
	bool finished;			/* capture_finish() ran */

	/* the kernel side (bpf_load.c) */
	struct offwake_bpf *skel;
	const char *kc_off;		/* why there is no kernel stack cache
					 * (NULL: there is one) */

	/* the intake (drain.c): the ring buffer, the backlogs, the counts */
	struct ring_buffer *rb;
	int drains;			/* which counts map is active */
	__u64 *cvals;			/* the counts slots' values, mapped */
	double fill;			/* % of the last drained counts map */
	uint64_t kept;			/* stacks and events the kernel side
					 * kept in its backlogs, at the last
					 * look (see fetch_backlog) */
	size_t resolves;		/* keys symbolised, to read the ring
					 * buffer every so often */
	double poll_until;	/* a poll hands back control by then (0: never) */
	unsigned poll_records;	/* records handled in this poll */
	double slow_factor;	/* OFFWAKE_SLOW_READER while tracing;
				 * <= 1: off */
	double slow_debt;	/* seconds of sleep owed */
	void *batch_keys;	/* a map's entries, a batch at a time */
	void *batch_vals;
	uint64_t drain_errors;		/* keys user space could not store */

	/* what the intake keeps: stacks, processes, symbolised sums */
	struct procmaps *pm;
	struct stacks stacks;		/* the stacks received */
	struct folder fo;		/* symbolised stacks */
	struct agg agg;			/* key (pids dropped when merge) ->
					 * blocked ns and stacks */
	struct agg pending;		/* keys whose stacks are not in yet */
	struct timeline tl;		/* --timeline's long blocks, by entry
					 * of agg */
	bool merge;			/* sum by what the output shows */
	enum ow_group group;		/* and keep the pids it shows */

	/* the unwinders (capture.c starts them, unwind/unwinders.c) */
	struct ow_uw_host uwh;		/* what the unwinders see of us */
	void **uws;			/* each unwinder's state, as
					 * ow_unwinders[] (NULL: not used) */
	uint32_t *uw_tgids;		/* the -p/-t processes, for them */
	struct walks_late *walks;	/* walks' programs loaded late (walks.h):
					 * an interpreter's, when first needed */

	/* the kernel side's counters, read at the end (for report.c) */
	uint64_t losses[OW_LOSS_NR];
	uint32_t hidden_pid;		/* a task the kernel hides (see
					 * OW_LOSS_HIDDEN_SWITCH) */
	char hidden_comm[OW_COMM_LEN];	/* its name, when still alive */
	bool user_threads;		/* all user threads traced (the
					 * hidden ones could have been) */
	uint64_t uw[OW_UW_SIDES][OW_UW_NR];	/* how user stacks were walked,
					 * blocked threads' and wakers' */
	uint64_t filtered[OW_F_NR];	/* what the filters kept out */
	uint64_t kc[OW_KC_NR];		/* how kernel stacks were taken */
	uint64_t uc[OW_UC_NR];		/* how user stacks were taken */
};

#endif
