/* SPDX-License-Identifier: Apache-2.0 */
/*
 * count.h - fg.h's opaque struct fg_count is the renderer's struct pnum:
 * the two conversions, for the code that hands counts over (the stack
 * set's walk) and for the accessors (count.c).
 */
#ifndef FG_COUNT_H
#define FG_COUNT_H

#include <string.h>

#include "fg.h"
#include "pnum.h"

_Static_assert(sizeof(struct fg_count) == sizeof(struct pnum) &&
	       _Alignof(struct fg_count) == _Alignof(struct pnum),
	       "struct fg_count holds a struct pnum");

static inline struct fg_count fg_count_from_pnum(struct pnum p)
{
	struct fg_count c;

	memcpy(&c, &p, sizeof(p));
	return c;
}

static inline struct pnum fg_count_to_pnum(struct fg_count c)
{
	struct pnum p;

	memcpy(&p, &c, sizeof(p));
	return p;
}

#endif
