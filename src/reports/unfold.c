// SPDX-License-Identifier: Apache-2.0
/*
 * unfold.c - "offwake-svg unfold": folded stacks recovered from a flame graph
 * SVG (ours or flamegraph.pl's).  libxml2's SAX parser streams the document
 * with no network, no DTD and entity declarations refused, so XML bombs stop
 * at their first declaration; each <title> followed by a <rect> is a frame.
 * The tree comes back from geometry (the row gives the depth, the x-range
 * one row closer to the root gives the parent) and the counts from the
 * titles, "name (N unit, P%)".
 */
#include "unfold.h"
#include "common/util.h"
#include "common/htab.h"
#include "fg.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define TITLE_MAX (1 << 20)	/* longest <title> text accepted */
#define GAP_PX 0.05		/* uncovered px beyond rounding noise */

struct frame {
	char *title;		/* the <title> text; cut to the name */
	size_t len;
	double x, w, y;
	uint64_t count, self;
	uint64_t start;		/* in counts, when the packed layout holds */
	uint64_t fx, fw;	/* fg:x, fg:w: the exact extent, when given */
	uint8_t fmask;		/* which of the two were given (1: x, 2: w;
				 * without w the tooltip's count is exact) */
	unsigned __int128 kids;	/* sum of the children's counts */
	uint32_t depth, parent, child, last, next;
	unsigned long line;
};

struct uf {
	const char *cmd, *file;
	xmlParserCtxtPtr ctxt;
	struct frame *fr;
	size_t n, cap;
	int edepth;		/* element nesting */
	int title_depth;	/* nesting of the <title> being read, 0: none */
	char *text;		/* its text so far */
	size_t tlen, tcap;
	char *pending;		/* a finished <title> waiting for its <rect> */
	size_t plen;
	int pending_depth;
	unsigned long pending_line;
	uint32_t root;
	int exact;		/* every frame has fg:x (and fg:w where its
				 * tooltip's count is not exact) */
	size_t ambiguous;	/* frames the geometry alone cannot place */
	const char *unit;	/* count unit, from the root's title */
	size_t ulen;
	char err[512];		/* the first error */
};

static void uf_fail(struct uf *u, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void uf_fail(struct uf *u, unsigned long line, const char *fmt, ...)
{
	va_list ap;
	int k = 0;

	if (u->err[0])
		return;
	if (line)
		k = snprintf(u->err, sizeof(u->err), "line %lu: ", line);
	va_start(ap, fmt);
	vsnprintf(u->err + k, sizeof(u->err) - k, fmt, ap);
	va_end(ap);
	if (u->ctxt)
		xmlStopParser(u->ctxt);
}

static unsigned long uf_line(struct uf *u)
{
	return (unsigned long)xmlSAX2GetLineNumber(u->ctxt);
}

int unfold_is_svg(const char *head, size_t len)
{
	/* UTF-16 and UTF-32, with a byte order mark or "<" as XML's appendix
	 * F detects them: libxml2 reads them, folded text they are not */
	static const char *const wide[] = { "\xff\xfe", "\xfe\xff", "<\0\0\0", "\0\0\0<",
					     "<\0", "\0<" };
	static const size_t wlen[] = { 2, 2, 4, 4, 2, 2 };
	for (size_t i = 0; i < sizeof(wlen) / sizeof(*wlen); i++)
		if (len >= wlen[i] && !memcmp(head, wide[i], wlen[i]))
			return 1;
	if (len >= 3 && !memcmp(head, "\xef\xbb\xbf", 3)) {
		head += 3;
		len -= 3;
	}
	while (len && strchr(" \t\r\n", *head) && *head) {
		head++;
		len--;
	}
	return (len >= 5 && !memcmp(head, "<?xml", 5)) || (len >= 4 && !memcmp(head, "<svg", 4));
}

/* ---- SAX callbacks --------------------------------------------------- */

static int parse_coord(const xmlChar *v, const xmlChar *end, double *out)
{
	char buf[64], *e;
	size_t len = end - v;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, v, len);
	buf[len] = 0;
	*out = strtod(buf, &e);
	return *e || !isfinite(*out) ? -1 : 0;
}

static int parse_count(const char *s, size_t len, uint64_t *out);

/* fg:x="START" or fg:w="COUNT" (our namespace): a plain decimal integer
 * (a tooltip's count without its commas). */
static void exact_attr(struct uf *u, struct frame *p, const char *name, const xmlChar *v,
		       const xmlChar *end)
{
	int bit = !strcmp(name, "x") ? 1 : !strcmp(name, "w") ? 2 : 0;
	size_t len = end - v;
	uint64_t n;

	if (!bit)
		return;
	if (memchr(v, ',', len) || parse_count((const char *)v, len, &n)) {
		uf_fail(u, uf_line(u), "frame <rect> has a bad fg:%s=\"%.*s\"", name,
			(int)(len > 40 ? 40 : len), (const char *)v);
		return;
	}
	*(bit == 1 ? &p->fx : &p->fw) = n;
	p->fmask |= bit;
}

