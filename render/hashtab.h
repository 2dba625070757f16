/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hashtab.h - the small hashing pieces shared by the stack set and the
 * merge: a fast byte hash and an open-addressing table of 32-bit ids
 * whose keys live with the caller (the caller compares).  Internal to
 * render/: callers outside get the hash as fg_hash() (fg.h); the capture
 * side's table (src/common/htab.h) says why it is a different table.
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

static inline uint64_t fg_load64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t fg_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ len, a, b;

	if (len >= 8) {
		size_t i = 0;
		for (; i + 16 < len; i += 16)
			h = fg_mix(fg_load64(p + i) ^ h, fg_load64(p + i + 8) ^ 0x8ebc6af09c88c6e3ULL);
		/* the last 8..16 bytes, possibly overlapping what came before */
		a = fg_load64(p + (len - i > 8 ? i : len - 8));
		b = fg_load64(p + len - 8);
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
	return fg_mix(a ^ h, b ^ 0x1d8e4e27c47d124fULL);
}

/* Open-addressing table of ids; a slot keeps the id (+1, so 0 = empty)
 * and 32 bits of the key's hash, which also place it. */
struct fg_slot {
	uint32_t id;
	uint32_t h;
};

struct fg_idtab {
	struct fg_slot *slot;
	size_t mask;	/* capacity - 1 */
	size_t used;
};

static inline uint32_t fg_h32(uint64_t h)
{
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

int fg_idtab_init(struct fg_idtab *t, size_t cap_pow2);
void fg_idtab_free(struct fg_idtab *t);
/* Fill slot i (found empty by the caller's probe), growing the table when
 * more than 5/8 full; returns -1 on allocation failure. */
int fg_idtab_put(struct fg_idtab *t, size_t i, uint32_t id, uint32_t h);

#endif
