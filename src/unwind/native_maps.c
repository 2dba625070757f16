// SPDX-License-Identifier: Apache-2.0
/*
 * native_maps.c - the unwind tables of the traced processes, in the BPF
 * maps the kernel side's CFI walker reads (bpf/unwind_native.bpf.h,
 * uw_step()).
 *
 * Files: each executable file a traced process maps gets its table once
 * (native_tables.c compiles its CFI), kept by device and inode and shared
 * by every process mapping it.  Its rows go into one range of the rows
 * map, an array mapped into our memory (written with memcpy, no syscall
 * per row); ranges are given first fit and returned when a file has been
 * unused for a while (no process's entry refers to it any more, so no
 * walk in flight can still read them).  A table that does not fit the
 * map (--unwind-memory) is not loaded: that file's frames are walked by
 * frame pointers, and the summary says so.
 *
 * Processes: the umaps entry of a process (key: tgid) lists its
 * executable file mappings, sorted, with what turns an address into a row
 * pc (a file without a table: no rows, so the walker knows it and takes
 * its frames by frame pointers instead of waiting for a table).  It is written when the process is first seen
 * and after an exec (ring buffer events, queued: tables are built in the
 * main loop, not in the event callback), copied from the parent at fork,
 * and looked at again every few seconds for libraries loaded later
 * (dlopen); it is deleted when the process is gone.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include "native_maps.h"
#include "native_tables.h"
#include "table_cache.h"
#include "unwind_native.h"
#include "common/htab.h"
#include "common/util.h"

#define RELEARN_PER_SWEEP	16	/* live processes whose maps are read
					 * again at each sweep (dlopen) */

struct seg {
	uint64_t off, vaddr, filesz;
};

struct cfi_file {
	uint64_t dev, ino;
	struct seg *segs;	/* executable PT_LOAD segments */
	size_t nsegs;
	uint64_t base;		/* of the table's row pcs */
	uint32_t first, nrows;	/* range in the rows map; nrows 0: none */
	unsigned refs;		/* process entries using it */
	unsigned idle;		/* sweeps with no reference */
};

struct cfi_proc {
	uint32_t tgid;
	uint64_t version;	/* of the maps loaded (0: none yet) */
	struct cfi_file **files;	/* references held */
	size_t nfiles;
	double queued;		/* when queued, 0: not queued */
	bool counted;		/* in st.procs_loaded */
	bool forgotten;		/* cfi_forget() while update() ran on it */
	bool partial;		/* its entry leaves files out (a quick pass) */
	bool want_all;		/* a walk missed them: the next pass is full */
	uint64_t learned_ns;	/* when cfi_refresh() last read its maps */
};

struct range {
	uint32_t first, n;
};

struct cfi {
	struct procmaps *pm;
	int rows_fd, umaps_fd;
	int gen_fd;		/* umaps_gen (-1: none) */
	struct ow_urow *rows;
	uint32_t cap;
	struct range *free;	/* free ranges, sorted, coalesced */
	size_t nfree, freecap;
	struct htab files;	/* (dev, ino) -> struct cfi_file */
	struct htab procs;	/* (tgid, 0) -> struct cfi_proc */
	uint32_t *queue;
	size_t nqueue, queuecap;
	size_t relearn;		/* round-robin position in procs */
	uint32_t gen;		/* of the last umaps entry written */
	int cache_fd;		/* tables kept across captures (-1: not) */
	struct cfi_proc *busy;	/* the one update() works on */
	struct cfi_stats st;
};

struct cfi *cfi_new(struct procmaps *pm, int rows_fd, void *rows, uint32_t cap,
		    int umaps_fd)
{
	struct cfi *c = calloc(1, sizeof(*c));

	if (!c || ow_grow(&c->free, &c->freecap, 0, sizeof(*c->free))) {
		free(c);
		return NULL;
	}
	c->pm = pm;
	c->rows_fd = rows_fd;
	c->rows = rows;
	c->cap = cap;
	c->free[0] = (struct range){ 0, cap };
	c->nfree = 1;
	c->umaps_fd = umaps_fd;
	c->gen_fd = -1;
	c->cache_fd = -1;
	c->st.rows_cap = cap;
	return c;
}

void cfi_set_gen_map(struct cfi *c, int gen_fd)
{
	c->gen_fd = gen_fd;
}

