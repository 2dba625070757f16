/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8.c - UTF-8 validation, repair, code point counting, and Perl's
 * Unicode whitespace class (used by the folded-line grammar).
 */
#include "utf8.h"
#include "base/utf8seq.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_valid_prefix(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		/* fast path: 8 ASCII bytes at a time */
		while (i + 8 <= len) {
			uint64_t w;
			memcpy(&w, p + i, 8);
			if (w & 0x8080808080808080ULL)
				break;
			i += 8;
		}
		if (i >= len)
			break;
		int n = ow_utf8_seq_len(p + i, len - i);
		if (!n)
			return i;
		i += n;
	}
	return len;
}

char *utf8_repair(const char *s, size_t len, size_t *outlen)
{
	char *out = malloc(len * 3 + 1);
	size_t o = 0, i = 0;

	if (!out)
		return NULL;
	while (i < len) {
		int n = ow_utf8_seq_len((const unsigned char *)s + i, len - i);
		if (n) {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		}
	}
	out[o] = 0;
	*outlen = o;
	return out;
}

int utf8_decode(const char *s, size_t len, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	int n = ow_utf8_seq_len(p, len);

	switch (n) {
	case 1: *cp = p[0]; return 1;
	case 2: *cp = (p[0] & 0x1F) << 6 | (p[1] & 0x3F); return 2;
	case 3: *cp = (p[0] & 0x0F) << 12 | (p[1] & 0x3F) << 6 | (p[2] & 0x3F); return 3;
	case 4: *cp = (p[0] & 0x07) << 18 | (p[1] & 0x3F) << 12 | (p[2] & 0x3F) << 6 |
		      (p[3] & 0x3F); return 4;
	}
	*cp = 0xFFFD;
	return 1;
}

size_t utf8_count(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

size_t utf8_prefix_bytes(const char *s, size_t len, size_t n)
{
	size_t i = 0;

	while (i < len && n) {
		i++;
		while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		n--;
	}
	return i;
}

static int is_perl_space(uint32_t c)
{
	return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 ||
	       c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
	       c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

int perl_space_before(const char *s, size_t len)
{
	if (!len)
		return 0;
	unsigned char c = s[len - 1];
	if (c < 0x80)
		return is_perl_space(c) ? 1 : 0;
	/* find the start of the last code point */
	size_t i = len - 1;
	while (i > 0 && len - i < 4 && ((unsigned char)s[i] & 0xC0) == 0x80)
		i--;
	uint32_t cp;
	int n = utf8_decode(s + i, len - i, &cp);
	if (i + n != len)
		return 0;
	return is_perl_space(cp) ? n : 0;
}
