/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check.h - the PASS:/FAIL: line of the unit tests of src/
 * (tests/unit_src/t_*.c), in the format tests/run.sh counts.  Each test
 * program includes it once and returns `failed` from main().
 */
#ifndef OW_TEST_CHECK_H
#define OW_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int failed;

/* One result: "PASS: name", or "FAIL: name: why" (why from fmt). */
static __attribute__((format(printf, 3, 4), unused))
void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s: %s", ok ? "PASS" : "FAIL", name);
	if (!ok) {
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	failed |= !ok;
}

#endif
