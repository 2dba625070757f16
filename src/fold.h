/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fold.h - one aggregation key as named frames, in the pieces from which
 * offwaketime builds its folded and text lines.
 */
#ifndef OW_FOLD_H
#define OW_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include "capture.h"
#include "ksyms.h"
#include "usyms.h"

enum fold_seg {
	FOLD_T_USER,		/* target user stack */
	FOLD_T_KERNEL,		/* target kernel stack */
	FOLD_W_KERNEL,		/* waker kernel stack */
	FOLD_W_USER,		/* waker user stack */
	FOLD_NSEG,
};

struct folded {
	const char *target;	/* comm */
	const char *waker;	/* comm, "" without a waker */
	const char *wctx;	/* "[hardirq]", "[softirq]", "[nmi]" or NULL */
	/* Frame names of each stack, leaf first. */
	const char *frames[FOLD_NSEG][OW_MAX_STACK_DEPTH];
	size_t n[FOLD_NSEG];
};

struct folder {
	struct capture *cap;
	struct ksyms *ks;
	struct usyms *us;
	char **pool;		/* sanitised copies of names */
	size_t npool, poolcap;
};

int folder_init(struct folder *f, struct capture *cap);
void folder_free(struct folder *f);

/* Name the frames of key k (names stay valid until folder_free). */
void fold_key(struct folder *f, const struct ow_key *k, struct folded *out);

#endif
