/* SPDX-License-Identifier: Apache-2.0 */
/*
 * unwinder.h - the one table of user-space unwinders (unwinders.c): each
 * a row of the functions of its lifecycle, which the capture
 * (src/capture/capture.c) and the folder (src/capture/fold.c) call for
 * every row in the table's order, with the state the row's start gave
 * back.  A function a row has no use for is NULL.  A new unwinder is a
 * file with its functions and its row (struct ow_unwinder), and one line
 * in unwinders.c's table; its kernel half is in bpf/.
 *
 * The unwinders do not see the capture (tests/t_layout.sh: unwind/ may
 * use symbols/ and common/ only): what they need of it comes in struct
 * ow_uw_host, which the capture fills once, before the first start, and
 * keeps for the rows' lifetime.
 */
#ifndef OW_UNWINDER_H
#define OW_UNWINDER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include "offwake.h"
#include "symbols/procmaps.h"

struct bpf_object;

/* What the capture gives the unwinders. */
struct ow_uw_host {
	struct procmaps *pm;		/* the traced processes' mappings */
	struct bpf_object *obj;		/* the kernel side, loaded: its maps
					 * and globals by name (below) */
	const uint32_t *tgids;		/* -p/-t's processes (0: not known) */
	size_t ntgids;
	bool cfi_only;			/* --unwind=cfi */
	bool python_lines;		/* --python=lines */
	volatile sig_atomic_t *stop;	/* a signal asked the start to end */
	/* the user stack walks counted, blocked threads' and wakers'
	 * (unwind_stats, with the user stack cache's hits), read when
	 * tracing ended: for the summary lines */
	const uint64_t (*walks)[OW_UW_NR];
	void *ctx;			/* the capture, for these: */
	/* read what the ring buffer holds (during a long table build) */
	void (*keep_up)(void *ctx);
	/* a user stack walked in user space (struct ow_stack, len bytes):
	 * stored as if the kernel side had sent it */
	void (*got_stack)(void *ctx, const void *stack, size_t len);
	/* the raw stack stored under ref (*nr entries), or NULL */
	const uint64_t *(*stack)(void *ctx, uint64_t ref, uint32_t *nr);
	/* the kernel half's walks of slot (enum ow_walk_slot, offwake.h:
	 * an interpreter's BPF walker, loaded when first needed, not with
	 * the capture) loaded now and in their slots: 0, or an errno (the
	 * capture's walks.c; once: again, the first answer) */
	int (*load_walks)(void *ctx, int slot);
};

/* A process event of the kernel side (OW_EV_SEEN, _EXEC, _FORK, _TABLES,
 * _PYSTACK; offwake.h), after the capture has read the process's maps. */
struct ow_uw_event {
	const struct ow_event *e;
	bool traced;		/* its threads are traced (not only a waker) */
};

/* The name of native frame i of the stack being stitched (fold.c's). */
typedef const char *(*ow_uw_frame_name)(void *ctx, uint32_t i);

struct ow_unwinder {
	const char *name;
	/* Start, after the kernel side is loaded and before tracing: 0 with
	 * *state NULL when not used in this capture (its kernel half is
	 * off), 0 with its state, or -1 after a message. */
	int (*start)(const struct ow_uw_host *h, void **state);
	/* A process event (traced threads' and wakers' processes). */
	void (*event)(void *state, const struct ow_uw_event *ev);
	/* A ring buffer record of a type the capture does not know
	 * (OW_EV_UCOPY): 0 taken, 1 not this unwinder's, -1 dropped for
	 * want of memory. */
	int (*record)(void *state, const void *data, size_t len);
	/* Build and upload tables, for a while (end: the capture's end,
	 * not to be passed; 0: none); every pass of the capture's loop. */
	void (*tables)(void *state, double end);
	/* Once a second: forget what processes gone (files unused for
	 * max_idle sweeps) left. */
	void (*sweep)(void *state, unsigned max_idle);
	/* Tracing has ended (the kernel side detached), before the last
	 * keys are drained: the last work (stacks waiting for tables), and
	 * its counters read. */
	void (*finish)(void *state);
	/* The name of an interpreter frame's value (OW_FRAME_INTERP) of
	 * tgid, valid until free; NULL: not one of this unwinder's. */
	const char *(*frame_name)(void *state, uint32_t tgid, uint64_t value);
	/* Where such a frame is, for pprof (false: not known). */
	bool (*frame_where)(void *state, uint32_t tgid, uint64_t value,
			    const char **func, const char **file, int *line);
	/* The order a user stack's frames (ips, nr, leaf first) are shown
	 * in, into order (room for nr): how many; 0 when the stack has no
	 * frames of this unwinder's (shown as walked). */
	uint32_t (*stitch)(void *state, const uint64_t *ips, uint32_t nr,
			   ow_uw_frame_name name, void *ctx, uint32_t *order);
	/* The status line's part, ", tables 1.2 MB", into buf. */
	void (*status)(void *state, char *buf, size_t len);
	/* OFFWAKE_MEMSTATS's fields, " name=value" each, to f (state NULL
	 * too: the same fields, zero). */
	void (*memstats)(void *state, FILE *f);
	/* The summary lines on standard error (not with -q). */
	void (*summary)(void *state, const struct ow_uw_host *h);
	void (*free)(void *state);
};

/* The table, in the order its rows are called. */
extern const struct ow_unwinder *const ow_unwinders[];
extern const size_t ow_nunwinders;

/* The native frames of a user stack: those before its first interpreter
 * frame (the BPF walkers append these after the native walk). */
static inline uint32_t ow_uw_native_frames(const uint64_t *ips, uint32_t nr)
{
	uint32_t n = 0;

	while (n < nr && OW_FRAME_KIND(ips[n]) != OW_FRAME_INTERP)
		n++;
	return n;
}

/* For the rows: the fd of the kernel side's map called name, or -1 (its
 * size in entries in *entries, when not NULL). */
int ow_uw_map_fd(const struct ow_uw_host *h, const char *name, uint32_t *entries);
/* The kernel side's global variable name (.bss, .data, .rodata), in its
 * memory, or NULL. */
volatile void *ow_uw_global(const struct ow_uw_host *h, const char *name);
/* The sums over the CPUs of the first n entries of per-CPU array name. */
void ow_uw_percpu(const struct ow_uw_host *h, const char *name, uint64_t *sums,
		  uint32_t n);

#endif
