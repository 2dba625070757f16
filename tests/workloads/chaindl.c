// SPDX-License-Identifier: Apache-2.0
/*
 * chaindl.c - unwinding test workload for libraries loaded during a
 * capture (tests/t_unwind_live.sh): "ow_chaindl" blocks in read() on a
 * pipe through g1 -> g2 -> g3 until the file GO exists, then
 * dlopen()s LIB (chainlib.c built as a shared library) and blocks through
 * g1 -> g2 -> g3 -> f4 -> f5 -> f6 (in LIB) -> read() until SECONDS.  A
 * thread writes a byte every 10 ms.  Built -O2 -fomit-frame-pointer
 * -fno-optimize-sibling-calls: only unwind tables walk it.
 * Usage: chaindl SECONDS GO LIB   (prints "ready" once running)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone, used))

volatile long chaindl_sink;
static int fds[2];
static time_t end;
static long (*lib_f4)(int fd, long x);	/* NULL until dlopen */


/* without the library: block here, one frame below g3 */
NOINL long g4(int fd, long x)
{
	char c;

	if (read(fd, &c, 1) != 1)
		return -1;
	return x ^ c;
}

NOINL long g3(int fd, long x)
{
	long r = lib_f4 ? lib_f4(fd, x * 3 + 1) : g4(fd, x * 3 + 1);

	if (r < 0)
		return r;
	chaindl_sink += r ^ 3;
	return r + 3;
}

NOINL long g2(int fd, long x)
{
	long r = g3(fd, x * 5 + 2);

	if (r < 0)
		return r;
	chaindl_sink += r ^ 2;
	return r + 2;
}

NOINL long g1(int fd, long x)
{
	long r = g2(fd, x * 7 + 3);

	if (r < 0)
		return r;
	chaindl_sink += r ^ 1;
	return r + 1;
}

static void *writer(void *arg)
{
	const struct timespec ts = { 0, 10 * 1000 * 1000 };

	prctl(PR_SET_NAME, "ow_chaindlw");
	while (time(NULL) < end) {
		nanosleep(&ts, NULL);
		if (write(fds[1], "x", 1) != 1)
			break;
	}
	close(fds[1]);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	long i = 0;

	if (argc != 4 || pipe(fds))
		return 2;
	end = time(NULL) + atoi(argv[1]);
	if (pthread_create(&t, NULL, writer, NULL))
		return 1;
	prctl(PR_SET_NAME, "ow_chaindl");
	printf("ready\n");
	fflush(stdout);
	while (g1(fds[0], i++) >= 0) {
		if (!lib_f4 && !access(argv[2], F_OK)) {
			void *h = dlopen(argv[3], RTLD_NOW);

			if (!h || !(lib_f4 = (long (*)(int, long))dlsym(h, "f4"))) {
				fprintf(stderr, "chaindl: %s\n", dlerror());
				return 1;
			}
		}
	}
	pthread_join(t, NULL);
	return 0;
}
