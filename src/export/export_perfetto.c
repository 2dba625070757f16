// SPDX-License-Identifier: Apache-2.0
/*
 * export_perfetto.c - the Perfetto writer (writers.c's "perfetto" row): a
 * capture's long blocks in time (profile.h's struct ow_long_block) as a
 * Perfetto trace of track events (perfetto_trace.proto, our subset of
 * Perfetto's TracePacket, encoded by the C code protoc-c generates from
 * it), as ui.perfetto.dev and trace_processor read it:
 *
 * - one process track per process (ProcessDescriptor: its pid, and its
 *   main thread's name when a sample names it) and, under it, one thread
 *   track per thread that blocked or woke (ThreadDescriptor: pid, tid,
 *   name);
 * - per long block, a slice on its thread's track from going off CPU to
 *   coming back, named after its innermost user frame and the kernel
 *   frame it blocked in ("pong_wait -> anon_pipe_read": the innermost
 *   kernel frame that is not the scheduler's own), its begin carrying the
 *   blocked stack and its end the waker's (Perfetto's callstack_iid: the
 *   slice's callsite and end callsite), its args the state, CPU and
 *   waker;
 * - inside it, a "runnable" slice from the wakeup to its end (the time it
 *   waited for a CPU); a "wakeup" instant on the waker's track at the
 *   wakeup time, with the waker's stack, and a flow from that instant to
 *   the runnable slice: the arrow from the waker to the end of the block
 *   it ended (Perfetto draws an arrow to the start of the slice it ends
 *   in: the runnable slice starts at the wakeup, the blocked slice long
 *   before);
 * - per thread, a counter track "blocks < MIN (summed)": the time of its
 *   blocks shorter than --event-min, which are only summed (a flat value
 *   over the capture: when they happened is not known).
 *
 * Names and stacks are interned (InternedData event_names, function_names,
 * frames, callstacks) in one packet before the events, on one packet
 * sequence whose first packet clears its incremental state; every event
 * packet says it needs that state.  Timestamps are the events' clock,
 * CLOCK_MONOTONIC (timestamp_clock_id 3), made the trace's clock by a
 * ClockSnapshot.  Events are written sorted by time.
 *
 * The profile is walked once, keeping the blocks (and interning what they
 * show); the trace is written packet by packet (each a Trace.packet field).
 * A profile without events (convert of a folded file) is refused.
 */
#include "writers.h"
#include "frametab.h"
#include "perfetto_trace.pb-c.h"
#include "common/htab.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent Event;
typedef Perfetto__Protos__TrackDescriptor Track;
typedef Perfetto__Protos__DebugAnnotation Arg;

enum {
	SEQ_ID = 1,		/* our one packet sequence */
	SEQ_CLEARED = 1,	/* sequence_flags: SEQ_INCREMENTAL_STATE_CLEARED */
	SEQ_NEEDS = 2,		/* SEQ_NEEDS_INCREMENTAL_STATE */
	CLOCK = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC,
	NAME_RUNNABLE = 1,	/* the event names interned first */
	NAME_WAKEUP = 2,
};

/* Track uuids: what the track is above the pid or tid. */
enum track_kind { TK_PROCESS = 1, TK_THREAD = 2, TK_SHORT = 3 };

static uint64_t uuid_of(enum track_kind k, uint32_t id)
{
	return (uint64_t)k << 32 | id;
}

struct thread {
	uint32_t tid, pid;	/* pid 0: not known (left out) */
	char *name;		/* or NULL */
	uint64_t short_ns;	/* its blocks shorter than --event-min */
};

struct block {
	struct ow_long_block ev;
	uint64_t name_iid, stack_iid, waker_stack_iid;	/* 0: none */
	uint64_t flow;		/* 0: none */
	const char *waker;	/* woken in interrupt context: its marker
				 * ("[hardirq]"), or NULL */
};

/* What happens when: the trace's events, sorted by time, then rank (ends
 * before begins at one time, an outer slice's begin before its inner's). */
enum rank { R_RUNNABLE_END, R_BLOCK_END, R_WAKEUP, R_COUNTER, R_BLOCK_BEGIN,
	    R_RUNNABLE_BEGIN };
struct tev {
	uint64_t ts;
	uint32_t rank;
	uint32_t i;		/* the block, or the thread (R_COUNTER) */
};

