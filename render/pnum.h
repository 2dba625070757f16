/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pnum.h - numbers with Perl's semantics.
 *
 * flamegraph.pl adds counts with Perl scalars: integers stay exact 64-bit
 * integers while they fit, anything with a fraction (or too large) becomes
 * a double, and a double holding an integral in-range value is used as an
 * integer again.  Node end times are keyed by their Perl string form
 * (integers in full, doubles as %.15g).  This module reproduces that.
 */
#ifndef FG_PNUM_H
#define FG_PNUM_H

#include <stdint.h>
#include <stddef.h>

struct pnum {
	int is_nv;	/* 0: exact integer in iv; 1: double in nv (an integral
			 * value below 2^53 takes the integer path again);
			 * 2: double read from a string with a decimal point,
			 * which Perl never takes for an integer */
	__int128 iv;	/* within [INT64_MIN, UINT64_MAX] when !is_nv */
	double nv;
};

static inline struct pnum pnum_iv(__int128 v)
{
	struct pnum p = { 0, v, 0 };
	return p;
}
static inline struct pnum pnum_nv(double v)
{
	struct pnum p = { 1, 0, v };
	return p;
}
static inline struct pnum pnum_nv_string(double v)
{
	struct pnum p = { 2, 0, v };
	return p;
}

/* Within int64_t: the integers 64-bit arithmetic handles exactly. */
#define PNUM_I64(x) ((x) >= INT64_MIN && (x) <= INT64_MAX)
static inline double pnum_d(struct pnum a)
{
	if (a.is_nv)
		return a.nv;
	return PNUM_I64(a.iv) ? (double)(int64_t)a.iv : (double)a.iv;
}
struct pnum pnum_add_slow(struct pnum a, struct pnum b);
struct pnum pnum_sub_slow(struct pnum a, struct pnum b);
struct pnum pnum_mul_slow(struct pnum a, struct pnum b);

/* the common case inline: two integers whose result is an integer */
#define PNUM_SMALL(x) ((x) >= -((__int128)1 << 62) && (x) < ((__int128)1 << 62))
static inline struct pnum pnum_add(struct pnum a, struct pnum b)
{
	if (!a.is_nv && !b.is_nv && PNUM_SMALL(a.iv) && PNUM_SMALL(b.iv))
		return pnum_iv(a.iv + b.iv);
	return pnum_add_slow(a, b);
}
static inline struct pnum pnum_sub(struct pnum a, struct pnum b)
{
	if (!a.is_nv && !b.is_nv && PNUM_SMALL(a.iv) && PNUM_SMALL(b.iv))
		return pnum_iv(a.iv - b.iv);
	return pnum_sub_slow(a, b);
}
static inline struct pnum pnum_mul(struct pnum a, struct pnum b)
{
	int64_t r;

	if (!a.is_nv && !b.is_nv && PNUM_I64(a.iv) && PNUM_I64(b.iv) &&
	    !__builtin_mul_overflow((int64_t)a.iv, (int64_t)b.iv, &r))
		return pnum_iv(r);
	return pnum_mul_slow(a, b);
}
struct pnum pnum_div_slow(struct pnum a, struct pnum b);
/* Perl divides integers exactly when the result is an integer. */
static inline struct pnum pnum_div(struct pnum a, struct pnum b)
{
	if (!a.is_nv && !b.is_nv && PNUM_I64(a.iv) && b.iv > 0 && b.iv <= INT64_MAX) {
		int64_t x = (int64_t)a.iv, y = (int64_t)b.iv;
		return x % y == 0 ? pnum_iv(x / y) : pnum_nv((double)x / (double)y);
	}
	return pnum_div_slow(a, b);
}
int pnum_is_zero(struct pnum a);
int pnum_cmp(struct pnum a, struct pnum b);	/* <0, 0, >0 */

/* The decimal digits of v at p (no NUL); returns their number. */
size_t fg_u64_digits(char *p, uint64_t v);
/* Perl's string form ("12", "12.5", "1e+20"); returns the length. */
int pnum_fmt(struct pnum a, char *buf, size_t size);
/* The same value as plain decimal digits, never an exponent ("1e-05" is
 * "0.00001", "1.8e+19" "18000000000000000000"); -1 if size is too small. */
int pnum_fmt_plain(struct pnum a, char *buf, size_t size);
/* Perl's %.15g for a double. */
int perl_fmt_nv(double v, char *buf, size_t size);
/* The value of a count string matching \d+(\.\d*)? as Perl reads it. */
struct pnum pnum_parse_count(const char *s, size_t len);
/* The value of a double parsed from a string, as Perl keeps it. */
struct pnum pnum_from_string_nv(double v);
/* Perl's numeric value of an arbitrary string (leading number, else 0). */
struct pnum pnum_numify(const char *s);

#endif
