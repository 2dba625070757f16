/* SPDX-License-Identifier: Apache-2.0 */
/*
 * usyms.h - user-space symbol lookup: process mappings + ELF symbols.
 */
#ifndef OW_USYMS_H
#define OW_USYMS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "procmaps.h"

/* What the bounds on a traced user's files left out (usyms_report()). */
enum {
	USYMS_LOST_CUT,		/* names cut at their bound */
	USYMS_LOST_SYMS,	/* symbols over a file's bounds */
	USYMS_LOST_DBG_BIG,	/* debug files refused: too large */
	USYMS_LOST_DBG_OWNER,	/* ... another user's */
	USYMS_LOST_DBG_LINK,	/* debug links with a '/' */
	USYMS_LOST_DBG_CRC,	/* CRC checks cut short */
	USYMS_LOST_NR
};

struct usyms;

struct usyms *usyms_new(struct procmaps *pm);
void usyms_free(struct usyms *u);

/*
 * Function name (demangled) at addr in process tgid, or NULL; valid until
 * the next usyms_sweep().
 */
const char *usyms_name(struct usyms *u, uint32_t tgid, uint64_t addr);
/*
 * Whether addr in tgid is in a file whose names wait for its debug file
 * from debuginfod (no symbols here, DEBUGINFOD_URLS set): then *file
 * and *vaddr say where it is, for usyms_deferred_name() after
 * usyms_fetch().  Such files are kept till usyms_free().
 */
bool usyms_deferred(struct usyms *u, uint32_t tgid, uint64_t addr,
		    const void **file, uint64_t *vaddr);
/*
 * Whether addr in tgid is JIT code (anonymous memory) of a process whose
 * perf map we read but which has no line for it (yet): the runtime may
 * write it later, usyms_jit_name_now() reads the map again at the end.
 */
bool usyms_jit_late(struct usyms *u, uint32_t tgid, uint64_t addr);
const char *usyms_jit_name_now(struct usyms *u, uint32_t tgid, uint64_t addr);
/* Fetch the debug files of the deferred files asked about (debuginfod.c:
 * within its deadline); each is used only if its build id is the file's. */
void usyms_fetch(struct usyms *u);
/* The name at vaddr in a deferred file, or NULL; its "[basename]". */
const char *usyms_deferred_name(struct usyms *u, const void *file,
				uint64_t vaddr);
const char *usyms_deferred_label(const void *file);
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
/*
 * The capture's stop flag (set by SIGINT): a debug file's CRC check
 * that is under way when it is set ends there (the file not used).
 */
void usyms_stop_flag(struct usyms *u, const volatile sig_atomic_t *stop);
/* One warning line for what was left out, if anything (and the JIT
 * maps', perfmaps_report()). */
void usyms_report(const struct usyms *u);
/* The ELF files and JIT maps kept, and the bytes their symbols take. */
void usyms_counts(const struct usyms *u, size_t *files, size_t *jits,
		  size_t *bytes);

#endif
