/* SPDX-License-Identifier: Apache-2.0 */
/*
 * procmaps.h - executable memory mappings of the traced processes, learnt
 * while they are alive and kept a while after they exit.
 */
#ifndef OW_PROCMAPS_H
#define OW_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmap {
	uint64_t start, end;	/* [start, end) */
	uint64_t off;		/* file offset of start */
	uint64_t dev, ino;	/* 0 for anonymous mappings */
	char *path;		/* "" when anonymous, "[vdso]" and alike */
};

struct procmaps;

struct procmaps *procmaps_new(void);
/* Forgets everything, handing each address space's slot to the release
 * function (procmaps_on_release()). */
void procmaps_free(struct procmaps *pm);

/* The process (tgid) thread tid belongs to, from /proc/TID/status; 0 when
 * there is no such thread. */
uint32_t procmaps_tgid(uint32_t tid);

/* Read /proc/TGID/maps now (replacing what was known); 0 or -1. */
int procmaps_learn(struct procmaps *pm, uint32_t tgid);
/* Learn TGID's maps unless known already. */
void procmaps_learn_once(struct procmaps *pm, uint32_t tgid);
/* TGID exec'd: read its maps again at the next procmaps_learn_once(). */
void procmaps_stale(struct procmaps *pm, uint32_t tgid);
/* TGID exec'd: it starts a lineage of its own. */
void procmaps_exec(struct procmaps *pm, uint32_t tgid);
/* A new process shares its parent's maps and lineage (until it execs). */
void procmaps_fork(struct procmaps *pm, uint32_t child, uint32_t parent);

/* The current executable mappings of tgid, sorted by start (*n of them,
 * NULL when unknown); *version as procmaps_slot() gives it.  Valid until
 * the next call that learns or forgets. */
const struct pmap *procmaps_current(struct procmaps *pm, uint32_t tgid,
				    size_t *n, uint64_t *version);
/*
 * Open the file mapped at m in tgid, for reading: through
 * /proc/TGID/map_files while the process lives (deleted files, memfd
 * executables), then /proc/TGID/root/PATH (containers), then PATH (a
 * process that exited).  Regular files only (ow_open_file()); -1 if none.
 * A file found by its path that is not the one mapped (another device or
 * inode: replaced since) is not used: -1 with errno ESTALE, and
 * procmaps_report_denied() names it.
 */
int procmaps_open(uint32_t tgid, const struct pmap *m);
/* The length of path without the " (deleted)" the kernel adds to a file
 * unlinked or renamed over since it was mapped. */
size_t procmaps_path_len(const char *path);
/*
 * Whether mapping m holds the PT_LOAD segment at file offset off, filesz
 * bytes long: the kernel maps a segment from its offset rounded down to a
 * page (lld puts segments at offsets that are not page-aligned: 0x15080
 * for vaddr 0x16080), so the mapping may start before the segment, in
 * the page it shares with the one before.
 */
bool procmaps_holds_segment(const struct pmap *m, uint64_t off,
			    uint64_t filesz);
/*
 * Warn about the maps and files we were refused, and the files changed on
 * disk since they were mapped (a capture without
 * CAP_SYS_PTRACE and friends), naming the first and the capabilities that
 * would help; nothing when none was.  Call it once, at the end.
 */
void procmaps_report_denied(void);

/* The executable mapping of tgid containing addr (from before its last
 * exec when only those have it), or NULL. */
const struct pmap *procmaps_find(struct procmaps *pm, uint32_t tgid,
				 uint64_t addr);

/*
 * The caller's slot (initially NULL) for what it keeps about the lineage
 * of TGID (the processes forked from one exec: they share addresses) that
 * addr belongs to (the one from before TGID's last exec when only its maps
 * have addr), or NULL when out of memory.  *version (never 0) names those
 * maps (learnt first if never tried): what is found with one version of
 * the maps stays valid.  When the lineage is released (procmaps_sweep()),
 * fn(slot value, ctx) is called.
 */
void **procmaps_slot(struct procmaps *pm, uint32_t tgid, uint64_t addr,
		     uint64_t *version);
void procmaps_on_release(struct procmaps *pm, void (*fn)(void *, void *),
			 void *ctx);
/*
 * Forget the processes found gone at a sweep at least grace seconds before
 * now (seconds of a monotonic clock), and release the lineages found
 * empty as long ago: keys that were still to be drained about them have
 * been by then.  Call it every second or so.
 */
void procmaps_sweep(struct procmaps *pm, double now, double grace);
/* The processes, address spaces and lineages kept, and their bytes. */
void procmaps_counts(const struct procmaps *pm, size_t *procs,
		     size_t *spaces, size_t *lineages, size_t *bytes);

#endif
