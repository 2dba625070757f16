/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_common.h - fopen() and open() stand-ins for the symboliser
 * harnesses.  The symboliser's sources are compiled with -Dfopen=fuzz_fopen
 * and -Dopen=fuzz_open, so the files they read (/proc/PID/maps,
 * /tmp/perf-PID.map, /proc/kallsyms) come from the fuzzer's input instead
 * of the machine.  fuzz_open() hands out a memfd holding the input, a
 * regular file, so ow_open_file()'s fstat() check accepts it (perfmap.c
 * opens its files that way).  Other paths are opened for real.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct fuzz_file {
	const char *suffix;	/* path ends with this ("" = never) */
	const char *data;
	size_t len;
};

#define FUZZ_NFILES 3
extern struct fuzz_file fuzz_files[FUZZ_NFILES];

FILE *fuzz_fopen(const char *path, const char *mode);
int fuzz_open(const char *path, int flags, ...);

#ifdef FUZZ_COMMON_IMPL
#undef fopen
#undef open
#include <sys/mman.h>
#include <unistd.h>
struct fuzz_file fuzz_files[FUZZ_NFILES];

/* the fuzz file that path names, or NULL */
static struct fuzz_file *fuzz_find(const char *path)
{
	size_t pl = strlen(path);

	for (int i = 0; i < FUZZ_NFILES; i++) {
		struct fuzz_file *f = &fuzz_files[i];
		size_t sl = f->suffix ? strlen(f->suffix) : 0;

		if (sl && pl >= sl && !strcmp(path + pl - sl, f->suffix))
			return f;
	}
	return NULL;
}

/* a path of the real machine that the harnesses must not read */
static int fuzz_forbidden(const char *path)
{
	return !strncmp(path, "/proc/", 6) || !strncmp(path, "/tmp/perf-", 10);
}

FILE *fuzz_fopen(const char *path, const char *mode)
{
	struct fuzz_file *f = fuzz_find(path);

	if (f) {
		if (!f->data) {
			errno = ENOENT;
			return NULL;
		}
		if (!f->len)	/* fmemopen() of zero bytes fails */
			return fopen("/dev/null", "r");
		return fmemopen((void *)f->data, f->len, "r");
	}
	if (fuzz_forbidden(path)) {
		errno = ENOENT;	/* nothing of the real machine */
		return NULL;
	}
	return fopen(path, mode);
}

/* open(2): a fuzz file is a memfd (a regular file) holding its bytes,
 * read-only opens only */
int fuzz_open(const char *path, int flags, ...)
{
	struct fuzz_file *f = fuzz_find(path);
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (f) {
		size_t off = 0;
		int fd;

		if (!f->data) {
			errno = ENOENT;
			return -1;
		}
		if ((flags & O_ACCMODE) != O_RDONLY) {
			errno = EACCES;
			return -1;
		}
		fd = memfd_create("fuzz", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
		if (fd < 0)
			return -1;
		while (off < f->len) {
			ssize_t w = write(fd, f->data + off, f->len - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				close(fd);
				errno = EIO;
				return -1;
			}
			off += (size_t)w;
		}
		if (lseek(fd, 0, SEEK_SET) < 0 ||
		    ((flags & O_NONBLOCK) && fcntl(fd, F_SETFL, O_NONBLOCK) < 0)) {
			close(fd);
			return -1;
		}
		return fd;
	}
	if (fuzz_forbidden(path)) {
		errno = ENOENT;	/* nothing of the real machine */
		return -1;
	}
	return open(path, flags, mode);
}
#endif
#endif
