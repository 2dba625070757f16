/* SPDX-License-Identifier: Apache-2.0 */
/*
 * safetext.h - text that traced processes and other local users control
 * (file names, thread names, their stderr) made safe to show on root's
 * terminal: C0 controls, DEL, C1 controls (raw bytes 0x80-0x9f and
 * U+0080-U+009F) and invalid UTF-8 never pass as they are.
 */
#ifndef OW_SAFETEXT_H
#define OW_SAFETEXT_H

#include <stddef.h>
#include <stdio.h>

/* What may pass besides printable ASCII and valid UTF-8 other than C1. */
enum {
	OW_TEXT_LINES = 1,	/* '\n' and '\t' (messages) */
};

/*
 * How many bytes at the start of s[0..len) may be shown as they are;
 * *bad: how many bytes after them may not (1, or 2 for a C1 control
 * written in UTF-8; 0 when all of s may).
 */
size_t ow_text_span(const char *s, size_t len, unsigned flags, size_t *bad);
/*
 * s[0..len) into out (size bytes, NUL-terminated when size > 0) with each
 * byte that may not be shown written \xNN ("\x1b"), as snprintf: returns
 * the length of all of it; a cut keeps whole characters and escapes.
 */
size_t ow_text_escape(char *out, size_t size, const char *s, size_t len,
		      unsigned flags);

/*
 * Make stderr a stream that writes all it is given escaped (\n and \t
 * kept), so that no message can carry a name's control sequences to a
 * terminal; ow_stderr_raw() is the stream it replaced, for our own
 * control sequences (the progress line).  0 or -1 (stderr unchanged).
 */
int ow_stderr_escape(void);
FILE *ow_stderr_raw(void);

#endif
