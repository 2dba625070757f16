// SPDX-License-Identifier: Apache-2.0
/*
 * chain.c - a fixture for the unwind table tests (tests/unit_src/t_unwind.c
 * builds it -O2 -fomit-frame-pointer as a shared library, with .eh_frame
 * and again with .debug_frame only): one function of each frame shape the
 * table builder must describe.  leaf: no frame (CFA rsp+8 throughout);
 * saver: pushes callee-saved registers, rbp among them (the CFA offset
 * grows by 8 per push, rbp saved at CFA - offset); bigframe: a frame of
 * more than 32 KiB (OW_CFA_RSP_X8); vla: alloca makes GCC keep a frame
 * pointer (CFA rbp+16, rbp at CFA-16); chain_main calls write() through
 * the PLT.
 */
#include <alloca.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE int leaf(int x)
{
	return x * 3 + sink;
}

NOINLINE int saver(int a, int b, int c, int d, int e, int f)
{
	int r = leaf(a);

	r += leaf(b + r);
	r += leaf(c + r) * a;
	r += leaf(d + r) * b;
	r += leaf(e + r) * c;
	r += leaf(f + r) * d;
	return r + a + b + c + d + e + f;
}

NOINLINE int bigframe(int n)
{
	volatile char buf[40000];

	buf[n] = 1;
	return buf[n / 2] + leaf(n);
}

NOINLINE int vla(int n)
{
	char *p = alloca(n);

	memset(p, 1, n);
	return leaf(p[n / 2]);
}

int chain_main(int n)
{
	char c = 0;

	return saver(n, 1, 2, 3, 4, 5) + bigframe(n) + vla(n) +
	       (int)write(1, &c, 0);
}
