// SPDX-License-Identifier: Apache-2.0
/*
 * mkqs.c - multikey quicksort (Bentley & Sedgewick) of sequence keys:
 * shared prefixes are compared once per partition, not once per
 * comparison.  A partition reads its items' keys at a new depth once, into
 * the items, and is then split on those alone.  One definition, made for
 * both element types by a macro.
 * A large sort is split first: the partitions it leaves are then sorted
 * by two threads, largest first.
 *
 * No input is quadratic: pivots are the median of three keys at
 * pseudo-random places (fixed first, middle and last ones let a crafted
 * 1 MB input take 7-9 s), and a partition split more than about 2 log2 n
 * times at one depth is heapsorted from that depth instead (introsort's
 * guarantee).  The places come from a fixed generator: the same input
 * always gives the same order.
 */
#include "mkqs.h"
#include "par.h"
#include "vec.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct part {
	size_t lo, n, d;	/* items lo..lo+n-1, equal up to depth d */
	int keyed;		/* their .key holds their key at depth d */
	int budget;		/* splits left at depth d before the heapsort */
};

/* The splits a partition of n items may take at one depth. */
static int split_budget(size_t n)
{
	int b = 4;

	for (; n > 1; n >>= 1)
		b += 2;
	return b;
}

/* A place in 0..n-1 from the generator state *r (xorshift64). */
static size_t random_place(uint64_t *r, size_t n)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return (size_t)(((unsigned __int128)*r * n) >> 64);
}

typedef int (*cmp_fn)(const struct fg_sortkey *a, const struct fg_sortkey *b, size_t d);

/* Heapsort of n items equal up to depth d: the fallback, O(n log n). */
static void heap_sort(struct fg_sortkey *x, size_t n, size_t d, cmp_fn cmp)
{
	for (size_t end = n, start = n / 2; end > 1;) {
		if (start > 0) {
			start--;
		} else {
			end--;
			struct fg_sortkey t = x[0];
			x[0] = x[end];
			x[end] = t;
		}
		for (size_t root = start, child; (child = 2 * root + 1) < end; root = child) {
			if (child + 1 < end && cmp(&x[child], &x[child + 1], d) < 0)
				child++;
			if (cmp(&x[root], &x[child], d) >= 0)
				break;
			struct fg_sortkey t = x[root];
			x[root] = x[child];
			x[child] = t;
		}
	}
}

struct parts {
	struct part *v;
	size_t n, cap;
};

/* (a function: a compound literal's commas cannot go into VEC_PUSH) */
static int parts_push(struct parts *p, struct part x)
{
	return VEC_PUSH(*p, x);
}

/*
 * A key at depth d: bytes 7d..7d+6 (big-endian, zero-padded) above a byte
 * holding how many there are plus 1 (a sequence thus sorts before its
 * extensions), or two ranks (2d, 2d + 1) + 1 each; 0 stands for "none".
 * Equal keys that hold a sequence's end (fewer than seven bytes, or one
 * rank) mean equal sequences.
 */
static inline uint64_t key_bytes(const struct fg_sortkey *it, size_t d)
{
	size_t off = 7 * d, n;
	uint64_t w = 0;

	if (off >= it->len)
		return 0;
	const unsigned char *p = (const unsigned char *)it->p + off;
	n = it->len - off;
	if (n >= 8) {
		memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		w = __builtin_bswap64(w);
#endif
		return (w & ~0xffULL) | 8;
	}
	for (size_t i = 0; i < 7; i++)
		w = w << 8 | (i < n ? p[i] : 0);
	return w << 8 | (n < 7 ? n + 1 : 8);
}

static inline int end_bytes(uint64_t k)
{
	return (k & 0xff) < 8;
}

static inline uint64_t key_ranks(const struct fg_sortkey *it, size_t d)
{
	const uint32_t *r = it->p;
	size_t i = 2 * d;
	uint64_t hi = i < it->len ? r[i] + 1ULL : 0, lo = i + 1 < it->len ? r[i + 1] + 1ULL : 0;

	return hi << 32 | lo;
}

static inline int end_ranks(uint64_t k)
{
	return (uint32_t)k == 0;
}

static void swap_items(struct fg_sortkey *a, struct fg_sortkey *b)
{
	struct fg_sortkey t = *a;
	*a = *b;
	*b = t;
}

/*
 * NAME(a, part, defer, out): sort a partition of a.  With an out list,
 * partitions of 13 to defer items are put there unsorted instead.
 * NAME##_cmp compares two items equal up to depth d, as the sort orders.
 */
#define MKQS_DEFINE(NAME, KTYPE, KEY, END)							\
static int NAME##_cmp(const struct fg_sortkey *a, const struct fg_sortkey *b, size_t d) \
{										\
	KTYPE ka, kb;								\
										\
	while ((ka = KEY(a, d)) == (kb = KEY(b, d)) && !END(ka))		\
		d++;								\
	return ka < kb ? -1 : ka > kb;						\
}										\
										\