/* The <rect> after a <title>: one frame. */
static void add_frame(struct uf *u, int nattr, const xmlChar **attrs)
{
	struct frame f = { .title = u->pending, .len = u->plen, .x = NAN, .w = NAN, .y = NAN,
			   .parent = NONE, .child = NONE, .last = NONE, .next = NONE,
			   .line = u->pending_line };

	u->pending = NULL;
	if (u->n >= NONE || ow_grow(&u->fr, &u->cap, u->n, sizeof(*u->fr))) {
		free(f.title);
		uf_fail(u, 0, "out of memory");
		return;
	}
	u->fr[u->n++] = f;
	struct frame *p = &u->fr[u->n - 1];
	for (int i = 0; i < nattr; i++) {
		const xmlChar **a = attrs + 5 * i;
		const char *name = (const char *)a[0];
		if (a[2] && !strcmp((const char *)a[2], FG_NS)) {
			exact_attr(u, p, name, a[3], a[4]);
			if (u->err[0])
				return;	/* the parser is stopped: attrs are gone */
			continue;
		}
		double *dst = !strcmp(name, "x") ? &p->x : !strcmp(name, "y") ? &p->y :
			      !strcmp(name, "width") ? &p->w : NULL;
		if (a[1] || !dst)
			continue;
		if (parse_coord(a[3], a[4], dst)) {
			uf_fail(u, uf_line(u), "frame <rect> has a bad %s=\"%.*s\"", name,
				(int)(a[4] - a[3] > 40 ? 40 : a[4] - a[3]), (const char *)a[3]);
			return;
		}
	}
	if (isnan(p->x) || isnan(p->y) || isnan(p->w) || p->w < 0)
		uf_fail(u, uf_line(u), "frame <rect> without x, y and width");
}

static void on_start(void *ctx, const xmlChar *name, const xmlChar *prefix, const xmlChar *uri,
		     int nns, const xmlChar **ns, int nattr, int ndefaulted, const xmlChar **attrs)
{
	struct uf *u = ctx;

	u->edepth++;
	if (u->err[0])
		return;
	if (!u->title_depth && !strcmp((const char *)name, "title")) {
		u->title_depth = u->edepth;
		u->tlen = 0;
	} else if (u->pending && u->pending_depth == u->edepth && !strcmp((const char *)name, "rect")) {
		add_frame(u, nattr, attrs);
	}
}

static void on_end(void *ctx, const xmlChar *name, const xmlChar *prefix, const xmlChar *uri)
{
	struct uf *u = ctx;

	if (u->title_depth && u->title_depth == u->edepth) {
		u->title_depth = 0;
		free(u->pending);
		if (!u->text && ow_grow(&u->text, &u->tcap, 0, 1)) {
			uf_fail(u, 0, "out of memory");
			return;
		}
		u->text[u->tlen] = 0;
		u->pending = u->text;
		u->plen = u->tlen;
		u->pending_depth = u->edepth;
		u->pending_line = uf_line(u);
		u->text = NULL;
		u->tcap = 0;
	} else if (u->pending && u->edepth < u->pending_depth) {
		free(u->pending);	/* the title's parent ended without a <rect> */
		u->pending = NULL;
	}
	u->edepth--;
}

static void on_text(void *ctx, const xmlChar *ch, int len)
{
	struct uf *u = ctx;

	if (!u->title_depth || u->err[0])
		return;
	if (u->tlen + len > TITLE_MAX) {
		uf_fail(u, uf_line(u), "a <title> longer than %d bytes", TITLE_MAX);
		return;
	}
	if (ow_grow(&u->text, &u->tcap, u->tlen + len, 1)) {
		uf_fail(u, 0, "out of memory");
		return;
	}
	memcpy(u->text + u->tlen, ch, len);
	u->tlen += len;
	u->text[u->tlen] = 0;
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *pub,
			   const xmlChar *sys, xmlChar *content)
{
	struct uf *u = ctx;

	uf_fail(u, uf_line(u), "entity declarations are not accepted (entity \"%s\")", name);
}

static void on_reference(void *ctx, const xmlChar *name)
{
	struct uf *u = ctx;

	uf_fail(u, uf_line(u), "entity references are not accepted (&%s;)", name);
}

static void on_error(void *ctx, xmlErrorPtr e)
{
	struct uf *u = ctx;
	const char *msg = e->message ? e->message : "XML error";
	int len = (int)strcspn(msg, "\n");

	if (e->level >= XML_ERR_ERROR)
		uf_fail(u, (unsigned long)(e->line > 0 ? e->line : 0), "%.*s", len, msg);
}

