/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kstack_cache.h - user space's side of the kernel stack cache
 * (bpf/kstack_cache.bpf.h): where the kernel's ORC table is, and what the
 * cache did.
 */
#ifndef OW_KSTACK_CACHE_US_H
#define OW_KSTACK_CACHE_US_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "offwake.h"

/* The kernel's ORC table and text, from /proc/kallsyms. */
struct kc_orc {
	uint64_t ip, orc, nr, text_lo, text_hi;
};

struct ksyms;

/* Find it, from the kernel's symbols ks (symbols/ksyms.h: their marks); 0,
 * or -1 with *why set (the cache stays off: a kernel without ORC,
 * another ORC layout, no symbols). */
int kstack_cache_find(const struct ksyms *ks, struct kc_orc *t,
		      const char **why);

/* Whether this kernel lets a program load through a number cast to a
 * pointer (bpf_rdonly_cast() to void): kc_read()'s fast way. */
bool kstack_cache_direct(void);

/* One line of what the cache did (counts by enum ow_kc_stat), if any. */
void kstack_cache_report(const uint64_t *kc, const char *off_why);

#endif