struct pf {
	const struct export_info *info;
	double ns_per_count;	/* the sums' unit in ns, 0: not time */
	struct frametab names;	/* event names: iid = id + 1 */
	struct frametab fnames;	/* function names: iid = id + 1 */
	struct htab frame_of;	/* (function name id, kind) -> frame iid */
	struct pframe { uint32_t fn, kind; } *frames;	/* frame iid - 1 */
	size_t nframes, frames_cap;
	struct frametab stacks;	/* stacks as arrays of frame iids: iid = id + 1 */
	uint64_t *ids;		/* a stack's frame iids being made */
	size_t ids_cap;
	struct htab thread_of;	/* (tid, 0) -> thread index + 1 */
	struct thread *thr;
	size_t nthr, thr_cap;
	struct block *blk;
	size_t nblk, blk_cap;
	FILE *out;
	uint8_t *buf;		/* a packet being written */
	size_t buf_cap;
};

/* The scheduler's own functions, which every blocked kernel stack ends
 * in: a slice is named after the kernel frame below them. */
static const char *const sched_frames[] = {
	"schedule", "__schedule", "io_schedule", "preempt_schedule", "__cond_resched",
	"_cond_resched", "schedule_timeout", "schedule_hrtimeout", "schedule_preempt_disabled",
};

static bool is_sched(const struct ow_frame *f)
{
	for (size_t i = 0; i < sizeof(sched_frames) / sizeof(sched_frames[0]); i++) {
		size_t n = strlen(sched_frames[i]);

		if (f->len >= n && !memcmp(f->name, sched_frames[i], n))
			return true;
	}
	return false;
}

/* Perfetto's frame kind of each of ours (0: unknown). */
static const int frame_kind[OW_PF_KINDS] = {
	[OW_PF_NATIVE] = PERFETTO__PROTOS__FRAME__KIND__KIND_NATIVE,
	[OW_PF_KERNEL] = PERFETTO__PROTOS__FRAME__KIND__KIND_KERNEL,
	[OW_PF_JIT] = PERFETTO__PROTOS__FRAME__KIND__KIND_JIT,
	[OW_PF_INTERP] = PERFETTO__PROTOS__FRAME__KIND__KIND_INTERPRETED,
};

/* Frames of code (a stack's): not markers of the folded line. */
static bool is_code(enum ow_pf_kind k)
{
	return k <= OW_PF_MARKER || k == OW_PF_NAME;
}

static bool is_user(enum ow_pf_kind k)
{
	return k == OW_PF_NATIVE || k == OW_PF_JIT || k == OW_PF_INTERP;
}

/* The sums' unit (--countname) in nanoseconds; 0 when not a time. */
static double ns_per_count(const char *countname)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "us", 1e3 }, { "ns", 1 }, { "ms", 1e6 }, { "s", 1e9 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(countname ? countname : "us", units[i].name))
			return units[i].ns;
	return 0;
}

static int name_iid(struct pf *p, const char *s, size_t len, uint64_t *iid)
{
	uint32_t id;

	if (frametab_id(&p->names, s, len, &id))
		return -1;
	*iid = id + 1;
	return 0;
}

/* The interned frame of f. */
static int frame_iid(struct pf *p, const struct ow_frame *f, uint64_t *iid)
{
	int kind = frame_kind[f->kind];
	uint32_t fn;
	uintptr_t v;

	if (frametab_id(&p->fnames, f->name, f->len, &fn))
		return -1;
	v = (uintptr_t)htab_get(&p->frame_of, fn, kind);
	if (!v) {
		if (ow_grow(&p->frames, &p->frames_cap, p->nframes, sizeof(*p->frames)))
			return -1;
		p->frames[p->nframes] = (struct pframe){ fn, kind };
		v = ++p->nframes;
		if (htab_put(&p->frame_of, fn, kind, (void *)v))
			return -1;
	}
	*iid = v;
	return 0;
}

/* The interned stack of the code frames f[from..to) (step 1, or -1 from
 * to - 1 down to from: the waker's, written leaf first), root first; 0:
 * no frames. */
