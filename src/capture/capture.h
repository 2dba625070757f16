/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture.h - one capture: load and attach the BPF programs, run until the
 * duration ends or SIGINT/SIGTERM, drain the kernel's sums into user space
 * and symbolise their stacks while running.
 */
#ifndef OW_CAPTURE_H
#define OW_CAPTURE_H

#include <stdint.h>
#include "agg.h"
#include "unwind/native_maps.h"
#include "cli.h"
#include "fold.h"
#include "symbols/procmaps.h"
#include "stackstore.h"

/* The bottom frame of blocked time the counts maps had no room for. */
#define OW_LOST_BLOCKS	"[lost blocks]"

struct offwake_bpf;
struct ring_buffer;
struct progress;

struct capture {
	struct offwake_bpf *skel;
	struct ring_buffer *rb;
	struct procmaps *pm;
	struct stacks stacks;		/* the stacks received */
	struct folder fo;		/* symbolised stacks */
	struct agg agg;			/* key (pids dropped when merge) ->
					 * blocked ns and stacks */
	struct agg pending;		/* keys whose stacks are not in yet */
	bool merge;			/* sum by what the SVG shows */
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
	double seconds;			/* how long the capture ran */
	double fill;			/* % of the last drained counts map */
	int drains;			/* which counts map is active */
	enum ow_unwind unwind;		/* as asked, or fp where CFI cannot
					 * run (the raw_tp set) */
	struct cfi *cfi;		/* unwind tables (NULL: fp) */
	void *rows;			/* the rows map, mapped */
	size_t rows_len;
	uint64_t uw[OW_UW_NR];		/* how user stacks were walked */
	uint64_t filtered[OW_F_NR];	/* what the filters kept out */
	bool cmd_done;			/* -- CMD exited, with cmd_status */
	int cmd_status;
	struct cfi_stats cfi_st;
};

/*
 * Load, attach, run, detach; 0 or -1 (message printed).  The capture's
 * state is shown on pg (may be NULL).
 */
int capture_run(struct capture *c, const struct capture_opts *o,
		struct progress *pg);
void capture_close(struct capture *c);
/* The ring buffer's bytes and the stack backlog's entries for o (its
 * options, else sized by the CPUs and the memory). */
void capture_buffer_sizes(const struct capture_opts *o, uint64_t *rb_bytes,
			  uint32_t *backlog);

/* Print the loss counters and their fixes on stderr. */
void capture_report_losses(const struct capture *c);
/* Print why nothing was captured: the filters and what they kept out. */
void capture_report_empty(const struct capture *c, const struct capture_opts *o);
/* Print how user stacks were walked (--unwind) on stderr. */
void capture_report_unwind(const struct capture *c);

#endif
