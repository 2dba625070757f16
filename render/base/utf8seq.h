/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8seq.h - the length of one valid UTF-8 sequence, shared by the
 * renderer's UTF-8 module (render/utf8.c) and the capture side's
 * sanitiser of text from traced processes (src/common/safetext.c).
 */
#ifndef OW_UTF8SEQ_H
#define OW_UTF8SEQ_H

#include <stddef.h>

/* Length of the valid sequence at s (1 for ASCII), or 0 if invalid:
 * truncated, overlong, a surrogate, beyond U+10FFFF. */
static inline int ow_utf8_seq_len(const unsigned char *s, size_t len)
{
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		return len >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
	if (c >= 0xE0 && c <= 0xEF) {
		if (len < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
			return 0;
		if (c == 0xE0 && s[1] < 0xA0)
			return 0;	/* overlong */
		if (c == 0xED && s[1] >= 0xA0)
			return 0;	/* surrogate */
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		if (len < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 ||
		    (s[3] & 0xC0) != 0x80)
			return 0;
		if (c == 0xF0 && s[1] < 0x90)
			return 0;
		if (c == 0xF4 && s[1] >= 0x90)
			return 0;
		return 4;
	}
	return 0;
}

#endif
