// SPDX-License-Identifier: Apache-2.0
/*
 * main.c - entry point: "offwake-svg render ARGS..." renders folded files
 * (render_cmd.c), "diff" compares two profiles (diff.c), "unfold" reads
 * stacks back from an SVG (unfold.c), "convert" writes a profile as pprof,
 * speedscope or folded text (convert.c); every other command line is a
 * capture.  A first word that names no command is a capture's argument
 * (a mistyped command is an invalid DURATION).
 */
#include <string.h>
#include "cli.h"
#include "reports/convert.h"
#include "reports/diff.h"
#include "reports/unfold.h"

/* The commands: dispatched here, listed by --help (args.c); the man
 * page and the bash completion are checked against --help
 * (tests/t_cli_docs.sh). */
const struct ow_command ow_commands[] = {
	{ "render", "[OPTIONS] [FILE...]",
	  "folded stacks to an SVG (flamegraph.pl)", render_main },
	{ "diff", "[-n] [-s] [-f] BEFORE AFTER",
	  "differential graph of two profiles", diff_main },
	{ "unfold", "GRAPH.svg",
	  "folded stacks back from a flame graph SVG", unfold_main },
	{ "convert", "--format=pprof|speedscope|folded [FILE...]",
	  "a folded file or\n"
	  "an SVG for pprof, Pyroscope, Parca, speedscope", convert_main },
	{ NULL },
};

int main(int argc, char **argv)
{
	struct capture_opts o;
	int r;

	for (const struct ow_command *c = ow_commands; argc > 1 && c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->main(argc - 1, argv + 1);
	r = capture_parse(&o, argc, argv);
	if (r) {
		capture_opts_free(&o);
		return r == 1 ? 0 : r;
	}
	r = capture_main(&o);
	capture_opts_free(&o);
	return r;
}
