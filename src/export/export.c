// SPDX-License-Identifier: Apache-2.0
/*
 * export.c - the export formats' table (names, file extensions, which are
 * binary), the dispatch to the writers (export_pprof.c,
 * export_speedscope.c), and the folded writer, which is the stack set's
 * own text: one "root;...;leaf COUNT" line per stack.
 */
#include "export.h"
#include "export_pprof.h"
#include "export_speedscope.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <string.h>

static const struct {
	const char *name, *ext;
	int binary;
} formats[] = {
	[EXPORT_SVG] = { "svg", ".svg", 0 },
	[EXPORT_FOLDED] = { "folded", ".folded", 0 },
	[EXPORT_PPROF] = { "pprof", ".pb.gz", 1 },
	[EXPORT_SPEEDSCOPE] = { "speedscope", ".speedscope.json", 0 },
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const char export_format_names[] = "svg|folded|pprof|speedscope";

int export_format_by_name(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, name))
			return i;
	return -1;
}

int export_format_by_path(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < NFORMATS; i++) {
		size_t e = strlen(formats[i].ext);

		if (n > e && !strcmp(path + n - e, formats[i].ext))
			return i;
	}
	return -1;
}

const char *export_format_name(enum export_format f)
{
	return formats[f].name;
}

int export_format_is_binary(enum export_format f)
{
	return formats[f].binary;
}

static int folded_line(void *ctx, const char *const *frames, const size_t *lens,
		       size_t n, struct fg_count count)
{
	FILE *out = ctx;
	char num[512];

	/* unlocked: one thread writes, and the locks were a third of the time */
	for (size_t i = 0; i < n; i++) {
		fwrite_unlocked(frames[i], 1, lens[i], out);
		fputc_unlocked(i + 1 < n ? ';' : ' ', out);
	}
	if (fg_count_format_plain(count, num, sizeof(num)) < 0)
		fg_count_format(count, num, sizeof(num));
	fputs_unlocked(num, out);
	return fputc_unlocked('\n', out) == EOF ? -1 : 0;
}

int export_folded(struct fg_stacks *s, FILE *out, const char *what)
{
	errno = 0;
	if (!fg_stacks_foreach(s, folded_line, out) && !ferror(out))
		return 0;
	if (errno != EPIPE)
		ow_err("%s: %s", what, ow_strerror(errno));
	return -1;
}

int export_write(enum export_format f, struct fg_stacks *s,
		 const struct export_info *info, FILE *out, const char *what)
{
	switch (f) {
	case EXPORT_FOLDED:
		return export_folded(s, out, what);
	case EXPORT_PPROF:
		return export_pprof(s, info, out, what);
	case EXPORT_SPEEDSCOPE:
		return export_speedscope(s, info, out, what);
	case EXPORT_SVG:
		break;
	}
	errno = EINVAL;
	ow_err("%s: %s", what, "the SVG is the renderer's (fg_render)");
	return -1;
}
