// SPDX-License-Identifier: Apache-2.0
/*
 * drain.c - what the kernel side sends and keeps, taken in: the ring
 * buffer's records (stacks, deferred stacks' copies, process events),
 * the backlogs a full ring buffer leaves, and the counts maps' keys,
 * symbolised and summed; --timeline's long blocks (their own ring
 * buffer) given the entry of their key's sum once it is in (timeline.h).
 *
 * Draining: the programs add to one of two counts maps, chosen by the
 * "active" index in .bss.  Every DRAIN_MS, user space empties the map that
 * stopped being active one period ago (programs that read the old index
 * finished long since), sums it into a user-space hash table, then makes
 * it the active one.  So the kernel maps only hold one period's distinct
 * keys, and a capture can run for as long as wanted.  The first period,
 * and each after one that filled an eighth of a map, is DRAIN_FAST_MS.
 * At the end the programs are detached and both maps are drained.
 *
 * Stacks arrive through the ring buffer the first time the kernel side
 * sees them and are kept (stackstore.c), so a key drained at any time
 * finds its stacks.  The ring buffer is read before each drain, and a
 * stack is sent before any key can refer to it; a key whose stack is
 * still missing (a record another CPU was still writing) waits in
 * "pending" and is retried at the next drain and at the end.  Each
 * drained key gets its stacks symbolised (fold.c, cached per distinct
 * stack) before it is summed, so the output needs no lookups; for the
 * SVG, which shows no pids, keys are summed by what they show (the comms
 * and the symbolised stacks), so the sums grow with the distinct lines,
 * not with every process of a fork storm (-f and --text print one line
 * or entry per key, as offwaketime does: their size is the output's).
 * Symbolising can take a while (a burst of new stacks, ELF files to
 * read), so the ring buffer is read every KEEP_UP keys meanwhile.
 *
 * A map is emptied a batch at a time through the capture's own buffers
 * (batch_keys, batch_vals), its entries handed on with a drain_pass: the
 * capture and the period being drained.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "drain.h"
#include "engine.h"
#include "offwake.skel.h"
#include "signals.h"
#include "unwind/unwinder.h"
#include "common/settings.h"
#include "common/util.h"

#define DRAIN_MS	500
#define KEEP_UP		256
/*
 * OFFWAKE_SLOW_READER=F (a test setting, F >= 2): while tracing, the
 * reader sleeps F - 1 times as long as it worked on each record and key,
 * so that it is F times slower than it is here (a slower machine, a niced
 * profiler, a sanitised build) and tests can show that a reader behind
 * loses nothing.  (Once tracing ends nothing more can be lost: what is
 * left is read at full speed, so that tests end soon.)
 */
#define BATCH		4096		/* a counts map's entries at a time */
#define BACKLOG_BATCH	256		/* a backlog's */

/* One emptying of maps (empty_map()): where the entries go, the period
 * being drained (got_slot()), and the batch buffers they come through. */
struct drain_pass {
	struct capture *c;
	__u32 idx;
	void *keys, *vals;
};

static double now_s(void)
{
	return ow_now_ms() / 1e3;
}

/*
 * OFFWAKE_SLOW_READER: sleep (factor - 1) times the work done since t0,
 * in slices of 2 ms or more (a sleep per record would cost more than the
 * record).  Not once the capture is ending (capsig_stop): wakeups still send
 * records after the programs are disarmed, and a reader kept slow would
 * never empty the ring buffer, so ring_buffer__poll() never returned to
 * the loop (t_capture's backlog64 case ran for over 20 minutes on a busy
 * machine).
 */
static void slow_down(struct capture *c, double t0)
{
	struct timespec ts;

	if (c->slow_factor <= 1 || capsig_stop)
		return;
	c->slow_debt += (now_s() - t0) * (c->slow_factor - 1);
	if (c->slow_debt < 0.002)
		return;
	ts.tv_sec = (time_t)c->slow_debt;
	ts.tv_nsec = (long)((c->slow_debt - (double)ts.tv_sec) * 1e9);
	c->slow_debt = 0;
	nanosleep(&ts, NULL);
}

static void handle_process_event(struct capture *c, const struct ow_event *e);


/* A record for an unwinder (a deferred stack: unwinder.h's record):
 * one that none takes, or one dropped for want of memory, is counted. */
static void got_copy(struct capture *c, const void *data, size_t len)
{
	for (size_t i = 0; i < ow_nunwinders; i++) {
		int r;

		if (!c->uws[i] || !ow_unwinders[i]->record ||
		    (r = ow_unwinders[i]->record(c->uws[i], data, len)) > 0)
			continue;
		c->drain_errors += r < 0;
		return;
	}
	c->drain_errors++;
}

