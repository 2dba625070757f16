/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export_info.h - what every export writer is told about the stacks
 * (their unit, name, comments, times) and the sample type a --countname
 * stands for (export_info.c); part of the profile model (profile.h), read by the
 * writers (export_pprof.c, export_speedscope.c).
 */
#ifndef OW_EXPORT_INFO_H
#define OW_EXPORT_INFO_H

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
};

/* The sample type an export_info's countname gives: pprof's type and unit,
 * speedscope's unit ("none" when it has no such unit). */
struct export_unit {
	const char *type, *unit, *speedscope;
};
struct export_unit export_unit_of(const char *countname);

#endif
