// SPDX-License-Identifier: Apache-2.0
/*
 * sigchain.c - unwinding test workload (tests/t_unwind.sh): blocking from
 * inside a signal handler, in code built without frame pointers (-O2
 * -fomit-frame-pointer -fno-optimize-sibling-calls), so that the unwinder
 * must step through the signal frame (glibc's __restore_rt trampoline).
 *
 * The main thread ("ow_sig") runs main -> f1 -> ... -> f6, where f6 waits
 * for the end: in pause() (MODE "pause": interrupted in a system call) or
 * spinning (MODE "spin": interrupted at any instruction of f6).  A thread
 * ("ow_sigw") sends it SIGUSR1 every 15 ms or so; the handler h1 -> h2 -> h3
 * blocks in read() on a pipe, which the same thread writes 10 ms later
 * through w1 -> ... -> w6 -> write().  So the blocked user stack is
 * main;f1;..;f6;[pause;]__restore_rt;h1;h2;h3;read and the waker's
 * start_thread;writer;w1;..;w6;write.
 *
 * Usage: sigchain SECONDS pause|spin   (prints "ready" once running)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone, used))

volatile long chain_sink;
static volatile sig_atomic_t done, handled;
static int fds[2];
static time_t end;
static int spin;
static pthread_t main_thread;

/* the handler's chain, blocking in read() until the writer writes */
NOINL long h3(long x)
{
	char c;

	chain_sink += x * 43;
	if (read(fds[0], &c, 1) != 1)
		done = 1;
	return x + 3;
}

NOINL long h2(long x)
{
	long r = h3(x * 47 + 2);

	chain_sink += r ^ 2;
	return r + 2;
}

NOINL void h1(int sig)
{
	long r = h2(sig * 53 + 1);

	chain_sink += r ^ 1;
	handled++;
}

/* the main thread's chain, waiting in f6 until the end */
NOINL long f6(long x)
{
	long n = x;

	while (!done) {
		if (spin)
			n = n * 6364136223846793005L + 1442695040888963407L;
		else
			pause();
	}
	chain_sink += n;
	return x + 6;
}

#define LINK(name, next, k) \
	NOINL long name(long x) \
	{ \
		long r = next(x * (k * 2 + 3) + k); \
		chain_sink += r ^ k; \
		return r + k; \
	}
LINK(f5, f6, 5)
LINK(f4, f5, 4)
LINK(f3, f4, 3)
LINK(f2, f3, 2)
LINK(f1, f2, 1)

NOINL long w6(long x)
{
	chain_sink -= x * 31;
	if (write(fds[1], "x", 1) != 1)
		return -1;
	return x - 6;
}
LINK(w5, w6, 5)
LINK(w4, w5, 4)
LINK(w3, w4, 3)
LINK(w2, w3, 2)
LINK(w1, w2, 1)

/*
 * The waker: a signal, 10 ms, a byte through w1..w6, 5 ms.  A signal is
 * sent only once the handler has read the last byte (a signal sent while
 * another is pending would be lost, and the bytes it leaves in the pipe
 * would keep the handler from ever blocking).
 */
NOINL void *writer(void *arg)
{
	const struct timespec ts10 = { 0, 10 * 1000 * 1000 }, ts5 = { 0, 5 * 1000 * 1000 };
	const struct timespec ts1 = { 0, 1000 * 1000 };
	long i = 0;

	prctl(PR_SET_NAME, "ow_sigw");
	while (time(NULL) < end) {
		while (handled < i)
			nanosleep(&ts1, NULL);
		pthread_kill(main_thread, SIGUSR1);
		nanosleep(&ts10, NULL);
		chain_sink += w1(i++);
		nanosleep(&ts5, NULL);
	}
	/* the handler reads the end of file and ends the main loop */
	close(fds[1]);
	pthread_kill(main_thread, SIGUSR1);
	return arg;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t t;

	if (argc != 3 || pipe(fds) || (strcmp(argv[2], "pause") && strcmp(argv[2], "spin")))
		return 2;
	spin = !strcmp(argv[2], "spin");
	end = time(NULL) + atoi(argv[1]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h1;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	main_thread = pthread_self();
	prctl(PR_SET_NAME, "ow_sig");
	if (pthread_create(&t, NULL, writer, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	chain_sink += f1(argc);
	pthread_join(t, NULL);
	return 0;
}
