// SPDX-License-Identifier: Apache-2.0
/*
 * diff.c - "offwake-svg diff": a differential flame graph of two profiles,
 * with the behaviour of FlameGraph's difffolded.pl: every stack of either
 * profile with its BEFORE and AFTER counts (0 when absent), in the AFTER
 * profile's order, then rendered in memory by the render/ library (widths
 * from AFTER, colours and tooltips from the change of each frame: its
 * whole width's, not only the leaves' as flamegraph.pl gives a two-column
 * file, render's fg_options.delta_inclusive; counts labelled with the
 * profiles' unit: an SVG's --countname, "us" for an off-wake profile's
 * folded text, whose "--" frames tell it) or printed as two-column folded text
 * with -f, to standard output or -o FILE (report_out.h).  A profile is a
 * folded file or a flame graph SVG (read back with unfold.c); the folded
 * grammar is the library's own.
 */
#include "diff.h"
#include "fg.h"
#include "profile_load.h"
#include "report_out.h"
#include "common/htab.h"
#include "common/util.h"
#include "base/errmsg.h"
#include "base/hash.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PROG "offwake-svg diff"

struct diff_opts {
	int normalize;		/* -n: scale BEFORE to AFTER's total */
	int strip_hex;		/* -s: 0x1234 -> 0x... */
	int folded;		/* -f: print the two-column text */
	int help;
};

/* The merged profiles: each distinct stack text gets a dense id (ids by
 * the text's hash, a chain through next for texts sharing a hash), an id
 * indexes the counts. */
struct table {
	struct htab ids;	/* (hash, 0) -> first id + 1 */
	struct key {
		char *text;
		size_t len;
		uint32_t next;	/* next id with the same hash + 1, or 0 */
	} *k;
	size_t kcap, nkeys;
	struct entry {
		struct fg_count c[2];
		int seen;
	} *e;
	size_t ecap, nent;	/* nent: entries initialised */
	uint32_t *order;	/* ids in first-seen order */
	size_t n, ocap;
	struct fg_count total[2];
	char *buf;		/* the stack being joined */
	size_t len, bcap;
	int strip_hex;
	int offwake;		/* a "--" frame: an off-wake profile's divider */
};

/* ---- reading a profile ----------------------------------------------- */

/* A folded file or a flame graph SVG (by content), "-": standard input;
 * unit: the SVG's count unit, "" for folded text. */
static struct fg_stacks *load(const char *name, char *unit, size_t unitlen, size_t max_depth)
{
	struct fg_stacks *s = fg_stacks_new();

	if (!s) {
		ow_err("diff: %s: out of memory", name);
		return NULL;
	}
	fg_stacks_set_max_depth(s, max_depth);
	if (profile_load(s, "diff", name, unit, unitlen)) {
		fg_stacks_free(s);
		return NULL;
	}
	return s;
}

/* ---- merging --------------------------------------------------------- */

static int put(struct table *t, const char *p, size_t n)
{
	if (ow_grow(&t->buf, &t->bcap, t->len + n, 1))
		return -1;
	memcpy(t->buf + t->len, p, n);
	t->len += n;
	return 0;
}

/* Append a frame name, hex addresses replaced by "0x..." with -s
 * (difffolded.pl's s/0x[0-9a-fA-F]+/0x.../g; ';' is no hex digit, so
 * frame by frame is the same as on the whole stack). */
static int put_frame(struct table *t, const char *p, size_t n)
{
	size_t from = 0;

	for (size_t i = 0; t->strip_hex && i + 2 < n;) {
		size_t k = 0;
		if (p[i] == '0' && p[i + 1] == 'x')
			while (i + 2 + k < n && isxdigit((unsigned char)p[i + 2 + k]))
				k++;
		if (!k) {
			i++;
			continue;
		}
		if (put(t, p + from, i - from) || put(t, "0x...", 5))
			return -1;
		i += 2 + k;
		from = i;
	}
	return put(t, p + from, n - from);
}

struct walk {
	struct table *t;
	int col;		/* 0: BEFORE, 1: AFTER */
};

/* The id of the stack text in t->buf, given one if new; -1: no memory. */
static int64_t key_id(struct table *t)
{
	uint64_t h = ow_hash(t->buf, t->len);
	uintptr_t first = (uintptr_t)htab_get(&t->ids, h, 0);

	for (uintptr_t i = first; i; i = t->k[i - 1].next)
		if (t->k[i - 1].len == t->len && !memcmp(t->k[i - 1].text, t->buf, t->len))
			return i - 1;
	if (t->nkeys >= UINT32_MAX - 1 ||
	    ow_grow(&t->k, &t->kcap, t->nkeys, sizeof(*t->k)))
		return -1;
	struct key *k = &t->k[t->nkeys];
	if (!(k->text = malloc(t->len ? t->len : 1)))
		return -1;
	memcpy(k->text, t->buf, t->len);
	k->len = t->len;
	k->next = first;
	if (htab_put(&t->ids, h, 0, (void *)(uintptr_t)(t->nkeys + 1))) {
		free(k->text);
		return -1;
	}
	return t->nkeys++;
}

