// SPDX-License-Identifier: Apache-2.0
/*
 * writers.c - the table of output formats (writers.h) and its look-ups.
 * Each row's write function lives in a file of its own (export_*.c) and
 * is declared here, next to its row: a new format is that file and a row.
 * Also what the text writers share: their walk of the samples.
 */
#include "writers.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <string.h>

int export_svg_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out);
int export_folded_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out);
int export_text_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out);
int export_pprof_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out);
int export_speedscope_write(const struct ow_profile *p, const struct ow_write_opts *o,
			    FILE *out);
int export_perfetto_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out);
#ifdef OW_TEST_WRITER	/* tests/unit_src/export_test.c: a format for the test */
int export_test_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out);
#endif

const struct ow_writer ow_writers[] = {
	{ "svg", ".svg", false, false, false, 0, export_svg_write },
	{ "folded", ".folded", false, true, false, OW_NEED_LINES, export_folded_write },
	{ "text", NULL, false, true, true, OW_NEED_EACH_KEY | OW_NEED_KEY_ORDER | OW_NEED_THREADS,
	  export_text_write },
	{ "pprof", ".pb.gz", true, false, false, OW_NEED_ADDRS | OW_NEED_LABELS,
	  export_pprof_write },
	{ "speedscope", ".speedscope.json", false, false, false, 0, export_speedscope_write },
	{ "perfetto", ".perfetto-trace", true, false, false,
	  OW_NEED_EVENTS | OW_NEED_THREADS | OW_NEED_LABELS, export_perfetto_write },
#ifdef OW_TEST_WRITER
	{ "test", ".test.txt", false, true, false, OW_NEED_LABELS, export_test_write },
#endif
};
const size_t ow_nwriters = sizeof(ow_writers) / sizeof(ow_writers[0]);

int ow_writer_by_name(const char *name)
{
	for (size_t i = 0; i < ow_nwriters; i++)
		if (!strcmp(ow_writers[i].name, name))
			return i;
	return -1;
}

/* The writers' second extensions, beside their rows' (-o FILE). */
static const struct {
	const char *name, *ext;
} more_exts[] = {
	{ "perfetto", ".pftrace" },
};

static bool ends_with(const char *path, size_t n, const char *ext)
{
	size_t e = ext ? strlen(ext) : 0;

	return e && n > e && !strcmp(path + n - e, ext);
}

int ow_writer_by_path(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < ow_nwriters; i++) {
		if (ends_with(path, n, ow_writers[i].ext))
			return i;
	}
	for (size_t i = 0; i < sizeof(more_exts) / sizeof(more_exts[0]); i++)
		if (ends_with(path, n, more_exts[i].ext))
			return ow_writer_by_name(more_exts[i].name);
	return -1;
}

unsigned ow_writer_needs(int w)
{
	return ow_writers[w].needs;
}

/* The rows' names (--format's, own options' left out) or extensions, each
 * as fmt formats it, between sep. */
static char *writer_list(char *buf, size_t len, const char *fmt, const char *sep,
			 bool exts)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < ow_nwriters && n < len; i++) {
		const char *v = exts ? ow_writers[i].ext :
			ow_writers[i].own_option ? NULL : ow_writers[i].name;

		if (!v)
			continue;
		if (n)
			n += snprintf(buf + n, len - n, "%s", sep);
		if (n < len)
			n += snprintf(buf + n, len - n, fmt, v);
	}
	return buf;
}

char *ow_writer_choices(char *buf, size_t len, const char *fmt, const char *sep)
{
	return writer_list(buf, len, fmt, sep, false);
}

char *ow_writer_exts(char *buf, size_t len, const char *fmt, const char *sep)
{
	return writer_list(buf, len, fmt, sep, true);
}

struct lines {
	FILE *out;
	bool late_errors;
	ow_sample_fn fn;
};

static int write_line(void *ctx, const struct ow_sample *smp)
{
	struct lines *l = ctx;

	if (l->late_errors && ferror(l->out))
		return 1;	/* the caller reports it */
	if (l->fn(l->out, smp))
		return -1;
	return !l->late_errors && ferror(l->out) ? -1 : 0;
}

int ow_write_samples(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out,
		     ow_sample_fn fn)
{
	struct lines l = { out, o->late_errors, fn };
	int r;

	errno = 0;
	r = ow_profile_foreach(p, write_line, &l);
	if ((o->late_errors && r >= 0) || (!r && !ferror(out)))
		return OW_EXIT_OK;
	if (errno != EPIPE)
		ow_err("%s: %s", o->what, ow_strerror(errno));
	return OW_EXIT_FAIL;
}
