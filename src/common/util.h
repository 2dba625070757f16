/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util.h - the one error helper of the capture side and a few small
 * allocation helpers.  Messages read "offwake-svg: <what failed>: <why>".
 */
#ifndef OW_UTIL_H
#define OW_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define OW_PROG "offwake-svg"

/* Exit statuses of the capture command. */
enum {
	OW_EXIT_OK = 0,
	OW_EXIT_FAIL = 1,	/* run-time failure (message on stderr) */
	OW_EXIT_USAGE = 2,	/* bad command line, as argparse */
};

/*
 * Print "offwake-svg: " + the formatted message + "\n" on stderr, after
 * calling ow_err_hook if set (the live status line clears itself).
 */
extern void (*ow_err_hook)(void);
void ow_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Open path for reading if it is a regular file: never blocks (a FIFO or
 * a device planted where a file is expected is refused, errno EINVAL).
 * Returns the descriptor (close-on-exec) or -1.
 */
int ow_open_file(const char *path);
/*
 * The same for a file another user could have planted (/tmp/perf-PID.map):
 * not through a symbolic link at its end, and only when owned by root, by
 * us or by owner (what perf checks); else -1 (errno EPERM).
 */
int ow_open_owned(const char *path, uid_t owner);
/* The same for name in the directory open on dirfd, owned by root or us
 * (a cache directory's file: table_cache.c). */
int ow_open_ours_at(int dirfd, const char *name);

/* Grow *arr (element size sz) so that index n fits; 0 or -1 (ENOMEM). */
int ow_grow(void *arr, size_t *cap, size_t n, size_t sz);
/* In n elements of sz bytes sorted by the uint64_t at byte offset off:
 * how many have a key <= key (the index after the last such element). */
size_t ow_count_le(const void *base, size_t n, size_t sz, size_t off, uint64_t key);
/* CLOCK_MONOTONIC in milliseconds. */
double ow_now_ms(void);

/* "N name, N name" into buf for each nonzero n[i], i from first to
 * before end (a summary's list of causes); returns its length (0: none;
 * at least size: cut). */
size_t ow_counts_list(char *buf, size_t size, const uint64_t *n,
		      const char *const *names, int first, int end);

#endif
