// SPDX-License-Identifier: Apache-2.0
/*
 * export_pprof.c - a stack set as a pprof profile: profile.proto (our copy
 * of pprof's published message, src/export/profile.proto) encoded by the
 * C code protoc-c generates from it (libprotobuf-c), gzipped with zlib, as
 * go tool pprof, Pyroscope, Parca and Cloud Profiler read it.
 *
 * Every distinct frame name is one function and one location (the same
 * id), its name one entry of the deduplicated string table; a sample is a
 * stack's locations leaf first, as pprof expects, with its count as the
 * one value.  Every frame of the folded line is kept: the "--" between the
 * blocked thread and its waker, the "-" (or empty) user/kernel delimiters,
 * the waker's frames above them, so that the chain reads the same in
 * pprof's views as in the flame graph.  The sample type comes from
 * --countname (default "off-wake time", "microseconds"); the capture's
 * parameters become the profile's comments.  pprof values are integers:
 * a count with a fraction is refused, naming it.
 */
#include "export.h"
#include "frametab.h"
#include "profile.pb-c.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__ValueType ValueType;

struct pp {
	struct frametab str;	/* the string table; id 0 is "" */
	uint32_t *fn_of;	/* string id -> function (= location) id, 0 none */
	size_t fn_cap;
	uint32_t *fn_name;	/* function id - 1 -> string id */
	size_t nfn, name_cap;
	uint64_t *locs;		/* every sample's location ids, one after another */
	size_t nlocs, loc_cap;
	struct smp {
		size_t off, n;
		int64_t v;
	} *smp;
	size_t nsmp, smp_cap;
	const char *what;
	int bad;		/* an error was printed */
};

static int string_id(struct pp *p, const char *s, size_t len, int64_t *id)
{
	uint32_t i;

	if (frametab_id(&p->str, s, len, &i))
		return -1;
	*id = i;
	return 0;
}

/* The function (and location) of the frame name s. */
static int frame_id(struct pp *p, const char *s, size_t len, uint64_t *id)
{
	uint32_t sid;

	if (frametab_id(&p->str, s, len, &sid))
		return -1;
	if (sid >= p->fn_cap) {
		size_t old = p->fn_cap;

		if (ow_grow(&p->fn_of, &p->fn_cap, sid, sizeof(*p->fn_of)))
			return -1;
		memset(p->fn_of + old, 0, (p->fn_cap - old) * sizeof(*p->fn_of));
	}
	if (!p->fn_of[sid]) {
		if (ow_grow(&p->fn_name, &p->name_cap, p->nfn, sizeof(*p->fn_name)))
			return -1;
		p->fn_name[p->nfn++] = sid;
		p->fn_of[sid] = p->nfn;
	}
	*id = p->fn_of[sid];
	return 0;
}

/* A count as pprof's int64 value; -1 (message printed) if it has none. */
static int count_value(struct pp *p, struct pnum c, int64_t *v)
{
	double d = pnum_d(c);
	char num[64];

	if (!c.is_nv && PNUM_I64(c.iv) && c.iv >= 0) {
		*v = (int64_t)c.iv;
		return 0;
	}
	if (c.is_nv && d >= 0 && d < 0x1p63 && d == floor(d)) {
		*v = (int64_t)d;
		return 0;
	}
	pnum_fmt(c, num, sizeof(num));
	ow_err("%s: count %s: pprof values are whole numbers from 0 to 2^63-1", p->what, num);
	p->bad = 1;
	errno = EINVAL;
	return -1;
}

static int add_sample(void *ctx, const char *const *frames, const size_t *lens,
		      size_t n, struct pnum count)
{
	struct pp *p = ctx;
	struct smp *s;

	if (ow_grow(&p->smp, &p->smp_cap, p->nsmp, sizeof(*p->smp)) ||
	    ow_grow(&p->locs, &p->loc_cap, p->nlocs + n, sizeof(*p->locs)))
		return -1;
	s = &p->smp[p->nsmp];
	s->off = p->nlocs;
	s->n = n;
	if (count_value(p, count, &s->v))
		return -1;
	for (size_t i = n; i-- > 0;)	/* leaf first */
		if (frame_id(p, frames[i], lens[i], &p->locs[p->nlocs++]))
			return -1;
	p->nsmp++;
	return 0;
}

/* Write buf gzipped (one gzip member, zlib's default level). */
static int gzip_write(const uint8_t *buf, size_t len, FILE *out)
{
	static unsigned char o[1 << 16];
	z_stream z = { 0 };
	int r = Z_OK;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	z.next_in = (unsigned char *)buf;
	while (r != Z_STREAM_END) {
		size_t chunk = len < (1u << 30) ? len : (1u << 30);

		z.avail_in = chunk;
		len -= chunk;
		do {
			z.next_out = o;
			z.avail_out = sizeof(o);
			r = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
			if (fwrite(o, 1, sizeof(o) - z.avail_out, out) != sizeof(o) - z.avail_out) {
				deflateEnd(&z);
				return -1;
			}
		} while (z.avail_out == 0 || (!len && r != Z_STREAM_END));
	}
	deflateEnd(&z);
	return 0;
}

