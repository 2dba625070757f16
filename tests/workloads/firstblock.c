// SPDX-License-Identifier: Apache-2.0
/*
 * firstblock.c - unwinding test workload (tests/t_unwind_live.sh): blocks
 * at once, before any capture could have built its unwind tables, and for
 * long.  The main thread reads stdin through main -> b1 -> b2 -> b3 ->
 * read(); a thread started first sleeps through t1 -> t2 -> nanosleep()
 * for the time given.  Built without frame pointers (-O2
 * -fomit-frame-pointer -fno-optimize-sibling-calls): only CFI walks it.
 *
 * Usage: firstblock SECONDS < input   (the thread's sleep; the main thread
 * waits for its input, then for the thread)
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void t2(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
	sink++;
}

__attribute__((noinline)) static void t1(double s)
{
	t2(s);
	sink++;
}

static void *sleeper(void *arg)
{
	t1(*(double *)arg);
	return NULL;
}

__attribute__((noinline)) static int b3(void)
{
	char buf[64];
	int n = (int)read(0, buf, sizeof(buf));

	sink++;
	return n;
}

__attribute__((noinline)) static int b2(void)
{
	int n = b3();

	sink++;
	return n;
}

__attribute__((noinline)) static int b1(void)
{
	int n = b2();

	sink++;
	return n;
}

int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 1;
	pthread_t t;

	if (pthread_create(&t, NULL, sleeper, &s))
		return 1;
	b1();
	pthread_join(t, NULL);
	return 0;
}
