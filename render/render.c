/* SPDX-License-Identifier: Apache-2.0 */
/*
 * render.c - fg_render(): merged nodes -> pruning, geometry, colours and
 * the SVG document, following flamegraph.pl's formulas (spec §5-§12).
 */
#include "fg.h"
#include "flow.h"
#include "heatmap.h"
#include "nameattr.h"
#include "outbuf.h"
#include "palette.h"
#include "utf8.h"

#include <errno.h>
#include <iconv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const char fg_script_js[];
extern const char fg_heatmap_js[];

#define XPAD 10

static int perl_true(const char *s)
{
	return s && *s && strcmp(s, "0");
}

/* flamegraph.pl's --minwidth check: ^([0-9.]+)%?$ */
static int minwidth_value(const char *s, double *v, int *pct)
{
	size_t n = strspn(s, "0123456789.");

	if (!n || (s[n] && !(s[n] == '%' && !s[n + 1])))
		return -1;
	*pct = s[n] == '%';
	char *tmp = strndup(s, n);
	if (!tmp)
		return -1;
	*v = pnum_d(pnum_numify(tmp));
	free(tmp);
	return 0;
}

/* XML's EncName: [A-Za-z]([A-Za-z0-9._]|'-')* */
static int valid_encname(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == strlen(s);
}

/*
 * Whether a document declared in encoding enc reads our bytes as written:
 * the SVG is UTF-8, its markup and script ASCII, so an encoding in which
 * ASCII text is other bytes (UTF-16, UTF-32, EBCDIC, Shift_JIS's yen sign)
 * would make it ill-formed or change it.  An encoding iconv does not know
 * cannot be judged and is accepted, as flamegraph.pl accepts any.
 */
static int reads_as_ascii(const char *enc)
{
	static const char ascii[] = "\t\n\r !\"#$%&'()*+,-./0123456789:;<=>?@"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
	char out[4 * sizeof(ascii)], *in = (char *)ascii, *op = out;
	size_t inl = sizeof(ascii) - 1, outl = sizeof(out);
	iconv_t cd = iconv_open(enc, "US-ASCII");

	if (cd == (iconv_t)-1)
		return 1;
	int ok = iconv(cd, &in, &inl, &op, &outl) != (size_t)-1 &&
		 iconv(cd, NULL, NULL, &op, &outl) != (size_t)-1;
	iconv_close(cd);
	return ok && !inl && (size_t)(op - out) == sizeof(ascii) - 1 &&
	       !memcmp(out, ascii, sizeof(ascii) - 1);
}

int fg_options_check(const struct fg_options *o)
{
	double mw;
	int pct;
	char err[512], s1[32], s2[32];

	if (o->nameattr) {
		struct fg_attrtab t;
		if (fg_attrtab_load(&t, o->nameattr, err, sizeof(err))) {
			fprintf(stderr, "offwake-svg: %s\n", err);
			return FG_EXIT_USAGE;
		}
		fg_attrtab_free(&t);
	}
	if (minwidth_value(o->minwidth, &mw, &pct) || !isfinite(mw)) {
		fprintf(stderr, "offwake-svg: value '%s' is invalid for --minwidth, expected a number of pixels or a percentage\n",
			o->minwidth);
		return FG_EXIT_USAGE;
	}
	if (o->width <= 2 * XPAD || o->width > 10000000) {
		fprintf(stderr, "offwake-svg: --width %lld is out of range (%d to 10000000 pixels)\n",
			o->width, 2 * XPAD + 1);
		return FG_EXIT_USAGE;
	}
	if (o->height < 1 || o->height > 100000) {
		fprintf(stderr, "offwake-svg: --height %lld is out of range (1 to 100000 pixels)\n",
			o->height);
		return FG_EXIT_USAGE;
	}
	/* numbers that would put Inf or NaN into the drawing or the script */
	if (!(o->fontsize > 0 && o->fontsize <= 100000)) {
		fprintf(stderr, "offwake-svg: --fontsize %s is out of range (above 0, up to 100000 pixels)\n",
			o->fontsize_text);
		return FG_EXIT_USAGE;
	}
	if (!(o->fontwidth > 0 && o->fontwidth <= 1000)) {
		fprintf(stderr, "offwake-svg: --fontwidth %s is out of range (above 0, up to 1000)\n",
			o->fontwidth_text);
		return FG_EXIT_USAGE;
	}
	if (o->factor && !isfinite(pnum_d(pnum_numify(o->factor)))) {
		fprintf(stderr, "offwake-svg: --factor %s is not a finite number\n", o->factor);
		return FG_EXIT_USAGE;
	}
	if (o->total && perl_true(o->total) && !isfinite(pnum_d(pnum_numify(o->total)))) {
		fprintf(stderr, "offwake-svg: --total %s is not a finite number\n", o->total);
		return FG_EXIT_USAGE;
	}
	if (o->max_depth < 0 || o->max_depth > UINT32_MAX) {
		fprintf(stderr, "offwake-svg: --maxdepth %lld is out of range (0 for no limit, or 1 to %u frames)\n",
			o->max_depth, UINT32_MAX);
		return FG_EXIT_USAGE;
	}
	if (o->max_size < 0 || o->max_size > (1LL << 40)) {
		fprintf(stderr, "offwake-svg: --maxsize %lld is out of range (0 for no limit, or 1 to %lld MB)\n",
			o->max_size, 1LL << 40);
		return FG_EXIT_USAGE;
	}
	if (o->encoding && !valid_encname(o->encoding)) {
		fprintf(stderr, "offwake-svg: --encoding '%s' is not an encoding name\n", o->encoding);
		return FG_EXIT_USAGE;
	}
	if (o->encoding && !reads_as_ascii(o->encoding)) {
		fprintf(stderr, "offwake-svg: --encoding %s: the SVG is written in UTF-8, which a document "
			"declared %s would not read as written (use UTF-8 or an ASCII-compatible encoding)\n",
			o->encoding, o->encoding);
		return FG_EXIT_USAGE;
	}
	struct fg_palette *p = fg_palette_load(o->colors, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "offwake-svg: %s\n", err);
		return FG_EXIT_USAGE;
	}
	int bad = fg_palette_background(p, o->bgcolors, s1, s2);
	fg_palette_free(p);
	if (bad) {
		fprintf(stderr, "offwake-svg: unrecognized --bgcolors value \"%s\"\n", o->bgcolors);
		return FG_EXIT_USAGE;
	}
	return 0;
}

