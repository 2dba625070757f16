// SPDX-License-Identifier: Apache-2.0
/*
 * procmaps.c - per-process snapshots of the executable mappings in
 * /proc/PID/maps.  offwaketime reads the maps when it prints, so frames of
 * processes that exited during the trace are lost; we read them when the
 * kernel side first sees a thread block or be woken, at each exec and
 * again at the next event after it (once the dynamic loader has mapped
 * the libraries), and (for a process never read) at first lookup, then keep them after the process
 * is gone.  A lookup that misses re-reads a live process's maps once
 * (code mapped later, e.g. dlopen).  A forked child starts with a copy of its parent's snapshot,
 * which covers children that exit before we can read their own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "procmaps.h"
#include "util.h"

struct proc {
	uint32_t tgid;		/* 0: empty slot */
	bool tried;		/* a read was attempted */
	bool reread;		/* re-read after a lookup miss */
	uint32_t gen;		/* successful reads so far */
	struct pmap *maps;	/* sorted by start */
	size_t n;
};

struct procmaps {
	struct proc *tab;	/* open addressing, power-of-two size */
	size_t size, used;
};

struct procmaps *procmaps_new(void)
{
	struct procmaps *pm = calloc(1, sizeof(*pm));

	if (pm) {
		pm->size = 256;
		pm->tab = calloc(pm->size, sizeof(*pm->tab));
		if (!pm->tab) {
			free(pm);
			pm = NULL;
		}
	}
	return pm;
}

static void clear_maps(struct proc *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->maps[i].path);
	free(p->maps);
	p->maps = NULL;
	p->n = 0;
}

void procmaps_free(struct procmaps *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->size; i++)
		clear_maps(&pm->tab[i]);
	free(pm->tab);
	free(pm);
}

static struct proc *slot(struct proc *tab, size_t size, uint32_t tgid)
{
	size_t i = (tgid * 2654435761u) & (size - 1);

	while (tab[i].tgid && tab[i].tgid != tgid)
		i = (i + 1) & (size - 1);
	return &tab[i];
}

/* The entry of tgid, created when missing (NULL on ENOMEM). */
static struct proc *get(struct procmaps *pm, uint32_t tgid)
{
	struct proc *p;

	if ((pm->used + 1) * 2 > pm->size) {
		size_t nsize = pm->size * 2;
		struct proc *nt = calloc(nsize, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t i = 0; i < pm->size; i++)
			if (pm->tab[i].tgid)
				*slot(nt, nsize, pm->tab[i].tgid) = pm->tab[i];
		free(pm->tab);
		pm->tab = nt;
		pm->size = nsize;
	}
	p = slot(pm->tab, pm->size, tgid);
	if (!p->tgid) {
		p->tgid = tgid;
		pm->used++;
	}
	return p;
}

static int parse_line(const char *line, struct pmap *m, bool *exec)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perms[8];
	int pos = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
		   perms, &off, &maj, &min, &ino, &pos) < 7)
		return -1;
	*exec = perms[2] == 'x';
	m->start = start;
	m->end = end;
	m->off = off;
	m->dev = makedev(maj, min);
	m->ino = ino;
	m->path = strdup(pos ? line + pos : "");
	if (!m->path)
		return -1;
	m->path[strcspn(m->path, "\n")] = 0;
	return 0;
}

int procmaps_learn(struct procmaps *pm, uint32_t tgid)
{
	struct proc *p = get(pm, tgid);
	struct pmap *maps = NULL, m;
	size_t n = 0, cap = 0;
	char path[64], line[4096 + 128];
	bool exec;
	FILE *f;

	if (!p)
		return -1;
	p->tried = true;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (parse_line(line, &m, &exec) < 0)
			continue;
		if (!exec || ow_grow(&maps, &cap, n, sizeof(*maps)) < 0) {
			free(m.path);
			continue;
		}
		maps[n++] = m;
	}
	fclose(f);
	if (!n) {		/* a zombie, or a kernel thread */
		free(maps);
		return -1;
	}
	clear_maps(p);
	p->maps = maps;
	p->n = n;
	p->gen++;
	return 0;
}

void procmaps_learn_once(struct procmaps *pm, uint32_t tgid)
{
	struct proc *p = get(pm, tgid);

	if (p && !p->tried)
		procmaps_learn(pm, tgid);
}

uint32_t procmaps_gen(struct procmaps *pm, uint32_t tgid)
{
	procmaps_learn_once(pm, tgid);
	return slot(pm->tab, pm->size, tgid)->gen;
}

void procmaps_stale(struct procmaps *pm, uint32_t tgid)
{
	struct proc *p = get(pm, tgid);

	if (p)
		p->tried = false;
}

void procmaps_fork(struct procmaps *pm, uint32_t child, uint32_t parent)
{
	struct proc *c = get(pm, child), *p;
	struct pmap *maps;

	p = slot(pm->tab, pm->size, parent);
	if (!c || c->n || !p->n)
		return;
	maps = calloc(p->n, sizeof(*maps));
	if (!maps)
		return;
	for (size_t i = 0; i < p->n; i++) {
		maps[i] = p->maps[i];
		maps[i].path = strdup(p->maps[i].path);
		if (!maps[i].path) {
			c->maps = maps;
			c->n = i;
			return;
		}
	}
	c->maps = maps;
	c->n = p->n;
}

const struct pmap *procmaps_find(struct procmaps *pm, uint32_t tgid,
				 uint64_t addr)
{
	struct proc *p;
	size_t lo = 0, hi;

	procmaps_learn_once(pm, tgid);
	p = slot(pm->tab, pm->size, tgid);
again:
	hi = p->n;
	while (lo < hi) {	/* /proc/PID/maps is sorted by address */
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < p->maps[lo - 1].end)
		return &p->maps[lo - 1];
	if (p->tgid && !p->reread) {
		p->reread = true;
		if (!procmaps_learn(pm, tgid)) {
			p = slot(pm->tab, pm->size, tgid);
			lo = 0;
			goto again;
		}
	}
	return NULL;
}