static int stack_iid(struct pf *p, const struct ow_frame *f, size_t from, size_t to,
		     bool reversed, uint64_t *iid)
{
	size_t n = 0;
	uint32_t id;

	for (size_t k = 0; k < to - from; k++) {
		const struct ow_frame *fr = &f[reversed ? to - 1 - k : from + k];

		if (!is_code(fr->kind) || !fr->len)
			continue;
		if (ow_grow(&p->ids, &p->ids_cap, n, sizeof(*p->ids)) ||
		    frame_iid(p, fr, &p->ids[n]))
			return -1;
		n++;
	}
	*iid = 0;
	if (!n)
		return 0;
	if (frametab_id(&p->stacks, (const char *)p->ids, n * sizeof(*p->ids), &id))
		return -1;
	*iid = id + 1;
	return 0;
}

/* The thread tid (added when new), its pid and name filled in when known. */
static struct thread *thread_of(struct pf *p, uint32_t tid, uint32_t pid,
				const char *name, size_t len)
{
	uintptr_t v = (uintptr_t)htab_get(&p->thread_of, tid, 0);
	struct thread *t;

	if (!v) {
		if (ow_grow(&p->thr, &p->thr_cap, p->nthr, sizeof(*p->thr)))
			return NULL;
		p->thr[p->nthr] = (struct thread){ tid, 0, NULL, 0 };
		v = ++p->nthr;
		if (htab_put(&p->thread_of, tid, 0, (void *)v))
			return NULL;
	}
	t = &p->thr[v - 1];
	if (!t->pid)
		t->pid = pid;
	if (!t->name && len && !(t->name = strndup(name, len)))
		return NULL;
	return t;
}

/* The slice name of the blocked frames f[0..n): "user -> kernel". */
static int slice_name(struct pf *p, const struct ow_frame *f, size_t n, uint64_t *iid)
{
	const struct ow_frame *u = NULL, *k = NULL;
	char buf[512];
	int len;

	for (size_t i = 0; i < n; i++)
		if (is_user(f[i].kind) && f[i].len)
			u = &f[i];
		else if (f[i].kind == OW_PF_KERNEL && f[i].len && !is_sched(&f[i]))
			k = &f[i];
	if (u && k)
		len = snprintf(buf, sizeof(buf), "%.*s -> %.*s", (int)u->len, u->name,
			       (int)k->len, k->name);
	else if (u || k)
		len = snprintf(buf, sizeof(buf), "%.*s", (int)(u ? u : k)->len, (u ? u : k)->name);
	else
		len = snprintf(buf, sizeof(buf), "blocked");
	return name_iid(p, buf, len < (int)sizeof(buf) ? (size_t)len : sizeof(buf) - 1, iid);
}

static int64_t label_num(const struct ow_sample *s, const char *key)
{
	for (size_t i = 0; i < s->nlabels; i++)
		if (!s->labels[i].str && !strcmp(s->labels[i].key, key))
			return s->labels[i].num;
	return 0;
}

/* A waker part's [hardirq]/[softirq] marker, as a string of ours. */
static const char *irq_name(const struct ow_frame *m)
{
	static const char *const names[] = { "[hardirq]", "[softirq]" };

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (m->len == strlen(names[i]) && !memcmp(m->name, names[i], m->len))
			return names[i];
	return "[interrupt]";
}

/* One sample: its blocks kept, its short blocks' time summed to its
 * thread.  A block woken in interrupt context has no waker thread (the
 * task the interrupt came in on is not one: no track, no flow), its
 * waker argument the context's marker. */