static int NAME(struct fg_sortkey *a, struct part cur, size_t defer, struct parts *out) \
{										\
	struct parts st = { 0 };						\
	uint64_t rnd = 0x9E3779B97F4A7C15ULL ^ cur.lo ^ (uint64_t)cur.n << 32;	\
										\
	for (;;) {								\
		while (cur.n > 12 && !(out && cur.n <= defer)) {		\
			struct fg_sortkey *x = a + cur.lo;			\
			size_t n = cur.n, d = cur.d;				\
			if (cur.budget <= 0) {	/* splits that kept failing */ \
				heap_sort(x, n, d, NAME##_cmp);		\
				cur.n = 0;					\
				break;						\
			}							\
			for (size_t i = 0; i < n && !cur.keyed; i++) {		\
				if (i + 8 < n)	/* fetch keys ahead */	\
					__builtin_prefetch((const char *)x[i + 8].p + d * 8); \
				x[i].key = KEY(&x[i], d);			\
			}							\
			KTYPE k0 = x[random_place(&rnd, n)].key;		\
			KTYPE k1 = x[random_place(&rnd, n)].key;		\
			KTYPE k2 = x[random_place(&rnd, n)].key;		\
			KTYPE v = k0 < k1 ? (k1 < k2 ? k1 : k0 < k2 ? k2 : k0) \
					     : (k0 < k2 ? k0 : k1 < k2 ? k2 : k1); \
			size_t lt = 0, i = 0, gt = n;				\
			while (i < gt) {					\
				KTYPE k = x[i].key;				\
				if (k < v)					\
					swap_items(&x[lt++], &x[i++]);		\
				else if (k > v)					\
					swap_items(&x[i], &x[--gt]);		\
				else						\
					i++;					\
			}							\
			int left = cur.budget - 1;				\
			if ((lt > 1 && parts_push(&st, (struct part){ cur.lo, lt, d, 1, left })) || \
			    (n - gt > 1 &&					\
			     parts_push(&st, (struct part){ cur.lo + gt, n - gt, d, 1, left }))) \
				goto fail;					\
			if (END(v))	/* equal to the end: done */		\
				cur.n = 0;					\
			else							\
				cur = (struct part){ cur.lo + lt, gt - lt, d + 1, 0, \
						     split_budget(gt - lt) }; \
		}								\
		if (cur.n > 12) {	/* left for later */			\
			if (parts_push(out, cur))				\
				goto fail;					\
			cur.n = 0;						\
		}								\
		for (size_t i = 1; i < cur.n; i++) {	/* insertion sort */	\
			struct fg_sortkey *x = a + cur.lo;			\
			for (size_t j = i; j > 0; j--) {			\
				if (NAME##_cmp(&x[j - 1], &x[j], cur.d) <= 0)	\
					break;					\
				swap_items(&x[j - 1], &x[j]);			\
			}							\
		}								\
		if (!st.n)							\
			break;							\
		cur = st.v[--st.n];						\
	}									\
	free(st.v);								\
	return 0;								\
fail:										\
	free(st.v);								\
	return -1;								\
}

MKQS_DEFINE(mkqs_bytes, uint64_t, key_bytes, end_bytes)
MKQS_DEFINE(mkqs_ranks, uint64_t, key_ranks, end_ranks)

typedef int (*mkqs_fn)(struct fg_sortkey *a, struct part cur, size_t defer, struct parts *out);

/* Below this many keys one thread sorts. */
#define PARALLEL_MIN 32768

struct shared {
	pthread_mutex_t lock;
	struct fg_sortkey *a;
	const struct parts *todo;
	size_t next;
	mkqs_fn fn;
	int err;
};

static void *sort_parts(void *arg)
{
	struct shared *sh = arg;

	for (;;) {
		pthread_mutex_lock(&sh->lock);
		size_t i = sh->next++;
		pthread_mutex_unlock(&sh->lock);
		if (i >= sh->todo->n)
			return NULL;
		if (sh->fn(sh->a, sh->todo->v[i], 0, NULL)) {
			pthread_mutex_lock(&sh->lock);
			sh->err = 1;
			pthread_mutex_unlock(&sh->lock);
		}
	}
}

static int larger_first(const void *x, const void *y)
{
	const struct part *a = x, *b = y;

	return a->n < b->n ? 1 : a->n > b->n ? -1 : 0;
}

static int sort_keys(struct fg_sortkey *a, size_t n, mkqs_fn fn)
{
	struct part all = { 0, n, 0, 0, split_budget(n) };
	struct parts todo = { 0 };

	if (n < PARALLEL_MIN)
		return fn(a, all, 0, NULL);
	if (fn(a, all, n / 32, &todo)) {
		free(todo.v);
		return -1;
	}
	if (todo.n)	/* none when the heapsort took over the whole */
		qsort(todo.v, todo.n, sizeof(*todo.v), larger_first);
	struct shared sh = { PTHREAD_MUTEX_INITIALIZER, a, &todo, 0, fn, 0 };
	fg_both(sort_parts, &sh, &sh);	/* both take parts from the list */
	free(todo.v);
	if (sh.err)
		errno = ENOMEM;	/* sorting fails only to grow (errno is per thread) */
	return sh.err ? -1 : 0;
}

int fg_sort_bytes(struct fg_sortkey *a, size_t n)
{
	return sort_keys(a, n, mkqs_bytes);
}

int fg_sort_ranks(struct fg_sortkey *a, size_t n)
{
	return sort_keys(a, n, mkqs_ranks);
}
