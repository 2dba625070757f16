// SPDX-License-Identifier: Apache-2.0
/*
 * timeline.c - a capture's long blocks (timeline.h): the records of the
 * kernel side's timeline ring buffer wait until the sums have their key
 * (the drain takes a key some time after its blocks' records came),
 * then are kept as struct ow_long_block with their entry's index; at each
 * output (the live views' refreshes, the snapshots and the last one),
 * sorted by entry and start into one array, each entry's events a slice
 * of it, dropped after that output (the set grows between two: the next
 * one sorts it again; the sums' entries keep their indexes as they grow).
 * At most max records are kept (waiting ones included): the rest, and
 * any whose key never reached the sums, are counted as lost.
 */
#include <stdlib.h>
#include <string.h>
#include "timeline.h"
#include "common/util.h"

void timeline_record(struct timeline *t, const void *data, size_t len)
{
	struct ow_tl_event *w;

	t->bytes += len;
	if (len < OW_TL_SIZE(1) || len > sizeof(*w) ||
	    t->n + t->nwait >= t->max ||
	    ow_grow(&t->wait, &t->wait_cap, t->nwait, sizeof(*t->wait))) {
		t->lost++;
		return;
	}
	w = &t->wait[t->nwait++];
	memset(w, 0, sizeof(*w));	/* levels past the depth */
	memcpy(w, data, len);
}

/* A waiting record as kept, of entry ent. */
static int keep(struct timeline *t, const struct ow_tl_event *w, size_t ent)
{
	struct tl_event *e;

	if (ow_grow(&t->ev, &t->cap, t->n, sizeof(*t->ev)))
		return -1;
	e = &t->ev[t->n++];
	e->ent = ent;
	e->b = (struct ow_long_block){
		.start_ns = w->start_ns, .end_ns = w->end_ns,
		.wakeup_ns = w->wake_ns, .tid = w->key.t_pid,
		.pid = w->key.t_tgid, .cpu = w->cpu, .state = w->state,
	};
	if (w->wake_ns) {
		e->b.waker_tid = w->key.w_pid;
		e->b.waker_pid = w->key.w_tgid;
	}
	return 0;
}

void timeline_resolve(struct timeline *t,
		      long (*find)(void *ctx, const struct ow_key *k, bool final),
		      void *ctx, bool final)
{
	size_t m = 0;

	for (size_t i = 0; i < t->nwait; i++) {
		long ent = find(ctx, &t->wait[i].key, final);

		if (ent >= 0 && !keep(t, &t->wait[i], (size_t)ent))
			continue;
		if (ent < 0 && !final)
			t->wait[m++] = t->wait[i];	/* the next time */
		else
			t->lost++;
	}
	t->nwait = m;
}

static int by_entry_start(const void *a, const void *b)
{
	const struct tl_event *x = a, *y = b;

	if (x->ent != y->ent)
		return x->ent < y->ent ? -1 : 1;
	return x->b.start_ns < y->b.start_ns ? -1 : x->b.start_ns > y->b.start_ns;
}

void timeline_unindex(struct timeline *t)
{
	free(t->blocks);
	free(t->first);
	t->blocks = NULL;
	t->first = NULL;
	t->nindexed = t->nfirst = 0;
}

int timeline_index(struct timeline *t, size_t nent)
{
	size_t k = 0;

	timeline_unindex(t);
	t->blocks = malloc((t->n + 1) * sizeof(*t->blocks));
	t->first = calloc(nent + 1, sizeof(*t->first));
	if (!t->blocks || !t->first) {
		timeline_unindex(t);
		return -1;
	}
	if (t->n)	/* (qsort's array may not be NULL) */
		qsort(t->ev, t->n, sizeof(*t->ev), by_entry_start);
	for (size_t e = 0; e < nent; e++) {
		t->first[e] = k;
		while (k < t->n && t->ev[k].ent == e) {
			t->blocks[k] = t->ev[k].b;
			k++;
		}
	}
	t->first[nent] = k;
	t->nindexed = k;
	t->nfirst = nent;
	return 0;
}

const struct ow_long_block *timeline_of(const struct timeline *t, size_t ent,
					size_t *n)
{
	if (!t->blocks || ent >= t->nfirst) {
		*n = 0;
		return NULL;
	}
	*n = t->first[ent + 1] - t->first[ent];
	return t->blocks + t->first[ent];
}

void timeline_free(struct timeline *t)
{
	free(t->ev);
	free(t->wait);
	timeline_unindex(t);
	memset(t, 0, sizeof(*t));
}