/* Why a file starting with head is no SVG (nor any XML), or NULL: it may
 * be one.  Folded text is named as such: it needs no unfolding. */
static const char *not_svg(const char *head, size_t len)
{
	const char *eol = memchr(head, '\n', len);
	size_t nl = eol ? (size_t)(eol - head) : len, k = 0;

	if (unfold_is_svg(head, len))
		return NULL;
	while (k < len && strchr(" \t\r\n", head[k]) && head[k])
		k++;
	if (k < len && head[k] == '<')
		return NULL;	/* a comment or DOCTYPE first: libxml2 decides */
	if (!len)
		return "an empty file, not an SVG";
	while (nl && head[nl - 1] == '\r')
		nl--;
	k = nl;
	while (k && (isdigit((unsigned char)head[k - 1]) || head[k - 1] == '.'))
		k--;
	if (k && k < nl && head[k - 1] == ' ' && memchr(head, ';', k))
		return "not an SVG but folded stacks, which need no unfolding";
	return "not an SVG (a flame graph SVG starts with \"<?xml\" or \"<svg\")";
}

static void parse(struct uf *u, FILE *f, const char *file)
{
	static char buf[1 << 16];
	xmlSAXHandler sax;
	size_t got, total = 0;
	const char *why;

	memset(&sax, 0, sizeof(sax));
	sax.initialized = XML_SAX2_MAGIC;
	sax.startElementNs = on_start;
	sax.endElementNs = on_end;
	sax.characters = on_text;
	sax.cdataBlock = on_text;
	sax.entityDecl = on_entity_decl;
	sax.reference = on_reference;
	sax.serror = on_error;
	u->ctxt = xmlCreatePushParserCtxt(&sax, u, NULL, 0, file);
	if (!u->ctxt) {
		uf_fail(u, 0, "out of memory");
		return;
	}
	/* no network, no DTD loading, no entity substitution, default size limits */
	xmlCtxtUseOptions(u->ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	while (!u->err[0] && (got = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (!total && (why = not_svg(buf, got)))
			uf_fail(u, 0, "%s", why);
		else
			xmlParseChunk(u->ctxt, buf, (int)got, 0);
		total += got;
	}
	if (!u->err[0] && ferror(f))
		uf_fail(u, 0, "%s", strerror(errno ? errno : EIO));
	if (!u->err[0] && !total)
		uf_fail(u, 0, "%s", not_svg(buf, 0));
	if (!u->err[0])
		xmlParseChunk(u->ctxt, NULL, 0, 1);
	if (!u->err[0] && !u->ctxt->wellFormed)
		uf_fail(u, 0, "not well-formed XML");
	xmlFreeDoc(u->ctxt->myDoc);	/* libxml2 keeps a DTD there for itself */
	xmlFreeParserCtxt(u->ctxt);
	u->ctxt = NULL;
}

/* ---- titles ---------------------------------------------------------- */

/* "1,234" -> 1234 (up to 2^64 - 1); -1 without digits, -2 above 2^64 - 1 */
static int parse_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == ',')
			continue;
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -2;
		v = v * 10 + (s[i] - '0');
		digits++;
	}
	*out = v;
	return digits ? 0 : -1;
}

/*
 * A tooltip's count ("1,234") of frame f: -1 without digits; above 2^64 - 1
 * it is the exact fg:w when f has one (render prints counts as doubles, as
 * flamegraph.pl does: 2^64 - 1 reads "18,446,744,073,709,551,616"), else -2.
 */
static int title_count(const struct frame *f, const char *s, size_t len, uint64_t *out)
{
	int r = parse_count(s, len, out);

	if (r == -2 && (f->fmask & 2)) {
		*out = f->fw;
		return 0;
	}
	return r;
}

/* The root's title "all (N UNIT, 100%)" (the literal 100%: other frames
 * print two decimals); sets the unit. */
static int is_root(struct uf *u, struct frame *f)
{
	static const char pre[] = "all (", post[] = ", 100%)";
	const size_t lpre = sizeof(pre) - 1, lpost = sizeof(post) - 1;

	if (f->len < lpre + lpost || memcmp(f->title, pre, lpre) ||
	    memcmp(f->title + f->len - lpost, post, lpost))
		return 0;
	const char *p = f->title + lpre, *end = f->title + f->len - lpost;
	const char *sp = memchr(p, ' ', end - p);
	int r = sp ? title_count(f, p, sp - p, &f->count) : -1;
	if (r == -2)	/* all frames' counts fit when the root's does */
		uf_fail(u, f->line, "a total of %.*s: counts above 18,446,744,073,709,551,615 "
			"(2^64 - 1) cannot be unfolded", (int)(sp - p), p);
	if (r)
		return 0;
	u->unit = sp + 1;
	u->ulen = end - sp - 1;
	return 1;
}

