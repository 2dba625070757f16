// SPDX-License-Identifier: Apache-2.0
/*
 * export_speedscope.c - the speedscope writer (writers.c's "speedscope"
 * row): the profile's stack set (its samples summed by names, as fg.h's
 * stack set sums them) as speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json, the schema the
 * speedscope npm package ships): one "sampled" profile whose samples are
 * stacks of indices into shared.frames (root first, as speedscope reads
 * them) with the counts as weights.  Frames are
 * deduplicated by name; every named frame of the folded line is kept (the
 * "--" and "-" markers, the waker's frames); empty names are left out, as
 * the flame graph shows nothing for them (a preempted block's missing
 * waker, the user/kernel delimiter without -d).  The unit comes from --countname
 * ("none" for a name speedscope has no unit for).
 *
 * Written as it goes, in three walks of the stack set (the frames, then
 * the samples, then the weights), json-c only making each string and
 * count's text: memory is the frame table and one sample (json-c's tree of
 * the whole document took 906 MB for 500,000 stacks of 48 MB).  The bytes
 * are those the tree gave.
 *
 * A capture with events (its long blocks in time, profile.h) also gets
 * one "evented" profile per thread that had long blocks, in nanoseconds
 * on the events' clock: each block opens its blocked stack's frames
 * (root first; the thread is the profile's name) at its start and closes
 * them at its end, with a "[runnable]" frame inside from the wakeup to
 * the end (the wait for a CPU), so that speedscope's "Time Order" view
 * shows when the thread was blocked where.  Their frames join
 * shared.frames in the first walk (a walk of the samples after the
 * stack set's); the blocks are kept (times and frame ids) to be written
 * after the summed profile.
 */
#include "writers.h"
#include "frametab.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* A long block of a thread's: its frames are ids[off, off + n). */
struct ss_block {
	uint32_t tid;
	uint32_t thread;	/* its thread name's frame id, or UINT32_MAX */
	uint64_t start, end, wakeup;
	size_t off, n;
};

struct ss {
	FILE *out;
	struct frametab names;
	struct ss_block *blk;	/* the events, for the evented profiles */
	size_t nblk, blk_cap;
	uint32_t *ids;		/* their frames' ids */
	size_t nids, ids_cap;
	uint32_t runnable;	/* "[runnable]"'s id, UINT32_MAX: not yet */
	struct fg_count total;
	size_t n;		/* samples (or weights) written */
	int err;		/* a json-c allocation failed */
};

/* Write v's JSON text (taking v); sets p->err when v is NULL. */
static void put_json(struct ss *p, json_object *v)
{
	size_t len;
	const char *t = v ? json_object_to_json_string_length(v, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE, &len) : NULL;

	if (t)
		fwrite(t, 1, len, p->out);
	else
		p->err = 1;
	json_object_put(v);
}

static void put_string(struct ss *p, const char *s, size_t len)
{
	put_json(p, json_object_new_string_len(s, len));
}

static void put_count(struct ss *p, struct fg_count c)
{
	int64_t v;

	if (fg_count_int64(c, &v))
		fprintf(p->out, "%" PRId64, v);
	else
		put_json(p, json_object_new_double(fg_count_double(c)));
}

/* The id of frame name s, written to shared.frames when new. */
static int frame_id(struct ss *p, const char *s, size_t len, uint32_t *id)
{
	size_t had = p->names.n;

	if (frametab_id(&p->names, s, len, id))
		return -1;
	if (*id != had)
		return 0;
	fputs(*id ? ",{\"name\":" : "{\"name\":", p->out);
	put_string(p, s, len);
	fputc('}', p->out);
	return 0;
}

/* Walk 1: each new named frame into the table and shared.frames. */
static int frames_of(void *ctx, const char *const *frames, const size_t *lens,
		     size_t n, struct fg_count count)
{
	struct ss *p = ctx;
	uint32_t id;

	for (size_t i = 0; i < n; i++)
		if (lens[i] && frame_id(p, frames[i], lens[i], &id))
			return -1;
	p->total = fg_count_add(p->total, count);
	return p->err || ferror(p->out) ? -1 : 0;
}

/* Walk 1 of the samples with events: their blocked stacks' frames
 * (before the first "--"), and the blocks kept. */
static int blocks_of(void *ctx, const struct ow_sample *s)
{
	struct ss *p = ctx;
	size_t off = p->nids;
	uint32_t th = UINT32_MAX, id;

	for (size_t i = 0; s->nevents && i < s->nframes; i++) {
		const struct ow_frame *f = &s->frames[i];

		if (f->kind == OW_PF_DIVIDER)
			break;
		if (!f->len || f->kind == OW_PF_DELIM)
			continue;
		if (frame_id(p, f->name, f->len, &id))
			return -1;
		if (f->kind == OW_PF_THREAD) {
			th = id;
			continue;
		}
		if (ow_grow(&p->ids, &p->ids_cap, p->nids, sizeof(*p->ids)))
			return -1;
		p->ids[p->nids++] = id;
	}
	for (size_t i = 0; i < s->nevents; i++) {
		const struct ow_long_block *e = &s->events[i];

		if (ow_grow(&p->blk, &p->blk_cap, p->nblk, sizeof(*p->blk)) ||
		    (e->wakeup_ns && p->runnable == UINT32_MAX &&
		     frame_id(p, "[runnable]", 10, &p->runnable)))
			return -1;
		p->blk[p->nblk++] = (struct ss_block){ e->tid, th, e->start_ns, e->end_ns,
						       e->wakeup_ns, off, p->nids - off };
	}
	return p->err || ferror(p->out) ? -1 : 0;
}

