/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_common.h - a fopen() stand-in for the symboliser harnesses.  The
 * symboliser's sources are compiled with -Dfopen=fuzz_fopen, so the files
 * they read (/proc/PID/maps, /tmp/perf-PID.map, /proc/kallsyms) come from
 * the fuzzer's input instead of the machine.  Other paths are opened for
 * real.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <errno.h>
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

#ifdef FUZZ_COMMON_IMPL
#undef fopen
struct fuzz_file fuzz_files[FUZZ_NFILES];

FILE *fuzz_fopen(const char *path, const char *mode)
{
	size_t pl = strlen(path);

	for (int i = 0; i < FUZZ_NFILES; i++) {
		struct fuzz_file *f = &fuzz_files[i];
		size_t sl = f->suffix ? strlen(f->suffix) : 0;

		if (!sl || pl < sl || strcmp(path + pl - sl, f->suffix))
			continue;
		if (!f->data) {
			errno = ENOENT;
			return NULL;
		}
		if (!f->len)	/* fmemopen() of zero bytes fails */
			return fopen("/dev/null", "r");
		return fmemopen((void *)f->data, f->len, "r");
	}
	if (!strncmp(path, "/proc/", 6) || !strncmp(path, "/tmp/perf-", 10)) {
		errno = ENOENT;	/* nothing of the real machine */
		return NULL;
	}
	return fopen(path, mode);
}
#endif
#endif
