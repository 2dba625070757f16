/* SPDX-License-Identifier: Apache-2.0 */
/*
 * profile.h - the profile model between what makes stacks (the capture,
 * "convert"'s folded files and SVGs) and every writer (writers.h): a
 * sequence of samples, each with typed frames (root first), labels, its
 * value(s) and room for a timestamp, plus what the profile is
 * (export_info).  Samples are handed over one at a time (foreach), so
 * that a capture of millions of keys is never copied; a profile read from
 * folded text may also offer its stack set as it is (stacks), which the
 * writers that draw or list summed lines (SVG, speedscope) take directly.
 */
#ifndef OW_PROFILE_H
#define OW_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include "fg.h"
#include "export_info.h"

/* Where a frame's code is: a mapped file (pprof's Mapping). */
struct export_map {
	const char *path;	/* the mapped file, "[kernel.kallsyms]", ... */
	const char *build_id;	/* hex, or NULL */
	uint64_t start, limit;	/* the mapping's addresses: [start, limit) */
	uint64_t offset;	/* the file offset of start */
};

/*
 * A frame's kind.  The kinds of code have the values of the stacks'
 * typed frames (bpf/offwake.h's enum ow_frame_kind; capture/output.c
 * checks it); the others are the profile's own.
 */
enum ow_pf_kind {
	OW_PF_NATIVE = 0,	/* user code of a mapped file */
	OW_PF_KERNEL = 1,	/* kernel code */
	OW_PF_JIT = 2,		/* JIT code (perf maps) */
	OW_PF_INTERP = 3,	/* an interpreter's function */
	OW_PF_MARKER = 4,	/* [hardirq] / [softirq]: the wakeup's context */
	OW_PF_NAME,		/* a name only (read from folded text) */
	OW_PF_THREAD,		/* a thread's name: the target's, a waker's */
	OW_PF_DELIM,		/* between user and kernel frames: -d's "-" */
	OW_PF_DIVIDER,		/* "--": between a thread and its waker */
	OW_PF_KINDS,
};

/* Where an interpreter's function is (pprof's Function). */
struct export_src {
	const char *file;	/* its source file */
	int64_t first_line;
};

struct ow_frame {
	const char *name;	/* not NUL-terminated */
	size_t len;
	enum ow_pf_kind kind;
	const struct export_map *map;	/* NULL: no address known */
	uint64_t addr;		/* within map (pprof's instruction address) */
	uint32_t tid;		/* OW_PF_THREAD: the thread's id */
	const struct export_src *src;	/* an interpreter's function (a
					 * Python code object), or NULL */
};

struct export_label {
	const char *key;
	const char *str;	/* a string label, or NULL: num is the value */
	int64_t num;
};

/*
 * One long block in time (--timeline, --event-min): a block of a
 * sample's at least --event-min long, also summed in the sample's value
 * (events never replace sums).  Times are nanoseconds on the events'
 * clock (export_info.clock_*: the kernel's CLOCK_MONOTONIC).
 */
struct ow_long_block {
	uint64_t start_ns;	/* went off CPU */
	uint64_t end_ns;	/* back on CPU */
	uint64_t wakeup_ns;	/* woken: end_ns - wakeup_ns it was runnable,
				 * waiting for a CPU; 0: no wakeup seen
				 * (preempted, or the waker not seen) */
	uint32_t tid, pid;	/* the blocked thread and its process */
	uint32_t waker_tid, waker_pid;	/* who woke it; 0: none */
	uint32_t cpu;		/* the CPU where the block ended (it ran
				 * again there, or was counted there) */
	uint32_t state;		/* its state then (task state bits: 0
				 * runnable, 1 S, 2 D, ...) */
};

struct ow_sample {
	const struct ow_frame *frames;	/* root first */
	size_t nframes;
	const struct export_label *labels;
	size_t nlabels;
	struct fg_count value;	/* blocked time, in info.countname units */
	int64_t time_nanos;	/* when, 0: not known (summed samples) */
	const struct ow_long_block *events;	/* its long blocks, by start_ns */
	size_t nevents;		/* 0: none (or the profile has no events) */
};

struct ow_profile;
/* Called for each sample; a non-zero return stops the walk. */
typedef int (*ow_sample_fn)(void *ctx, const struct ow_sample *s);

struct ow_profile {
	struct export_info info;
	const char *preamble;	/* printed first by the text writer, or NULL */
	/* Hand every sample to fn; 0, or fn's non-zero return (-1 with
	 * errno when the source fails). */
	int (*foreach)(const struct ow_profile *p, ow_sample_fn fn, void *ctx);
	void *src;		/* the source's own state */
	struct fg_stacks *stacks;	/* the samples' stack set, or NULL */
};

/* Walk p's samples. */
int ow_profile_foreach(const struct ow_profile *p, ow_sample_fn fn, void *ctx);
/*
 * The samples' names as a stack set (fg.h): p->stacks, or one made from
 * the samples (*made set: the caller frees it) with fg's --maxdepth (fg
 * NULL: the default), the stacks it cut said on stderr.  NULL after a
 * message "WHAT: why".
 */
struct fg_stacks *ow_profile_stacks(const struct ow_profile *p, const char *what,
				    const struct fg_options *fg, struct fg_stacks **made);
/* A profile of the names of a stack set (convert): samples of
 * OW_PF_NAME frames, no labels, in the stack set's order. */
void ow_profile_of_stacks(struct ow_profile *p, struct fg_stacks *s);

#endif
