// SPDX-License-Identifier: Apache-2.0
/*
 * unit_hardening2.c - regression tests of issue 17 ("Hardening, round
 * two") that need the render/ library's modules directly: the buffered
 * writer when a memory buffer cannot grow (on the caller's thread and on
 * the second writer thread).  Prints PASS:/FAIL: lines.
 */
#include "fg.h"
#include "outbuf.h"
#include "base/errmsg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

/*
 * Allocations above 64 MiB fail: under ASan by its own limit (returning
 * NULL, as libc's malloc does), else by an address-space limit set in
 * main() (ASan reserves terabytes, so RLIMIT_AS cannot be used there).
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=64";
}

static int failed;

static void check(int ok, const char *name, const char *detail)
{
	printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", name, ok ? "" : ": ", ok ? "" : detail);
	failed |= !ok;
}

/* A readable source larger than any buffer can grow to: zero pages,
 * reserved but never backed (the worst a regression can do is copy it). */
#define HUGE_LEN ((size_t)128 << 20)
static const char *huge;

static void write_huge_item(void *ctx, struct outbuf *ob, size_t i)
{
	(void)ctx;
	if (i == 5000)	/* in the second chunk: the second thread's */
		ob_write(ob, huge, HUGE_LEN);
	else
		ob_puts(ob, "<rect/>\n");
}

static void test_outbuf_nomem(void)
{
	struct outbuf o;
	char detail[128];

	/* a memory buffer: growing fails, nothing is written past it */
	if (ob_init(&o, NULL)) {
		check(0, "outbuf: memory buffer", "ob_init failed");
		return;
	}
	ob_puts(&o, "head");
	ob_write(&o, huge, HUGE_LEN);
	ob_puts(&o, "tail");
	errno = ENOTTY;
	int r = ob_finish(&o);
	snprintf(detail, sizeof(detail), "ob_finish %d, errno %d (%s)", r, errno, strerror(errno));
	check(r == -1 && errno == ENOMEM, "outbuf: a buffer that cannot grow fails with ENOMEM",
	      detail);

	/* the same on the second writer thread: the caller learns ENOMEM */
	FILE *f = fopen("/dev/null", "w");
	if (!f || ob_init(&o, f)) {
		check(0, "outbuf: two writers", "cannot open /dev/null");
		return;
	}
	ob_write_items(&o, 20000, write_huge_item, NULL);
	errno = ENOTTY;	/* a stale errno on this thread */
	r = ob_finish(&o);
	snprintf(detail, sizeof(detail), "ob_finish %d, errno %d (%s)", r, errno, strerror(errno));
	check(r == -1 && errno == ENOMEM,
	      "outbuf: the second writer's failure to grow is ENOMEM on the caller", detail);
	check(!strcmp(ow_strerror(ENOMEM), "out of memory"), "ow_strerror: out of memory",
	      ow_strerror(ENOMEM));
	fclose(f);
}

#if !defined(__SANITIZE_ADDRESS__)
/* Limit the address space to what is mapped now plus 48 MiB. */
static int limit_memory(void)
{
	unsigned long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %lu", &kb) == 1)
			break;
	fclose(f);
	struct rlimit rl = { (kb << 10) + (48ul << 20), (kb << 10) + (48ul << 20) };
	return kb ? setrlimit(RLIMIT_AS, &rl) : -1;
}
#endif

int main(void)
{
	huge = mmap(NULL, HUGE_LEN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
#if defined(__SANITIZE_ADDRESS__)
	int limited = 0;
#else
	int limited = limit_memory();
#endif
	if (huge == MAP_FAILED || limited)
		printf("SKIP: outbuf_nomem: cannot reserve or limit address space\n");
	else
		test_outbuf_nomem();
	return failed;
}
