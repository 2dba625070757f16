/* SPDX-License-Identifier: Apache-2.0 */
/*
 * go_ends.h - where a Go program's stacks end, for the unwind tables
 * (native_tables.c): the address ranges of the Go runtime's functions
 * that are the outermost frame of the stack they run on, and of those
 * that run on another stack for a while, from the binary's pclntab
 * (symbols/gopclntab.c).
 */
#ifndef OW_GO_ENDS_H
#define OW_GO_ENDS_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#define UW_GO_ENDS	16	/* ranges kept at most (Go 1.19's runtime has
				 * 10: asmcgocall twice, with its ABI wrapper;
				 * nanotime1, time.now) */

enum uw_go_kind {
	UW_GO_END,		/* the stack's outermost frame: OW_CFA_END */
	UW_GO_BY_RBP,		/* moves rsp to g0 and back: its frame by rbp
				 * past the entry (see go_ends.c) */
};

struct uw_go_end {
	uint64_t lo, hi;	/* [lo, hi), ELF virtual addresses */
	enum uw_go_kind kind;
};

/*
 * The ranges of elf's outermost-frame functions into v (sorted by lo,
 * disjoint), how many: 0 when elf is not a Go binary.  *nbad counts the
 * ones left out: past UW_GO_ENDS, empty, or overlapping one kept before
 * (the pclntab is the traced user's: nothing in it is trusted).
 */
size_t uw_go_ends(Elf *elf, struct uw_go_end v[UW_GO_ENDS], size_t *nbad);

#endif
