// SPDX-License-Identifier: Apache-2.0
/*
 * count.c - the count accessors of fg.h: callers outside the renderer
 * add, compare, scale and print counts through these, with the Perl
 * arithmetic of pnum.c, without seeing struct pnum.
 */
#include "count.h"

#include <math.h>

#define P(c) fg_count_to_pnum(c)
#define C(p) fg_count_from_pnum(p)

struct fg_count fg_count_of(uint64_t n)
{
	return C(pnum_iv(n));
}

struct fg_count fg_count_add(struct fg_count a, struct fg_count b)
{
	return C(pnum_add(P(a), P(b)));
}

struct fg_count fg_count_mul(struct fg_count a, struct fg_count b)
{
	return C(pnum_mul(P(a), P(b)));
}

struct fg_count fg_count_div(struct fg_count a, struct fg_count b)
{
	return C(pnum_div(P(a), P(b)));
}

/* Perl's int(): towards zero, an integer again when it fits. */
struct fg_count fg_count_int(struct fg_count a)
{
	struct pnum v = P(a);

	if (!v.is_nv)
		return a;
	double d = trunc(v.nv);
	return C(fabs(d) < 9.2e18 ? pnum_iv((__int128)d) : pnum_nv(d));
}

int fg_count_cmp(struct fg_count a, struct fg_count b)
{
	return pnum_cmp(P(a), P(b));
}

int fg_count_is_zero(struct fg_count a)
{
	return pnum_is_zero(P(a));
}

double fg_count_double(struct fg_count a)
{
	return pnum_d(P(a));
}

int fg_count_int64(struct fg_count a, int64_t *v)
{
	struct pnum p = P(a);

	if (p.is_nv || !PNUM_I64(p.iv))
		return 0;
	*v = (int64_t)p.iv;
	return 1;
}

int fg_count_format(struct fg_count a, char *buf, size_t size)
{
	return pnum_fmt(P(a), buf, size);
}

int fg_count_format_plain(struct fg_count a, char *buf, size_t size)
{
	return pnum_fmt_plain(P(a), buf, size);
}
