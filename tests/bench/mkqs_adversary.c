// SPDX-License-Identifier: Apache-2.0
/*
 * mkqs_adversary.c - folded inputs for the line sort (render/mkqs.c):
 * adversarial orders, and the same lines in random order.
 *
 *   mkqs_adversary N fixed    N lines "kNNNNNNN;x 1" in an order that made
 *                             the former fixed pivot (the median of the
 *                             first, middle and last keys) split off two
 *                             lines a round: quadratic (80k lines, 1 MB:
 *                             1.5 s against 0.04 s shuffled)
 *   mkqs_adversary N current  the same against the pivot places mkqs.c
 *                             draws now (its generator and seeds copied
 *                             here): what is left for its heapsort
 *   mkqs_adversary N random   the same lines, shuffled (seed 1)
 *
 * The orders are McIlroy's "killer adversary" run against a copy of the
 * partition step: keys are decided only when the pivot looks at them (the
 * smallest still free, so the pivot is the second smallest), undecided
 * keys count as larger than any decided one, and the lines still
 * undecided at the end get the largest keys.  The key of a line is the
 * rank of its first token, i.e. the number in its name.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAS ((size_t)-1)

/* mkqs.c's pivot places: its seed for a call on items lo..lo+m-1, and
 * its generator */
static uint64_t seed_of(size_t lo, size_t m)
{
	return 0x9E3779B97F4A7C15ULL ^ lo ^ (uint64_t)m << 32;
}

static size_t random_place(uint64_t *r, size_t n)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return (size_t)(((unsigned __int128)*r * n) >> 64);
}

static size_t median3(size_t a, size_t b, size_t c)	/* GAS is the largest */
{
	return a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
}

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? strtoul(argv[1], NULL, 10) : 0, next = 0;
	int fixed = argc > 2 && !strcmp(argv[2], "fixed");

	if (n < 16 || (!fixed && strcmp(argv[2], "current") && strcmp(argv[2], "random"))) {
		fprintf(stderr, "usage: mkqs_adversary N fixed|current|random\n");
		return 2;
	}
	size_t *val = malloc(n * sizeof(*val)), *x = malloc(n * sizeof(*x));
	if (!val || !x)
		return 1;
	for (size_t i = 0; i < n; i++) {
		val[i] = GAS;
		x[i] = i;	/* the sort's array: line ids, input order */
	}
	if (!strcmp(argv[2], "random")) {
		uint64_t r = 1;
		for (size_t i = 0; i < n; i++)
			val[i] = i;
		for (size_t i = n - 1; i > 0; i--) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			size_t j = r % (i + 1), t = val[i];
			val[i] = val[j];
			val[j] = t;
		}
		next = n;
	}
	/* the chain of partitions: [lo, lo + m) all undecided; a large sort
	 * stops its first call at n / 32 items (mkqs.c's sort_keys), and the
	 * part left is sorted by a new call, with a new seed */
	size_t defer = n >= 32768 ? n / 32 : 0;
	uint64_t rnd = seed_of(0, n);
	for (size_t lo = 0, m = n; next < n && m > 12;) {
		size_t *p = x + lo, a, b, c;
		if (defer && m <= defer) {
			defer = 0;
			rnd = seed_of(lo, m);
		}
		if (fixed) {
			a = 0, b = m / 2, c = m - 1;
		} else {
			a = random_place(&rnd, m);
			b = random_place(&rnd, m);
			c = random_place(&rnd, m);
		}
		if (val[p[a]] == GAS)
			val[p[a]] = next++;
		if (val[p[b]] == GAS)
			val[p[b]] = next++;
		size_t v = median3(val[p[a]], val[p[b]], val[p[c]]), lt = 0, i = 0, gt = m;
		while (i < gt) {	/* the three-way split, as mkqs.c does it */
			size_t k = val[p[i]], t;
			if (k < v) {
				t = p[lt], p[lt++] = p[i], p[i++] = t;
			} else if (k > v) {
				--gt;
				t = p[i], p[i] = p[gt], p[gt] = t;
			} else {
				i++;
			}
		}
		lo += gt;	/* the larger part goes on */
		m -= gt;
	}
	for (size_t i = 0; i < n; i++)
		if (val[i] == GAS)
			val[i] = next++;
	for (size_t i = 0; i < n; i++)
		printf("k%07zu;x 1\n", val[i]);
	free(val);
	free(x);
	return 0;
}
