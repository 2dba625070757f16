/* SPDX-License-Identifier: Apache-2.0 */
/*
 * locs.h - where symbolised frames are, for a capture written as pprof
 * (--format=pprof): the mapping of each file the capture saw code of,
 * with its build id, and the kernel's, and each frame's address in it.
 */
#ifndef OW_LOCS_H
#define OW_LOCS_H

#include <stdbool.h>
#include <stdint.h>
#include "common/htab.h"
#include "export/profile.h"
#include "symbols/procmaps.h"

/* Where a frame is: an address in a mapping (NULL: none known), or an
 * interpreter's function's source (src; NULL: not one). */
struct symloc {
	const struct export_map *map;
	uint64_t addr;
	const struct export_src *src;
};

struct locs {
	struct htab files;	/* (dev, ino) or (path hash, ~0) -> struct
				 * locfile chain */
	struct export_map kernel;	/* [kernel.kallsyms]: the addresses seen */
	char kernel_id[96];	/* its build id (/sys/kernel/notes), or "" */
	bool kernel_read;	/* kernel_id was looked for */
};

/* An empty one needs no init: {0}. */
void locs_free(struct locs *l);
/*
 * Where the user address addr of tgid is (m: its executable mapping, or
 * NULL).  A file's mapping is the one the first process seen mapped it
 * at, and every process's address is moved into it, so that the same
 * code is at one address.  A return address (!leaf) is moved back by one,
 * into its call instruction, as pprof expects of callers.
 */
struct symloc locs_user(struct locs *l, uint32_t tgid, const struct pmap *m,
			uint64_t addr, bool leaf);
/* Where the kernel address addr is (a return address, see locs_user). */
struct symloc locs_kernel(struct locs *l, uint64_t addr);

#endif
