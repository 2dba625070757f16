// SPDX-License-Identifier: Apache-2.0
/*
 * export_text.c - the text writer (writers.c's "text" row, --text):
 * offwaketime's multi-line format, read off a sample's typed frames.  A
 * sample's frames are, root first, the target's part (its name, user
 * frames, -d's delimiter, kernel frames), then per waker level a divider
 * and the waker's part (kernel frames leaf first, -d's delimiter, user
 * frames, its [hardirq]/[softirq] marker, its name).  User and kernel
 * frames are told apart by their kind, the delimiter being there only
 * with -d.  Printed: the levels above
 * the waker, the furthest first ("waker N:"), then the waker ("waker:"),
 * each with its stack root first and ending in "--", then the target's
 * stack leaf first, its name, and the value.  A block with no waker says
 * so on the waker's line, not "waker: 0": preempted (its waker's name is
 * empty, no thread id: the target was still runnable, no wakeup came), or
 * not seen (the name is OW_WAKER_UNSEEN: it slept, its wakeup was missed).
 */
#include <string.h>
#include <linux/types.h>
#include "writers.h"
#include "offwake.h"

/* What the waker's line says of a block with no waker, by its name. */
static const struct {
	const char *name;
	const char *says;
} no_waker[] = {
	{ "", "none: preempted (runnable, no wakeup)" },
	{ OW_WAKER_UNSEEN, "none: not seen (it slept; its wakeup was not traced)" },
};

/* frames [from, to) one a line, in order or reversed */
static void frames(FILE *out, const struct ow_frame *f, size_t from, size_t to, bool rev)
{
	for (size_t i = from; i < to; i++) {
		const struct ow_frame *x = &f[rev ? to - 1 - (i - from) : i];

		fprintf(out, "    %.*s\n", (int)x->len, x->name);
	}
}

/* The first frame of [from, to) of kind k (or to). */
static size_t find(const struct ow_frame *f, size_t from, size_t to, enum ow_pf_kind k)
{
	while (from < to && f[from].kind != k)
		from++;
	return from;
}

/* The first frame of [from, to) that is (kernel true) or is not a kernel
 * frame, or -d's delimiter. */
static size_t edge(const struct ow_frame *f, size_t from, size_t to, bool kernel)
{
	while (from < to && f[from].kind != OW_PF_DELIM &&
	       (f[from].kind == OW_PF_KERNEL) != kernel)
		from++;
	return from;
}

/* d, or past it when it is -d's delimiter (printed as "-"). */
static size_t past_delim(FILE *out, const struct ow_frame *f, size_t d, size_t to)
{
	if (d < to && f[d].kind == OW_PF_DELIM) {
		fputs("    -\n", out);
		return d + 1;
	}
	return d;
}

static void waker(FILE *out, const struct ow_frame *f, size_t from, size_t to, int level)
{
	size_t d = edge(f, from, to, false), t = find(f, d, to, OW_PF_THREAD);
	size_t m = find(f, d, t, OW_PF_MARKER), u = d < t && f[d].kind == OW_PF_DELIM ? d + 1 : d;
	char label[24];

	if (level > 1)
		snprintf(label, sizeof(label), "waker %d:", level);
	else
		snprintf(label, sizeof(label), "waker:");
	for (size_t i = 0; t < to && !f[t].tid && i < sizeof(no_waker) / sizeof(*no_waker); i++) {
		if (f[t].len != strlen(no_waker[i].name) ||
		    memcmp(f[t].name, no_waker[i].name, f[t].len))
			continue;
		fprintf(out, "    %-16s %s\n", label, no_waker[i].says);
		fprintf(out, "    %-16s %s\n", "--", "--");
		return;
	}
	if (t < to)
		fprintf(out, "    %-16s %.*s %u\n", label, (int)f[t].len, f[t].name, f[t].tid);
	if (m < t)
		fprintf(out, "    %.*s\n", (int)f[m].len, f[m].name);
	frames(out, f, u, m, true);		/* user, root first */
	past_delim(out, f, d, u);
	frames(out, f, from, d, true);		/* kernel, root first */
	fprintf(out, "    %-16s %s\n", "--", "--");
}

static int text_entry(void *ctx, const struct ow_sample *smp)
{
	FILE *out = ctx;
	const struct ow_frame *f = smp->frames;
	size_t n = smp->nframes, div[16], nd = 0, d, u;
	int64_t v = 0;

	for (size_t i = 0; i < n && nd < 16; i++)
		if (f[i].kind == OW_PF_DIVIDER)
			div[nd++] = i;
	for (size_t l = nd; l-- > 0;)	/* the furthest level first */
		waker(out, f, div[l] + 1, l + 1 < nd ? div[l + 1] : n, l + 1);
	n = nd ? div[0] : n;
	u = n && f[0].kind == OW_PF_THREAD;	/* the first user frame */
	d = edge(f, u, n, true);
	frames(out, f, d < n && f[d].kind == OW_PF_DELIM ? d + 1 : d, n, true);	/* kernel, leaf first */
	past_delim(out, f, d, n);
	frames(out, f, u, d, true);	/* user */
	if (u)
		fprintf(out, "    %-16s %.*s %u\n", "target:", (int)f[0].len, f[0].name,
			f[0].tid);
	fg_count_int64(smp->value, &v);
	fprintf(out, "        %llu\n\n", (unsigned long long)v);
	return 0;
}

int export_text_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out)
{
	if (p->preamble)
		fputs(p->preamble, out);
	return ow_write_samples(p, o, out, text_entry);
}
