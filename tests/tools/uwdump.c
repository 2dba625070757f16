// SPDX-License-Identifier: Apache-2.0
/*
 * uwdump.c - print the unwind table src/unwind/native_tables.c builds for
 * ELF files, for tests/t_unwind_tables.sh (which compares it with readelf's
 * interpretation of the same CFI) and for people.
 *
 * Usage: uwdump FILE          one line "# base=... nrows=... ..." then one
 *                             line per row: "VADDR CFA RBP RBX" with VADDR
 *                             the row's ELF vaddr (hex), CFA one of rsp+N,
 *                             rbp+N, rbx+N, plt10, plt11, end, signal+N,
 *                             none, RBP and RBX "c+N" (saved at CFA + N)
 *                             or "-" (unchanged), RBX also "?" (a rule a
 *                             row cannot say)
 *        uwdump -s FILE...    one summary line per file: rows, FDEs,
 *                             build time (ms), table bytes
 * Exit status: 0, or 1 when a table could not be built (message on
 * stderr).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "unwind/native_tables.h"

static void rule_str(const struct ow_urow *r, char *buf, size_t len)
{
	switch (r->cfa) {
	case OW_CFA_RSP:
		snprintf(buf, len, "rsp%+d", r->off);
		break;
	case OW_CFA_RSP_X8:
		snprintf(buf, len, "rsp%+d", (uint16_t)r->off * 8);
		break;
	case OW_CFA_RBP:
		snprintf(buf, len, "rbp%+d", r->off);
		break;
	case OW_CFA_RBX:
		snprintf(buf, len, "rbx%+d", r->off);
		break;
	case OW_CFA_PLT:
		snprintf(buf, len, "plt%d", r->off);
		break;
	case OW_CFA_END:
		snprintf(buf, len, "end");
		break;
	case OW_CFA_SIGNAL:
		snprintf(buf, len, "signal%+d", r->off);
		break;
	default:
		snprintf(buf, len, "none");
	}
}

static void dump(const char *name, const struct uw_table *t)
{
	size_t i;

	printf("# %s base=0x%" PRIx64 " nrows=%zu nfde=%zu nexpr=%zu nother=%zu"
	       " nskip=%zu noverlap=%zu debug_frame=%d\n", name, t->base,
	       t->nrows, t->nfde, t->nexpr, t->nother, t->nskip, t->noverlap,
	       t->debug_frame);
	for (i = 0; i < t->nrows; i++) {
		const struct ow_urow *r = &t->rows[i];
		char cfa[32], rbp[16] = "-", rbx[16] = "-";

		rule_str(r, cfa, sizeof(cfa));
		if (r->rbp)
			snprintf(rbp, sizeof(rbp), "c%+d", r->rbp * 8);
		if (r->rbx == OW_RBX_LOST)
			snprintf(rbx, sizeof(rbx), "?");
		else if (r->rbx)
			snprintf(rbx, sizeof(rbx), "c%+d", -8 * r->rbx);
		printf("%" PRIx64 " %s %s %s\n", t->base + r->pc, cfa, rbp, rbx);
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int one(const char *name, int summary)
{
	struct uw_table t;
	char err[256];
	double t0;
	int fd = open(name, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0) {
		perror(name);
		return 1;
	}
	t0 = now_ms();
	r = uw_table_build(fd, name, &t, err, sizeof(err), NULL, NULL);
	t0 = now_ms() - t0;
	close(fd);
	if (r) {
		fprintf(stderr, "uwdump: %s\n", err);
		return 1;
	}
	if (summary)
		printf("%s: %zu rows, %zu FDEs, %zu expr, %zu other, %.1f ms, %zu bytes%s\n",
		       name, t.nrows, t.nfde, t.nexpr, t.nother, t0,
		       t.nrows * sizeof(*t.rows), t.debug_frame ? ", .debug_frame" : "");
	else
		dump(name, &t);
	uw_table_free(&t);
	return 0;
}

int main(int argc, char **argv)
{
	int summary = argc > 1 && !strcmp(argv[1], "-s");
	int i, st = 0;

	if (argc < 2 + summary) {
		fprintf(stderr, "usage: uwdump [-s] FILE...\n");
		return 2;
	}
	for (i = 1 + summary; i < argc; i++)
		st |= one(argv[i], summary);
	return st;
}
