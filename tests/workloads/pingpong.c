// SPDX-License-Identifier: Apache-2.0
/*
 * pingpong.c - capture test workload: thread "ow_ping" sleeps 10 ms, then
 * writes a byte into a pipe; thread "ow_pong" blocks reading it (so it is
 * blocked in pipe_read ~100% of the time, woken by ow_ping's pipe_write).
 * Usage: pingpong SECONDS TIDFILE  (writes "PING_TID PONG_TID" to TIDFILE)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static volatile pid_t pong_tid;
static time_t end;

__attribute__((noinline)) static void pong_wait(void)
{
	char c;

	if (read(fds[0], &c, 1) != 1)
		exit(0);
}

__attribute__((noinline)) static void *pong_loop(void *arg)
{
	prctl(PR_SET_NAME, "ow_pong");
	pong_tid = gettid();
	for (;;)
		pong_wait();
	return NULL;
}

__attribute__((noinline)) static void ping_send(void)
{
	const struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	if (write(fds[1], "x", 1) != 1)
		exit(1);
}

__attribute__((noinline)) static void ping_loop(void)
{
	while (time(NULL) < end)
		ping_send();
}

int main(int argc, char **argv)
{
	pthread_t t;
	FILE *f;

	if (argc != 3 || pipe(fds))
		return 2;
	end = time(NULL) + atoi(argv[1]);
	prctl(PR_SET_NAME, "ow_ping");
	pthread_create(&t, NULL, pong_loop, NULL);
	while (!pong_tid)
		usleep(1000);
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "%d %d\n", gettid(), pong_tid);
	fclose(f);
	ping_loop();
	return 0;
}