static int add_sample(void *ctx, const struct ow_sample *s)
{
	struct pf *p = ctx;
	const struct ow_frame *f = s->frames, *tn = NULL, *wn = NULL;
	const char *irq = NULL;
	size_t d1 = s->nframes, d2 = s->nframes;
	uint64_t name = 0, stack = 0, wstack = 0, long_ns = 0;
	double all_ns;
	struct thread *t;

	for (size_t i = 0; i < s->nframes; i++)
		if (f[i].kind == OW_PF_DIVIDER) {
			if (d1 == s->nframes) {
				d1 = i;
			} else {
				d2 = i;
				break;
			}
		}
	for (size_t i = 0; i < d1 && !tn; i++)
		if (f[i].kind == OW_PF_THREAD)
			tn = &f[i];
	for (size_t i = d1 + 1; i < d2 && !wn; i++)
		if (f[i].kind == OW_PF_THREAD)
			wn = &f[i];
		else if (f[i].kind == OW_PF_MARKER)
			irq = irq_name(&f[i]);
	if (s->nevents && (slice_name(p, f, d1, &name) || stack_iid(p, f, 0, d1, false, &stack) ||
			   (d1 < d2 && stack_iid(p, f, d1 + 1, d2, true, &wstack))))
		return -1;
	for (size_t i = 0; i < s->nevents; i++) {
		struct ow_long_block ev = s->events[i], *e = &ev;
		struct thread *w = NULL;
		struct block *b;

		if (irq)	/* no thread woke it: the one interrupted is none */
			e->waker_tid = e->waker_pid = 0;

		if (!thread_of(p, e->tid, e->pid, tn ? tn->name : NULL, tn ? tn->len : 0) ||
		    (e->waker_tid && !(w = thread_of(p, e->waker_tid, e->waker_pid,
						     wn ? wn->name : NULL, wn ? wn->len : 0))) ||
		    ow_grow(&p->blk, &p->blk_cap, p->nblk, sizeof(*p->blk)))
			return -1;
		b = &p->blk[p->nblk++];
		*b = (struct block){ *e, name, stack, wstack, 0, irq };
		if (w && e->wakeup_ns && e->waker_pid)
			b->flow = p->nblk;
		long_ns += e->end_ns > e->start_ns ? e->end_ns - e->start_ns : 0;
	}
	all_ns = fg_count_double(s->value) * p->ns_per_count;
	if (!p->ns_per_count || all_ns <= long_ns || !(tn || s->nevents))
		return 0;
	if (s->nevents)
		t = thread_of(p, s->events[0].tid, s->events[0].pid, NULL, 0);
	else
		t = thread_of(p, tn->tid, label_num(s, "pid"), tn->name, tn->len);
	if (!t)
		return -1;
	t->short_ns += all_ns - long_ns;
	return 0;
}

