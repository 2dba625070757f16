// SPDX-License-Identifier: Apache-2.0
/*
 * file-writes.c - a process blocked on file writes: write 1 MB and fsync,
 * again and again.  Its off-CPU stacks end in the filesystem's writeback
 * and journal waits; the wakers are the block layer's completion paths.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	const char *path = argc > 1 ? argv[1] : "/tmp/offwake-file-writes.dat";
	time_t end = time(NULL) + (argc > 2 ? atoi(argv[2]) : 5);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		return 1;
	memset(buf, 'x', sizeof(buf));
	while (time(NULL) < end) {
		if (write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd))
			return 1;
		if (lseek(fd, 0, SEEK_END) > 64 << 20)
			ftruncate(fd, 0);
	}
	close(fd);
	unlink(path);
	return 0;
}