void cfi_set_cache(struct cfi *c, const char *dir, int dfd)
{
	c->cache_fd = dir ? dfd : -1;
	c->st.cache_dir = dir;
}

/* tgid's umaps generation into its slot of umaps_gen (0: no tables),
 * after umaps itself (a reader that sees the old one a moment longer
 * takes the tables it walked with as they were a moment ago). */
static void set_gen(struct cfi *c, uint32_t tgid, uint32_t gen)
{
	uint32_t slot = tgid & (OW_UMAPS_GEN_SLOTS - 1);
	struct ow_umaps_gen g = { .tgid = tgid, .gen = gen };

	if (c->gen_fd >= 0)
		bpf_map_update_elem(c->gen_fd, &slot, &g, BPF_ANY);
}

/* ---- the rows map: first-fit ranges ---------------------------------- */

static int rows_alloc(struct cfi *c, uint32_t n, uint32_t *first)
{
	for (size_t i = 0; i < c->nfree; i++) {
		struct range *r = &c->free[i];

		if (r->n < n)
			continue;
		*first = r->first;
		r->first += n;
		r->n -= n;
		if (!r->n) {
			memmove(r, r + 1, (c->nfree - i - 1) * sizeof(*r));
			c->nfree--;
		}
		return 0;
	}
	return -1;
}

static void rows_release(struct cfi *c, uint32_t first, uint32_t n)
{
	size_t i = 0;

	while (i < c->nfree && c->free[i].first < first)
		i++;
	if (i && c->free[i - 1].first + c->free[i - 1].n == first) {
		c->free[i - 1].n += n;		/* joins the one before */
		if (i < c->nfree && first + n == c->free[i].first) {
			c->free[i - 1].n += c->free[i].n;
			memmove(&c->free[i], &c->free[i + 1],
				(c->nfree - i - 1) * sizeof(*c->free));
			c->nfree--;
		}
		return;
	}
	if (i < c->nfree && first + n == c->free[i].first) {
		c->free[i].first = first;	/* joins the one after */
		c->free[i].n += n;
		return;
	}
	if (ow_grow(&c->free, &c->freecap, c->nfree, sizeof(*c->free)))
		return;		/* the range stays used: no harm but room */
	memmove(&c->free[i + 1], &c->free[i], (c->nfree - i) * sizeof(*c->free));
	c->free[i] = (struct range){ first, n };
	c->nfree++;
}

/* ---- files ------------------------------------------------------------ */

static void read_segs(struct cfi_file *f, int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n = 0, cap = 0;
	GElf_Phdr ph;

	if (!elf)
		return;
	if (!elf_getphdrnum(elf, &n))
		for (size_t i = 0; i < n; i++)
			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X) &&
			    !ow_grow(&f->segs, &cap, f->nsegs, sizeof(*f->segs)))
				f->segs[f->nsegs++] = (struct seg){
					ph.p_offset, ph.p_vaddr, ph.p_filesz };
	elf_end(elf);
}

/* A table built with rows whose rule we do not follow: counted, and kept
 * among the worst files when it is one (by name, once). */
static void note_unfollowed(struct cfi_stats *st, const char *name, size_t rows)
{
	struct cfi_worst *w = st->worst;
	size_t i, at;

	for (i = 0; i < CFI_WORST && w[i].rows; i++)
		if (!strcmp(w[i].name, name))
			return;
	st->unfollowed += rows;
	st->unfollowed_files++;
	for (at = 0; at < CFI_WORST && w[at].rows >= rows; at++)
		;
	if (at == CFI_WORST)
		return;
	memmove(&w[at + 1], &w[at], (CFI_WORST - 1 - at) * sizeof(*w));
	snprintf(w[at].name, sizeof(w[at].name), "%s", name);
	w[at].rows = rows;
}

/* Build and load the table of the file mapped at m in tgid (between()
 * as for cfi_work(): also while a large table is built). */
