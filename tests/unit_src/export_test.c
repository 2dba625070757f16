// SPDX-License-Identifier: Apache-2.0
/*
 * export_test.c - a writer that exists for tests/t_writers.sh only: the
 * proof that a new output format is one file plus its row in the writers'
 * table (src/export/writers.c's OW_TEST_WRITER row; the Makefile builds
 * build/tests_src/offwake-svg-xw with both).  It lists each sample on one
 * line: its value, its labels, then its frames as KIND:NAME, root first.
 */
#include "export/writers.h"
#include "common/util.h"

#include <inttypes.h>

static int test_sample(void *ctx, const struct ow_sample *smp)
{
	static const char *const kinds[] = {
		[OW_PF_NAME] = "name", [OW_PF_KERNEL] = "k", [OW_PF_NATIVE] = "u",
		[OW_PF_JIT] = "jit", [OW_PF_INTERP] = "py", [OW_PF_THREAD] = "thread",
		[OW_PF_MARKER] = "marker", [OW_PF_DELIM] = "delim",
		[OW_PF_DIVIDER] = "divider",
	};
	FILE *out = ctx;
	char num[64];

	fg_count_format(smp->value, num, sizeof(num));
	fprintf(out, "%s", num);
	for (size_t i = 0; i < smp->nlabels; i++)
		if (smp->labels[i].str)
			fprintf(out, " %s=%s", smp->labels[i].key, smp->labels[i].str);
		else
			fprintf(out, " %s=%" PRId64, smp->labels[i].key, smp->labels[i].num);
	for (size_t i = 0; i < smp->nframes; i++)
		fprintf(out, "%s%s:%.*s", i ? ";" : "\t", kinds[smp->frames[i].kind],
			(int)smp->frames[i].len, smp->frames[i].name);
	return fputc('\n', out) == EOF ? -1 : 0;
}

int export_test_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out)
{
	(void)o;
	return ow_profile_foreach(p, test_sample, out) ? OW_EXIT_FAIL : OW_EXIT_OK;
}
