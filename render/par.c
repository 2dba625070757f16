// SPDX-License-Identifier: Apache-2.0
/*
 * par.c - work split between the caller and one more thread.
 */
#include "par.h"

#include <pthread.h>

/* Below this many items one thread does it all. */
#define PAR_MIN 65536

struct half {
	void (*fn)(void *ctx, size_t lo, size_t hi);
	void *ctx;
	size_t lo, hi;
};

static void *run_half(void *arg)
{
	struct half *h = arg;

	h->fn(h->ctx, h->lo, h->hi);
	return NULL;
}

void fg_both(void *(*fn)(void *), void *a, void *b)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, a)) {
		fn(a);
		fn(b);
		return;
	}
	fn(b);
	pthread_join(t, NULL);
}

void fg_run2(void (*fn)(void *ctx, size_t lo, size_t hi), void *ctx, size_t n)
{
	struct half first = { fn, ctx, 0, n / 2 }, second = { fn, ctx, n / 2, n };

	if (n < PAR_MIN)
		fn(ctx, 0, n);
	else
		fg_both(run_half, &second, &first);
}