/* Write pk as the next Trace.packet field. */
static int put_packet(struct pf *p, Packet *pk)
{
	uint8_t hdr[16];
	size_t len, h = 0;

	pk->has_trusted_packet_sequence_id = 1;
	pk->trusted_packet_sequence_id = SEQ_ID;
	len = perfetto__protos__trace_packet__get_packed_size(pk);
	if (len > p->buf_cap) {
		free(p->buf);
		p->buf_cap = 0;
		if (!(p->buf = malloc(len)))
			return -1;
		p->buf_cap = len;
	}
	perfetto__protos__trace_packet__pack(pk, p->buf);
	hdr[h++] = 1 << 3 | 2;	/* field 1, length-delimited */
	for (uint64_t v = len; ; v >>= 7) {
		hdr[h++] = (v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
		if (v < 0x80)
			break;
	}
	if (fwrite(hdr, 1, h, p->out) != h || fwrite(p->buf, 1, len, p->out) != len)
		return -1;
	return 0;
}

static void timed(Packet *pk, uint64_t ts)
{
	pk->has_timestamp = pk->has_timestamp_clock_id = pk->has_sequence_flags = 1;
	pk->timestamp = ts;
	pk->timestamp_clock_id = CLOCK;
	pk->sequence_flags = SEQ_NEEDS;
}

/* The first packet: CLOCK_MONOTONIC is the trace's clock; the sequence's
 * incremental state starts here. */
static int put_clock(struct pf *p, uint64_t t0)
{
	Packet pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock c = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock *cp = &c;

	c.has_clock_id = c.has_timestamp = 1;
	c.clock_id = CLOCK;
	c.timestamp = t0;
	cs.n_clocks = 1;
	cs.clocks = &cp;
	cs.has_primary_trace_clock = 1;
	cs.primary_trace_clock = (Perfetto__Protos__BuiltinClock)CLOCK;
	pk.clock_snapshot = &cs;
	pk.has_sequence_flags = 1;
	pk.sequence_flags = SEQ_CLEARED;
	return put_packet(p, &pk);
}

static int put_track(struct pf *p, Track *t)
{
	Packet pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	pk.track_descriptor = t;
	return put_packet(p, &pk);
}

static int by_pid_tid(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The process tracks, each followed by its threads' (and their counters'). */
static int put_tracks(struct pf *p)
{
	char cname[64];
	uint64_t min_us = p->info->event_min_ns / 1000;

	if (min_us && !(min_us % 1000))
		snprintf(cname, sizeof(cname), "blocks < %" PRIu64 " ms (summed)", min_us / 1000);
	else
		snprintf(cname, sizeof(cname), "blocks < %" PRIu64 " us (summed)", min_us);
	if (p->nthr)
		qsort(p->thr, p->nthr, sizeof(*p->thr), by_pid_tid);
	htab_free(&p->thread_of);	/* (indices moved: made again) */
	for (size_t i = 0; i < p->nthr; i++) {
		struct thread *t = &p->thr[i];
		Track tr = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
		Perfetto__Protos__ThreadDescriptor td = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
		Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;

		if (htab_put(&p->thread_of, t->tid, 0, (void *)(uintptr_t)(i + 1)))
			return -1;
		if (!t->pid)
			continue;
		if (!i || t->pid != p->thr[i - 1].pid) {
			struct thread *main = NULL;

			for (size_t j = i; j < p->nthr && p->thr[j].pid == t->pid && !main; j++)
				if (p->thr[j].tid == t->pid)
					main = &p->thr[j];
			tr.has_uuid = pd.has_pid = 1;
			tr.uuid = uuid_of(TK_PROCESS, t->pid);
			pd.pid = t->pid;
			pd.process_name = main ? main->name : NULL;
			tr.process = &pd;
			if (put_track(p, &tr))
				return -1;
		}
		tr = (Track)PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		tr.has_uuid = tr.has_parent_uuid = td.has_pid = td.has_tid = 1;
		tr.uuid = uuid_of(TK_THREAD, t->tid);
		tr.parent_uuid = uuid_of(TK_PROCESS, t->pid);
		td.pid = t->pid;
		td.tid = t->tid;
		td.thread_name = t->name;
		tr.thread = &td;
		if (put_track(p, &tr))
			return -1;
		if (!t->short_ns)
			continue;
		tr = (Track)PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		tr.has_uuid = tr.has_parent_uuid = cd.has_unit = 1;
		tr.uuid = uuid_of(TK_SHORT, t->tid);
		tr.parent_uuid = uuid_of(TK_THREAD, t->tid);
		tr.name = cname;
		tr.description = "the time of this thread's blocks shorter than --event-min, "
				 "which are summed, not kept in time";
		cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_TIME_NS;
		tr.counter = &cd;
		if (put_track(p, &tr))
			return -1;
	}
	return 0;
}

/* Everything interned, in one packet before the events. */
static int put_interned(struct pf *p)
{
	size_t nn = p->names.n, nf = p->fnames.n, nfr = p->nframes, ns = p->stacks.n;
	Perfetto__Protos__EventName *en = calloc(nn + 1, sizeof(*en)), **en_p = calloc(nn + 1, sizeof(*en_p));
	Perfetto__Protos__InternedString *fn = calloc(nf + 1, sizeof(*fn)), **fn_p = calloc(nf + 1, sizeof(*fn_p));
	Perfetto__Protos__Frame *fr = calloc(nfr + 1, sizeof(*fr)), **fr_p = calloc(nfr + 1, sizeof(*fr_p));
	Perfetto__Protos__Callstack *cs = calloc(ns + 1, sizeof(*cs)), **cs_p = calloc(ns + 1, sizeof(*cs_p));
	Perfetto__Protos__InternedData id = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	Packet pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	int r = -1;

	errno = ENOMEM;
	if (!en || !en_p || !fn || !fn_p || !fr || !fr_p || !cs || !cs_p)
		goto out;
	for (size_t i = 0; i < nn; i++) {
		perfetto__protos__event_name__init(&en[i]);
		en[i].has_iid = 1;
		en[i].iid = i + 1;
		en[i].name = p->names.v[i].s;
		en_p[i] = &en[i];
	}
	for (size_t i = 0; i < nf; i++) {
		perfetto__protos__interned_string__init(&fn[i]);
		fn[i].has_iid = fn[i].has_str = 1;
		fn[i].iid = i + 1;
		fn[i].str = (ProtobufCBinaryData){ p->fnames.v[i].len, (uint8_t *)p->fnames.v[i].s };
		fn_p[i] = &fn[i];
	}
	for (size_t i = 0; i < nfr; i++) {
		perfetto__protos__frame__init(&fr[i]);
		fr[i].has_iid = fr[i].has_function_name_id = 1;
		fr[i].iid = i + 1;
		fr[i].function_name_id = p->frames[i].fn + 1;
		fr[i].has_kind = p->frames[i].kind != 0;
		fr[i].kind = p->frames[i].kind;
		fr_p[i] = &fr[i];
	}
	for (size_t i = 0; i < ns; i++) {
		perfetto__protos__callstack__init(&cs[i]);
		cs[i].has_iid = 1;
		cs[i].iid = i + 1;
		cs[i].n_frame_ids = p->stacks.v[i].len / sizeof(uint64_t);
		cs[i].frame_ids = (uint64_t *)p->stacks.v[i].s;
		cs_p[i] = &cs[i];
	}
	id.n_event_names = nn;
	id.event_names = en_p;
	id.n_function_names = nf;
	id.function_names = fn_p;
	id.n_frames = nfr;
	id.frames = fr_p;
	id.n_callstacks = ns;
	id.callstacks = cs_p;
	pk.interned_data = &id;
	pk.has_sequence_flags = 1;
	pk.sequence_flags = SEQ_NEEDS;
	r = put_packet(p, &pk);
out:
	free(en);
	free(en_p);
	free(fn);
	free(fn_p);
	free(fr);
	free(fr_p);
	free(cs);
	free(cs_p);
	return r;
}

/* The task state's letter, as ps shows it. */
static const char *state_name(uint32_t st)
{
	static const char *const names[] = { "R (preempted)", "S", "D", NULL, "T", NULL, NULL,
					     NULL, "t" };

	return st < sizeof(names) / sizeof(names[0]) && names[st] ? names[st] : "other";
}

static struct thread *thread_at(struct pf *p, uint32_t tid)
{
	uintptr_t v = (uintptr_t)htab_get(&p->thread_of, tid, 0);

	return v && p->thr[v - 1].pid ? &p->thr[v - 1] : NULL;
}

/* A summed thread's counter value. */
static int put_counter(struct pf *p, const struct tev *te)
{
	Packet pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Event ev = PERFETTO__PROTOS__TRACK_EVENT__INIT;

	timed(&pk, te->ts);
	pk.track_event = &ev;
	ev.has_type = ev.has_track_uuid = ev.has_counter_value = 1;
	ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER;
	ev.track_uuid = uuid_of(TK_SHORT, p->thr[te->i].tid);
	ev.counter_value = p->thr[te->i].short_ns;
	return put_packet(p, &pk);
}

/* One event of a block. */
static int put_event(struct pf *p, const struct tev *te)
{
	Packet pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Event ev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	Arg a[4], *a_p[4];
	const struct block *b = &p->blk[te->i];
	const struct thread *w = b->ev.waker_tid ? thread_at(p, b->ev.waker_tid) : NULL;
	uint64_t flow = b->flow;
	size_t na = 0;

	timed(&pk, te->ts);
	pk.track_event = &ev;
	ev.has_type = ev.has_track_uuid = 1;
	ev.track_uuid = uuid_of(TK_THREAD, b->ev.tid);
	switch (te->rank) {
	case R_BLOCK_BEGIN:
		ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
		ev.has_name_iid = 1;
		ev.name_iid = b->name_iid;
		ev.has_callstack_iid = b->stack_iid != 0;
		ev.callstack_iid = b->stack_iid;
		for (size_t i = 0; i < 4; i++) {
			perfetto__protos__debug_annotation__init(&a[i]);
			a_p[i] = &a[i];
		}
		a[na].name = "state";
		a[na++].string_value = (char *)state_name(b->ev.state);
		a[na].name = "cpu";
		a[na].has_uint_value = 1;
		a[na++].uint_value = b->ev.cpu;
		if (b->waker) {
			a[na].name = "waker";
			a[na++].string_value = (char *)b->waker;
		} else if (b->ev.waker_tid) {
			a[na].name = "waker_tid";
			a[na].has_uint_value = 1;
			a[na++].uint_value = b->ev.waker_tid;
			if (w && w->name) {
				a[na].name = "waker";
				a[na++].string_value = w->name;
			}
		}
		ev.n_debug_annotations = na;
		ev.debug_annotations = a_p;
		break;
	case R_RUNNABLE_BEGIN:
		ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
		ev.has_name_iid = 1;
		ev.name_iid = NAME_RUNNABLE;
		if (flow && w) {
			ev.n_terminating_flow_ids = 1;
			ev.terminating_flow_ids = &flow;
		}
		break;
	case R_WAKEUP:
		ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT;
		ev.track_uuid = uuid_of(TK_THREAD, b->ev.waker_tid);
		ev.has_name_iid = 1;
		ev.name_iid = NAME_WAKEUP;
		ev.has_callstack_iid = b->waker_stack_iid != 0;
		ev.callstack_iid = b->waker_stack_iid;
		ev.n_flow_ids = 1;
		ev.flow_ids = &flow;
		break;
	case R_BLOCK_END:
		ev.has_callstack_iid = b->waker_stack_iid != 0;
		ev.callstack_iid = b->waker_stack_iid;
		/* fall through */
	default:
		ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
		break;
	}
	return put_packet(p, &pk);
}

static int by_time(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The timed events: each block's begin, end, runnable part and wakeup,
 * each summed thread's counter at the capture's start and end. */
static struct tev *timeline(struct pf *p, uint64_t t0, uint64_t t1, size_t *n)
{
	struct tev *v = calloc(p->nblk * 5 + p->nthr * 2 + 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < p->nblk; i++) {
		const struct ow_long_block *e = &p->blk[i].ev;
		const struct thread *w = e->waker_tid ? thread_at(p, e->waker_tid) : NULL;
		uint64_t wk = e->wakeup_ns < e->start_ns ? e->start_ns :
			      e->wakeup_ns > e->end_ns ? e->end_ns : e->wakeup_ns;

		if (!thread_at(p, e->tid))
			continue;
		v[k++] = (struct tev){ e->start_ns, R_BLOCK_BEGIN, i };
		v[k++] = (struct tev){ e->end_ns, R_BLOCK_END, i };
		if (!e->wakeup_ns)
			continue;
		v[k++] = (struct tev){ wk, R_RUNNABLE_BEGIN, i };
		v[k++] = (struct tev){ e->end_ns, R_RUNNABLE_END, i };
		if (p->blk[i].flow && w)
			v[k++] = (struct tev){ wk, R_WAKEUP, i };
	}
	for (size_t i = 0; i < p->nthr; i++)
		if (p->thr[i].short_ns && p->thr[i].pid) {
			v[k++] = (struct tev){ t0, R_COUNTER, i };
			v[k++] = (struct tev){ t1, R_COUNTER, i };
		}
	qsort(v, k, sizeof(*v), by_time);
	*n = k;
	return v;
}

static int write_trace(struct pf *p)
{
	uint64_t t0 = p->info->clock_start_ns, t1 = p->info->clock_end_ns;
	struct tev *v;
	size_t n;
	int r = 0;

	for (size_t i = 0; i < p->nblk; i++) {	/* (the capture's ends not known) */
		if (!t0 || p->blk[i].ev.start_ns < t0)
			t0 = p->blk[i].ev.start_ns;
		if (p->blk[i].ev.end_ns > t1)
			t1 = p->blk[i].ev.end_ns;
	}
	if (put_clock(p, t0) || put_tracks(p) || put_interned(p) ||
	    !(v = timeline(p, t0, t1 > t0 ? t1 : t0, &n)))
		return -1;
	for (size_t i = 0; i < n && !r; i++)
		r = v[i].rank == R_COUNTER ? put_counter(p, &v[i]) : put_event(p, &v[i]);
	free(v);
	return r;
}

static void pf_free(struct pf *p)
{
	frametab_free(&p->names);
	frametab_free(&p->fnames);
	frametab_free(&p->stacks);
	htab_free(&p->frame_of);
	htab_free(&p->thread_of);
	for (size_t i = 0; i < p->nthr; i++)
		free(p->thr[i].name);
	free(p->thr);
	free(p->frames);
	free(p->ids);
	free(p->blk);
	free(p->buf);
}

int export_perfetto_write(const struct ow_profile *prof, const struct ow_write_opts *o,
			  FILE *out)
{
	struct pf p = { .info = &prof->info, .out = out,
			.ns_per_count = ns_per_count(prof->info.countname) };
	uint64_t iid;
	int r;

	if (!prof->info.has_events) {
		ow_err("%s: no long blocks in time (events) in this profile: a Perfetto trace "
		       "is made of a capture's (--timeline); stack counts have none", o->what);
		return OW_EXIT_USAGE;
	}
	errno = 0;
	r = name_iid(&p, "runnable", 8, &iid) || name_iid(&p, "wakeup", 6, &iid) ||
	    ow_profile_foreach(prof, add_sample, &p) || write_trace(&p) || ferror(out) ? -1 : 0;
	if (r && !errno)
		errno = ferror(out) ? EIO : ENOMEM;
	if (r && errno != EPIPE)
		ow_err("%s: %s", o->what, ow_strerror(errno));
	pf_free(&p);
	return r ? OW_EXIT_FAIL : OW_EXIT_OK;
}
