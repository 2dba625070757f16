// SPDX-License-Identifier: Apache-2.0
/*
 * t_live_tree.c - unit tests of the live view's tree (src/live/tree.c),
 * fed synthetic profiles (folded-like lines made into typed frames), no
 * curses, no BPF: since-start totals and last-interval times after
 * updates, the same stack from two samples summed, empty delimiters
 * dropped, a node of many children (indexed) finding each again, rows hottest first by the view (the interval's order differs
 * from the since-start one after a switch of paths), the decaying time
 * halving every LIVE_HALF_LIFE updates, following the hottest path to the
 * "--" and on to the waker, and search (case-insensitive, its ancestors
 * opened, the next match wrapping around).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "live/tree.h"
#include "export/profile.h"
#include "check.h"

#define MAXF	64

/* A profile of lines "frame;frame;... COUNT": the first frame a thread,
 * "--" a divider, "" a delimiter, the others names. */
struct lines {
	const char *const *v;
	size_t n;
};

static int lines_foreach(const struct ow_profile *p, ow_sample_fn fn, void *ctx)
{
	const struct lines *l = p->src;

	for (size_t i = 0; i < l->n; i++) {
		struct ow_frame f[MAXF];
		const char *s = l->v[i], *sp = strrchr(s, ' ');
		struct ow_sample smp = { f, 0, NULL, 0, fg_count_of(strtoull(sp + 1, NULL, 10)), 0, NULL, 0 };
		int r;

		for (const char *a = s; a <= sp && smp.nframes < MAXF;) {
			const char *e = memchr(a, ';', sp - a);
			size_t len = e ? (size_t)(e - a) : (size_t)(sp - a);
			enum ow_pf_kind k = OW_PF_NAME;

			if (!smp.nframes)
				k = OW_PF_THREAD;
			else if (len == 2 && !memcmp(a, "--", 2))
				k = OW_PF_DIVIDER;
			else if (len == 1 && *a == '-')
				k = OW_PF_DELIM;
			f[smp.nframes++] = (struct ow_frame){ .name = a, .len = len, .kind = k };
			if (!e)
				break;
			a = e + 1;
		}
		if ((r = fn(ctx, &smp)))
			return r;
	}
	return 0;
}

static int update(struct live_tree *t, const char *const *v, size_t n)
{
	struct lines l = { v, n };
	struct ow_profile p = { .foreach = lines_foreach, .src = &l };

	return live_tree_update(t, &p);
}

/* The node at names path[0..] under the root, or NULL. */
static struct live_node *find(struct live_tree *t, const char *const *path)
{
	struct live_node *n = live_tree_root(t);

	for (; *path && n; path++) {
		struct live_node *k = NULL;

		for (uint32_t i = 0; i < n->nkids && !k; i++)
			if (!strcmp(n->kids[i]->name, *path))
				k = n->kids[i];
		n = k;
	}
	return n;
}

#define A "ow_alt;main;wait_a;read;pipe_read;schedule;--;pipe_write;write;wake_a;ow_waker"
#define B "ow_alt;main;wait_b;read;pipe_read;schedule;--;pipe_write;write;wake_b;ow_waker"
#define W "ow_waker;main;nap;hrtimer;schedule;--;hrtimer_wakeup;[hardirq];swapper/0"

