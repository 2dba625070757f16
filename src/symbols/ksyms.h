/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ksyms.h - kernel symbol lookup from /proc/kallsyms.
 */
#ifndef OW_KSYMS_H
#define OW_KSYMS_H

#include <stdint.h>

struct ksyms;

/* Load and sort /proc/kallsyms (or path); NULL with errno on failure. */
struct ksyms *ksyms_load(const char *path);
void ksyms_free(struct ksyms *k);

/* Where the function name is, with the labels inside it (symbols whose
 * names start with name): [*lo, *hi), 0; -1 when there is no such
 * function or nothing after it. */
int ksyms_extent(const struct ksyms *k, const char *name, uint64_t *lo,
		 uint64_t *hi);

/* Name of the function containing addr, or NULL when unknown. */
const char *ksyms_name(const struct ksyms *k, uint64_t addr);

#endif
