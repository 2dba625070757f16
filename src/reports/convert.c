// SPDX-License-Identifier: Apache-2.0
/*
 * convert.c - "offwake-svg convert": read profiles (folded files or flame
 * graph SVGs, by content: profile_load.c; standard input without FILE)
 * into one stack set and write it as pprof, speedscope JSON or folded
 * text (the writers' table, export/writers.h: this profile has names only,
 * so the formats that need a capture's threads are not offered, nor the
 * SVG, which "render" makes).  The format is --format's, else -o FILE's
 * extension.
 * -o writes atomically (report_out.h); binary pprof is not written to a
 * terminal.
 */
#include "convert.h"
#include "export/writers.h"
#include "profile_load.h"
#include "report_out.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CMD "convert"

static void usage(FILE *f)
{
	fputs("usage: " OW_PROG " convert [--format=pprof|speedscope|folded] [-o FILE]\n"
	      "                   [--countname=UNIT] [--name=NAME] [FILE...]\n"
	      "\n"
	      "Convert profiles (folded stacks, or flame graph SVGs, which are read\n"
	      "back as \"" OW_PROG " unfold\" does; standard input without FILE) to\n"
	      "pprof (gzipped profile.proto: go tool pprof, Pyroscope, Parca),\n"
	      "speedscope's JSON, or folded text.  Several FILEs are added together.\n"
	      "Their frames are names only: the pprof has no addresses, mappings or\n"
	      "labels (a capture written with --format=pprof has them).\n"
	      "\n"
	      "  -F, --format=FMT   pprof, speedscope or folded; default: from -o FILE's\n"
	      "                     extension (.pb.gz, .speedscope.json, .folded)\n"
	      "  -f                 --format=folded\n"
	      "  -o, --output=FILE  write to FILE (atomically) instead of standard output\n"
	      "  --countname=UNIT   what the counts are: us (default), ns, ms, s,\n"
	      "                     samples, bytes, or any name (pprof's sample unit)\n"
	      "  --name=NAME        the profile's name in speedscope (default: FILE)\n"
	      "  -h, --help         show this help and exit\n"
	      "\n"
	      "Binary pprof is not written to a terminal: use -o FILE.pb.gz or a redirect.\n", f);
}

static int usage_error(const char *what, const char *why)
{
	ow_err(CMD ": %s: %s", what, why);
	fputs("Try '" OW_PROG " convert --help' for more information.\n", stderr);
	return OW_EXIT_USAGE;
}

struct conv {
	int format;		/* -1: not given */
	const char *out;
	struct export_info info;
};

static int parse(struct conv *c, int argc, char **argv, int *first)
{
	static const struct option lopts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "countname", required_argument, NULL, 'c' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char bad[64];
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":F:fo:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			c->format = ow_writer_by_name(optarg);
			if (c->format < 0 || ow_writers[c->format].own_option)
				return usage_error(argv[optind - 1][1] == '-' ? "--format" : "-F",
						   "unknown format (choose from pprof, speedscope, folded)");
			if (ow_writer_needs(c->format) & OW_NEED_THREADS)
				return usage_error(optarg, "needs a capture's threads and times, "
						   "which stack counts do not have");
			if (c->format == OW_WRITER_SVG)
				return usage_error("--format=svg", "an SVG is what \"" OW_PROG
						   " render\" makes");
			break;
		case 'f':
			c->format = ow_writer_by_name("folded");
			break;
		case 'o':
			c->out = optarg;
			break;
		case 'c':
			c->info.countname = optarg;
			break;
		case 'n':
			c->info.name = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			return usage_error(argv[optind - 1], "expects a value");
		default:
			if (optopt)
				snprintf(bad, sizeof(bad), "-%c", optopt);
			else
				snprintf(bad, sizeof(bad), "%.60s", argv[optind - 1]);
			return usage_error(bad, "unknown option");
		}
	}
	if (c->format < 0 && c->out) {
		c->format = ow_writer_by_path(c->out);
		if (c->format == OW_WRITER_SVG)
			return usage_error(c->out, "an SVG is what \"" OW_PROG " render\" makes");
		if (c->format < 0)
			return usage_error(c->out, "no format: give --format or name the file "
					   "*.pb.gz, *.speedscope.json or *.folded");
	}
	if (c->format < 0)
		return usage_error("--format", "missing (pprof, speedscope or folded)");
	*first = optind;
	return 0;
}

int convert_main(int argc, char **argv)
{
	struct conv c = { .format = -1 };
	struct report_out ro;
	struct fg_stacks *s;
	struct ow_profile prof = { 0 };
	int first, r;
	char what[300];

	if ((r = parse(&c, argc, argv, &first)))
		return r == 1 ? OW_EXIT_OK : r;
	if (!c.out && ow_writers[c.format].binary && isatty(STDOUT_FILENO)) {
		snprintf(what, sizeof(what), "not writing binary %s there (use -o FILE%s or redirect it)",
			 ow_writers[c.format].name, ow_writers[c.format].ext);
		return usage_error("standard output is a terminal", what);
	}
	if (!(s = fg_stacks_new())) {
		ow_err(CMD ": reading the input: out of memory");
		return OW_EXIT_FAIL;
	}
	for (int i = first; i < argc || (i == first && first == argc); i++)
		if (profile_load(s, CMD, i < argc ? argv[i] : "-", NULL, 0)) {
			fg_stacks_free(s);
			return OW_EXIT_FAIL;
		}
	if (!c.info.name)	/* speedscope's title: the (first) input's name */
		c.info.name = first < argc && strcmp(argv[first], "-") ? argv[first] : "standard input";
	if (!fg_stacks_lines(s)) {
		fg_stacks_free(s);
		ow_err(CMD ": no stack counts found in the input");
		return OW_EXIT_USAGE;
	}
	if (report_out_open(&ro, CMD, c.out)) {
		fg_stacks_free(s);
		return OW_EXIT_FAIL;
	}
	snprintf(what, sizeof(what), CMD ": writing %s", c.out ? c.out : "standard output");
	prof.info = c.info;
	ow_profile_of_stacks(&prof, s);
	r = ow_writers[c.format].write(&prof, &(struct ow_write_opts){ NULL, what, false }, ro.f) ? -1 : 0;
	fg_stacks_free(s);
	if (report_out_close(&ro, !r))
		r = -1;
	return r ? OW_EXIT_FAIL : OW_EXIT_OK;
}
