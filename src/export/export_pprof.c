// SPDX-License-Identifier: Apache-2.0
/*
 * export_pprof.c - the pprof writer (writers.c's "pprof" row): the
 * profile's samples (profile.h) as a pprof profile: profile.proto (our copy of
 * pprof's published message, src/export/profile.proto) encoded by the C
 * code protoc-c generates from it (libprotobuf-c), gzipped with zlib, as
 * go tool pprof, Pyroscope, Parca and Cloud Profiler read it.
 *
 * A profile is built sample by sample (pprof_add): every distinct frame
 * name is one function, its name one entry of the deduplicated string
 * table; a frame with no address (every frame of a stack set: folded
 * text has names only, and the markers and thread names of a capture) is
 * one location per function, a frame with one (a capture's stack frames)
 * one location per mapping, address and name, in that mapping: one per
 * file the capture saw code of (its build id lets pprof and the fleet
 * profilers find the binary and its debug info), marked as having
 * functions, so that pprof shows our names unless told to symbolise
 * again (-symbolize=force).  A sample is its locations leaf first, as
 * pprof expects, its one value and its labels.  Every named frame of the
 * folded line is kept: the "--" between the blocked thread and its waker,
 * the "-" user/kernel delimiters (-d), the waker's frames above them, so
 * that the chain reads the same in pprof's views as in the flame graph.
 * Empty names are left out, as the flame graph leaves them (a preempted
 * block's missing waker is nothing above its "--") or draws them blank
 * (the user/kernel delimiter without -d): pprof would call them
 * "<unknown>".  The sample type comes from --countname (default "off-wake
 * time", "microseconds"); the capture's parameters become the profile's
 * comments.  pprof values are integers: a count with a fraction is
 * refused, naming it.
 */
#include "writers.h"
#include "frametab.h"
#include "profile.pb-c.h"
#include "common/htab.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__ValueType ValueType;

struct pprof {
	const struct export_info *info;
	const char *what;
	struct frametab str;	/* the string table; id 0 is "" */
	ValueType st;		/* the sample type */
	int64_t *comments;	/* string ids */
	uint32_t *fn_of;	/* string id -> function id, 0 none */
	size_t fn_cap;
	uint32_t *fn_name;	/* function id - 1 -> string id */
	size_t nfn, name_cap;
	const struct export_src **fn_src;	/* function id - 1 -> its
						 * source, or NULL */
	size_t src_cap;
	uint32_t *loc_of;	/* function id - 1 -> its address-less location */
	size_t loc_of_cap;
	struct htab loc_at;	/* (address, mapping << 32 | function) -> location */
	struct ploc {
		uint64_t addr;
		uint32_t fn, map;	/* map 0: none */
	} *loc;			/* location id - 1 */
	size_t nloc, loccap;
	struct htab map_of;	/* (struct export_map *, 0) -> mapping id */
	const struct export_map **map;	/* mapping id - 1 */
	size_t nmap, mapcap;
	uint64_t *locs;		/* every sample's location ids, one after another */
	size_t nlocs, locs_cap;
	Label *labels;		/* every sample's labels, one after another */
	size_t nlabels, labels_cap;
	struct smp {
		size_t off, n, loff, nl;
		int64_t v;
	} *smp;
	size_t nsmp, smp_cap;
	int bad;		/* an error was printed */
};

static int string_id(struct pprof *p, const char *s, size_t len, int64_t *id)
{
	uint32_t i;

	if (frametab_id(&p->str, s, len, &i))
		return -1;
	*id = i;
	return 0;
}

static int cstring_id(struct pprof *p, const char *s, int64_t *id)
{
	return string_id(p, s ? s : "", s ? strlen(s) : 0, id);
}

