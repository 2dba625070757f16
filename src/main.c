// SPDX-License-Identifier: Apache-2.0
/*
 * main.c - entry point: "offwake-svg render ARGS..." renders folded files
 * (render_cmd.c), "diff" compares two profiles (diff.c), "unfold" reads
 * stacks back from an SVG (unfold.c), "convert" writes a profile as pprof,
 * speedscope or folded text (convert.c); every other command line is a
 * capture.  A first word that names no command is a capture's argument,
 * unless it is a word (not a DURATION) within a typo of a command's name:
 * "unknown command 'rendr', did you mean 'render'?".
 */
#include <ctype.h>
#include <string.h>
#include "cli.h"
#include "capture/capture_cfg.h"
#include "common/safetext.h"
#include "common/settings.h"
#include "common/util.h"
#include "reports/convert.h"
#include "reports/diff.h"
#include "reports/unfold.h"

/* The commands: dispatched here, listed by --help (args.c); the man
 * page and the bash completion are checked against --help
 * (tests/t_cli_docs.sh). */
const struct ow_command ow_commands[] = {
	{ "render", "[-o FILE] [OPTIONS] [FILE...]",
	  "folded stacks to an SVG (flamegraph.pl)", render_main },
	{ "diff", "[-n] [-s] [-f] [-o FILE] BEFORE AFTER",
	  "differential graph of two profiles", diff_main },
	{ "unfold", "GRAPH.svg",
	  "folded stacks back from a flame graph SVG", unfold_main },
	{ "convert", "--format=pprof|speedscope|folded [FILE...]",
	  "a folded file or\n"
	  "an SVG for pprof, Pyroscope, Parca, speedscope", convert_main },
	{ NULL },
};

/* The edit distance of a and b (insertions, deletions, substitutions,
 * swaps of two neighbours), up to 3: 3 means 3 or more. */
static size_t typo_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[3][16];

	if (la >= 15 || lb >= 15)
		return 3;
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			size_t v = i + j, *r = d[i % 3];

			if (i && j) {
				v = d[(i - 1) % 3][j - 1] + (a[i - 1] != b[j - 1]);
				if (d[(i - 1) % 3][j] + 1 < v)
					v = d[(i - 1) % 3][j] + 1;
				if (r[j - 1] + 1 < v)
					v = r[j - 1] + 1;
				if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
				    d[(i - 2) % 3][j - 2] + 1 < v)
					v = d[(i - 2) % 3][j - 2] + 1;
			} else {
				v = i ? i : j;
			}
			r[j] = v;
		}
	return d[la % 3][lb] < 3 ? d[la % 3][lb] : 3;
}

/* The command a word is a typo of (one edit in a short name, two in a
 * longer one), or NULL; a word with a digit or a dash is an argument. */
static const char *meant_command(const char *w)
{
	for (const char *p = w; *p; p++)
		if (!isalpha((unsigned char)*p))
			return NULL;
	for (const struct ow_command *c = ow_commands; c->name; c++)
		if (typo_distance(w, c->name) <= (strlen(c->name) > 4 ? 2u : 1u))
			return c->name;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *meant;
	struct capture_cfg o;
	int r;

	ow_settings_read();	/* the OFFWAKE_* settings, once */
	/* names from traced processes and other users are in our messages */
	if (ow_stderr_escape()) {
		ow_err("escaping standard error: out of memory");
		return OW_EXIT_FAIL;
	}
	for (const struct ow_command *c = ow_commands; argc > 1 && c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->main(argc - 1, argv + 1);
	if (argc > 1 && (meant = meant_command(argv[1]))) {
		ow_err("unknown command '%s', did you mean '%s'?", argv[1], meant);
		return OW_EXIT_USAGE;
	}
	r = capture_parse(&o, argc, argv);
	if (r) {
		capture_cfg_free(&o);
		return r == 1 ? 0 : r;
	}
	r = capture_main(&o);
	capture_cfg_free(&o);
	return r;
}