static void load_file(struct cfi *c, struct cfi_file *f, uint32_t tgid,
		      const struct pmap *m, void (*between)(void *), void *ctx)
{
	struct uw_table t = { 0 };
	char err[256];
	const char *base;
	double t0 = ow_now_ms(), ms;
	int fd = procmaps_open(tgid, m);
	enum uw_cache_got got;

	if (fd < 0) {
		c->st.unreadable++;
		return;
	}
	read_segs(f, fd);
	base = strrchr(m->path, '/');
	base = base ? base + 1 : m->path;
	got = uw_cache_get(c->cache_fd, fd, &t);
	if (got != UW_CACHE_HIT && got != UW_CACHE_MISS)
		c->st.cache_bad[got]++;	/* refused: built again */
	if (got == UW_CACHE_HIT) {	/* built before */
		c->st.cached++;
		c->st.cache_ms += ow_now_ms() - t0;
	} else if (uw_table_build(fd, m->path, &t, err, sizeof(err), between,
				  ctx)) {
		if (errno == ENOENT)
			c->st.no_cfi++;
		else
			c->st.unreadable++;
		close(fd);
		return;
	} else {
		ms = ow_now_ms() - t0 - t.between_ms;
		c->st.built++;
		c->st.build_ms += ms;
		if (ms > c->st.build_max_ms) {
			c->st.build_max_ms = ms;
			snprintf(c->st.slowest, sizeof(c->st.slowest), "%s",
				 base);
		}
		if (uw_cache_put(c->cache_fd, fd, &t))
			c->st.cache_put++;
	}
	close(fd);
	if (t.nexpr + t.nother)
		note_unfollowed(&c->st, base, t.nexpr + t.nother);
	if (t.nrows > UINT32_MAX || rows_alloc(c, t.nrows, &f->first)) {
		c->st.no_room++;
		uw_table_free(&t);
		return;
	}
	memcpy(c->rows + f->first, t.rows, t.nrows * sizeof(*t.rows));
	f->nrows = t.nrows;
	f->base = t.base;
	c->st.tables++;
	c->st.rows += t.nrows;
	uw_table_free(&t);
}

static struct cfi_file *get_file(struct cfi *c, uint32_t tgid,
				 const struct pmap *m, void (*between)(void *),
				 void *ctx)
{
	struct cfi_file *f = htab_get(&c->files, m->dev, m->ino);

	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = m->dev;
	f->ino = m->ino;
	if (htab_put(&c->files, m->dev, m->ino, f)) {
		free(f);
		return NULL;
	}
	load_file(c, f, tgid, m, between, ctx);
	return f;
}

static void drop_file(struct cfi *c, struct cfi_file *f)
{
	if (f->nrows) {
		rows_release(c, f->first, f->nrows);
		c->st.tables--;
		c->st.rows -= f->nrows;
	}
	htab_del(&c->files, f->dev, f->ino);
	free(f->segs);
	free(f);
}

/* ---- processes --------------------------------------------------------- */

static void put_files(struct cfi_proc *p)
{
	for (size_t i = 0; i < p->nfiles; i++)
		p->files[i]->refs--;
	free(p->files);
	p->files = NULL;
	p->nfiles = 0;
}

static struct cfi_proc *get_proc(struct cfi *c, uint32_t tgid)
{
	struct cfi_proc *p = htab_get(&c->procs, tgid, 0);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	if (htab_put(&c->procs, tgid, 0, p)) {
		free(p);
		return NULL;
	}
	c->st.procs++;
	return p;
}

static void drop_proc(struct cfi *c, struct cfi_proc *p)
{
	bpf_map_delete_elem(c->umaps_fd, &p->tgid);
	set_gen(c, p->tgid, 0);
	put_files(p);
	htab_del(&c->procs, p->tgid, 0);
	c->st.procs--;
	free(p);
}

/* Whether m is a file mapping with code a table can cover. */
static bool file_backed(const struct pmap *m)
{
	return m->path[0] == '/' && m->ino;
}

