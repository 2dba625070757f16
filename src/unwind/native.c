// SPDX-License-Identifier: Apache-2.0
/*
 * native.c - the native unwinder's row (unwinder.h): the unwind tables
 * of the traced processes built (native_tables.c) and uploaded
 * (native_maps.c) as they are seen, the stacks deferred for want of them
 * walked once they are in (native_defer.c), and its summary lines.  Off
 * (no state) when the kernel side walks by frame pointers only
 * (--unwind=fp, the raw_tp programs).
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "unwinder.h"
#include "native_defer.h"
#include "native_maps.h"
#include "table_cache.h"
#include "common/util.h"

#define CFI_BUDGET_MS	200		/* building unwind tables, per loop */
#define DEFER_MAX_MB	64		/* deferred stacks' copies waiting */
#define DEFER_END_MS	2000		/* at the end: tables for them */

/* Seconds of CLOCK_MONOTONIC, as the capture's times. */
static double now_s(void)
{
	return ow_now_ms() / 1e3;
}

struct native {
	const struct ow_uw_host *h;
	struct cfi *cfi;		/* unwind tables */
	void *rows;			/* the rows map, mapped */
	size_t rows_len;
	struct uw_defer *defer;		/* deferred user stacks */
	double defer_until;		/* tables built for them until then */
	struct cfi_stats st;
	struct uw_defer_stats defer_st;
	uint64_t df[OW_DF_NR];		/* the kernel side's deferrals */
};

static void native_free(void *state)
{
	struct native *s = state;

	if (!s)
		return;
	uw_defer_free(s->defer);
	cfi_free(s->cfi);
	if (s->rows)
		munmap(s->rows, s->rows_len);
	free(s);
}

/*
 * The unwind tables' maps (--unwind=auto|cfi): the rows map is mapped
 * into our memory; the processes named by -p/-t get their tables before
 * tracing starts, every other one when first seen.
 */
static int native_start(const struct ow_uw_host *h, void **state)
{
	volatile const __u32 *mode = ow_uw_global(h, "unwind_mode");
	int rows_fd, umaps_fd = ow_uw_map_fd(h, "umaps", NULL);
	struct native *s;
	uint32_t cap;

	*state = NULL;
	if (!mode || *mode == 0)	/* UNWIND_FP */
		return 0;
	if (!(s = calloc(1, sizeof(*s)))) {
		ow_err("starting the unwinder: %s", strerror(ENOMEM));
		return -1;
	}
	s->h = h;
	rows_fd = ow_uw_map_fd(h, "rows", &cap);
	s->rows_len = (size_t)cap * sizeof(struct ow_urow);
	s->rows = mmap(NULL, s->rows_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       rows_fd, 0);
	if (s->rows == MAP_FAILED) {
		s->rows = NULL;
		ow_err("mapping the unwind table map: %s", strerror(errno));
		native_free(s);
		return -1;
	}
	s->cfi = cfi_new(h->pm, rows_fd, s->rows, cap, umaps_fd);
	if (s->cfi) {
		cfi_set_gen_map(s->cfi, ow_uw_map_fd(h, "umaps_gen", NULL));
		cfi_set_cache(s->cfi, uw_cache_dir(), uw_cache_fd());
	}
	s->defer = uw_defer_new(umaps_fd, s->rows, cap, h->cfi_only,
				(size_t)DEFER_MAX_MB << 20);
	if (!s->cfi || !s->defer) {
		ow_err("starting the unwinder: %s", strerror(ENOMEM));
		native_free(s);
		return -1;
	}
	*state = s;
	for (size_t i = 0; i < h->ntgids; i++)
		if (h->tgids[i])
			cfi_queue(s->cfi, h->tgids[i]);
	/* all: tracing waits for them, each one's whole set (a quick pass
	 * first, then the rest); a signal stops it (between two
	 * processes: one process's tables are built whole) */
	while (!*h->stop && cfi_work(s->cfi, CFI_BUDGET_MS, NULL, NULL))
		;
	for (size_t i = 0; i < h->ntgids; i++)
		cfi_want_all(s->cfi, h->tgids[i]);
	while (!*h->stop && cfi_work(s->cfi, CFI_BUDGET_MS, NULL, NULL))
		;
	return 0;
}

