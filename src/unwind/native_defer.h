/* SPDX-License-Identifier: Apache-2.0 */
/*
 * native_defer.h - deferred user stacks (bpf/unwind_copy.h): the copies
 * of the top of a user stack the kernel side sent where its process's
 * unwind tables were late, kept until those tables are in and then walked
 * (native_walk.c) into ordinary stack records under their own reference.
 */
#ifndef OW_NATIVE_DEFER_H
#define OW_NATIVE_DEFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "offwake.h"

struct uw_defer;

struct uw_defer_stats {
	uint64_t received;	/* copies received */
	uint64_t whole;		/* walked to the outermost frame */
	uint64_t cut;		/* cut by the copy's size (OW_UCOPY_MAX) */
	uint64_t other;		/* ended otherwise (no table, depth, ...) */
	uint64_t early;		/* walked before their tables were in (the
				 * memory bound: more copies than max_bytes) */
	uint64_t waited;	/* walks that met a file their process's
				 * partial tables left out: kept for the
				 * rest (a stack may count more than once) */
	uint64_t bad;		/* malformed records (never expected) */
	size_t kept, bytes;	/* copies waiting now, and their bytes */
	size_t bytes_max;	/* the most bytes kept at once */
};

/* Walks read the umaps map (umaps_fd) and the rows map (rows, nrows
 * entries); cfi_only: --unwind=cfi; at most max_bytes of copies wait. */
struct uw_defer *uw_defer_new(int umaps_fd, const struct ow_urow *rows,
			      uint32_t nrows, bool cfi_only, size_t max_bytes);
void uw_defer_free(struct uw_defer *d);

/* A record of the ring buffer (len bytes): kept; 0, or -1 (malformed, or
 * no memory: counted). */
int uw_defer_add(struct uw_defer *d, const void *rec, size_t len);

/*
 * Walk the kept copies whose process has its tables in (ready(ctx, tgid,
 * false) true; every copy when ready is NULL: counted as early), handing
 * each stack record made (OW_EV_STACK, hash: the copy's reference) to
 * got(ctx, record, length).  A walk that meets a pc in no mapping of its
 * process's entry asks ready(ctx, tgid, true) whether to walk it now
 * (true: with the tables as they are then) or keep it for a later call
 * (false: the entry leaves files out, and they are coming).  ready() may
 * add copies (they wait for the next call).  Returns how many were
 * walked.
 */
size_t uw_defer_walk(struct uw_defer *d,
		     bool (*ready)(void *ctx, uint32_t tgid, bool missed),
		     void (*got)(void *ctx, const struct ow_stack *st, size_t len),
		     void *ctx);

void uw_defer_get_stats(const struct uw_defer *d, struct uw_defer_stats *st);

#endif
