// SPDX-License-Identifier: Apache-2.0
/*
 * render_cmd.c - "offwake-svg render": flamegraph.pl's command line on
 * top of the render/ library (read folded files or stdin, write the SVG
 * to standard output or, with -o FILE, atomically to FILE: report_out.h).
 * A named regular file is mapped rather than read, saving a copy of it.
 */
#include "cli.h"
#include "report_out.h"
#include "fg.h"
#include "common/progress.h"
#include "common/safetext.h"
#include "base/errmsg.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The message for a file parsed from its mapping, made before the parse
 * (a signal handler may only write it). */
static char shrank_msg[PATH_MAX + 64];
static size_t shrank_len;

/* A mapped file that shrinks under us: say so and stop (no other way out
 * of a fault in the middle of a parse).  The parse runs on several
 * threads, which may all fault: the first says it, in one write, and
 * ends the process; the others wait for that (two at once interleaved
 * their parts: "offwake-svg: F" "offwake-svg: " ": the file shrank"). */
static void on_sigbus(int sig)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;

	(void)sig;
	if (atomic_flag_test_and_set(&said))
		for (;;)
			pause();
	if (write(2, shrank_msg, shrank_len) < 0)
		_exit(1);
	_exit(1);
}

/*
 * Parse a named regular file from a mapping of it.  Returns 1 when done
 * (*ret: fg_stacks_read_map's result), 0 when the file cannot be mapped
 * (a pipe, an empty file) and is to be read as a stream.
 */
static int read_mapped(struct fg_stacks *s, FILE *f, const char *name, int *ret)
{
	struct stat st;
	struct sigaction sa = { .sa_handler = on_sigbus }, old;

	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uintmax_t)st.st_size > SIZE_MAX)
		return 0;
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
	if (p == MAP_FAILED)
		return 0;
	/* written by write(2), not through stderr: escaped here */
	strcpy(shrank_msg, "offwake-svg: ");
	ow_text_escape(shrank_msg + strlen(shrank_msg), PATH_MAX, name, strlen(name), 0);
	strcat(shrank_msg, ": the file shrank while it was read\n");
	shrank_len = strlen(shrank_msg);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	*ret = fg_stacks_read_map(s, p, (size_t)st.st_size);
	sigaction(SIGBUS, &old, NULL);
	munmap(p, (size_t)st.st_size);
	return 1;
}

int render_main(int argc, char **argv)
{
	struct fg_options o;
	struct report_out out;
	const char *out_name;
	int nfiles, ret;

	if (report_take_output(&argc, argv, "render", &out_name))
		return FG_EXIT_USAGE;
	fg_options_init(&o);
	ret = fg_options_parse(&o, argc - 1, argv + 1, &nfiles, "offwake-svg render");
	if (ret) {
		if (ret > 0)	/* --help */
			puts("\nand offwake-svg's own:\n"
			     "  -o, --output FILE  write the SVG to FILE (atomically), not to standard\n"
			     "                     output");
		return ret > 0 ? 0 : FG_EXIT_USAGE;
	}
	if ((ret = fg_options_check(&o)))
		return ret;
	struct fg_stacks *s = fg_stacks_new();
	if (!s) {
		fprintf(stderr, "offwake-svg: reading the input: out of memory\n");
		return 1;
	}
	fg_stacks_set_reverse(s, o.reverse);
	fg_stacks_set_max_depth(s, (size_t)o.max_depth);
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
		int r;
		if (f == stdin || !read_mapped(s, f, name, &r))
			r = fg_stacks_read(s, f, name);
		if (r) {
			progress_stop(pg);
			if (errno == ENOMEM)
				fprintf(stderr, "offwake-svg: reading %s: out of memory\n", name);
			else
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
	fg_stacks_report_truncated(s, 0, "render");
	if (report_out_open(&out, "render", out_name)) {
		progress_stop(pg);
		fg_stacks_free(s);
		return 1;
	}
	progress_phase(pg, "rendering");
	ret = fg_render(&o, s, out.f);
	progress_stop(pg);
	fg_stacks_free(s);
	if (ret < 0) {
		if (errno != EPIPE)	/* the reader went away: quietly */
			fprintf(stderr, "offwake-svg: %s the SVG: %s\n",
				errno == ENOMEM ? "rendering" : "writing", ow_strerror(errno));
		ret = FG_EXIT_FAIL;
	}
	/* status 2: the error SVG is written, and kept, as on standard output */
	if (report_out_close(&out, ret == FG_EXIT_OK || ret == FG_EXIT_EMPTY))
		ret = FG_EXIT_FAIL;
	return ret;
}