/* Walk 2: a sample, its named frames' indices, root first. */
static int sample_of(void *ctx, const char *const *frames, const size_t *lens,
		     size_t n, struct fg_count count)
{
	struct ss *p = ctx;
	const char *sep = "";
	uint32_t id;

	fputs(p->n++ ? ",[" : "[", p->out);
	for (size_t i = 0; i < n; i++) {
		if (!lens[i])
			continue;
		if (frametab_id(&p->names, frames[i], lens[i], &id))
			return -1;
		fprintf(p->out, "%s%" PRIu32, sep, id);
		sep = ",";
	}
	fputc(']', p->out);
	return ferror(p->out) ? -1 : 0;
}

/* Walk 3: a sample's weight. */
static int weight_of(void *ctx, const char *const *frames, const size_t *lens,
		     size_t n, struct fg_count count)
{
	struct ss *p = ctx;

	if (p->n++)
		fputc(',', p->out);
	put_count(p, count);
	return p->err || ferror(p->out) ? -1 : 0;
}

static int by_thread_time(const void *a, const void *b)
{
	const struct ss_block *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void put_event(struct ss *p, char type, uint32_t frame, uint64_t at, bool *first)
{
	fprintf(p->out, "%s{\"type\":\"%c\",\"frame\":%" PRIu32 ",\"at\":%" PRIu64 "}",
		*first ? "" : ",", type, frame, at);
	*first = false;
}

/* The evented profiles: one per thread, its blocks in time. */
static void put_evented(struct ss *p, const struct export_info *info)
{
	uint64_t t0 = info->clock_start_ns, t1 = info->clock_end_ns;

	for (size_t i = 0; i < p->nblk; i++) {
		if (!t0 || p->blk[i].start < t0)
			t0 = p->blk[i].start;
		if (p->blk[i].end > t1)
			t1 = p->blk[i].end;
	}
	if (p->nblk)	/* (qsort's array may not be NULL) */
		qsort(p->blk, p->nblk, sizeof(*p->blk), by_thread_time);
	for (size_t i = 0, j; i < p->nblk; i = j) {
		const struct ss_block *b = &p->blk[i];
		uint64_t at = 0;
		bool first = true;
		char name[300];
		int len;

		len = snprintf(name, sizeof(name), "%s (tid %" PRIu32 ")",
			       b->thread == UINT32_MAX ? "thread" : p->names.v[b->thread].s, b->tid);
		fputs(",{\"type\":\"evented\",\"name\":", p->out);
		put_string(p, name, len < (int)sizeof(name) ? (size_t)len : sizeof(name) - 1);
		fprintf(p->out, ",\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64
			",\"endValue\":%" PRIu64 ",\"events\":[", t0, t1);
		for (j = i; j < p->nblk && p->blk[j].tid == b->tid; j++) {
			const struct ss_block *e = &p->blk[j];
			uint64_t end = e->end > at ? e->end : at;	/* (never overlapping) */

			at = e->start > at ? e->start : at;
			for (size_t k = 0; k < e->n; k++)
				put_event(p, 'O', p->ids[e->off + k], at, &first);
			if (e->wakeup > at && e->wakeup < end) {
				put_event(p, 'O', p->runnable, e->wakeup, &first);
				put_event(p, 'C', p->runnable, end, &first);
			}
			for (size_t k = e->n; k-- > 0;)
				put_event(p, 'C', p->ids[e->off + k], end, &first);
			at = end;
		}
		fputs("]}", p->out);
	}
}

static int export_speedscope(struct fg_stacks *s, const struct ow_profile *prof, FILE *out,
			     const char *what)
{
	const struct export_info *info = &prof->info;
	struct export_unit u = export_unit_of(info->countname);
	const char *name = info->name ? info->name : "offwake-svg";
	struct ss p = { .out = out, .total = fg_count_of(0), .runnable = UINT32_MAX };
	int r = -1;

	errno = 0;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":", out);
	put_string(&p, OW_PROG " " OFFWAKE_VERSION, strlen(OW_PROG " " OFFWAKE_VERSION));
	fputs(",\"name\":", out);
	put_string(&p, name, strlen(name));
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", out);
	if (p.err || fg_stacks_foreach(s, frames_of, &p) ||
	    (info->has_events && ow_profile_foreach(prof, blocks_of, &p)))
		goto out;
	fputs("]},\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
	put_string(&p, name, strlen(name));
	fputs(",\"unit\":", out);
	put_string(&p, u.speedscope, strlen(u.speedscope));
	fputs(",\"startValue\":0,\"endValue\":", out);
	put_count(&p, p.total);
	fputs(",\"samples\":[", out);
	if (p.err || fg_stacks_foreach(s, sample_of, &p))
		goto out;
	fputs("],\"weights\":[", out);
	p.n = 0;
	if (fg_stacks_foreach(s, weight_of, &p))
		goto out;
	fputs("]}", out);
	put_evented(&p, info);
	fputs("]}\n", out);
	if (!p.err && !ferror(out))
		r = 0;
out:
	if (r && !errno)
		errno = p.err ? ENOMEM : EIO;
	if (r && errno != EPIPE)
		ow_err("%s: %s", what, ow_strerror(errno));
	frametab_free(&p.names);
	free(p.blk);
	free(p.ids);
	return r;
}

int export_speedscope_write(const struct ow_profile *p, const struct ow_write_opts *o,
			    FILE *out)
{
	struct fg_stacks *made, *s = ow_profile_stacks(p, o->what, o->fg, &made);
	int r = s ? export_speedscope(s, p, out, o->what) : -1;

	fg_stacks_free(made);
	return r ? OW_EXIT_FAIL : OW_EXIT_OK;
}