static void free_copy(struct pmap *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

static struct pmap *copy_maps(const struct pmap *maps, size_t n)
{
	struct pmap *copy = calloc(n, sizeof(*copy));

	for (size_t i = 0; copy && i < n; i++) {
		copy[i] = maps[i];
		if (!(copy[i].path = strdup(maps[i].path))) {
			free_copy(copy, i);
			return NULL;
		}
	}
	return copy;
}

/* An executable file mapping (with its table, or without: nrows 0), and
 * its file's path. */
struct umap_of {
	const char *path;
	struct ow_umap m;
};

/*
 * The n file mappings (sorted by address) that go into um: all
 * when they fit; else the executable's (the lowest) and the highest
 * OW_UMAPS - 1: mmap() places libraries downwards, so those are ld.so,
 * libc and what the program was linked with, and the libraries left out
 * are those loaded last (dlopen).  The first left out is named in the
 * summary.
 */
static void pick_umaps(struct cfi *c, const struct umap_of *all, size_t n,
		       struct ow_umaps *um)
{
	size_t skip = n > OW_UMAPS ? n - OW_UMAPS : 0;

	memset(um, 0, sizeof(*um));
	if (skip && !c->st.over_maps)
		snprintf(c->st.over_file, sizeof(c->st.over_file), "%s",
			 all[1].path);
	if (skip > c->st.over_maps)
		c->st.over_maps = skip;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || i > skip)
			um->m[um->n++] = all[i].m;
}

/*
 * Whether m is a file the first tables of a new process must have: its
 * program (exe, from /proc/TGID/exe), the C library or the dynamic
 * loader, where nearly every stack's frames are (update()'s quick pass).
 */
static bool first_needed(const struct pmap *m, const char *exe)
{
	const char *base = strrchr(m->path, '/');

	base = base ? base + 1 : m->path;
	return !strcmp(m->path, exe) || !strncmp(base, "libc.so", 7) ||
	       !strncmp(base, "libc-", 5) || !strncmp(base, "ld-linux", 8);
}

/*
 * Write p's umaps entry from its maps, each file's table built first
 * unless built before.  quick: only the files built before and those
 * first_needed(), where nearly every stack's frames are (perf and its
 * 50-odd libraries: 170 ms of table building, 0.12 s of CPU, where its
 * program and libc take 20 ms); the entry is then partial, and the
 * others are built only when a walk misses them (cfi_want_all(): its
 * stack is deferred meanwhile, and walked once they are in).  A quick
 * pass that would leave nothing out, or put nothing in, is a full one.
 * The maps of the entry written last are not read again, except for a
 * full pass over a partial entry.  Returns the files left out.
 */
static size_t update(struct cfi *c, struct cfi_proc *p, bool quick,
		     void (*between)(void *), void *ctx)
{
	static struct ow_umaps um;
	const struct pmap *maps;
	struct pmap *copy;
	struct cfi_file **files;
	size_t n, nfiles, cap, nall, allcap, left;
	struct umap_of *all;
	uint64_t version = 0;
	char exe[PATH_MAX] = "", link[64];
	ssize_t len;

again:
	files = NULL;
	all = NULL;
	nfiles = cap = nall = allcap = left = 0;
	maps = procmaps_current(c->pm, p->tgid, &n, &version);
	if (!maps) {
		procmaps_learn(c->pm, p->tgid);
		maps = procmaps_current(c->pm, p->tgid, &n, &version);
	}
	if (!maps || (version == p->version && (quick || !p->partial)))
		return 0;
	/* our own copy: between() may have procmaps learn these maps anew */
	maps = copy = copy_maps(maps, n);
	if (!copy)
		return 0;
	if (quick) {
		snprintf(link, sizeof(link), "/proc/%" PRIu32 "/exe", p->tgid);
		len = readlink(link, exe, sizeof(exe) - 1);
		exe[len > 0 ? len : 0] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pmap *m = &maps[i];
		struct cfi_file *f;
		bool built;

		if (!file_backed(m))
			continue;
		built = !htab_get(&c->files, m->dev, m->ino);
		if (quick && built && !first_needed(m, exe)) {
			left++;
			continue;
		}
		f = get_file(c, p->tgid, m, between, ctx);
		if (built && between)
			between(ctx);
		if (!f || ow_grow(&files, &cap, nfiles, sizeof(*files)))
			continue;
		files[nfiles++] = f;
		f->refs++;
		f->idle = 0;
		if (!f->nrows) {	/* known, without a table */
			if (!ow_grow(&all, &allcap, nall, sizeof(*all)))
				all[nall++] = (struct umap_of){ m->path, {
					.start = m->start, .end = m->end } };
			continue;
		}
		for (size_t k = 0; k < f->nsegs; k++) {
			const struct seg *s = &f->segs[k];

			if (!procmaps_holds_segment(m, s->off, s->filesz) ||
			    ow_grow(&all, &allcap, nall, sizeof(*all)))
				continue;
			all[nall++] = (struct umap_of){ m->path, {
				.start = m->start, .end = m->end,
				.adj = m->start - m->off + s->off - s->vaddr +
				       f->base,
				.first = f->first, .nrows = f->nrows,
			} };
			break;
		}
	}
	if (quick && left && !nall) {	/* nothing of use: all of it */
		for (size_t i = 0; i < nfiles; i++)
			files[i]->refs--;
		free(all);
		free(files);
		free_copy(copy, n);
		quick = false;
		goto again;
	}
	pick_umaps(c, all, nall, &um);
	free(all);
	free_copy(copy, n);
	put_files(p);
	p->files = files;
	p->nfiles = nfiles;
	p->version = version;
	p->partial = left > 0;
	um.gen = ++c->gen;	/* rows the walkers cached are stale */
	if (um.n && !p->counted) {
		p->counted = true;
		c->st.procs_loaded++;
	}
	/* (even with none: the walker then knows the tables are in) */
	if (!bpf_map_update_elem(c->umaps_fd, &p->tgid, &um, BPF_ANY))
		set_gen(c, p->tgid, um.gen);
	return left;
}