/* Cut "NAME (N UNIT, P%)" or "NAME (N UNIT, P%; D%)" to NAME at the last
 * " (" followed by such a tail (so names may hold " (" themselves). */
static int split_title(struct uf *u, struct frame *f)
{
	char *t = f->title, *end = t + f->len - 1;

	if (!f->len || *end != ')')
		return -1;
	for (size_t q = f->len - 1; q-- > 0;) {
		if (t[q] != ' ' || t[q + 1] != '(')
			continue;
		const char *p = t + q + 2;
		size_t k = strspn(p, "0123456789,");
		const char *unit = p + k + 1;
		if (!k || p + k >= end || p[k] != ' ' || (size_t)(end - unit) < u->ulen + 3 ||
		    memcmp(unit, u->unit, u->ulen) || memcmp(unit + u->ulen, ", ", 2) ||
		    end[-1] != '%' || title_count(f, p, k, &f->count))
			continue;
		t[q] = 0;
		f->len = q;
		return 0;
	}
	return -1;
}

/* ---- the tree -------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* By depth, then left to right (narrower first at the same x: those end
 * there), then document order (ours writes frames in start order); by the
 * exact extents when every frame has them. */
static int cmp_frame(const void *a, const void *b, void *ctx)
{
	const struct uf *u = ctx;
	const struct frame *x = &u->fr[*(const uint32_t *)a], *y = &u->fr[*(const uint32_t *)b];

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (u->exact && x->fx != y->fx)
		return x->fx < y->fx ? -1 : 1;
	if (u->exact && x->fw != y->fw)
		return x->fw < y->fw ? -1 : 1;
	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	/* frames drawn on the same spot (narrower than 0.1 px): by name as
	 * siblings sort, then count, so that the order does not depend on
	 * the order a tool wrote its frames in */
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->title, y->title, n);
	if (c || x->len != y->len)
		return c ? c : x->len < y->len ? -1 : 1;
	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

static int contains(const struct frame *p, const struct frame *c, double eps)
{
	return c->x >= p->x - 1e-6 && c->x + c->w <= p->x + p->w + eps;
}

/*
 * Attach the frames of one row (ord[cs..ce)) to those of the row closer to
 * the root (ord[ps..pe)), both left to right: each child goes to the next
 * parent whose x-range holds it, passing on to the following parent when
 * that one holds it too and the current one has no room left for its count
 * (frames of zero px width are told apart by their counts).
 */
static int attach_row(struct frame *fr, const uint32_t *ord, size_t ps, size_t pe,
		      size_t cs, size_t ce, double eps)
{
	size_t p = ps;

	for (size_t c = cs; c < ce; c++) {
		struct frame *C = &fr[ord[c]];
		while (p < pe) {
			struct frame *P = &fr[ord[p]];
			if (contains(P, C, eps) &&
			    (P->kids + C->count <= P->count || p + 1 == pe ||
			     !contains(&fr[ord[p + 1]], C, eps)))
				break;
			p++;
		}
		if (p == pe)
			return -1;
		C->parent = ord[p];
		fr[ord[p]].kids += C->count;
	}
	return 0;
}

/*
 * With exact extents: each child of the row ord[cs..ce) goes to the frame
 * of the row closer to the root whose [fg:x, fg:x + fg:w) holds its own;
 * both rows left to right.  -1 (with the child's index in *bad) when one
 * lies outside them all.
 */
static int attach_exact(struct frame *fr, const uint32_t *ord, size_t ps, size_t pe,
			size_t cs, size_t ce, size_t *bad)
{
	size_t p = ps;

	for (size_t c = cs; c < ce; c++) {
		struct frame *C = &fr[ord[c]];
		/* pass parents ending before the child starts (or where it
		 * starts, unless it is empty); no sums, so no overflow */
		while (p < pe && fr[ord[p]].fx <= C->fx &&
		       (C->fx - fr[ord[p]].fx > fr[ord[p]].fw ||
			(C->fx - fr[ord[p]].fx == fr[ord[p]].fw && C->fw)))
			p++;
		struct frame *P = p < pe ? &fr[ord[p]] : NULL;
		if (!P || C->fx < P->fx || C->fw > P->fw || C->fx - P->fx > P->fw - C->fw) {
			*bad = ord[c];
			return -1;
		}
		C->parent = ord[p];
		P->kids += C->count;
	}
	return 0;
}

/* How many frames of the row ord[cs..ce) more than one frame of the row
 * closer to the root could hold, from the drawn geometry alone (frames
 * narrower than the 0.1 px the SVG prints, where two parents meet). */
