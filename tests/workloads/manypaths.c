// SPDX-License-Identifier: Apache-2.0
/*
 * manypaths.c - capture test workload with many distinct stacks: two
 * threads, "ow_mp_a" and "ow_mp_b", ping-pong a byte over two pipes, and
 * each reaches its read() or write() through a different chain of
 * functions every time: path i walks DEPTH (5) levels, choosing one of
 * eight functions at each level from the digits of i in base 8.  So a
 * sweep over paths 0..PATHS-1 blocks (and wakes) from PATHS distinct user
 * stacks on each side.  Built with frame pointers
 * (-fno-omit-frame-pointer) so that the kernel can walk the user stacks.
 * Usage: manypaths SECONDS [PATHS [DEPTH]]  (DEPTH 1-6, default 5; PATHS
 * 1-8^DEPTH, default 8^DEPTH: 6 levels give the 100k distinct stacks of
 * tests/bench/live_cost.sh)
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int depth = 5;
static int a_to_b[2], b_to_a[2];
static unsigned int paths;
static time_t end;

struct side {
	const char *name;
	int in, out;		/* read from in, then write to out */
	int first;		/* reads before it writes */
};

static void step(const struct side *s, unsigned int path, int level);

/* Eight distinct frames; the empty asm keeps the call from being a jump. */
#define HOP(x)								\
	__attribute__((noinline)) static void hop##x(const struct side *s, \
						     unsigned int path,	\
						     int level)		\
	{								\
		step(s, path, level);					\
		__asm__ volatile("" ::: "memory");			\
	}
HOP(0) HOP(1) HOP(2) HOP(3) HOP(4) HOP(5) HOP(6) HOP(7)

__attribute__((noinline)) static void exchange(const struct side *s)
{
	char c = 'x';

	if (s->first && read(s->in, &c, 1) != 1)
		exit(0);
	if (write(s->out, &c, 1) != 1)
		exit(0);
	if (!s->first && read(s->in, &c, 1) != 1)
		exit(0);
}

__attribute__((noinline)) static void step(const struct side *s,
					   unsigned int path, int level)
{
	static void (*const hops[8])(const struct side *, unsigned int, int) = {
		hop0, hop1, hop2, hop3, hop4, hop5, hop6, hop7,
	};

	if (!level)
		exchange(s);
	else
		hops[path & 7](s, path >> 3, level - 1);
	__asm__ volatile("" ::: "memory");
}

static void *run(void *arg)
{
	const struct side *s = arg;

	prctl(PR_SET_NAME, s->name);
	while (time(NULL) < end)
		for (unsigned int i = 0; i < paths; i++)
			step(s, i, depth);
	exit(0);
}

int main(int argc, char **argv)
{
	static struct side sa, sb;
	pthread_t t;

	if (argc < 2 || pipe(a_to_b) || pipe(b_to_a))
		return 2;
	end = time(NULL) + atoi(argv[1]);
	if (argc > 3)
		depth = atoi(argv[3]);
	if (depth < 1 || depth > 6)
		return 2;
	paths = argc > 2 ? (unsigned int)atoi(argv[2]) : 1u << (3 * depth);
	if (paths < 1 || paths > 1u << (3 * depth))
		return 2;
	sa = (struct side){ "ow_mp_a", b_to_a[0], a_to_b[1], 0 };
	sb = (struct side){ "ow_mp_b", a_to_b[0], b_to_a[1], 1 };
	pthread_create(&t, NULL, run, &sb);
	run(&sa);
	return 0;
}
