// SPDX-License-Identifier: Apache-2.0
/*
 * lazybind.c - a program whose only block is inside the dynamic loader's
 * lazy-binding resolver: its first call to lazy_wait() (lazylib.c, an
 * IFUNC) goes through the PLT to _dl_runtime_resolve_xsavec and
 * _dl_fixup, which call the IFUNC's resolver, which reads fd 3 (a pipe a
 * writer thread feeds one byte every 10 ms for SECONDS, then closes).
 * Built -z lazy (and run without LD_BIND_NOW).  ld.so's CFA in the
 * resolver is rbx + 32: only a walker that follows rbx gets back to main.
 * Usage: lazybind SECONDS
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

long lazy_wait(long x);

static int wfd;
static double secs;

static void *writer(void *arg)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 }, t0, t;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		nanosleep(&ts, NULL);
		if (write(wfd, "x", 1) != 1)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	close(wfd);
	return NULL;
}

int main(int argc, char **argv)
{
	int fds[2];
	pthread_t th;

	secs = argc > 1 ? atof(argv[1]) : 3;
	if (pipe(fds) || fds[0] != 3)
		return 1;
	wfd = fds[1];
	if (pthread_create(&th, NULL, writer, NULL))
		return 1;
	long r = lazy_wait(41);
	pthread_join(th, NULL);
	return r == 42 ? 0 : 1;
}
