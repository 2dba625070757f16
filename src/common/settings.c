// SPDX-License-Identifier: Apache-2.0
/*
 * settings.c - the OFFWAKE_* environment settings as rows (name, type,
 * what it does), read once at start-up into the rows' values, and the
 * list --help=env prints.  The one place in src/ that reads them, except
 * OFFWAKE_UNWIND_CACHE: src/unwind/table_cache.c reads that one itself
 * (it is linked into the unit tests' archive without this file), its row
 * is here for the list.  The DEBUGINFOD_* variables are elfutils' (the
 * man page's ENVIRONMENT), not ours.
 */
#include "settings.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

enum stype { S_STR, S_UINT, S_NUM };

struct setting {
	const char *name;
	enum stype type;
	const char *arg;	/* the value's name in the list */
	const char *help;	/* lines after the first are indented */
};

static const struct setting settings[] = {
	{ "OFFWAKE_DEBUG", S_STR, "1|stats",
	  "libbpf's messages on standard error (the verifier's log\n"
	  "of a program that does not load); stats: also each\n"
	  "program's verifier figures" },
	{ "OFFWAKE_UNWIND_CACHE", S_STR, "DIR|off",
	  "where unwind tables are kept across captures\n"
	  "(off: nowhere); read by src/unwind/table_cache.c" },
	{ "OFFWAKE_MEMSTATS", S_STR, "FILE",
	  "append a line of the capture's memory, table by table,\n"
	  "to FILE every 5 s (make soak)" },
	{ "OFFWAKE_SNAPSHOT", S_STR, "FILE",
	  "write the output as it is now to FILE every second\n"
	  "while the capture runs (a test setting)" },
	{ "OFFWAKE_PROGRESS_DELAY", S_NUM, "S",
	  "seconds before the status line shows (default 1)" },
	{ "OFFWAKE_KSTACK_CACHE", S_UINT, "0",
	  "walk every kernel stack (no kernel stack cache)" },
	{ "OFFWAKE_USTACK_CACHE", S_UINT, "0",
	  "walk every user stack (no user stack cache)" },
	{ "OFFWAKE_KSTACK_CHECK", S_UINT, "1",
	  "walk each kernel stack cache hit too and count those\n"
	  "that differ (a test setting)" },
	{ "OFFWAKE_USTACK_CHECK", S_UINT, "1",
	  "walk each user stack cache hit too and count those\n"
	  "that differ (a test setting)" },
	{ "OFFWAKE_KSTACK_FLAT", S_UINT, "0",
	  "replay cached kernel stacks with the general loop,\n"
	  "not the flattened one (a test setting)" },
	{ "OFFWAKE_COUNT_SLOTS", S_UINT, "N",
	  "keys of a drain period counted in a task's slot, the\n"
	  "rest in the hash maps (default 65536; a test setting)" },
	{ "OFFWAKE_RAW_TP", S_UINT, "1",
	  "load the raw_tp programs only, as on a kernel without\n"
	  "tp_btf (a test setting)" },
	{ "OFFWAKE_FILE_IDLE", S_UINT, "N",
	  "sweeps an unused ELF file's symbols are kept\n"
	  "(default 60; a test setting)" },
	{ "OFFWAKE_STACKS_IDLE", S_UINT, "N",
	  "sweeps an unused stack is kept (default 30; a test\n"
	  "setting)" },
	{ "OFFWAKE_ARM_DELAY_MS", S_UINT, "N",
	  "wait N ms after attaching, before arming (a slow\n"
	  "start's gap; a test setting)" },
	{ "OFFWAKE_TIMELINE_BUFFER", S_UINT, "BYTES",
	  "--timeline's ring buffer (default 4194304; rounded up\n"
	  "to a power of 2, at least 4096; a test setting)" },
	{ "OFFWAKE_TIMELINE_MAX", S_UINT, "N",
	  "--timeline's events kept in memory (default 1048576,\n"
	  "56 bytes each; past it counted as lost)" },
	{ "OFFWAKE_SLOW_READER", S_UINT, "F",
	  "F >= 2: while tracing, the reader is F times slower\n"
	  "(a test setting: a reader behind loses nothing)" },
};
#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

/* The values, by row: read by ow_settings_read(). */
static struct {
	const char *raw;	/* getenv()'s, NULL: unset */
	unsigned u;		/* S_UINT */
	double d;		/* S_NUM */
} vals[NSETTINGS];
static bool have_read;

void ow_settings_read(void)
{
	for (size_t i = 0; i < NSETTINGS; i++) {
		const char *v = getenv(settings[i].name);

		vals[i].raw = v;
		if (settings[i].type == S_UINT && v && *v)
			vals[i].u = (unsigned)strtoul(v, NULL, 10);
		else if (settings[i].type == S_NUM && v)
			vals[i].d = atof(v);
	}
	have_read = true;
}

/* The row of name, read; a name that is no row, or of another type, is
 * a mistake of ours: abort. */
static size_t row(const char *name, enum stype type)
{
	if (!have_read)
		ow_settings_read();
	for (size_t i = 0; i < NSETTINGS; i++)
		if (!strcmp(settings[i].name, name)) {
			if (settings[i].type != type)
				break;
			return i;
		}
	ow_err("internal error: no setting %s of that type", name);
	abort();
}

const char *ow_setting_str(const char *name)
{
	return vals[row(name, S_STR)].raw;
}

unsigned ow_setting_uint(const char *name, unsigned def)
{
	size_t i = row(name, S_UINT);

	return vals[i].raw && *vals[i].raw ? vals[i].u : def;
}

double ow_setting_num(const char *name, double def)
{
	size_t i = row(name, S_NUM);

	return vals[i].raw ? vals[i].d : def;
}

const char *ow_setting_row(size_t i, const char **arg, const char **help)
{
	if (i >= NSETTINGS)
		return NULL;
	*arg = settings[i].arg;
	*help = settings[i].help;
	return settings[i].name;
}