/* A record of the ring buffer: a stack, a deferred stack, or a process
 * event. */
int drain_record(void *ctx, void *data, size_t len)
{
	struct capture *c = ctx;
	const struct ow_event *e = data;
	double t0 = c->slow_factor > 1 ? now_s() : 0;

	if (len >= sizeof(e->type) && e->type == OW_EV_STACK) {
		if (stacks_add(&c->stacks, data, len) < 0)
			c->drain_errors++;
	} else if (len >= sizeof(e->type) && e->type == OW_EV_UCOPY) {
		got_copy(c, data, len);
	} else if (len >= sizeof(*e)) {
		handle_process_event(c, e);
	}
	slow_down(c, t0);
	/* a reader behind a full ring buffer would stay in one poll: give
	 * the loop back its ticks (drains, the end, a signal); the other
	 * consumers (between table builds, the last one) empty it */
	if (c->poll_until && (capsig_stop || (!(++c->poll_records & 63) &&
				       now_s() >= c->poll_until)))
		return POLL_YIELD;
	return 0;
}

/*
 * Whether the threads of e's process are traced (its blocks shown): only
 * those, and the wakers whose stacks are shown (they ask, OW_EV_TABLES),
 * get unwind tables.  --cgroup: in it or below it, as the kernel side
 * tells at the exec or fork (OW_EV_OUTSIDE); a process that joins it
 * later is seen at its first block there (OW_EV_SEEN).  -p/-t: in the
 * threads map (--follow adds children there before their fork event).
 */
static bool traced(const struct capture *c, const struct ow_event *e)
{
	uint32_t tgid = e->tgid;
	uint8_t one;

	if (e->zero == OW_EV_OUTSIDE)
		return false;
	switch (c->cfg.threads) {
	case OW_THREADS_ALL:
	case OW_THREADS_USER:
		return true;
	case OW_THREADS_TGID:
	case OW_THREADS_TID:
		return !bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.threads),
					    &tgid, &one);
	default:
		return false;
	}
}

/* A process event: its maps read, then each unwinder told (an exec or
 * fork: whether its threads are traced). */
static void handle_process_event(struct capture *c, const struct ow_event *e)
{
	struct ow_uw_event ev = { e, false };

	switch (e->type) {
	case OW_EV_SEEN:
		procmaps_learn(c->pm, e->tgid);
		break;
	case OW_EV_EXEC:	/* libraries come later: read again then */
		procmaps_exec(c->pm, e->tgid);
		procmaps_learn(c->pm, e->tgid);
		procmaps_stale(c->pm, e->tgid);
		ev.traced = traced(c, e);
		break;
	case OW_EV_FORK:
		procmaps_fork(c->pm, e->tgid, e->ptgid);
		ev.traced = traced(c, e);
		break;
	}
	for (size_t i = 0; i < ow_nunwinders; i++)
		if (c->uws[i] && ow_unwinders[i]->event)
			ow_unwinders[i]->event(c->uws[i], &ev);
}

/* Sum each of the first nkeys entries of a per-CPU array over the CPUs. */
void drain_percpu(struct bpf_map *map, uint64_t *sums, __u32 nkeys)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v;

	if (ncpu <= 0 || !(v = calloc(ncpu, sizeof(*v))))
		return;
	for (__u32 k = 0; k < nkeys; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(map), &k, v))
			continue;
		sums[k] = 0;
		for (int i = 0; i < ncpu; i++)
			sums[k] += v[i];
	}
	free(v);
}

/*
 * Take every entry out of a hash map, n at a time into dp's keys and
 * vals (room for n of each), handing each to got(); how many there were, or
 * -1 (message printed).  Drains the counts maps and the backlogs.
 */
static long empty_map(struct drain_pass *dp, struct bpf_map *map, __u32 n,
		      void (*got)(struct drain_pass *, void *, void *))
{
	size_t ksize = bpf_map__key_size(map), vsize = bpf_map__value_size(map);
	int fd = bpf_map__fd(map), err;
	__u32 token, count;
	bool first = true;
	long total = 0;
	char *keys = dp->keys, *vals = dp->vals;

	do {
		count = n;
		err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &token,
						      &token, keys, vals,
						      &count, NULL);
		if (err && errno != ENOENT) {
			ow_err("draining %s: %s", bpf_map__name(map),
			       strerror(errno));
			return -1;
		}
		first = false;
		for (__u32 i = 0; i < count; i++)
			got(dp, keys + i * ksize, vals + i * vsize);
		total += count;
	} while (!err);
	return total;
}

