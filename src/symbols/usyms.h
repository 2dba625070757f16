/* SPDX-License-Identifier: Apache-2.0 */
/*
 * usyms.h - user-space symbol lookup: process mappings + ELF symbols.
 */
#ifndef OW_USYMS_H
#define OW_USYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "procmaps.h"

struct usyms;

struct usyms *usyms_new(struct procmaps *pm);
void usyms_free(struct usyms *u);

/*
 * Function name (demangled) at addr in process tgid, or NULL; valid until
 * the next usyms_sweep().
 */
const char *usyms_name(struct usyms *u, uint32_t tgid, uint64_t addr);
/*
 * What names a frame without a symbol, as perf and stackcollapse-perf.pl
 * do: the mapping's file, "[libc.so.6]"; "[vdso]" and alike as the maps
 * name them, "[anon]" for anonymous memory; NULL when addr is in no
 * mapping.  Valid until the next usyms_sweep() or maps learnt.
 */
const char *usyms_file_name(struct usyms *u, uint32_t tgid, uint64_t addr);
/* Forget the files not used since the last max_idle calls (0: all), and
 * the JIT maps of processes gone a few calls. */
void usyms_sweep(struct usyms *u, unsigned max_idle);
/*
 * Whether addr in tgid is known to be code of a non-PIE executable, which
 * every process maps at the same address (else it is taken to be
 * randomised).
 */
bool usyms_fixed(struct usyms *u, uint32_t tgid, uint64_t addr);
/* The ELF files and JIT maps kept, and the bytes their symbols take. */
void usyms_counts(const struct usyms *u, size_t *files, size_t *jits,
		  size_t *bytes);

#endif
