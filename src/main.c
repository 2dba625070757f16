// SPDX-License-Identifier: Apache-2.0
/*
 * main.c - entry point: "offwake-svg render ARGS..." renders folded files
 * (render_cmd.c), "diff" compares two profiles (diff.c), "unfold" reads
 * stacks back from an SVG (unfold.c), "convert" writes a profile as pprof,
 * speedscope or folded text (convert.c); every other command line is a
 * capture.
 */
#include <string.h>
#include "cli.h"
#include "reports/convert.h"
#include "reports/diff.h"
#include "reports/unfold.h"

int main(int argc, char **argv)
{
	struct capture_opts o;
	int r;

	if (argc > 1 && !strcmp(argv[1], "render"))
		return render_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "unfold"))
		return unfold_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "convert"))
		return convert_main(argc - 1, argv + 1);
	r = capture_parse(&o, argc, argv);
	if (r) {
		capture_opts_free(&o);
		return r == 1 ? 0 : r;
	}
	r = capture_main(&o);
	capture_opts_free(&o);
	return r;
}
