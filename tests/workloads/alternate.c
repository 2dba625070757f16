// SPDX-License-Identifier: Apache-2.0
/*
 * alternate.c - live view test workload (tests/t_live_tui.sh): the main
 * thread "ow_alt" blocks reading a pipe, woken every 5 ms by thread
 * "ow_waker"'s write; for PHASE seconds through alt_wait_a() (woken from
 * alt_wake_a()), then PHASE seconds through alt_wait_b() (from
 * alt_wake_b()), and so on: two known blocking paths that alternate.
 * STATEFILE gets "pid PID" first, then at each switch "a N" or "b N" (N:
 * the phase's number).
 * Usage: alternate PHASE_S TOTAL_S STATEFILE
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int pipes[2][2];
static volatile int waiting_on;	/* the pipe ow_alt reads: 0 (a) or 1 (b) */
static volatile int done;

__attribute__((noinline)) static void alt_wake_a(void)
{
	if (write(pipes[0][1], "a", 1) != 1)
		exit(1);
}

__attribute__((noinline)) static void alt_wake_b(void)
{
	if (write(pipes[1][1], "b", 1) != 1)
		exit(1);
}

static void *waker(void *arg)
{
	const struct timespec ts = { 0, 5 * 1000 * 1000 };

	prctl(PR_SET_NAME, "ow_waker");
	while (!done) {
		nanosleep(&ts, NULL);
		if (waiting_on)
			alt_wake_b();
		else
			alt_wake_a();
	}
	return NULL;
}

__attribute__((noinline)) static void alt_wait_a(void)
{
	char c;

	if (read(pipes[0][0], &c, 1) != 1)
		exit(1);
}

__attribute__((noinline)) static void alt_wait_b(void)
{
	char c;

	if (read(pipes[1][0], &c, 1) != 1)
		exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double phase, total, t0;
	int last = -1;
	pthread_t t;
	FILE *f;

	if (argc != 4 || pipe(pipes[0]) || pipe(pipes[1]))
		return 2;
	phase = atof(argv[1]);
	total = atof(argv[2]);
	prctl(PR_SET_NAME, "ow_alt");
	if ((f = fopen(argv[3], "a"))) {
		fprintf(f, "pid %d\n", getpid());
		fclose(f);
	}
	if (pthread_create(&t, NULL, waker, NULL))
		return 1;
	for (t0 = now(); now() - t0 < total;) {
		int n = (int)((now() - t0) / phase);

		if (n != last) {
			last = n;
			waiting_on = n & 1;
			if ((f = fopen(argv[3], "a"))) {
				fprintf(f, "%c %d\n", n & 1 ? 'b' : 'a', n);
				fclose(f);
			}
		}
		if (waiting_on)
			alt_wait_b();
		else
			alt_wait_a();
	}
	done = 1;
	pthread_join(t, NULL);
	return 0;
}
