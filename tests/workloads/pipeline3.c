// SPDX-License-Identifier: Apache-2.0
/*
 * pipeline3.c - wakeup chain test workload (tests/t_chain.sh): a
 * three-stage pipeline of threads.  "ow_pa" sleeps, then writes a byte
 * into pipe 1 (a_send); "ow_pb" blocks reading pipe 1 (b_wait), burns
 * BUSY_MS of CPU, then writes the byte into pipe 2 (b_send); "ow_pc"
 * blocks reading pipe 2 (c_wait), then acknowledges on pipe 3 (c_ack),
 * which ow_pa waits for (a_wait) before its next sleep.  So ow_pc is woken
 * by ow_pb's write, which ow_pa's write woke BUSY_MS (plus a wakeup
 * latency) before, and ow_pa is woken by a timer (an interrupt: the chain
 * ends there).  One byte is in flight at a time, so B and C block each
 * time however slowly they run (a loaded machine).
 * Usage: pipeline3 SECONDS BUSY_MS TIDFILE  (writes "A_TID B_TID C_TID")
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int p1[2], p2[2], p3[2];
static volatile pid_t b_tid, c_tid;
static time_t end;
static long busy_ms;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void c_wait(void)
{
	char c;

	if (read(p2[0], &c, 1) != 1)
		exit(0);
}

__attribute__((noinline)) static void c_ack(void)
{
	if (write(p3[1], "x", 1) != 1)
		exit(1);
}

__attribute__((noinline)) static void *c_loop(void *arg)
{
	prctl(PR_SET_NAME, "ow_pc");
	c_tid = gettid();
	for (;;) {
		c_wait();
		c_ack();
	}
	return NULL;
}

__attribute__((noinline)) static void b_wait(void)
{
	char c;

	if (read(p1[0], &c, 1) != 1)
		exit(0);
}

__attribute__((noinline)) static void b_send(void)
{
	if (write(p2[1], "x", 1) != 1)
		exit(1);
}

__attribute__((noinline)) static void *b_loop(void *arg)
{
	prctl(PR_SET_NAME, "ow_pb");
	b_tid = gettid();
	for (;;) {
		double until;

		b_wait();
		until = now_ms() + busy_ms;
		while (now_ms() < until)
			;
		b_send();
	}
	return NULL;
}

__attribute__((noinline)) static void a_send(void)
{
	const struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	if (write(p1[1], "x", 1) != 1)
		exit(1);
}

__attribute__((noinline)) static void a_wait(void)
{
	char c;

	if (read(p3[0], &c, 1) != 1)
		exit(0);
}

__attribute__((noinline)) static void a_loop(void)
{
	while (time(NULL) < end) {
		a_send();
		a_wait();
	}
}

int main(int argc, char **argv)
{
	pthread_t t;
	FILE *f;

	if (argc != 4 || pipe(p1) || pipe(p2) || pipe(p3))
		return 2;
	end = time(NULL) + atoi(argv[1]);
	busy_ms = atol(argv[2]);
	if (busy_ms < 0 || busy_ms > 900)
		return 2;
	prctl(PR_SET_NAME, "ow_pa");
	pthread_create(&t, NULL, c_loop, NULL);
	pthread_create(&t, NULL, b_loop, NULL);
	while (!b_tid || !c_tid)
		usleep(1000);
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	fprintf(f, "%d %d %d\n", gettid(), b_tid, c_tid);
	fclose(f);
	a_loop();
	return 0;
}