static void native_event(void *state, const struct ow_uw_event *ev)
{
	struct native *s = state;
	uint32_t tgid = ev->e->tgid;

	switch (ev->e->type) {
	case OW_EV_SEEN:
		cfi_queue(s->cfi, tgid);
		break;
	case OW_EV_EXEC:
		if (ev->traced)
			cfi_queue(s->cfi, tgid);
		else	/* a waker once: asks again if still one */
			cfi_forget(s->cfi, tgid);
		break;
	case OW_EV_FORK:
		if (ev->traced)
			cfi_fork(s->cfi, tgid, ev->e->ptgid);
		break;
	case OW_EV_TABLES:	/* at most once a second per process */
		procmaps_learn(s->h->pm, tgid);
		if (!cfi_want_all(s->cfi, tgid))
			cfi_queue(s->cfi, tgid);
		break;
	}
}

/* A deferred stack (a copy of its top): kept until its process's tables
 * are in, which are looked at again (a library mapped since?). */
static int native_record(void *state, const void *data, size_t len)
{
	struct native *s = state;
	const struct ow_ucopy *u = data;

	if (len < sizeof(u->type) || u->type != OW_EV_UCOPY)
		return 1;
	if (uw_defer_add(s->defer, data, len) < 0)
		return errno == ENOMEM ? -1 : 0;
	cfi_refresh(s->cfi, u->tgid, u->ns);
	return 0;
}

/* Whether tgid's tables are in, built now (first: a stack waits for
 * them) until s->defer_until; missed: a walk met a pc they leave out,
 * all of them wanted (when they are a quick pass's). */
static bool build_tables(void *ctx, uint32_t tgid, bool missed)
{
	struct native *s = ctx;

	if (missed)
		cfi_want_all(s->cfi, tgid);
	if (cfi_pending(s->cfi, tgid) && now_s() < s->defer_until)
		cfi_build(s->cfi, tgid, s->h->keep_up, s->h->ctx);
	return !cfi_pending(s->cfi, tgid);
}

/* A deferred stack walked: stored as if the kernel side had sent it. */
static void got_walked(void *ctx, const struct ow_stack *st, size_t len)
{
	const struct native *s = ctx;

	s->h->got_stack(s->h->ctx, st, len);
}

/* Walk the deferred stacks whose tables are in, theirs built first for
 * up to ms (final: then every one, with what tables there are). */
static void walk_deferred(struct native *s, double ms, bool final)
{
	s->defer_until = now_s() + ms / 1e3;
	uw_defer_walk(s->defer, build_tables, got_walked, s);
	if (final)
		uw_defer_walk(s->defer, NULL, got_walked, s);
}

static void native_tables(void *state, double end)
{
	struct native *s = state;
	double ms = end ? fmin(CFI_BUDGET_MS, (end - now_s()) * 1e3) :
		    CFI_BUDGET_MS;	/* not past the end of the capture */

	walk_deferred(s, ms, false);	/* stacks wait for these: first */
	cfi_work(s->cfi, ms, s->h->keep_up, s->h->ctx);
	walk_deferred(s, 0, false);
}

static void native_sweep(void *state, unsigned max_idle)
{
	struct native *s = state;

	cfi_sweep(s->cfi, max_idle);
}

static void native_finish(void *state)
{
	struct native *s = state;

	walk_deferred(s, DEFER_END_MS, true);
	ow_uw_percpu(s->h, "defer_stats", s->df, OW_DF_NR);
	uw_defer_get_stats(s->defer, &s->defer_st);
	cfi_get_stats(s->cfi, &s->st);
}

static void native_status(void *state, char *buf, size_t len)
{
	struct native *s = state;

	cfi_get_stats(s->cfi, &s->st);
	snprintf(buf, len, ", tables %.1f MB",
		 s->st.rows * sizeof(struct ow_urow) / 1048576.0);
}

static void native_memstats(void *state, FILE *f)
{
	const struct native *s = state;
	struct cfi_stats cs = { 0 };

	if (s)
		cfi_get_stats(s->cfi, &cs);
	fprintf(f, " cfi_procs=%zu cfi_files=%zu cfi_queue=%zu cfi_kb=%zu",
		cs.procs, cs.files, cs.queued, cs.bytes >> 10);
}

