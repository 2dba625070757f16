// SPDX-License-Identifier: Apache-2.0
/*
 * switch_depth.c - capture bench workload: two threads ping-pong a byte
 * over two pipes (two context switches an operation, as perf bench sched
 * pipe), each from the bottom of DEPTH nested calls, so that the cost of
 * walking a user stack can be measured per frame.  Built with frame
 * pointers, so a frame-pointer walk and a CFI walk reach the same depth.
 * Usage: switch_depth DEPTH OPS   prints the seconds the OPS took.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long ops;

static void pingpong(int rd, int wr, int first)
{
	char c = 0;

	for (long i = 0; i < ops; i++) {
		if (first && write(wr, &c, 1) != 1)
			exit(1);
		if (read(rd, &c, 1) != 1)
			exit(1);
		if (!first && write(wr, &c, 1) != 1)
			exit(1);
	}
}

/* depth nested calls, then the ping-pong; volatile keeps each frame */
__attribute__((noinline)) static int nest(int depth, int rd, int wr, int first)
{
	volatile int keep = depth;

	if (depth > 0)
		return nest(depth - 1, rd, wr, first) + keep;
	pingpong(rd, wr, first);
	return keep;
}

static int depth;

static void *pong(void *arg)
{
	nest(depth, ab[0], ba[1], 0);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t t;

	if (argc != 3)
		return 2;
	depth = atoi(argv[1]);
	ops = atol(argv[2]);
	if (pipe(ab) || pipe(ba) || pthread_create(&t, NULL, pong, NULL))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	nest(depth, ba[0], ab[1], 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(t, NULL);
	printf("%.3f\n", t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
