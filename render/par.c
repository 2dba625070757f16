// SPDX-License-Identifier: Apache-2.0
/*
 * par.c - a loop over 0..n-1 split between the caller and one more thread.
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

void fg_run2(void (*fn)(void *ctx, size_t lo, size_t hi), void *ctx, size_t n)
{
	struct half second = { fn, ctx, n / 2, n };
	pthread_t t;

	if (n < PAR_MIN || pthread_create(&t, NULL, run_half, &second)) {
		fn(ctx, 0, n);
		return;
	}
	fn(ctx, 0, n / 2);
	pthread_join(t, NULL);
}
