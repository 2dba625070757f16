// SPDX-License-Identifier: Apache-2.0
/*
 * unit_render.c - unit tests of the render/ library's modules on their own:
 * Perl number rules, UTF-8 helpers, the folded-line grammar, the option
 * parser, palettes, the in-memory stack set, the sort, the two-thread
 * loop and the two-thread writer.  Prints PASS:/FAIL: lines.
 */
#include "fg.h"
#include "flow.h"
#include "mkqs.h"
#include "par.h"
#include "outbuf.h"
#include "palette.h"
#include "pnum.h"
#include "stacks.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed;

static void check(int ok, const char *name, const char *detail)
{
	printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", name, ok ? "" : ": ", ok ? "" : detail);
	failed |= !ok;
}

static void check_str(const char *got, const char *want, const char *name)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "got '%s', want '%s'", got, want);
	check(!strcmp(got, want), name, buf);
}

static void test_pnum(void)
{
	char b[64];

	pnum_fmt(pnum_add(pnum_parse_count("9223372036854775807", 19), pnum_iv(1)), b, sizeof(b));
	check_str(b, "9223372036854775808", "pnum: integers stay exact past 2^63");
	pnum_fmt(pnum_add(pnum_iv(UINT64_MAX), pnum_iv(1)), b, sizeof(b));
	check_str(b, "1.84467440737096e+19", "pnum: past 2^64 becomes %.15g double");
	pnum_fmt(pnum_add(pnum_nv(0.1), pnum_nv(0.2)), b, sizeof(b));
	check_str(b, "0.3", "pnum: doubles print with 15 digits");
	struct pnum c = pnum_parse_count("19.", 3);
	check(c.is_nv == 2, "pnum: a count with a decimal point stays a double", "not a string double");
	pnum_fmt(pnum_add(pnum_parse_count("9223372036854775807", 19), c), b, sizeof(b));
	check_str(b, "9.22337203685478e+18", "pnum: integer + decimal string is a double sum");
	pnum_fmt(pnum_numify("  12abc"), b, sizeof(b));
	check_str(b, "12", "pnum: numify takes the leading number");
	pnum_fmt(pnum_numify("1e3"), b, sizeof(b));
	check_str(b, "1000", "pnum: numify reads exponents");
	pnum_fmt(pnum_div(pnum_iv(7), pnum_iv(2)), b, sizeof(b));
	check_str(b, "3.5", "pnum: division is exact or a double");
}

