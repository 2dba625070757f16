/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outbuf.c - buffered SVG output, flamegraph.pl's number formats, and
 * XML escaping that keeps the document well-formed whatever the input.
 */
#include "outbuf.h"
#include "utf8.h"
#include "vec.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Keep the first error (an errno value): the one to report. */
static void ob_fail(struct outbuf *o, int err)
{
	if (!o->err)
		o->err = err;
}

int ob_init(struct outbuf *o, FILE *f)
{
	o->f = f;
	o->cap = 1 << 20;
	o->n = 0;
	o->err = 0;
	o->buf = malloc(o->cap);
	return o->buf ? 0 : -1;
}

void ob_flush(struct outbuf *o)
{
	if (!o->f)
		return;
	if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
		ob_fail(o, errno ? errno : EIO);
	o->n = 0;
}

int ob_finish(struct outbuf *o)
{
	ob_flush(o);
	if (o->f && fflush(o->f))
		ob_fail(o, errno ? errno : EIO);
	free(o->buf);
	o->buf = NULL;
	if (o->err)
		errno = o->err;
	return o->err ? -1 : 0;
}

/*
 * Room for len more bytes: flush to the file, or grow a memory buffer.
 * -1 when there is none: the memory buffer could not grow, and is then
 * emptied and marked failed (ENOMEM); what it held is lost anyway.
 */
static int ob_room(struct outbuf *o, size_t len)
{
	if (o->n + len <= o->cap)
		return 0;
	if (o->f) {
		ob_flush(o);
		return len <= o->cap ? 0 : -1;
	}
	if (len > SIZE_MAX - o->n || vec_reserve((void **)&o->buf, &o->cap, o->n + len, 1)) {
		ob_fail(o, ENOMEM);
		o->n = 0;
		return -1;
	}
	return 0;
}

void ob_write_slow(struct outbuf *o, const char *s, size_t len)
{
	if (o->f && len > o->cap / 2) {
		ob_flush(o);
		if (fwrite(s, 1, len, o->f) != len)
			ob_fail(o, errno ? errno : EIO);
		return;
	}
	if (ob_room(o, len))
		return;
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

void ob_printf(struct outbuf *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		ob_write(o, tmp, n);
		return;
	}
	char *big = malloc(n + 1);
	if (!big) {
		ob_fail(o, ENOMEM);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, n + 1, fmt, ap);
	va_end(ap);
	ob_write(o, big, n);
	free(big);
}

void ob_scaled(struct outbuf *o, long long r, int decimals, int negative)
{
	char *p;

	if (ob_room(o, 48))
		return;
	p = o->buf + o->n;
	if (r < 0 || (r == 0 && negative)) {
		*p++ = '-';
		r = -r;
	}
	if (decimals == 0) {
		p += fg_u64_digits(p, (unsigned long long)r);
	} else {
		unsigned long long div = decimals == 1 ? 10 : 100;
		unsigned long long fp = (unsigned long long)r % div;
		p += fg_u64_digits(p, (unsigned long long)r / div);
		*p++ = '.';
		if (decimals == 2)
			*p++ = '0' + fp / 10;
		*p++ = '0' + fp % 10;
	}
	o->n = p - o->buf;
}

void ob_fixed(struct outbuf *o, double v, int decimals)
{
	long long r;

	if (!fg_round_fixed(v, decimals, &r))
		ob_scaled(o, r, decimals, v < 0);
	else
		ob_printf(o, decimals == 1 ? "%.1f" : "%.2f", v);
}

void ob_commas(struct outbuf *o, const char *digits)
{
	size_t n = strlen(digits), lead = 0;
	char *p;

	if (ob_room(o, 2 * n))
		return;
	p = o->buf + o->n;
	if (digits[0] == '-' || digits[0] == '+')
		*p++ = digits[lead++];
	for (size_t i = lead; i < n; i++) {
		if (i > lead && (n - i) % 3 == 0)
			*p++ = ',';
		*p++ = digits[i];
	}
	o->n = p - o->buf;
}

void ob_perlnum(struct outbuf *o, double v)
{
	/* integers and halves (every y coordinate with an even font size)
	 * print the same with %.15g as written out here */
	double twice = v * 2;
	if (twice == floor(twice) && fabs(v) < 1e14 && v != 0) {
		if (ob_room(o, 24))
			return;
		char *p = o->buf + o->n;
		long long i = (long long)twice;
		if (i < 0) {
			*p++ = '-';
			i = -i;
		}
		p += fg_u64_digits(p, (unsigned long long)(i / 2));
		if (i % 2) {
			*p++ = '.';
			*p++ = '5';
		}
		o->n = p - o->buf;
		return;
	}
	char tmp[64];
	int n = perl_fmt_nv(v, tmp, sizeof(tmp));
	ob_write(o, tmp, n);
}

/* Bytes each context must look at: 1 = stop the plain copy here. */
#define XML_SPECIALS [0 ... 0x1f] = 1, ['&'] = 1, ['<'] = 1, ['>'] = 1, [0xEF] = 1
static const unsigned char special[4][256] = {
	[OB_ESC_TEXT] = { XML_SPECIALS },
	[OB_ESC_ATTR] = { XML_SPECIALS, ['"'] = 1 },
	/* inside a comment only "--" is not allowed: & < > stay as given */
	[OB_ESC_COMMENT] = { [0 ... 0x1f] = 1, ['-'] = 1, [0xEF] = 1 },
	[OB_ESC_CSS] = { XML_SPECIALS, ['{'] = 1, ['}'] = 1, [';'] = 1, ['\\'] = 1,
			 ['"'] = 1, ['\''] = 1 },
};

int ob_plain(const char *s, size_t len, enum ob_escape how)
{
	for (size_t i = 0; i < len; i++)
		if (special[how][(unsigned char)s[i]])
			return 0;
	return 1;
}