/* The function of the frame name s. */
static int function_id(struct pprof *p, const char *s, size_t len,
		       const struct export_src *src, uint32_t *id)
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
		if (ow_grow(&p->fn_name, &p->name_cap, p->nfn, sizeof(*p->fn_name)) ||
		    ow_grow(&p->fn_src, &p->src_cap, p->nfn, sizeof(*p->fn_src)))
			return -1;
		p->fn_src[p->nfn] = NULL;
		p->fn_name[p->nfn++] = sid;
		p->fn_of[sid] = p->nfn;
	}
	*id = p->fn_of[sid];
	if (src && !p->fn_src[*id - 1])	/* (its first code object's) */
		p->fn_src[*id - 1] = src;
	return 0;
}

/* The mapping id of m (added when new). */
static int mapping_id(struct pprof *p, const struct export_map *m, uint32_t *id)
{
	uintptr_t v = (uintptr_t)htab_get(&p->map_of, (uintptr_t)m, 0);

	if (!v) {
		if (ow_grow(&p->map, &p->mapcap, p->nmap, sizeof(*p->map)) ||
		    htab_put(&p->map_of, (uintptr_t)m, 0, (void *)(uintptr_t)(p->nmap + 1)))
			return -1;
		p->map[p->nmap] = m;
		v = ++p->nmap;
	}
	*id = v;
	return 0;
}

static int new_location(struct pprof *p, uint32_t fn, uint32_t map, uint64_t addr,
			uint32_t *id)
{
	if (ow_grow(&p->loc, &p->loccap, p->nloc, sizeof(*p->loc)))
		return -1;
	p->loc[p->nloc] = (struct ploc){ addr, fn, map };
	*id = ++p->nloc;
	return 0;
}

/* The location of frame f: per function, or per mapping, address and function. */
static int location_id(struct pprof *p, const struct ow_frame *f, uint64_t *id)
{
	uint32_t fn, map, loc;
	uintptr_t v;

	if (function_id(p, f->name, f->len, f->src, &fn))
		return -1;
	if (!f->map) {
		if (fn > p->loc_of_cap) {
			size_t old = p->loc_of_cap;

			if (ow_grow(&p->loc_of, &p->loc_of_cap, fn, sizeof(*p->loc_of)))
				return -1;
			memset(p->loc_of + old, 0, (p->loc_of_cap - old) * sizeof(*p->loc_of));
		}
		if (!p->loc_of[fn - 1] && new_location(p, fn, 0, 0, &p->loc_of[fn - 1]))
			return -1;
		*id = p->loc_of[fn - 1];
		return 0;
	}
	if (mapping_id(p, f->map, &map))
		return -1;
	v = (uintptr_t)htab_get(&p->loc_at, f->addr, (uint64_t)map << 32 | fn);
	if (!v) {
		if (new_location(p, fn, map, f->addr, &loc) ||
		    htab_put(&p->loc_at, f->addr, (uint64_t)map << 32 | fn, (void *)(uintptr_t)loc))
			return -1;
		v = loc;
	}
	*id = v;
	return 0;
}

/* A count as pprof's int64 value; -1 (message printed) if it has none. */
static int count_value(struct pprof *p, struct fg_count c, int64_t *v)
{
	double d = fg_count_double(c);
	int64_t i;
	char num[64];

	if (fg_count_int64(c, &i)) {
		if (i >= 0) {
			*v = i;
			return 0;
		}
	} else if (d >= 0 && d < 0x1p63 && d == floor(d)) {
		*v = (int64_t)d;
		return 0;
	}
	fg_count_format(c, num, sizeof(num));
	ow_err("%s: count %s: pprof values are whole numbers from 0 to 2^63-1", p->what, num);
	p->bad = 1;
	errno = EINVAL;
	return -1;
}

