/* SPDX-License-Identifier: Apache-2.0 */
/*
 * native_maps.h - the unwind tables of the traced processes, kept in the
 * BPF maps the kernel side's CFI walker reads (--unwind=auto|cfi).
 */
#ifndef OW_NATIVE_MAPS_H
#define OW_NATIVE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "symbols/procmaps.h"
#include "table_cache.h"

struct cfi;

#define CFI_WORST	3

struct cfi_stats {
	size_t tables;		/* files with a table loaded */
	size_t rows;		/* their rows */
	size_t rows_cap;	/* room in the rows map */
	size_t no_cfi;		/* files without CFI (frame pointers used) */
	size_t unreadable;	/* files that could not be opened or read */
	size_t no_room;		/* tables that did not fit --unwind-memory */
	size_t over_maps;	/* mappings past OW_UMAPS in a process (most) */
	char over_file[64];	/* the first one's file */
	size_t procs;		/* processes with tables now */
	size_t procs_loaded;	/* processes that had tables, in all */
	size_t quick;		/* of them, given their program's, libc's
				 * and ld.so's only (update()'s quick pass) */
	size_t wanted;		/* of those, given the rest later: a walk
				 * met it (cfi_want_all()) */
	size_t files;		/* files kept (with a table or not) */
	size_t queued;		/* entries of the queue */
	size_t bytes;		/* what this side's tables take */
	size_t built;		/* tables built (the others: read back) */
	double build_ms, build_max_ms;	/* building tables, total and most */
	size_t cached;		/* tables read from the cache (table_cache.c) */
	double cache_ms;	/* ... in all, their files' opening included */
	size_t cache_put;	/* tables built and kept there */
	uint64_t cache_bad[UW_CACHE_GOT_N];	/* files refused there, by
						 * why (built again) */
	const char *cache_dir;	/* its directory (NULL: none) */
	char slowest[64];	/* the file that took build_max_ms */
	size_t unfollowed;	/* rows of the tables built whose CFI rule we
				 * do not follow (expressions, other
				 * registers: frame pointers there) */
	size_t unfollowed_files;	/* tables with such rows */
	struct cfi_worst {
		char name[64];
		size_t rows;
	} worst[CFI_WORST];	/* the files with the most, most first */
	double lag_sum_ms, lag_max_ms;	/* from a process's event to its
					 * tables being in the map */
	size_t lags;
};

/* Tables kept in rows_fd (an mmapable array of cap struct ow_urow, mapped
 * at rows) and umaps_fd (per-process mappings). */
struct cfi *cfi_new(struct procmaps *pm, int rows_fd, void *rows, uint32_t cap,
		    int umaps_fd);
void cfi_free(struct cfi *c);
/* gen_fd: the umaps_gen array (unwind_native.h), kept with umaps_fd from
 * now on (-1, cfi_new()'s: none). */
void cfi_set_gen_map(struct cfi *c, int gen_fd);
/* Tables kept across captures in the directory dir open on dfd
 * (table_cache.h; NULL and -1, cfi_new()'s: none): read back from there
 * instead of built, kept there once built. */
void cfi_set_cache(struct cfi *c, const char *dir, int dfd);

/* Something happened to tgid's maps (first seen, exec): load its tables at
 * the next cfi_work(). */
void cfi_queue(struct cfi *c, uint32_t tgid);
/* A walk of tgid's stack missed a file its partial entry leaves out (a
 * quick pass's, see native_maps.c): queue the full pass.  False when its
 * entry is not partial (a miss the tables cannot mend). */
bool cfi_want_all(struct cfi *c, uint32_t tgid);
/* tgid's tables are not wanted any more (an exec of a process not
 * traced): dropped; a walk that needs them asks again. */
void cfi_forget(struct cfi *c, uint32_t tgid);
/* A stack of tgid was deferred at ns (CLOCK_MONOTONIC): its tables were
 * late (a library mapped since?).  Read its maps again unless read since
 * then, and queue it when they changed. */
void cfi_refresh(struct cfi *c, uint32_t tgid, uint64_t ns);
/* Whether tgid's tables are still to be (re)built. */
bool cfi_pending(const struct cfi *c, uint32_t tgid);
/* Build them now, out of the queue's turn (a deferred stack waits);
 * between() as for cfi_work(). */
void cfi_build(struct cfi *c, uint32_t tgid, void (*between)(void *),
	       void *ctx);
/* A new process: it has its parent's maps, and so its tables, now. */
void cfi_fork(struct cfi *c, uint32_t child, uint32_t parent);
/*
 * Load the tables of the queued processes (their maps are read first when
 * never read) for about budget_ms at most (a file's table is not cut: the
 * rest stays queued, so the caller's loop keeps draining and answering
 * signals); between two files, and every 20 ms or so while a file's
 * table is built (uw_table_build()), between(ctx) is called (to keep up
 * with the ring buffer).  Returns how many processes were done.
 */
size_t cfi_work(struct cfi *c, double budget_ms, void (*between)(void *),
		void *ctx);
/* Once a second: forget exited processes and files unused for idle sweeps,
 * and look again at the maps of a few live ones (dlopen). */
void cfi_sweep(struct cfi *c, unsigned idle);

void cfi_get_stats(const struct cfi *c, struct cfi_stats *st);

#endif