/*
 * The files whose tables have rows we cannot follow (CFA expressions,
 * other registers), most first: said only when walks met such rows (most
 * processes map a libc with a few, in code that seldom blocks).
 */
static void report_unfollowed(const struct native *s, const uint64_t (*uw)[OW_UW_NR])
{
	const struct cfi_stats *st = &s->st;
	char files[256] = "";
	size_t len = 0;

	uint64_t met = uw[OW_UW_BLOCKED][OW_UW_UNFOLLOWED] +
		       uw[OW_UW_WAKER][OW_UW_UNFOLLOWED];

	if (!met || !st->unfollowed)
		return;
	for (int i = 0; i < CFI_WORST && st->worst[i].rows && len < sizeof(files); i++)
		len += snprintf(files + len, sizeof(files) - len, "%s%s %zu",
				i ? ", " : "", st->worst[i].name, st->worst[i].rows);
	fprintf(stderr, OW_PROG ": note: %llu walks met CFI rules we do not follow (one frame taken by rbp where the frame saved it beside the return address, else the walk stopped there); rows we cannot follow: %s%s (%zu in all)\n",
		(unsigned long long)met, files,
		st->unfollowed_files > CFI_WORST ? ", ..." : "", st->unfollowed);
}

/* What became of the stacks deferred for want of tables (unwind_copy.h). */
static void report_deferred(const struct native *s)
{
	const struct uw_defer_stats *d = &s->defer_st;

	if (!s->df[OW_DF_SENT] && !s->df[OW_DF_NO_ROOM] && !s->df[OW_DF_LIMIT])
		return;
	fprintf(stderr, OW_PROG ": deferred user stacks (their tables not in place yet): %llu, walked once they were: %llu reached the outermost frame, %llu cut by the %d KiB copy, %llu ended otherwise, %llu walked before their tables (at the end, or %d MB waiting); %llu waits for a process's other libraries; up to %.1f MB of copies waited\n",
		(unsigned long long)s->df[OW_DF_SENT],
		(unsigned long long)d->whole, (unsigned long long)d->cut,
		OW_UCOPY_MAX / 1024, (unsigned long long)d->other,
		(unsigned long long)d->early, DEFER_MAX_MB,
		(unsigned long long)d->waited, d->bytes_max / 1048576.0);
	if (s->df[OW_DF_NO_ROOM] || s->df[OW_DF_LIMIT])
		fprintf(stderr, OW_PROG ": warning: %llu user stacks walked by frame pointers while their tables were late: %llu found the ring buffer full (raise --ring-buffer-size), %llu past %d deferrals of one process per version of its tables\n",
			(unsigned long long)(s->df[OW_DF_NO_ROOM] + s->df[OW_DF_LIMIT]),
			(unsigned long long)s->df[OW_DF_NO_ROOM],
			(unsigned long long)s->df[OW_DF_LIMIT], OW_DEFER_PER_GEN);
}

/* Walks of one side's user stacks (uw: uw[side]), counted by how they
 * were walked and how they ended; nothing when none was walked. */
static void report_walks(const char *side, const uint64_t *uw)
{
	static const char *const why[OW_UW_NR] = {
		[OW_UW_STOP_NOTABLE] = "no table and no frame pointer",
		[OW_UW_STOP_READ] = "stack not readable",
		[OW_UW_STOP_RULE] = "a rule not followed",
		[OW_UW_STOP_DEPTH] = "depth limit",
		[OW_UW_STOP_BAD] = "the stack pointer did not move up",
	};
	uint64_t walks = uw[OW_UW_CFI] + uw[OW_UW_MIXED] + uw[OW_UW_FP];
	char stops[512], entries[64] = "", nomm[96] = "";
	size_t len;

	if (!walks)
		return;
	len = ow_counts_list(stops, sizeof(stops), uw, why, OW_UW_STOP_NOTABLE,
			     OW_UW_NR);
	if (uw[OW_UW_NO_MM])
		snprintf(nomm, sizeof(nomm), "; %llu not walked (the task was exiting: no user memory left)",
			 (unsigned long long)uw[OW_UW_NO_MM]);
	if (uw[OW_UW_END_ENTRY])
		snprintf(entries, sizeof(entries), " (%llu at a context's entry)",
			 (unsigned long long)uw[OW_UW_END_ENTRY]);
	fprintf(stderr, OW_PROG ": user stacks of %s: %llu by unwind tables, %llu by tables and frame pointers, %llu by frame pointers only; %llu walks reached the outermost frame%s%s%s%s\n",
		side, (unsigned long long)uw[OW_UW_CFI],
		(unsigned long long)uw[OW_UW_MIXED],
		(unsigned long long)uw[OW_UW_FP],
		(unsigned long long)uw[OW_UW_END], entries,
		len ? "; stopped early: " : "", stops, nomm);
}