struct ctx {
	const struct fg_options *o;
	FILE *out;
	struct fg_stacks *s;
	struct fg_flow flow;
	struct outbuf ob;
	struct fg_palette *pal;
	enum fg_vmode vmode;
	int chain;
	struct pnum timemax, factor;
	int factor_one;		/* --factor is 1: tooltips give input counts */
	struct pnum timemax_f;	/* timemax * factor, the tooltips' 100% */
	double timemax_d, wpt, fontsize, imageheight, ypad1, ypad2;
	/* per frame id */
	char (*colour)[24];	/* cached palette colour, "" = not yet */
	int32_t *attr;		/* index into attrs, -1 none */
	int32_t *palidx;	/* index into palmap, -1 none */
	uint8_t *plain;		/* 1: the name needs no escaping, even in an attribute */
	uint8_t *fixed;		/* 1: colour[] holds the palette's fixed colour
				 * (NULL: none applies) */
	struct fg_attrtab attrs;
	struct fg_palmap palmap;
	uint32_t f_dash, f_dashdash;
	size_t nframes;		/* frames of the set when the tables were made */
	const struct fg_events *ev;	/* NULL: no heat map */
	struct fg_heat heat;
	double mwf;		/* --minwidth's number */
	int mwpct;		/* and whether it is a percentage */
};

