// SPDX-License-Identifier: Apache-2.0
/*
 * profile.c - walking a profile (profile.h), its stack set (given, or made
 * from the samples' names for the writers that take one), and the profile
 * of a stack set's names, which "convert" builds from folded files and SVGs.
 */
#include "profile.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>
#include <stdlib.h>

int ow_profile_foreach(const struct ow_profile *p, ow_sample_fn fn, void *ctx)
{
	return p->foreach(p, fn, ctx);
}

struct names {
	struct fg_stacks *s;
	const char **fr;
	size_t *lens, cap;
};

static int add_names(void *ctx, const struct ow_sample *smp)
{
	struct names *n = ctx;
	int64_t v;

	if (smp->nframes > n->cap) {
		size_t cap = smp->nframes * 2;
		const char **fr = realloc(n->fr, cap * sizeof(*fr));
		size_t *lens = fr ? realloc(n->lens, cap * sizeof(*lens)) : NULL;

		if (fr)
			n->fr = fr;
		if (!lens) {
			errno = ENOMEM;
			return -1;
		}
		n->lens = lens;
		n->cap = cap;
	}
	for (size_t i = 0; i < smp->nframes; i++) {
		n->fr[i] = smp->frames[i].name;
		n->lens[i] = smp->frames[i].len;
	}
	if (!fg_count_int64(smp->value, &v) || v < 0) {
		errno = EINVAL;
		return -1;
	}
	return fg_stacks_add(n->s, n->fr, n->lens, smp->nframes, v) < 0 ? -1 : 0;
}

struct fg_stacks *ow_profile_stacks(const struct ow_profile *p, const char *what,
				    const struct fg_options *fg, struct fg_stacks **made)
{
	struct names n = { 0 };

	*made = NULL;
	if (p->stacks)
		return p->stacks;
	errno = 0;
	n.s = fg_stacks_new();
	if (n.s && fg)
		fg_stacks_set_max_depth(n.s, (size_t)fg->max_depth);
	if (n.s && ow_profile_foreach(p, add_names, &n)) {
		fg_stacks_free(n.s);
		n.s = NULL;
	}
	free(n.fr);
	free(n.lens);
	if (!n.s)
		ow_err("%s: %s", what, ow_strerror(errno ? errno : ENOMEM));
	else
		fg_stacks_report_truncated(n.s, 0, what);
	return *made = n.s;
}

struct walk {
	ow_sample_fn fn;
	void *ctx;
	struct ow_frame *fr;
	size_t cap;
};

static int stack_sample(void *ctx, const char *const *frames, const size_t *lens,
			size_t n, struct fg_count count)
{
	struct walk *w = ctx;

	if (n && ow_grow(&w->fr, &w->cap, n - 1, sizeof(*w->fr)))
		return -1;
	for (size_t i = 0; i < n; i++)
		w->fr[i] = (struct ow_frame){ frames[i], lens[i], OW_PF_NAME, NULL, 0, 0, NULL };
	return w->fn(w->ctx, &(struct ow_sample){ w->fr, n, NULL, 0, count, 0, NULL, 0 });
}

static int stacks_foreach(const struct ow_profile *p, ow_sample_fn fn, void *ctx)
{
	struct walk w = { fn, ctx, NULL, 0 };
	int r = fg_stacks_foreach(p->stacks, stack_sample, &w);

	free(w.fr);
	return r;
}

void ow_profile_of_stacks(struct ow_profile *p, struct fg_stacks *s)
{
	p->stacks = s;
	p->foreach = stacks_foreach;
	p->src = NULL;
}