/* A backlog map's entries, BACKLOG_BATCH at a time. */
static long empty_backlog(struct drain_pass *dp, struct bpf_map *map,
			  void (*got)(struct drain_pass *, void *, void *))
{
	return empty_map(dp, map, BACKLOG_BATCH, got);
}

static void got_stack(struct drain_pass *dp, void *key, void *val)
{
	const struct ow_stack *st = val;
	size_t nr = st->nr > OW_MAX_STACK_DEPTH ? OW_MAX_STACK_DEPTH : st->nr;

	drain_record(dp->c, val, sizeof(*st) - sizeof(st->ips) + nr * sizeof(__u64));
}

static void got_event(struct drain_pass *dp, void *key, void *val)
{
	drain_record(dp->c, key, sizeof(struct ow_event));
}

/*
 * What the kernel side kept in its backlogs while the ring buffer was
 * full (it counts each): fetched when it kept anything since the last
 * look.  Events first: a stack's process is then known.  0 or -1.
 */
static int fetch_backlog(struct capture *c)
{
	uint64_t l[OW_LOSS_NR] = { 0 }, kept;
	struct drain_pass dp = { c, 0, c->batch_keys, c->batch_vals };

	drain_percpu(c->skel->maps.losses, l, OW_LOSS_NR);
	kept = l[OW_LOSS_STACK_KEPT] + l[OW_LOSS_EVENTS_KEPT];
	if (kept == c->kept)
		return 0;
	c->kept = kept;
	ring_buffer__consume(c->rb);
	if (empty_backlog(&dp, c->skel->maps.event_backlog, got_event) < 0 ||
	    empty_backlog(&dp, c->skel->maps.stack_backlog, got_stack) < 0)
		return -1;
	return 0;
}

/* A stack given up (stackstore.c): the kernel side is to send it again. */
static void unsee(void *ctx, uint64_t ref)
{
	struct capture *c = ctx;
	int fd = bpf_map__fd(c->skel->maps.seen);
	__u32 slot = ref & c->skel->rodata->seen_mask;
	__u64 h;

	if (!bpf_map_lookup_elem(fd, &slot, &h) && h == ref) {
		h = 0;
		bpf_map_update_elem(fd, &slot, &h, BPF_ANY);
	}
}

/* A stack freed (stackstore.c): what fold cached under it goes too. */
static void freed(void *ctx, uint64_t ref)
{
	struct capture *c = ctx;

	fold_forget(&c->fo, ref);
}

/* Whether the kernel randomises address spaces (else keep every stack). */
static bool randomised(void)
{
	FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "re");
	int level = 2;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level != 0;
}

/*
 * What a symbolised entry is summed under: the key itself for --text (one
 * entry per key, as offwaketime prints them, pids and all), for -f and
 * the SVG what its line shows (comms as shown and symbolised stacks,
 * which are interned: equal ones are one pointer), so that the sums grow
 * with the distinct lines, not with the processes of a fork storm.
 */
static struct ow_key shown_key(const struct capture *c,
			       const struct agg_entry *e)
{
	struct ow_key k = { 0 };

	if (!c->merge)
		return e->key;
	memcpy(k.target, e->key.target, OW_COMM_LEN);
	memcpy(k.waker, e->key.waker, OW_COMM_LEN);
	fold_comm_key(k.target);	/* "a\x01" and "a\x02" both read "a?" */
	fold_comm_key(k.waker);
	if (c->group != OW_GROUP_COMM) {	/* --group: the names show pids */
		k.t_tgid = e->key.t_tgid;
		k.w_tgid = e->key.w_tgid;
	}
	if (c->group == OW_GROUP_THREAD) {
		k.t_pid = e->key.t_pid;
		k.w_pid = e->key.w_pid;
	}
	k.t_ustack = (uintptr_t)e->stk[KS_T_USER];
	k.t_kstack = (uintptr_t)e->stk[KS_T_KERNEL];
	k.w_kstack = (uintptr_t)e->stk[KS_W_KERNEL];
	k.w_ustack = (uintptr_t)e->stk[KS_W_USER];
	for (int i = 0; i < OW_CHAIN_MAX - 1 && e->key.up[i].comm[0]; i++) {
		memcpy(k.up[i].comm, e->key.up[i].comm, OW_COMM_LEN);
		fold_comm_key(k.up[i].comm);
		k.up[i].kstack = (uintptr_t)e->up[i][LS_KERNEL];
		k.up[i].ustack = (uintptr_t)e->up[i][LS_USER];
		if (c->group != OW_GROUP_COMM)	/* as the waker's */
			k.up[i].tgid = e->key.up[i].tgid;
		if (c->group == OW_GROUP_THREAD)
			k.up[i].pid = e->key.up[i].pid;
	}
	return k;
}

