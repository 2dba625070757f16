// SPDX-License-Identifier: Apache-2.0
/*
 * t_export_events.c - the writers of a capture's long blocks in time, the
 * Perfetto writer (src/export/export_perfetto.c) and speedscope's evented
 * profiles (export_speedscope.c), on a profile made in memory: a worker thread blocked twice 80 ms in a pipe
 * read, each time woken by the producer thread (5 ms runnable after the
 * wakeup), plus 1 ms of short blocks only summed; the producer and the
 * main thread with summed blocks only.  The trace is decoded with the code
 * protoc-c made from our perfetto_trace.proto and its tracks, slices,
 * flows, interned names and stacks, and summed counters checked; then a
 * profile without events is refused.  The speedscope file of the same
 * profile, read with json-c, has the worker's evented profile: each
 * block's stack opened at its start and closed at its end, "[runnable]"
 * inside from the wakeup.
 */
#include "check.h"
#include "export/writers.h"
#include "common/util.h"
#include "perfetto_trace.pb-c.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

int export_perfetto_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out);
int export_speedscope_write(const struct ow_profile *p, const struct ow_write_opts *o,
			    FILE *out);

#define MS 1000000ull
#define T0 (5000 * MS)		/* the capture's start on CLOCK_MONOTONIC */
enum { PID = 100, WORKER = 101, PRODUCER = 102 };

#define F(k, s) { s, sizeof(s) - 1, k, NULL, 0, 0, NULL }
#define TH(s, tid) { s, sizeof(s) - 1, OW_PF_THREAD, NULL, 0, tid, NULL }

static const struct ow_frame worker_frames[] = {
	TH("worker", WORKER), F(OW_PF_NATIVE, "main"), F(OW_PF_NATIVE, "worker_loop"),
	F(OW_PF_NATIVE, "pong_wait"), F(OW_PF_DELIM, ""), F(OW_PF_KERNEL, "do_syscall_64"),
	F(OW_PF_KERNEL, "anon_pipe_read"), F(OW_PF_KERNEL, "schedule"),
	F(OW_PF_KERNEL, "__schedule"), F(OW_PF_DIVIDER, "--"),
	F(OW_PF_KERNEL, "autoremove_wake_function"), F(OW_PF_KERNEL, "anon_pipe_write"),
	F(OW_PF_DELIM, ""), F(OW_PF_NATIVE, "ping_write"), F(OW_PF_NATIVE, "main"),
	TH("producer", PRODUCER),
};
static const struct ow_frame producer_frames[] = {
	TH("producer", PRODUCER), F(OW_PF_NATIVE, "main"), F(OW_PF_KERNEL, "futex_wait"),
	F(OW_PF_KERNEL, "schedule"), F(OW_PF_DIVIDER, "--"),
};
static const struct ow_frame main_frames[] = {
	TH("app", PID), F(OW_PF_NATIVE, "main"), F(OW_PF_KERNEL, "do_nanosleep"),
};
/* Two 80 ms waits, woken 75 ms in. */
static const struct ow_long_block worker_events[] = {
	{ T0 + 100 * MS, T0 + 180 * MS, T0 + 175 * MS, WORKER, PID, PRODUCER, PID, 1, 1 },
	{ T0 + 600 * MS, T0 + 680 * MS, T0 + 675 * MS, WORKER, PID, PRODUCER, PID, 0, 1 },
};
static const struct export_label pid_label[] = { { "pid", NULL, PID } };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int samples(const struct ow_profile *p, ow_sample_fn fn, void *ctx)
{
	struct ow_sample s[] = {
		{ worker_frames, N(worker_frames), NULL, 0, fg_count_of(161000), 0,
		  worker_events, N(worker_events) },
		{ producer_frames, N(producer_frames), pid_label, 1, fg_count_of(3000), 0, NULL, 0 },
		{ main_frames, N(main_frames), pid_label, 1, fg_count_of(2000), 0, NULL, 0 },
	};
	int r = 0;

	for (size_t i = 0; i < N(s) && !r; i++)
		r = fn(ctx, &s[i]);
	return r;
}

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent Event;

/* The trace of profile p: its bytes' length in *len, decoded (or NULL). */
static Perfetto__Protos__Trace *write_trace(const struct ow_profile *p, int *status,
					    size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	Perfetto__Protos__Trace *t;

	*status = export_perfetto_write(p, &(struct ow_write_opts){ NULL, "t_export_events", false }, f);
	fclose(f);
	t = perfetto__protos__trace__unpack(NULL, *len, (uint8_t *)buf);
	free(buf);
	return t;
}

