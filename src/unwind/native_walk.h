/* SPDX-License-Identifier: Apache-2.0 */
/*
 * native_walk.h - the native unwinder's walk in user space, over a copy of
 * the top of a user stack (a deferred stack, bpf/unwind_copy.h): the same
 * rules as the BPF walker (bpf/unwind_native.bpf.h, uw_step()), the same
 * rows and umaps entry, reading the copy instead of the task's memory.
 */
#ifndef OW_NATIVE_WALK_H
#define OW_NATIVE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "unwind_native.h"

/* The registers at the switch, and the stack's bytes [sp, sp + len). */
struct uw_regs {
	uint64_t ip, sp, bp, bx;
	const uint8_t *stack;
	size_t len;
};

/* How a walk ended. */
enum uw_walk_end {
	UW_WALK_END,		/* the outermost frame */
	UW_WALK_COPY,		/* a read outside the copy: cut by its size */
	UW_WALK_NOTABLE,	/* no table and no frame pointer */
	UW_WALK_RULE,		/* a rule not followed */
	UW_WALK_DEPTH,		/* OW_MAX_STACK_DEPTH frames */
	UW_WALK_BAD,		/* the CFA did not move up */
	UW_WALK_ENTRY,		/* the outermost frame: a context's entry (a
				 * return address at a table's first byte) */
	UW_WALK_NR,
};

struct uw_walker {
	const struct ow_umaps *um;	/* NULL: no tables (frame pointers) */
	const struct ow_urow *rows;	/* the rows map */
	uint32_t nrows;			/* its entries */
	bool cfi_only;			/* --unwind=cfi: no frame pointers */
};

/* Walk r into ips (room for max, leaf first); the frames found, how the
 * walk ended in *end, and in *unmapped (unless NULL) whether a pc was in
 * no mapping of the entry (a file a partial entry leaves out?). */
size_t uw_walk_copy(const struct uw_walker *w, const struct uw_regs *r,
		    __u64 *ips, size_t max, enum uw_walk_end *end,
		    bool *unmapped);

#endif
