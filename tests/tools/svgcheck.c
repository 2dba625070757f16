// SPDX-License-Identifier: Apache-2.0
/*
 * svgcheck - check that an SVG written by offwake-svg is well-formed and
 * has no markup that came from its input (see svgcheck.h).
 * Usage: svgcheck [-a] [-e] [-n NEEDLE | -N NEEDLE] [FILE]
 *   -a         attribute names only those flamegraph.pl writes
 *   -e         the document may be the error SVG (no <script>)
 *   -n NEEDLE  NEEDLE occurs as text content (<text>/<title>) and nowhere else
 *   -N NEEDLE  as -n, but it need not occur at all
 * FILE defaults to standard input.  Exit 0 ok, 1 check failed (reason on
 * stderr), 2 usage or I/O error.
 */
#include <stdlib.h>
#include <unistd.h>
#include "svgcheck.h"

int main(int argc, char **argv)
{
	struct svgcheck c = { 0 };
	size_t len = 0, cap = 1 << 16, got;
	char *buf;
	FILE *f = stdin;
	int opt;

	while ((opt = getopt(argc, argv, "aen:N:")) != -1) {
		switch (opt) {
		case 'a': c.flags |= SVGCHECK_ATTRS; break;
		case 'e': c.flags |= SVGCHECK_ERROR_SVG; break;
		case 'N': c.flags |= SVGCHECK_NEEDLE_OPTIONAL; /* fall through */
		case 'n': c.needle = optarg; break;
		default:
			fprintf(stderr, "usage: svgcheck [-a] [-e] [-n NEEDLE | -N NEEDLE] [FILE]\n");
			return 2;
		}
	}
	if (optind < argc && strcmp(argv[optind], "-") && !(f = fopen(argv[optind], "rb"))) {
		perror(argv[optind]);
		return 2;
	}
	buf = malloc(cap);
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	if (!buf || ferror(f)) {
		fprintf(stderr, "svgcheck: read error\n");
		return 2;
	}
	if (len > 0x7fffffff) {
		fprintf(stderr, "svgcheck: input too large\n");
		return 2;
	}
	if (svgcheck_mem(&c, buf, len)) {
		fprintf(stderr, "svgcheck: %s\n", c.why);
		return 1;
	}
	free(buf);
	return 0;
}