void cfi_queue(struct cfi *c, uint32_t tgid)
{
	struct cfi_proc *p = get_proc(c, tgid);

	if (!p || p->queued ||
	    ow_grow(&c->queue, &c->queuecap, c->nqueue, sizeof(*c->queue)))
		return;
	c->queue[c->nqueue++] = tgid;
	p->queued = ow_now_ms();
	p->version = 0;		/* read again, even if the same maps */
}

bool cfi_want_all(struct cfi *c, uint32_t tgid)
{
	struct cfi_proc *p = htab_get(&c->procs, tgid, 0);

	if (!p || !p->partial)
		return false;
	p->want_all = true;
	cfi_queue(c, tgid);
	return true;
}

void cfi_forget(struct cfi *c, uint32_t tgid)
{
	struct cfi_proc *p = htab_get(&c->procs, tgid, 0);

	if (p && p == c->busy)
		p->forgotten = true;	/* dropped when update() is done */
	else if (p)
		drop_proc(c, p);	/* a queue entry of it is skipped */
}

void cfi_refresh(struct cfi *c, uint32_t tgid, uint64_t ns)
{
	struct cfi_proc *p = get_proc(c, tgid);
	uint64_t version = 0;
	struct timespec ts;
	size_t n;

	if (!p || p->learned_ns > ns)	/* read since: they hold it */
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	p->learned_ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	procmaps_learn(c->pm, tgid);
	if (!procmaps_current(c->pm, tgid, &n, &version) || version != p->version)
		cfi_queue(c, tgid);
}

bool cfi_pending(const struct cfi *c, uint32_t tgid)
{
	const struct cfi_proc *p = htab_get(&c->procs, tgid, 0);

	return p && p->queued;
}

void cfi_fork(struct cfi *c, uint32_t child, uint32_t parent)
{
	static struct ow_umaps um;
	struct cfi_proc *pp = htab_get(&c->procs, parent, 0), *p;

	if (!pp || !pp->version || !(p = get_proc(c, child)))
		return;
	if (bpf_map_lookup_elem(c->umaps_fd, &parent, &um) ||
	    bpf_map_update_elem(c->umaps_fd, &child, &um, BPF_ANY))
		return;
	set_gen(c, child, um.gen);
	put_files(p);
	p->files = malloc(pp->nfiles * sizeof(*p->files));
	if (!p->files)
		return;
	for (size_t i = 0; i < pp->nfiles; i++) {
		p->files[i] = pp->files[i];
		p->files[i]->refs++;
	}
	p->nfiles = pp->nfiles;
	p->version = pp->version;
	p->partial = pp->partial;
	if (!p->counted) {
		p->counted = true;
		c->st.procs_loaded++;
	}
}

/* Build the queued process p's tables now (its queue slot is then
 * skipped): a quick pass, or a full one when a walk asked for it (or the
 * capture: cfi_want_all()); 1, or 0 when it was not queued. */