/* Build the message from the tables and write it; 0 or -1 (errno). */
static int emit(struct pp *p, ValueType *st, int64_t *comments, size_t ncomments,
		const struct export_info *info, FILE *out)
{
	Function *fn = calloc(p->nfn + 1, sizeof(*fn));
	Location *loc = calloc(p->nfn + 1, sizeof(*loc));
	Line *line = calloc(p->nfn + 1, sizeof(*line));
	Line **line_p = calloc(p->nfn + 1, sizeof(*line_p));
	Function **fn_p = calloc(p->nfn + 1, sizeof(*fn_p));
	Location **loc_p = calloc(p->nfn + 1, sizeof(*loc_p));
	Sample *smp = calloc(p->nsmp + 1, sizeof(*smp));
	Sample **smp_p = calloc(p->nsmp + 1, sizeof(*smp_p));
	char **strs = calloc(p->str.n + 1, sizeof(*strs));
	ValueType *st_p[1] = { st };
	Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	uint8_t *buf = NULL;
	size_t len;
	int r = -1;

	if (!fn || !loc || !line || !line_p || !fn_p || !loc_p || !smp || !smp_p || !strs) {
		errno = ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < p->nfn; i++) {
		perftools__profiles__function__init(&fn[i]);
		fn[i].id = i + 1;
		fn[i].name = fn[i].system_name = p->fn_name[i];
		fn_p[i] = &fn[i];
		perftools__profiles__line__init(&line[i]);
		line[i].function_id = i + 1;
		line_p[i] = &line[i];
		perftools__profiles__location__init(&loc[i]);
		loc[i].id = i + 1;
		loc[i].n_line = 1;
		loc[i].line = &line_p[i];
		loc_p[i] = &loc[i];
	}
	for (size_t i = 0; i < p->nsmp; i++) {
		perftools__profiles__sample__init(&smp[i]);
		smp[i].n_location_id = p->smp[i].n;
		smp[i].location_id = p->locs + p->smp[i].off;
		smp[i].n_value = 1;
		smp[i].value = &p->smp[i].v;
		smp_p[i] = &smp[i];
	}
	for (size_t i = 0; i < p->str.n; i++)
		strs[i] = p->str.v[i].s;
	pr.n_sample_type = 1;
	pr.sample_type = st_p;
	pr.period_type = st;
	pr.period = 1;
	pr.n_sample = p->nsmp;
	pr.sample = smp_p;
	pr.n_location = p->nfn;
	pr.location = loc_p;
	pr.n_function = p->nfn;
	pr.function = fn_p;
	pr.n_string_table = p->str.n;
	pr.string_table = strs;
	pr.n_comment = ncomments;
	pr.comment = comments;
	pr.time_nanos = info->time_nanos;
	pr.duration_nanos = info->duration_nanos;
	len = perftools__profiles__profile__get_packed_size(&pr);
	if (!(buf = malloc(len ? len : 1))) {
		errno = ENOMEM;
		goto out;
	}
	perftools__profiles__profile__pack(&pr, buf);
	errno = 0;
	r = gzip_write(buf, len, out);
out:
	free(buf);
	free(fn);
	free(loc);
	free(line);
	free(line_p);
	free(fn_p);
	free(loc_p);
	free(smp);
	free(smp_p);
	free(strs);
	return r;
}

int export_pprof(struct fg_stacks *s, const struct export_info *info, FILE *out,
		 const char *what)
{
	struct export_unit u = export_unit_of(info->countname);
	ValueType st = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	struct pp p = { .what = what };
	int64_t *comments = calloc(info->ncomments + 1, sizeof(*comments));
	int64_t empty;
	int r = -1;

	errno = ENOMEM;
	if (!comments || string_id(&p, "", 0, &empty) ||
	    string_id(&p, u.type, strlen(u.type), &st.type) ||
	    string_id(&p, u.unit, strlen(u.unit), &st.unit))
		goto out;
	for (size_t i = 0; i < info->ncomments; i++)
		if (string_id(&p, info->comments[i], strlen(info->comments[i]), &comments[i]))
			goto out;
	errno = 0;
	if (fg_stacks_foreach(s, add_sample, &p))
		goto out;
	r = emit(&p, &st, comments, info->ncomments, info, out);
out:
	if (r && !p.bad && errno != EPIPE)
		ow_err("%s: %s", what, fg_strerror(errno));
	free(comments);
	free(p.fn_of);
	free(p.fn_name);
	free(p.locs);
	free(p.smp);
	frametab_free(&p.str);
	return r;
}
