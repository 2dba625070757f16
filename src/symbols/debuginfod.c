// SPDX-License-Identifier: Apache-2.0
/*
 * debuginfod.c - missing debug files fetched by build id from debuginfod
 * servers, as perf, gdb, valgrind and elfutils do: DEBUGINFOD_URLS names
 * them (unset or empty: no request, the library is not even started);
 * elfutils' libdebuginfod makes the requests and keeps its cache
 * (DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client).  The library's
 * own timeout (DEBUGINFOD_TIMEOUT, 90 s by default) is per request and
 * only when no data comes; ours bounds them all together: its progress
 * callback (called about once a second while a transfer waits) aborts a
 * request once the deadline has passed, and later ones are not made.
 * usyms.c asks, after the capture, for the files whose frames are shown
 * and have no symbols here; it checks the build id of what it gets.
 * The library is loaded at the first request (dlopen, as elfutils' own
 * libdwfl does): it brings libcurl and GnuTLS, whose start-up every run
 * would otherwise pay (and which fails under a small address-space
 * limit: render's out-of-memory tests).
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "debuginfod.h"
#include "common/util.h"

static struct {
	debuginfod_client *client;
	bool started;		/* the deadline is set */
	double deadline;	/* monotonic seconds */
	struct dbgfetch_stats st;
} g;

/* The library's functions we call, from dlopen(). */
static struct {
	debuginfod_client *(*begin)(void);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int,
			      char **);
	void (*end)(debuginfod_client *);
} lib;

/* lib, from libdebuginfod.so.1; false (said once) when it cannot be. */
static bool load_lib(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);

	if (h) {
		lib.begin = (debuginfod_client *(*)(void))dlsym(h, "debuginfod_begin");
		lib.set_progressfn = (void (*)(debuginfod_client *, debuginfod_progressfn_t))
			dlsym(h, "debuginfod_set_progressfn");
		lib.find_debuginfo = (int (*)(debuginfod_client *, const unsigned char *, int, char **))
			dlsym(h, "debuginfod_find_debuginfo");
		lib.end = (void (*)(debuginfod_client *))dlsym(h, "debuginfod_end");
		if (lib.begin && lib.set_progressfn && lib.find_debuginfo && lib.end)
			return true;
	}
	ow_err("DEBUGINFOD_URLS is set, but libdebuginfod.so.1 (Debian's libdebuginfod1) cannot be used: %s",
	       dlerror());
	memset(&lib, 0, sizeof(lib));
	return false;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool dbgfetch_enabled(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[strspn(urls, " \t")];
}

/* Abort the transfer once the deadline has passed. */
static int progress(debuginfod_client *c, long a, long b)
{
	(void)c, (void)a, (void)b;
	return mono_s() >= g.deadline;
}

/* The deadline and the client, at the first request; false: none. */
static bool start(void)
{
	const char *t = getenv("DEBUGINFOD_TIMEOUT");
	double budget = t && atof(t) > 0 ? atof(t) : DBGFETCH_BUDGET_S;

	if (!g.started) {
		g.started = true;
		g.deadline = mono_s() + budget;
		g.st.budget = budget;
		g.client = load_lib() ? lib.begin() : NULL;
		if (g.client)
			lib.set_progressfn(g.client, progress);
	}
	return g.client;
}

int dbgfetch_file(const unsigned char *id, size_t len, char **path)
{
	double t0;
	int fd;

	*path = NULL;
	if (!dbgfetch_enabled() || !len)
		return -1;
	if (!start() || mono_s() >= g.deadline) {
		g.st.skipped++;
		return -1;
	}
	t0 = mono_s();
	g.st.asked++;
	fd = lib.find_debuginfo(g.client, id, (int)len, path);
	g.st.seconds += mono_s() - t0;
	if (fd >= 0) {
		int rfd = ow_open_file(*path);	/* regular files only */

		close(fd);
		if (rfd >= 0) {
			g.st.got++;
			return rfd;
		}
		fd = -EINVAL;
	}
	free(*path);
	*path = NULL;
	if (fd == -ETIME || fd == -ETIMEDOUT || mono_s() >= g.deadline)
		g.st.timed_out++;
	else if (fd == -ENOENT)
		g.st.missing++;
	else
		g.st.failed++;
	return -1;
}

void dbgfetch_stats(struct dbgfetch_stats *st)
{
	*st = g.st;
}

void dbgfetch_unused(void)
{
	g.st.unused++;
}

void dbgfetch_end(void)
{
	if (g.client)
		lib.end(g.client);
	memset(&g, 0, sizeof(g));
}
