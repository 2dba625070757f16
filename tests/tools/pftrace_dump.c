// SPDX-License-Identifier: Apache-2.0
/*
 * pftrace_dump.c - a Perfetto trace (what `offwake-svg --format=perfetto`
 * writes) decoded with the code protoc-c makes from our
 * src/export/perfetto_trace.proto, printed as lines a shell test asserts
 * on (tests/t_timeline_trace.sh).  One record a line, fields split by one
 * space, a name (which may hold spaces) always last:
 *
 *   process UUID PID NAME              a process track ("-": no name)
 *   thread UUID PID TID NAME           a thread track
 *   counter UUID TID NAME              a counter track under thread TID's
 *   stack IID F1;F2;...                an interned stack, root first, its
 *                                      kernel frames marked "_[k]" (as
 *                                      perf's folded stacks)
 *   slice TID BEGIN_NS DUR_NS DEPTH STACK END_STACK NAME
 *                                      a slice on thread TID's track, at
 *                                      its end; STACK / END_STACK: its
 *                                      begin's and end's callstack iids (0:
 *                                      none); DEPTH 0 is outermost
 *   arg KEY VALUE                      an annotation of the slice above
 *   instant TID AT_NS STACK NAME       an instant event
 *   value TID AT_NS VALUE              a counter's value (TID: the thread
 *                                      whose counter it is)
 *   flow ID FROM_TID FROM_NS -> TO_TID TO_NS
 *                                      a flow, at the event ending it
 *
 * Times are the packets' timestamps (ns).  The tracks and stacks come
 * first, then the events in the file's order.  Bad input (not a trace, no
 * packets, an event on a track no descriptor declares, an iid not interned,
 * a slice's end without its begin, a slice or flow left open, a flow ended
 * that never started): one line "pftrace_dump: FILE: why" on stderr, exit
 * status 1 (2: usage).
 * Usage: pftrace_dump FILE   ("-": standard input)
 */
#include "perfetto_trace.pb-c.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent Event;
typedef Perfetto__Protos__TrackDescriptor Track;
typedef Perfetto__Protos__InternedData Interned;

#define MAX_DEPTH 16

static const char *file;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pftrace_dump: %s: ", file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A track: its descriptor, the thread it belongs to and its open slices. */
struct track {
	const Track *d;
	int64_t tid;
	struct open { uint64_t ts; const Event *begin; } open[MAX_DEPTH];
	int nopen;
};

static struct track *tracks;
static size_t ntracks;
static const Interned **interned;	/* every packet's interned data */
static size_t ninterned;

struct flow { uint64_t id, ts; int64_t tid; bool done; };
static struct flow *flows;
static size_t nflows;

/* v, of n items, with room for one more (made twice n when n is 0 or a
 * power of 2) */
static void *grow(void *v, size_t n, size_t size)
{
	if (n & (n - 1))
		return v;
	v = realloc(v, (n ? n * 2 : 1) * size);
	if (!v)
		die("out of memory");
	return v;
}

static struct track *track_of(uint64_t uuid)
{
	for (size_t i = 0; i < ntracks; i++)
		if (tracks[i].d->uuid == uuid)
			return &tracks[i];
	return NULL;
}

/* The thread a track belongs to: its own, or its parent's (a counter). */
static int64_t tid_of(const Track *d)
{
	const struct track *p;

	if (d->thread)
		return d->thread->tid;
	p = d->has_parent_uuid ? track_of(d->parent_uuid) : NULL;
	return p && p->d->thread ? p->d->thread->tid : -1;
}

#define FIND(field, nfield, type)						\
static const type *find_##field(uint64_t iid)					\
{										\
	for (size_t k = 0; k < ninterned; k++)					\
		for (size_t i = 0; i < interned[k]->nfield; i++)		\
			if (interned[k]->field[i]->iid == iid)			\
				return interned[k]->field[i];			\
	return NULL;								\
}
FIND(event_names, n_event_names, Perfetto__Protos__EventName)
FIND(function_names, n_function_names, Perfetto__Protos__InternedString)
FIND(frames, n_frames, Perfetto__Protos__Frame)
FIND(callstacks, n_callstacks, Perfetto__Protos__Callstack)

