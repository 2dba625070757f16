// SPDX-License-Identifier: Apache-2.0
/*
 * shortlived.c - capture test workload for processes that exit before the
 * capture ends: "ow_short" writes and fsyncs a file, naps 100 ms in
 * short_nap(), and exits.  Usage: shortlived FILE
 */
#include <fcntl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void short_nap(void)
{
	const struct timespec ts = { 0, 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static int short_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "offwake\n", 8) != 8 || fsync(fd))
		return 1;
	short_nap();
	return close(fd);
}

__attribute__((noinline)) static int short_main(const char *path)
{
	return short_write(path);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	prctl(PR_SET_NAME, "ow_short");
	return short_main(argv[1]);
}
