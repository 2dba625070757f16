// SPDX-License-Identifier: Apache-2.0
/*
 * export_folded.c - the folded writer (writers.c's "folded" row): one
 * "root;...;leaf COUNT" line per sample, in the profile's order (the
 * capture's: offwaketime -f's, smallest first; convert's: the stack set's).
 */
#include "writers.h"

static int folded_line(void *ctx, const struct ow_sample *smp)
{
	FILE *out = ctx;
	char num[512];

	/* unlocked: one thread writes, and the locks were a third of the time */
	for (size_t i = 0; i < smp->nframes; i++) {
		fwrite_unlocked(smp->frames[i].name, 1, smp->frames[i].len, out);
		fputc_unlocked(i + 1 < smp->nframes ? ';' : ' ', out);
	}
	if (fg_count_format_plain(smp->value, num, sizeof(num)) < 0)
		fg_count_format(smp->value, num, sizeof(num));
	fputs_unlocked(num, out);
	fputc_unlocked('\n', out);
	return 0;
}

int export_folded_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out)
{
	return ow_write_samples(p, o, out, folded_line);
}
