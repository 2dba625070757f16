/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hash.h - the project's 64-bit hash of bytes (fast, not keyed: for
 * tables, not for security), shared by the renderer's tables and the
 * capture side's (names, mappings, diff's stack texts).  Inline: the
 * renderer's interning loop hashes every token.
 */
#ifndef OW_HASH_H
#define OW_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t ow_hash_mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)(a ^ 0xa0761d6478bd642fULL) * (b ^ 0xe7037ed1a0b428dbULL);
	return (uint64_t)(r >> 64) ^ (uint64_t)r;
}

static inline uint64_t ow_hash_load64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t ow_hash(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ len, a, b;

	if (len >= 8) {
		size_t i = 0;
		for (; i + 16 < len; i += 16)
			h = ow_hash_mix(ow_hash_load64(p + i) ^ h, ow_hash_load64(p + i + 8) ^ 0x8ebc6af09c88c6e3ULL);
		/* the last 8..16 bytes, possibly overlapping what came before */
		a = ow_hash_load64(p + (len - i > 8 ? i : len - 8));
		b = ow_hash_load64(p + len - 8);
	} else if (len >= 4) {
		uint32_t x, y;
		memcpy(&x, p, 4);
		memcpy(&y, p + len - 4, 4);
		a = x;
		b = y;
	} else {
		a = len ? (uint64_t)p[0] << 16 | (uint64_t)p[len / 2] << 8 | p[len - 1] : 0;
		b = 0;
	}
	return ow_hash_mix(a ^ h, b ^ 0x1d8e4e27c47d124fULL);
}

#endif