static size_t count_ambiguous(const struct frame *fr, const uint32_t *ord, size_t ps, size_t pe,
			      size_t cs, size_t ce)
{
	size_t p = ps, n = 0;

	for (size_t c = cs; c < ce; c++) {
		const struct frame *C = &fr[ord[c]];
		while (p < pe && fr[ord[p]].x + fr[ord[p]].w < C->x - 1e-6)
			p++;
		int holders = 0;
		for (size_t q = p; q < pe && fr[ord[q]].x <= C->x + 1e-6 && holders < 2; q++)
			holders += contains(&fr[ord[q]], C, 1e-6);
		n += holders > 1;
	}
	return n;
}

/* The rect x of a frame edge at count position pos, as the renderer
 * prints it (x = 10 + pos * px-per-count, then %.1f). */
static double edge_x(uint64_t pos, double wpt)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.1f", 10 + (double)pos * wpt);
	return strtod(buf, NULL);
}

/* Would the renderer draw C with its end at count position end? */
static int drawn_at(const struct frame *C, uint64_t end, double wpt)
{
	return edge_x(end - C->count, wpt) == C->x && fabs(edge_x(end, wpt) - (C->x + C->w)) < 1e-6;
}

/* Sibling order of a sorted (not flame chart) graph: bytewise, allowing
 * for a name that is a prefix of the other ("b" / "b2" sort either way,
 * as "b;..." and "b ..." lines fall on both sides of "b2"). */
static int siblings_sorted(const struct frame *a, const struct frame *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->title, b->title, n);

	return c < 0 || (c == 0 && a->len != b->len);
}

/* States (child, parent, position) of the search below known to fail:
 * child and parent (both below 2^32) share the first key word. */
static int failed(const struct htab *f, uint64_t child, uint64_t parent, uint64_t pos)
{
	return htab_get(f, child << 32 | parent, pos) != NULL;
}

static int fail_add(struct htab *f, uint64_t child, uint64_t parent, uint64_t pos)
{
	return htab_put(f, child << 32 | parent, pos, (void *)1);
}

/*
 * The exact layout of an unpruned sorted graph: a frame's own time comes
 * first and its children follow, packed up to its end.  Going right to
 * left, each child either goes on filling the current parent leftwards or
 * ends a parent further left, where both its printed edges must be exactly
 * where the renderer would draw them.  This tells apart frames narrower
 * than a pixel; a depth-first search with a memo of failed states undoes
 * wrong guesses.  Returns -1 when the row does not fit the model (or the
 * search gets too long).
 */
struct pick {
	size_t p;		/* parent (index into ord) */
	uint64_t cursor;	/* free room of that parent ends here */
	int alt;		/* next alternative to try */
};

static int attach_packed(struct frame *fr, const uint32_t *ord, size_t ps, size_t pe,
			 size_t cs, size_t ce, double wpt)
{
	size_t m = ce - cs, i = 0;
	long budget = 64 * (long)(m + pe - ps) + 100000;
	struct pick *st = malloc((m + 1) * sizeof(*st));
	struct htab fail = { 0 };
	int ret = -1;

	if (!st || m >= UINT32_MAX || pe >= UINT32_MAX)
		goto out;
	st[0] = (struct pick){ pe, 0, 0 };	/* before the first child: no parent */
	while (i < m) {
		const struct frame *C = &fr[ord[ce - 1 - i]];
		struct pick *cur = &st[i], *nx = &st[i + 1];
		int found = 0;
		if (--budget < 0)
			goto out;
		for (; !found; cur->alt++) {
			/* alternative 0 stays in the current parent, k > 0
			 * opens the k-th parent to the left; the one just left
			 * goes first when the child would fill it exactly */
			int k = cur->alt;
			size_t q0 = cur->p - (cur->p > ps);
			int swap = cur->p < pe && cur->p > ps && fr[ord[q0]].count == C->count &&
				   cur->cursor - fr[ord[cur->p]].start != C->count;
			if (swap && k < 2)
				k = !k;
			if (k == 0 && cur->p == pe)
				continue;
			if (k > 0 && (size_t)k > cur->p - ps)
				break;
			size_t q = cur->p - k;
			const struct frame *P = &fr[ord[q]];
			if (k > 0 && P->x + P->w < C->x - 1e-6) {
				if (cur->alt < 2)
					continue;
				break;	/* parents further left end even earlier */
			}
			uint64_t end = k ? P->start + P->count : cur->cursor;
			if (end - P->start < C->count || !drawn_at(C, end, wpt) ||
			    (!k && !siblings_sorted(C, &fr[ord[ce - i]])))
				continue;
			*nx = (struct pick){ q, end - C->count, 0 };
			found = !failed(&fail, i + 1, q + 1, nx->cursor);
		}
		if (found) {
			i++;
			continue;
		}
		/* every alternative failed: remember, go back one child */
		if (i == 0 || fail_add(&fail, i, cur->p + 1, cur->cursor))
			goto out;
		i--;
	}
	for (size_t p = ps; p < pe; p++)
		fr[ord[p]].kids = 0;
	for (i = 0; i < m; i++) {
		struct frame *C = &fr[ord[ce - 1 - i]];
		C->parent = ord[st[i + 1].p];
		C->start = st[i + 1].cursor;
		fr[C->parent].kids += C->count;
	}
	ret = 0;
out:
	free(st);
	htab_free(&fail);
	return ret;
}

