// SPDX-License-Identifier: Apache-2.0
/*
 * nocfi.c - a fixture for the unwind table tests: linked -static
 * -nostdlib -fno-asynchronous-unwind-tables, an executable with no call
 * frame information at all (the builder must say so, ENOENT).
 */
void _start(void)
{
	for (;;)
		;
}
