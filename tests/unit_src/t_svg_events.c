// SPDX-License-Identifier: Apache-2.0
/*
 * t_svg_events.c - the SVG writer (src/export/export_svg.c) on a profile
 * with events, made in memory: a worker whose 1 ms blocks are only summed,
 * 2 ms blocks every 100 ms as events, and four 80 ms stalls at known times,
 * each under a stack of its own (one with a hostile name).  Checks the
 * heat map's cells and the embedded data, and that without events the SVG
 * is the one fg_render() writes.  With an argument, writes the SVG there
 * too (tests/t_heatmap.sh opens it in the browsers).
 */
#include "export/writers.h"
#include "common/util.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#define MS 1000000ULL
#define T0 5000000000ULL	/* the capture's start on the events' clock */
#define LEN (10000 * MS)	/* 10 s */
#define NSTALL 4

/* the writer (its row in writers.c) */
int export_svg_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out);

/* when the stalls start, from the capture's start */
static const uint64_t stall_at[NSTALL] = { 1250 * MS, 3550 * MS, 6050 * MS, 8450 * MS };
static const char *const stall_fn[NSTALL] = {
	"stall_one", "stall_two", "stall_</script><script>alert(1)</script>]]>", "stall_four",
};

struct stack {
	const char *names[8];
	size_t n;
	struct ow_long_block ev[128];
	size_t nev;
	uint64_t summed_us;
};

static struct stack stacks[2 + NSTALL];

static void make_stacks(void)
{
	struct stack *s = &stacks[0];
	/* the 1 ms blocks: summed only */
	*s = (struct stack){ .names = { "worker", "run_job", "wait_short", "futex_wait" }, .n = 4 };
	s->summed_us = 3000000;
	/* 2 ms blocks every 100 ms */
	s = &stacks[1];
	*s = (struct stack){ .names = { "worker", "run_job", "io_wait", "io_schedule" }, .n = 4 };
	for (uint64_t t = 10 * MS; t < LEN; t += 100 * MS) {
		s->ev[s->nev++] = (struct ow_long_block){ T0 + t, T0 + t + 2 * MS, T0 + t + 2 * MS - 1000,
							  42, 40, 7, 7, 1, 1 };
		s->summed_us += 2000;
	}
	for (int i = 0; i < NSTALL; i++) {
		s = &stacks[2 + i];
		*s = (struct stack){ .names = { "worker", "run_job", stall_fn[i], "futex_wait", "--",
						"flush_thread", "producer" }, .n = 7 };
		s->ev[0] = (struct ow_long_block){ T0 + stall_at[i], T0 + stall_at[i] + 80 * MS,
						   T0 + stall_at[i] + 79 * MS, 42, 40, 9, 9, 0, 1 };
		s->nev = 1;
		s->summed_us = 80000;
	}
}

static int with_events = 1;

static int foreach(const struct ow_profile *p, ow_sample_fn fn, void *ctx)
{
	for (size_t i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
		struct ow_frame fr[8];
		for (size_t k = 0; k < stacks[i].n; k++)
			fr[k] = (struct ow_frame){ .name = stacks[i].names[k],
						   .len = strlen(stacks[i].names[k]),
						   .kind = k ? OW_PF_NAME : OW_PF_THREAD };
		struct ow_sample smp = { fr, stacks[i].n, NULL, 0, fg_count_of(stacks[i].summed_us), 0,
					 with_events ? stacks[i].ev : NULL, with_events ? stacks[i].nev : 0 };
		int r = fn(ctx, &smp);
		if (r)
			return r;
	}
	return 0;
}

/* The SVG of the profile, in memory. */
static char *write_svg(struct fg_options *fg, int events, size_t *len)
{
	struct ow_profile p = { .foreach = foreach };
	struct ow_write_opts wo = { fg, "writing the SVG", false };
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	with_events = events;
	p.info.countname = "us";
	p.info.has_events = events;
	p.info.clock_start_ns = T0;
	p.info.clock_end_ns = T0 + LEN;
	p.info.event_min_ns = MS;
	int r = export_svg_write(&p, &wo, f);
	fclose(f);
	check(r == OW_EXIT_OK, events ? "svg events: written" : "svg events: written without",
	      "exit %d", r);
	return buf;
}