static int add_line(void *ctx, const char *const *frames, const size_t *lens,
		    size_t nframes, struct fg_count c)
{
	struct walk *w = ctx;
	struct table *t = w->t;

	t->len = 0;
	for (size_t k = 0; k < nframes; k++) {
		if ((k && put(t, ";", 1)) || put_frame(t, frames[k], lens[k]))
			return -1;
		t->offwake |= lens[k] == 2 && !memcmp(frames[k], "--", 2);
	}
	/* c: a two-count line counts with its second column, as when rendered */
	int64_t id = key_id(t);
	if (id < 0 || ow_grow(&t->e, &t->ecap, id, sizeof(*t->e)))
		return -1;
	for (; t->nent <= id; t->nent++)
		t->e[t->nent].seen = 0;
	struct entry *e = &t->e[id];
	if (!e->seen) {
		if (ow_grow(&t->order, &t->ocap, t->n, sizeof(*t->order)))
			return -1;
		e->c[0] = e->c[1] = fg_count_of(0);
		e->seen = 1;
		t->order[t->n++] = id;
	}
	e->c[w->col] = fg_count_add(e->c[w->col], c);
	t->total[w->col] = fg_count_add(t->total[w->col], c);
	return 0;
}

/* ---- command line ---------------------------------------------------- */

static void diff_usage(FILE *f)
{
	fputs("Usage: offwake-svg diff [-n] [-s] [-f] [-o FILE] [RENDER OPTIONS] BEFORE AFTER > diff.svg\n"
"Differential flame graph of two profiles (difffolded.pl + flamegraph.pl):\n"
"frame widths show the AFTER profile, colours the change of each frame's\n"
"whole width (red grew, blue shrank; --negate swaps them), tooltips that\n"
"change as a share of AFTER's total.  Counts are in the profiles' unit (an\n"
"SVG's --countname, \"us\" for off-wake folded text) unless --countname says.\n"
"BEFORE and AFTER are folded files (\"frame;frame;... COUNT\"), flame graph\n"
"SVGs made by offwake-svg or flamegraph.pl (read back as with \"offwake-svg\n"
"unfold\"; recognised by their content), or \"-\" for standard input (once).\n"
"\n"
"  -n, --normalize   scale the BEFORE counts to the AFTER total\n"
"  -s, --strip-hex   replace hex addresses (0x...) so that runs of the same\n"
"                    binary line up\n"
"  -f, --folded      print the two-column folded text (\"stack BEFORE AFTER\")\n"
"                    that \"offwake-svg render\" accepts, instead of the SVG\n"
"  -h, --help        this text\n"
"\n"
"Every option of \"offwake-svg render\" applies to the SVG (see its --help);\n"
"-n, -s, -f, -o and -h are taken by diff, so write --title=-n for such a value.\n"
"A stack missing from a profile counts 0 there.  To see what disappeared,\n"
"swap the profiles and negate:  offwake-svg diff --negate AFTER BEFORE\n"
"Exit status: 0 ok, 1 unreadable input, 2 no stack counts (an error SVG is\n"
"written), 255 bad option.\n", f);
}

/* Take diff's own options out of argv (up to a "--"); render's stay. */
static void take_opts(int *argc, char **argv, struct diff_opts *d)
{
	int n = 1, i;

	for (i = 1; i < *argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "--normalize"))
			d->normalize = 1;
		else if (!strcmp(a, "--strip-hex"))
			d->strip_hex = 1;
		else if (!strcmp(a, "--folded"))
			d->folded = 1;
		else if (!strcmp(a, "--help"))
			d->help = 1;
		else if (a[0] == '-' && a[1] && a[1] != '-' && !a[strspn(a + 1, "nsfh") + 1])
			for (const char *c = a + 1; *c; c++) {
				d->normalize |= *c == 'n';
				d->strip_hex |= *c == 's';
				d->folded |= *c == 'f';
				d->help |= *c == 'h';
			}
		else
			argv[n++] = argv[i];
	}
	while (i < *argc)
		argv[n++] = argv[i++];
	*argc = n;
}

static int emit(struct table *t, FILE *folded, struct fg_stacks *out)
{
	char c1[400], c2[400];

	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->e[t->order[i]];
		size_t klen = t->k[t->order[i]].len;
		const char *key = t->k[t->order[i]].text;
		/* plain decimals: the folded grammar has no exponents */
		fg_count_format_plain(e->c[0], c1, sizeof(c1));
		fg_count_format_plain(e->c[1], c2, sizeof(c2));
		t->len = 0;
		if (put(t, key, klen) || put(t, " ", 1) || put(t, c1, strlen(c1)) ||
		    put(t, " ", 1) || put(t, c2, strlen(c2)) || put(t, "\n", 1))
			return -1;
		if (folded ? fwrite(t->buf, 1, t->len, folded) != t->len :
			     fg_stacks_add_line(out, t->buf, t->len - 1) < 0)
			return -1;
	}
	return 0;
}

