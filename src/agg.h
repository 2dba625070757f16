/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agg.h - user-space sums of blocked time per aggregation key, filled by
 * draining the kernel's counts maps during the capture.
 */
#ifndef OW_AGG_H
#define OW_AGG_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include "offwake.h"

struct agg_entry {
	struct ow_key key;
	uint64_t ns;		/* 0: empty slot */
};

struct agg {
	struct agg_entry *tab;	/* open addressing, power-of-two size */
	size_t size, used;
};

int agg_init(struct agg *a);
void agg_free(struct agg *a);
/* Add ns (> 0) to key's sum; 0 or -1 (ENOMEM). */
int agg_add(struct agg *a, const struct ow_key *key, uint64_t ns);

#endif