static void reset_kids(struct frame *fr, const uint32_t *ord, size_t ps, size_t pe)
{
	for (size_t k = ps; k < pe; k++)
		fr[ord[k]].kids = 0;
}


/* The uncovered counts between a's end and b's start (b may be a's parent,
 * then up to its end): exact with exact extents, else estimated from the
 * px beyond rounding noise. */
static double gap_counts(const struct uf *u, const struct frame *a, const struct frame *b,
			 int to_end, double per_px)
{
	if (u->exact) {
		__int128 e = (__int128)a->fx + a->fw;
		__int128 g = to_end ? (__int128)b->fx + b->fw - e : (__int128)b->fx - e;
		return g > 0 ? (double)g : 0;
	}
	double g = (to_end ? b->x + b->w : b->x) - (a->x + a->w);
	return g > GAP_PX ? round(g * per_px) : 0;
}

/*
 * Self counts.  A sorted graph lays a frame's own time out first, before
 * its children; uncovered space after its first child held frames pruned
 * by --minwidth.  Their share, estimated from the geometry, is left out of
 * the self count (the stacks are lost; the counts would be misplaced).
 */
static void self_counts(struct uf *u, int sorted)
{
	struct frame *fr = u->fr, *root = &fr[u->root];
	double per_px = root->w > 0 ? root->count / root->w : 0;

	for (size_t i = 0; i < u->n; i++) {
		struct frame *f = &fr[i];
		uint64_t self = f->kids < f->count ? f->count - (uint64_t)f->kids : 0;
		double pruned = 0;
		if (sorted && f->child != NONE) {
			const struct frame *c = &fr[f->child];
			for (; c->next != NONE; c = &fr[c->next])
				pruned += gap_counts(u, c, &fr[c->next], 0, per_px);
			pruned += gap_counts(u, c, f, 1, per_px);
		}
		if (pruned > 0)
			self -= pruned < (double)self ? (uint64_t)pruned : self;
		f->self = self;
	}
}

/* Say how much of the total no recovered stack holds: root - sum of selfs. */
static void report_lost(struct uf *u)
{
	const struct frame *root = &u->fr[u->root];
	__int128 lost = root->count;

	for (size_t i = 0; i < u->n; i++)
		lost -= u->fr[i].self;
	if (lost <= 0)
		return;
	fprintf(stderr, OW_PROG ": %s: %s: about %.0f of %" PRIu64 " %.*s (%.2f%%) were in frames pruned "
		"(--minwidth) when the SVG was made and cannot be recovered\n", u->cmd, u->file,
		(double)lost, root->count, (int)u->ulen, u->unit,
		100.0 * (double)lost / (double)root->count);
}

