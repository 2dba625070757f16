// SPDX-License-Identifier: Apache-2.0
/*
 * python_stitch.c - Python frames stitched into the native stack they
 * were taken with.  Since 3.11 one call of _PyEval_EvalFrameDefault runs
 * several Python frames: those from the one it was running when it
 * called out (the innermost not yet given) up to the frame it was
 * entered with (is_entry).  So, leaf first, each native frame of
 * _PyEval_EvalFrameDefault is replaced by the next run of Python frames
 * up to and including an entry frame; the other native frames stay where
 * they are (C extensions, the lock's C code, the thread's start).
 * Python frames left over (the native walk stopped short of the outer
 * interpreter calls) go after the last native frame: they are the outer
 * callers.  Interpreter calls left over (the Python walk was cut) stay
 * native frames.
 */
#include <linux/types.h>
#include "python_stitch.h"
#include "offwake.h"
#include "unwinder.h"

uint32_t py_stitch(const uint64_t *ips, uint32_t nr, py_is_eval is_eval,
		   void *ctx, uint32_t *order)
{
	uint32_t native = ow_uw_native_frames(ips, nr), py = native, k = 0;

	for (uint32_t i = 0; i < native; i++) {
		if (py >= nr || !is_eval(ctx, i)) {
			order[k++] = i;
			continue;
		}
		while (py < nr) {
			uint64_t v = OW_FRAME_VALUE(ips[py]);

			order[k++] = py++;
			if (OW_PY_IS_ENTRY(v))
				break;
		}
	}
	while (py < nr)
		order[k++] = py++;
	return k;
}
