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

/* Name of the function containing addr, or NULL when unknown. */
const char *ksyms_name(const struct ksyms *k, uint64_t addr);

#endif