/* Symbolise key's stacks and sum ns into its entry, else into pending. */
static void take(struct capture *c, const struct ow_key *key, uint64_t ns,
		 bool final)
{
	struct agg_entry e = { .key = *key }, *m;
	double t0 = c->slow_factor > 1 ? now_s() : 0;
	struct ow_key k;

	if (fold_resolve(&c->fo, &e, final)) {
		m = agg_add(&c->pending, key, ns);
	} else {
		k = shown_key(c, &e);
		m = agg_add(&c->agg, &k, ns);
		if (m) {
			memcpy(m->stk, e.stk, sizeof(m->stk));
			memcpy(m->up, e.up, sizeof(m->up));
		}
	}
	if (!m)
		c->drain_errors++;
	slow_down(c, t0);
	if (!(++c->resolves % KEEP_UP))
		ring_buffer__consume(c->rb);
}

/*
 * The blocked time of blocks the counts maps had no room for stays in the
 * output, under a bottom frame that says so (no stacks, no waker).
 */
static void take_lost(struct capture *c)
{
	struct ow_key k = { .target = OW_LOST_BLOCKS };
	uint64_t ns = 0;

	drain_percpu(c->skel->maps.lost_ns, &ns, 1);
	if (ns)
		take(c, &k, ns, true);
}

/* The entry of the sums a long block's key is summed under (as take()
 * sums it), or -1: its stacks, or its sum, not in yet. */
static long event_entry(void *ctx, const struct ow_key *key, bool final)
{
	struct capture *c = ctx;
	struct agg_entry e = { .key = *key };
	uint64_t missing = c->fo.missing;	/* counted once, by take() */
	struct ow_key k;
	int r = fold_resolve(&c->fo, &e, final);

	c->fo.missing = missing;
	if (r)
		return -1;
	k = shown_key(c, &e);
	return agg_find(&c->agg, &k);
}

/* A record of the timeline ring buffer: a long block (--timeline). */
static int got_long_block(void *ctx, void *data, size_t len)
{
	struct capture *c = ctx;

	timeline_record(&c->tl, data, len);
	return 0;
}

/* Take the pending keys again (final: stacks still missing are shown so). */
static void retry_pending(struct capture *c, bool final)
{
	struct agg old = c->pending;

	memset(&c->pending, 0, sizeof(c->pending));
	for (size_t i = 0; i < old.n; i++)
		take(c, &old.ent[i].key, old.ent[i].ns, final);
	agg_free(&old);
}

/* A drained key (OW_KEY_SIZE(depth) bytes) and its blocked ns. */
static void got_key(struct drain_pass *dp, void *key, void *val)
{
	struct capture *c = dp->c;
	struct ow_key k = { 0 };	/* levels past the depth */
	__u64 ns;

	memcpy(&k, key, bpf_map__key_size(c->skel->maps.counts0));
	memcpy(&ns, val, sizeof(ns));
	if (ns)
		take(c, &k, ns, false);
}

/*
 * Move every entry of one counts map into the user-space sums; returns
 * how many there were, or -1.
 */
static long drain_map(struct drain_pass *dp, struct bpf_map *map)
{
	return empty_map(dp, map, BATCH, got_key);
}

/* Set entry key of a per-CPU array of __u32 to 0 on every CPU. */
static int zero_percpu(struct bpf_map *map, __u32 key)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 zero[ncpu > 0 ? ncpu : 1];	/* (values 8-byte aligned) */

	memset(zero, 0, sizeof(zero));
	if (ncpu > 0 && !bpf_map_update_elem(bpf_map__fd(map), &key, zero, 0))
		return 0;
	ow_err("resetting %s: %s", bpf_map__name(map), strerror(errno));
	return -1;
}

/* A drained key of cslots0/cslots1: its blocked ns in its slot, zeroed. */
static void got_slot(struct drain_pass *dp, void *key, void *val)
{
	__u32 slot;
	__u64 *v;

	memcpy(&slot, val, sizeof(slot));
	if (slot >= OW_CSLOTS)
		return;
	v = &dp->c->cvals[dp->idx * OW_CSLOTS + slot];
	got_key(dp, key, v);
	*v = 0;
}

/*
 * Move every key of period idx (its slots, then its counts map) into the
 * user-space sums; returns how many there were, or -1.
 */