int diff_main(int argc, char **argv)
{
	struct diff_opts d = { 0 };
	struct fg_options o;
	struct fg_stacks *prof[2] = { NULL, NULL }, *out = NULL;
	struct table t = { 0 };
	struct report_out ro = { 0 };
	const char *out_name, *countname;
	char unit[2][64];
	int nfiles, ret, opened = 0;

	if (report_take_output(&argc, argv, "diff", &out_name))
		return FG_EXIT_USAGE;
	take_opts(&argc, argv, &d);
	if (d.help) {
		diff_usage(stdout);
		return FG_EXIT_OK;
	}
	fg_options_init(&o);
	countname = o.countname;	/* flamegraph.pl's "samples": not given */
	if (fg_options_parse(&o, argc - 1, argv + 1, &nfiles, PROG))
		return FG_EXIT_USAGE;
	if (nfiles != 2 || (!strcmp(argv[1], "-") && !strcmp(argv[2], "-"))) {
		ow_err("diff: %s", nfiles != 2 ? "two profiles expected: BEFORE AFTER" :
				   "only one profile can be read from standard input");
		diff_usage(stderr);
		return FG_EXIT_USAGE;
	}
	if (!d.folded && (ret = fg_options_check(&o)))
		return ret;
	ret = 1;
	for (int i = 0; i < 2; i++)
		if (!(prof[i] = load(argv[1 + i], unit[i], sizeof(unit[i]), (size_t)o.max_depth)))
			goto out;

	t.strip_hex = d.strip_hex;
	t.total[0] = t.total[1] = fg_count_of(0);
	out = fg_stacks_new();
	if (!out)
		goto nomem;
	/* AFTER first: its order is the output order */
	for (int col = 1; col >= 0; col--) {
		struct walk w = { &t, col };
		if (fg_stacks_foreach(prof[col], add_line, &w))
			goto nomem;
	}
	if (d.normalize && fg_count_cmp(t.total[0], t.total[1])) {
		if (fg_count_is_zero(t.total[0])) {
			ow_err("diff: -n: %s has no counts to scale", argv[1]);
			goto out;
		}
		for (size_t i = 0; i < t.n; i++) {
			struct fg_count *c = &t.e[t.order[i]].c[0];
			*c = fg_count_int(fg_count_div(fg_count_mul(*c, t.total[1]), t.total[0]));
		}
	}

	/* the counts' unit, unless --countname says: the SVGs' own (AFTER's
	 * first), else microseconds for an off-wake profile's folded text */
	if (unit[0][0] && unit[1][0] && strcmp(unit[0], unit[1]))
		ow_err("diff: warning: %s counts %s, %s counts %s: compared as numbers",
		       argv[1], unit[0], argv[2], unit[1]);
	if (o.countname == countname)
		o.countname = unit[1][0] ? unit[1] : unit[0][0] ? unit[0] :
			      t.offwake ? "us" : countname;
	o.delta_inclusive = 1;	/* a frame's change is its whole width's */
	fg_stacks_set_reverse(out, o.reverse);
	fg_stacks_set_max_depth(out, (size_t)o.max_depth);
	if (report_out_open(&ro, "diff", out_name))
		goto out;
	opened = 1;
	if (emit(&t, d.folded ? ro.f : NULL, out)) {
		if (!d.folded)
			goto nomem;
		if (errno != EPIPE)
			ow_err("diff: writing the stacks: %s", strerror(errno));
		goto out;
	}
	if (d.folded) {
		ret = 0;
		goto out;
	}
	ret = fg_render(&o, out, ro.f);
	if (ret < 0) {
		if (errno != EPIPE)
			ow_err("diff: %s the SVG: %s", errno == ENOMEM ? "rendering" : "writing",
			       ow_strerror(errno));
		ret = 1;
	}
	goto out;
nomem:
	ow_err("diff: out of memory");
	ret = 1;
out:
	/* status 2: the error SVG is written, and kept, as on standard output */
	if (opened && report_out_close(&ro, ret == FG_EXIT_OK || ret == FG_EXIT_EMPTY))
		ret = 1;
	fg_stacks_free(prof[0]);
	fg_stacks_free(prof[1]);
	fg_stacks_free(out);
	for (size_t i = 0; i < t.nkeys; i++)
		free(t.k[i].text);
	free(t.k);
	htab_free(&t.ids);
	free(t.e);
	free(t.order);
	free(t.buf);
	return ret;
}