/* The attribute name="..." of the heat map cell at column c, row r. */
static const char *cell(const char *svg, unsigned c, unsigned r, const char *name, char *out,
			size_t size)
{
	char key[64];
	snprintf(key, sizeof(key), "fg:c=\"%u\" fg:r=\"%u\"", c, r);
	const char *p = strstr(svg, key);
	*out = 0;
	if (!p)
		return out;
	const char *start = p;
	while (start > svg && strncmp(start, "<rect", 5))
		start--;
	const char *end = strstr(p, "/>");
	char attr[32];
	snprintf(attr, sizeof(attr), " %s=\"", name);
	const char *a = strstr(start, attr);
	if (a && a < end) {
		a += strlen(attr);
		snprintf(out, size, "%.*s", (int)(strchr(a, '"') - a), a);
	}
	return out;
}

int main(int argc, char **argv)
{
	struct fg_options fg;
	size_t len, plain_len;
	char v[64];

	make_stacks();
	fg_options_init(&fg);
	fg.countname = "us";
	char *svg = write_svg(&fg, 1, &len);
	char *plain = write_svg(&fg, 0, &plain_len);
	if (!svg || !plain)
		return 1;

	check(strstr(svg, "<g id=\"heatmap\">") != NULL, "svg events: a heat map", "none");
	check(!strstr(plain, "heatmap") && !strstr(plain, "fg_heat"), "svg events: none without events",
	      "the SVG without events has a heat map");
	/* the plain SVG is the renderer's own, byte for byte */
	{
		struct fg_stacks *s = fg_stacks_new();
		for (size_t i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
			size_t lens[8];
			for (size_t k = 0; k < stacks[i].n; k++)
				lens[k] = strlen(stacks[i].names[k]);
			fg_stacks_add(s, stacks[i].names, lens, stacks[i].n, stacks[i].summed_us);
		}
		char *buf = NULL;
		size_t n;
		FILE *f = open_memstream(&buf, &n);
		fg_render(&fg, s, f);
		fclose(f);
		check(n == plain_len && !memcmp(buf, plain, n), "svg events: no events, fg_render's SVG",
		      "%zu bytes against %zu", plain_len, n);
		free(buf);
		fg_stacks_free(s);
	}
	for (int i = 0; i < NSTALL; i++) {
		unsigned c = stall_at[i] / (1000 * MS), r = stall_at[i] % (1000 * MS) / (20 * MS);
		char name[64];
		snprintf(name, sizeof(name), "svg events: stall %d's cell (%u s, row %u)", i, c, r);
		check(!strcmp(cell(svg, c, r, "fg:ns", v, sizeof(v)), "80000000") &&
		      !strcmp(cell(svg, c, r, "fill", v, sizeof(v)), "rgb(140,0,0)"), name,
		      "fg:ns/fill %s", v);
	}
	/* a cell of the 2 ms blocks: light; a cell of none: not drawn */
	check(!strcmp(cell(svg, 2, 0, "fg:ns", v, sizeof(v)), "2000000") &&
	      strcmp(cell(svg, 2, 0, "fill", v, sizeof(v)), "rgb(140,0,0)"),
	      "svg events: a 2 ms cell is light", "%s", v);
	check(!*cell(svg, 2, 1, "fill", v, sizeof(v)), "svg events: an empty cell is not drawn", "%s", v);
	check(strstr(svg, "\"stacks\":[") && strstr(svg, "\"ev\":["), "svg events: data for the script",
	      "no stacks or events");
	check(!strstr(svg, "<script>alert") && !strstr(svg, "alert(1)</script>]]>"),
	      "svg events: hostile names escaped", "a raw name in the SVG");
	check(strstr(svg, "stall_\\u003c/script\\u003e") != NULL, "svg events: hostile name as JSON",
	      "not found");
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");
		check(f && fwrite(svg, 1, len, f) == len && !fclose(f), "svg events: written to a file",
		      "%s", argv[1]);
	}
	free(svg);
	free(plain);
	return failed;
}
