// SPDX-License-Identifier: Apache-2.0
/*
 * twin_callers.c - user stack cache test workload (t_ustack_cache.sh):
 * thread "ow_twin" blocks reading a pipe, every other time through
 * twin_a() and through twin_b(), two functions of the same shape: its
 * registers at the system call (ip in read(), sp, bp) are the same both
 * ways, only the return address into twin_a or twin_b on its stack
 * differs.  Thread "ow_feed" writes a byte every 2 ms.  A cache that
 * trusted the registers alone would give one of the two stacks for both.
 * Usage: twin_callers SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static time_t end;

__attribute__((noinline)) static void twin_wait(void)
{
	char c;

	if (read(fds[0], &c, 1) != 1)
		exit(0);
}

/* the same code, twice: the same frame, the same sp below it */
__attribute__((noinline)) static void twin_a(void)
{
	twin_wait();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void twin_b(void)
{
	twin_wait();
	__asm__ volatile("" ::: "memory");
}

static void *twin_loop(void *arg)
{
	prctl(PR_SET_NAME, "ow_twin");
	for (unsigned i = 0;; i++) {
		if (i & 1)
			twin_b();
		else
			twin_a();
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	struct timespec ts = { 0, 2000000 };

	if (argc < 2 || pipe(fds))
		return 2;
	end = time(NULL) + atoi(argv[1]);
	prctl(PR_SET_NAME, "ow_feed");
	pthread_create(&t, NULL, twin_loop, NULL);
	while (time(NULL) < end) {
		nanosleep(&ts, NULL);
		if (write(fds[1], "x", 1) != 1)
			return 1;
	}
	return 0;
}
