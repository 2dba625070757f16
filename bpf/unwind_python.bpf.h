/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * unwind_python.bpf.h - the CPython unwinder: the Python frames the
 * current thread is running, appended to its native user stack as
 * OW_FRAME_INTERP entries (unwind_python.h), for the processes user space
 * found running a supported CPython (the pyprocs map, filled by
 * src/unwind/python_procs.c).
 *
 * The thread's PyThreadState: the interpreter's list of thread states
 * (_PyRuntime.interpreters.head->threads.head, then next), the one whose
 * native_thread_id is the thread's id, cached per thread in pythreads and
 * checked again at each use (a state freed and made again for another
 * thread has another id); a thread with none (not a Python thread, or not
 * yet) is looked for again 50 ms later at the earliest.  Its frames:
 * cframe->current_frame, then previous, OW_PY_MAX_FRAMES at most, read
 * with the thread's data stack below them (py_buf below).  A blocked thread
 * released the GIL, but its frames are its own: nobody else changes them
 * while it sleeps.  Only the main interpreter's threads are looked at.
 *
 * Like the native walker, it knows nothing of the programs that call it:
 * py_append(st, n) appends to the n native frames of the stack record st
 * (the current task's) and returns the new count.  The includer provides count() (a per-CPU
 * counter), as for unwind_native.bpf.h.
 */
#ifndef UNWIND_PYTHON_BPF_H
#define UNWIND_PYTHON_BPF_H

/* Set by user space before load: 0 off, 1 Python frames, 2 with the
 * instruction each was at (--python-lines). */
const volatile __u32 python_mode = 0;
/* Which processes may have a pyprocs entry (unwind_python.h). */
volatile __u64 python_bits[OW_PY_BITS / 64];

/* Whether process tgid may run CPython: its bit. */
static __always_inline bool py_maybe(__u32 tgid)
{
	return python_bits[OW_PY_BIT_WORD(tgid)] & OW_PY_BIT(tgid);
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ow_pyproc);
} pyprocs SEC(".maps");

/* A thread's PyThreadState (0: none found at ns). */
struct py_thread {
	__u64 tstate;
	__u64 ns;
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct py_thread);
} pythreads SEC(".maps");

/* How Python stacks went (enum ow_py_stat), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OW_PY_NR);
	__type(key, __u32);
	__type(value, __u64);
} py_stats SEC(".maps");

/*
 * What the walk reads, per CPU: a thread state's fields (ts_base, ts_len:
 * 256 bytes in 3.11) or a frame's (fr_base, fr_len: 40 bytes in 3.11, 72
 * in 3.12) at the start, in one bpf_probe_read_user() each, and after
 * PY_ONE, up to PY_BULK bytes of the thread's data stack at once.  CPython
 * pushes a thread's frames on its data stack (PyThreadState.
 * datastack_chunk, a chunk of 16 KiB or more, its own mmap(); callers
 * below callees, from the chunk's data to datastack_top): the bytes from
 * the chunk's data (or PY_BULK below) to the end of the frame's fields
 * hold it and the frames it was called from, read once.  Only bytes of
 * the chunk below datastack_top are read: the bytes below the chunk are
 * not there, and a bpf_probe_read_user() that faults gets nothing and
 * costs about 0.3 us (a 2 KiB read-ahead ending at the frame, not held to
 * the chunk, tried before, faulted for each of the outermost frames: +12
 * us a switch).  A frame elsewhere (a generator's, in its object; 3.12's
 * shim, on the C stack; an older chunk's) is read alone.
 *
 * tests/bench/python_bench.sh part 2 (31 Python frames, both sides of a
 * switch: two walks): a read a frame, +1.85 us a switch; the data stack
 * read at once, +0.88 us: a walk 0.11 us to the first frame, 0.17 us to
 * copy the data stack (3.7 KiB), 5 ns a frame followed in the copy.  (A
 * bounded loop in place of bpf_loop() measured the same, +0.82-0.93.)
 */
