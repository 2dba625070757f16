// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_render.c - libFuzzer harness for the whole render path: folded
 * parsing (fg_stacks_add_line / fg_stacks_read), option parsing and
 * validation, palette.map and --nameattr reading, and fg_render() into
 * memory.  Every
 * document rendered is checked with libxml2 (tests/tools/svgcheck.h:
 * well-formed, only flamegraph.pl's elements, one script, no event
 * attributes); a failed check aborts, so ill-formed or injected output is a
 * crash like any other.
 *
 * Input layout:
 *   byte 0: flags  bit0 inverted, bit1 flamechart, bit2 reverse, bit3 negate,
 *                  bit4 hash, bit5 cp (palette map from the input),
 *                  bit6 read through fg_stacks_read (a FILE) instead of
 *                  fg_stacks_add_line, bit7 the first line is a command line
 *                  for fg_options_parse (words split on spaces)
 *   byte 1: palette (index into a list, some invalid)
 *   byte 2: width / height / minwidth / fontsize choice
 *   byte 3: bit0-3 which string options take the first line's text,
 *           bit4 chain_grey_waker_dash off, bit5 --total, bit6 --factor,
 *           bit7 --nameattr from the input
 *   rest:   folded text; with cp, the text after a line "==PAL==" is the
 *           palette.map given to the renderer; with bit7 of byte 3, the
 *           text after a line "==ATTR==" (last) is the --nameattr file.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fg.h"
#include "../tools/svgcheck.h"

static const char *const palettes[] = {
	"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "red",
	"green", "blue", "aqua", "yellow", "purple", "orange", "bogus", "",
	"hot ", "JAVA",
};
static const long long widths[] = { 1200, 21, 1, 0, 100000, 300, -5, 2 };
static const long long heights[] = { 16, 1, 0, 40, -1 };
static const char *const minwidths[] = { "0.1", "0", "5%", "100%", "1e308",
	"-1", "abc", "0.0000001", "50", "1e-5%" };
static const char *const fontsizes[] = { "12", "0.5", "1e3", "12.0", "0" };

static char palpath[64], attrpath[64];
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(palpath, sizeof(palpath), "/tmp/fuzz_render_pal.%d", (int)getpid());
	snprintf(attrpath, sizeof(attrpath), "/tmp/fuzz_render_attr.%d", (int)getpid());
	return 0;
}

/* Cut the text after a line "==NAME==\n" (sep) off into file; 1 if there. */
static int split_file(char *text, char **end, const char *sep, const char *file)
{
	char *m = strstr(text, sep);
	size_t n = strlen(sep);

	unlink(file);
	if (!m)
		return 0;
	*m = 0;
	FILE *f = fopen(file, "w");
	if (f) {
		fwrite(m + n, 1, *end - (m + n), f);
		fclose(f);
	}
	*end = m;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fg_options o;
	struct fg_stacks *s;
	char *buf, *text, *end, *firstline = NULL;
	char *argv[64];
	int argc = 0;

	if (size < 4)
		return 0;
	uint8_t flags = data[0], pc = data[1], sz = data[2], sopt = data[3];
	buf = malloc(size - 4 + 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 4, size - 4);
	buf[size - 4] = 0;
	text = buf;
	end = buf + (size - 4);

	fg_options_init(&o);
	o.quiet = 1;
	o.palette_file = palpath;

	/* first line: options text */
	if ((flags & 0x80) || (sopt & 0x0f)) {
		char *nl = memchr(text, '\n', end - text);
		size_t l = nl ? (size_t)(nl - text) : (size_t)(end - text);
		firstline = strndup(text, l);
		text += nl ? l + 1 : l;
	}
	if (flags & 0x80) {
		argv[argc++] = "render";
		for (char *w = strtok(firstline, " "); w && argc < 63; w = strtok(NULL, " "))
			argv[argc++] = w;
		argv[argc] = NULL;
		int nfiles, r, saved = dup(2), dn = open("/dev/null", O_WRONLY);

		/* usage errors are expected: keep them off the fuzzer's log */
		fflush(stderr);
		dup2(dn, 2);
		r = fg_options_parse(&o, argc - 1, argv + 1, &nfiles, "fuzz");
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		close(dn);
		if (r != 0)
			goto out_opts;
		o.nameattr = NULL;	/* no files from the input */
		o.palette_file = palpath;
		o.quiet = 1;
	} else {
		const char *t = firstline ? firstline : "";
		if (sopt & 1) o.title = t;
		if (sopt & 2) { o.subtitle = t; o.notes = t; }
		if (sopt & 4) { o.countname = t; o.nametype = t; }
		if (sopt & 8) { o.fonttype = t; o.bgcolors = t; }
		o.colors = palettes[pc % (sizeof(palettes) / sizeof(palettes[0]))];
		o.width = widths[sz & 7];
		o.height = heights[(sz >> 3) % 5];
		o.minwidth = minwidths[(sz >> 3) % 10];
		o.fontsize_text = fontsizes[sz >> 5 & 3];
		o.fontsize = atof(o.fontsize_text);
		o.inverted = !!(flags & 1);
		o.flamechart = !!(flags & 2);
		o.reverse = !!(flags & 4);
		o.negate = !!(flags & 8);
		o.hash = !!(flags & 16);
		o.cp = !!(flags & 32);
		o.chain_grey_waker_dash = !(sopt & 16);
		if (sopt & 32) o.total = "123456789";
		if (sopt & 64) o.factor = "0.001";
	}
	if ((sopt & 0x80) && split_file(text, &end, "\n==ATTR==\n", attrpath))
		o.nameattr = attrpath;
	if (o.cp)
		split_file(text, &end, "\n==PAL==\n", palpath);
	if (fg_options_check(&o))
		goto out_opts;
	s = fg_stacks_new();
	if (!s)
		goto out_opts;
	fg_stacks_set_reverse(s, o.reverse);
	if (flags & 0x40) {
		FILE *f = fmemopen(text, end - text, "r");
		if (f) {
			if (end == text) {
				fclose(f);
				f = fopen("/dev/null", "r");
			}
			if (f) {
				fg_stacks_read(s, f, "fuzz");
				fclose(f);
			}
		}
	} else {
		char *p = text;
		while (p < end) {
			char *nl = memchr(p, '\n', end - p);
			size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
			if (fg_stacks_add_line(s, p, l) < 0)
				break;
			p += l + 1;
		}
	}
	(void)fg_stacks_lines(s);
	(void)fg_stacks_ignored(s);
	{
		char *svg = NULL;
		size_t svglen = 0;
		FILE *mem = open_memstream(&svg, &svglen);
		int r = mem ? fg_render(&o, s, mem) : -1;

		if (mem && fclose(mem))
			r = -1;
		/* a declared non-UTF-8 --encoding changes how the bytes read;
		 * --nameattr values are the user's own raw markup */
		if ((r == FG_EXIT_OK || r == FG_EXIT_EMPTY) && !o.encoding && !o.nameattr &&
		    svglen < (1u << 30)) {
			struct svgcheck chk = { .flags = SVGCHECK_ERROR_SVG };
			if (svgcheck_mem(&chk, svg, svglen)) {
				fprintf(stderr, "fuzz_render: bad SVG: %s\n", chk.why);
				fwrite(svg, 1, svglen < 4096 ? svglen : 4096, stderr);
				abort();
			}
		}
		free(svg);
	}
	fg_stacks_free(s);
out_opts:
	if (o.cp)
		unlink(palpath);
	if (o.nameattr)
		unlink(attrpath);
	free(firstline);
	free(buf);
	return 0;
}
