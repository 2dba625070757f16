// SPDX-License-Identifier: Apache-2.0
/*
 * client-server.c - two processes and a disk, for wakeup chains
 * (--chain-depth): "rpc-client" sends a request over a Unix socket and
 * blocks for the reply; "rpc-server" (a forked child) takes the request,
 * appends 4 KB to a file and waits for it to reach the disk (fdatasync),
 * then replies.  The client's blocked time is explained by the server's
 * send (level 1), the server's wait for the disk by the wakeup that ended
 * it (level 2: the journal thread or the I/O completion), and so on.
 * Usage: client-server SECONDS FILE  (FILE on a disk, not tmpfs; removed)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void store(int fd, const char *block)
{
	if (write(fd, block, 4096) != 4096 || fdatasync(fd))
		exit(1);
}

__attribute__((noinline)) static void serve(int s, const char *path)
{
	static char block[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char c;

	if (fd < 0)
		exit(1);
	prctl(PR_SET_NAME, "rpc-server");
	memset(block, 'x', sizeof(block));
	while (read(s, &c, 1) == 1) {
		store(fd, block);
		if (write(s, &c, 1) != 1)
			break;
	}
	close(fd);
	unlink(path);
	exit(0);
}

__attribute__((noinline)) static void call(int s)
{
	char c = 'r';

	if (write(s, &c, 1) != 1 || read(s, &c, 1) != 1)
		exit(1);
}

int main(int argc, char **argv)
{
	time_t end;
	pid_t pid;
	int sv[2];

	if (argc != 3 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 2;
	end = time(NULL) + atoi(argv[1]);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(sv[0]);
		serve(sv[1], argv[2]);
	}
	close(sv[1]);
	prctl(PR_SET_NAME, "rpc-client");
	printf("%d %d\n", getpid(), pid);
	fflush(stdout);
	while (time(NULL) < end)
		call(sv[0]);
	close(sv[0]);
	waitpid(pid, NULL, 0);
	return 0;
}