/* The SVG header: XML declaration, DOCTYPE, <svg>, the two comments. */
static void write_header(struct ctx *c, double height)
{
	const struct fg_options *o = c->o;
	struct outbuf *ob = &c->ob;

	ob_puts(ob, "<?xml version=\"1.0\"");
	if (o->encoding) {
		ob_puts(ob, " encoding=\"");
		ob_escape(ob, o->encoding, strlen(o->encoding), OB_ESC_ATTR);
		ob_puts(ob, "\"");
	}
	ob_puts(ob, " standalone=\"no\"?>\n"
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		"\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
	ob_printf(ob, "<svg version=\"1.1\" width=\"%lld\" height=\"", o->width);
	ob_perlnum(ob, height);
	ob_printf(ob, "\" onload=\"init(evt)\" viewBox=\"0 0 %lld ", o->width);
	ob_perlnum(ob, height);
	ob_puts(ob, "\" xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
		"xmlns:fg=\"" FG_NS "\">\n"
		"<!-- Flame graph stack visualization. See https://github.com/brendangregg/FlameGraph "
		"for latest version, and http://www.brendangregg.com/flamegraphs.html for examples. -->\n"
		"<!-- NOTES: ");
	ob_escape(ob, o->notes, strlen(o->notes), OB_ESC_COMMENT);
	ob_puts(ob, " -->\n");
}

/* <text> as flamegraph.pl's stringTTF writes it (content already escaped
 * by the caller when it comes from input). */
static void text_open(struct outbuf *ob, const char *id, double x, double y, const char *extra)
{
	ob_puts(ob, "<text ");
	if (id) {
		ob_puts(ob, "id=\"");
		ob_puts(ob, id);
		ob_puts(ob, "\"");
	}
	ob_puts(ob, " x=\"");
	ob_fixed(ob, x, 2);
	ob_puts(ob, "\" y=\"");
	ob_perlnum(ob, y);
	ob_puts(ob, "\" ");
	ob_puts(ob, extra);
	ob_puts(ob, ">");
}

static void fixed_text(struct ctx *c, const char *id, double x, double y, const char *extra,
		       const char *content)
{
	text_open(&c->ob, id, x, y, extra);
	ob_escape(&c->ob, content, strlen(content), OB_ESC_TEXT);
	ob_puts(&c->ob, "</text>\n");
}

static void write_heat_data(struct ctx *c);

static void write_head(struct ctx *c, const char *bg1, const char *bg2)
{
	const struct fg_options *o = c->o;
	struct outbuf *ob = &c->ob;

	ob_puts(ob, "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n"
		"\t\t<stop stop-color=\"");
	ob_escape(ob, bg1, strlen(bg1), OB_ESC_ATTR);
	ob_puts(ob, "\" offset=\"5%\" />\n\t\t<stop stop-color=\"");
	ob_escape(ob, bg2, strlen(bg2), OB_ESC_ATTR);
	ob_puts(ob, "\" offset=\"95%\" />\n\t</linearGradient>\n</defs>\n"
		"<style type=\"text/css\">\n\ttext { font-family:");
	ob_escape(ob, o->fonttype, strlen(o->fonttype), OB_ESC_CSS);
	ob_puts(ob, "; font-size:");
	ob_escape(ob, o->fontsize_text, strlen(o->fontsize_text), OB_ESC_CSS);
	ob_puts(ob, "px; fill:rgb(0,0,0); }\n"
		"\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
		"\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
		"\t#subtitle { text-anchor:middle; font-color:rgb(160,160,160); }\n"
		"\t#title { text-anchor:middle; font-size:");
	ob_perlnum(ob, c->fontsize + 5);
	ob_puts(ob, "px}\n"
		"\t#unzoom { cursor:pointer; }\n"
		"\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		"\t.hide { display:none; }\n"
		"\t.parent { opacity:0.5; }\n"
		"</style>\n"
		"<script type=\"text/ecmascript\">\n<![CDATA[\n"
		"var fg_config = {\"nametype\":");
	ob_json(ob, o->nametype, strlen(o->nametype));
	ob_puts(ob, ",\"fontsize\":");
	ob_perlnum(ob, c->fontsize);
	ob_puts(ob, ",\"fontwidth\":");
	ob_perlnum(ob, o->fontwidth);
	ob_printf(ob, ",\"xpad\":%d,\"inverted\":%s,\"searchcolor\":\"rgb(230,0,230)\"};\n",
		  XPAD, o->inverted ? "true" : "false");
	ob_puts(ob, fg_script_js);
	if (c->ev)
		write_heat_data(c);
	ob_puts(ob, "]]>\n</script>\n");
}

/* strip one trailing annotation _[k] _[w] _[i] _[j] */
static size_t strip_annotation(const char *s, size_t len)
{
	if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']' &&
	    strchr("kwij", s[len - 2]) && s[len - 2])
		return len - 4;
	return len;
}

static const char *frame_fill(struct ctx *c, const struct fg_node *nd, char *buf, size_t size)
{
	const struct fg_options *o = c->o;
	size_t len;
	const char *name = fg_frame_name(c->s, nd->frame, &len);

	if (nd->frame == c->f_dashdash)
		return "rgb(160,160,160)";
	if (nd->frame == c->f_dash)
		return "rgb(200,200,200)";
	if (c->fixed && c->fixed[nd->frame])
		return c->colour[nd->frame];
	if (nd->has_delta) {
		fg_delta_color(fg_num_get(nd->delta), c->flow.maxdelta, o->negate, buf, size);
		return buf;
	}
	if (o->cp) {
		int32_t i = c->palidx[nd->frame];
		if (i < 0) {
			fg_palette_color(c->pal, c->vmode, name, len, buf, size);
			if (fg_palmap_add(&c->palmap, name, len, buf))
				return buf;
			i = c->palidx[nd->frame] = c->palmap.n - 1;
		}
		const char *v = c->palmap.v[i].value;
		return v ? v : "";
	}
	if (c->vmode == FG_V_RANDOM) {
		fg_palette_color(c->pal, c->vmode, name, len, buf, size);
		return buf;
	}
	if (!c->colour[nd->frame][0])
		fg_palette_color(c->pal, c->vmode, name, len, c->colour[nd->frame], sizeof(c->colour[0]));
	return c->colour[nd->frame];
}

/* Some bytes of a frame name, escaped unless the whole name needs none. */
static void put_name(const struct ctx *c, struct outbuf *ob, uint32_t frame, const char *name,
		     size_t len, enum ob_escape how)
{
	if (c->plain[frame])
		ob_write(ob, name, len);
	else
		ob_escape(ob, name, len, how);
}

/* One attribute of a frame's group: name (="..., NULL: value is raw
 * text) and value, after a space from the one before. */
static void group_attr(struct outbuf *ob, int *np, const char *name, const char *value)
{
	if ((*np)++)
		ob_puts(ob, " ");
	if (name)
		ob_puts(ob, name);
	ob_puts(ob, value);
	if (name)
		ob_puts(ob, "\"");
}

/*
 * The frame's exact extent in input counts: fg:x="START" and, unless the
 * tooltip already shows the count exactly (no --factor, below 10^15, and
 * for the root no --total), fg:w="COUNT".  The x and width flamegraph.pl
 * draws are rounded to 0.1 px, which cannot tell the parents of sub-pixel
 * frames apart; unfold reads these instead.  Namespaced, so browsers and
 * flamegraph.pl-based tools ignore them.  Written when both are integers,
 * as counts nearly always are.
 */