static const char *event_name(const Event *ev)
{
	const Perfetto__Protos__EventName *n;

	if (ev->name)
		return ev->name;
	if (!ev->has_name_iid)
		return "-";
	if (!(n = find_event_names(ev->name_iid)) || !n->name)
		die("event name iid %" PRIu64 " is not interned", ev->name_iid);
	return n->name;
}

static uint64_t stack_of(const Event *ev)
{
	if (!ev || !ev->has_callstack_iid)
		return 0;
	if (!find_callstacks(ev->callstack_iid))
		die("callstack iid %" PRIu64 " is not interned", ev->callstack_iid);
	return ev->callstack_iid;
}

static void print_stacks(void)
{
	for (size_t k = 0; k < ninterned; k++)
		for (size_t i = 0; i < interned[k]->n_callstacks; i++) {
			const Perfetto__Protos__Callstack *cs = interned[k]->callstacks[i];

			printf("stack %" PRIu64 " ", cs->iid);
			for (size_t j = 0; j < cs->n_frame_ids; j++) {
				const Perfetto__Protos__Frame *f = find_frames(cs->frame_ids[j]);
				const Perfetto__Protos__InternedString *s =
					f ? find_function_names(f->function_name_id) : NULL;

				if (!s)
					die("stack %" PRIu64 ": frame %" PRIu64 " or its name is "
					    "not interned", cs->iid, cs->frame_ids[j]);
				printf("%s%.*s%s", j ? ";" : "", (int)s->str.len,
				       (const char *)s->str.data,
				       f->kind == PERFETTO__PROTOS__FRAME__KIND__KIND_KERNEL ? "_[k]" : "");
			}
			putchar('\n');
		}
}

static void print_track(const Track *d)
{
	if (d->process)
		printf("process %" PRIu64 " %d %s\n", d->uuid, d->process->pid,
		       d->process->process_name ? d->process->process_name : "-");
	else if (d->thread)
		printf("thread %" PRIu64 " %d %" PRId64 " %s\n", d->uuid, d->thread->pid,
		       d->thread->tid, d->thread->thread_name ? d->thread->thread_name : "-");
	else
		printf("counter %" PRIu64 " %" PRId64 " %s\n", d->uuid, tid_of(d),
		       d->name ? d->name : "-");
}

static void print_args(const Event *ev)
{
	for (size_t i = 0; i < ev->n_debug_annotations; i++) {
		const Perfetto__Protos__DebugAnnotation *a = ev->debug_annotations[i];

		if (a->string_value)
			printf("arg %s %s\n", a->name ? a->name : "-", a->string_value);
		else if (a->has_int_value)
			printf("arg %s %" PRId64 "\n", a->name ? a->name : "-", a->int_value);
		else
			printf("arg %s %" PRIu64 "\n", a->name ? a->name : "-", a->uint_value);
	}
}

/* The flows an event starts, and those it ends. */
static void flows_at(const Event *ev, int64_t tid, uint64_t ts)
{
	for (size_t i = 0; i < ev->n_flow_ids; i++) {
		flows = grow(flows, nflows, sizeof(*flows));
		flows[nflows++] = (struct flow){ ev->flow_ids[i], ts, tid, false };
	}
	for (size_t i = 0; i < ev->n_terminating_flow_ids; i++) {
		uint64_t id = ev->terminating_flow_ids[i];
		struct flow *f = NULL;

		for (size_t k = nflows; k-- > 0 && !f;)
			if (flows[k].id == id && !flows[k].done)
				f = &flows[k];
		if (!f)
			die("flow %" PRIu64 " ends at %" PRIu64 " but never started", id, ts);
		f->done = true;
		printf("flow %" PRIu64 " %" PRId64 " %" PRIu64 " -> %" PRId64 " %" PRIu64 "\n",
		       id, f->tid, f->ts, tid, ts);
	}
}

