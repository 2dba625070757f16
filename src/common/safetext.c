// SPDX-License-Identifier: Apache-2.0
/*
 * safetext.c - the one sanitiser of text from the traced side before it
 * reaches a terminal or a folded line: printable ASCII and valid UTF-8
 * pass, but C0 controls (bar \n and \t in messages), DEL, C1 controls
 * (U+0080-U+009F, and raw 0x80-0x9f, as any invalid UTF-8) do not: a
 * thread or file name with ESC ] 0 ; ... BEL set root's pane title,
 * OSC 52 wrote its clipboard, ESC [ 2 J cleared its screen.  Messages
 * get the bytes as \xNN through standard error made an escaping stream
 * (ow_stderr_escape(), at the start of main()): every message of ours,
 * of libbpf and of libmicrohttpd goes through it.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "base/utf8seq.h"
#include "safetext.h"

/* ASCII shown as it is: printable, and \n and \t with OW_TEXT_LINES. */
static bool ascii_ok(unsigned char c, unsigned flags)
{
	static const unsigned char lines[0x20] = { ['\n'] = 1, ['\t'] = 1 };

	if (c >= 0x20)
		return c != 0x7f;
	return (flags & OW_TEXT_LINES) && lines[c];
}

size_t ow_text_span(const char *s, size_t len, unsigned flags, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int n;

	while (i < len) {
		if (p[i] < 0x80) {
			if (!ascii_ok(p[i], flags))
				break;
			i++;
			continue;
		}
		n = ow_utf8_seq_len(p + i, len - i);
		if (!n)
			break;
		if (n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0) {
			*bad = 2;	/* U+0080-U+009F */
			return i;
		}
		i += n;
	}
	*bad = i < len;
	return i;
}

/* Where escaped text goes: put(ctx, bytes, n, atom), atom for an escape
 * (not to be cut). */
typedef void (*put_fn)(void *ctx, const char *s, size_t n, bool atom);

/* s escaped to put; returns the escaped length. */
static size_t escape(const char *s, size_t len, unsigned flags, put_fn put, void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	size_t total = 0, ok, bad;

	while (len) {
		ok = ow_text_span(s, len, flags, &bad);
		if (ok)
			put(ctx, s, ok, false);
		total += ok;
		for (size_t i = 0; i < bad; i++) {
			unsigned char c = s[ok + i];
			char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

			put(ctx, e, sizeof(e), true);
			total += sizeof(e);
		}
		s += ok + bad;
		len -= ok + bad;
	}
	return total;
}

struct membuf {
	char *out;
	size_t size, n;
	bool full;
};

/* Whole characters and escapes only (atom: one escape). */
static void mem_put(void *ctx, const char *s, size_t n, bool atom)
{
	struct membuf *m = ctx;
	size_t room;

	if (m->full)
		return;
	room = m->size - m->n - 1;
	if (n > room) {
		m->full = true;
		if (atom)
			return;
		n = room;	/* clean text is valid UTF-8: back to a lead byte */
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(m->out + m->n, s, n);
	m->n += n;
}

size_t ow_text_escape(char *out, size_t size, const char *s, size_t len,
		      unsigned flags)
{
	struct membuf m = { out, size, 0, !size };
	size_t total = escape(s, len, flags, mem_put, &m);

	if (size)
		out[m.n] = 0;
	return total;
}

/* Standard error's escaped bytes, written in pieces of buf. */
struct fdbuf {
	char buf[1024];
	size_t n;
	bool failed;
};

static void fd_flush(struct fdbuf *b)
{
	size_t at = 0;
	ssize_t w;

	while (at < b->n && !b->failed) {
		w = write(STDERR_FILENO, b->buf + at, b->n - at);
		if (w > 0)
			at += w;
		else if (w < 0 && errno != EINTR)
			b->failed = true;
	}
	b->n = 0;
}

static void fd_put(void *ctx, const char *s, size_t n, bool atom)
{
	struct fdbuf *b = ctx;

	(void)atom;
	while (n) {
		size_t k = sizeof(b->buf) - b->n < n ? sizeof(b->buf) - b->n : n;

		memcpy(b->buf + b->n, s, k);
		b->n += k;
		s += k;
		n -= k;
		if (b->n == sizeof(b->buf))
			fd_flush(b);
	}
}

static ssize_t err_write(void *cookie, const char *s, size_t n)
{
	struct fdbuf b = { .n = 0 };

	(void)cookie;
	escape(s, n, OW_TEXT_LINES, fd_put, &b);
	fd_flush(&b);
	return b.failed ? -1 : (ssize_t)n;
}

static FILE *raw_err;

int ow_stderr_escape(void)
{
	static const cookie_io_functions_t io = { .write = err_write };
	FILE *f;

	if (raw_err)
		return 0;
	f = fopencookie(NULL, "w", io);
	if (!f)
		return -1;
	setvbuf(f, NULL, _IONBF, 0);
	fflush(stderr);
	raw_err = stderr;
	stderr = f;
	return 0;
}

FILE *ow_stderr_raw(void)
{
	return raw_err ? raw_err : stderr;
}
