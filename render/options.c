/* SPDX-License-Identifier: Apache-2.0 */
/*
 * options.c - flamegraph.pl's options: one table of names, types and
 * defaults, and a parser with Getopt::Long's default rules (--opt=value,
 * --opt value, one or two dashes, case-insensitive unique prefixes,
 * operands anywhere, "--" to stop).
 */
#include "fg.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum otype { O_STR, O_INT, O_FLOAT, O_FLAG, O_HELP };

struct optdef {
	const char *name;
	enum otype type;
	size_t off;		/* the field in struct fg_options */
	size_t text_off;	/* for floats: the field keeping the literal text */
};

#define F(x) offsetof(struct fg_options, x)
static const struct optdef opts[] = {
	{ "fonttype", O_STR, F(fonttype), 0 },
	{ "width", O_INT, F(width), 0 },
	{ "height", O_INT, F(height), 0 },
	{ "encoding", O_STR, F(encoding), 0 },
	{ "fontsize", O_FLOAT, F(fontsize), F(fontsize_text) },
	{ "fontwidth", O_FLOAT, F(fontwidth), F(fontwidth_text) },
	{ "minwidth", O_STR, F(minwidth), 0 },
	{ "title", O_STR, F(title), 0 },
	{ "subtitle", O_STR, F(subtitle), 0 },
	{ "nametype", O_STR, F(nametype), 0 },
	{ "countname", O_STR, F(countname), 0 },
	{ "nameattr", O_STR, F(nameattr), 0 },
	{ "total", O_STR, F(total), 0 },
	{ "factor", O_FLOAT, 0, F(factor) },
	{ "colors", O_STR, F(colors), 0 },
	{ "bgcolors", O_STR, F(bgcolors), 0 },
	{ "hash", O_FLAG, F(hash), 0 },
	{ "random", O_FLAG, F(random), 0 },
	{ "cp", O_FLAG, F(cp), 0 },
	{ "reverse", O_FLAG, F(reverse), 0 },
	{ "inverted", O_FLAG, F(inverted), 0 },
	{ "flamechart", O_FLAG, F(flamechart), 0 },
	{ "negate", O_FLAG, F(negate), 0 },
	{ "notes", O_STR, F(notes), 0 },
	{ "maxdepth", O_INT, F(max_depth), 0 },
	{ "maxsize", O_INT, F(max_size), 0 },
	{ "help", O_HELP, 0, 0 },
};
#undef F
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

void fg_options_init(struct fg_options *o)
{
	memset(o, 0, sizeof(*o));
	o->title = NULL;
	o->subtitle = "";
	o->width = 1200;
	o->height = 16;
	o->fontsize = 12;
	o->fontsize_text = "12";
	o->fontwidth = 0.59;
	o->fontwidth_text = "0.59";
	o->minwidth = "0.1";
	o->fonttype = "Verdana";
	o->countname = "samples";
	o->nametype = "Function:";
	o->colors = "hot";
	o->bgcolors = "";
	o->palette_file = "palette.map";
	o->notes = "";
	o->factor = "1";
	o->chain_grey_waker_dash = 1;
	o->max_depth = FG_MAX_DEPTH;
	o->max_size = 1024;
}

void fg_usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [OPTIONS] [FILE...] > graph.svg\n"
"Render folded stacks (\"frame;frame;... COUNT\" lines, from the FILEs or\n"
"standard input) as an interactive SVG flame graph; flamegraph.pl's options.\n"
"\n"
"  --title TEXT       heading (default \"Flame Graph\")\n"
"  --subtitle TEXT    second heading (optional)\n"
"  --width NUM        image width in pixels (default 1200)\n"
"  --height NUM       frame height in pixels (default 16)\n"
"  --minwidth NUM     omit frames narrower than NUM pixels, or NUM%% of the\n"
"                     total with a %% sign (default 0.1)\n"
"  --fonttype FONT    font family (default \"Verdana\")\n"
"  --fontsize NUM     font size (default 12)\n"
"  --fontwidth NUM    average glyph width / font size (default 0.59)\n"
"  --countname TEXT   count unit in tooltips (default \"samples\")\n"
"  --nametype TEXT    name label in the detail line (default \"Function:\")\n"
"  --colors PALETTE   hot (default), mem, io, wakeup, chain, java, js, perl,\n"
"                     red, green, blue, aqua, yellow, purple, orange\n"
"  --bgcolors COLOR   background: yellow, blue, green, grey, or #rrggbb\n"
"  --hash             colours from a hash of the function name\n"
"  --random           random colours\n"
"  --cp               consistent palette, kept in ./palette.map\n"
"  --reverse          reverse every stack before merging\n"
"  --inverted         icicle graph (root at the top)\n"
"  --flamechart       flame chart: keep the input order, do not sort\n"
"  --negate           swap the differential hues (blue <-> red)\n"
"  --notes TEXT       text for a NOTES comment in the SVG\n"
"  --total NUM        treat NUM as the total count\n"
"  --factor NUM       multiply the counts shown by NUM\n"
"  --encoding NAME    encoding named in the XML declaration\n"
"  --nameattr FILE    per-function attributes (name<TAB>key=value...)\n"
"  --maxdepth NUM     cut stacks deeper than NUM frames to NUM, the last one\n"
"                     [truncated] (default %d; 0: no limit)\n"
"  --maxsize MB       refuse to write an SVG estimated above MB megabytes\n"
"                     (default 1024; 0: no limit)\n"
"  --help             this text\n"
"\n"
"Options may be abbreviated to a unique prefix and written with one or two\n"
"dashes.  Exit status: 0 ok, 2 no valid input (an error SVG is written),\n"
"255 bad option.\n"
"\n"
"Example: %s --title=\"Off-Wake Time\" --colors=chain --countname=us out.folded > out.svg\n",
		prog, FG_MAX_DEPTH, prog);
}

