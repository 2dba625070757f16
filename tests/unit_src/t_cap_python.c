// SPDX-License-Identifier: Apache-2.0
/*
 * t_cap_python.c - unit tests of the CPython unwinder's user-space parts
 * that need no process: the stitching of Python frames into the native
 * stack (src/unwind/python_stitch.c: each _PyEval_EvalFrameDefault frame
 * replaced by the Python frames up to its entry frame; frames left over on
 * either side) and 3.11's location table (src/unwind/python_names.c's
 * py_line_of(), against the lines CPython's own co_lines() gives for a
 * function with short, one-line, long and no-column entries).  No root.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "offwake.h"
#include "unwind/python_names.h"
#include "unwind/python_stitch.h"
#include "unwind/unwinder.h"
#include "check.h"

#define EVAL	0x1000		/* the native address that is "the loop" */
#define PY(code, entry)	OW_FRAME(OW_FRAME_INTERP, ((code) >> 4) | \
					 ((entry) ? OW_PY_ENTRY : 0))

static bool eval_at(void *ctx, uint32_t i)
{
	return ((const uint64_t *)ctx)[i] == EVAL;
}

/* The stitched order of ips as a string of entries ("n1 p30 ..."). */
static void order_of(const uint64_t *ips, uint32_t nr, char *out)
{
	uint32_t order[64], n = py_stitch(ips, nr, eval_at, (void *)ips, order);

	*out = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t e = ips[order[i]];

		out += sprintf(out, "%s%c%llx", i ? " " : "",
			       OW_FRAME_KIND(e) == OW_FRAME_INTERP ? 'p' : 'n',
			       (unsigned long long)(OW_FRAME_KIND(e) == OW_FRAME_INTERP ?
				       OW_PY_CODE(OW_FRAME_VALUE(e)) : e));
	}
}

static void test_stitch(void)
{
	/* two interpreter calls: 2 frames, then 2 (entries at each end) */
	const uint64_t two[] = { 0x1, EVAL, 0x2, EVAL, 0x3,
				 PY(0x10, 0), PY(0x20, 1), PY(0x30, 0), PY(0x40, 1) };
	/* the Python walk was cut: the outer interpreter call stays */
	const uint64_t cut[] = { 0x1, EVAL, 0x2, EVAL, 0x3, PY(0x10, 1) };
	/* the native walk stopped short: the outer Python callers follow */
	const uint64_t shortn[] = { 0x1, EVAL, 0x2, PY(0x10, 1), PY(0x20, 0),
				    PY(0x30, 1) };
	/* no Python frames: as it was */
	const uint64_t none[] = { 0x1, EVAL, 0x2 };
	char s[512];

	order_of(two, 9, s);
	check(!strcmp(s, "n1 p10 p20 n2 p30 p40 n3"), "python_stitch_two_calls", "%s", s);
	order_of(cut, 6, s);
	check(!strcmp(s, "n1 p10 n2 n1000 n3"), "python_stitch_python_cut", "%s", s);
	order_of(shortn, 6, s);
	check(!strcmp(s, "n1 p10 n2 p20 p30"), "python_stitch_native_short", "%s", s);
	order_of(none, 3, s);
	check(!strcmp(s, "n1 n1000 n2"), "python_stitch_native_only", "%s", s);
	check(ow_uw_native_frames(two, 9) == 5, "python_native_frames", "%u",
	      ow_uw_native_frames(two, 9));
}

/*
 * co_linetable of (first line 2):
 *   def f(a):
 *       x = a + 1
 *       if x > 2:
 *           time.sleep(
 *               0.1)
 *       for i in range(3):
 *           x += i
 *   (two blank lines)
 *       return [y for y in range(x)]
 * and the line of each of its 80 code units, by co_lines().
 */
static const uint8_t table[] = {
	128, 0, 216, 8, 9, 136, 65, 137, 5, 128, 65, 216, 7, 8, 136, 49, 130,
	117, 128, 117, 221, 8, 12, 140, 10, 216, 12, 15, 241, 3, 1, 9, 17, 244,
	0, 1, 9, 17, 240, 0, 1, 9, 17, 229, 13, 18, 144, 49, 137, 88, 140, 88,
	240, 0, 1, 5, 15, 240, 0, 1, 5, 15, 136, 1, 216, 8, 9, 136, 81, 137, 6,
	136, 1, 136, 1, 240, 6, 0, 12, 33, 208, 11, 32, 149, 117, 152, 81, 145,
	120, 148, 120, 208, 11, 32, 209, 11, 32, 212, 11, 32, 208, 4, 32,
};
static const int lines[80] = {
	2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6,
	5, 5, 5, 5, 5, 5, 5, 5, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 8, 8, 8, 8, 8, 8, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11,
	11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11,
};

static void test_lines(void)
{
	int bad = -1;

	for (int i = 0; i < 80 && bad < 0; i++)
		if (py_line_of(table, sizeof(table), 2, i) != lines[i])
			bad = i;
	check(bad < 0, "python_line_table", "unit %d: line %d, not %d", bad,
	      bad < 0 ? 0 : py_line_of(table, sizeof(table), 2, bad),
	      bad < 0 ? 0 : lines[bad]);
	check(py_line_of(table, sizeof(table), 2, 80) == -1,
	      "python_line_table_past_end", "%d",
	      py_line_of(table, sizeof(table), 2, 80));
	/* a "no location" entry (code 15), then a short one on line 2 */
	{
		static const uint8_t nl[] = { 0xf8, 0x80, 0 };

		check(py_line_of(nl, 3, 2, 0) == -1 && py_line_of(nl, 3, 2, 1) == 2,
		      "python_line_table_no_location", "%d %d",
		      py_line_of(nl, 3, 2, 0), py_line_of(nl, 3, 2, 1));
	}
}

int main(void)
{
	test_stitch();
	test_lines();
	return failed;
}
