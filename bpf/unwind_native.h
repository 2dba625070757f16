/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * unwind_native.h - the records the native unwinder's two sides share:
 * the table rows user space builds (src/unwind/native_tables.c) and puts
 * in the rows and umaps maps (src/unwind/native_maps.c), which the BPF
 * walker follows (unwind_native.bpf.h), and its per-CPU counts of how
 * user stacks were walked.  Included by offwake.h; the includer provides
 * __u32 and friends, as for offwake.h.
 */
#ifndef OW_UNWIND_NATIVE_H
#define OW_UNWIND_NATIVE_H

/*
 * CFI unwinding (--unwind).  User space compiles each ELF file's CFI
 * (.eh_frame, .debug_frame) into rows sorted by pc, one row per address
 * range with the same rule, and puts them in the rows array map, each
 * file's table a contiguous range.  The walker finds the last row whose
 * pc is <= the frame's pc (relative to the table's base: ip - adj).
 *
 * Rules (x86_64): CFA = rsp, rbp or rbx + off; the return address is at
 * CFA - 8; rbp is saved at CFA + 8 * rbp when rbp != 0, else unchanged;
 * rbx is saved at CFA - 8 * rbx when rbx is 1..30, unchanged when 0, and
 * not known above this frame when OW_RBX_LOST (a rule a row cannot say).
 * The walker tracks rbx (from the registers at the switch, then through
 * these save rules) only for rows whose CFA is rbx-based: ld.so's
 * _dl_runtime_resolve_xsavec, which realigns the stack, has CFA = rbx + 32.
 */
enum ow_cfa {
	OW_CFA_NONE = 0,	/* no rule here: fall back to rbp; off 0: a
				 * gap between FDEs, OW_NONE_RULE: a rule we
				 * do not follow (counted when walked into) */
	OW_CFA_RSP = 1,		/* CFA = rsp + off */
	OW_CFA_RBP = 2,		/* CFA = rbp + off */
	OW_CFA_PLT = 3,		/* PLT entry: CFA = rsp + 8, + 8 more when
				 * (ip & 15) >= off (off is 10 or 11) */
	OW_CFA_END = 4,		/* return address undefined: the outermost
				 * frame (_start, a thread's start) */
	OW_CFA_SIGNAL = 5,	/* signal trampoline (__restore_rt): the
				 * interrupted registers are in the
				 * sigcontext at rsp + off */
	OW_CFA_RSP_X8 = 6,	/* CFA = rsp + 8 * (__u16)off (offsets above
				 * 32767, up to 512 KiB - 8) */
	OW_CFA_RBX = 7,		/* CFA = rbx + off (the last: cfa has 3 bits) */
};

#define OW_RBX_LOST	31	/* ow_urow.rbx: its rule is not one we follow */
#define OW_NONE_RULE	1	/* ow_urow.off of an OW_CFA_NONE row whose
				 * CFI rule we do not follow; its rbp -2 when
				 * rbp is saved at CFA - 16 (a frame pointer's
				 * layout: one step by rbp), else 0 (stop) */
#define OW_DRAP_RULE	2	/* ow_urow.off of an OW_CFA_NONE row of a
				 * realigned frame (DRAP): CFA = *(rbp + 8 *
				 * rbp), rbp saved at rbp + 0 */

/*
 * 8 bytes a row (the rows map holds --unwind-memory / 8 of them).  The
 * byte after pc was the CFA rule alone until the rbx rule shared it:
 * cfa is its low 3 bits (enum ow_cfa, 0..7), rbx its high 5 bits (see
 * above); a row without an rbx rule has the byte it had before.
 */
struct ow_urow {
	__u32 pc;		/* start of the range, from the table's base */
	__u8 cfa : 3;		/* enum ow_cfa */
	__u8 rbx : 5;		/* rbx saved at CFA - 8 * rbx (1..30); 0:
				 * unchanged; OW_RBX_LOST: unknown above */
	__s8 rbp;		/* rbp saved at CFA + 8 * rbp; 0: unchanged */
	__s16 off;
};

/*
 * A process's executable mappings that have a table, sorted by start, in
 * the umaps map (key: tgid).  ip in [start, end) uses rows[first ..
 * first + nrows) with pc = ip - adj.
 */
#define OW_UMAPS	512	/* a power of 2; Python with numpy, pandas and
				 * scipy has about 190 */
struct ow_umap {
	__u64 start, end;
	__u64 adj;
	__u32 first, nrows;
};

struct ow_umaps {
	__u32 n;
	__u32 gen;		/* changes with every write of the entry */
	struct ow_umap m[OW_UMAPS];
};

/*
 * Each process's umaps generation, where one array lookup finds it (the
 * umaps_gen map, slot tgid % OW_UMAPS_GEN_SLOTS; a slot another process
 * has, or none: the umaps entry is looked up): the user stack cache
 * checks it at each hit, and a hash lookup of umaps cost about 17 ns of
 * it.  Written after each write of umaps (gen), and at each delete (gen
 * 0: no tables).
 */
#define OW_UMAPS_GEN_SLOTS	16384	/* a power of 2 */
struct ow_umaps_gen {
	__u32 tgid;
	__u32 gen;
};

/* How user stacks were walked, and why CFI walks stopped (per-CPU array:
 * the blocked threads' walks at [0, OW_UW_NR), the wakers' at
 * [OW_UW_NR, 2 * OW_UW_NR); index OW_UW_NR * side + stat). */
enum ow_uw_side { OW_UW_BLOCKED, OW_UW_WAKER, OW_UW_SIDES };

enum ow_unwind_stat {
	OW_UW_CFI,		/* walked by CFI tables only */
	OW_UW_MIXED,		/* CFI, with frames by rbp where no table */
	OW_UW_FP,		/* by frame pointers only (no table at all) */
	OW_UW_END,		/* CFI walk reached the outermost frame */
	OW_UW_UNFOLLOWED,	/* CFI walk met a row OW_NONE_RULE (a rule we
				 * do not follow; rbp taken there when the
				 * row's rbp is -2, else it stopped) */
	OW_UW_END_ENTRY,	/* of OW_UW_END: at a context's entry, a return
				 * address at the first byte of a table's
				 * range (makecontext's __start_context) */
	OW_UW_NO_MM,		/* not walked: the task has left its memory
				 * (exiting, past exit_mm()) */
	OW_UW_STOP_NOTABLE,	/* stopped: no table and no frame pointer */
	OW_UW_STOP_READ,	/* stopped: stack memory not readable */
	OW_UW_STOP_RULE,	/* stopped: a rule we cannot follow */
	OW_UW_STOP_DEPTH,	/* stopped: OW_MAX_STACK_DEPTH frames */
	OW_UW_STOP_BAD,		/* stopped: the CFA did not move up */
	OW_UW_NR,
};

#endif