#define PY_TS_READ	320	/* ts_len at most */
#define PY_FRAME_READ	80	/* fr_len at most */
#define PY_ONE		PY_TS_READ
#define PY_BULK		8192
#define PY_FIELD_MAX	0x1f8	/* a field's offset in what was read, at most */
struct py_buf {
	__u8 b[PY_ONE + PY_BULK + PY_FIELD_MAX + 8];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_buf);
} py_buf SEC(".maps");

/* A thread without a state is looked for again this much later: a new
 * thread's first switches may come before it set native_thread_id. */
#define PY_RETRY_NS	50000000ULL

struct py_walk {
	__u64 *ips;
	const struct ow_pyproc *pp;
	struct py_buf *buf;
	__u64 ts;		/* the thread state being looked at */
	__u64 frame;		/* the frame to read next */
	__u64 lo, hi;		/* the data stack's bytes in buf after PY_ONE */
	__u64 dlo, dhi;		/* the data stack's bytes in use (chunk's data
				 * to datastack_top; dhi 0: not to be read) */
	__u32 tid;
	__u32 n;		/* entries in ips */
	__u32 frames;		/* Python frames added */
	__u32 stop;		/* enum ow_py_stat, or OW_PY_NR: none */
};

/* The field at off of what was read from base on, at at in b. */
static __always_inline __u64 py_u64(const struct py_buf *b, __u32 at,
				    __u32 base, __u32 off)
{
	return *(const __u64 *)&b->b[at + ((off - base) & PY_FIELD_MAX)];
}

static __always_inline __u8 py_u8(const struct py_buf *b, __u32 at,
				  __u32 base, __u32 off)
{
	return b->b[at + ((off - base) & (PY_FIELD_MAX | 7))];
}

/*
 * The fields of frame w->frame: where in w->buf they are (read now when
 * they are not there yet: with the data stack's bytes below them when the
 * frame is on it, else alone at 0), or -1 when they cannot be read.
 */
static __always_inline long py_frame_at(struct py_walk *w)
{
	__u32 len = w->pp->fr_len;
	__u64 f = w->frame + w->pp->fr_base, lo, size;

	if (!len || len > PY_FRAME_READ)
		len = PY_FRAME_READ;
	if (f >= w->lo && f + len <= w->hi)
		return PY_ONE + (f - w->lo);
	if (f >= w->dlo && f + len <= w->dhi) {
		lo = f + len - w->dlo > PY_BULK ? f + len - PY_BULK : w->dlo;
		size = f + len - lo;
		barrier_var(size);
		if (size <= PY_BULK &&
		    !bpf_probe_read_user(w->buf->b + PY_ONE, size, (void *)lo)) {
			w->lo = lo;
			w->hi = f + len;
			return PY_ONE + (f - lo);
		}
		w->dhi = 0;
	}
	return bpf_probe_read_user(w->buf->b, len, (void *)f) ? -1 : 0;
}

/* Read the fields of thread state w->ts into w->buf (at 0): whether it
 * is the current thread's. */
static __always_inline bool py_read_ts(struct py_walk *w)
{
	__u32 len = w->pp->ts_len;

	if (len > PY_TS_READ)
		return false;
	barrier_var(len);	/* the verifier sees the bound on len */
	if (!w->ts || !len ||
	    bpf_probe_read_user(w->buf->b, len, (void *)(w->ts + w->pp->ts_base)))
		return false;
	return py_u64(w->buf, 0, w->pp->ts_base, w->pp->ts_tid) == w->tid;
}

/* One thread state of the list: 1 when it is the thread's (w->ts). */
static int py_thread_step(__u32 i, void *ctx)
{
	struct py_walk *w = ctx;
	__u64 tid = 0;

	if (!w->ts ||
	    bpf_probe_read_user(&tid, sizeof(tid), (void *)(w->ts + w->pp->ts_tid)))
		goto none;
	if (tid == w->tid)
		return 1;
	if (bpf_probe_read_user(&w->ts, sizeof(w->ts),
				(void *)(w->ts + w->pp->ts_next)))
		goto none;
	return 0;
none:
	w->ts = 0;
	return 1;
}

