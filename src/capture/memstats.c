// SPDX-License-Identifier: Apache-2.0
/*
 * memstats.c - one line of a capture's memory, table by table (kB unless
 * named a count): the process's RSS and malloc's view of its heap, then
 * what each table holds.  The output's own part is "keys" (one entry per
 * line of the output; the SVG's sum keys that differ only in pids) and
 * the interned symbolised stacks they name; everything else is a cache
 * that should follow the processes alive, not the time the capture ran.
 * tests/soak.sh samples it every few seconds (OFFWAKE_MEMSTATS=FILE).
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include "engine.h"
#include "memstats.h"

/* A field of /proc/self/status in kB, or 0. */
static unsigned long status_kb(const char *name)
{
	char line[128];
	unsigned long kb = 0;
	size_t len = strlen(name);
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			sscanf(line + len + 1, "%lu", &kb);
			break;
		}
	fclose(f);
	return kb;
}

/* The store's bytes; *held: its stacks held by one lineage, *kept: by
 * two or more (or for good), *free: by none (kernel stacks, idle). */
static size_t stacks_bytes(const struct stacks *s, size_t *held,
			   size_t *kept, size_t *free)
{
	size_t b = s->tab.size * sizeof(*s->tab.tab) +
		   s->idlecap * sizeof(*s->idle);

	*held = *kept = *free = 0;
	for (size_t i = 0; i < s->tab.size; i++) {
		const struct rawstack *r = s->tab.tab[i].val;

		if (!r)
			continue;
		b += sizeof(*r) + r->nr * sizeof(r->ips[0]);
		++*(r->holders == 1 ? held : r->holders ? kept : free);
	}
	return b;
}

/* What the keys take (their array's room past n is never touched). */
static size_t agg_bytes(const struct agg *a)
{
	return a->n * sizeof(*a->ent) + a->size * sizeof(*a->slots);
}

void memstats_line(FILE *f, struct capture *c, double t)
{
	struct mallinfo2 mi = mallinfo2();
	struct fold_counts fc;
	size_t procs, spaces, lineages, pm_bytes, files, jits, us_bytes;
	size_t held, kept, none, st_bytes = stacks_bytes(&c->stacks, &held,
							  &kept, &none);

	folder_counts(&c->fo, &fc);
	procmaps_counts(c->pm, &procs, &spaces, &lineages, &pm_bytes);
	usyms_counts(c->fo.us, &files, &jits, &us_bytes);
	fprintf(f, "t=%.0f rss=%lu anon=%lu heap=%zu heap_free=%zu"
		" keys=%zu keys_kb=%zu pending=%zu"
		" interned=%zu interned_kb=%zu names=%zu names_kb=%zu kcache_kb=%zu"
		" irq_stacks=%zu irq_seen=%lu given_up=%lu"
		" stacks=%zu stacks_idle=%zu stacks_held=%zu stacks_kept=%zu"
		" stacks_none=%zu stacks_kb=%zu"
		" lineages=%zu lin_entries=%zu lin_kb=%zu"
		" procs=%zu spaces=%zu maps_kb=%zu"
		" elf_files=%zu jit_maps=%zu syms_kb=%zu",
		t, status_kb("VmRSS"), status_kb("RssAnon"),
		(mi.uordblks + mi.hblkhd) >> 10, mi.fordblks >> 10,
		c->agg.n, agg_bytes(&c->agg) >> 10, c->pending.n,
		c->fo.nstacks, fc.interned >> 10, c->fo.npool, fc.names >> 10,
		fc.kcache >> 10, fc.transient, (unsigned long)c->fo.transient,
		(unsigned long)c->stacks.given_up,
		c->stacks.tab.used, c->stacks.nidle, held, kept, none, st_bytes >> 10,
		c->fo.lineages, c->fo.lin_entries, fc.lineages >> 10,
		procs, spaces, pm_bytes >> 10,
		files, jits, us_bytes >> 10);
	for (size_t i = 0; i < ow_nunwinders; i++)	/* their tables */
		if (ow_unwinders[i]->memstats)
			ow_unwinders[i]->memstats(c->uws ? c->uws[i] : NULL, f);
	fputc('\n', f);
	fflush(f);
}
