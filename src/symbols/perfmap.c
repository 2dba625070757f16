// SPDX-License-Identifier: Apache-2.0
/*
 * perfmap.c - JIT symbols: the "START SIZE NAME" lines (hex) that runtimes
 * such as the JVM, V8 or LuaJIT write to /tmp/perf-PID.map.  The file is
 * read once per process, through /proc/PID/root first so processes in
 * containers are found, then from our own /tmp; only a regular file, so a
 * FIFO planted there cannot block us, and, as perf checks, one owned by
 * root, by us or by the process's (effective) user, not reached through
 * a symbolic link (ow_open_owned()): a map planted by another user would
 * put names of its choosing into the graph.  Processes
 * without one are not remembered (a fork storm would make a long list):
 * the caller caches the names it got.  A map is let go once its process
 * has been gone for GONE_SWEEPS sweeps (perfmaps_sweep()): its keys have
 * been symbolised by then, and a runtime that starts and stops JIT
 * processes all day would otherwise keep every one it ever ran (and a
 * reused pid would take the old map's names).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perfmap.h"
#include "common/util.h"

#define GONE_SWEEPS	5

struct jsym {
	uint64_t start, size;
	char *name;
};

struct jmap {
	uint32_t tgid;
	unsigned gone;		/* sweeps that found the process gone */
	struct jsym *syms;	/* sorted by start */
	size_t n;
};

struct perfmaps {
	struct jmap *maps;
	size_t n, cap;
};

struct perfmaps *perfmaps_new(void)
{
	return calloc(1, sizeof(struct perfmaps));
}

static void free_map(struct jmap *m)
{
	for (size_t j = 0; j < m->n; j++)
		free(m->syms[j].name);
	free(m->syms);
}

void perfmaps_free(struct perfmaps *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free_map(&p->maps[i]);
	free(p->maps);
	free(p);
}

void perfmaps_sweep(struct perfmaps *p)
{
	for (size_t i = 0; i < p->n;) {
		struct jmap *m = &p->maps[i];

		if (!kill((pid_t)m->tgid, 0) || errno != ESRCH)
			m->gone = 0;
		else if (++m->gone >= GONE_SWEEPS) {
			free_map(m);
			*m = p->maps[--p->n];
			continue;
		}
		i++;
	}
}

static int cmp_jsym(const void *a, const void *b)
{
	const struct jsym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The effective uid of a live process, (uid_t)-1 when it is gone. */
static uid_t process_uid(uint32_t tgid)
{
	unsigned int r, e;
	char path[64], line[256];
	uid_t uid = (uid_t)-1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", tgid);
	f = fopen(path, "re");
	if (!f)
		return uid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u", &r, &e) == 2) {
			uid = e;
			break;
		}
	fclose(f);
	return uid;
}

static FILE *open_map(uint32_t tgid)
{
	uid_t uid = process_uid(tgid);
	char path[96];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/root/tmp/perf-%" PRIu32
		 ".map", tgid, tgid);
	fd = ow_open_owned(path, uid);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", tgid);
		fd = ow_open_owned(path, uid);
	}
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

static void load(struct jmap *m)
{
	unsigned long long start, size;
	FILE *f = open_map(m->tgid);
	char line[4096];
	size_t cap = 0;
	int pos;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		pos = 0;
		if (sscanf(line, "%llx %llx %n", &start, &size, &pos) < 2 ||
		    !pos || ow_grow(&m->syms, &cap, m->n, sizeof(*m->syms)) < 0)
			continue;
		line[strcspn(line, "\n")] = 0;
		m->syms[m->n].name = strdup(line + pos);
		if (!m->syms[m->n].name)
			continue;
		m->syms[m->n].start = start;
		m->syms[m->n++].size = size;
	}
	fclose(f);
	if (m->n)
		qsort(m->syms, m->n, sizeof(*m->syms), cmp_jsym);
}

const char *perfmaps_name(struct perfmaps *p, uint32_t tgid, uint64_t addr)
{
	struct jmap *m = NULL;
	size_t lo;

	for (size_t i = 0; i < p->n && !m; i++)
		if (p->maps[i].tgid == tgid)
			m = &p->maps[i];
	if (!m) {
		if (ow_grow(&p->maps, &p->cap, p->n, sizeof(*p->maps)) < 0)
			return NULL;
		m = &p->maps[p->n];
		memset(m, 0, sizeof(*m));
		m->tgid = tgid;
		load(m);
		if (!m->n) {
			free(m->syms);
			return NULL;
		}
		p->n++;
	}
	lo = ow_count_le(m->syms, m->n, sizeof(*m->syms), offsetof(struct jsym, start), addr);
	if (lo && addr < m->syms[lo - 1].start + m->syms[lo - 1].size)
		return m->syms[lo - 1].name;
	return NULL;
}

void perfmaps_counts(const struct perfmaps *p, size_t *maps, size_t *bytes)
{
	size_t b = p->cap * sizeof(*p->maps);

	for (size_t i = 0; i < p->n; i++)
		for (size_t j = 0; j < p->maps[i].n; j++)
			b += sizeof(struct jsym) + strlen(p->maps[i].syms[j].name) + 1;
	*maps = p->n;
	*bytes = b;
}
