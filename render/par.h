/* SPDX-License-Identifier: Apache-2.0 */
/*
 * par.h - work split between the caller and one more thread.
 */
#ifndef FG_PAR_H
#define FG_PAR_H

#include <stddef.h>

/* fn(ctx, lo, hi) for two halves of 0..n-1, on two threads when n is
 * large (one thread if a second cannot start); returns when both are done. */
void fg_run2(void (*fn)(void *ctx, size_t lo, size_t hi), void *ctx, size_t n);
/* fn(a) on a second thread and fn(b) on the caller (both on the caller,
 * a first, if no thread can start); returns when both are done. */
void fg_both(void *(*fn)(void *), void *a, void *b);

#endif
