/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hashtab.h - the small hashing pieces shared by the stack set and the
 * merge: a fast byte hash and an open-addressing table of 32-bit ids
 * whose keys live with the caller (the caller compares).
 */
#ifndef FG_HASHTAB_H
#define FG_HASHTAB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t fg_mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)(a ^ 0xa0761d6478bd642fULL) * (b ^ 0xe7037ed1a0b428dbULL);
	return (uint64_t)(r >> 64) ^ (uint64_t)r;
}

static inline uint64_t fg_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;
	size_t i = 0;

	for (; i + 16 <= len; i += 16) {
		uint64_t a, b;
		memcpy(&a, p + i, 8);
		memcpy(&b, p + i + 8, 8);
		h = fg_mix(a ^ h, b ^ 0x8ebc6af09c88c6e3ULL);
	}
	if (i + 8 <= len) {
		uint64_t a;
		memcpy(&a, p + i, 8);
		h = fg_mix(a ^ h, 0x589965cc75374cc3ULL);
		i += 8;
	}
	uint64_t t = 0;
	for (size_t k = 0; i < len; i++, k++)
		t |= (uint64_t)p[i] << (8 * k);
	return fg_mix(h ^ t, 0x1d8e4e27c47d124fULL ^ len);
}

/* Open-addressing table of ids (0 = empty slot, so ids are stored +1). */
struct fg_idtab {
	uint32_t *slot;
	uint64_t *hash;	/* full hash per slot, to skip most key compares */
	size_t mask;	/* capacity - 1 */
	size_t used;
};

int fg_idtab_init(struct fg_idtab *t, size_t cap_pow2);
void fg_idtab_free(struct fg_idtab *t);
/* Grow when more than 5/8 full; returns -1 on allocation failure. */
int fg_idtab_reserve(struct fg_idtab *t);

#endif
