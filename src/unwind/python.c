// SPDX-License-Identifier: Apache-2.0
/*
 * python.c - the CPython unwinder's row (unwinder.h): the processes
 * running a supported CPython found as they are seen (python_procs.c),
 * their frames named (python_names.c) and stitched into the native stack
 * (python_stitch.c), and its summary lines.  Off (no state) under
 * --python=off (the kernel side's python_mode 0).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unwinder.h"
#include "python_names.h"
#include "python_procs.h"
#include "python_stitch.h"
#include "common/util.h"

struct python {
	const struct ow_uw_host *h;
	struct pyprocs *py;		/* CPython processes */
	struct pynames *pyn;		/* their frames' names */
	uint64_t pys[OW_PY_NR];		/* how Python stacks went */
	int walks_err;			/* why the BPF walker did not load */
	double walks_ms;		/* how long its load took */
};

/* Before the first CPython process's entry: the BPF walker loaded (its
 * walks: OW_WALK_PYTHON), its failure said (no Python frames then). */
static int python_walks(void *ctx)
{
	struct python *s = ctx;
	double t0 = ow_now_ms();

	s->walks_err = s->h->load_walks ?
		s->h->load_walks(s->h->ctx, OW_WALK_PYTHON) : ENOSYS;
	s->walks_ms = ow_now_ms() - t0;
	if (s->walks_err)
		fprintf(stderr, OW_PROG ": warning: the Python walker did not load (%s): no Python frames\n",
			strerror(s->walks_err));
	return s->walks_err;
}

static void python_free(void *state)
{
	struct python *s = state;

	if (!s)
		return;
	py_names_free(s->pyn);
	py_procs_free(s->py);
	free(s);
}

/*
 * The CPython unwinder (--python): the -p/-t processes that run it are
 * found before tracing starts, every other one when first seen; its BPF
 * walker is loaded with the first of them.
 */
static int python_start(const struct ow_uw_host *h, void **state)
{
	volatile const __u32 *mode = ow_uw_global(h, "python_mode");
	struct python *s;

	*state = NULL;
	if (!mode || !*mode)
		return 0;
	if ((s = calloc(1, sizeof(*s)))) {
		s->h = h;
		s->py = py_procs_new(h->pm, ow_uw_map_fd(h, "pyprocs", NULL),
				     ow_uw_global(h, "python_bits"));
		s->pyn = py_names_new(py_procs_layout, s->py, h->python_lines);
	}
	if (!s || !s->py || !s->pyn) {
		ow_err("starting the Python unwinder: %s", strerror(ENOMEM));
		python_free(s);
		return -1;
	}
	*state = s;
	py_procs_on_first(s->py, python_walks, s);
	for (size_t i = 0; i < h->ntgids; i++) {
		uint32_t tgid = h->tgids[i];

		if (tgid && !procmaps_learn(h->pm, tgid))
			py_procs_check(s->py, tgid);
	}
	return 0;
}

static void python_event(void *state, const struct ow_uw_event *ev)
{
	struct python *s = state;
	const struct ow_event *e = ev->e;
	const uint64_t *ips;
	uint32_t nr;

	switch (e->type) {
	case OW_EV_EXEC:
		py_procs_exec(s->py, e->tgid);
		py_procs_check(s->py, e->tgid);	/* looked at afresh */
		break;
	case OW_EV_SEEN:
	case OW_EV_TABLES:
		py_procs_check(s->py, e->tgid);
		break;
	case OW_EV_FORK:
		py_procs_fork(s->py, e->tgid, e->ptgid);
		break;
	case OW_EV_PYSTACK:	/* names read while the process lives */
		ips = s->h->stack(s->h->ctx, e->ptgid | (uint64_t)e->zero << 32, &nr);
		if (ips)
			py_names_prefetch(s->pyn, e->tgid, ips, nr);
		break;
	}
}

static void python_sweep(void *state, unsigned max_idle)
{
	struct python *s = state;

	py_procs_sweep(s->py);
}

static void python_finish(void *state)
{
	struct python *s = state;

	ow_uw_percpu(s->h, "py_stats", s->pys, OW_PY_NR);
}

static const char *python_frame_name(void *state, uint32_t tgid, uint64_t value)
{
	struct python *s = state;

	return py_names_name(s->pyn, tgid, value);
}

static bool python_frame_where(void *state, uint32_t tgid, uint64_t value,
			       const char **func, const char **file, int *line)
{
	struct python *s = state;

	return py_names_where(s->pyn, tgid, value, func, file, line);
}

/* Whether native frame i is the interpreter's loop (py_stitch()'s). */
struct eval_ctx {
	ow_uw_frame_name name;
	void *ctx;
};

static bool is_eval(void *ctx, uint32_t i)
{
	const struct eval_ctx *c = ctx;

	return !strcmp(c->name(c->ctx, i), PY_EVAL_NAME);
}

static uint32_t python_stitch(void *state, const uint64_t *ips, uint32_t nr,
			      ow_uw_frame_name name, void *ctx, uint32_t *order)
{
	struct eval_ctx ec = { name, ctx };

	if (ow_uw_native_frames(ips, nr) == nr)
		return 0;	/* no Python frame */
	return py_stitch(ips, nr, is_eval, &ec, order);
}

/* How the Python stacks went (--python), and a version not supported. */
static void python_summary(void *state, const struct ow_uw_host *h)
{
	static const char *const why[OW_PY_NR] = {
		[OW_PY_CUT_DEPTH] = "depth limit",
		[OW_PY_CUT_READ] = "a frame not readable",
		[OW_PY_DEFERRED] = "native stack walked later, without them",
		[OW_PY_NOT_LOADED] = "the Python walker not loaded",
	};
	const struct python *s = state;
	struct py_stats st;
	char cuts[256];
	size_t len;

	py_procs_stats(s->py, &st);
	len = ow_counts_list(cuts, sizeof(cuts), s->pys, why, OW_PY_CUT_DEPTH,
			     OW_PY_NR);
	if (st.procs)
		fprintf(stderr, OW_PROG ": python: %zu process%s running CPython; %llu stacks with Python frames, %llu of a thread without Python state, %llu with no Python frame running%s%s; the walker loaded at the first, in %.0f ms\n",
			st.procs, st.procs == 1 ? "" : "es",
			(unsigned long long)s->pys[OW_PY_WALKED],
			(unsigned long long)s->pys[OW_PY_NO_THREAD],
			(unsigned long long)s->pys[OW_PY_NO_FRAME],
			len ? "; cut or without them: " : "", cuts, s->walks_ms);
	if (st.unwalked)
		fprintf(stderr, OW_PROG ": warning: %zu process%s running CPython shown without Python frames: the walker did not load (%s)\n",
			st.unwalked, st.unwalked == 1 ? "" : "es",
			strerror(s->walks_err));
	if (st.unsupported)
		fprintf(stderr, OW_PROG ": warning: CPython %u.%u (pid %u, %zu process%s) is not supported (3.11 and 3.12 are): its threads show the interpreter's C frames\n",
			st.unsupported_version >> 8, st.unsupported_version & 0xff,
			st.unsupported_pid, st.unsupported,
			st.unsupported == 1 ? "" : "es");
}

const struct ow_unwinder ow_unwinder_python = {
	.name = "python",
	.start = python_start,
	.event = python_event,
	.sweep = python_sweep,
	.finish = python_finish,
	.frame_name = python_frame_name,
	.frame_where = python_frame_where,
	.stitch = python_stitch,
	.summary = python_summary,
	.free = python_free,
};
