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
struct capture_opts;

struct capture_opts {
	enum ow_threads threads;
	uint32_t *ids;		/* -p / -t values */
	size_t nids;
	bool follow;		/* --follow: -p's processes' children too */
	const char *cgroup;	/* --cgroup PATH, or NULL */
	uint64_t cgroup_id;	/* its id (run.c checks the path) */
	enum ow_group group;	/* --group, default comm */
	char **cmd;		/* -- CMD [ARGS...], NULL-terminated, or NULL */
	int cmd_pid;		/* CMD, started and waiting (run.c) */
	int cmd_go;		/* write a byte here to let CMD exec, or -1 */
	bool user_stacks_only;	/* -U */
	bool kernel_stacks_only; /* -K */
	bool delimited;		/* -d */
	int output;		/* the writer (export/writers.h) */
	uint32_t stack_storage_size;	/* 131072 */
	uint64_t min_block_us;	/* 1 */
	uint64_t max_block_us;	/* UINT64_MAX */
	bool has_state;
	uint32_t state;		/* --state MASK */
	uint64_t duration;	/* seconds; 0: until SIGINT/SIGTERM */
	const char *out_file;	/* -o FILE, NULL: stdout */
	bool quiet;		/* -q: no status line */
	enum ow_unwind unwind;	/* --unwind, default auto */
	uint64_t unwind_mb;	/* --unwind-memory MB, default 32 */
	uint64_t ringbuf_mb;	/* --ring-buffer-size MB; 0: by the CPUs */
	uint32_t stack_backlog;	/* --backlog N; 0: by the memory */
	bool plain_unknown;	/* --unknown-frames=plain */
	enum ow_python python;	/* --python, default on */
	uint32_t chain_depth;	/* --chain-depth N: waker levels, 1 to 4 */
	uint64_t chain_max_age_us;	/* --chain-max-age US */
	struct fg_options fg;	/* render options for the SVG */
	bool subtitle_set;	/* --subtitle given: no automatic one */
	bool live;		/* --live: the terminal view (live/tui.h) */
	double interval;	/* --interval S: between live updates (1) */
	const char *serve;	/* --serve [ADDR:]PORT, or NULL (live/web.h) */
};

/*
 * Parse the capture command line.  Returns 0 to run, 1 when --help or
 * --version was printed (exit 0), 2 after a usage error was printed.
 */
int capture_parse(struct capture_opts *o, int argc, char **argv);
void capture_opts_free(struct capture_opts *o);

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
	bool (*wanted)(const struct capture_opts *o);
	int (*check)(const struct capture_opts *o);
	void *(*start)(const struct capture_opts *o, struct capture *c);
	void (*stop)(void *v);
	void (*report)(const void *v);
	void (*free)(void *v);
};
extern const struct ow_live_view ow_live_views[];
extern const size_t ow_nlive_views;
#define OW_LIVE_MAX 4	/* rows of ow_live_views at most */

/* Run the capture and write the output; returns the exit status. */
int capture_main(struct capture_opts *o);

#endif
