/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * unwind_python.h - the records the CPython unwinder's two sides share:
 * what user space learnt of a process's interpreter (src/unwind/
 * python_procs.c puts it in the pyprocs map, key tgid), which the BPF
 * walker (unwind_python.bpf.h) follows to the thread's Python frames, the
 * frames' encoding in a user stack, and the walker's per-CPU counts.
 * Included by offwake.h; the includer provides __u32 and friends.
 */
#ifndef OW_UNWIND_PYTHON_H
#define OW_UNWIND_PYTHON_H

/*
 * A process running a supported CPython: where _PyRuntime is, and the
 * offsets of the fields the walk reads (from the per-version table of
 * python_procs.c).  Offsets in bytes.
 */
struct ow_pyproc {
	__u64 runtime;		/* &_PyRuntime in the process */
	__u16 rt_interp;	/* _PyRuntime.interpreters.head */
	__u16 is_tstate;	/* PyInterpreterState.threads.head */
	__u16 ts_next;		/* PyThreadState.next */
	__u16 ts_cframe;	/* PyThreadState.cframe */
	__u16 ts_tid;		/* PyThreadState.native_thread_id */
	__u16 cf_frame;		/* _PyCFrame.current_frame */
	__u16 fr_code;		/* _PyInterpreterFrame.f_code */
	__u16 fr_previous;	/* _PyInterpreterFrame.previous */
	__u16 fr_instr;		/* _PyInterpreterFrame.prev_instr */
	__u16 fr_entry;		/* the byte that says where the frames of one
				 * _PyEval_EvalFrameDefault call end (below) */
	__u16 co_code;		/* PyCodeObject.co_code_adaptive */
	__u16 version;		/* 0x030b: 3.11 */
	__u16 entry_kind;	/* enum ow_py_entry */
	__u16 fr_base, fr_len;	/* the bytes of a frame read: the fields
				 * above, first to last (set by user space) */
	__u16 ts_chunk;		/* PyThreadState.datastack_chunk */
	__u16 ts_top;		/* PyThreadState.datastack_top */
	__u16 sc_data;		/* _PyStackChunk.data */
	__u16 ts_base, ts_len;	/* the bytes of a thread state read: from
				 * the first of ts_cframe, ts_tid, ts_chunk,
				 * ts_top to the last (set by user space) */
};

/* What fr_entry is. */
enum ow_py_entry {
	OW_PY_IS_ENTRY,		/* 3.11: is_entry, set on a call's first frame */
	OW_PY_OWNER_CSTACK,	/* 3.12: owner; FRAME_OWNED_BY_CSTACK (3) marks
				 * the shim frame each call pushes below its
				 * first frame (skipped) */
};
#define OW_PY_OWNED_BY_CSTACK	3

/*
 * Python frames follow the native frames of a user stack (leaf first, both),
 * as OW_FRAME_INTERP entries: the code object's address / 16 (CPython
 * allocates objects 16-byte aligned), whether the frame is the first one
 * its _PyEval_EvalFrameDefault call ran (is_entry: the frames of one
 * native call end there), and, with --python-lines, the index of the
 * instruction it was at (saturated: OW_PY_IDX_MAX means "too far in to
 * say").  User space stitches them in (src/unwind/python_stitch.c).
 */
#define OW_PY_CODE_BITS		43
#define OW_PY_ENTRY		(1ULL << OW_PY_CODE_BITS)
#define OW_PY_IDX_SHIFT		(OW_PY_CODE_BITS + 1)
#define OW_PY_IDX_MAX		((1ULL << (56 - OW_PY_IDX_SHIFT)) - 1)
#define OW_PY_CODE(v)		(((v) & (OW_PY_ENTRY - 1)) << 4)
#define OW_PY_IS_ENTRY(v)	(((v) & OW_PY_ENTRY) != 0)
#define OW_PY_IDX(v)		((v) >> OW_PY_IDX_SHIFT)

/*
 * Which processes may have a pyprocs entry: bit tgid % OW_PY_BITS of the
 * BPF side's python_bits (set by user space, and by the fork program for a
 * child it copies an entry to): a stack of any other process costs a load
 * and a test, not a hash lookup.
 */
#define OW_PY_BITS		4096
#define OW_PY_BIT_WORD(tgid)	(((tgid) % OW_PY_BITS) / 64)
#define OW_PY_BIT(tgid)		(1ULL << ((tgid) % 64))

/* Python frames of one stack at most. */
#define OW_PY_MAX_FRAMES	64
/* Threads of an interpreter looked through for the current one. */
#define OW_PY_MAX_THREADS	128

/* How the Python stacks of processes with a pyprocs entry went (per CPU). */
enum ow_py_stat {
	OW_PY_WALKED,		/* stacks with Python frames */
	OW_PY_NO_THREAD,	/* the thread has no thread state (yet) */
	OW_PY_NO_FRAME,		/* a thread state, no Python frame running */
	OW_PY_CUT_DEPTH,	/* cut: OW_PY_MAX_FRAMES or the stack's room */
	OW_PY_CUT_READ,		/* cut: memory not readable (a frame being
				 * made or freed) */
	OW_PY_DEFERRED,		/* native stack walked later: no Python */
	OW_PY_NOT_LOADED,	/* the Python walk's program not there: none */
	OW_PY_NR,
};

#endif
