/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outbuf.h - a buffered writer for the SVG with the number formats
 * flamegraph.pl uses (%0.1f, %0.2f, Perl's %.15g), and the escaping of
 * text for XML contexts.
 */
#ifndef FG_OUTBUF_H
#define FG_OUTBUF_H

#include <stdio.h>
#include <stddef.h>
#include <math.h>
#include <string.h>
#include "pnum.h"

struct outbuf {
	FILE *f;
	char *buf;
	size_t n, cap;
	int err;	/* the first error, an errno value (ENOMEM: a memory buffer could not grow) */
};

/* f NULL: a memory buffer that grows and keeps everything written */
int ob_init(struct outbuf *o, FILE *f);
int ob_finish(struct outbuf *o);	/* flush and free; -1 (errno: o->err) on an error */
void ob_flush(struct outbuf *o);
void ob_write_slow(struct outbuf *o, const char *s, size_t len);

static inline void ob_write(struct outbuf *o, const char *s, size_t len)
{
	if (o->n + len <= o->cap) {
		memcpy(o->buf + o->n, s, len);
		o->n += len;
	} else {
		ob_write_slow(o, s, len);
	}
}

/* inline, so the length of a literal is known at compile time */
static inline void ob_puts(struct outbuf *o, const char *s)
{
	ob_write(o, s, strlen(s));
}
void ob_printf(struct outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* printf "%.Nf" (N = 1 or 2), exactly as C rounds */
void ob_fixed(struct outbuf *o, double v, int decimals);
/* v scaled by 10^decimals and rounded as printf would, when that can be
 * done without printf (returns 0), else -1 */
static inline int fg_round_fixed(double v, int decimals, long long *out)
{
	static const double scale[] = { 1, 10, 100 };
	double y = v * scale[decimals];

	/* away from ties (and from huge values) the scaled product rounds as
	 * printf rounds the exact binary value; near a tie, printf decides */
	if (!(fabs(y) < 1e15))
		return -1;
	double fl = floor(y), frac = y - fl;
	if (fabs(frac - 0.5) <= 1e-6)
		return -1;
	*out = (long long)fl + (frac > 0.5);
	return 0;
}

/* write r / 10^decimals (negative: a "-" even for zero) */
void ob_scaled(struct outbuf *o, long long r, int decimals, int negative);
/* a decimal string with its digits grouped by three: "1,234,567" */
void ob_commas(struct outbuf *o, const char *digits);
/* Perl's number formatting of a double */
void ob_perlnum(struct outbuf *o, double v);

/*
 * Write items 0..n-1 in order, fn(ctx, ob, i) writing item i to ob, on two
 * threads: the items are cut into chunks; the caller writes the even ones
 * to o, a second thread the odd ones into memory, copied to o in turn.
 * fn is called on both threads at once and must allow it.
 */
typedef void (*ob_item_fn)(void *ctx, struct outbuf *ob, size_t i);
void ob_write_items(struct outbuf *o, size_t n, ob_item_fn fn, void *ctx);

enum ob_escape {
	OB_ESC_TEXT,	/* & < > */
	OB_ESC_ATTR,	/* & < > " */
	OB_ESC_COMMENT,	/* no "--" ("- -"); & < > as given, as flamegraph.pl */
	OB_ESC_CSS,	/* & < > and CSS specials */
};
/*
 * Write text escaped for its context.  Characters XML 1.0 cannot hold
 * (control characters, U+FFFE, U+FFFF) become U+FFFD.  Valid UTF-8 assumed.
 */
void ob_escape(struct outbuf *o, const char *s, size_t len, enum ob_escape how);
/* s (len bytes of UTF-8, invalid bytes as U+FFFD) as a JSON string for
 * the script: ASCII only (every other character as \uXXXX), so that
 * nothing in it can end a CDATA section or open markup. */
void ob_json(struct outbuf *o, const char *s, size_t len);
/* 1 when ob_escape() would write s as it is. */
int ob_plain(const char *s, size_t len, enum ob_escape how);

#endif
