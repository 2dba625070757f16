/* SPDX-License-Identifier: Apache-2.0 */
/*
 * table_cache.h - unwind tables kept on disk across captures (issue 31: a
 * new process's tables took 20-140 ms to build, its first stacks deferred
 * meanwhile; read back, they are in place in a millisecond or two).
 */
#ifndef OW_TABLE_CACHE_H
#define OW_TABLE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include "native_tables.h"

/* The cache's directory: OFFWAKE_UNWIND_CACHE, else
 * /var/cache/offwake-svg/unwind for root, else
 * $XDG_CACHE_HOME/offwake-svg/unwind (~/.cache/...); NULL when off
 * (OFFWAKE_UNWIND_CACHE=off, or no home, or not one we may use).  Made
 * and opened on first use, once: its name is for messages, the files are
 * reached through uw_cache_fd() only (a directory swapped for a symbolic
 * link later is not followed). */
const char *uw_cache_dir(void);
/* The directory uw_cache_dir() opened (-1: none). */
int uw_cache_fd(void);
/* Why uw_cache_dir() gave NULL ("OFFWAKE_UNWIND_CACHE=off", "DIR: not
 * ours alone (owner or mode)", "DIR: P is a symbolic link of uid N's",
 * ...). */
const char *uw_cache_why(void);

/* What uw_cache_get() found: a table, none, or a file refused (counted by
 * the capture, the table built again and the file replaced). */
enum uw_cache_got {
	UW_CACHE_HIT,
	UW_CACHE_MISS,		/* none for this file and build */
	UW_CACHE_NOT_REG,	/* refused: not a regular file */
	UW_CACHE_NOT_OURS,	/* not root's or ours */
	UW_CACHE_SIZE,		/* not the size its header says, or too large */
	UW_CACHE_UNREAD,	/* a read failed or came short */
	UW_CACHE_CRC,		/* its checksum is not its contents' */
	UW_CACHE_ORDER,		/* uw_table_check()'s UW_ROWS_ORDER .. TEXT */
	UW_CACHE_RULE,
	UW_CACHE_TEXT,
	UW_CACHE_GOT_N
};
/* Each one's name for the summary ("checksum", ...). */
extern const char *const uw_cache_got_name[UW_CACHE_GOT_N];

/*
 * The table of the ELF file open on fd, from the cache directory open on
 * dfd (-1: none, UW_CACHE_MISS): UW_CACHE_HIT with t filled (rows
 * malloc'd, uw_table_free()), else why not (then built as before).
 * Keyed by the file's device, inode, size, modification and change times
 * and this build of offwake-svg; a file is opened without following a
 * link or waiting on a FIFO, must be a regular file of root's or ours of
 * the size its header says (at most UW_CACHE_MAX_MB), its CRC-32 its
 * contents', and its rows a table uw_table_build() could have made for
 * the file (uw_table_check()).
 */
enum uw_cache_got uw_cache_get(int dfd, int fd, struct uw_table *t);

/* Keep t, the table of the file open on fd, in the directory open on dfd
 * (written to a temporary file there and renamed: a reader sees all of
 * it or nothing).  Not kept once the directory holds UW_CACHE_MAX_MB.
 * false: not kept. */
#define UW_CACHE_MAX_MB	512
bool uw_cache_put(int dfd, int fd, const struct uw_table *t);

#endif