/* The thread state of the current thread into w->ts (0: none), its
 * fields read (py_read_ts). */
static __always_inline void py_thread(struct py_walk *w)
{
	struct py_thread *pt = bpf_map_lookup_elem(&pythreads, &w->tid);
	struct py_thread fresh = {};
	__u64 now = bpf_ktime_get_ns(), interp = 0;

	if (pt && pt->tstate) {
		w->ts = pt->tstate;
		if (py_read_ts(w))
			return;
	}
	if (pt && !pt->tstate && now - pt->ns < PY_RETRY_NS) {
		w->ts = 0;
		return;
	}
	w->ts = 0;
	if (!bpf_probe_read_user(&interp, sizeof(interp),
				 (void *)(w->pp->runtime + w->pp->rt_interp)) &&
	    interp &&
	    !bpf_probe_read_user(&w->ts, sizeof(w->ts),
				 (void *)(interp + w->pp->is_tstate)))
		bpf_loop(OW_PY_MAX_THREADS, py_thread_step, w, 0);
	fresh.tstate = w->ts;
	fresh.ns = now;
	bpf_map_update_elem(&pythreads, &w->tid, &fresh, BPF_ANY);
	if (w->ts && !py_read_ts(w))
		w->ts = 0;
}

/* One Python frame into ips; 1: the walk ends. */
static int py_step(__u32 i, void *ctx)
{
	struct py_walk *w = ctx;
	const struct ow_pyproc *pp = w->pp;
	__u64 code, instr, idx = 0, v;
	__u32 n = w->n, base = pp->fr_base, at;
	long got;

	if (!w->frame)
		return 1;
	if (n >= OW_MAX_STACK_DEPTH) {
		w->stop = OW_PY_CUT_DEPTH;
		return 1;
	}
	got = py_frame_at(w);
	if (got < 0 || got > PY_ONE + PY_BULK) {
		w->stop = OW_PY_CUT_READ;
		return 1;
	}
	at = got;
	if (pp->entry_kind == OW_PY_OWNER_CSTACK &&
	    py_u8(w->buf, at, base, pp->fr_entry) == OW_PY_OWNED_BY_CSTACK) {
		/* a call's shim: the frame before it was the call's first */
		if (w->frames && n - 1 < OW_MAX_STACK_DEPTH)
			w->ips[n - 1] |= OW_FRAME(0, OW_PY_ENTRY);
		w->frame = py_u64(w->buf, at, base, pp->fr_previous);
		return 0;
	}
	code = py_u64(w->buf, at, base, pp->fr_code);
	if (!code || (code & 15) || code >> (OW_PY_CODE_BITS + 4)) {
		w->stop = OW_PY_CUT_READ;
		return 1;
	}
	v = code >> 4;
	if (pp->entry_kind == OW_PY_IS_ENTRY && py_u8(w->buf, at, base, pp->fr_entry))
		v |= OW_PY_ENTRY;
	if (python_mode > 1) {
		instr = py_u64(w->buf, at, base, pp->fr_instr);
		if (instr >= code + pp->co_code)
			idx = (instr - code - pp->co_code) / 2;
		if (idx > OW_PY_IDX_MAX)
			idx = OW_PY_IDX_MAX;
		v |= idx << OW_PY_IDX_SHIFT;
	}
	w->ips[n] = OW_FRAME(OW_FRAME_INTERP, v);
	w->n = n + 1;
	w->frames++;
	w->frame = py_u64(w->buf, at, base, pp->fr_previous);
	return 0;
}

/* The current task's stack was deferred (unwind_copy.bpf.h): counted when
 * it is a Python process's (its Python frames are not walked). */
