// SPDX-License-Identifier: Apache-2.0
/*
 * stall.c - long blocks among short ones (tests/t_timeline.sh): a worker
 * thread "ow_worker" blocks reading a pipe for its next job
 * (worker_wait); the producer "ow_prod" hands it one about every 0.4 ms
 * (a sleep, then prod_hand), except every half second, when it first asks
 * a third thread "ow_third" for something (prod_stall) that takes it
 * STALL_MS (third_slow sleeps), waiting on it: so the worker waits ~0.5
 * ms for most jobs and STALL_MS for one every half second, woken by
 * ow_prod's prod_hand, which ow_third woke.  Writes "WORKER PROD THIRD"
 * tids to TIDFILE, then "STALLS JOBS" (the jobs in all) when it ends.
 * Usage: stall SECONDS STALL_MS TIDFILE
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int jobs[2], ask[2], answer[2];
static volatile pid_t worker_tid, third_tid;
static long stall_ms;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static int worker_wait(void)
{
	char c;

	return read(jobs[0], &c, 1) == 1 ? c : -1;
}

static void *worker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "ow_worker");
	worker_tid = gettid();
	while (worker_wait() > 0)
		;
	return NULL;
}

__attribute__((noinline)) static void third_slow(void)
{
	sleep_us(stall_ms * 1000);
}

static void *third(void *arg)
{
	char c;

	(void)arg;
	prctl(PR_SET_NAME, "ow_third");
	third_tid = gettid();
	while (read(ask[0], &c, 1) == 1) {
		third_slow();
		if (write(answer[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

__attribute__((noinline)) static void prod_stall(void)
{
	char c = 1;

	if (write(ask[1], &c, 1) != 1 || read(answer[0], &c, 1) != 1)
		exit(1);
}

__attribute__((noinline)) static void prod_hand(char job)
{
	if (write(jobs[1], &job, 1) != 1)
		exit(1);
}

int main(int argc, char **argv)
{
	pthread_t w, t;
	double end, next_stall;
	long stalls = 0, njobs = 0;
	FILE *f;

	if (argc != 4)
		return 2;
	stall_ms = atol(argv[2]);
	if (pipe(jobs) || pipe(ask) || pipe(answer) ||
	    pthread_create(&w, NULL, worker, NULL) ||
	    pthread_create(&t, NULL, third, NULL))
		return 1;
	prctl(PR_SET_NAME, "ow_prod");
	while (!worker_tid || !third_tid)
		sleep_us(1000);
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	fprintf(f, "%d %d %d\n", worker_tid, gettid(), third_tid);
	fclose(f);
	end = now_ms() + atof(argv[1]) * 1e3;
	next_stall = now_ms() + 250;
	while (now_ms() < end) {
		if (now_ms() >= next_stall) {
			prod_stall();
			stalls++;
			next_stall += 500;
		} else {
			sleep_us(400);
		}
		prod_hand(2);
		njobs++;
	}
	prod_hand(0);
	pthread_join(w, NULL);
	f = fopen(argv[3], "a");
	if (f) {
		fprintf(f, "%ld %ld\n", stalls, njobs);
		fclose(f);
	}
	return 0;
}
