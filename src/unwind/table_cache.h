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
 * (OFFWAKE_UNWIND_CACHE=off, or no home).  Made on first use. */
const char *uw_cache_dir(void);
/* Why uw_cache_dir() gave NULL ("OFFWAKE_UNWIND_CACHE=off", "DIR: not
 * ours alone (owner or mode)", ...). */
const char *uw_cache_why(void);

/*
 * The table of the ELF file open on fd, from the cache in dir: 0 with t
 * filled (rows malloc'd, uw_table_free()), else -1 (not there, made by
 * another build of offwake-svg, for another version of the file, or not
 * a valid table: then built as before).  Keyed by the file's device,
 * inode, size, modification and change times; its rows checked as the
 * builder leaves them (sorted, the last one's rule none).
 */
int uw_cache_get(const char *dir, int fd, struct uw_table *t);

/* Keep t, the table of the file open on fd, in dir (written to a
 * temporary file and renamed: a reader sees all of it or nothing).  Not
 * kept once the directory holds UW_CACHE_MAX_MB.  false: not kept. */
#define UW_CACHE_MAX_MB	512
bool uw_cache_put(const char *dir, int fd, const struct uw_table *t);

#endif
