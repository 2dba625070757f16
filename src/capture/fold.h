/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold.h - the stacks of aggregation keys as named frames, the way
 * offwaketime names them, symbolised once per distinct stack (and process)
 * while the capture runs, so that writing the output only assembles lines.
 */
#ifndef OW_FOLD_H
#define OW_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "agg.h"
#include "common/htab.h"
#include "locs.h"
#include "symbols/ksyms.h"
#include "symbols/procmaps.h"
#include "stackstore.h"
#include "symbols/usyms.h"

struct symframe {
	const char *name;
	size_t len;
};

struct ow_unwinder;

/* A symbolised stack, leaf first (interned: equal ones are one). */
struct symstack {
	const char *ctx;	/* waker kernel stacks: "[hardirq]",
				 * "[softirq]", "[nmi]" or NULL */
	struct symstack *next;	/* another with the same content hash */
	uint32_t n;
	bool has_locs;		/* where each frame is follows f[] */
	struct symframe f[];
};

/* Where the frames of s are (n of them), or NULL (see folder.locs). */
static inline const struct symloc *symstack_locs(const struct symstack *s)
{
	return s->has_locs ? (const struct symloc *)(s->f + s->n) : NULL;
}

/* The stack of no frames (no stack taken, or none to show). */
extern const struct symstack fold_no_frames;

struct folder {
	struct procmaps *pm;
	struct stacks *st;
	struct ksyms *ks;
	struct usyms *us;
	struct htab interned;	/* (content hash, 0) -> struct symstack
				 * chain: owns every symbolised stack */
	struct htab cache;	/* (kernel stack reference, waker) ->
				 * struct symstack (user stacks: per
				 * lineage, see fold.c) */
	char **pool;		/* sanitised copies of names */
	size_t npool, poolcap;
	struct htab names;	/* (hash, length) of a user frame's name
				 * -> its copy in the pool */
	uint64_t missing;	/* references to stacks never received */
	bool locs;		/* keep where frames are (pprof; set after
				 * folder_init): symbolised stacks are then
				 * equal when their names and places are */
	bool plain_unknown;	/* user frames without a symbol are
				 * "[unknown]", not named after their file
				 * (set after folder_init) */
	/* the unwinders (unwinder.h: their table, nuw rows, and each
	 * one's state, NULL: not used) that name interpreter frames and
	 * stitch them in (NULL: none; set after folder_init) */
	const struct ow_unwinder *const *uwt;
	void *const *uw;
	size_t nuw;
	struct htab pysrc;	/* (code object, tgid) -> struct export_src:
				 * where a Python frame's function is (locs) */
	struct locs loctab;	/* the mappings they are in */
	struct htab late;	/* (name pointer, 0) -> struct late_name:
				 * frames whose names wait for debuginfod */
	size_t nlate;
	/* what is kept, for folder_counts() */
	size_t nstacks, stack_bytes;	/* interned */
	size_t lineages, lin_entries;	/* per-lineage caches */
	uint64_t transient;	/* interrupt wakeups' kernel stacks seen */
};

/*
 * Reads /proc/kallsyms, or takes what kr read (ksyms_load_async(), which
 * it waits for): our BPF programs loaded since are named then with
 * progsyms_add().  What is
 * kept about a lineage of processes goes with it: procmaps_free() before
 * folder_free() and stacks_free().
 */
int folder_init(struct folder *f, struct procmaps *pm, struct stacks *st,
		struct ksyms_read *kr);
void folder_free(struct folder *f);
/*
 * Once a second: ELF files not used for max_idle calls are forgotten
 * (the user frames' names shown were copied).
 */
void folder_sweep(struct folder *f, unsigned max_idle);

/*
 * Name the four stacks of e (e->stk; the waker's user stack is shown
 * empty for an interrupt's wakeup: the interrupted task did not wake
 * it), and those of the chain's further levels (e->up).  A wakeup from
 * interrupt context ends the chain: the levels above it (the interrupted
 * task's own) are cleared from e->key.  Returns 0, or -1 when a stack
 * has not been received yet: e stays unresolved, unless final, where
 * such a stack is shown as missed and counted in f->missing.
 */
int fold_resolve(struct folder *f, struct agg_entry *e, bool final);

/*
 * After the capture: fetch the debug files of the frames whose files had
 * no symbols here from debuginfod (usyms_fetch(): within its deadline),
 * and name those frames in every symbolised stack (by the debug file, or
 * else as frames without a symbol are).
 */
void fold_late_names(struct folder *f);

/* The stack store freed the stack ref: forget what was cached under it. */
void fold_forget(struct folder *f, uint64_t ref);

/* The memory the folder's tables take, in bytes, by kind. */
struct fold_counts {
	size_t interned;	/* symbolised stacks and their index */
	size_t names;		/* the pool of frame names, and its index */
	size_t kcache;		/* kernel stacks' cache */
	size_t lineages;	/* per-lineage caches */
	size_t transient;	/* kernel stacks of interrupt wakeups cached */
};
void folder_counts(const struct folder *f, struct fold_counts *n);

/* A command name fit for a frame (valid until folder_free). */
const char *fold_comm(struct folder *f, const char *comm);
/* comm (OW_COMM_LEN bytes, in a key) as fold_comm() shows it, in place,
 * zeroed past its end: keys whose names read the same are equal. */
void fold_comm_key(char *comm);

#endif
