// SPDX-License-Identifier: Apache-2.0
/*
 * earlywake.c - capture test workload for -m's early waker rule: thread
 * "ow_early" blocks in read() on CPU 0; "ow_waker" (CPU 1) wakes it
 * WAKE_US after it blocked, but first wakes "ow_hog", a SCHED_FIFO thread
 * on CPU 0 that then spins SPIN_MS: ow_early is woken early and waits
 * that long for its CPU.  At the end it prints the microseconds ow_early
 * spent in read() (its own measure of its blocks).
 * Usage: earlywake ITERATIONS WAKE_US SPIN_MS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int to_waker[2], to_early[2], to_hog[2];
static long wake_us, spin_ms;

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

__attribute__((noinline)) static void hog_spin(void)
{
	double end = now_us() + spin_ms * 1000.0;

	while (now_us() < end)
		;
}

static void *hog(void *arg)
{
	struct sched_param p = { .sched_priority = 10 };
	char c;

	(void)arg;
	prctl(PR_SET_NAME, "ow_hog");
	pin(0);
	if (sched_setscheduler(0, SCHED_FIFO, &p))
		perror("earlywake: SCHED_FIFO"), exit(1);
	while (read(to_hog[0], &c, 1) == 1)
		hog_spin();
	return NULL;
}

__attribute__((noinline)) static void waker_wake(void)
{
	char c = 1;

	usleep(wake_us);
	if (write(to_hog[1], &c, 1) != 1 || write(to_early[1], &c, 1) != 1)
		exit(1);
}

static void *waker(void *arg)
{
	char c;

	(void)arg;
	prctl(PR_SET_NAME, "ow_waker");
	pin(1);
	while (read(to_waker[0], &c, 1) == 1)
		waker_wake();
	return NULL;
}

__attribute__((noinline)) static double early_wait(void)
{
	double t0 = now_us();
	char c;

	if (read(to_early[0], &c, 1) != 1)
		exit(1);
	return now_us() - t0;
}

int main(int argc, char **argv)
{
	pthread_t h, w;
	double blocked = 0;
	long n;
	char c = 1;

	if (argc != 4)
		return 2;
	n = atol(argv[1]);
	wake_us = atol(argv[2]);
	spin_ms = atol(argv[3]);
	if (pipe(to_waker) || pipe(to_early) || pipe(to_hog))
		return 1;
	pthread_create(&h, NULL, hog, NULL);
	pthread_create(&w, NULL, waker, NULL);
	prctl(PR_SET_NAME, "ow_early");
	pin(0);
	usleep(100000);
	for (long i = 0; i < n; i++) {
		if (write(to_waker[1], &c, 1) != 1)
			return 1;
		blocked += early_wait();
		usleep(2000);
	}
	printf("%.0f\n", blocked);
	return 0;
}