static void test_totals_interval(void)
{
	struct live_tree *t = live_tree_new();
	const char *u1[] = { A " 1000", W " 500" };
	const char *u2[] = { A " 1000", W " 900", B " 700" };
	const char *pa[] = { "ow_alt", "main", "wait_a", NULL };
	const char *pb[] = { "ow_alt", "main", "wait_b", NULL };
	const char *pt[] = { "ow_alt", NULL };
	struct live_node *root = live_tree_root(t), *a, *b, *th;

	check(!update(t, u1, 2) && !update(t, u2, 3), "live_tree_update",
	      "an update failed");
	a = find(t, pa);
	b = find(t, pb);
	th = find(t, pt);
	check(a && b && th, "live_tree_paths", "a path is missing");
	if (!a || !b || !th)
		return;
	check(root->total == 2600 && th->total == 1700 && a->total == 1000 &&
	      b->total == 700, "live_tree_totals", "root %lld thread %lld a %lld b %lld",
	      (long long)root->total, (long long)th->total, (long long)a->total,
	      (long long)b->total);
	check(live_value(t, a, LIVE_INTERVAL) == 0 &&
	      live_value(t, b, LIVE_INTERVAL) == 700 &&
	      live_value(t, th, LIVE_INTERVAL) == 700 &&
	      live_value(t, root, LIVE_INTERVAL) == 1100, "live_tree_interval",
	      "a %g b %g thread %g root %g", live_value(t, a, LIVE_INTERVAL),
	      live_value(t, b, LIVE_INTERVAL), live_value(t, th, LIVE_INTERVAL),
	      live_value(t, root, LIVE_INTERVAL));
	/* an update with nothing new: every interval is 0, totals stay */
	update(t, u2, 3);
	check(live_value(t, b, LIVE_INTERVAL) == 0 && b->total == 700 &&
	      live_value(t, root, LIVE_INTERVAL) == 0 && root->total == 2600,
	      "live_tree_idle_interval", "b %g/%lld root %g",
	      live_value(t, b, LIVE_INTERVAL), (long long)b->total,
	      live_value(t, root, LIVE_INTERVAL));
	check(live_tree_updates(t) == 3 && live_tree_stacks(t) == 3,
	      "live_tree_counts", "updates %u stacks %zu", live_tree_updates(t),
	      live_tree_stacks(t));
	live_tree_free(t);
}

/* Two samples of one stack (keys that differ only in pids) sum; -d's "-"
 * is a row of its own. */
static void test_same_stack(void)
{
	struct live_tree *t = live_tree_new();
	const char *u[] = { "x;f;k 10", "x;f;k 15", "y;f;-;k 3" };
	const char *pk[] = { "x", "f", "k", NULL };
	const char *pd[] = { "y", "f", "-", "k", NULL };
	struct live_node *k, *d;

	update(t, u, 3);
	k = find(t, pk);
	d = find(t, pd);
	check(k && k->total == 25 && d && d->total == 3 && live_tree_nodes(t) == 7,
	      "live_tree_same_stack", "x;f;k %lld, y;f;-;k %lld, %zu nodes",
	      k ? (long long)k->total : -1, d ? (long long)d->total : -1,
	      live_tree_nodes(t));
	live_tree_free(t);
}

/* A node of many children (indexed past a few): each found again when a
 * new stack goes through it, none made twice. */
static void test_many_kids(void)
{
	struct live_tree *t = live_tree_new();
	char lines[2][200][32];
	const char *u1[200], *u2[200];
	const char *pf[] = { "x", "f_77", NULL }, *pg[] = { "x", "f_77", "g", NULL };
	struct live_node *f, *g;

	for (int i = 0; i < 200; i++) {
		snprintf(lines[0][i], sizeof(lines[0][i]), "x;f_%d 10", i);
		snprintf(lines[1][i], sizeof(lines[1][i]), "x;f_%d;g 5", i);
		u1[i] = lines[0][i];
		u2[i] = lines[1][i];
	}
	update(t, u1, 200);
	update(t, u2, 200);	/* the old ones gone: their time is taken off */
	f = find(t, pf);
	g = find(t, pg);
	check(live_tree_nodes(t) == 401 && live_tree_root(t)->nkids == 1 &&
	      live_tree_root(t)->kids[0]->nkids == 200 && f && g && f->total == 5 &&
	      g->total == 5 && live_tree_root(t)->total == 1000, "live_tree_many_kids",
	      "%zu nodes, x has %zu children, f_77 %lld, root %lld",
	      live_tree_nodes(t), (size_t)live_tree_root(t)->kids[0]->nkids,
	      f ? (long long)f->total : -1, (long long)live_tree_root(t)->total);
	live_tree_free(t);
}

/* The rows, as names joined by ' ': hottest first by the view. */
static void rows_text(struct live_tree *t, enum live_view v, char *buf, size_t len)
{
	struct live_node **rows;
	size_t n = live_rows(t, v, &rows), used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? " " : "", rows[i]->name);
}