void ob_escape(struct outbuf *o, const char *s, size_t len, enum ob_escape how)
{
	size_t i = 0;
	const unsigned char *sp;

	sp = special[how];
	while (i < len) {
		size_t run = i;
		/* copy runs of bytes that need nothing */
		while (run < len && !sp[(unsigned char)s[run]])
			run++;
		ob_write(o, s + i, run - i);
		if (run >= len)
			break;
		i = run;
		unsigned char c = s[i];
		switch (c) {
		case '&': ob_write(o, "&amp;", 5); break;
		case '<': ob_write(o, "&lt;", 4); break;
		case '>': ob_write(o, "&gt;", 4); break;
		case '"':
			if (how == OB_ESC_CSS)
				ob_write(o, "\\\"", 2);
			else
				ob_write(o, "&quot;", 6);
			break;
		case '-':	/* no "--" inside a comment, and none before its end */
			if (i + 1 < len && s[i + 1] == '-')
				ob_write(o, "- ", 2);
			else
				ob_write(o, "-", 1);
			break;
		case 0xEF:	/* U+FFFE and U+FFFF are not XML characters */
			if (i + 2 < len && (unsigned char)s[i + 1] == 0xBF &&
			    ((unsigned char)s[i + 2] == 0xBE || (unsigned char)s[i + 2] == 0xBF)) {
				ob_write(o, "\xEF\xBF\xBD", 3);
				i += 3;
				continue;
			}
			ob_write(o, s + i, 1);
			break;
		default:
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
				ob_write(o, "\xEF\xBF\xBD", 3);
			} else if (c < 0x20) {
				ob_write(o, s + i, 1);	/* tab, newline, CR: valid XML */
			} else {	/* CSS specials */
				ob_write(o, "\\", 1);
				ob_write(o, s + i, 1);
			}
			break;
		}
		i++;
	}
}

/* ---- items written on two threads ------------------------------------ */

#define ITEMS_PER_CHUNK 4096

struct items {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct outbuf mem[2];	/* the helper's last two chunks */
	size_t done, taken;	/* helper chunks written / copied out */
	size_t n, nchunks;
	ob_item_fn fn;
	void *ctx;
};

static void write_chunk(struct items *it, struct outbuf *o, size_t k)
{
	size_t end = (k + 1) * ITEMS_PER_CHUNK < it->n ? (k + 1) * ITEMS_PER_CHUNK : it->n;

	for (size_t i = k * ITEMS_PER_CHUNK; i < end; i++)
		it->fn(it->ctx, o, i);
}

/* The helper: odd chunks, each into the older of its two buffers once
 * the caller has copied that one out. */
static void *write_odd_chunks(void *arg)
{
	struct items *it = arg;

	for (size_t m = 0; 2 * m + 1 < it->nchunks; m++) {
		pthread_mutex_lock(&it->lock);
		while (m >= it->taken + 2)
			pthread_cond_wait(&it->changed, &it->lock);
		pthread_mutex_unlock(&it->lock);
		struct outbuf *b = &it->mem[m % 2];
		b->n = 0;
		write_chunk(it, b, 2 * m + 1);
		pthread_mutex_lock(&it->lock);
		it->done = m + 1;
		pthread_cond_broadcast(&it->changed);
		pthread_mutex_unlock(&it->lock);
	}
	return NULL;
}

void ob_write_items(struct outbuf *o, size_t n, ob_item_fn fn, void *ctx)
{
	struct items it = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { { 0 } },
			    0, 0, n, (n + ITEMS_PER_CHUNK - 1) / ITEMS_PER_CHUNK, fn, ctx };
	pthread_t t;

	if (it.nchunks < 2 || ob_init(&it.mem[0], NULL) || ob_init(&it.mem[1], NULL) ||
	    pthread_create(&t, NULL, write_odd_chunks, &it)) {
		free(it.mem[0].buf);
		free(it.mem[1].buf);
		for (size_t i = 0; i < n; i++)
			fn(ctx, o, i);
		return;
	}
	for (size_t k = 0; k < it.nchunks; k++) {
		if (k % 2 == 0) {
			write_chunk(&it, o, k);
			continue;
		}
		size_t m = k / 2;
		pthread_mutex_lock(&it.lock);
		while (it.done <= m)
			pthread_cond_wait(&it.changed, &it.lock);
		pthread_mutex_unlock(&it.lock);
		ob_write(o, it.mem[m % 2].buf, it.mem[m % 2].n);
		if (it.mem[m % 2].err)
			ob_fail(o, it.mem[m % 2].err);
		pthread_mutex_lock(&it.lock);
		it.taken = m + 1;
		pthread_cond_broadcast(&it.changed);
		pthread_mutex_unlock(&it.lock);
	}
	pthread_join(t, NULL);
	free(it.mem[0].buf);
	free(it.mem[1].buf);
}

void ob_json(struct outbuf *ob, const char *s, size_t len)
{
	ob_puts(ob, "\"");
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		i += utf8_decode(s + i, len - i, &cp);
		if (cp == '"' || cp == '\\')
			ob_printf(ob, "\\%c", (char)cp);
		else if (cp >= 0x20 && cp < 0x7f && cp != '<' && cp != '>' && cp != '&')
			ob_write(ob, &(char){ (char)cp }, 1);
		else if (cp < 0x10000)
			ob_printf(ob, "\\u%04x", cp == 0xFFFE || cp == 0xFFFF ? 0xFFFD : cp);
		else
			ob_printf(ob, "\\u%04x\\u%04x", 0xD800 + ((cp - 0x10000) >> 10),
				  0xDC00 + ((cp - 0x10000) & 0x3FF));
	}
	ob_puts(ob, "\"");
}