static size_t build(struct cfi *c, struct cfi_proc *p,
		    void (*between)(void *), void *ctx)
{
	bool quick;
	double lag;

	if (!p || !p->queued)	/* gone (cfi_sweep()), a stale entry of a
				 * reused tgid, or built out of turn */
		return 0;
	/* not queued while built: between() may queue it again (maps
	 * changed meanwhile, cfi_refresh()) */
	lag = p->queued;
	p->queued = 0;
	quick = !p->want_all;
	c->st.wanted += p->want_all && p->partial;
	p->want_all = false;
	c->busy = p;	/* between() may forget it meanwhile */
	if (update(c, p, quick, between, ctx))
		c->st.quick++;
	c->busy = NULL;
	if (p->forgotten) {
		drop_proc(c, p);
		return 0;
	}
	lag = ow_now_ms() - lag;
	c->st.lag_sum_ms += lag;
	c->st.lags++;
	if (lag > c->st.lag_max_ms)
		c->st.lag_max_ms = lag;
	return 1;
}

size_t cfi_work(struct cfi *c, double budget_ms, void (*between)(void *),
		void *ctx)
{
	double until = ow_now_ms() + budget_ms;
	size_t done = 0;

	/* one at a time: update() may call between(), which may queue */
	while (c->nqueue && ow_now_ms() < until) {
		uint32_t tgid = c->queue[--c->nqueue];

		done += build(c, htab_get(&c->procs, tgid, 0), between, ctx);
	}
	return done;
}

void cfi_build(struct cfi *c, uint32_t tgid, void (*between)(void *),
	       void *ctx)
{
	build(c, htab_get(&c->procs, tgid, 0), between, ctx);
}

void cfi_sweep(struct cfi *c, unsigned idle)
{
	size_t seen = 0, i;

	/* queued ones too (cfi_work() skips a tgid no longer here): the
	 * queue is newest first, and under a fork storm it may never reach
	 * a process that is gone, which kept the files it mapped, and their
	 * rows, for the rest of the capture */
	for (i = 0; i < c->procs.size; i++) {
		struct cfi_proc *p = c->procs.tab[i].val;

		if (!p)
			continue;
		if (kill(p->tgid, 0) && errno == ESRCH) {
			drop_proc(c, p);
			i--;		/* htab_del moved a later entry here */
			continue;
		}
	}
	/* a few live ones again, round robin: libraries loaded later */
	for (i = 0; i < c->procs.size && seen < RELEARN_PER_SWEEP; i++) {
		size_t k = (c->relearn + i) % c->procs.size;
		struct cfi_proc *p = c->procs.tab[k].val;

		if (!p || p->queued)
			continue;
		seen++;
		if (!procmaps_learn(c->pm, p->tgid))
			update(c, p, p->partial, NULL, NULL);
	}
	if (c->procs.size)
		c->relearn = (c->relearn + i) % c->procs.size;
	for (i = 0; i < c->files.size; i++) {
		struct cfi_file *f = c->files.tab[i].val;

		if (f && !f->refs && ++f->idle > idle) {
			drop_file(c, f);
			i--;
		}
	}
}

void cfi_get_stats(const struct cfi *c, struct cfi_stats *st)
{
	const size_t slot = sizeof(struct htab_slot);

	*st = c->st;
	st->files = c->files.used;
	st->queued = c->nqueue;
	st->bytes = (c->files.size + c->procs.size) * slot +
		    c->files.used * sizeof(struct cfi_file) +
		    c->procs.used * sizeof(struct cfi_proc) +
		    c->queuecap * sizeof(*c->queue) +
		    c->freecap * sizeof(*c->free);
	for (size_t i = 0; i < c->procs.size; i++) {
		const struct cfi_proc *p = c->procs.tab[i].val;

		if (p)
			st->bytes += p->nfiles * sizeof(*p->files);
	}
}

void cfi_free(struct cfi *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->procs.size; i++) {
		struct cfi_proc *p = c->procs.tab[i].val;

		if (p) {
			free(p->files);
			free(p);
		}
	}
	for (size_t i = 0; i < c->files.size; i++) {
		struct cfi_file *f = c->files.tab[i].val;

		if (f) {
			free(f->segs);
			free(f);
		}
	}
	htab_free(&c->procs);
	htab_free(&c->files);
	free(c->free);
	free(c->queue);
	free(c);
}
