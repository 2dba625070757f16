// SPDX-License-Identifier: Apache-2.0
/*
 * loopback.c - loopback wakeup test workload (tests/t_loopback.sh).
 *   tcp:  "ow_lbs" blocks in recv (s_wait) on a TCP connection over
 *         127.0.0.1; its child "ow_lbc" sends a byte (c_send), then sleeps
 *         10 ms (c_nap), over and over.  The receipt runs as a soft IRQ
 *         inside the client's send, which wakes the server.
 *   unix: the same over a Unix socket pair (the sender wakes the server
 *         directly: no soft IRQ).
 *   timeout: "ow_lbt" waits for a UDP datagram that never comes, 10 ms at
 *         a time (SO_RCVTIMEO: a timer-wheel timeout, run by the timer
 *         soft IRQ on an interrupt's exit or in ksoftirqd); no child.
 * Usage: loopback tcp|unix|timeout SECONDS PIDFILE
 *        (writes "SERVER_PID CLIENT_PID", CLIENT_PID 0 for timeout)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void c_send(int fd)
{
	if (send(fd, "x", 1, MSG_NOSIGNAL) != 1)
		exit(0);
}

__attribute__((noinline)) static void c_nap(void)
{
	const struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void c_loop(int fd, time_t end)
{
	prctl(PR_SET_NAME, "ow_lbc");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (time(NULL) < end) {
		c_send(fd);
		c_nap();
	}
	exit(0);
}

/* Returns once the peer has closed (or on an error). */
__attribute__((noinline)) static int s_wait(int fd)
{
	char buf[64];

	return recv(fd, buf, sizeof(buf), 0) > 0;
}

__attribute__((noinline)) static void t_wait(int fd)
{
	char buf[64];

	recv(fd, buf, sizeof(buf), 0);
}

/* A connected TCP pair over 127.0.0.1: fds[0] accepted, fds[1] client. */
static int tcp_pair(int fds[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(ls, 1) || getsockname(ls, (struct sockaddr *)&a, &len))
		return -1;
	fds[1] = socket(AF_INET, SOCK_STREAM, 0);
	if (fds[1] < 0 || connect(fds[1], (struct sockaddr *)&a, sizeof(a)))
		return -1;
	setsockopt(fds[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fds[0] = accept(ls, NULL, NULL);
	close(ls);
	return fds[0] < 0 ? -1 : 0;
}

/* A UDP socket on 127.0.0.1 nobody sends to, reads timing out in 10 ms. */
static int quiet_socket(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv = { 0, 10000 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return -1;
	return fd;
}

int main(int argc, char **argv)
{
	int fds[2], err;
	time_t end;
	pid_t child = 0;
	FILE *f;

	if (argc != 4)
		return 2;
	end = time(NULL) + atoi(argv[2]);
	if (!strcmp(argv[1], "timeout")) {
		prctl(PR_SET_NAME, "ow_lbt");
		fds[0] = quiet_socket();
		err = fds[0] < 0;
	} else if (!strcmp(argv[1], "tcp")) {
		err = tcp_pair(fds);
	} else if (!strcmp(argv[1], "unix")) {
		err = socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
	} else {
		return 2;
	}
	if (err) {
		perror("loopback");
		return 1;
	}
	if (strcmp(argv[1], "timeout")) {
		prctl(PR_SET_NAME, "ow_lbs");
		child = fork();
		if (child == 0) {
			close(fds[0]);
			c_loop(fds[1], end);
		}
		close(fds[1]);
	}
	f = fopen(argv[3], "w");
	if (!f || fprintf(f, "%d %d\n", (int)getpid(), (int)child) < 0 ||
	    fclose(f))
		return 1;
	if (child) {
		while (s_wait(fds[0]))
			;
	} else {
		while (time(NULL) < end)
			t_wait(fds[0]);
	}
	return 0;
}
