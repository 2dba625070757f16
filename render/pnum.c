/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pnum.c - arithmetic and formatting with Perl's number semantics
 * (see pnum.h for why the renderer needs them).
 */
#include "pnum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#define IV_MIN_ ((__int128)INT64_MIN)
#define UV_MAX_ ((__int128)UINT64_MAX)

static int in_range(__int128 v)
{
	return v >= IV_MIN_ && v <= UV_MAX_;
}

/* Can this value take Perl's integer path (SvIV_please)? */
static int iv_able(struct pnum a, __int128 *out)
{
	if (!a.is_nv) {
		*out = a.iv;
		return 1;
	}
	if (a.is_nv == 2 || a.nv != a.nv || a.nv != floor(a.nv))
		return 0;
	/* Perl marks the converted integer public (IOK) only when a double
	 * holds every integer up to it: below 2^53 */
	if (fabs(a.nv) >= 9007199254740992.0)
		return 0;
	*out = a.nv < 0 ? (__int128)(int64_t)a.nv : (__int128)(uint64_t)a.nv;
	return 1;
}

struct pnum pnum_add_slow(struct pnum a, struct pnum b)
{
	__int128 x, y;

	if (iv_able(a, &x) && iv_able(b, &y) && in_range(x + y))
		return pnum_iv(x + y);
	return pnum_nv(pnum_d(a) + pnum_d(b));
}

struct pnum pnum_sub_slow(struct pnum a, struct pnum b)
{
	__int128 x, y;

	if (iv_able(a, &x) && iv_able(b, &y) && in_range(x - y))
		return pnum_iv(x - y);
	return pnum_nv(pnum_d(a) - pnum_d(b));
}

struct pnum pnum_mul_slow(struct pnum a, struct pnum b)
{
	__int128 x, y;

	if (iv_able(a, &x) && iv_able(b, &y)) {
		/* both fit in 65 bits: the product fits in 130 - check by division */
		if (x == 0 || y == 0)
			return pnum_iv(0);
		__int128 ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
		if (ax <= UV_MAX_ / ay && in_range(x * y))
			return pnum_iv(x * y);
	}
	return pnum_nv(pnum_d(a) * pnum_d(b));
}

struct pnum pnum_div_slow(struct pnum a, struct pnum b)
{
	__int128 x, y;

	if (iv_able(a, &x) && iv_able(b, &y) && y != 0 && x % y == 0)
		return pnum_iv(x / y);
	return pnum_nv(pnum_d(a) / pnum_d(b));
}

int pnum_is_zero(struct pnum a)
{
	return a.is_nv ? a.nv == 0 : a.iv == 0;
}

int pnum_cmp(struct pnum a, struct pnum b)
{
	__int128 x, y;

	if (iv_able(a, &x) && iv_able(b, &y))
		return x < y ? -1 : x > y;
	double p = pnum_d(a), q = pnum_d(b);
	return p < q ? -1 : p > q;
}

int perl_fmt_nv(double v, char *buf, size_t size)
{
	if (isnan(v))
		return snprintf(buf, size, "NaN");
	if (isinf(v))
		return snprintf(buf, size, v < 0 ? "-Inf" : "Inf");
	if (v == floor(v) && fabs(v) < 1e15) {
		if (v == 0)
			return snprintf(buf, size, "%s", signbit(v) ? "-0" : "0");
		return snprintf(buf, size, "%lld", (long long)v);
	}
	return snprintf(buf, size, "%.15g", v);
}

size_t fg_u64_digits(char *p, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	size_t n = 1;

	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	char *q = p + n;
	while (v >= 100) {	/* two digits a step, from the right */
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		*--q = pairs[d + 1];
		*--q = pairs[d];
	}
	if (v >= 10) {
		*--q = pairs[v * 2 + 1];
		*--q = pairs[v * 2];
	} else {
		*--q = (char)('0' + v);
	}
	return n;
}

static int fmt_i128(__int128 v, char *buf, size_t size)
{
	if (size < 42)
		return -1;
	size_t n = 0;
	if (v < 0) {
		buf[n++] = '-';
		v = -v;
	}
	if (v <= (__int128)UINT64_MAX) {
		n += fg_u64_digits(buf + n, (uint64_t)v);
	} else {	/* up to 2^64 in magnitude: two 64-bit halves */
		uint64_t hi = (uint64_t)(v / 10000000000000000000ULL);
		uint64_t lo = (uint64_t)(v % 10000000000000000000ULL);
		n += fg_u64_digits(buf + n, hi);
		char low[24];
		size_t ln = fg_u64_digits(low, lo);
		memset(buf + n, '0', 19 - ln);
		memcpy(buf + n + 19 - ln, low, ln);
		n += 19;
	}
	buf[n] = 0;
	return (int)n;
}

