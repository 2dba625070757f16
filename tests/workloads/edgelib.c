/* SPDX-License-Identifier: Apache-2.0 */
/* edgelib.c - a tiny shared library: t_unwind_edges.sh loads hundreds of
 * copies of it into tests/workloads/edges.c (edges libs DIR). */
int edgelib_one(void)
{
	return 1;
}
