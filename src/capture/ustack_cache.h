/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ustack_cache.h - user space's side of the user stack cache
 * (bpf/ustack_cache.bpf.h): what it did.
 */
#ifndef OW_USTACK_CACHE_US_H
#define OW_USTACK_CACHE_US_H

#include <stdint.h>
#include <linux/types.h>
#include "offwake.h"

/* One line of what the cache did (counts by enum ow_uc_stat), if any. */
void ustack_cache_report(const uint64_t *uc);

#endif