static int build(struct uf *u)
{
	struct frame *fr = u->fr;
	double *ys = NULL;
	uint32_t *ord = NULL;
	size_t nys = 0, *rowstart = NULL;
	int ret = -1;

	if (!u->n) {
		uf_fail(u, 0, "no frames (<title> then <rect>): not a flame graph SVG");
		return -1;
	}
	u->root = NONE;
	for (size_t i = 0; i < u->n; i++) {
		if (!is_root(u, &fr[i]))
			continue;
		if (u->root != NONE) {
			uf_fail(u, fr[i].line, "a second root frame \"all (...)\"");
			return -1;
		}
		u->root = i;
	}
	if (u->root == NONE) {
		uf_fail(u, 0, "no root frame \"all (N unit, 100%%)\": not a flame graph SVG");
		return -1;
	}
	for (size_t i = 0; i < u->n; i++) {
		if (i == u->root)
			continue;
		if (split_title(u, &fr[i])) {
			uf_fail(u, fr[i].line, "frame title \"%.60s\" is not \"name (N %.*s, P%%)\"",
				fr[i].title, (int)u->ulen, u->unit);
			return -1;
		}
		if (strpbrk(fr[i].title, ";\n") || strlen(fr[i].title) != fr[i].len) {
			uf_fail(u, fr[i].line, "frame name \"%.60s\" holds ';', a newline or NUL",
				fr[i].title);
			return -1;
		}
	}
	fr[u->root].len = 0;
	/* our own SVGs: exact extents, and the counts they give (in input
	 * counts, before --factor, and never rounded); without fg:w the
	 * tooltip's count is the exact one */
	u->exact = 1;
	for (size_t i = 0; i < u->n; i++)
		u->exact &= fr[i].fmask & 1;
	for (size_t i = 0; u->exact && i < u->n; i++) {
		if (fr[i].fmask & 2)
			fr[i].count = fr[i].fw;
		else
			fr[i].fw = fr[i].count;
	}

	/* depth: the rank of the row counted from the root's row */
	ys = malloc(u->n * sizeof(*ys));
	ord = malloc(u->n * sizeof(*ord));
	if (!ys || !ord) {
		uf_fail(u, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < u->n; i++)
		ys[i] = fr[i].y;
	qsort(ys, u->n, sizeof(*ys), cmp_double);
	for (size_t i = 0; i < u->n; i++)
		if (!nys || ys[nys - 1] != ys[i])
			ys[nys++] = ys[i];
	int inverted = fr[u->root].y == ys[0];
	if (!inverted && fr[u->root].y != ys[nys - 1]) {
		uf_fail(u, fr[u->root].line, "the root frame is neither the bottom nor the top row");
		goto out;
	}
	for (size_t i = 0; i < u->n; i++) {
		double *hit = bsearch(&fr[i].y, ys, nys, sizeof(*ys), cmp_double);
		fr[i].depth = inverted ? hit - ys : ys + nys - 1 - hit;
		ord[i] = i;
	}
	qsort_r(ord, u->n, sizeof(*ord), cmp_frame, u);
	if (u->n > 1 && fr[ord[1]].depth == 0) {
		uf_fail(u, fr[ord[1]].line, "a frame in the root's row");
		goto out;
	}

	/* parents, row by row */
	rowstart = malloc((nys + 1) * sizeof(*rowstart));
	if (!rowstart) {
		uf_fail(u, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0, d = 0; d <= nys; d++) {
		while (i < u->n && fr[ord[i]].depth < d)
			i++;
		rowstart[d] = i;
	}
	/* px per count as the renderer computes it; exact while counts are
	 * integers shown unscaled */
	double wpt = fr[u->root].w / (double)fr[u->root].count;
	int packed = fr[u->root].count && fr[u->root].count < (1ULL << 53);
	fr[u->root].start = 0;
	for (size_t d = 1; d < nys; d++) {
		size_t ps = rowstart[d - 1], cs = rowstart[d], ce = rowstart[d + 1];
		size_t bad;
		if (u->exact) {
			if (!attach_exact(fr, ord, ps, cs, cs, ce, &bad))
				continue;
			uf_fail(u, fr[bad].line, "frame \"%.60s\" (fg:x=%" PRIu64 ", fg:w=%" PRIu64
				") lies outside every frame one level closer to the root",
				fr[bad].title, fr[bad].fx, fr[bad].fw);
			goto out;
		}
		u->ambiguous += count_ambiguous(fr, ord, ps, cs, cs, ce);
		if (packed && !attach_packed(fr, ord, ps, cs, cs, ce, wpt))
			continue;
		packed = 0;
		/* exact edges (rounded as flamegraph.pl does now), then the
		 * 0.1 px slack of versions that rounded the width itself */
		reset_kids(fr, ord, ps, cs);
		if (attach_row(fr, ord, ps, cs, cs, ce, 1e-6)) {
			reset_kids(fr, ord, ps, cs);
			if (attach_row(fr, ord, ps, cs, cs, ce, 0.1 + 1e-6)) {
				uf_fail(u, 0, "a frame of row %zu lies outside every frame of row %zu",
					d, d - 1);
				goto out;
			}
		}
	}
	int sorted = 1;
	for (size_t k = 1; k < u->n; k++) {
		struct frame *c = &fr[ord[k]], *p = &fr[c->parent];
		if (p->child == NONE) {
			p->child = ord[k];
		} else {
			sorted &= siblings_sorted(&fr[p->last], c);
			fr[p->last].next = ord[k];
		}
		p->last = ord[k];
	}
	self_counts(u, sorted);
	report_lost(u);
	if (u->ambiguous)
		fprintf(stderr, OW_PROG ": %s: %s: warning: %zu frame%s narrower than the 0.1 px the SVG "
			"prints sit%s where two frames one level closer to the root meet; the parent "
			"chosen is the one the counts and the sort order fit, which may be wrong "
			"(SVGs made by offwake-svg carry exact extents and unfold exactly)\n",
			u->cmd, u->file, u->ambiguous, u->ambiguous == 1 ? "" : "s",
			u->ambiguous == 1 ? "s" : "");
	ret = 0;
out:
	free(ys);
	free(ord);
	free(rowstart);
	return ret;
}

/* Depth first, left to right: each stack with a non-zero self count. */
static int emit(struct uf *u, unfold_fn fn, void *ctx)
{
	struct frame *fr = u->fr;
	uint32_t maxdepth = 0;

	for (size_t i = 0; i < u->n; i++)
		if (fr[i].depth > maxdepth)
			maxdepth = fr[i].depth;
	const char **names = malloc((maxdepth + 1) * sizeof(*names));
	size_t *lens = malloc((maxdepth + 1) * sizeof(*lens));
	int ret = 0;

	if (!names || !lens) {
		uf_fail(u, 0, "out of memory");
		ret = -1;
	}
	for (uint32_t cur = u->root; !ret && cur != NONE;) {
		struct frame *f = &fr[cur];
		if (f->depth) {
			names[f->depth - 1] = f->title;
			lens[f->depth - 1] = f->len;
		}
		if (f->self && fn(ctx, names, lens, f->depth, f->self))
			ret = -1;
		if (f->child != NONE) {
			cur = f->child;
			continue;
		}
		while (cur != NONE && fr[cur].next == NONE)
			cur = fr[cur].parent;
		if (cur != NONE)
			cur = fr[cur].next;
	}
	free(names);
	free(lens);
	return ret;
}

int unfold_read(FILE *f, const char *cmd, const char *file, unfold_fn fn, void *ctx)
{
	return unfold_read_unit(f, cmd, file, fn, ctx, NULL, 0);
}

int unfold_read_unit(FILE *f, const char *cmd, const char *file, unfold_fn fn, void *ctx,
		     char *unit, size_t unitlen)
{
	struct uf u = { .cmd = cmd, .file = file };
	int ret = -1;

	parse(&u, f, file);
	if (!u.err[0] && !build(&u))
		ret = emit(&u, fn, ctx);
	if (!ret && unit && unitlen)
		snprintf(unit, unitlen, "%.*s", (int)u.ulen, u.unit);
	if (u.err[0])
		ow_err("%s: %s: %s", cmd, file, u.err);
	for (size_t i = 0; i < u.n; i++)
		free(u.fr[i].title);
	free(u.fr);
	free(u.text);
	free(u.pending);
	return ret;
}

/* ---- offwake-svg unfold ---------------------------------------------- */

static int print_stack(void *ctx, const char *const *frames, const size_t *lens,
		       size_t n, uint64_t count)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			putchar(';');
		fwrite(frames[i], 1, lens[i], stdout);
	}
	printf(" %" PRIu64 "\n", count);
	return ferror(stdout) ? -1 : 0;
}

