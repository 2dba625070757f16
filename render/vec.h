/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vec.h - the growable arrays of render/: VEC(T) declares one, VEC_PUSH
 * appends, vec_grow doubles a capacity (64 to start), vec_reserve doubles
 * it until need elements fit.
 */
#ifndef FG_VEC_H
#define FG_VEC_H

#include <stdlib.h>

#define VEC(T) struct { T *v; size_t n, cap; }
#define VEC_PUSH(vec, x) (((vec).n == (vec).cap && vec_grow((void **)&(vec).v, &(vec).cap, \
	sizeof(*(vec).v))) ? -1 : ((vec).v[(vec).n++] = (x), 0))

static inline int vec_grow(void **v, size_t *cap, size_t elem)
{
	size_t n = *cap ? *cap * 2 : 64;
	void *p = realloc(*v, n * elem);
	if (!p)
		return -1;
	*v = p;
	*cap = n;
	return 0;
}

static inline int vec_reserve(void **v, size_t *cap, size_t need, size_t elem)
{
	while (need > *cap)
		if (vec_grow(v, cap, elem))
			return -1;
	return 0;
}

#endif
