/* SPDX-License-Identifier: Apache-2.0 */
/*
 * events.c - the event set (fg.h's fg_events_*): stacks with their long
 * blocks in time, handed to the renderer for the heat map; stacks are
 * kept once (frames interned in a private stack set's frame table).
 */
#include "events.h"
#include "stacks.h"

#include <errno.h>
#include <string.h>

struct fg_events *fg_events_new(uint64_t length_ns, uint64_t ns_per_count)
{
	struct fg_events *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->length_ns = length_ns;
	e->ns_per_count = ns_per_count ? ns_per_count : 1;
	e->names = fg_stacks_new();
	if (!e->names || fg_idtab_init(&e->stacktab, 256)) {
		fg_events_free(e);
		return NULL;
	}
	return e;
}

void fg_events_free(struct fg_events *e)
{
	if (!e)
		return;
	fg_stacks_free(e->names);
	fg_idtab_free(&e->stacktab);
	free(e->ids.v);
	free(e->stacks.v);
	free(e->ev.v);
	free(e);
}

/* The stack of ids[first..] (n ids, just appended), kept once. */
static int stack_of(struct fg_events *e, size_t first, uint32_t n, uint32_t *out)
{
	const uint32_t *v = e->ids.v + first;
	uint32_t h = fg_h32(ow_hash(v, n * sizeof(*v)));
	struct fg_idtab *t = &e->stacktab;
	size_t i;

	for (i = h & t->mask; t->slot[i].id; i = (i + 1) & t->mask) {
		const struct fg_evstack *s = &e->stacks.v[t->slot[i].id - 1];
		if (s->h == h && s->n == n && !memcmp(e->ids.v + s->first, v, n * sizeof(*v))) {
			e->ids.n = first;	/* the copy just appended */
			*out = t->slot[i].id - 1;
			return 0;
		}
	}
	struct fg_evstack s = { first, n, h };
	if (e->stacks.n >= UINT32_MAX - 1 || VEC_PUSH(e->stacks, s) ||
	    fg_idtab_put(t, i, e->stacks.n - 1, h))
		return -1;
	*out = e->stacks.n - 1;
	return 0;
}

int fg_events_add(struct fg_events *e, const char *const *frames, const size_t *lens,
		  size_t nframes, const struct fg_event *ev, size_t nev)
{
	size_t first = e->ids.n;
	uint32_t st;

	if (!nev)
		return 0;
	if (nframes >= UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < nframes; i++) {
		if (memchr(frames[i], ';', lens[i]) || memchr(frames[i], '\n', lens[i])) {
			e->ids.n = first;
			errno = EINVAL;
			return -1;
		}
		uint32_t id = fg_frame_intern(e->names, frames[i], lens[i]);
		if (id == FG_NONE || VEC_PUSH(e->ids, id))
			goto nomem;
	}
	if (stack_of(e, first, (uint32_t)nframes, &st))
		goto nomem;
	for (size_t i = 0; i < nev; i++) {
		struct fg_ev x = { st, ev[i].start_ns, ev[i].dur_ns };
		if (VEC_PUSH(e->ev, x))
			goto nomem;
	}
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

size_t fg_events_count(const struct fg_events *e)
{
	return e ? e->ev.n : 0;
}
