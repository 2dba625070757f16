// SPDX-License-Identifier: Apache-2.0
/*
 * report_out.c - the output of the report commands (report_out.h): the
 * -o option, which render and diff take out of their flamegraph.pl-style
 * command lines before the render options are parsed, and the opening
 * and closing of standard output or of the file, atomically replaced.
 */
#include "report_out.h"
#include "fg.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <string.h>

/* The value of -o, -oFILE, --output, --output=FILE (one or two dashes, as
 * the render options) at argv[*i], advancing *i past it; NULL: a is no -o.
 * "" when the value is missing. */
static const char *output_arg(int argc, char **argv, int *i)
{
	const char *a = argv[*i], *lname;
	size_t len;

	if (a[0] != '-' || !a[1])
		return NULL;
	lname = a + 1 + (a[1] == '-');
	len = strcspn(lname, "=");
	if ((len == 6 && !strncmp(lname, "output", 6)) || !strcmp(a, "-o")) {
		if (lname[len])
			return lname + len + 1;
		return *i + 1 < argc ? argv[++*i] : "";
	}
	return a[1] == 'o' ? a + 2 : NULL;	/* -oFILE */
}

int report_take_output(int *argc, char **argv, const char *cmd, const char **name)
{
	int n = 1, i;

	*name = NULL;
	for (i = 1; i < *argc; i++) {
		const char *a = argv[i], *lname = a[0] == '-' && a[1] ? a + 1 + (a[1] == '-') : "";
		size_t len = strcspn(lname, "=");
		const char *v;

		if (!strcmp(a, "--"))
			break;
		if (*lname && !lname[len] && fg_option_arity(lname, len) == 1) {
			argv[n++] = argv[i];	/* a render option and its value */
			if (i + 1 < *argc)
				argv[n++] = argv[++i];
		} else if ((v = output_arg(*argc, argv, &i))) {
			if (!*v) {
				ow_err("%s: %s: a file name is expected", cmd, a);
				return -1;
			}
			*name = v;
		} else {
			argv[n++] = argv[i];
		}
	}
	while (i < *argc)
		argv[n++] = argv[i++];
	argv[n] = NULL;
	*argc = n;
	return 0;
}

int report_out_open(struct report_out *o, const char *cmd, const char *name)
{
	o->cmd = cmd;
	o->name = name;
	o->f = stdout;
	if (!name)
		return 0;
	if (ow_outfile_open(&o->of, name, 0)) {
		ow_err("%s: %s: %s", cmd, name, ow_outfile_strerror(&o->of, errno));
		return -1;
	}
	o->f = o->of.f;
	return 0;
}

int report_out_close(struct report_out *o, int keep)
{
	if (o->name) {
		if (ow_outfile_close(&o->of, keep) && keep) {
			ow_err("%s: %s: %s", o->cmd, o->name, ow_strerror(errno));
			return -1;
		}
		return 0;
	}
	if (keep && (fflush(stdout) || ferror(stdout))) {
		if (errno != EPIPE)
			ow_err("%s: writing standard output: %s", o->cmd,
			       ow_strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