static void exact_extent(const struct ctx *c, struct outbuf *ob, struct pnum start,
			 struct pnum end, int shown)
{
	char buf[64], *p = buf;

	if (start.is_nv || end.is_nv || start.iv < 0 || end.iv < start.iv || end.iv > UINT64_MAX)
		return;
	uint64_t w = (uint64_t)(end.iv - start.iv);
	p += sprintf(p, " fg:x=\"");
	p += fg_u64_digits(p, (uint64_t)start.iv);
	*p++ = '"';
	if (!shown || !c->factor_one || w >= 1000000000000000ULL) {
		p += sprintf(p, " fg:w=\"");
		p += fg_u64_digits(p, w);
		*p++ = '"';
	}
	ob_write(ob, buf, p - buf);
}

static void write_frame(struct ctx *c, struct outbuf *ob, const struct fg_node *nd)
{
	const struct fg_options *o = c->o;
	size_t len;
	const char *name = fg_frame_name(c->s, nd->frame, &len);
	int root = nd->frame == 0 && nd->depth == 0;
	struct pnum start = fg_num_get(nd->start);
	struct pnum end = root ? c->timemax : fg_num_get(nd->end);
	double x1 = XPAD + pnum_d(start) * c->wpt;
	double x2 = XPAD + pnum_d(end) * c->wpt;
	double y1, y2;
	char samples[400], fillbuf[48];

	if (!o->inverted) {
		y1 = c->imageheight - c->ypad2 - (nd->depth + 1.0) * o->height + 1;
		y2 = c->imageheight - c->ypad2 - (double)nd->depth * o->height;
	} else {
		y1 = c->ypad1 + (double)nd->depth * o->height;
		y2 = c->ypad1 + (nd->depth + 1.0) * o->height - 1;
	}
	struct pnum sp = pnum_mul(pnum_sub(end, start), c->factor);
	double spd = pnum_d(sp);
	if (spd == floor(spd) && spd >= 0 && spd < 1e15)
		pnum_fmt(pnum_iv((__int128)spd), samples, sizeof(samples));
	else
		snprintf(samples, sizeof(samples), "%.0f", spd);

	const struct fg_attrs *a = c->attr[nd->frame] >= 0 ? &c->attrs.v[c->attr[nd->frame]] : NULL;
	/* group start: <g ...> or <a ...>, attributes joined by spaces, the
	 * --nameattr values raw (the user's own markup) and of any length */
	int np = 0, link = a && perl_true(a->href);
	ob_puts(ob, link ? "<a " : "<g ");
	if (link) {
		group_attr(ob, &np, "xlink:href=\"", a->href);
		group_attr(ob, &np, "target=\"", perl_true(a->target) ? a->target : "_top");
		if (perl_true(a->a_extra))
			group_attr(ob, &np, NULL, a->a_extra);
	}
	if (a && a->has_id)
		group_attr(ob, &np, "id=\"", a->id ? a->id : "");
	if (a && a->has_class)
		group_attr(ob, &np, "class=\"", a->class_ ? a->class_ : "");
	if (a && perl_true(a->g_extra))
		group_attr(ob, &np, NULL, a->g_extra);
	ob_puts(ob, ">\n<title>");
	if (a && perl_true(a->title)) {
		ob_puts(ob, a->title);
	} else if (root) {
		ob_puts(ob, "all (");
		ob_commas(ob, samples);
		ob_puts(ob, " ");
		ob_escape(ob, o->countname, strlen(o->countname), OB_ESC_TEXT);
		ob_puts(ob, ", 100%)");
	} else {
		struct pnum tf = c->timemax_f;
		/* Perl reads the "%.0f" string back as a number */
		struct pnum sv = spd == floor(spd) && spd >= 0 && spd < 1e15 ?
				 pnum_iv((__int128)spd) : pnum_numify(samples);
		struct pnum s100 = pnum_mul(pnum_iv(100), sv);
		put_name(c, ob, nd->frame, name, strip_annotation(name, len), OB_ESC_ATTR);
		ob_puts(ob, " (");
		ob_commas(ob, samples);
		ob_puts(ob, " ");
		ob_escape(ob, o->countname, strlen(o->countname), OB_ESC_TEXT);
		ob_puts(ob, ", ");
		ob_fixed(ob, pnum_d(pnum_div(s100, tf)), 2);
		ob_puts(ob, "%");
		if (nd->has_delta) {
			struct pnum d = fg_num_get(nd->delta);
			if (o->negate)
				d = pnum_sub(pnum_iv(0), d);
			struct pnum dp = pnum_div(pnum_mul(pnum_iv(100), d), tf);
			ob_printf(ob, "; %s%.2f%%", pnum_cmp(d, pnum_iv(0)) > 0 ? "+" : "", pnum_d(dp));
		}
		ob_puts(ob, ")");
	}
	ob_puts(ob, "</title>");

	/* rect: x and width from the %.1f-rounded edges */
	long long t1, t2;
	ob_puts(ob, "<rect x=\"");
	if (!fg_round_fixed(x1, 1, &t1) && !fg_round_fixed(x2, 1, &t2)) {
		ob_scaled(ob, t1, 1, x1 < 0);
		ob_puts(ob, "\" y=\"");
		ob_perlnum(ob, y1);
		ob_puts(ob, "\" width=\"");
		ob_scaled(ob, t2 - t1, 1, 0);
	} else {
		char bx1[48], bx2[48];
		snprintf(bx1, sizeof(bx1), "%.1f", x1);
		snprintf(bx2, sizeof(bx2), "%.1f", x2);
		ob_puts(ob, bx1);
		ob_puts(ob, "\" y=\"");
		ob_perlnum(ob, y1);
		ob_puts(ob, "\" width=\"");
		ob_fixed(ob, strtod(bx2, NULL) - strtod(bx1, NULL), 1);
	}
	ob_puts(ob, "\" height=\"");
	ob_fixed(ob, y2 - y1, 1);
	ob_puts(ob, "\" fill=\"");
	const char *fill = frame_fill(c, nd, fillbuf, sizeof(fillbuf));
	ob_escape(ob, fill, strlen(fill), OB_ESC_ATTR);	/* palette.map values too */
	ob_puts(ob, "\" rx=\"2\" ry=\"2\"");
	exact_extent(c, ob, start, root ? c->flow.total : end,
		     !root || !pnum_cmp(c->flow.total, c->timemax));
	ob_puts(ob, " />\n");

	/* label */
	text_open(ob, NULL, x1 + 3, 3 + (y1 + y2) / 2, "");
	double chars = trunc((x2 - x1) / (c->fontsize * o->fontwidth));
	if (chars >= 3) {
		size_t nlen = strip_annotation(name, len);
		size_t ncp = utf8_count(name, nlen);
		if (chars < (double)ncp) {
			size_t keep = utf8_prefix_bytes(name, nlen, (size_t)chars - 2);
			put_name(c, ob, nd->frame, name, keep, OB_ESC_TEXT);
			ob_puts(ob, "..");
		} else {
			put_name(c, ob, nd->frame, name, nlen, OB_ESC_TEXT);
		}
	}
	ob_puts(ob, "</text>\n");
	ob_puts(ob, link ? "</a>\n" : "</g>\n");
}