static long drain_period(struct capture *c, __u32 idx)
{
	struct drain_pass dp = { c, idx, c->batch_keys, c->batch_vals };
	long n, m;

	n = empty_map(&dp, idx ? c->skel->maps.cslots1 : c->skel->maps.cslots0,
		      BATCH, got_slot);
	if (n < 0)
		return -1;
	if (zero_percpu(c->skel->maps.cnext, idx))
		return -1;
	m = drain_map(&dp, idx ? c->skel->maps.counts1 : c->skel->maps.counts0);
	return m < 0 ? -1 : n + m;
}

/*
 * Drain the period that has been inactive for a period (after reading the
 * stacks its keys refer to); make it active.  Returns the milliseconds
 * to the next drain, or -1.
 */
int drain_tick(struct capture *c)
{
	int idle = (c->drains + 1) & 1;
	long n;

	ring_buffer__consume(c->rb);
	if (fetch_backlog(c))
		return -1;
	retry_pending(c, false);
	n = drain_period(c, idle);
	if (n < 0)
		return -1;
	if (c->tl.on)	/* the keys of the period just drained are in */
		timeline_resolve(&c->tl, event_entry, c, false);
	c->fill = 100.0 * n / (OW_CSLOTS + bpf_map__max_entries(c->skel->maps.counts0));
	/* (counted up, not flipped: a task's kept slot is of one period) */
	__atomic_store_n(&c->skel->bss->active, c->drains + 1, __ATOMIC_RELEASE);
	c->drains++;
	return n > bpf_map__max_entries(c->skel->maps.counts0) / 8 ?
	       DRAIN_FAST_MS : DRAIN_MS;
}

/* The counts slots' values (bpf: cvals), mapped: drained in place. */
static int counts_start(struct capture *c)
{
	void *p = mmap(NULL, 2 * OW_CSLOTS * sizeof(__u64),
		       PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(c->skel->maps.cvals), 0);

	if (p == MAP_FAILED) {
		ow_err("mapping the counts array: %s", strerror(errno));
		return -1;
	}
	c->cvals = p;
	return 0;
}

/* A batch's room: the counts maps' keys and values (slots: __u32), or
 * the backlogs' events and stacks, whichever is larger. */
#define MAX(a, b)	((a) > (b) ? (a) : (b))
#define BATCH_KEYS	MAX(BATCH * sizeof(struct ow_key), \
			    BACKLOG_BATCH * sizeof(struct ow_event))
#define BATCH_VALS	MAX(BATCH * sizeof(__u64), \
			    BACKLOG_BATCH * sizeof(struct ow_stack))

int drain_open(struct capture *c)
{
	if (counts_start(c))
		return -1;
	c->batch_keys = malloc(BATCH_KEYS);
	c->batch_vals = malloc(BATCH_VALS);
	if (!c->batch_keys || !c->batch_vals) {
		ow_err("starting the drain: %s", strerror(ENOMEM));
		return -1;
	}
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.events),
				 drain_record, c, NULL);
	if (c->rb && (ring_buffer__add(c->rb, bpf_map__fd(c->skel->maps.ucopies),
				       drain_record, c) ||
		      (c->tl.on &&
		       ring_buffer__add(c->rb, bpf_map__fd(c->skel->maps.tl_ring),
					got_long_block, c)))) {
		ring_buffer__free(c->rb);
		c->rb = NULL;
	}
	if (!c->rb) {
		ow_err("opening the event ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void drain_keep_stacks(struct capture *c)
{
	c->stacks.forget = unsee;
	c->stacks.freed = freed;
	c->stacks.ctx = c;
	c->stacks.fixed = !randomised();
	c->stacks.max_idle = ow_setting_uint("OFFWAKE_STACKS_IDLE", STACKS_IDLE);
}

int drain_backlog(struct capture *c)
{
	ring_buffer__consume(c->rb);
	return fetch_backlog(c);
}

int drain_last(struct capture *c, int err)
{
	if (!err)
		err = drain_period(c, 0) < 0;
	if (!err)
		err = drain_period(c, 1) < 0;
	retry_pending(c, true);
	if (!err)
		take_lost(c);
	if (c->tl.on)
		timeline_resolve(&c->tl, event_entry, c, true);
	return err;
}

void drain_close(struct capture *c)
{
	c->stacks.forget = NULL;	/* the kernel side is gone */
	c->stacks.freed = NULL;
	ring_buffer__free(c->rb);
	c->rb = NULL;
	if (c->cvals)
		munmap(c->cvals, 2 * OW_CSLOTS * sizeof(__u64));
	c->cvals = NULL;
	free(c->batch_keys);
	free(c->batch_vals);
}
