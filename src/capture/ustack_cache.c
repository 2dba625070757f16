/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ustack_cache.c - user space's side of the user stack cache
 * (bpf/ustack_cache.bpf.h): say what it did.  The BPF side needs nothing
 * found for it (capture.c turns it on, with the CFI walker).
 */
#include <stdio.h>
#include "ustack_cache.h"
#include "stack_cache.h"
#include "common/util.h"

void ustack_cache_add_hits(const uint64_t *hits,
			   uint64_t (*uw)[OW_UW_NR], uint64_t *uc)
{
	for (unsigned side = 0; side < OW_UW_SIDES; side++)
		for (unsigned cls = 0; cls <= OW_UW_NR; cls++)
			for (unsigned stop = 0; stop < OW_UW_NR; stop++)
				for (unsigned unf = 0; unf < 2; unf++) {
					uint64_t n = hits[OW_UC_HIT_IDX(side, cls, stop, unf)];

					if (!n)
						continue;
					uc[OW_UC_HIT] += n;
					if (cls == OW_UW_NR)	/* frame pointers:
								 * not counted */
						continue;
					uw[side][cls] += n;
					if (stop == OW_UW_END_ENTRY)
						uw[side][OW_UW_END] += n;
					uw[side][stop] += n;
					if (unf)
						uw[side][OW_UW_UNFOLLOWED] += n;
				}
}

void ustack_cache_report(const uint64_t *uc)
{
	static const char *const why[OW_UC_NR] = {
		[OW_UC_OPEN] = "not walked to an outermost frame",
		[OW_UC_FRAMES] = "with a signal's, realigned or rbx-based frame",
		[OW_UC_DEEP] = "too deep",
		[OW_UC_SPREAD] = "spread too far on the stack",
	};
	char rest[512];

	ow_counts_list(rest, sizeof(rest), uc, why, OW_UC_OPEN, OW_UC_MISMATCH);
	stack_cache_line(&(struct stack_cache_counts){
		.what = "user stacks", .hit = uc[OW_UC_HIT],
		.walked = uc[OW_UC_WALKED], .learned = uc[OW_UC_LEARNED],
		.walked_note = "", .not_kept = rest,
		.mismatch = uc[OW_UC_MISMATCH], .walk = "the walk",
		.check = "OFFWAKE_USTACK_CHECK" });
}