int pnum_fmt(struct pnum a, char *buf, size_t size)
{
	return a.is_nv ? perl_fmt_nv(a.nv, buf, size) : fmt_i128(a.iv, buf, size);
}

int pnum_fmt_plain(struct pnum a, char *buf, size_t size)
{
	char g[64], digits[40];
	int n = pnum_fmt(a, g, sizeof(g));
	const char *e = strchr(g, 'e');

	if (!e || !isfinite(a.nv))
		return n < (int)size ? (int)snprintf(buf, size, "%s", g) : -1;
	/* the same digits with the point moved: d.ddde+X -> ddd.d or 0.000ddd */
	const char *p = g;
	int neg = *p == '-', nd = 0, point = -1;
	p += neg;
	for (; p < e; p++) {
		if (*p == '.')
			point = nd;
		else
			digits[nd++] = *p;
	}
	if (point < 0)
		point = nd;
	point += atoi(e + 1);
	size_t k = 0;
	char out[400];
	if (neg)
		out[k++] = '-';
	if (point <= 0) {
		out[k++] = '0';
		out[k++] = '.';
		for (int i = point; i < 0; i++)
			out[k++] = '0';
		for (int i = 0; i < nd; i++)
			out[k++] = digits[i];
	} else {
		for (int i = 0; i < point || i < nd; i++) {
			if (i == point)
				out[k++] = '.';
			out[k++] = i < nd ? digits[i] : '0';
		}
	}
	out[k] = 0;
	return k < size ? (int)snprintf(buf, size, "%s", out) : -1;
}

struct pnum pnum_from_string_nv(double v)
{
	/* a number read from a string is an integer when it is integral and
	 * in range, whatever its size (unlike the result of arithmetic) */
	if (v == floor(v) && v >= -9223372036854775808.0 && v < 18446744073709551616.0)
		return pnum_iv(v < 0 ? (__int128)(int64_t)v : (__int128)(uint64_t)v);
	return pnum_nv(v);
}

struct pnum pnum_parse_count(const char *s, size_t len)
{
	size_t i = 0;
	unsigned __int128 v = 0;
	int overflow = 0;

	while (i < len && s[i] >= '0' && s[i] <= '9') {
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > (unsigned __int128)UINT64_MAX)
			overflow = 1, v = (unsigned __int128)UINT64_MAX + 1;
		i++;
	}
	if (i == len && !overflow)
		return pnum_iv((__int128)v);
	char stackbuf[64], *tmp = len < sizeof(stackbuf) ? stackbuf : malloc(len + 1);
	if (!tmp)
		return pnum_nv(HUGE_VAL);
	memcpy(tmp, s, len);
	tmp[len] = 0;
	/* a decimal point: a double for good; digits beyond 2^64: a double */
	struct pnum r = memchr(s, '.', len) ? pnum_nv_string(strtod(tmp, NULL)) :
		       pnum_nv(strtod(tmp, NULL));
	if (tmp != stackbuf)
		free(tmp);
	return r;
}

struct pnum pnum_numify(const char *s)
{
	const char *p = s;

	while (isspace((unsigned char)*p))
		p++;
	const char *start = p;
	if (*p == '+' || *p == '-')
		p++;
	const char *d = p;
	while (isdigit((unsigned char)*p))
		p++;
	int intdigits = p - d;
	int frac = 0;
	if (*p == '.') {
		const char *f = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		frac = p - f;
	}
	if (!intdigits && !frac) {
		/* Perl also reads Inf/NaN */
		if (!strncasecmp(d, "inf", 3))
			return pnum_nv(*start == '-' ? -INFINITY : INFINITY);
		if (!strncasecmp(d, "nan", 3))
			return pnum_nv(NAN);
		return pnum_iv(0);
	}
	int isint = !frac && p[-1] != '.';
	if (*p == 'e' || *p == 'E') {
		const char *e = p + 1;
		if (*e == '+' || *e == '-')
			e++;
		if (isdigit((unsigned char)*e)) {
			isint = 0;
			p = e;
			while (isdigit((unsigned char)*p))
				p++;
		}
	}
	char *buf = strndup(start, p - start);
	if (!buf)
		return pnum_iv(0);
	struct pnum r;
	if (isint) {
		int neg = *buf == '-';
		struct pnum u = pnum_parse_count(buf + (neg || *buf == '+'),
						 strlen(buf) - (neg || *buf == '+'));
		r = neg ? pnum_sub(pnum_iv(0), u) : u;
	} else {
		/* with an exponent, an integral in-range value is an integer;
		 * with only a decimal point, a double for good */
		double v = strtod(buf, NULL);
		r = strpbrk(buf, "eE") ? pnum_from_string_nv(v) : pnum_nv_string(v);
	}
	free(buf);
	return r;
}