static void event(const Packet *pk)
{
	const Event *ev = pk->track_event;
	struct track *t = track_of(ev->track_uuid);
	uint64_t ts = pk->timestamp;

	if (!t)
		die("an event at %" PRIu64 " on track %" PRIu64 ", which no descriptor declares",
		    ts, ev->track_uuid);
	switch (ev->type) {
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN:
		if (t->nopen == MAX_DEPTH)
			die("slices nested deeper than %d at %" PRIu64, MAX_DEPTH, ts);
		event_name(ev);
		stack_of(ev);
		t->open[t->nopen++] = (struct open){ ts, ev };
		break;
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END: {
		const struct open *o;

		if (!t->nopen)
			die("a slice ends at %" PRIu64 " on thread %" PRId64 "'s track, none begun",
			    ts, t->tid);
		o = &t->open[--t->nopen];
		if (ts < o->ts)
			die("a slice ends at %" PRIu64 " before its begin %" PRIu64, ts, o->ts);
		printf("slice %" PRId64 " %" PRIu64 " %" PRIu64 " %d %" PRIu64 " %" PRIu64 " %s\n",
		       t->tid, o->ts, ts - o->ts, t->nopen, stack_of(o->begin), stack_of(ev),
		       event_name(o->begin));
		print_args(o->begin);
		flows_at(o->begin, t->tid, o->ts);
		break;
	}
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT:
		printf("instant %" PRId64 " %" PRIu64 " %" PRIu64 " %s\n", t->tid, ts, stack_of(ev),
		       event_name(ev));
		print_args(ev);
		break;
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER:
		printf("value %" PRId64 " %" PRIu64 " %" PRId64 "\n", t->tid, ts, ev->counter_value);
		break;
	default:
		die("an event of type %d at %" PRIu64, ev->type, ts);
	}
	if (ev->type != PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN)
		flows_at(ev, t->tid, ts);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	if (!f)
		die("%s", strerror(errno));
	*len = 0;
	do {
		if (*len == cap && !(buf = realloc(buf, cap = cap ? cap * 2 : 65536)))
			die("out of memory");
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	if (ferror(f))
		die("%s", strerror(errno));
	if (f != stdin)
		fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	Perfetto__Protos__Trace *t;
	uint8_t *buf;
	size_t len;

	if (argc != 2) {
		fprintf(stderr, "usage: pftrace_dump FILE   (\"-\": standard input)\n");
		return 2;
	}
	file = argv[1];
	buf = slurp(file, &len);
	if (!(t = perfetto__protos__trace__unpack(NULL, len, buf)))
		die("not a Perfetto trace (%zu bytes that do not decode as perfetto.protos.Trace)",
		    len);
	if (!t->n_packet)
		die("no packets in the trace");
	for (size_t i = 0; i < t->n_packet; i++) {
		const Packet *pk = t->packet[i];

		if (pk->interned_data) {
			interned = grow(interned, ninterned, sizeof(*interned));
			interned[ninterned++] = pk->interned_data;
		}
		if (pk->track_descriptor) {
			if (!pk->track_descriptor->has_uuid || track_of(pk->track_descriptor->uuid))
				die("a track descriptor without a uuid, or twice the same");
			tracks = grow(tracks, ntracks, sizeof(*tracks));
			tracks[ntracks++] = (struct track){ .d = pk->track_descriptor };
		}
	}
	for (size_t i = 0; i < ntracks; i++) {
		tracks[i].tid = tid_of(tracks[i].d);
		print_track(tracks[i].d);
	}
	print_stacks();
	for (size_t i = 0; i < t->n_packet; i++)
		if (t->packet[i]->track_event)
			event(t->packet[i]);
	for (size_t i = 0; i < ntracks; i++)
		if (tracks[i].nopen)
			die("a slice on thread %" PRId64 "'s track begun at %" PRIu64 " never ends",
			    tracks[i].tid, tracks[i].open[tracks[i].nopen - 1].ts);
	for (size_t i = 0; i < nflows; i++)
		if (!flows[i].done)
			die("flow %" PRIu64 " from %" PRIu64 " never ends", flows[i].id, flows[i].ts);
	if (fflush(stdout) || ferror(stdout))
		die("standard output: %s", strerror(errno));
	perfetto__protos__trace__free_unpacked(t, NULL);
	free(buf);
	return 0;
}
