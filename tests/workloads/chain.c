// SPDX-License-Identifier: Apache-2.0
/*
 * chain.c - unwinding test workload (tests/t_unwind.sh): known call chains
 * in code built without frame pointers (-O2 -fomit-frame-pointer), so that
 * only CFI (.eh_frame) unwinding can walk them.
 *
 * The blocked side: main -> f1 -> f2 -> f3 -> f4 -> f5 -> f6 -> read() on a
 * pipe, in the main thread ("ow_chain").  The waker side: writer() -> w1 ->
 * ... -> w6 -> write() into that pipe every 10 ms, in a thread (MODE
 * "thread": its user stack starts at start_thread) or in a forked child
 * (MODE "fork": its stack starts at main), named "ow_chainw".
 *
 * f4..f6 and w4..w6 are in chainlib.c: linked into the program for the
 * plain variant, or built as a shared library (DT_NEEDED) for the split
 * one.  Every function does a little work of its own around its call (so
 * none is inlined, folded with another or turned into a tail call; build
 * with -fno-optimize-sibling-calls too).
 *
 * Usage: chain SECONDS thread|fork   (exits after SECONDS; prints "ready"
 * on stdout once the waker runs)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone, used))

/* chainlib.c */
long f4(int fd, long x);
long w4(int fd, long x);

volatile long chain_sink;
static int fds[2];
static time_t end;

NOINL long f3(int fd, long x)
{
	long r = f4(fd, x * 3 + 1);

	if (r < 0)
		return r;
	chain_sink += r ^ 3;
	return r + 3;
}

NOINL long f2(int fd, long x)
{
	long r = f3(fd, x * 5 + 2);

	if (r < 0)
		return r;
	chain_sink += r ^ 2;
	return r + 2;
}

NOINL long f1(int fd, long x)
{
	long r = f2(fd, x * 7 + 3);

	if (r < 0)
		return r;
	chain_sink += r ^ 1;
	return r + 1;
}

NOINL long w3(int fd, long x)
{
	long r = w4(fd, x * 11 + 1);

	chain_sink -= r ^ 3;
	return r - 3;
}

NOINL long w2(int fd, long x)
{
	long r = w3(fd, x * 13 + 2);

	chain_sink -= r ^ 2;
	return r - 2;
}

NOINL long w1(int fd, long x)
{
	long r = w2(fd, x * 17 + 3);

	chain_sink -= r ^ 1;
	return r - 1;
}

/* the waker: every 10 ms, one byte into the pipe through w1..w6 */
NOINL void *writer(void *arg)
{
	const struct timespec ts = { 0, 10 * 1000 * 1000 };
	long i = 0;

	prctl(PR_SET_NAME, "ow_chainw");
	while (time(NULL) < end) {
		nanosleep(&ts, NULL);
		chain_sink += w1(fds[1], i++);
	}
	close(fds[1]);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pid_t child = 0;
	long i = 0;

	if (argc != 3 || pipe(fds))
		return 2;
	end = time(NULL) + atoi(argv[1]);
	if (!strcmp(argv[2], "thread")) {
		if (pthread_create(&t, NULL, writer, NULL))
			return 1;
	} else if (!strcmp(argv[2], "fork")) {
		child = fork();
		if (child < 0)
			return 1;
		if (child == 0) {
			close(fds[0]);
			writer(NULL);
			_exit(0);
		}
		close(fds[1]);
	} else {
		return 2;
	}
	prctl(PR_SET_NAME, "ow_chain");
	printf("ready\n");
	fflush(stdout);
	/* f6 returns -1 once the writer is gone (end of file) */
	while (f1(fds[0], i++) >= 0)
		;
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