static void native_summary(void *state, const struct ow_uw_host *h)
{
	const struct native *s = state;
	const uint64_t (*uw)[OW_UW_NR] = h->walks;
	const struct cfi_stats *st = &s->st;
	uint64_t walks = 0;

	for (int i = 0; i < OW_UW_SIDES; i++)
		walks += uw[i][OW_UW_CFI] + uw[i][OW_UW_MIXED] +
			 uw[i][OW_UW_FP];
	if (!walks)
		return;
	report_walks("blocked threads", uw[OW_UW_BLOCKED]);
	report_walks("wakers", uw[OW_UW_WAKER]);
	char cached[PATH_MAX + 512] = "", why[256], bad[320] = "";
	uint64_t nbad = 0;

	for (int i = 0; i < UW_CACHE_GOT_N; i++)
		nbad += st->cache_bad[i];
	if (nbad) {
		ow_counts_list(why, sizeof(why), st->cache_bad, uw_cache_got_name,
			       UW_CACHE_NOT_REG, UW_CACHE_GOT_N);
		snprintf(bad, sizeof(bad), ", %llu refused there (%s: built again)",
			 (unsigned long long)nbad, why);
	}
	if (st->cache_dir)
		snprintf(cached, sizeof(cached), ", %zu read back from %s in %.0f ms (%zu kept there)%s",
			 st->cached, st->cache_dir, st->cache_ms, st->cache_put, bad);
	else
		snprintf(cached, sizeof(cached), " (no cache: %s)",
			 uw_cache_why());
	fprintf(stderr, OW_PROG ": unwind tables: %zu files (%zu process%s), %.1f MB of %.0f MB (--unwind-memory), %zu built in %.0f ms (slowest %s, %.0f ms)%s; tables in place %.0f ms after a process was seen (mean; at most %.0f ms); %zu quick passes (a process's program, libc and ld.so only), %zu processes given the rest when a walk met it\n",
		st->tables, st->procs_loaded, st->procs_loaded == 1 ? "" : "es",
		st->rows * sizeof(struct ow_urow) / 1048576.0,
		st->rows_cap * sizeof(struct ow_urow) / 1048576.0, st->built,
		st->build_ms, st->slowest[0] ? st->slowest : "-",
		st->build_max_ms, cached,
		st->lags ? st->lag_sum_ms / st->lags : 0.0, st->lag_max_ms,
		st->quick, st->wanted);
	report_unfollowed(s, uw);
	report_deferred(s);
	if (st->no_cfi || st->unreadable)
		fprintf(stderr, OW_PROG ": note: %zu files without unwind tables and %zu unreadable: their frames were walked by frame pointers\n",
			st->no_cfi, st->unreadable);
	if (st->no_room)
		fprintf(stderr, OW_PROG ": warning: %zu tables did not fit --unwind-memory=%.0f: their frames were walked by frame pointers; raise it\n",
			st->no_room, st->rows_cap * sizeof(struct ow_urow) / 1048576.0);
	if (st->over_maps)
		fprintf(stderr, OW_PROG ": warning: %zu mappings beyond %d in a process had no table (the first: %s): their frames were walked by frame pointers\n",
			st->over_maps, OW_UMAPS, st->over_file);
}

const struct ow_unwinder ow_unwinder_native = {
	.name = "native",
	.start = native_start,
	.event = native_event,
	.record = native_record,
	.tables = native_tables,
	.sweep = native_sweep,
	.finish = native_finish,
	.status = native_status,
	.memstats = native_memstats,
	.summary = native_summary,
	.free = native_free,
};
