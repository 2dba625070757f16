/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python_procs.h - which traced processes run a supported CPython, and
 * where its interpreter state is: the pyprocs map the BPF walker reads
 * (bpf/unwind_python.bpf.h), and the layout the frame names are read with
 * (python_names.c).
 */
#ifndef OW_PYTHON_PROCS_H
#define OW_PYTHON_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "python_names.h"
#include "symbols/procmaps.h"

struct py_stats {
	size_t procs;		/* processes found running a supported CPython */
	size_t unsupported;	/* ... an unsupported one */
	unsigned unsupported_version;	/* the first such (0x030c: 3.12) */
	uint32_t unsupported_pid;
	size_t unwalked;	/* found, but the walker is not loaded */
};

struct pyprocs;

/* map_fd: the pyprocs map; bits: the BPF side's python_bits. */
struct pyprocs *py_procs_new(struct procmaps *pm, int map_fd,
			     volatile __u64 *bits);
void py_procs_free(struct pyprocs *p);
/* ready(ctx) is called before the first entry goes into the map (the BPF
 * walker is loaded then); when it fails, no entry is made, then or later. */
void py_procs_on_first(struct pyprocs *p, int (*ready)(void *), void *ctx);

/* tgid was seen, or asked for tables (its maps are learnt): give it an
 * entry if it runs a supported CPython (looked at once per maps version). */
void py_procs_check(struct pyprocs *p, uint32_t tgid);
/* tgid exec'd: a new image, looked at afresh (its entry went in BPF). */
void py_procs_exec(struct pyprocs *p, uint32_t tgid);
/* child forked from parent: the same interpreter (BPF copied its entry). */
void py_procs_fork(struct pyprocs *p, uint32_t child, uint32_t parent);
/* Once a second: entries of processes gone are taken out of the map (the
 * layout stays for their names). */
void py_procs_sweep(struct pyprocs *p);

/* The layout of tgid's interpreter, or NULL when it has none we know
 * (ctx: the struct pyprocs; a py_layout_fn for python_names.c). */
const struct py_layout *py_procs_layout(const void *ctx, uint32_t tgid);
void py_procs_stats(const struct pyprocs *p, struct py_stats *st);

#endif
