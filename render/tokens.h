/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tokens.h - cutting a folded line into frame tokens ("name;"), hashing
 * and comparing them: the ';'s of 64 bytes at once as a bit mask, a hash
 * that needs no loop for the tokens of up to 32 bytes most frames are, and
 * an equality test without a call.
 */
#ifndef FG_TOKENS_H
#define FG_TOKENS_H

#include <stdint.h>
#include <string.h>

#include "hashtab.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Bit i set when p[i] is ';', for the 64 bytes at p. */
static inline uint64_t fg_semis64(const char *p)
{
#ifdef __SSE2__
	const __m128i semi = _mm_set1_epi8(';');
	uint64_t m = 0;

	for (int k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, semi)) << (16 * k);
	}
	return m;
#else
	uint64_t m = 0;

	for (int i = 0; i < 64; i++)
		m |= (uint64_t)(p[i] == ';') << i;
	return m;
#endif
}

/* The same for the n < 64 bytes at p. */
static inline uint64_t fg_semis_tail(const char *p, size_t n)
{
	char b[64] = { 0 };

	memcpy(b, p, n);
	return fg_semis64(b);
}

static inline uint64_t fg_load_le(const char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* Word k of a len-byte string at p, the bytes after len as zeros. */
static inline uint64_t fg_word_at(const char *p, size_t len, size_t k)
{
	static const uint64_t keep[9] = {
		0, 0xff, 0xffff, 0xffffff, 0xffffffffULL, 0xffffffffffULL,
		0xffffffffffffULL, 0xffffffffffffffULL, ~0ULL
	};
	size_t nb = len > 8 * k ? len - 8 * k : 0;

	return fg_load_le(p + 8 * k) & keep[nb > 8 ? 8 : nb];
}

/* The hash of the len bytes at p; avail bytes can be read there (reading
 * 32 at once when it can).  The same bytes always give the same hash. */
static inline uint32_t fg_tok_hash(const char *p, size_t len, size_t avail)
{
	char b[32];

	if (len > 32)
		return fg_h32(ow_hash(p, len));
	if (avail < 32) {
		memset(b, 0, sizeof(b));
		memcpy(b, p, len);
		p = b;
	}
	/* No constant here may equal ow_hash_mix's own: word 3 xored with
	 * 0xe7037ed1a0b428db, as it once was, made a zero factor of every
	 * token up to 24 bytes long, whose bytes 16-23 then did not count.
	 * The words that still zero a factor are invalid UTF-8 whatever
	 * surrounds them, and lines are repaired before they are hashed. */
	return fg_h32(ow_hash_mix(fg_word_at(p, len, 0) ^ len, fg_word_at(p, len, 1) ^ 0x8ebc6af09c88c6e3ULL) ^
		      ow_hash_mix(fg_word_at(p, len, 2) ^ 0x1d8e4e27c47d124fULL,
			     fg_word_at(p, len, 3) ^ 0x589965cc75374cc3ULL));
}

/* memcmp() == 0 for the short strings tokens are, without a call: words,
 * the last one overlapping the one before */
static inline int fg_tok_equal(const char *a, const char *b, size_t len)
{
	uint64_t x, y;

	if (len < 8) {
		for (size_t i = 0; i < len; i++)
			if (a[i] != b[i])
				return 0;
		return 1;
	}
	for (size_t i = 0; i + 8 < len; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	memcpy(&x, a + len - 8, 8);
	memcpy(&y, b + len - 8, 8);
	return x == y;
}

#endif