static const Perfetto__Protos__InternedData *interned;

static const char *event_name(uint64_t iid)
{
	for (size_t i = 0; interned && i < interned->n_event_names; i++)
		if (interned->event_names[i]->iid == iid)
			return interned->event_names[i]->name;
	return "?";
}

/* Stack iid's frames as "name:kind;..." root first. */
static void stack_text(uint64_t iid, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; interned && i < interned->n_callstacks; i++) {
		const Perfetto__Protos__Callstack *cs = interned->callstacks[i];

		if (cs->iid != iid)
			continue;
		for (size_t j = 0; j < cs->n_frame_ids; j++)
			for (size_t k = 0; k < interned->n_frames; k++) {
				const Perfetto__Protos__Frame *fr = interned->frames[k];

				if (fr->iid != cs->frame_ids[j])
					continue;
				for (size_t m = 0; m < interned->n_function_names; m++)
					if (interned->function_names[m]->iid == fr->function_name_id)
						n += snprintf(buf + n, len - n, "%s%.*s:%d",
							      j ? ";" : "",
							      (int)interned->function_names[m]->str.len,
							      interned->function_names[m]->str.data,
							      fr->kind);
			}
	}
}

/* A slice made of a begin and its end on one track. */
struct slice {
	const char *name;
	uint64_t ts, dur;
	int depth;
	const Event *begin, *end;
};

/* The slices of track uuid, in order of their begins. */
static size_t slices_of(const Perfetto__Protos__Trace *t, uint64_t uuid, struct slice *s,
			size_t max)
{
	size_t open[8], nopen = 0, n = 0;

	for (size_t i = 0; i < t->n_packet; i++) {
		const Packet *pk = t->packet[i];
		const Event *ev = pk->track_event;

		if (!ev || ev->track_uuid != uuid)
			continue;
		if (ev->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN && n < max &&
		    nopen < 8) {
			s[n] = (struct slice){ event_name(ev->name_iid), pk->timestamp, 0,
					       (int)nopen, ev, NULL };
			open[nopen++] = n++;
		} else if (ev->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END &&
			   nopen) {
			struct slice *o = &s[open[--nopen]];

			o->dur = pk->timestamp - o->ts;
			o->end = ev;
		}
	}
	return n;
}

static void check_tracks(const Perfetto__Protos__Trace *t)
{
	int procs = 0, threads = 0, named = 0, parented = 0;
	static const struct { uint32_t tid; const char *name; } want[] = {
		{ PID, "app" }, { WORKER, "worker" }, { PRODUCER, "producer" },
	};
	uint64_t proc_uuid = 0;

	for (size_t i = 0; i < t->n_packet; i++) {
		const Perfetto__Protos__TrackDescriptor *d = t->packet[i]->track_descriptor;

		if (d && d->process) {
			procs++;
			proc_uuid = d->uuid;
			named += d->process->pid == PID && d->process->process_name &&
				 !strcmp(d->process->process_name, "app");
		}
	}
	for (size_t i = 0; i < t->n_packet; i++) {
		const Perfetto__Protos__TrackDescriptor *d = t->packet[i]->track_descriptor;

		if (!d || !d->thread)
			continue;
		threads++;
		parented += d->parent_uuid == proc_uuid && d->thread->pid == PID;
		for (size_t k = 0; k < N(want); k++)
			named += d->thread->tid == want[k].tid && d->thread->thread_name &&
				 !strcmp(d->thread->thread_name, want[k].name);
	}
	check(procs == 1 && threads == 3, "perfetto_tracks",
	      "%d process and %d thread tracks, want 1 and 3", procs, threads);
	check(named == 4 && parented == 3, "perfetto_track_names",
	      "%d of 4 tracks named right, %d of 3 threads under the process", named, parented);
}

/* The thread track's uuid of tid, 0: none. */
static uint64_t thread_uuid(const Perfetto__Protos__Trace *t, uint32_t tid)
{
	for (size_t i = 0; i < t->n_packet; i++) {
		const Perfetto__Protos__TrackDescriptor *d = t->packet[i]->track_descriptor;

		if (d && d->thread && d->thread->tid == tid)
			return d->uuid;
	}
	return 0;
}

