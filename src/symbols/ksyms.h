/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ksyms.h - kernel symbol lookup from /proc/kallsyms.
 */
#ifndef OW_KSYMS_H
#define OW_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksyms;
struct ksyms_read;

/* Load and sort /proc/kallsyms (or path); NULL with errno on failure. */
struct ksyms *ksyms_load(const char *path);

/* ksyms_load(path) on a thread of its own (start-up reads kallsyms while
 * the BPF programs load); NULL when no thread could start. */
struct ksyms_read *ksyms_load_async(const char *path);
/* Its result, once read (what ksyms_load() returned, errno too). */
struct ksyms *ksyms_load_wait(struct ksyms_read *r);

/* Functions kallsyms did not list when read (BPF programs loaded since):
 * each [addr, addr + len) named name, unnamed past its end (unless a
 * function starts there); 0, or -1 (ENOMEM). */
struct ksyms_extra {
	uint64_t addr;
	uint32_t len;
	const char *name;
};
int ksyms_add(struct ksyms *k, const struct ksyms_extra *v, size_t n);

/* Addresses of data symbols the capture needs besides the text ones,
 * taken in the same pass over kallsyms (the kernel stack cache's ORC
 * table, the kernel text's bounds). */
enum ksyms_mark {
	KSYMS_ORC_IP_START,	/* __start_orc_unwind_ip */
	KSYMS_ORC_IP_STOP,	/* __stop_orc_unwind_ip */
	KSYMS_ORC_START,	/* __start_orc_unwind */
	KSYMS_TEXT_START,	/* _stext */
	KSYMS_TEXT_END,		/* _etext */
	KSYMS_NMARKS
};
/* Its address (the first one kallsyms lists), or 0 when not there. */
uint64_t ksyms_mark(const struct ksyms *k, enum ksyms_mark m);
void ksyms_free(struct ksyms *k);

/* Where the function name is, with the labels inside it (symbols whose
 * names start with name): [*lo, *hi), 0; -1 when there is no such
 * function or nothing after it. */
int ksyms_extent(const struct ksyms *k, const char *name, uint64_t *lo,
		 uint64_t *hi);

/*
 * Who ran a soft IRQ: the first of these found below its entry (towards
 * the root).  A task runs the soft IRQs pending when it enables them
 * again (local_bh_enable(), do_softirq() on its behalf): over loopback,
 * the receipt of the packet it is sending, so it is the cause of what
 * they wake (task).  An interrupt's exit and ksoftirqd run them on
 * nobody's account.  One table for the kernel side's ranges
 * (capture.c) and the folder's names (fold.c).
 */
struct ksyms_caller {
	const char *name;
	bool task;
};
extern const struct ksyms_caller ksyms_softirq_callers[];
extern const size_t ksyms_nsoftirq_callers;

/* Whether name is the function fn, or a copy the compiler made of it
 * (fn.part.0, fn.isra.0, fn.constprop.0, fn.cold). */
bool ksyms_is(const char *name, const char *fn);

/* Name of the function containing addr, or NULL when unknown. */
const char *ksyms_name(const struct ksyms *k, uint64_t addr);

#endif