static __always_inline void py_deferred(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (py_maybe(tgid) && bpf_map_lookup_elem(&pyprocs, &tgid))
		count(&py_stats, OW_PY_DEFERRED);
}

/*
 * Whether py_append() would add no frame to the stack of thread tid of
 * tgid now, by what py_thread() found last, reading no memory (to keep a
 * native stack in ustack_cache.bpf.h): 0 none (not a Python process), 1
 * none (a thread without Python state, not yet due to be looked at again:
 * py_append() counts OW_PY_NO_THREAD), -1 not known: walk it.
 */
static __always_inline int py_none(__u32 tgid, __u32 tid)
{
	struct py_thread *pt;

	if (!python_mode || !py_maybe(tgid) ||
	    !bpf_map_lookup_elem(&pyprocs, &tgid))
		return 0;
	pt = bpf_map_lookup_elem(&pythreads, &tid);
	if (pt && !pt->tstate && bpf_ktime_get_ns() - pt->ns < PY_RETRY_NS)
		return 1;
	return -1;
}

/*
 * py_none() for a native stack kept when it said 1 (was, 0 else) and
 * taken again unchanged to its outermost frame: still 1, without the
 * lookups.  A thread runs Python frames only inside the interpreter's
 * eval loop, whose frames would be on its native stack: a whole native
 * stack that had none when kept has none now, whatever thread state the
 * thread may have acquired since (py_append() would count that as
 * OW_PY_NO_FRAME; the hit counts it as when kept).
 */
static __always_inline int py_none_again(__u32 tgid, __u32 tid, __u64 was)
{
	if (!python_mode || !py_maybe(tgid))
		return 0;
	return was == 1 ? 1 : py_none(tgid, tid);
}

/*
 * Append the current task's Python frames to the n native frames of st;
 * returns the new number of frames (n when there are none: not a Python
 * process, or no Python running).  A global function: the verifier checks
 * it once, not at each place a stack is taken (inlined, it took the switch
 * program past the verifier's 1M instructions).
 */
__noinline int py_append(struct ow_stack *st, __u32 n)
{
	__u64 id = bpf_get_current_pid_tgid(), cframe, chunk;
	__u32 tgid = id >> 32, zero = 0;
	struct py_walk w = {};

	if (!st || n >= OW_MAX_STACK_DEPTH || !py_maybe(tgid))
		return n;
	w.pp = bpf_map_lookup_elem(&pyprocs, &tgid);
	if (!w.pp)
		return n;
	w.buf = bpf_map_lookup_elem(&py_buf, &zero);
	if (!w.buf)
		return n;
	w.tid = (__u32)id;
	py_thread(&w);
	if (!w.ts) {
		count(&py_stats, OW_PY_NO_THREAD);
		return n;
	}
	cframe = py_u64(w.buf, 0, w.pp->ts_base, w.pp->ts_cframe);
	chunk = py_u64(w.buf, 0, w.pp->ts_base, w.pp->ts_chunk);
	if (chunk) {
		w.dlo = chunk + w.pp->sc_data;
		w.dhi = py_u64(w.buf, 0, w.pp->ts_base, w.pp->ts_top);
	}
	if (!cframe ||
	    bpf_probe_read_user(&w.frame, sizeof(w.frame),
				(void *)(cframe + w.pp->cf_frame)) || !w.frame) {
		count(&py_stats, OW_PY_NO_FRAME);
		return n;
	}
	w.ips = st->ips;
	w.n = n;
	w.stop = OW_PY_NR;
	bpf_loop(OW_PY_MAX_FRAMES, py_step, &w, 0);
	if (w.stop == OW_PY_NR && w.frame)
		w.stop = OW_PY_CUT_DEPTH;
	if (w.frames)
		count(&py_stats, OW_PY_WALKED);
	else if (w.stop == OW_PY_NR)
		count(&py_stats, OW_PY_NO_FRAME);
	if (w.stop != OW_PY_NR)
		count(&py_stats, w.stop);
	return w.n;
}

#endif
