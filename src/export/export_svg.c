// SPDX-License-Identifier: Apache-2.0
/*
 * export_svg.c - the SVG writer (writers.c's "svg" row): the profile's
 * stack set, in memory (no text round trip), drawn by the renderer
 * through fg.h with the capture's render options; a profile with events
 * (its long blocks in time) also hands them over, for the heat map.
 */
#include "writers.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What one count is in ns, by the unit the countname stands for (a unit
 * that is no time: microseconds, the capture's own). */
static uint64_t ns_per_count(const char *countname)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {
		{ "nanoseconds", 1 }, { "microseconds", 1000 },
		{ "milliseconds", 1000000 }, { "seconds", 1000000000 },
	};
	const char *u = export_unit_of(countname).unit;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].unit, u))
			return units[i].ns;
	return 1000;
}

struct events_walk {
	struct fg_events *e;
	uint64_t start;	/* the capture's start on the events' clock */
	const char **fr;
	size_t *lens, nfr, nlens;
	struct fg_event *ev;
	size_t nev;
};

static int add_events(void *ctx, const struct ow_sample *smp)
{
	struct events_walk *w = ctx;

	if (!smp->nevents)
		return 0;
	if (ow_grow(&w->fr, &w->nfr, smp->nframes, sizeof(*w->fr)) ||
	    ow_grow(&w->lens, &w->nlens, smp->nframes, sizeof(*w->lens)) ||
	    ow_grow(&w->ev, &w->nev, smp->nevents, sizeof(*w->ev)))
		return -1;
	for (size_t i = 0; i < smp->nframes; i++) {
		w->fr[i] = smp->frames[i].name;
		w->lens[i] = smp->frames[i].len;
	}
	for (size_t i = 0; i < smp->nevents; i++) {
		const struct ow_long_block *b = &smp->events[i];
		w->ev[i].start_ns = b->start_ns > w->start ? b->start_ns - w->start : 0;
		w->ev[i].dur_ns = b->end_ns > b->start_ns ? b->end_ns - b->start_ns : 0;
	}
	return fg_events_add(w->e, w->fr, w->lens, smp->nframes, w->ev, smp->nevents);
}

/* The profile's long blocks as the renderer's event set; NULL when it has
 * none (or after a message, *failed set). */
static struct fg_events *profile_events(const struct ow_profile *p, int *failed)
{
	const struct export_info *in = &p->info;
	struct events_walk w = { 0 };

	*failed = 0;
	if (!in->has_events)
		return NULL;
	w.start = in->clock_start_ns;
	w.e = fg_events_new(in->clock_end_ns > in->clock_start_ns ?
			    in->clock_end_ns - in->clock_start_ns : 0, ns_per_count(in->countname));
	errno = 0;
	if (!w.e || ow_profile_foreach(p, add_events, &w)) {
		ow_err("the SVG's heat map: %s", ow_strerror(errno ? errno : ENOMEM));
		fg_events_free(w.e);
		w.e = NULL;
		*failed = 1;
	}
	free(w.fr);
	free(w.lens);
	free(w.ev);
	return w.e;
}

int export_svg_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out)
{
	struct fg_stacks *made, *s = ow_profile_stacks(p, "rendering the SVG", o->fg, &made);
	int r, failed;

	if (!s)
		return OW_EXIT_FAIL;
	struct fg_events *ev = profile_events(p, &failed);
	if (failed) {
		fg_stacks_free(made);
		return OW_EXIT_FAIL;
	}
	r = fg_render_events(o->fg, s, ev, out);
	fg_events_free(ev);
	fg_stacks_free(made);
	if (r < 0) {
		if (errno != EPIPE)
			ow_err("%s the SVG: %s", errno == ENOMEM ? "rendering" : "writing",
			       ow_strerror(errno));
		return OW_EXIT_FAIL;
	}
	return r == FG_EXIT_USAGE ? OW_EXIT_USAGE : r;
}
