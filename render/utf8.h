/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8.h - the UTF-8 facts the renderer needs: validation with U+FFFD
 * repair, code point counting and slicing (flamegraph.pl works on code
 * points), and Perl's \s whitespace class.
 */
#ifndef FG_UTF8_H
#define FG_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length of the longest valid UTF-8 prefix of s[0..len). */
size_t utf8_valid_prefix(const char *s, size_t len);
/*
 * Copy s to a new buffer replacing each invalid byte sequence with U+FFFD.
 * Returns the new length in *outlen; NULL on allocation failure.
 */
char *utf8_repair(const char *s, size_t len, size_t *outlen);
/* Decode one code point at s (valid UTF-8 assumed); returns its length. */
int utf8_decode(const char *s, size_t len, uint32_t *cp);
/* Number of code points in valid UTF-8. */
size_t utf8_count(const char *s, size_t len);
/* Byte length of the first n code points. */
size_t utf8_prefix_bytes(const char *s, size_t len, size_t n);
/*
 * If the text ending at s+len ends with a Perl \s character, return its
 * byte length, else 0.
 */
int perl_space_before(const char *s, size_t len);

#endif