static void test_utf8(void)
{
	size_t n;
	char *r = utf8_repair("a\xff" "b\xc3", 4, &n);

	check(r && n == 8 && !memcmp(r, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD", 8),
	      "utf8: invalid bytes become U+FFFD", "wrong repair");
	free(r);
	check(utf8_count("\xE6\x97\xA5\xF0\x9F\x98\x80x", 8) == 3, "utf8: code points counted",
	      "wrong count");
	check(perl_space_before("a\xC2\xA0", 3) == 2, "utf8: U+00A0 is Perl whitespace", "no");
	check(perl_space_before("a\x1c", 2) == 0, "utf8: U+001C is not Perl whitespace", "yes");
}

/* Render lines and return the output in a malloc'd buffer. */
static char *render(const char *input, int argc, char **argv, int *status)
{
	struct fg_options o;
	int nf;
	char *out = NULL;
	size_t outlen = 0;

	fg_options_init(&o);
	o.quiet = 1;
	if (fg_options_parse(&o, argc, argv, &nf, "unit")) {
		*status = -2;
		return NULL;
	}
	struct fg_stacks *s = fg_stacks_new();
	FILE *in = fmemopen((void *)input, strlen(input), "r");
	fg_stacks_set_reverse(s, o.reverse);
	fg_stacks_read(s, in, "input");
	fclose(in);
	FILE *f = open_memstream(&out, &outlen);
	*status = fg_render(&o, s, f);
	fclose(f);
	fg_stacks_free(s);
	return out;
}

static void test_grammar(void)
{
	struct fg_stacks *s = fg_stacks_new();
	const char *good[] = { "a;b 5", "a;b  5", "a 12.", "a 1.5", "a\t7", "a 3 4", "a 5\r" };
	const char *bad[] = { "a;b -5", "a +7", "a 1e3", "a .5", "a 5,000", "a 0x10", "a 5 ", "a5", "" };

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		check(fg_stacks_add_line(s, good[i], strlen(good[i])) == 0, "grammar: valid line", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		check(fg_stacks_add_line(s, bad[i], strlen(bad[i])) == 1, "grammar: invalid line", bad[i]);
	check(fg_stacks_lines(s) == 7 && fg_stacks_ignored(s) == 9, "grammar: lines counted",
	      "wrong counts");
	const char *fr[] = { "x;y", "z" };
	size_t len[] = { 3, 1 };
	check(fg_stacks_add(s, fr, len, 2, 1) == -1, "stacks: ';' refused in a frame from code", "accepted");
	fg_stacks_free(s);

	/* the stack part keeps one trailing space: "b " is its own frame */
	int st;
	char *a1[] = { "--minwidth=0" };
	char *svg = render("a;b  5\na;b 5\n", 1, a1, &st);
	check(svg && strstr(svg, "<title>b  (5 samples, 50.00%)</title>"), "grammar: two spaces keep one",
	      "frame 'b ' missing");
	free(svg);
	/* whole-line sort splits siblings: b, b2, b again */
	svg = render("q;b 5\nq;b2 3\nq;b;c 1\n", 1, a1, &st);
	int nb = 0;
	for (const char *p = svg; (p = strstr(p, "<title>b (")); p++)
		nb++;
	check(nb == 2, "merge: 'b' split around 'b2' by the line sort", "not two b frames");
	free(svg);
}

static void test_options(void)
{
	struct fg_options o;
	int nf;
	char *ok[] = { "--color=chain", "-inv", "--countn", "ms", "file1", "--WIDTH=+0900", "--", "--x" };

	fg_options_init(&o);
	int r = fg_options_parse(&o, 8, ok, &nf, "unit");
	check(r == 0 && !strcmp(o.colors, "chain") && o.inverted && !strcmp(o.countname, "ms") &&
	      o.width == 900 && nf == 2 && !strcmp(ok[0], "file1") && !strcmp(ok[1], "--x"),
	      "options: prefixes, single dash, case, permute, --", "parsed wrongly");
	fflush(stdout);
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");
	char *amb[] = { "--h" }, *unk[] = { "--nohash" }, *val[] = { "--hash=1" },
	     *num[] = { "--width=abc" }, *miss[] = { "--title" };
	fg_options_init(&o);
	int e1 = fg_options_parse(&o, 1, amb, &nf, "unit");
	int e2 = fg_options_parse(&o, 1, unk, &nf, "unit");
	int e3 = fg_options_parse(&o, 1, val, &nf, "unit");
	int e4 = fg_options_parse(&o, 1, num, &nf, "unit");
	int e5 = fg_options_parse(&o, 1, miss, &nf, "unit");
	fclose(stderr);
	stderr = saved;
	check(e1 == -1 && e2 == -1 && e3 == -1 && e4 == -1 && e5 == -1,
	      "options: ambiguous, unknown, flag value, bad number, missing value", "accepted");
	char fl0[] = "--fontsize=1_2.5", *fl[] = { fl0 };	/* parsed in place */
	fg_options_init(&o);
	fg_options_parse(&o, 1, fl, &nf, "unit");
	check(!strcmp(o.fontsize_text, "12.5") && o.fontsize == 12.5,
	      "options: float keeps its text, underscores dropped", o.fontsize_text);
}

static void test_palette(void)
{
	char err[256], c[32];
	struct fg_palette *p = fg_palette_load("hot", err, sizeof(err));

	check(p != NULL, "palette: hot loads", err);
	fg_palette_color(p, FG_V_DEFAULT, "", 0, c, sizeof(c));
	check_str(c, "rgb(213,39,9)", "palette: root colour (drand48 seeded 0)");
	fg_palette_free(p);
	p = fg_palette_load("java", err, sizeof(err));
	fg_palette_color(p, FG_V_DEFAULT, "a::b_[k]", 8, c, sizeof(c));
	check(!strncmp(c, "rgb(", 4) && atoi(c + 4) == atoi(strchr(c, ',') + 1),
	      "palette: java C++ kernel frame is yellow (r == g)", c);
	fg_palette_free(p);
	p = fg_palette_load("chain", err, sizeof(err));
	fg_palette_color(p, FG_V_HASH, "read_[w]", 8, c, sizeof(c));
	check(!strncmp(c, "rgb(", 4) && atoi(c + 4) < 111, "palette: chain waker frame is aqua", c);
	char s1[32], s2[32];
	check(fg_palette_background(p, "", s1, s2) == 0 && !strcmp(s2, "#e0e0ff"),
	      "palette: chain background is blue", s2);
	check(fg_palette_background(p, "pink", s1, s2) == -1, "palette: unknown --bgcolors refused", "ok");
	fg_palette_free(p);
	p = fg_palette_load("nosuch", err, sizeof(err));
	fg_palette_color(p, FG_V_DEFAULT, "x", 1, c, sizeof(c));
	check_str(c, "rgb(0,0,0)", "palette: unknown palette is black");
	fg_palette_free(p);
	fg_delta_color(pnum_iv(5), pnum_iv(10), 0, c, sizeof(c));
	check_str(c, "rgb(255,105,105)", "palette: delta +5 of 10 is light red");
	fg_delta_color(pnum_iv(5), pnum_iv(10), 1, c, sizeof(c));
	check_str(c, "rgb(105,105,255)", "palette: --negate swaps to blue");
}

static void test_render(void)
{
	int st;
	char *none[] = { "--colors=chain" };
	char *svg = render("t;a;--;w;-;u;waker 10\n", 1, none, &st);

	check(st == 0 && svg && strstr(svg, "fill=\"rgb(160,160,160)\"") &&
	      strstr(svg, "<title>- (10 samples, 100.00%)</title>"),
	      "render: chain divider grey, waker '-' shown as '-'", "missing");
	const char *dash = strstr(svg, "<title>- (");
	check(dash && strstr(dash, "fill=\"rgb(200,200,200)\""), "render: waker-side '-' is grey (improvement)",
	      "not grey");
	free(svg);
	/* a line ending in ";--;" (a preempted block: an empty waker name):
	 * Perl's split drops the empty last part, so the graph ends at the
	 * divider, as flamegraph.pl draws it (not "--;;--") */
	svg = render("a;b;--; 78\na;c 5\n", 1, none, &st);
	check(st == 0 && svg && !strstr(svg, "<title> (78") &&
	      strstr(svg, "<title>-- (78 samples") &&
	      strstr(strstr(svg, "<title>-- (78 samples") + 1, "<title>-- (78 samples") == NULL,
	      "render: chain line ending in ';--;' ends at its divider", "an empty frame or a second divider");
	free(svg);
	svg = render("bad\n", 0, NULL, &st);
	check(st == FG_EXIT_EMPTY && strstr(svg, "ERROR: No valid input provided to flamegraph.pl."),
	      "render: empty input gives the error SVG and status 2", "wrong");
	free(svg);
	char *t[] = { "--title=</text><script>x</script>", "--notes=a-->b" };
	svg = render("a 1\n", 2, t, &st);
	check(svg && !strstr(svg, "<script>x") && strstr(svg, "&lt;/text&gt;&lt;script&gt;") &&
	      !strstr(svg, "a-->b"), "render: option strings escaped", "injection");
	free(svg);
}

/* A stack added from code renders exactly as its folded line does. */
static void test_add_equals_line(void)
{
	const char *st[][4] = { { "a", "b", "c" }, { "a", "b" }, { "x 12" }, { "", "q" },
				{ "t", "" }, { "b ", "c" }, { "\xff" "z", "y" } };
	const int nfr[] = { 3, 2, 1, 2, 2, 2, 2 };
	const uint64_t cnt[] = { 5, 3, 7, 2, 4, 9, 1 };

	for (int rev = 0; rev < 2; rev++) {
		struct fg_stacks *a = fg_stacks_new(), *b = fg_stacks_new();
		fg_stacks_set_reverse(a, rev);
		fg_stacks_set_reverse(b, rev);
		for (int i = 0; i < 7; i++) {
			size_t len[4];
			char line[128] = "";
			for (int k = 0; k < nfr[i]; k++) {
				len[k] = strlen(st[i][k]);
				if (k)
					strcat(line, ";");
				strcat(line, st[i][k]);
			}
			sprintf(line + strlen(line), " %llu", (unsigned long long)cnt[i]);
			fg_stacks_add(a, st[i], len, nfr[i], cnt[i]);
			fg_stacks_add_line(b, line, strlen(line));
		}
		struct fg_options o;
		char *x = NULL, *y = NULL;
		size_t xl, yl;
		fg_options_init(&o);
		o.minwidth = "0";
		o.quiet = 1;
		o.reverse = rev;
		FILE *fx = open_memstream(&x, &xl), *fy = open_memstream(&y, &yl);
		fg_render(&o, a, fx);
		fg_render(&o, b, fy);
		fclose(fx);
		fclose(fy);
		check(xl == yl && !memcmp(x, y, xl) && strstr(x, "<title>x (7 samples"),
		      rev ? "stacks: fg_stacks_add equals the folded line (--reverse)" :
			    "stacks: fg_stacks_add equals the folded line", "outputs differ");
		free(x);
		free(y);
		fg_stacks_free(a);
		fg_stacks_free(b);
	}
}

/* item i: its number, and every 997th a 300 KB run (memory buffers grow) */
static void write_test_item(void *ctx, struct outbuf *ob, size_t i)
{
	static char big[300000];

	(void)ctx;
	if (!big[0])
		memset(big, 'x', sizeof(big));
	char num[32];
	int n = snprintf(num, sizeof(num), "%zu;", i);
	ob_write(ob, num, (size_t)n);
	if (i % 997 == 0)
		ob_write(ob, big, sizeof(big));
}

static void test_outbuf_items(void)
{
	const size_t counts[] = { 0, 1, 4096, 4097, 20000, 50001 };

	for (size_t c = 0; c < sizeof(counts) / sizeof(*counts); c++) {
		char *x = NULL, *y = NULL, name[64];
		size_t xl = 0, yl = 0;
		FILE *fx = open_memstream(&x, &xl), *fy = open_memstream(&y, &yl);
		struct outbuf a, b;
		ob_init(&a, fx);
		ob_write_items(&a, counts[c], write_test_item, NULL);
		int ea = ob_finish(&a);
		ob_init(&b, fy);
		for (size_t i = 0; i < counts[c]; i++)
			write_test_item(NULL, &b, i);
		int eb = ob_finish(&b);
		fclose(fx);
		fclose(fy);
		snprintf(name, sizeof(name), "ob_write_items: %zu items in order", counts[c]);
		check(!ea && !eb && xl == yl && !memcmp(x, y, xl), name, "output differs");
		free(x);
		free(y);
	}
}

static int cmp_ranks(const void *x, const void *y)
{
	const struct fg_sortkey *a = x, *b = y;
	const uint32_t *p = a->p, *q = b->p;

	for (size_t i = 0; i < a->len && i < b->len; i++)
		if (p[i] != q[i])
			return p[i] < q[i] ? -1 : 1;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* Sort a with fn and b with qsort and cmp; frees both. */
static void check_sort(const char *what, struct fg_sortkey *a, struct fg_sortkey *b, size_t n,
		       int (*fn)(struct fg_sortkey *, size_t), int (*cmp)(const void *, const void *))
{
	char name[64];
	int ok = !fn(a, n);

	qsort(b, n, sizeof(*b), cmp);
	for (size_t i = 0; ok && i < n; i++)
		ok = !cmp(&a[i], &b[i]);
	snprintf(name, sizeof(name), "%s: %zu keys", what, n);
	check(ok, name, "order differs from qsort");
	free(a);
	free(b);
}

static int cmp_bytes(const void *x, const void *y)
{
	const struct fg_sortkey *a = x, *b = y;
	int c = memcmp(a->p, b->p, a->len < b->len ? a->len : b->len);

	return c ? c : a->len < b->len ? -1 : a->len > b->len;
}

/* Byte strings over a tiny alphabet with NULs and 0xff (so one is often
 * another's prefix), 0 to 40 bytes, against qsort. */
static void test_sort_bytes(void)
{
	const size_t counts[] = { 3, 200, 70000 };
	const char alphabet[] = { 0, 'a', 'b', (char)0xff };
	uint64_t rng = 7;

	for (size_t c = 0; c < sizeof(counts) / sizeof(*counts); c++) {
		size_t n = counts[c];
		char *bytes = malloc(n * 40);
		struct fg_sortkey *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
		for (size_t i = 0; i < n; i++) {
			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			uint32_t len = (uint32_t)(rng >> 58) % 41;
			for (uint32_t k = 0; k < len; k++) {
				rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
				bytes[i * 40 + k] = k < 9 ? 'a' : alphabet[rng >> 62];
			}
			a[i] = b[i] = (struct fg_sortkey){ bytes + i * 40, len, (uint32_t)i, 0 };
		}
		check_sort("fg_sort_bytes", a, b, n, fg_sort_bytes, cmp_bytes);
		free(bytes);
	}
}

/* Sequences sharing long prefixes (a few values per position), some the
 * prefix of another, on one thread and on two, against qsort. */
static void test_sort(void)
{
	const size_t counts[] = { 5, 100, 5000, 100000 };
	uint64_t rng = 42;

	for (size_t c = 0; c < sizeof(counts) / sizeof(*counts); c++) {
		size_t n = counts[c];
		uint32_t *seq = malloc(n * 40 * sizeof(*seq));
		struct fg_sortkey *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
		for (size_t i = 0; i < n; i++) {
			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			uint32_t len = (uint32_t)(rng >> 59) + 8;	/* 8..39 */
			for (uint32_t k = 0; k < len; k++) {
				rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
				seq[i * 40 + k] = k < 6 ? (uint32_t)(rng >> 62) % 2 : (uint32_t)(rng >> 61);
			}
			if (i % 10 == 1) {	/* a prefix of the one before, odd or even */
				len = a[i - 1].len - 1 - (uint32_t)(i / 10 % 2);
				memcpy(seq + i * 40, seq + (i - 1) * 40, len * sizeof(*seq));
			}
			a[i] = b[i] = (struct fg_sortkey){ seq + i * 40, len, (uint32_t)i, 0 };
		}
		check_sort("fg_sort_ranks", a, b, n, fg_sort_ranks, cmp_ranks);
		free(seq);
	}
}

/* The merge in two halves draws what the merge in one does: random chain
 * stacks with empty fields, "--" and "-" fields, zero counts and
 * one-frame lines, with and without the chain palette and pruning. */
static void test_parallel_merge(void)
{
	const char *vocab[] = { "", "--", "-", "f", "g", "h", "read", "write", "x y", "q" };
	const char *opts[][4] = { { "" }, { "--colors", "chain" }, { "--minwidth", "0" },
				  { "--colors", "chain", "--minwidth", "0" } };
	const int nopts[] = { 0, 2, 2, 4 };
	size_t cap = 4000 * 64, n = 0;
	char *in = malloc(cap);
	uint64_t rng = 99;

	for (int i = 0; i < 4000; i++) {
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		int depth = (int)(rng >> 61);	/* 0..7 more fields */
		n += (size_t)snprintf(in + n, cap - n, "c%d", (int)(rng >> 58) % 5);
		for (int d = 0; d < depth; d++) {
			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			n += (size_t)snprintf(in + n, cap - n, ";%s", vocab[(rng >> 59) % 10]);
		}
		/* one-frame lines never 0: such a line starts each first frame's
		 * run, where the merge can be cut */
		n += (size_t)snprintf(in + n, cap - n, " %d\n", (int)(rng >> 40) % 6 + !depth);
	}
	for (int k = 0; k < 4; k++) {
		int st1, st2;
		fg_flow_parallel_min = (size_t)-1;
		char *one = render(in, nopts[k], (char **)opts[k], &st1);
		fg_flow_parallel_min = 1;
		char *two = render(in, nopts[k], (char **)opts[k], &st2);
		fg_flow_parallel_min = 50000;
		char name[96];
		snprintf(name, sizeof(name), "merge in two halves = in one (%s %s %s %s)",
			 nopts[k] ? opts[k][0] : "defaults", nopts[k] > 1 ? opts[k][1] : "",
			 nopts[k] > 2 ? opts[k][2] : "", nopts[k] > 3 ? opts[k][3] : "");
		check(one && two && st1 == st2 && !strcmp(one, two), name, "SVGs differ");
		free(one);
		free(two);
	}
	free(in);
}

static void mark_range(void *ctx, size_t lo, size_t hi)
{
	unsigned char *seen = ctx;

	for (size_t i = lo; i < hi; i++)
		seen[i]++;
}

/* fg_run2 visits every index once, on one thread or two */
static void test_run2(void)
{
	const size_t counts[] = { 0, 1, 65535, 65536, 200001 };

	for (size_t c = 0; c < sizeof(counts) / sizeof(*counts); c++) {
		unsigned char *seen = calloc(counts[c] + 1, 1);
		char name[64];
		int ok = 1;
		fg_run2(mark_range, seen, counts[c]);
		for (size_t i = 0; i < counts[c]; i++)
			ok &= seen[i] == 1;
		snprintf(name, sizeof(name), "fg_run2: %zu indexes once each", counts[c]);
		check(ok && !seen[counts[c]], name, "an index missed or visited twice");
		free(seen);
	}
}

int main(void)
{
	test_pnum();
	test_utf8();
	test_grammar();
	test_options();
	test_palette();
	test_render();
	test_add_equals_line();
	test_outbuf_items();
	test_sort();
	test_sort_bytes();
	test_run2();
	test_parallel_merge();
	return failed;
}
