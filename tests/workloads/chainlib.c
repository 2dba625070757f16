// SPDX-License-Identifier: Apache-2.0
/*
 * chainlib.c - the lower half of chain.c's call chains (f4..f6, blocking
 * in read(); w4..w6, ending in write()), linked into the program or built
 * as a shared library (-shared -fPIC) for the split variant.  Also used by
 * sigchain.c.  Built -O2 -fomit-frame-pointer -fno-optimize-sibling-calls.
 */
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone, used))

volatile long chainlib_sink;

/* -1 at end of file (the writer is gone) */
NOINL long f6(int fd, long x)
{
	char c;

	chainlib_sink += x * 19;
	if (read(fd, &c, 1) != 1)
		return -1;
	chainlib_sink ^= c + x;
	return x + 6;
}

NOINL long f5(int fd, long x)
{
	long r = f6(fd, x * 23 + 5);

	if (r < 0)
		return r;
	chainlib_sink += r ^ 5;
	return r + 5;
}

NOINL long f4(int fd, long x)
{
	long r = f5(fd, x * 29 + 4);

	if (r < 0)
		return r;
	chainlib_sink += r ^ 4;
	return r + 4;
}

NOINL long w6(int fd, long x)
{
	chainlib_sink -= x * 31;
	if (write(fd, "x", 1) != 1)
		return -1;
	return x - 6;
}

NOINL long w5(int fd, long x)
{
	long r = w6(fd, x * 37 + 5);

	chainlib_sink -= r ^ 5;
	return r - 5;
}

NOINL long w4(int fd, long x)
{
	long r = w5(fd, x * 41 + 4);

	chainlib_sink -= r ^ 4;
	return r - 4;
}
