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

struct ss {
	FILE *out;
	struct frametab names;
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

/* Walk 1: each new named frame into the table and shared.frames. */
static int frames_of(void *ctx, const char *const *frames, const size_t *lens,
		     size_t n, struct fg_count count)
{
	struct ss *p = ctx;
	uint32_t id;

	for (size_t i = 0; i < n; i++) {
		size_t had = p->names.n;
		if (!lens[i])
			continue;
		if (frametab_id(&p->names, frames[i], lens[i], &id))
			return -1;
		if (id != had)
			continue;
		fputs(id ? ",{\"name\":" : "{\"name\":", p->out);
		put_string(p, frames[i], lens[i]);
		fputc('}', p->out);
	}
	p->total = fg_count_add(p->total, count);
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

static int export_speedscope(struct fg_stacks *s, const struct export_info *info, FILE *out,
			     const char *what)
{
	struct export_unit u = export_unit_of(info->countname);
	const char *name = info->name ? info->name : "offwake-svg";
	struct ss p = { .out = out, .total = fg_count_of(0) };
	int r = -1;

	errno = 0;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":", out);
	put_string(&p, OW_PROG " " OFFWAKE_VERSION, strlen(OW_PROG " " OFFWAKE_VERSION));
	fputs(",\"name\":", out);
	put_string(&p, name, strlen(name));
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", out);
	if (p.err || fg_stacks_foreach(s, frames_of, &p))
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
	fputs("]}]}\n", out);
	if (!p.err && !ferror(out))
		r = 0;
out:
	if (r && !errno)
		errno = p.err ? ENOMEM : EIO;
	if (r && errno != EPIPE)
		ow_err("%s: %s", what, ow_strerror(errno));
	frametab_free(&p.names);
	return r;
}

int export_speedscope_write(const struct ow_profile *p, const struct ow_write_opts *o,
			    FILE *out)
{
	struct fg_stacks *made, *s = ow_profile_stacks(p, o->what, o->fg, &made);
	int r = s ? export_speedscope(s, &p->info, out, o->what) : -1;

	fg_stacks_free(made);
	return r ? OW_EXIT_FAIL : OW_EXIT_OK;
}
