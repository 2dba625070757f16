/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture_cfg.h - the capture engine's options: what to trace and how,
 * and what the chosen writer needs kept; nothing of the output's or the
 * renderer's own options.  Used by the session's callers (capture.h) and
 * by its state (engine.h).
 */
#ifndef OW_CAPTURE_CFG_H
#define OW_CAPTURE_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cli.h"

/* What the engine is asked to do (run.c fills it from the command line). */
struct capture_cfg {
	enum ow_threads threads;
	const uint32_t *ids;		/* -p / -t values */
	size_t nids;
	bool follow;			/* --follow, or -- CMD */
	const char *cgroup;		/* --cgroup PATH, or NULL */
	uint64_t cgroup_id;		/* its id: tasks in it or below only */
	enum ow_group group;		/* --group */
	int cmd_pid;			/* -- CMD, started and waiting; 0: none */
	int cmd_go;			/* write a byte here to let CMD exec, or -1 */
	bool user_stacks_only;		/* -U */
	bool kernel_stacks_only;	/* -K */
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
	/* what the writer needs */
	bool merge;			/* sum keys by what the output shows
					 * (no pids beyond --group's) */
	bool locs;			/* addresses and files of frames */
};

#endif