static int pprof_add(struct pprof *p, const struct ow_frame *frames, size_t n,
	      int64_t value, const struct export_label *labels, size_t nlabels)
{
	struct smp *s;
	size_t named = 0;

	errno = ENOMEM;
	if (ow_grow(&p->smp, &p->smp_cap, p->nsmp, sizeof(*p->smp)) ||
	    ow_grow(&p->locs, &p->locs_cap, p->nlocs + n, sizeof(*p->locs)) ||
	    (nlabels && ow_grow(&p->labels, &p->labels_cap, p->nlabels + nlabels,
				sizeof(*p->labels))))
		return -1;
	s = &p->smp[p->nsmp];
	*s = (struct smp){ .off = p->nlocs, .loff = p->nlabels, .nl = nlabels, .v = value };
	/* mappings numbered root first (see main_first()) */
	for (size_t i = 0; i < n; i++)
		if (frames[i].map && mapping_id(p, frames[i].map, &(uint32_t){ 0 }))
			return -1;
	for (size_t i = n; i-- > 0;)	/* leaf first, named only */
		if (frames[i].len && (named++, location_id(p, &frames[i], &p->locs[p->nlocs++])))
			return -1;
	s->n = named;
	for (size_t i = 0; i < nlabels; i++) {
		Label *l = &p->labels[p->nlabels++];

		perftools__profiles__label__init(l);
		if (cstring_id(p, labels[i].key, &l->key) ||
		    (labels[i].str && cstring_id(p, labels[i].str, &l->str)))
			return -1;
		if (!labels[i].str)
			l->num = labels[i].num;
	}
	p->nsmp++;
	return 0;
}

/*
 * A sample's long blocks (--timeline): one sample each, of the sample's
 * frames and labels, labelled "start" (ns since the capture's start on
 * the events' clock) and "duration" (ns), its value the block's whole
 * microseconds (the capture's unit).  *rest is the sample's value less
 * theirs: what the summed sample keeps, so that the totals are the sums'.
 */
#define LB_LABELS	16
static int add_long_blocks(struct pprof *p, const struct ow_sample *smp,
			   int64_t *rest)
{
	struct export_label lab[LB_LABELS + 2];
	size_t nl = smp->nlabels < LB_LABELS ? smp->nlabels : LB_LABELS;

	memcpy(lab, smp->labels, nl * sizeof(*lab));
	for (size_t i = 0; i < smp->nevents; i++) {
		const struct ow_long_block *b = &smp->events[i];
		int64_t dur = (int64_t)(b->end_ns - b->start_ns), us = dur / 1000;

		if (us > *rest)		/* (not in these sums: never so) */
			us = *rest;
		*rest -= us;
		lab[nl] = (struct export_label){ "start", NULL,
			(int64_t)(b->start_ns - p->info->clock_start_ns) };
		lab[nl + 1] = (struct export_label){ "duration", NULL, dur };
		if (pprof_add(p, smp->frames, smp->nframes, us, lab, nl + 2) ||
		    cstring_id(p, "nanoseconds", &p->labels[p->nlabels - 1].num_unit))
			return -1;
		p->labels[p->nlabels - 2].num_unit = p->labels[p->nlabels - 1].num_unit;
	}
	return 0;
}

/* A sample of the profile: its frames (with addresses where they have
 * them), its value, its labels; its long blocks, each a sample of its
 * own beside it (add_long_blocks()). */