struct frames_job {
	struct ctx *c;
	const uint32_t *order;
	size_t n;
};

static void write_item(void *ctx, struct outbuf *ob, size_t i)
{
	const struct frames_job *j = ctx;
	const struct fg_node *nodes = j->c->flow.nodes;

	/* fetch the nodes (both cache lines: malloc does not align them to
	 * 64 bytes) and then their names ahead */
	if (i + 16 < j->n) {
		const struct fg_node *ahead = &nodes[j->order[i + 16]];
		__builtin_prefetch(ahead);
		__builtin_prefetch((const char *)(ahead + 1) - 1);
	}
	if (i + 8 < j->n) {
		size_t len;
		__builtin_prefetch(fg_frame_name(j->c->s, nodes[j->order[i + 8]].frame, &len));
	}
	write_frame(j->c, ob, &nodes[j->order[i]]);
}

/*
 * The frames, in order.  Two threads write them when every fill is a
 * function of the frame alone: the fills are worked out first, so the
 * threads only read.  --cp and --random keep one thread (palette.map
 * entries and random colours come in drawing order).
 */
static void write_frames(struct ctx *c, const uint32_t *order, size_t n)
{
	struct frames_job j = { c, order, n };
	char buf[48];

	if (c->o->cp || c->vmode == FG_V_RANDOM) {
		for (size_t i = 0; i < n; i++)
			write_item(&j, &c->ob, i);
		return;
	}
	for (size_t i = 0; i < c->flow.n; i++)
		if (!c->flow.nodes[i].dropped)
			frame_fill(c, &c->flow.nodes[i], buf, sizeof(buf));
	ob_write_items(&c->ob, n, write_item, &j);
}

/* A frame's fill in the range graphs: the static graph's for the same
 * name (and for a waker-side frame of the chain palette, that of its
 * name annotated _[w]), else the palette's. */
static void event_fill(void *ctx, const char *name, size_t len, int waker, char *buf, size_t size)
{
	struct ctx *c = ctx;
	char *wname = waker ? malloc(len + 4) : NULL;
	uint32_t id = FG_NONE;

	if (waker && wname) {
		memcpy(wname, name, len);
		memcpy(wname + len, "_[w]", 4);
		name = wname;
		len += 4;
	}
	if (!waker || wname)
		id = fg_frame_lookup(c->s, name, len);
	if (id != FG_NONE && id < c->nframes) {
		struct fg_node nd = { .frame = id };
		snprintf(buf, size, "%s", frame_fill(c, &nd, buf, size));
	} else if (len == 2 && !memcmp(name, "--", 2)) {
		snprintf(buf, size, "rgb(160,160,160)");
	} else if (len == 1 && *name == '-') {
		snprintf(buf, size, "rgb(200,200,200)");
	} else {
		fg_palette_color(c->pal, c->vmode, name, len, buf, size);
	}
	free(wname);
}