static void unfold_usage(FILE *f)
{
	fputs("Usage: offwake-svg unfold GRAPH.svg > stacks.folded\n"
"Recover folded stacks (\"frame;frame;... COUNT\") from a flame graph SVG made\n"
"by offwake-svg or flamegraph.pl (any version with \"name (N unit, P%)\" in each\n"
"frame's tooltip); \"-\" reads standard input.  Each frame with a count of its\n"
"own (self) gives one line, depth first, left to right.\n"
"\n"
"offwake-svg's SVGs carry every frame's exact extent in input counts (fg:x,\n"
"fg:w on its <rect>): the tree and the counts come back exactly as render\n"
"was given them (before --factor).  Other SVGs are rebuilt from geometry (row\n"
"= depth, x-range = parent) and the tooltips' counts; frames narrower than\n"
"the 0.1 px the SVG prints, where two parents meet, get the parent the\n"
"counts and the sort order fit, with one warning saying how many there are.\n"
"\n"
"What cannot come back:\n"
"  - frames pruned by --minwidth when the SVG was made: their share of the\n"
"    total is estimated from the uncovered space in sorted graphs, left out,\n"
"    and reported on standard error (pruned frames that sort before the\n"
"    first drawn child of their parent look like the parent's own time and\n"
"    are counted as such);\n"
"  - one trailing annotation (_[k], _[w], _[i], _[j]) of each name, which\n"
"    tooltips do not show (chain graphs come back as shown, without _[w]);\n"
"  - from other SVGs (or ours of fractional counts), counts scaled by\n"
"    --factor stay scaled, and fractional counts come back rounded as the\n"
"    tooltips show them.\n"
"\n"
"The SVG is read with libxml2 without network access, DTD loading or entity\n"
"declarations.  Exit status: 0 ok, 1 unreadable or not a flame graph SVG,\n"
"2 bad usage.\n", f);
}

int unfold_main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		unfold_usage(stdout);
		return OW_EXIT_OK;
	}
	if (argc != 2 || (argv[1][0] == '-' && argv[1][1])) {
		unfold_usage(stderr);
		return OW_EXIT_USAGE;
	}
	const char *name = argv[1];
	FILE *f = strcmp(name, "-") ? fopen(name, "rb") : stdin;
	if (!f) {
		ow_err("unfold: %s: %s", name, strerror(errno));
		return OW_EXIT_FAIL;
	}
	int ret = unfold_read(f, "unfold", name, print_stack, NULL);
	if (f != stdin)
		fclose(f);
	if (fflush(stdout) || ferror(stdout)) {
		ow_err("unfold: writing the stacks: %s", strerror(errno ? errno : EIO));
		ret = -1;
	}
	return ret ? OW_EXIT_FAIL : OW_EXIT_OK;
}
