/* SPDX-License-Identifier: Apache-2.0 */
/*
 * debuginfod.h - debug files fetched by build id from the servers
 * DEBUGINFOD_URLS names (elfutils' libdebuginfod and its cache), within a
 * deadline; never a request when DEBUGINFOD_URLS is unset or empty.
 */
#ifndef OW_DEBUGINFOD_H
#define OW_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>

/* What was asked of the servers (or found in the cache) so far. */
struct dbgfetch_stats {
	unsigned asked;		/* requests made */
	unsigned got;		/* debug files received (or cached) */
	unsigned unused;	/* of them, not the file's (build id) */
	unsigned missing;	/* no server had it */
	unsigned timed_out;	/* DEBUGINFOD_TIMEOUT, or our deadline */
	unsigned failed;	/* any other error */
	unsigned skipped;	/* not asked: the deadline had passed */
	double seconds;		/* spent asking */
	double budget;		/* the deadline, seconds after the first */
};

/* Whether DEBUGINFOD_URLS names a server. */
bool dbgfetch_enabled(void);
/*
 * The debug file of build id (len bytes), opened for reading (a regular
 * file), or -1 (*path is then NULL); *path (malloc'd) names it in the
 * cache.  Every request of a process ends by one deadline, taken from
 * the first request: DEBUGINFOD_TIMEOUT seconds (default
 * DBGFETCH_BUDGET_S) for all of them together, so a slow server cannot
 * hold the end of a capture longer; past it nothing more is asked.
 */
#define DBGFETCH_BUDGET_S 15
int dbgfetch_file(const unsigned char *id, size_t len, char **path);
void dbgfetch_stats(struct dbgfetch_stats *st);
/* A debug file received was not used: not the build's, or no symbols. */
void dbgfetch_unused(void);
/* End the library's client. */
void dbgfetch_end(void);

#endif
