// SPDX-License-Identifier: Apache-2.0
/*
 * walks.c - the stack walks' BPF programs (see walks.h): the table of
 * them, each trigger's array and slot, and the late load.
 *
 * A walk loaded late comes from a second instance of the same object,
 * every map of which is the first's (bpf_map__reuse_fd(): the program
 * arrays, the stacks' maps, .rodata and .bss too, so that it sees the
 * same configuration and counters), with that walk's programs alone set
 * to load.  The verifier checks them then, not at start-up: CPython's
 * three (8k instructions each here) cost nothing to a capture that meets
 * no Python process.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "walks.h"
#include "offwake.skel.h"

static const struct walk_row {
	const char *prog, *walks;
	enum ow_walk_slot slot;
} walk_rows[] = {
	{ "walk_ustack_switch", "walks_switch", OW_WALK_USTACK },
	{ "walk_python_switch", "walks_switch", OW_WALK_PYTHON },
	{ "walk_test_switch", "walks_switch", OW_WALK_TEST },
	{ "walk_ustack_end", "walks_end", OW_WALK_USTACK },
	{ "walk_python_end", "walks_end", OW_WALK_PYTHON },
	{ "walk_test_end", "walks_end", OW_WALK_TEST },
	{ "walk_ustack_waking", "walks_waking", OW_WALK_USTACK },
	{ "walk_python_waking", "walks_waking", OW_WALK_PYTHON },
	{ "walk_test_waking", "walks_waking", OW_WALK_TEST },
};
#define NWALKS	(sizeof(walk_rows) / sizeof(*walk_rows))

/* Each array's trigger: the tp_btf program whose walks it holds. */
static const struct {
	const char *walks, *prog;
} triggers[] = {
	{ "walks_switch", "switch_btf" },
	{ "walks_end", "schedule_end_btf" },
	{ "walks_waking", "waking_btf" },
};

/* Slots loaded late, not with the capture: every interpreter's, when an
 * unwinder row first needs it (ow_uw_host.load_walks). */
static bool late_slot(enum ow_walk_slot slot)
{
	return slot != OW_WALK_USTACK;
}

struct walks_late {
	struct offwake_bpf *inst[OW_WALK_SLOTS];
	int err[OW_WALK_SLOTS];	/* 0 loaded, -1 not tried, else errno */
};

static struct bpf_program *prog_of(const struct offwake_bpf *s,
				   const struct walk_row *w)
{
	return bpf_object__find_program_by_name(s->obj, w->prog);
}

/* Whether the trigger of w's array runs in this capture: loaded (or,
 * before the load, set to). */
static bool trigger_on(const struct offwake_bpf *s, const struct walk_row *w,
		       bool loaded)
{
	for (size_t i = 0; i < sizeof(triggers) / sizeof(*triggers); i++) {
		struct bpf_program *p;

		if (strcmp(triggers[i].walks, w->walks))
			continue;
		p = bpf_object__find_program_by_name(s->obj, triggers[i].prog);
		return p && (loaded ? bpf_program__fd(p) >= 0 :
				      bpf_program__autoload(p));
	}
	return false;
}

void walks_configure(struct offwake_bpf *s, bool raw)
{
	for (size_t i = 0; i < NWALKS; i++) {
		const struct walk_row *w = &walk_rows[i];
		struct bpf_program *p = prog_of(s, w);

		if (!p)
			continue;
		bpf_program__set_autoload(p, !raw && !late_slot(w->slot) &&
					  s->rodata->want_ustack &&
					  trigger_on(s, w, false));
		bpf_program__set_autoattach(p, false);
	}
}

/* s's loaded walks of slot (any slot: -1) into s0's arrays. */
static int fill(const struct offwake_bpf *s0, const struct offwake_bpf *s,
		int slot)
{
	for (size_t i = 0; i < NWALKS; i++) {
		const struct walk_row *w = &walk_rows[i];
		struct bpf_program *p = prog_of(s, w);
		struct bpf_map *m = bpf_object__find_map_by_name(s0->obj,
								 w->walks);
		__u32 key = w->slot;
		int fd = p ? bpf_program__fd(p) : -1;

		if (!p || !m)
			return ENOENT;
		if (fd < 0 || (slot >= 0 && w->slot != (unsigned)slot))
			continue;
		if (bpf_map_update_elem(bpf_map__fd(m), &key, &fd, BPF_ANY))
			return errno;
	}
	return 0;
}

int walks_fill(struct offwake_bpf *s)
{
	return fill(s, s, -1);
}

/* A second instance of the object, all of its maps s's, slot's walks of
 * the triggers s runs set to load. */
static struct offwake_bpf *late_open(struct offwake_bpf *s,
				     enum ow_walk_slot slot, int *err)
{
	struct offwake_bpf *l = offwake_bpf__open();
	struct bpf_program *p;
	struct bpf_map *m;

	if (!l) {
		*err = errno ? errno : ENOMEM;
		return NULL;
	}
	bpf_object__for_each_program(p, l->obj) {	/* (OFFWAKE_DEBUG's) */
		struct bpf_program *p0 = bpf_object__find_program_by_name(s->obj,
						bpf_program__name(p));

		bpf_program__set_autoload(p, false);
		if (p0)
			bpf_program__set_log_level(p, bpf_program__log_level(p0));
	}
	for (size_t i = 0; i < NWALKS; i++)
		if (walk_rows[i].slot == slot && trigger_on(s, &walk_rows[i], true) &&
		    (p = prog_of(l, &walk_rows[i])))
			bpf_program__set_autoload(p, true);
	bpf_object__for_each_map(m, l->obj) {
		struct bpf_map *m0 = bpf_object__find_map_by_name(s->obj,
							bpf_map__name(m));
		int fd = m0 ? bpf_map__fd(m0) : -1;

		if (fd < 0)	/* not made for this capture: nor here */
			*err = bpf_map__set_autocreate(m, false);
		else
			*err = bpf_map__reuse_fd(m, fd);
		if (*err) {
			*err = -*err;
			offwake_bpf__destroy(l);
			return NULL;
		}
	}
	return l;
}

int walks_load_late(struct walks_late **late, struct offwake_bpf *s,
		    enum ow_walk_slot slot)
{
	struct walks_late *w = *late;
	struct offwake_bpf *l;
	int err = 0;

	if (slot >= OW_WALK_SLOTS)
		return EINVAL;
	if (!w) {
		w = *late = calloc(1, sizeof(*w));
		if (!w)
			return ENOMEM;
		for (int i = 0; i < OW_WALK_SLOTS; i++)
			w->err[i] = -1;
	}
	if (w->err[slot] >= 0)
		return w->err[slot];
	l = late_open(s, slot, &err);
	if (l) {
		err = -bpf_object__load(l->obj);
		if (!err)
			err = fill(s, l, slot);
		if (err)
			offwake_bpf__destroy(l);
		else
			w->inst[slot] = l;
	}
	return w->err[slot] = err;
}

void walks_free(struct walks_late *late)
{
	if (!late)
		return;
	for (int i = 0; i < OW_WALK_SLOTS; i++)
		if (late->inst[i])
			offwake_bpf__destroy(late->inst[i]);
	free(late);
}
