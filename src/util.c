// SPDX-License-Identifier: Apache-2.0
/*
 * util.c - error reporting and array growth shared by the capture modules.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "util.h"

void ow_err(const char *fmt, ...)
{
	va_list ap;

	fputs(OW_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int ow_grow(void *arr, size_t *cap, size_t n, size_t sz)
{
	void **p = arr;
	size_t ncap;
	void *np;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap <= n)
		ncap *= 2;
	np = realloc(*p, ncap * sz);
	if (!np) {
		errno = ENOMEM;
		return -1;
	}
	*p = np;
	*cap = ncap;
	return 0;
}
