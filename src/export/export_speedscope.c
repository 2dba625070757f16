// SPDX-License-Identifier: Apache-2.0
/*
 * export_speedscope.c - the speedscope writer (writers.c's "speedscope"
 * row): the profile's stack set (its samples summed by names, as fg.h's
 * stack set sums them) as speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json, the schema the
 * speedscope npm package ships): one "sampled" profile whose samples are
 * stacks of indices into shared.frames (root first, as speedscope reads
 * them) with the counts as weights, written with json-c.  Frames are
 * deduplicated by name; every named frame of the folded line is kept (the
 * "--" and "-" markers, the waker's frames); empty names are left out, as
 * the flame graph shows nothing for them (a preempted block's missing
 * waker, the user/kernel delimiter without -d).  The unit comes from --countname
 * ("none" for a name speedscope has no unit for).
 *
 * json-c keeps one object per value: a frame's index is one shared object
 * (reference counted) rather than one per use, so a sample costs one array.
 */
#include "writers.h"
#include "frametab.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

struct ss {
	struct frametab names;
	json_object **idx;	/* frame id -> its index, shared */
	size_t idx_cap;
	json_object *frames, *samples, *weights;
	struct fg_count total;
};

static json_object *count_json(struct fg_count c)
{
	int64_t v;

	if (fg_count_int64(c, &v))
		return json_object_new_int64(v);
	return json_object_new_double(fg_count_double(c));
}

static int frame_index(struct ss *p, const char *s, size_t len, json_object **o)
{
	uint32_t id;
	size_t n = p->names.n;
	json_object *f;

	if (ow_grow(&p->idx, &p->idx_cap, n, sizeof(*p->idx)))
		return -1;
	p->idx[n] = NULL;
	if (frametab_id(&p->names, s, len, &id))
		return -1;
	if (id == n) {		/* a new frame */
		if (!(p->idx[id] = json_object_new_int64(id)) ||
		    !(f = json_object_new_object()) ||
		    json_object_array_add(p->frames, f) ||
		    json_object_object_add(f, "name", json_object_new_string_len(s, len)))
			return -1;
	}
	*o = json_object_get(p->idx[id]);
	return 0;
}

static int add_sample(void *ctx, const char *const *frames, const size_t *lens,
		      size_t n, struct fg_count count)
{
	struct ss *p = ctx;
	json_object *stack = json_object_new_array_ext(n), *w = count_json(count), *o;

	if (!stack || !w || json_object_array_add(p->samples, stack) ||
	    json_object_array_add(p->weights, w)) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (lens[i] && (frame_index(p, frames[i], lens[i], &o) ||
				json_object_array_add(stack, o))) {
			errno = ENOMEM;
			return -1;
		}
	p->total = fg_count_add(p->total, count);
	return 0;
}

/* Add key: val to obj (taking val); -1 if either is missing. */
static int put(json_object *obj, const char *key, json_object *val)
{
	if (!obj || !val) {
		json_object_put(val);
		return -1;
	}
	return json_object_object_add(obj, key, val);
}

static int export_speedscope(struct fg_stacks *s, const struct export_info *info, FILE *out,
			     const char *what)
{
	struct export_unit u = export_unit_of(info->countname);
	const char *name = info->name ? info->name : "offwake-svg";
	json_object *root = json_object_new_object(), *shared = json_object_new_object();
	json_object *prof = json_object_new_object(), *profs = json_object_new_array();
	struct ss p = { .total = fg_count_of(0) };
	const char *text;
	size_t len;
	int r = -1;

	p.frames = json_object_new_array();
	p.samples = json_object_new_array();
	p.weights = json_object_new_array();
	errno = ENOMEM;
	if (!root || !shared || !prof || !profs || !p.frames || !p.samples || !p.weights)
		goto out;
	if (put(root, "$schema", json_object_new_string("https://www.speedscope.app/file-format-schema.json")) ||
	    put(root, "exporter", json_object_new_string(OW_PROG " " OFFWAKE_VERSION)) ||
	    put(root, "name", json_object_new_string(name)) ||
	    put(root, "activeProfileIndex", json_object_new_int(0)) ||
	    put(shared, "frames", json_object_get(p.frames)) ||
	    put(root, "shared", json_object_get(shared)) ||
	    json_object_array_add(profs, json_object_get(prof)) ||
	    put(root, "profiles", json_object_get(profs)) ||
	    put(prof, "type", json_object_new_string("sampled")) ||
	    put(prof, "name", json_object_new_string(name)) ||
	    put(prof, "unit", json_object_new_string(u.speedscope)) ||
	    put(prof, "startValue", json_object_new_int(0)))
		goto out;
	errno = 0;
	if (fg_stacks_foreach(s, add_sample, &p))
		goto out;
	errno = ENOMEM;
	if (put(prof, "endValue", count_json(p.total)) ||
	    put(prof, "samples", json_object_get(p.samples)) ||
	    put(prof, "weights", json_object_get(p.weights)) ||
	    !(text = json_object_to_json_string_length(root, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE, &len)))
		goto out;
	errno = 0;
	if (fwrite(text, 1, len, out) == len && fputc('\n', out) != EOF)
		r = 0;
out:
	if (r && errno != EPIPE)
		ow_err("%s: %s", what, ow_strerror(errno));
	for (size_t i = 0; i < p.names.n; i++)
		json_object_put(p.idx[i]);
	free(p.idx);
	frametab_free(&p.names);
	json_object_put(p.frames);
	json_object_put(p.samples);
	json_object_put(p.weights);
	json_object_put(shared);
	json_object_put(prof);
	json_object_put(profs);
	json_object_put(root);
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