static void test_rows_order(void)
{
	struct live_tree *t = live_tree_new();
	const char *u1[] = { A " 3000", W " 100" };
	const char *u2[] = { A " 3000", W " 200", B " 900" };
	const char *pm[] = { "ow_alt", "main", NULL };
	char buf[512];

	update(t, u1, 2);
	update(t, u2, 3);
	find(t, pm)->open = true;
	find(t, pm)->parent->open = true;
	rows_text(t, LIVE_INTERVAL, buf, sizeof(buf));
	check(!strcmp(buf, "ow_alt main wait_b wait_a ow_waker"), "live_rows_interval",
	      "'%s'", buf);
	rows_text(t, LIVE_TOTAL, buf, sizeof(buf));
	check(!strcmp(buf, "ow_alt main wait_a wait_b ow_waker"), "live_rows_total",
	      "'%s'", buf);
	live_tree_free(t);
}

static void test_decay(void)
{
	struct live_tree *t = live_tree_new();
	const char *u[] = { "x;f 1000" };
	const char *pf[] = { "x", "f", NULL };
	double v, want = 1000 * pow(0.5, 10 / LIVE_HALF_LIFE);

	update(t, u, 1);
	for (int i = 0; i < 10; i++)
		update(t, u, 1);
	v = live_value(t, find(t, pf), LIVE_DECAY);
	check(fabs(v - want) < 1e-6 && fabs(want - 250) < 1e-6, "live_tree_decay",
	      "%g after 10 idle updates, want %g", v, want);
	live_tree_free(t);
}

/* The node k levels above n. */
static struct live_node *up(struct live_node *n, int k)
{
	while (k-- > 0 && n)
		n = n->parent;
	return n;
}

static void test_follow_search(void)
{
	struct live_tree *t = live_tree_new();
	const char *u1[] = { A " 3000", W " 100" };
	const char *u2[] = { A " 3000", W " 200", B " 900" };
	struct live_node *n, *m, *th;
	size_t nth, count;

	update(t, u1, 2);
	update(t, u2, 3);
	th = live_tree_root(t)->kids[0];
	live_sort_kids(t, live_tree_root(t), LIVE_INTERVAL);
	th = live_tree_root(t)->kids[0];
	n = live_follow(t, th, LIVE_INTERVAL);
	check(!strcmp(th->name, "ow_alt") && n->kind == OW_PF_DIVIDER && n->waker &&
	      !n->parent->waker && !strcmp(up(n, 4)->name, "wait_b"),
	      "live_follow_blocked", "from %s stopped at '%s' (%s)", th->name, n->name,
	      up(n, 4)->name);
	m = live_follow(t, n, LIVE_INTERVAL);
	check(!strcmp(m->name, "ow_waker") && m->waker && m->parent->parent->open &&
	      !strcmp(m->parent->name, "wake_b"), "live_follow_waker",
	      "from -- stopped at '%s' under '%s'", m->name, m->parent->name);
	/* follow by all time where the interval has nothing */
	update(t, u2, 3);
	n = live_follow(t, th, LIVE_INTERVAL);
	check(!strcmp(up(n, 4)->name, "wait_a"),
	      "live_follow_total", "took %s", up(n, 4)->name);

	for (uint32_t i = 0; i < th->nkids; i++)
		th->kids[i]->open = false;
	th->open = false;
	n = live_search(t, LIVE_TOTAL, "WAKE_B", NULL, &nth, &count);
	check(n && !strcmp(n->name, "wake_b") && count == 1 && nth == 1 &&
	      th->open && n->parent->open, "live_search",
	      "found %s (%zu of %zu), thread open %d", n ? n->name : "nothing",
	      nth, count, th->open);
	n = live_search(t, LIVE_TOTAL, "wake_", NULL, &nth, &count);
	m = n ? live_search(t, LIVE_TOTAL, "wake_", n, &nth, &count) : NULL;
	check(n && m && !strcmp(n->name, "wake_a") && !strcmp(m->name, "wake_b") &&
	      count == 2 && nth == 2, "live_search_next", "%s then %s (%zu of %zu)",
	      n ? n->name : "-", m ? m->name : "-", nth, count);
	n = m ? live_search(t, LIVE_TOTAL, "wake_", m, &nth, &count) : NULL;
	check(n && !strcmp(n->name, "wake_a") && nth == 1, "live_search_wraps",
	      "after wake_b: %s (%zu)", n ? n->name : "-", nth);
	check(!live_search(t, LIVE_TOTAL, "no_such", NULL, &nth, &count) && !count,
	      "live_search_none", "%zu matches", count);
	live_tree_free(t);
}

int main(void)
{
	test_totals_interval();
	test_same_stack();
	test_many_kids();
	test_rows_order();
	test_decay();
	test_follow_search();
	return failed;
}
