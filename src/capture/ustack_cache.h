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

/*
 * Add the hits, counted by the walks they stand for (hits: the uc_hits
 * map's OW_UC_HITS sums, OW_UC_HIT_IDX()), into the walks' counts (uw,
 * the unwind_stats map's) and the cache's (uc, enum ow_uc_stat): as the
 * walks would have counted them.
 */
void ustack_cache_add_hits(const uint64_t *hits,
			   uint64_t (*uw)[OW_UW_NR], uint64_t *uc);

/* One line of what the cache did (counts by enum ow_uc_stat), if any. */
void ustack_cache_report(const uint64_t *uc);

#endif
