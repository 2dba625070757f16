// SPDX-License-Identifier: Apache-2.0
/*
 * go_ends.c - the Go runtime's outermost frames, from a Go binary's
 * pclntab: the functions at the top of each stack Go code runs on.  Go
 * code has no .eh_frame (its .debug_frame, when not stripped, describes
 * each function as if called on the same stack), so without these the
 * walker reads on past them: the words above a g0 stack's top are stale
 * (the main thread's hold the return address of rt0_go's call of
 * runtime.newproc, then garbage: "[unknown];runtime.newproc.abi0" under
 * every idle scheduler stack), and no walk through Go code ends at an
 * outermost frame.  native_tables.c gives these ranges OW_CFA_END.
 *
 * Names are matched with and without the ".abi0" suffix .symtab gives
 * assembly functions (Go 1.17+; the pclntab has none).  The ABI wrapper
 * Go code calls an assembly function through has the same pclntab name
 * (runtime.asmcgocall: two functions) and is given END too: the walk
 * ends in the function it calls first, so only a thread interrupted in
 * the wrapper itself loses the goroutine's frames.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "go_ends.h"
#include "symbols/gopclntab.h"

/* The functions, and why each is what it is. */
static const struct {
	const char *name;
	enum uw_go_kind kind;
} go_end_names[] = {
	{ "runtime.goexit", UW_GO_END },	/* a goroutine's: its first
						 * function's caller */
	{ "runtime.mstart", UW_GO_END },	/* a thread's g0 stack (clone,
						 * crosscall_amd64) */
	{ "runtime.rt0_go", UW_GO_END },	/* the main thread's, before
						 * mstart */
	{ "runtime.mcall", UW_GO_END },		/* g0 entered from a goroutine
						 * (gopark): the caller's frame
						 * is on the goroutine's stack */
	{ "runtime.systemstack", UW_GO_END },	/* the same (called on g0, it
						 * tail-calls: a return address
						 * in it is past a switch) */
	{ "runtime.morestack", UW_GO_END },	/* g0 for newstack: the same */
	{ "runtime.asmcgocall", UW_GO_END },	/* g0 for a C call: the same */
	{ "runtime.nanotime1", UW_GO_BY_RBP },	/* g0 for the vDSO, and back */
	{ "runtime.walltime", UW_GO_BY_RBP },	/* the same (Go 1.17-1.22) */
	{ "runtime.walltime1", UW_GO_BY_RBP },	/* the same (Go 1.16) */
	{ "time.now", UW_GO_BY_RBP },		/* the same (Go 1.17+) */
	{ "runtime.vgetrandom1", UW_GO_BY_RBP },/* the same (Go 1.24+) */
};

#define NNAMES	(sizeof(go_end_names) / sizeof(*go_end_names))

struct collect {
	struct uw_go_end *v;
	size_t n, nbad;
};

/* name's kind, or -1: not one of them */
static int kind_of(const char *name)
{
	size_t i, k;

	for (i = 0; i < NNAMES; i++) {
		k = strlen(go_end_names[i].name);
		if (!strncmp(name, go_end_names[i].name, k) &&
		    (!name[k] || !strcmp(name + k, ".abi0")))
			return go_end_names[i].kind;
	}
	return -1;
}

static void add_fn(void *ctx, uint64_t addr, uint64_t size, const char *name)
{
	struct collect *c = ctx;
	int kind = kind_of(name);

	if (kind < 0)
		return;
	if (!size || addr + size < addr || c->n >= UW_GO_ENDS) {
		c->nbad++;
		return;
	}
	c->v[c->n++] = (struct uw_go_end){ addr, addr + size, kind };
}

static int end_cmp(const void *a, const void *b)
{
	const struct uw_go_end *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

size_t uw_go_ends(Elf *elf, struct uw_go_end v[UW_GO_ENDS], size_t *nbad)
{
	struct collect c = { v, 0, 0 };
	size_t i, n = 0;

	if (!gopclntab_read(elf, add_fn, &c))
		return 0;
	qsort(v, c.n, sizeof(*v), end_cmp);
	for (i = 0; i < c.n; i++) {
		if (n && v[i].lo < v[n - 1].hi) {
			c.nbad++;
			continue;
		}
		v[n++] = v[i];
	}
	*nbad += c.nbad;
	return n;
}
