// SPDX-License-Identifier: Apache-2.0
/*
 * util.c - error reporting, safe opening of files named by traced
 * processes, and array growth shared by the capture modules.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "util.h"

void (*ow_err_hook)(void);

void ow_err(const char *fmt, ...)
{
	va_list ap;

	if (ow_err_hook)
		ow_err_hook();
	fputs(OW_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Open path (from at) for reading if it is a regular file (owned by root,
 * by us or by owner when check_owner), without blocking on a FIFO on the
 * way. */
static int open_regular(int at, const char *path, int flags, bool check_owner,
			uid_t owner)
{
	int fd = openat(at, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | flags);
	struct stat st;
	int fl;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (check_owner && st.st_uid && st.st_uid != geteuid() && st.st_uid != owner) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	/* back to blocking reads (O_NONBLOCK may matter to FUSE, NFS) */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int ow_open_file(const char *path)
{
	return open_regular(AT_FDCWD, path, 0, false, 0);
}

int ow_open_owned(const char *path, uid_t owner)
{
	return open_regular(AT_FDCWD, path, O_NOFOLLOW, true, owner);
}

int ow_open_ours_at(int dirfd, const char *name)
{
	return open_regular(dirfd, name, O_NOFOLLOW, true, geteuid());
}

int ow_grow(void *arr, size_t *cap, size_t n, size_t sz)
{
	void **p = arr;
	size_t ncap;
	void *np;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap <= n)
		ncap *= 2;
	np = realloc(*p, ncap * sz);
	if (!np) {
		errno = ENOMEM;
		return -1;
	}
	*p = np;
	*cap = ncap;
	return 0;
}

size_t ow_count_le(const void *base, size_t n, size_t sz, size_t off, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, (const char *)base + mid * sz + off, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

double ow_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

size_t ow_counts_list(char *buf, size_t size, const uint64_t *n,
		      const char *const *names, int first, int end)
{
	size_t len = 0;

	if (size)
		*buf = 0;
	for (int i = first; i < end; i++)
		if (n[i] && len < size)
			len += snprintf(buf + len, size - len, "%s%llu %s",
					len ? ", " : "", (unsigned long long)n[i],
					names[i]);
	return len;
}
