/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gopclntab.h - function names of Go binaries from their pclntab, for
 * binaries whose .symtab is stripped (go build -ldflags=-s, Debian's Go
 * packages).
 */
#ifndef OW_GOPCLNTAB_H
#define OW_GOPCLNTAB_H

#include <gelf.h>
#include <stdint.h>

/* Called for each function: its ELF virtual address, size and name. */
typedef void gopcln_fn(void *ctx, uint64_t addr, uint64_t size,
		       const char *name);

/*
 * Read the functions of elf's pclntab (Go 1.16 to today: the layouts of
 * 1.16/1.17, 1.18/1.19 and 1.20+), found by its section or, in a Go
 * binary without section headers, by its header.  Returns
 * how many were given to fn; 0 when elf is not a Go binary.
 */
size_t gopclntab_read(Elf *elf, gopcln_fn *fn, void *ctx);

#endif
