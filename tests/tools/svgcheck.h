/* SPDX-License-Identifier: Apache-2.0 */
/*
 * svgcheck.h - is a rendered SVG safe?  Parses the document with libxml2
 * (no network, no entity substitution, no DTD loading) and checks:
 *   - it is well-formed XML;
 *   - the elements are only svg, defs, linearGradient, stop, style, script,
 *     rect, text, g, title, a;
 *   - there is exactly one <script> (none allowed with SVGCHECK_ERROR_SVG:
 *     the "no stack counts" document has none), and at most two comments;
 *   - no attribute name starts with "on" (any case) except the root svg's
 *     onload="init(evt)";
 *   - with SVGCHECK_ATTRS, attribute names are only those flamegraph.pl
 *     writes (not with --nameattr, whose markup is the user's own);
 *   - attributes in our namespace (FG_NS) are only a <rect>'s exact extent,
 *     fg:x and fg:w, each a decimal integer;
 *   - with a needle, the needle occurs in text content (of <text> or
 *     <title>) at least once and nowhere else: not in an element or
 *     attribute name, attribute value, comment, processing instruction, the
 *     script or the style sheet.
 * Header-only so that the fuzz harness can use it too.
 */
#ifndef SVGCHECK_H
#define SVGCHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include "../../render/fg.h"	/* FG_NS */

enum { SVGCHECK_ATTRS = 1, SVGCHECK_NEEDLE_OPTIONAL = 2, SVGCHECK_ERROR_SVG = 4 };

struct svgcheck {
	const char *needle;	/* NULL: no needle check */
	int flags;
	int scripts, comments, needle_text;
	char why[512];
};

static int svgc_fail(struct svgcheck *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->why[0]) {
		va_start(ap, fmt);
		vsnprintf(c->why, sizeof(c->why), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int svgc_has(const struct svgcheck *c, const xmlChar *s)
{
	return c->needle && s && strstr((const char *)s, c->needle);
}

static void svgc_silent(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static int svgc_walk(struct svgcheck *c, xmlNode *n, int depth, const char *parent)
{
	static const char *const elems[] = { "svg", "defs", "linearGradient", "stop",
		"style", "script", "rect", "text", "g", "title", "a", NULL };
	static const char *const attrs[] = { "version", "width", "height", "onload",
		"viewBox", "xmlns", "id", "x", "y", "x1", "x2", "y1", "y2", "stop-color",
		"offset", "type", "fill", "rx", "ry", "class", "style", NULL };

	for (; n; n = n->next) {
		switch (n->type) {
		case XML_ELEMENT_NODE: {
			int ok = 0;
			for (int i = 0; elems[i]; i++)
				ok |= !strcmp((const char *)n->name, elems[i]);
			if (!ok)
				return svgc_fail(c, "element <%s> is not one flamegraph.pl writes", n->name);
			if (n->ns && n->ns->href && strcmp((const char *)n->ns->href, "http://www.w3.org/2000/svg"))
				return svgc_fail(c, "element <%s> in namespace %s", n->name, n->ns->href);
			if (svgc_has(c, n->name))
				return svgc_fail(c, "needle in an element name");
			if (!strcmp((const char *)n->name, "script"))
				c->scripts++;
			if (depth == 0 && strcmp((const char *)n->name, "svg"))
				return svgc_fail(c, "root element is <%s>", n->name);
			for (xmlAttr *a = n->properties; a; a = a->next) {
				xmlChar *v = xmlNodeGetContent((xmlNode *)a);
				int bad = 0;
				if (!strncasecmp((const char *)a->name, "on", 2) &&
				    !(depth == 0 && !strcmp((const char *)a->name, "onload") && v &&
				      !strcmp((const char *)v, "init(evt)")))
					bad = svgc_fail(c, "event attribute %s=\"%s\" on <%s>", a->name,
							v ? (const char *)v : "", n->name);
				else if (svgc_has(c, a->name) || svgc_has(c, v))
					bad = svgc_fail(c, "needle in attribute %s of <%s>", a->name, n->name);
				else if (a->ns && a->ns->href && !strcmp((const char *)a->ns->href, FG_NS)) {
					/* our exact extents: fg:x, fg:w, digits, on <rect> */
					if (strcmp((const char *)n->name, "rect") ||
					    (strcmp((const char *)a->name, "x") && strcmp((const char *)a->name, "w")) ||
					    !v || !*v || v[strspn((const char *)v, "0123456789")])
						bad = svgc_fail(c, "attribute fg:%s=\"%s\" on <%s> is not an exact extent",
								a->name, v ? (const char *)v : "", n->name);
				} else if (c->flags & SVGCHECK_ATTRS) {
					int known = 0;
					for (int i = 0; attrs[i]; i++)
						known |= !strcmp((const char *)a->name, attrs[i]);
					if (!known || (a->ns && strcmp((const char *)n->name, "svg")))
						bad = svgc_fail(c, "attribute %s on <%s> is not one flamegraph.pl writes",
								a->name, n->name);
				}
				xmlFree(v);
				if (bad)
					return -1;
			}
			if (svgc_walk(c, n->children, depth + 1, (const char *)n->name))
				return -1;
			break;
		}
		case XML_TEXT_NODE:
			if (svgc_has(c, n->content)) {
				if (strcmp(parent, "text") && strcmp(parent, "title"))
					return svgc_fail(c, "needle in the text of <%s>", parent);
				c->needle_text++;
			}
			break;
		case XML_CDATA_SECTION_NODE:
			if (strcmp(parent, "script"))
				return svgc_fail(c, "CDATA section in <%s>", parent);
			if (svgc_has(c, n->content))
				return svgc_fail(c, "needle in the script");
			break;
		case XML_COMMENT_NODE:
			c->comments++;
			if (svgc_has(c, n->content))
				return svgc_fail(c, "needle in a comment");
			break;
		case XML_PI_NODE:
			return svgc_fail(c, "processing instruction <?%s?>", n->name);
		case XML_ENTITY_REF_NODE:
			return svgc_fail(c, "entity reference &%s;", n->name);
		default:
			break;
		}
	}
	return 0;
}

/* 0 when the document passes, else -1 with c->why set. */
static int svgcheck_mem(struct svgcheck *c, const char *buf, size_t len)
{
	xmlDoc *doc;
	int r;

	c->why[0] = 0;
	c->scripts = c->comments = c->needle_text = 0;
	if (!len)
		return svgc_fail(c, "empty document");
	xmlSetGenericErrorFunc(NULL, svgc_silent);
	doc = xmlReadMemory(buf, (int)len, "svg", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR);
	if (!doc) {
		const xmlError *e = xmlGetLastError();
		return svgc_fail(c, "not well-formed XML: line %d: %s", e ? e->line : 0,
				 e && e->message ? e->message : "?");
	}
	/* comments and PIs outside the root element are children of doc */
	r = svgc_walk(c, doc->children, 0, "#document");
	xmlFreeDoc(doc);
	if (r)
		return -1;
	if (c->scripts != 1 && !(c->scripts == 0 && (c->flags & SVGCHECK_ERROR_SVG)))
		return svgc_fail(c, "%d <script> elements", c->scripts);
	if (c->comments > 2)
		return svgc_fail(c, "%d comments (flamegraph.pl writes 2)", c->comments);
	if (c->needle && !c->needle_text && !(c->flags & SVGCHECK_NEEDLE_OPTIONAL))
		return svgc_fail(c, "needle not found in any <text> or <title>");
	return 0;
}

#endif
