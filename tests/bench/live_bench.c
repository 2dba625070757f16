// SPDX-License-Identifier: Apache-2.0
/*
 * live_bench.c - what a refresh of the live view's tree (src/live/tree.c)
 * costs at N distinct stacks, fed synthetic snapshots (no BPF, no
 * curses): the first update (every stack new), then ROUNDS refreshes in
 * which a tenth of the stacks gained time (as a busy capture's interval;
 * then again with every stack changed, the worst case),
 * each followed by what the screen asks of the tree (the rows with the
 * hottest path open) and, once, a search of the whole tree.  Prints CPU
 * milliseconds (the median refresh), the tree's nodes and the process's
 * peak RSS, one line per N.
 *
 * A stack i: its thread (one of 64), 24 blocked frames that follow a
 * shared path down to a depth of 4 to 23 (from i's low bits) and are i's
 * own from there (a frame named after i, then names from a pool), an empty delimiter, a "--", 12 waker frames and the
 * waker's name: a tree whose shape is a real profile's (shared roots,
 * distinct tails, the waker side under each blocked stack).
 * Usage: live_bench N [N...]   (tests/bench/live_bench.sh builds and runs it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "live/tree.h"
#include "export/profile.h"

#define BLOCKED	24
#define WAKER	12
#define NFRAMES	(1 + BLOCKED + 1 + 1 + WAKER + 1)
#define ROUNDS	9
#define POOL	4096

static char pool[POOL][40];	/* frame names */

struct synth {
	size_t n;
	uint64_t *value;	/* each stack's time since the start */
};

static void frames_of(size_t i, struct ow_frame *f)
{
	size_t k = 0, split = 4 + i % 20;
	static char thread[64][16];

	if (!thread[0][0])
		for (int t = 0; t < 64; t++)
			snprintf(thread[t], sizeof(thread[t]), "worker-%d", t);
	f[k++] = (struct ow_frame){ thread[i % 64], strlen(thread[i % 64]), OW_PF_THREAD, NULL, 0, 0, NULL };
	static char own[48];

	snprintf(own, sizeof(own), "stack_%zu_split", i);	/* i's own */
	for (size_t d = 0; d < BLOCKED; d++) {
		size_t name = d < split ? (d * 131 + (i % 64) * 7) % POOL :
			      (i * 2654435761u + d * 40503) % POOL;
		const char *nm = d == split ? own : pool[name];

		f[k++] = (struct ow_frame){ nm, strlen(nm), OW_PF_NATIVE, NULL, 0, 0, NULL };
	}
	f[k++] = (struct ow_frame){ "", 0, OW_PF_DELIM, NULL, 0, 0, NULL };
	f[k++] = (struct ow_frame){ "--", 2, OW_PF_DIVIDER, NULL, 0, 0, NULL };
	for (size_t d = 0; d < WAKER; d++) {
		size_t name = (d * 977 + (i % 32) * 13) % POOL;

		f[k++] = (struct ow_frame){ pool[name], strlen(pool[name]), OW_PF_KERNEL, NULL, 0, 0, NULL };
	}
	f[k++] = (struct ow_frame){ thread[(i + 1) % 64], strlen(thread[(i + 1) % 64]), OW_PF_THREAD, NULL, 0, 0, NULL };
}

static int synth_foreach(const struct ow_profile *p, ow_sample_fn fn, void *ctx)
{
	const struct synth *s = p->src;
	struct ow_frame f[NFRAMES];
	int r = 0;

	for (size_t i = 0; i < s->n && !r; i++) {
		struct ow_sample smp = { f, NFRAMES, NULL, 0, fg_count_of(s->value[i]), 0 };

		frames_of(i, f);
		r = fn(ctx, &smp);
	}
	return r;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The profile walk alone (making the frames), to tell it from the tree's. */
static int nothing(void *ctx, const struct ow_sample *s)
{
	(void)ctx;
	(void)s;
	return 0;
}

static void bench(size_t n, size_t step)
{
	struct synth s = { n, calloc(n, sizeof(uint64_t)) };
	struct ow_profile p = { .foreach = synth_foreach, .src = &s };
	struct live_tree *t = live_tree_new();
	double first, walk, refresh[ROUNDS], rows[ROUNDS], search, t0;
	struct live_node **r, *root;
	size_t nth, count, nrows = 0;
	struct rusage ru;

	for (size_t i = 0; i < n; i++)
		s.value[i] = 1000 + i % 977;
	t0 = cpu_ms();
	live_tree_update(t, &p);
	first = cpu_ms() - t0;
	root = live_tree_root(t);
	live_sort_kids(t, root, LIVE_TOTAL);
	live_follow(t, root->kids[0], LIVE_TOTAL);
	for (int k = 0; k < ROUNDS; k++) {
		for (size_t i = k % step; i < n; i += step)	/* a tenth gained time */
			s.value[i] += 500 + i % 300;
		t0 = cpu_ms();
		live_tree_update(t, &p);
		refresh[k] = cpu_ms() - t0;
		t0 = cpu_ms();
		nrows = live_rows(t, LIVE_INTERVAL, &r);
		rows[k] = cpu_ms() - t0;
	}
	t0 = cpu_ms();
	ow_profile_foreach(&p, nothing, NULL);
	walk = cpu_ms() - t0;
	t0 = cpu_ms();
	live_search(t, LIVE_INTERVAL, "no such frame", NULL, &nth, &count);
	search = cpu_ms() - t0;
	qsort(refresh, ROUNDS, sizeof(double), cmp_double);
	qsort(rows, ROUNDS, sizeof(double), cmp_double);
	getrusage(RUSAGE_SELF, &ru);
	printf("%zu stacks, 1/%zu changed: refresh %.1f ms CPU (of which %.1f ms making the samples), rows %.2f ms (%zu rows), first update %.1f ms, search %.1f ms; %zu nodes, peak RSS %ld MB\n",
	       n, step, refresh[ROUNDS / 2], walk, rows[ROUNDS / 2], nrows, first, search,
	       live_tree_nodes(t), ru.ru_maxrss / 1024);
	live_tree_free(t);
	free(s.value);
}

int main(int argc, char **argv)
{
	for (int i = 0; i < POOL; i++)
		snprintf(pool[i], sizeof(pool[i]), "function_%d_of_module_%d", i, i % 97);
	for (int i = 1; i < argc; i++) {
		bench(strtoull(argv[i], NULL, 10), 10);
		bench(strtoull(argv[i], NULL, 10), 1);
	}
	return 0;
}