static void check_sequence(const Perfetto__Protos__Trace *t)
{
	int bad = 0, events = 0;
	const Perfetto__Protos__ClockSnapshot *cs = t->n_packet ? t->packet[0]->clock_snapshot : NULL;

	for (size_t i = 0; i < t->n_packet; i++) {
		const Packet *pk = t->packet[i];

		bad += pk->trusted_packet_sequence_id != 1;
		if (pk->interned_data)
			interned = pk->interned_data;
		if (!pk->track_event)
			continue;
		events++;
		bad += !interned || pk->timestamp_clock_id != 3 || pk->sequence_flags != 2;
	}
	check(cs && cs->primary_trace_clock == 3 && cs->n_clocks == 1 &&
	      cs->clocks[0]->clock_id == 3 && cs->clocks[0]->timestamp == T0 &&
	      t->packet[0]->sequence_flags == 1 && !bad && events,
	      "perfetto_sequence", "clock snapshot %p, %d packets off the sequence's rules", cs, bad);
}

static void check_slices(const Perfetto__Protos__Trace *t)
{
	struct slice s[8], ps[8];
	size_t n = slices_of(t, thread_uuid(t, WORKER), s, 8), pn;
	char stk[512], wstk[512];
	int ok = n == 4;

	for (size_t i = 0; ok && i < 2; i++) {
		const struct slice *b = &s[2 * i], *r = &s[2 * i + 1];

		ok = !strcmp(b->name, "pong_wait -> anon_pipe_read") && b->depth == 0 &&
		     b->ts == worker_events[i].start_ns && b->dur == 80 * MS &&
		     !strcmp(r->name, "runnable") && r->depth == 1 &&
		     r->ts == worker_events[i].wakeup_ns && r->ts + r->dur == b->ts + b->dur;
	}
	check(ok, "perfetto_slices", "%zu slices on the worker's track (want 2 blocks of 80 ms, "
	      "each with 5 ms runnable at its end)", n);
	check(ok && s[1].dur == 5 * MS && s[3].dur == 5 * MS, "perfetto_runnable",
	      "runnable parts of %" PRIu64 " and %" PRIu64 " ns", n > 1 ? s[1].dur : 0,
	      n > 3 ? s[3].dur : 0);
	if (!n || !s[0].end)
		return;
	stack_text(s[0].begin->callstack_iid, stk, sizeof(stk));
	stack_text(s[0].end->callstack_iid, wstk, sizeof(wstk));
	check(!strcmp(stk, "main:1;worker_loop:1;pong_wait:1;do_syscall_64:2;anon_pipe_read:2;"
		      "schedule:2;__schedule:2"), "perfetto_blocked_stack", "%s", stk);
	check(!strcmp(wstk, "main:1;ping_write:1;anon_pipe_write:2;autoremove_wake_function:2"),
	      "perfetto_waker_stack", "the end's %s", wstk);
	/* the flows: the producer's wakeup instant to the runnable slice */
	pn = 0;
	ok = n == 4;
	for (size_t i = 0; i < t->n_packet; i++) {
		const Packet *pk = t->packet[i];
		const Event *ev = pk->track_event;

		if (!ev || ev->type != PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT)
			continue;
		if (pn < 8)
			ps[pn] = (struct slice){ event_name(ev->name_iid), pk->timestamp, 0, 0, ev, NULL };
		pn++;
		ok &= ev->track_uuid == thread_uuid(t, PRODUCER);
	}
	for (size_t i = 0; ok && i < 2; i++) {
		const Event *in = ps[i].begin, *rb = s[2 * i + 1].begin;

		stack_text(in->callstack_iid, stk, sizeof(stk));
		ok = pn == 2 && !strcmp(ps[i].name, "wakeup") && ps[i].ts == worker_events[i].wakeup_ns &&
		     in->n_flow_ids == 1 && rb->n_terminating_flow_ids == 1 &&
		     in->flow_ids[0] == rb->terminating_flow_ids[0] && !strcmp(stk, wstk) &&
		     (!i || in->flow_ids[0] != ps[0].begin->flow_ids[0]);
	}
	check(ok, "perfetto_flows", "%zu wakeup instants on the producer's track, want 2 each "
	      "flowing to its runnable slice", pn);
}