/* Getopt::Long's integer: [-+]?_*[0-9][0-9_]* (underscores dropped). */
static int parse_int(const char *s, long long *out)
{
	char buf[64];
	size_t n = 0;
	const char *p = s;

	if (*p == '+' || *p == '-')
		buf[n++] = *p++;
	while (*p == '_')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	for (; *p; p++) {
		if (*p == '_')
			continue;
		if (!isdigit((unsigned char)*p) || n >= sizeof(buf) - 1)
			return -1;
		buf[n++] = *p;
	}
	buf[n] = 0;
	char *end;
	*out = strtoll(buf, &end, 10);
	return *end ? -1 : 0;
}

/* Getopt::Long's float: [-+]?(?=[0-9.])[0-9_]*(\.[0-9_]+)?([eE][-+]?[0-9_]+)?
 * Drops the underscores in place and returns the text, or NULL. */
static char *parse_float(char *s, double *out)
{
	const char *p = s;

	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p) && *p != '.')
		return NULL;
	while (isdigit((unsigned char)*p) || *p == '_')
		p++;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p) && *p != '_')
			return NULL;
		while (isdigit((unsigned char)*p) || *p == '_')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p) && *p != '_')
			return NULL;
		while (isdigit((unsigned char)*p) || *p == '_')
			p++;
	}
	if (*p)
		return NULL;
	char *q = s;
	for (p = s; *p; p++)
		if (*p != '_')
			*q++ = *p;
	*q = 0;
	/* a lone "." has no digits: Perl reads it as 0, and so does strtod */
	*out = strtod(s, NULL);
	return s;
}

static const struct optdef *find_opt(const char *name, size_t len, const char *prog)
{
	const struct optdef *hit = NULL;
	int nhits = 0;

	for (size_t i = 0; i < NOPTS; i++) {
		if (strlen(opts[i].name) == len && !strncasecmp(opts[i].name, name, len))
			return &opts[i];
		if (len && !strncasecmp(opts[i].name, name, len)) {
			hit = &opts[i];
			nhits++;
		}
	}
	if (nhits == 1)
		return hit;
	if (nhits > 1) {
		fprintf(stderr, "%s: option %.*s is ambiguous (", prog, (int)len, name);
		const char *sep = "";
		for (size_t i = 0; i < NOPTS; i++)
			if (!strncasecmp(opts[i].name, name, len)) {
				fprintf(stderr, "%s%s", sep, opts[i].name);
				sep = ", ";
			}
		fprintf(stderr, ")\n");
	} else {
		fprintf(stderr, "%s: unknown option: %.*s\n", prog, (int)len, name);
	}
	return NULL;
}

int fg_option_arity(const char *name, size_t len)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strlen(opts[i].name) == len && !strncasecmp(opts[i].name, name, len))
			return opts[i].type == O_FLAG || opts[i].type == O_HELP ? 0 : 1;
	return -1;
}

int fg_options_parse(struct fg_options *o, int argc, char **argv, int *nfiles, const char *prog)
{
	return fg_options_parse_ex(o, argc, argv, nfiles, prog, 0);
}

int fg_options_parse_ex(struct fg_options *o, int argc, char **argv, int *nfiles,
			const char *prog, unsigned flags)
{
	int nf = 0, errors = 0, help = 0, i;

	for (i = 0; i < argc; i++) {
		char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {	/* operand ("-" is standard input) */
			argv[nf++] = a;
			continue;
		}
		const char *name = a + 1 + (a[1] == '-');
		const char *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		const struct optdef *d = find_opt(name, len, prog);
		if (!d) {
			errors++;
			continue;
		}
		char *base = (char *)o;
		if (d->type == O_FLAG || d->type == O_HELP) {
			if (eq) {
				fprintf(stderr, "%s: option %s does not take an argument\n", prog, d->name);
				errors++;
			} else if (d->type == O_HELP) {
				help = 1;
			} else {
				*(int *)(base + d->off) = 1;
			}
			continue;
		}
		char *val = eq ? (char *)eq + 1 : NULL;
		if (!val && i + 1 < argc)
			val = argv[++i];
		if (!val || (eq && !*val)) {
			fprintf(stderr, "%s: option %s requires an argument\n", prog, d->name);
			errors++;
			continue;
		}
		if (d->type == O_STR) {
			*(const char **)(base + d->off) = val;
		} else if (d->type == O_INT) {
			long long v;
			if (parse_int(val, &v)) {
				fprintf(stderr, "%s: value \"%s\" invalid for option %s (number expected)\n",
					prog, val, d->name);
				errors++;
			} else {
				*(long long *)(base + d->off) = v;
			}
		} else {
			double v;
			char *text = parse_float(val, &v);
			if (!text) {
				fprintf(stderr, "%s: value \"%s\" invalid for option %s (real number expected)\n",
					prog, val, d->name);
				errors++;
			} else {
				if (d->off)
					*(double *)(base + d->off) = v;
				*(const char **)(base + d->text_off) = text;
			}
		}
	}
	for (; i < argc; i++)
		argv[nf++] = argv[i];
	*nfiles = nf;
	if (errors) {
		if (!(flags & FG_PARSE_NO_USAGE))
			fg_usage(stderr, prog);
		return -1;
	}
	if (help) {
		fg_usage(stdout, prog);
		return 1;
	}
	return 0;
}
