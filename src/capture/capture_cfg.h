/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture_cfg.h - the capture's configuration, one struct: what to trace
 * and how (the engine reads it as given, capture.h), what to write and
 * the live views.  args.c's option rows store into its fields by
 * offsetof; run.c adds what it learns before the start (-- CMD's pid,
 * the cgroup's id, what the chosen writer needs).
 */
#ifndef OW_CAPTURE_CFG_H
#define OW_CAPTURE_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cli.h"

struct capture_cfg {
	enum ow_threads threads;
	uint32_t *ids;			/* -p / -t values */
	size_t nids;
	bool follow;			/* --follow, or -- CMD */
	const char *cgroup;		/* --cgroup PATH, or NULL */
	uint64_t cgroup_id;		/* its id: tasks in it or below only */
	enum ow_group group;		/* --group */
	char **cmd;			/* -- CMD [ARGS...], NULL-terminated, or NULL */
	int cmd_pid;			/* -- CMD, started and waiting; 0: none */
	int cmd_go;			/* write a byte here to let CMD exec, or -1 */
	bool user_stacks_only;		/* -U */
	bool kernel_stacks_only;	/* -K */
	bool delimited;			/* -d */
	uint32_t stack_storage_size;
	uint64_t min_block_us, max_block_us;
	bool has_state;
	uint32_t state;			/* --state MASK */
	uint64_t duration;		/* seconds; 0: until capture_stop() */
	enum ow_unwind unwind;
	uint64_t unwind_mb;
	uint32_t chain_depth;
	uint64_t chain_max_age_us;
	uint64_t ringbuf_mb;		/* --ring-buffer-size; 0: by the CPUs */
	uint32_t stack_backlog;		/* --backlog; 0: by the memory */
	bool plain_unknown;		/* --unknown-frames=plain */
	enum ow_python python;		/* --python */
	bool timeline;			/* --timeline, or the writer needs
					 * events (run.c): long blocks kept */
	uint64_t event_min_us;		/* --event-min: what a long block is */
	/* what the writer needs (run.c, from the output) */
	bool merge;			/* sum keys by what the output shows
					 * (no pids beyond --group's) */
	bool locs;			/* addresses and files of frames */
	/* the output and the views: not the engine's */
	int output;			/* the writer (export/writers.h) */
	const char *out_file;		/* -o FILE, NULL: stdout */
	bool quiet;			/* -q: no status line */
	struct fg_options fg;		/* render options for the SVG */
	bool subtitle_set;		/* --subtitle given: no automatic one */
	bool live;			/* --live: the terminal view (live/tui.h) */
	double interval;		/* --interval S: between live updates (1) */
	const char *serve;		/* --serve [ADDR:]PORT, or NULL (live/web.h) */
};

#endif
