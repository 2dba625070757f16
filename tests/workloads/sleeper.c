// SPDX-License-Identifier: Apache-2.0
/*
 * sleeper.c - capture test workload: "ow_sleep" sleeps 5 ms at a time in
 * nanosleep (blocked in do_nanosleep, woken by the hrtimer interrupt).
 * Usage: sleeper SECONDS
 */
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

__attribute__((noinline)) static void sleep_once(void)
{
	const struct timespec ts = { 0, 5 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void sleep_loop(time_t end)
{
	while (time(NULL) < end)
		sleep_once();
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	prctl(PR_SET_NAME, "ow_sleep");
	sleep_loop(time(NULL) + atoi(argv[1]));
	return 0;
}
