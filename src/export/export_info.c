// SPDX-License-Identifier: Apache-2.0
/*
 * export_info.c - the sample type each --countname stands for, which the
 * pprof and speedscope writers both give.
 */
#include "export_info.h"

#include <string.h>

/* --countname values: pprof's sample type and unit (pprof scales the
 * time units it knows), speedscope's unit. */
static const struct {
	const char *countname;
	struct export_unit u;
} units[] = {
	{ "us", { "off-wake time", "microseconds", "microseconds" } },
	{ "usecs", { "off-wake time", "microseconds", "microseconds" } },
	{ "microseconds", { "off-wake time", "microseconds", "microseconds" } },
	{ "ns", { "off-wake time", "nanoseconds", "nanoseconds" } },
	{ "nanoseconds", { "off-wake time", "nanoseconds", "nanoseconds" } },
	{ "ms", { "off-wake time", "milliseconds", "milliseconds" } },
	{ "milliseconds", { "off-wake time", "milliseconds", "milliseconds" } },
	{ "s", { "off-wake time", "seconds", "seconds" } },
	{ "seconds", { "off-wake time", "seconds", "seconds" } },
	{ "samples", { "samples", "count", "none" } },
	{ "bytes", { "space", "bytes", "bytes" } },
};

struct export_unit export_unit_of(const char *countname)
{
	struct export_unit other = { countname, "count", "none" };

	if (!countname)
		return units[0].u;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].countname, countname))
			return units[i].u;
	return other;
}
