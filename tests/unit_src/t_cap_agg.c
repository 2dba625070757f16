// SPDX-License-Identifier: Apache-2.0
/*
 * t_cap_agg.c - unit tests of the capture's aggregation table
 * (src/capture/agg.c): blocked-time sums per key stay exact over many
 * adds and table growths, keys that differ in any one byte (the chain
 * levels' too) are distinct, even two keys of the same hash, entries
 * stay in order of arrival, and a freed table is empty and usable
 * again.  No root, no BPF.
 */
#include <stdlib.h>
#include <string.h>
#include "capture/agg.h"
#include "check.h"

#define NKEYS	5000	/* five growths of the index past its first 1024 */
#define ROUNDS	7

/* Key i: distinct in one field chosen by i, so that every part counts. */
static void make_key(struct ow_key *k, unsigned i)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->target, "target", 7);
	switch (i % 5) {
	case 0:
		k->t_kstack = OW_STACK_HASH | i;
		break;
	case 1:
		k->w_ustack = OW_STACK_HASH | i;
		break;
	case 2:
		k->t_pid = i;
		break;
	case 3:
		k->up[OW_CHAIN_MAX - 2].tgid = i;	/* the last byte range */
		break;
	default:
		k->waker[i % (OW_COMM_LEN - 1)] = 'a' + i % 26;
		k->w_tgid = i;
		break;
	}
}

/* What round r adds to key i: all different, some near 2^40. */
static uint64_t amount(unsigned i, unsigned r)
{
	return (uint64_t)(i + 1) * 1000003 + r * ((uint64_t)1 << 40) + r;
}

static void test_sums(void)
{
	struct agg a = { 0 };
	struct ow_key k;
	unsigned bad_ret = 0, bad_sum = 0, bad_order = 0;

	for (unsigned r = 0; r < ROUNDS; r++)
		for (unsigned i = 0; i < NKEYS; i++) {
			struct agg_entry *e;

			make_key(&k, i);
			e = agg_add(&a, &k, amount(i, r));
			bad_ret += !e || memcmp(&e->key, &k, sizeof(k));
		}
	check(!bad_ret, "agg: add returns the key's own entry",
	      "%u adds returned another key's entry or NULL", bad_ret);
	check(a.n == NKEYS, "agg: one entry per distinct key",
	      "%zu entries for %d keys", a.n, NKEYS);
	for (unsigned i = 0; i < a.n && i < NKEYS; i++) {
		uint64_t want = 0;

		for (unsigned r = 0; r < ROUNDS; r++)
			want += amount(i, r);
		make_key(&k, i);
		bad_order += memcmp(&a.ent[i].key, &k, sizeof(k)) != 0;
		bad_sum += a.ent[i].ns != want;
	}
	check(!bad_order, "agg: entries in order of arrival",
	      "%u entries out of place", bad_order);
	check(!bad_sum, "agg: sums exact over 7 rounds of 5000 keys",
	      "%u sums wrong", bad_sum);
	check(a.size >= 2 * a.n && !(a.size & (a.size - 1)),
	      "agg: index at most half full, a power of two",
	      "%zu slots for %zu entries", a.size, a.n);
	for (unsigned i = 0; i < a.n; i++)
		bad_ret += a.ent[i].stk[KS_T_USER] || a.ent[i].up[0][LS_USER];
	check(!bad_ret, "agg: new entries have no symbolised stacks",
	      "%u entries with stacks set", bad_ret);
	agg_free(&a);
	check(!a.n && !a.ent && !a.slots && !a.size, "agg: free empties it",
	      "n %zu size %zu", a.n, a.size);
}

static void test_last_byte(void)
{
	struct agg a = { 0 };
	struct ow_key k1, k2;
	struct agg_entry *e;

	make_key(&k1, 3);
	k2 = k1;
	((unsigned char *)&k2)[sizeof(k2) - 1] ^= 1;	/* last byte */
	agg_add(&a, &k1, UINT64_MAX / 2);
	e = agg_add(&a, &k2, 5);
	agg_add(&a, &k1, UINT64_MAX / 2);
	check(a.n == 2 && e && a.ent[0].ns == UINT64_MAX - 1 &&
	      a.ent[1].ns == 5,
	      "agg: keys differing in their last byte are two sums",
	      "%zu entries, sums %llu %llu", a.n,
	      (unsigned long long)a.ent[0].ns,
	      (unsigned long long)(a.n > 1 ? a.ent[1].ns : 0));
	agg_free(&a);
	e = agg_add(&a, &k2, 9);
	check(e && a.n == 1 && e->ns == 9, "agg: usable again after free",
	      "n %zu", a.n);
	agg_free(&a);
}

/*
 * The step of agg.c's key hash, to make two keys of one hash: whether
 * they have is checked in the index (the slots keep the hashes).
 */
static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	return h ^ h >> 32;
}

static void test_same_hash(void)
{
	struct agg a = { 0 };
	struct ow_key k1, k2;
	uint64_t w1[2], w2[2], hashes[2];
	int nh = 0;

	make_key(&k1, 7);
	k2 = k1;
	memcpy(w1, &k1, sizeof(w1));
	w2[0] = w1[0] ^ 0x55;
	/* word 1 undoes word 0's difference: the rest hashes the same */
	w2[1] = mix(0, w1[0]) ^ w1[1] ^ mix(0, w2[0]);
	memcpy(&k2, w2, sizeof(w2));
	agg_add(&a, &k1, 100);
	agg_add(&a, &k2, 20);
	agg_add(&a, &k1, 3);
	for (size_t i = 0; i < a.size && nh < 2; i++)
		if (a.slots[i].idx)
			hashes[nh++] = a.slots[i].hash;
	if (nh == 2 && hashes[0] != hashes[1])
		printf("SKIP: agg: two keys of one hash: agg.c's hash changed\n");
	else
		check(a.n == 2 && a.ent[0].ns == 103 && a.ent[1].ns == 20,
		      "agg: two keys of one hash are two sums",
		      "%zu entries", a.n);
	agg_free(&a);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_sums();
	test_last_byte();
	test_same_hash();
	return failed;
}