static int add_sample(void *ctx, const struct ow_sample *smp)
{
	struct pprof *p = ctx;
	int64_t v;

	if (count_value(p, smp->value, &v))
		return -1;
	if (smp->nevents && add_long_blocks(p, smp, &v))
		return -1;
	if (smp->nevents && !v)
		return 0;	/* all of it in long blocks */
	return pprof_add(p, smp->frames, smp->nframes, v, smp->labels, smp->nlabels);
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

/* 0: an executable, 1: a shared library (pprof's test: ".so" at the end
 * or before [._] and a digit), 2: "[kernel.kallsyms]", "[vdso]"... */
static int map_rank(const char *path)
{
	const char *so = path;

	if (path[0] == '[')
		return 2;
	while ((so = strstr(so, ".so"))) {
		so += 3;
		if (!*so || ((*so == '.' || *so == '_') && so[1] >= '0' && so[1] <= '9'))
			return 1;
	}
	return 0;
}

/*
 * pprof takes the first mapping listed for the main binary (its name
 * heads the reports; -symbolize and -exec apply to it): list the
 * executables first, then the libraries, then the kernel, each in the
 * order they were numbered: root first, so that the first is the
 * executable of the first sample's blocked thread.
 */
static void main_first(struct pprof *p, Mapping *map, Mapping **map_p)
{
	size_t n = 0;

	for (int rank = 0; rank < 3; rank++)
		for (size_t i = 0; i < p->nmap; i++)
			if (map_rank(p->map[i]->path) == rank)
				map_p[n++] = &map[i];
}

/* Build the message from the tables and write it; 0 or -1 (errno). */
static int emit(struct pprof *p, FILE *out)
{
	Function *fn = calloc(p->nfn + 1, sizeof(*fn));
	Function **fn_p = calloc(p->nfn + 1, sizeof(*fn_p));
	Location *loc = calloc(p->nloc + 1, sizeof(*loc));
	Location **loc_p = calloc(p->nloc + 1, sizeof(*loc_p));
	Line *line = calloc(p->nloc + 1, sizeof(*line));
	Line **line_p = calloc(p->nloc + 1, sizeof(*line_p));
	Mapping *map = calloc(p->nmap + 1, sizeof(*map));
	Mapping **map_p = calloc(p->nmap + 1, sizeof(*map_p));
	Label **lab_p = calloc(p->nlabels + 1, sizeof(*lab_p));
	Sample *smp = calloc(p->nsmp + 1, sizeof(*smp));
	Sample **smp_p = calloc(p->nsmp + 1, sizeof(*smp_p));
	char **strs = NULL;
	ValueType *st_p[1] = { &p->st };
	Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	uint8_t *buf = NULL;
	size_t len;
	int r = -1;

	errno = ENOMEM;
	if (!fn || !fn_p || !loc || !loc_p || !line || !line_p || !map || !map_p ||
	    !lab_p || !smp || !smp_p)
		goto out;
	for (size_t i = 0; i < p->nmap; i++) {	/* (adds strings: first) */
		const struct export_map *m = p->map[i];

		perftools__profiles__mapping__init(&map[i]);
		map[i].id = i + 1;
		map[i].memory_start = m->start;
		map[i].memory_limit = m->limit;
		map[i].file_offset = m->offset;
		map[i].has_functions = 1;	/* our names: kept unless forced */
		if (cstring_id(p, m->path, &map[i].filename) ||
		    cstring_id(p, m->build_id, &map[i].build_id))
			goto out;
	}
	for (size_t i = 0; i < p->nfn; i++) {
		perftools__profiles__function__init(&fn[i]);
		fn[i].id = i + 1;
		fn[i].name = fn[i].system_name = p->fn_name[i];
		if (p->fn_src[i]) {	/* (adds strings: before strs) */
			if (cstring_id(p, p->fn_src[i]->file, &fn[i].filename))
				goto out;
			fn[i].start_line = p->fn_src[i]->first_line;
		}
		fn_p[i] = &fn[i];
	}
	main_first(p, map, map_p);
	if (!(strs = calloc(p->str.n + 1, sizeof(*strs))))
		goto out;
	for (size_t i = 0; i < p->nloc; i++) {
		perftools__profiles__line__init(&line[i]);
		line[i].function_id = p->loc[i].fn;
		line_p[i] = &line[i];
		perftools__profiles__location__init(&loc[i]);
		loc[i].id = i + 1;
		loc[i].mapping_id = p->loc[i].map;
		loc[i].address = p->loc[i].addr;
		loc[i].n_line = 1;
		loc[i].line = &line_p[i];
		loc_p[i] = &loc[i];
	}
	for (size_t i = 0; i < p->nlabels; i++)
		lab_p[i] = &p->labels[i];
	for (size_t i = 0; i < p->nsmp; i++) {
		perftools__profiles__sample__init(&smp[i]);
		smp[i].n_location_id = p->smp[i].n;
		smp[i].location_id = p->locs + p->smp[i].off;
		smp[i].n_value = 1;
		smp[i].value = &p->smp[i].v;
		smp[i].n_label = p->smp[i].nl;
		smp[i].label = lab_p + p->smp[i].loff;
		smp_p[i] = &smp[i];
	}
	for (size_t i = 0; i < p->str.n; i++)
		strs[i] = p->str.v[i].s;
	pr.n_sample_type = 1;
	pr.sample_type = st_p;
	pr.period_type = &p->st;
	pr.period = 1;
	pr.n_sample = p->nsmp;
	pr.sample = smp_p;
	pr.n_mapping = p->nmap;
	pr.mapping = map_p;
	pr.n_location = p->nloc;
	pr.location = loc_p;
	pr.n_function = p->nfn;
	pr.function = fn_p;
	pr.n_string_table = p->str.n;
	pr.string_table = strs;
	pr.n_comment = p->info->ncomments;
	pr.comment = p->comments;
	pr.time_nanos = p->info->time_nanos;
	pr.duration_nanos = p->info->duration_nanos;
	len = perftools__profiles__profile__get_packed_size(&pr);
	if (!(buf = malloc(len ? len : 1)))
		goto out;
	perftools__profiles__profile__pack(&pr, buf);
	errno = 0;
	r = gzip_write(buf, len, out);
out:
	free(buf);
	free(fn);
	free(fn_p);
	free(loc);
	free(loc_p);
	free(line);
	free(line_p);
	free(map);
	free(map_p);
	free(lab_p);
	free(smp);
	free(smp_p);
	free(strs);
	return r;
}

static void pprof_free(struct pprof *p)
{
	if (!p)
		return;
	free(p->comments);
	free(p->fn_of);
	free(p->fn_name);
	free(p->fn_src);
	free(p->loc_of);
	htab_free(&p->loc_at);
	free(p->loc);
	htab_free(&p->map_of);
	free(p->map);
	free(p->locs);
	free(p->labels);
	free(p->smp);
	frametab_free(&p->str);
	free(p);
}

static struct pprof *pprof_new(const struct export_info *info, const char *what)
{
	struct export_unit u = export_unit_of(info->countname);
	struct pprof *p = calloc(1, sizeof(*p));
	int64_t empty;

	if (!p)
		goto fail;
	p->info = info;
	p->what = what;
	perftools__profiles__value_type__init(&p->st);
	if (!(p->comments = calloc(info->ncomments + 1, sizeof(*p->comments))) ||
	    string_id(p, "", 0, &empty) || cstring_id(p, u.type, &p->st.type) ||
	    cstring_id(p, u.unit, &p->st.unit))
		goto fail;
	for (size_t i = 0; i < info->ncomments; i++)
		if (cstring_id(p, info->comments[i], &p->comments[i]))
			goto fail;
	return p;
fail:
	pprof_free(p);
	ow_err("%s: %s", what, ow_strerror(ENOMEM));
	return NULL;
}

static int pprof_write(struct pprof *p, FILE *out)
{
	if (!emit(p, out))
		return 0;
	if (errno != EPIPE)
		ow_err("%s: %s", p->what, ow_strerror(errno));
	return -1;
}

int export_pprof_write(const struct ow_profile *prof, const struct ow_write_opts *o,
		       FILE *out)
{
	struct pprof *p = pprof_new(&prof->info, o->what);
	int r = -1;

	if (!p)
		return OW_EXIT_FAIL;
	errno = 0;
	if (!ow_profile_foreach(prof, add_sample, p))
		r = pprof_write(p, out);
	else if (!p->bad && errno != EPIPE)
		ow_err("%s: %s", o->what, ow_strerror(errno));
	pprof_free(p);
	return r ? OW_EXIT_FAIL : OW_EXIT_OK;
}