/* `var fg_heat = {...};` and the script that reads it (heatmap.js):
 * where the graph's frames go, its options, then the map's data. */
static void write_heat_data(struct ctx *c)
{
	const struct fg_options *o = c->o;
	struct outbuf *ob = &c->ob;

	ob_puts(ob, "var fg_heat = {\"countname\":");
	ob_json(ob, o->countname, strlen(o->countname));
	ob_puts(ob, ",\"factor\":");
	ob_perlnum(ob, pnum_d(c->factor));
	ob_puts(ob, ",\"minwidth\":");
	ob_perlnum(ob, c->mwf);
	ob_printf(ob, ",\"minpct\":%s,\"width\":%lld,\"height\":%lld,\"chain\":%s,\"ybottom\":",
		  c->mwpct ? "true" : "false", o->width, o->height, c->chain ? "true" : "false");
	ob_perlnum(ob, c->imageheight - c->ypad2);
	ob_puts(ob, ",\"ytop\":");
	ob_perlnum(ob, c->ypad1);
	ob_puts(ob, ",");
	if (fg_heat_data(&c->heat, ob, (size_t)o->max_depth, c->chain, event_fill, c))
		ob->err = ob->err ? ob->err : ENOMEM;
	ob_puts(ob, "};\n");
	ob_puts(ob, fg_heatmap_js);
}

static int write_error_svg(struct ctx *c)
{
	const struct fg_options *o = c->o;

	write_header(c, c->fontsize * 5);
	text_open(&c->ob, NULL, (double)(o->width / 2), c->fontsize * 2, "");
	if (o->empty_text)
		ob_escape(&c->ob, o->empty_text, strlen(o->empty_text), OB_ESC_TEXT);
	else
		ob_puts(&c->ob, "ERROR: No valid input provided to flamegraph.pl.");
	ob_puts(&c->ob, "</text>\n</svg>\n");
	return FG_EXIT_EMPTY;
}

static int setup_tables(struct ctx *c)
{
	const struct fg_options *o = c->o;
	size_t nf = fg_frame_count(c->s);
	char err[512];

	c->nframes = nf;
	c->colour = calloc(nf, sizeof(*c->colour));
	c->attr = malloc(nf * sizeof(*c->attr));
	c->palidx = malloc(nf * sizeof(*c->palidx));
	c->plain = malloc(nf);
	int fixed = o->chain_grey_waker_dash && fg_palette_has_fixed(c->pal);
	c->fixed = fixed ? calloc(nf, 1) : NULL;
	if (!c->colour || !c->attr || !c->palidx || !c->plain || (fixed && !c->fixed))
		return -1;
	for (size_t i = 0; i < nf; i++) {
		size_t len;
		const char *name = fg_frame_name(c->s, (uint32_t)i, &len);
		c->attr[i] = c->palidx[i] = -1;
		c->plain[i] = (uint8_t)ob_plain(name, len, OB_ESC_ATTR);
		const char *fixed = c->fixed ? fg_palette_fixed(c->pal, name, len) : NULL;
		if (fixed) {
			snprintf(c->colour[i], sizeof(c->colour[i]), "%s", fixed);
			c->fixed[i] = 1;
		}
	}
	if (o->nameattr) {
		if (fg_attrtab_load(&c->attrs, o->nameattr, err, sizeof(err))) {
			fprintf(stderr, "offwake-svg: %s\n", err);
			return FG_EXIT_USAGE;
		}
		for (size_t i = 0; i < c->attrs.n; i++) {
			uint32_t id = fg_frame_lookup(c->s, c->attrs.v[i].name, strlen(c->attrs.v[i].name));
			if (id != FG_NONE)
				c->attr[id] = i;
		}
	}
	if (o->cp) {
		if (fg_palmap_load(&c->palmap, o->palette_file, err, sizeof(err))) {
			fprintf(stderr, "offwake-svg: %s\n", err);
			return FG_EXIT_USAGE;
		}
		for (size_t i = 0; i < c->palmap.n; i++) {
			uint32_t id = fg_frame_lookup(c->s, c->palmap.v[i].key, strlen(c->palmap.v[i].key));
			if (id != FG_NONE)
				c->palidx[id] = i;
		}
	}
	return 0;
}

/*
 * The SVG's size, roughly, from the frames to draw: about 180 bytes of
 * markup and numbers each, and its name twice (tooltip and label).
 * One frame as wide as the graph at every depth of a deep stack is what
 * makes a huge SVG of a small input.
 */
#define FRAME_BYTES 180
#define FIXED_BYTES 40000

static int check_size(const struct ctx *c)
{
	const struct fg_flow *f = &c->flow;
	double bytes = FIXED_BYTES;
	size_t n = 0, len;

	if (!c->o->max_size)
		return 0;
	for (size_t i = 0; i < f->n; i++)
		if (!f->nodes[i].dropped) {
			fg_frame_name(c->s, f->nodes[i].frame, &len);
			bytes += FRAME_BYTES + 2.0 * len;
			n++;
		}
	if (bytes <= (double)c->o->max_size * 1048576)
		return 0;
	fprintf(stderr, "offwake-svg: the SVG would be about %.0f MB (%zu frames to draw), more than "
		"--maxsize %lld: a larger --minwidth (now %s) or a smaller --maxdepth draws fewer, "
		"--maxsize=0 writes it\n", bytes / 1048576, n, c->o->max_size, c->o->minwidth);
	return FG_EXIT_FAIL;
}

