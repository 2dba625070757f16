// SPDX-License-Identifier: Apache-2.0
/*
 * t_cap_harden_term.c - unit tests of issue 44's item 3 (escape sequences
 * reaching root's terminal): the sanitiser of src/common/safetext.c on
 * its own (what passes: printable ASCII, valid UTF-8 but U+0080-U+009F;
 * what does not: C0, DEL, C1 as raw bytes and in UTF-8, invalid UTF-8),
 * its \xNN escapes and their cut, and standard error made an escaping
 * stream (read back through a pipe).  tests/t_harden_term.sh checks a
 * real capture's messages and output.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common/safetext.h"
#include "check.h"

struct span_case {
	const char *s;
	size_t len, ok, bad;	/* len 0: strlen(s) */
	unsigned flags;
};

static const struct span_case spans[] = {
	{ "plain text", 0, 10, 0, 0 },
	{ "a\x1b]0;T\x07", 0, 1, 1, 0 },	/* ESC */
	{ "ab\x7f", 0, 2, 1, 0 },		/* DEL */
	{ "a\xc2\x9b" "b", 0, 1, 2, 0 },	/* U+009B (CSI) */
	{ "a\xc2\x80", 0, 1, 2, 0 },		/* U+0080 */
	{ "a\xc2\x9f", 0, 1, 2, 0 },		/* U+009F */
	{ "a\x9b" "b", 0, 1, 1, 0 },		/* raw CSI */
	{ "\xc2\xa0\xce\xbb\xe2\x82\xac\xf0\x9f\x94\xa5", 0, 11, 0, 0 },
	{ "a\xe2\x82", 0, 1, 1, 0 },		/* cut short */
	{ "a\xc0\xaf", 0, 1, 1, 0 },		/* overlong */
	{ "a\xed\xa0\x80", 0, 1, 1, 0 },	/* surrogate */
	{ "a\xf4\x90\x80\x80", 0, 1, 1, 0 },	/* beyond U+10FFFF */
	{ "a\xff", 0, 1, 1, 0 },
	{ "a\nb\tc", 0, 1, 1, 0 },
	{ "a\nb\tc", 0, 5, 0, OW_TEXT_LINES },
	{ "a\rb", 0, 1, 1, OW_TEXT_LINES },
	{ "a\0b", 3, 1, 1, OW_TEXT_LINES },
};

static void test_span(void)
{
	for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
		const struct span_case *c = &spans[i];
		size_t len = c->len ? c->len : strlen(c->s), bad = 99;
		size_t ok = ow_text_span(c->s, len, c->flags, &bad);
		char name[80];

		snprintf(name, sizeof(name), "safetext: span of case %zu", i);
		check(ok == c->ok && bad == c->bad, name, "%zu and %zu bad, want %zu and %zu",
		      ok, bad, c->ok, c->bad);
	}
}

struct esc_case {
	const char *s, *want;
	size_t size;	/* 0: room enough */
	unsigned flags;
};

static const struct esc_case escs[] = {
	{ "x\x1b]0;title\x07y", "x\\x1b]0;title\\x07y", 0, 0 },
	{ "\x1b]52;c;SGVsbG8=\x07", "\\x1b]52;c;SGVsbG8=\\x07", 0, 0 },
	{ "\x1b[2J", "\\x1b[2J", 0, 0 },
	{ "a\xc2\x9b" "b\x9b" "c", "a\\xc2\\x9bb\\x9bc", 0, 0 },
	{ "bad\xff\xfe", "bad\\xff\\xfe", 0, 0 },
	{ "line\n\ttab\r", "line\n\ttab\\x0d", 0, OW_TEXT_LINES },
	{ "line\n", "line\\x0a", 0, 0 },
	{ "\xce\xbb-ok", "\xce\xbb-ok", 0, 0 },
	/* cut: never half an escape nor half a character */
	{ "ab\x1b" "cd", "ab", 6, 0 },
	{ "ab\x1b" "cd", "ab\\x1b", 7, 0 },
	{ "a\xce\xbb", "a", 3, 0 },
	{ "a\xce\xbb", "a\xce\xbb", 4, 0 },
};

static void test_escape(void)
{
	char out[128], again[128];

	for (size_t i = 0; i < sizeof(escs) / sizeof(escs[0]); i++) {
		const struct esc_case *c = &escs[i];
		size_t size = c->size ? c->size : sizeof(out);
		size_t n = ow_text_escape(out, size, c->s, strlen(c->s), c->flags);
		size_t full = ow_text_escape(NULL, 0, c->s, strlen(c->s), c->flags);
		char name[80];

		snprintf(name, sizeof(name), "safetext: escape of case %zu", i);
		check(!strcmp(out, c->want) && n == full && (c->size || n == strlen(out)),
		      name, "\"%s\" (%zu of %zu), want \"%s\"", out, n, full, c->want);
		ow_text_escape(again, sizeof(again), out, strlen(out), c->flags);
		snprintf(name, sizeof(name), "safetext: escaping case %zu again changes nothing", i);
		check(!strcmp(again, out), name, "\"%s\" became \"%s\"", out, again);
	}
}

/* What fprintf(stderr) and ow_stderr_raw() write, read back from a pipe. */
static void test_stderr(void)
{
	static const char want[] =
		"offwake-svg: warning: x\\x1b]0;title\\x07 \\x1b]52;c;SGk=\\x07 "
		"\\x1b[2J \\xc2\\x9b \\x9b \\xff \xce\xbb\n\tnext line\n"
		"\x1b[K";
	char got[512];
	int fd[2], saved = dup(STDERR_FILENO);
	ssize_t n;

	if (pipe(fd) || saved < 0 || dup2(fd[1], STDERR_FILENO) < 0) {
		check(0, "safetext: stderr escaped", "no pipe");
		return;
	}
	check(!ow_stderr_escape(), "safetext: stderr made an escaping stream", "failed");
	fprintf(stderr, "offwake-svg: warning: %s %s %s %s %s %s %s\n\tnext line\n",
		"x\x1b]0;title\x07", "\x1b]52;c;SGk=\x07", "\x1b[2J", "\xc2\x9b", "\x9b",
		"\xff", "\xce\xbb");
	fputs("\x1b[K", ow_stderr_raw());
	fflush(stderr);
	fflush(ow_stderr_raw());
	dup2(saved, STDERR_FILENO);
	close(fd[1]);
	n = read(fd[0], got, sizeof(got) - 1);
	got[n > 0 ? n : 0] = 0;
	check(!strcmp(got, want), "safetext: stderr escaped, the raw stream not",
	      "got \"%s\"", got);
	close(fd[0]);
}

int main(void)
{
	test_span();
	test_escape();
	test_stderr();
	return failed;
}