/* The summed counter value of tid's track. */
static int64_t summed(const Perfetto__Protos__Trace *t, uint32_t tid, int *points)
{
	uint64_t uuid = 0;
	int64_t v = -1;

	for (size_t i = 0; i < t->n_packet; i++) {
		const Perfetto__Protos__TrackDescriptor *d = t->packet[i]->track_descriptor;

		if (d && d->counter && d->parent_uuid == thread_uuid(t, tid))
			uuid = d->uuid;
	}
	*points = 0;
	for (size_t i = 0; uuid && i < t->n_packet; i++) {
		const Event *ev = t->packet[i]->track_event;

		if (ev && ev->track_uuid == uuid &&
		    ev->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER) {
			v = ev->counter_value;
			(*points)++;
		}
	}
	return v;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

/* The worker's evented profile: "O:name@ms-from-T0,..." of its events. */
static void check_speedscope(const struct ow_profile *p)
{
	char *buf = NULL, ev[2048];
	size_t len, n = 0;
	FILE *f = open_memstream(&buf, &len);
	int st = export_speedscope_write(p, &(struct ow_write_opts){ NULL, "t_export_events", false },
					 f);
	json_object *doc, *frames, *profs, *w = NULL;
	size_t nevented = 0;

	fclose(f);
	doc = json_tokener_parse(buf);
	free(buf);
	frames = get(get(doc, "shared"), "frames");
	profs = get(doc, "profiles");
	for (size_t i = 0; profs && i < json_object_array_length(profs); i++) {
		json_object *pr = json_object_array_get_idx(profs, i);

		if (strcmp(json_object_get_string(get(pr, "type")), "evented"))
			continue;
		nevented++;
		if (!strcmp(json_object_get_string(get(pr, "name")), "worker (tid 101)"))
			w = pr;
	}
	ev[0] = 0;
	for (size_t i = 0; w && i < json_object_array_length(get(w, "events")); i++) {
		json_object *e = json_object_array_get_idx(get(w, "events"), i);
		json_object *fr = json_object_array_get_idx(frames, json_object_get_int(get(e, "frame")));

		if (n < sizeof(ev))
			n += snprintf(ev + n, sizeof(ev) - n, "%s%s:%s@%" PRIu64, i ? "," : "",
				      json_object_get_string(get(e, "type")),
				      json_object_get_string(get(fr, "name")),
				      (uint64_t)(((uint64_t)json_object_get_int64(get(e, "at")) - T0) / MS));
	}
	check(st == OW_EXIT_OK && doc && nevented == 1 && w &&
	      !strcmp(json_object_get_string(get(w, "unit")), "nanoseconds") &&
	      (uint64_t)json_object_get_int64(get(w, "startValue")) == T0 &&
	      !strcmp(ev, "O:main@100,O:worker_loop@100,O:pong_wait@100,O:do_syscall_64@100,"
		      "O:anon_pipe_read@100,O:schedule@100,O:__schedule@100,O:[runnable]@175,"
		      "C:[runnable]@180,C:__schedule@180,C:schedule@180,C:anon_pipe_read@180,"
		      "C:do_syscall_64@180,C:pong_wait@180,C:worker_loop@180,C:main@180,"
		      "O:main@600,O:worker_loop@600,O:pong_wait@600,O:do_syscall_64@600,"
		      "O:anon_pipe_read@600,O:schedule@600,O:__schedule@600,O:[runnable]@675,"
		      "C:[runnable]@680,C:__schedule@680,C:schedule@680,C:anon_pipe_read@680,"
		      "C:do_syscall_64@680,C:pong_wait@680,C:worker_loop@680,C:main@680"),
	      "speedscope_evented", "status %d, %zu evented profiles, the worker's: %.300s", st,
	      nevented, ev);
	json_object_put(doc);
}

int main(void)
{
	struct ow_profile p = {
		.info = { .has_events = true, .clock_start_ns = T0, .clock_end_ns = T0 + 1000 * MS,
			  .event_min_ns = 1 * MS },
		.foreach = samples,
	};
	Perfetto__Protos__Trace *t;
	int st, pw, pp;
	size_t len;

	t = write_trace(&p, &st, &len);
	check(st == OW_EXIT_OK && t, "perfetto_decodes", "status %d, %zu bytes, decoded %p", st,
	      len, (void *)t);
	if (t) {
		int64_t w = summed(t, WORKER, &pw), pr = summed(t, PRODUCER, &pp);

		check_sequence(t);
		check_tracks(t);
		check_slices(t);
		check(w == (int64_t)(1 * MS) && pr == (int64_t)(3 * MS) && pw == 2 && pp == 2,
		      "perfetto_summed", "worker's %" PRId64 " ns (%d points), producer's %" PRId64
		      " ns (%d)", w, pw, pr, pp);
		perfetto__protos__trace__free_unpacked(t, NULL);
	}
	check_speedscope(&p);
	p.info.has_events = false;
	t = write_trace(&p, &st, &len);
	check(st != OW_EXIT_OK && !len, "perfetto_no_events", "status %d, %zu bytes", st, len);
	if (t)
		perfetto__protos__trace__free_unpacked(t, NULL);
	return failed;
}
