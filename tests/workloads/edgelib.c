/* SPDX-License-Identifier: Apache-2.0 */
/* edgelib.c - a tiny shared library: t_unwind_edges.sh loads hundreds of
 * copies of it into tests/workloads/edges.c (edges libs DIR); built with
 * -DEDGE_CTOR, its constructor blocks (edges ctor LIB): a library whose
 * code runs, and blocks, before any table of it can be in place. */
#ifdef EDGE_CTOR
#include <time.h>

/* one block of 0.8 s: its stack is taken once, at its start */
__attribute__((noinline)) static void ctor_wait(void)
{
	struct timespec ts = { 0, 800000000 };

	nanosleep(&ts, NULL);
}

__attribute__((constructor)) static void edgelib_ctor(void)
{
	ctor_wait();
}
#endif
int edgelib_one(void)
{
	return 1;
}