/* Nodes in output order: root first, then by depth, then by start. */
static uint32_t *order_nodes(const struct fg_flow *f, uint32_t depthmax, size_t *nkeep)
{
	uint32_t *cnt = calloc(depthmax + 2, sizeof(*cnt));
	uint32_t *out = malloc((f->n + 1) * sizeof(*out));

	if (!cnt || !out) {
		free(cnt);
		free(out);
		return NULL;
	}
	*nkeep = 0;
	for (size_t i = 0; i < f->n; i++)
		if (!f->nodes[i].dropped) {
			cnt[f->nodes[i].depth + 1]++;
			++*nkeep;
		}
	for (uint32_t d = 0; d <= depthmax; d++)
		cnt[d + 1] += cnt[d];
	for (size_t i = 0; i < f->n; i++)
		if (!f->nodes[i].dropped)
			out[cnt[f->nodes[i].depth]++] = i;
	free(cnt);
	return out;
}

static int render(struct ctx *c)
{
	const struct fg_options *o = c->o;
	struct fg_flow *f = &c->flow;
	char tbuf[64], err[512];
	int ret;

	c->chain = !strcmp(o->colors, "chain");
	c->vmode = o->hash ? FG_V_HASH : o->random ? FG_V_RANDOM : FG_V_DEFAULT;
	c->fontsize = o->fontsize;
	c->factor = pnum_numify(o->factor);
	c->factor_one = !pnum_cmp(c->factor, pnum_iv(1));
	if (fg_flow_total(c->s, o->flamechart, &f->total))
		return -1;
	c->pal = fg_palette_load(o->colors, err, sizeof(err));
	if (!c->pal) {
		fprintf(stderr, "offwake-svg: %s\n", err);
		return FG_EXIT_USAGE;
	}
	pnum_fmt(f->total, tbuf, sizeof(tbuf));
	if (!o->quiet && !strcmp(o->countname, "samples") && pnum_cmp(f->total, pnum_iv(100)) < 0)
		fprintf(stderr, "Stack count is low (%s). Did something go wrong?\n", tbuf);
	if (!o->quiet && fg_stacks_ignored(c->s))
		fprintf(stderr, "Ignored %zu lines with invalid format\n", fg_stacks_ignored(c->s));
	if (ob_init(&c->ob, c->out))
		return -1;
	if (pnum_is_zero(f->total)) {
		if (!o->empty_text)
			fprintf(stderr, "ERROR: No stack counts found\n");
		return write_error_svg(c);
	}
	c->timemax = f->total;
	if (perl_true(o->total)) {
		struct pnum t = pnum_numify(o->total);
		if (pnum_cmp(t, f->total) < 0) {
			if (!o->quiet && pnum_d(t) / pnum_d(f->total) > 0.02)
				fprintf(stderr, "Specified --total %s is less than actual total %s, so ignored\n",
					o->total, tbuf);
		} else {
			c->timemax = t;
		}
	}
	c->timemax_d = pnum_d(c->timemax);
	c->timemax_f = pnum_mul(c->timemax, c->factor);
	/* the tooltips' counts and percentages: a total that the factor makes
	 * infinite or 0 would print inf or nan (flamegraph.pl divides by 0) */
	if (!isfinite(pnum_d(c->timemax_f)) || pnum_is_zero(c->timemax_f)) {
		pnum_fmt(c->timemax, tbuf, sizeof(tbuf));
		fprintf(stderr, "offwake-svg: --factor %s: the total (%s) times the factor is %s\n",
			o->factor, tbuf, pnum_is_zero(c->timemax_f) ? "0: no percentage can be shown" :
			"not a finite number");
		return FG_EXIT_USAGE;
	}
	c->wpt = pnum_d(pnum_div(pnum_iv(o->width - 2 * XPAD), c->timemax));
	double mwf, mwt;
	int pct;
	minwidth_value(o->minwidth, &mwf, &pct);
	mwt = pct ? c->timemax_d * mwf / 100 : mwf / c->wpt;
	c->mwf = mwf;
	c->mwpct = pct;

	if (fg_flow_build(c->s, o->flamechart, c->chain, o->delta_inclusive, mwt, f))
		return -1;
	c->f_dash = fg_frame_lookup(c->s, "-", 1);
	c->f_dashdash = fg_frame_lookup(c->s, "--", 2);
	if ((ret = check_size(c)) || (ret = setup_tables(c)))
		return ret;
	uint32_t depthmax = 0;
	for (size_t i = 0; i < f->n; i++)
		if (!f->nodes[i].dropped && f->nodes[i].depth > depthmax)
			depthmax = f->nodes[i].depth;
	c->ypad1 = c->fontsize * 3;
	c->ypad2 = c->fontsize * 2 + 10;
	double heat = 0;
	if (c->ev) {
		/* the map goes under the title (and subtitle), the graph below
		 * it, as deep as the deepest range graph can be */
		if (fg_heat_init(&c->heat, c->ev, (double)(o->width - 2 * XPAD), (size_t)o->max_depth))
			return -1;
		if (c->heat.depth > depthmax)
			depthmax = c->heat.depth;
		c->heat.top = c->fontsize * (*o->subtitle ? 5 : 3);
		c->heat.x = XPAD;
		c->heat.w = (double)(o->width - 2 * XPAD);
		c->heat.fontsize = c->fontsize;
		heat = fg_heat_height(c->fontsize) + (o->inverted && *o->subtitle ? c->fontsize * 2 : 0);
		c->ypad1 += heat;
	}
	c->imageheight = (depthmax + 1.0) * o->height + c->ypad1 + c->ypad2;
	if (*o->subtitle)
		c->imageheight += c->fontsize * 2;

	char bg1[32], bg2[32];
	fg_palette_background(c->pal, o->bgcolors, bg1, bg2);
	write_header(c, c->imageheight);
	write_head(c, bg1, bg2);
	ob_puts(&c->ob, "<rect x=\"0.0\" y=\"0\" width=\"");
	ob_fixed(&c->ob, (double)o->width, 1);
	ob_puts(&c->ob, "\" height=\"");
	ob_fixed(&c->ob, c->imageheight, 1);
	ob_puts(&c->ob, "\" fill=\"url(#background)\"  />\n");
	const char *title = o->title && *o->title ? o->title :
			    o->flamechart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";
	double W = (double)o->width, half = (double)(o->width / 2);
	fixed_text(c, "title", half, c->fontsize * 2, "", title);
	if (*o->subtitle)
		fixed_text(c, "subtitle", half, c->fontsize * 4, "", o->subtitle);
	fixed_text(c, "details", XPAD, c->imageheight - c->ypad2 / 2, "", " ");
	fixed_text(c, "unzoom", XPAD, c->fontsize * 2, "class=\"hide\"", "Reset Zoom");
	fixed_text(c, "search", W - XPAD - 100, c->fontsize * 2, "", "Search");
	fixed_text(c, "ignorecase", W - XPAD - 16, c->fontsize * 2, "", "ic");
	fixed_text(c, "matched", W - XPAD - 100, c->imageheight - c->ypad2 / 2, "", " ");
	if (c->ev)
		fg_heat_draw(&c->heat, &c->ob);
	ob_puts(&c->ob, "<g id=\"frames\">\n");
	size_t nkeep;
	uint32_t *order = order_nodes(f, depthmax, &nkeep);
	if (!order)
		return -1;
	write_frames(c, order, nkeep);
	free(order);
	ob_puts(&c->ob, "</g>\n</svg>\n");
	return FG_EXIT_OK;
}

