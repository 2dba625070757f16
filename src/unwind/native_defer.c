// SPDX-License-Identifier: Apache-2.0
/*
 * native_defer.c - deferred user stacks (see native_defer.h).  The kernel
 * side sends, where a process's tables are late (a new image, a library
 * mapped since its tables were built), the user registers and a copy of
 * the top of its user stack, under a reference of its own, which the
 * block's key refers to.  The copies wait here, in arrival order, until
 * the capture says their process's tables are in; then each is walked
 * with the same rows the kernel side would have used, and its frames go
 * to the stack store under that reference, where the key finds them (it
 * waits in the capture's pending keys meanwhile).  A walk the copy cuts
 * ends with a [truncated] mark.
 *
 * Memory: the copies wait for a table build or two (tens to hundreds of
 * ms); past max_bytes, the oldest is walked at once with what tables
 * there are (counted as early).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "native_defer.h"
#include "native_walk.h"
#include "common/util.h"

/* A copy waiting: the record's fields, and its len bytes of stack. */
struct kept {
	uint32_t tgid, len;
	uint64_t ref, ip, sp, bp, bx;
	uint8_t data[];
};

struct uw_defer {
	int umaps_fd;
	struct uw_walker walker;	/* um: set per walk */
	size_t max_bytes;
	struct kept **q;	/* waiting, oldest first */
	size_t n, cap;
	struct uw_defer_stats st;
};

struct uw_defer *uw_defer_new(int umaps_fd, const struct ow_urow *rows,
			      uint32_t nrows, bool cfi_only, size_t max_bytes)
{
	struct uw_defer *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->umaps_fd = umaps_fd;
	d->walker = (struct uw_walker){ NULL, rows, nrows, cfi_only };
	d->max_bytes = max_bytes;
	return d;
}

void uw_defer_free(struct uw_defer *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->q[i]);
	free(d->q);
	free(d);
}

static size_t copy_size(const struct kept *c)
{
	return sizeof(*c) + c->len;
}

/* Walk c into st; its frames, how the walk ended in *end. */
static size_t walk(struct uw_defer *d, const struct kept *c,
		   struct ow_stack *st, enum uw_walk_end *end, bool *unmapped)
{
	static struct ow_umaps um;
	struct uw_regs r = { c->ip, c->sp, c->bp, c->bx, c->data, c->len };

	d->walker.um = bpf_map_lookup_elem(d->umaps_fd, &c->tgid, &um) ? NULL : &um;
	return uw_walk_copy(&d->walker, &r, st->ips, OW_MAX_STACK_DEPTH, end,
			    unmapped);
}

/*
 * Walk c into a stack record for got() and free c; or, when the walk met
 * a pc its process's entry does not map and ready(ctx, tgid, true) says
 * more tables are coming for it (a partial entry), keep c: false.  (Said
 * true, the walk is done again: the tables may have come meanwhile.)
 */
static bool walk_one(struct uw_defer *d, struct kept *c,
		     bool (*ready)(void *, uint32_t, bool),
		     void (*got)(void *, const struct ow_stack *, size_t),
		     void *ctx)
{
	static struct ow_stack st;
	enum uw_walk_end end;
	bool unmapped = false;
	size_t nr = walk(d, c, &st, &end, &unmapped);

	if (ready && unmapped) {
		if (!ready(ctx, c->tgid, true)) {
			d->st.waited++;
			return false;
		}
		nr = walk(d, c, &st, &end, NULL);
	}
	if (end == UW_WALK_COPY && nr < OW_MAX_STACK_DEPTH)
		st.ips[nr++] = OW_FRAME(OW_FRAME_MARKER, OW_MARK_TRUNCATED);
	d->st.whole += end == UW_WALK_END || end == UW_WALK_ENTRY;
	d->st.cut += end == UW_WALK_COPY;
	d->st.other += end != UW_WALK_END && end != UW_WALK_ENTRY &&
		       end != UW_WALK_COPY;
	st.type = OW_EV_STACK;
	st.nr = nr;
	st.hash = c->ref;
	d->st.bytes -= copy_size(c);
	free(c);
	if (nr)
		got(ctx, &st, sizeof(st) - sizeof(st.ips) + nr * sizeof(st.ips[0]));
	return true;
}

int uw_defer_add(struct uw_defer *d, const void *rec, size_t len)
{
	const struct ow_ucopy *in = rec;
	struct kept *c;

	if (len < OW_UCOPY_HEAD || in->len > OW_UCOPY_MAX ||
	    len < OW_UCOPY_HEAD + in->len ||
	    (in->ref & (OW_STACK_HASH | OW_STACK_DEFERRED)) !=
	    (OW_STACK_HASH | OW_STACK_DEFERRED)) {
		d->st.bad++;
		return -1;
	}
	c = malloc(sizeof(*c) + in->len);
	if (!c || ow_grow(&d->q, &d->cap, d->n, sizeof(*d->q))) {
		free(c);
		errno = ENOMEM;
		return -1;
	}
	*c = (struct kept){ in->tgid, in->len, in->ref, in->ip, in->sp,
			    in->bp, in->bx };
	memcpy(c->data, in->data, in->len);
	d->q[d->n++] = c;
	d->st.received++;
	d->st.bytes += copy_size(c);
	if (d->st.bytes > d->st.bytes_max)
		d->st.bytes_max = d->st.bytes;
	return 0;
}

size_t uw_defer_walk(struct uw_defer *d,
		     bool (*ready)(void *ctx, uint32_t tgid, bool missed),
		     void (*got)(void *ctx, const struct ow_stack *st, size_t len),
		     void *ctx)
{
	size_t n = d->n, k = 0, done = 0;

	/* ready() may read the ring buffer: copies added meanwhile go
	 * after the n looked at (d->q may move) */
	for (size_t i = 0; i < n; i++) {
		struct kept *c = d->q[i];
		bool in = ready && ready(ctx, c->tgid, false);

		if (in && walk_one(d, c, ready, got, ctx)) {
			done++;
		} else if (!ready || d->st.bytes > d->max_bytes) {
			d->st.early++;
			walk_one(d, c, NULL, got, ctx);
			done++;
		} else {
			d->q[k++] = c;
		}
	}
	if (d->n > n)
		memmove(&d->q[k], &d->q[n], (d->n - n) * sizeof(*d->q));
	d->n = k + d->n - n;
	return done;
}

void uw_defer_get_stats(const struct uw_defer *d, struct uw_defer_stats *st)
{
	*st = d->st;
	st->kept = d->n;
}
