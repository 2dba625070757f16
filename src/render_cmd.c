// SPDX-License-Identifier: Apache-2.0
/*
 * render_cmd.c - "offwake-svg render": flamegraph.pl's command line on
 * top of the render/ library (read folded files or stdin, write the SVG).
 */
#include "cli.h"
#include "fg.h"
#include "progress.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int render_main(int argc, char **argv)
{
	struct fg_options o;
	int nfiles, ret;

	fg_options_init(&o);
	ret = fg_options_parse(&o, argc - 1, argv + 1, &nfiles, "offwake-svg render");
	if (ret)
		return ret > 0 ? 0 : FG_EXIT_USAGE;
	if ((ret = fg_options_check(&o)))
		return ret;
	struct fg_stacks *s = fg_stacks_new();
	if (!s) {
		fprintf(stderr, "offwake-svg: out of memory\n");
		return 1;
	}
	fg_stacks_set_reverse(s, o.reverse);
	struct progress *pg = progress_start(0);
	char phase[300];
	for (int i = 0; i < nfiles || (i == 0 && nfiles == 0); i++) {
		const char *name = nfiles ? argv[1 + i] : "-";
		FILE *f = strcmp(name, "-") ? fopen(name, "rb") : stdin;
		if (!f) {
			/* as flamegraph.pl: warn and go on with the other files */
			fprintf(stderr, "offwake-svg: can't open %s: %s\n", name, strerror(errno));
			continue;
		}
		snprintf(phase, sizeof(phase), "reading %s", strcmp(name, "-") ? name : "standard input");
		progress_phase(pg, phase);
		if (fg_stacks_read(s, f, name)) {
			progress_stop(pg);
			fprintf(stderr, "offwake-svg: %s: %s\n", name,
				errno ? strerror(errno) : "read error");
			if (f != stdin)
				fclose(f);
			fg_stacks_free(s);
			return 1;
		}
		if (f != stdin)
			fclose(f);
	}
	progress_phase(pg, "rendering");
	ret = fg_render(&o, s, stdout);
	progress_stop(pg);
	fg_stacks_free(s);
	if (ret < 0) {
		if (errno == EPIPE)
			return 1;	/* the reader went away: quietly */
		fprintf(stderr, "offwake-svg: writing the SVG: %s\n", strerror(errno ? errno : EIO));
		return 1;
	}
	return ret;
}
