/* SPDX-License-Identifier: Apache-2.0 */
/*
 * native_tables.h - unwind tables from an ELF file's call frame information
 * (.eh_frame, and .debug_frame when present; read with elfutils' libdw),
 * compiled into the compact rows the BPF walker follows (struct ow_urow,
 * bpf/unwind_native.h): for each address range, where the CFA is, where the
 * return address and the saved rbp are.  One table per file, made once.
 *
 * For the walker: a frame above the first is looked up at its return
 * address - 1 (the call may be a function's last instruction, the next
 * byte another function's first), except the frame a signal frame
 * interrupted, whose pc is exact.  glibc's FDE for __restore_rt starts a
 * byte before it for this reason, so that byte is OW_CFA_SIGNAL too.
 * Every FDE's end that no FDE starts at has an OW_CFA_NONE row, and the
 * last row of a table is always OW_CFA_NONE.
 */
#ifndef OW_NATIVE_TABLES_H
#define OW_NATIVE_TABLES_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "unwind_native.h"

/*
 * Row pcs are ELF virtual addresses minus base.  base is 0 when every
 * executable PT_LOAD segment ends below 4 GiB (all ordinary executables
 * and libraries: then a row's pc is the ELF vaddr itself), else the
 * lowest executable PT_LOAD p_vaddr; FDEs that still do not fit 32 bits
 * from base are left out (nskip).  For an ip in a mapping of the file
 * (start, file offset pgoff) that holds the segment (p_vaddr, p_offset):
 * vaddr = ip - start + pgoff - p_offset + p_vaddr, pc = vaddr - base,
 * i.e. adj = start - pgoff + p_offset - p_vaddr + base.
 */
struct uw_table {
	uint64_t base;		/* row pcs are relative to this (ELF vaddr) */
	struct ow_urow *rows;	/* sorted by pc, strictly increasing */
	size_t nrows;
	/* what the rows cover, for the capture summary */
	size_t nfde;		/* FDEs followed */
	size_t nexpr;		/* rows whose rule we do not follow (OW_CFA_NONE
				 * from an expression other than the PLT's) */
	size_t nother;		/* rows OW_CFA_NONE for another reason: CFA from
				 * a register other than rsp/rbp/rbx (stack
				 * realignment), return address not at CFA - 8,
				 * rbp saved where a row cannot say */
	size_t nskip;		/* FDEs left out: outside the executable
				 * segments, unknown pointer encoding, bad CIE;
				 * and Go outermost ranges (go_ends.c) left out */
	size_t noverlap;	/* FDEs left out: overlap one kept before */
	int debug_frame;	/* 1: rows from .debug_frame too */
	double between_ms;	/* spent in between() (uw_table_build()) */
};

/*
 * Build the table of an ELF file open on fd (name for messages).  Returns
 * 0, or -1 with errno set and a one-line reason in err (the file has no
 * CFI: ENOENT; not x86_64 ELF: ENOTSUP; malformed: EINVAL; no memory:
 * ENOMEM).  An empty table (nrows 0) is never returned with 0.  Meanwhile
 * between(ctx), when not NULL, is called every 20 ms or so (a large
 * file's table takes seconds in a sanitised build: the capture reads its
 * ring buffer there, so that it learns of processes while they live).
 */
int uw_table_build(int fd, const char *name, struct uw_table *t,
		   char *err, size_t errlen, void (*between)(void *), void *ctx);
void uw_table_free(struct uw_table *t);

/*
 * Whether t, read back for the ELF file open on fd (table_cache.c), is a
 * table uw_table_build() could have made for it: UW_ROWS_OK, else why not.
 */
enum uw_rows_bad {
	UW_ROWS_OK,
	UW_ROWS_ORDER,	/* pcs not strictly increasing, or the last row's
			 * rule not OW_CFA_NONE */
	UW_ROWS_RULE,	/* a row's fields out of the ranges its kind of rule
			 * has (row_rule()'s: offsets, register slots) */
	UW_ROWS_TEXT,	/* another base than the file's, or a pc outside
			 * its executable segments */
};
enum uw_rows_bad uw_table_check(int fd, const struct uw_table *t);

/* The row for pc (relative to base): the last row with row.pc <= pc, or
 * NULL (before the first row, or pc beyond 32 bits).  A binary search,
 * the one the BPF walker does; for tests and the dump tool. */
const struct ow_urow *uw_table_find(const struct uw_table *t, uint64_t pc);

#endif
