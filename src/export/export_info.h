/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export_info.h - what every export writer is told about the stacks
 * (their unit, name, comments, times) and the sample type a --countname
 * stands for (export_info.c); part of the profile model (profile.h), read by the
 * writers (export_pprof.c, export_speedscope.c).
 */
#ifndef OW_EXPORT_INFO_H
#define OW_EXPORT_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the stacks are and where they came from. */
struct export_info {
	const char *countname;	/* the unit of the counts, as --countname:
				 * "us" (NULL: microseconds), "ns", "ms",
				 * "s", "samples", or any name */
	const char *name;	/* the profile's name (speedscope), or NULL */
	const char *const *comments;	/* pprof comments (capture parameters) */
	size_t ncomments;
	int64_t time_nanos;	/* when the capture started, 0: unknown */
	int64_t duration_nanos;	/* how long it ran, 0: unknown */
	/* The events' clock (profile.h's struct ow_long_block): */
	bool has_events;	/* the samples carry their long blocks */
	uint64_t clock_start_ns;	/* the capture's start on that clock */
	uint64_t clock_end_ns;	/* its end */
	uint64_t event_min_ns;	/* blocks shorter are only summed */
	uint64_t events_lost;	/* long blocks not kept as events (their
				 * time is in the sums) */
};

/* The sample type an export_info's countname gives: pprof's type and unit,
 * speedscope's unit ("none" when it has no such unit). */
struct export_unit {
	const char *type, *unit, *speedscope;
};
struct export_unit export_unit_of(const char *countname);

#endif
