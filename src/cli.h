/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h - the commands of offwake-svg (main.c's table), "render" (render_cmd.c),
 * capture (every other invocation) and the capture options.
 */
#ifndef OW_CLI_H
#define OW_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fg.h"

/* offwake-svg render ARGS...: flamegraph.pl on folded files. */
int render_main(int argc, char **argv);

/* "offwake-svg NAME ARGS...": main.c's table, ended by a NULL name, which
 * dispatches and which --help lists ("NAME ARGS  HELP"). */
struct ow_command {
	const char *name;
	const char *args;	/* what follows the name, for --help */
	const char *help;	/* lines after the first are indented */
	int (*main)(int argc, char **argv);	/* argv[0] is the name */
};
extern const struct ow_command ow_commands[];

/* Which threads are traced (a mutually exclusive group, as offwaketime). */
enum ow_threads {
	OW_THREADS_ALL,
	OW_THREADS_TGID,	/* -p PID[,PID...] */
	OW_THREADS_TID,		/* -t TID[,TID...] */
	OW_THREADS_USER,	/* -u */
	OW_THREADS_KERNEL,	/* -k */
};

/* The output: its writer's row in export/writers.h's table; the first
 * row, the SVG, is the default. */
#define OW_OUT_SVG 0

/* How user stacks are walked (--unwind). */
enum ow_unwind {
	OW_UNWIND_AUTO,		/* CFI tables where a file has them, else
				 * frame pointers */
	OW_UNWIND_FP,		/* frame pointers only */
	OW_UNWIND_CFI,		/* CFI tables only */
};

/* --python: the BPF side's python_mode is the same number. */
enum ow_python {
	OW_PYTHON_OFF,		/* the interpreter's C frames only */
	OW_PYTHON_ON,		/* Python frames, "function (file.py)" */
	OW_PYTHON_LINES,	/* and their lines, "function (file.py:LINE)" */
};

/*
 * --chain-max-age default (us): a waker whose own wakeup is older than
 * this was not woken to make the wakeup it made (see the man page).
 */
#define OW_CHAIN_MAX_AGE_US	10000

/* How the bottom (and the waker's) frame is named (--group), as
 * stackcollapse-perf.pl's --pid and --tid name it. */
enum ow_group {
	OW_GROUP_COMM,		/* comm (offwaketime) */
	OW_GROUP_PROCESS,	/* comm-PID (the process's tgid) */
	OW_GROUP_THREAD,	/* comm-PID/TID */
};

struct capture;
struct capture_cfg;	/* the options: capture/capture_cfg.h */

/*
 * Parse the capture command line.  Returns 0 to run, 1 when --help or
 * --version was printed (exit 0), 2 after a usage error was printed.
 */
int capture_parse(struct capture_cfg *o, int argc, char **argv);
void capture_cfg_free(struct capture_cfg *o);

/*
 * A live view of the running capture (src/live/; the table is
 * src/live/views.c's): for each view o asks for (wanted()), run.c calls
 * check() (NULL: none) before anything else (-1 after a message: a usage
 * error), start() once the session exists and before -- CMD starts
 * (attaches it to c's loop; NULL after a message: the capture does not
 * start), stop() when the capture ends, before the output is written,
 * report() (NULL: none) for its line of the summary, and free() (NULL:
 * stop() freed it).
 */
struct capture;
struct ow_live_view {
	bool (*wanted)(const struct capture_cfg *o);
	int (*check)(const struct capture_cfg *o);
	void *(*start)(const struct capture_cfg *o, struct capture *c);
	void (*stop)(void *v);
	void (*report)(const void *v);
	void (*free)(void *v);
};
extern const struct ow_live_view ow_live_views[];
extern const size_t ow_nlive_views;
#define OW_LIVE_MAX 4	/* rows of ow_live_views at most */

/* Run the capture and write the output; returns the exit status. */
int capture_main(struct capture_cfg *o);

#endif
