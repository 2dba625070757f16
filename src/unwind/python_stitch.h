/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python_stitch.h - the order a user stack's frames are shown in when it
 * carries Python frames: each native frame of the interpreter's loop
 * replaced by the Python frames it ran.
 */
#ifndef OW_PYTHON_STITCH_H
#define OW_PYTHON_STITCH_H

#include <stdbool.h>
#include <stdint.h>

/* The name of the native function that runs Python frames. */
#define PY_EVAL_NAME	"_PyEval_EvalFrameDefault"

/* Whether entry i of the stack is a native frame of PY_EVAL_NAME. */
typedef bool (*py_is_eval)(void *ctx, uint32_t i);

/*
 * The entries of ips (nr, leaf first: native frames, then the Python
 * frames the BPF walker appended, unwind_python.h) in the order shown,
 * into order (room for nr): indices into ips.  Returns how many.
 */
uint32_t py_stitch(const uint64_t *ips, uint32_t nr, py_is_eval is_eval,
		   void *ctx, uint32_t *order);

#endif
