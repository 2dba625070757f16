// SPDX-License-Identifier: Apache-2.0
/*
 * profile_load.c - read a folded file or a flame graph SVG into a stack
 * set, by content: the first bytes are sniffed (unfold_is_svg) and given
 * back to the parser through a cookie stream, so standard input works
 * too.  Used by "diff" (two profiles) and "convert" (any number).
 */
#include "profile_load.h"
#include "unfold.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A stream that gives back the bytes read to sniff the format first. */
struct peek {
	FILE *f;
	char head[512];
	size_t n, off;
};

static ssize_t peek_read(void *cookie, char *buf, size_t size)
{
	struct peek *p = cookie;

	if (p->off < p->n) {
		size_t k = p->n - p->off < size ? p->n - p->off : size;
		memcpy(buf, p->head + p->off, k);
		p->off += k;
		return k;
	}
	size_t got = fread(buf, 1, size, p->f);
	return got || !ferror(p->f) ? (ssize_t)got : -1;
}

struct add_ctx {
	struct fg_stacks *s;
	const char *cmd;
};

static int add_unfolded(void *ctx, const char *const *frames, const size_t *lens,
			size_t n, uint64_t count)
{
	struct add_ctx *a = ctx;

	if (fg_stacks_add(a->s, frames, lens, n, count) >= 0)
		return 0;
	ow_err("%s: reading the stacks: %s", a->cmd, ow_strerror(errno));
	return -1;
}

int profile_load(struct fg_stacks *s, const char *cmd, const char *name, char *unit,
		 size_t unitlen)
{
	FILE *f = strcmp(name, "-") ? fopen(name, "rb") : stdin;
	cookie_io_functions_t io = { .read = peek_read };
	struct peek pk = { .f = f };
	struct add_ctx a = { s, cmd };
	size_t ignored = fg_stacks_ignored(s), cut = fg_stacks_truncated(s);
	char what[300];
	FILE *in = NULL;
	int ret = -1;

	if (!f) {
		ow_err("%s: %s: %s", cmd, name, strerror(errno));
		return -1;
	}
	if (unit && unitlen)
		unit[0] = 0;
	pk.n = fread(pk.head, 1, sizeof(pk.head), f);
	in = fopencookie(&pk, "r", io);
	if (!in)
		ow_err("%s: %s: out of memory", cmd, name);
	else if (unfold_is_svg(pk.head, pk.n))
		ret = unfold_read_unit(in, cmd, name, add_unfolded, &a, unit, unitlen);
	else if ((ret = fg_stacks_read(s, in, name)))
		ow_err("%s: %s%s: %s", cmd, errno == ENOMEM ? "reading " : "", name,
		       ow_strerror(errno));
	if (!ret && fg_stacks_ignored(s) > ignored)
		ow_err("%s: %s: ignored %zu lines with invalid format", cmd, name,
		       fg_stacks_ignored(s) - ignored);
	if (!ret) {
		snprintf(what, sizeof(what), "%s: %s", cmd, name);
		fg_stacks_report_truncated(s, cut, what);
	}
	if (in)
		fclose(in);
	if (f != stdin)
		fclose(f);
	return ret;
}
