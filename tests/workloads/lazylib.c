// SPDX-License-Identifier: Apache-2.0
/*
 * lazylib.c - the shared library of lazybind.c: lazy_wait() is an IFUNC,
 * whose resolver blocks in read() on fd 3 (the pipe lazybind.c made)
 * before it picks the implementation.  Under lazy binding the resolver
 * runs inside ld.so, at the first call through the program's PLT:
 * main -> _dl_runtime_resolve_xsavec -> _dl_fixup -> lazy_pick -> read.
 * Linked -z now itself, so that its own call to read() is bound at load.
 */
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone, used))

volatile long lazylib_sink;

static long lazy_impl(long x)
{
	return x + 1;
}

NOINL static long lazy_block(void)
{
	char c;

	while (read(3, &c, 1) == 1)	/* until the writer closes it */
		lazylib_sink += c;
	return 0;
}

NOINL static void *lazy_pick(void)
{
	lazy_block();
	return (void *)lazy_impl;
}

long lazy_wait(long x) __attribute__((ifunc("lazy_pick")));