/* Option strings as written, with invalid UTF-8 replaced by U+FFFD. */
struct clean_strings {
	char *v[8];
};

static int clean_options(const struct fg_options *in, struct fg_options *o, struct clean_strings *k)
{
	const char **fields[] = { &o->title, &o->subtitle, &o->countname, &o->nametype,
				  &o->fonttype, &o->notes, &o->bgcolors, &o->encoding };

	*o = *in;
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++) {
		const char *v = *fields[i];
		size_t len;
		if (!v || utf8_valid_prefix(v, strlen(v)) == strlen(v))
			continue;
		if (!(k->v[i] = utf8_repair(v, strlen(v), &len)))
			return -1;
		*fields[i] = k->v[i];
	}
	return 0;
}

int fg_render(const struct fg_options *in, struct fg_stacks *s, FILE *out)
{
	return fg_render_events(in, s, NULL, out);
}

int fg_render_events(const struct fg_options *in, struct fg_stacks *s,
		     const struct fg_events *e, FILE *out)
{
	struct fg_options opts, *o = &opts;
	struct clean_strings cleaned;
	struct ctx c;
	int ret;

	if (clean_options(in, o, &cleaned))
		return -1;
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.s = s;
	c.out = out;
	c.ev = fg_events_count(e) ? e : NULL;
	ret = fg_options_check(o);
	if (!ret)
		ret = render(&c);
	if (c.ob.buf && ob_finish(&c.ob) && ret >= 0)
		ret = -1;
	if (ret == FG_EXIT_OK && o->cp) {
		char err[512];
		if (fg_palmap_save(&c.palmap, o->palette_file, err, sizeof(err))) {
			fprintf(stderr, "offwake-svg: %s\n", err);
			ret = FG_EXIT_FAIL;	/* reported: not "writing the SVG" */
		}
	}
	fg_flow_free(&c.flow);
	fg_heat_free(&c.heat);
	fg_palette_free(c.pal);
	fg_attrtab_free(&c.attrs);
	fg_palmap_free(&c.palmap);
	free(c.colour);
	free(c.attr);
	free(c.palidx);
	free(c.plain);
	free(c.fixed);
	for (size_t i = 0; i < sizeof(cleaned.v) / sizeof(*cleaned.v); i++)
		free(cleaned.v[i]);
	return ret;
}
