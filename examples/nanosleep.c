// SPDX-License-Identifier: Apache-2.0
/*
 * nanosleep.c - a loop of short sleeps: each block is in do_nanosleep and
 * each wakeup comes from the hrtimer interrupt, so the waker side of the
 * off-wake graph shows [hardirq] instead of blaming the interrupted task.
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };	/* 2 ms */
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 5);

	while (time(NULL) < end)
		nanosleep(&ts, NULL);
	return 0;
}
