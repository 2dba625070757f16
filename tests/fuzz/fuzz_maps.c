// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_maps.c - libFuzzer harness for the symboliser's text parsers:
 * /proc/PID/maps (src/symbols/procmaps.c), /tmp/perf-PID.map (src/symbols/perfmap.c) and
 * /proc/kallsyms (src/symbols/ksyms.c).  The sources are compiled with
 * -Dfopen=fuzz_fopen -Dopen=fuzz_open (fuzz_common.h) and read their files
 * from the input:
 *
 *   byte 0:  number of extra processes (table growth, fork copies)
 *   rest:    maps text, then optionally "\n==PERF==\n" + perf map text,
 *            then optionally "\n==KSYMS==\n" + kallsyms text.
 *
 * Every address mentioned in the input (hex numbers at line starts and
 * after '-') is looked up, plus the bytes around them.
 */
#define FUZZ_COMMON_IMPL
#include "fuzz_common.h"
#include <stdint.h>
#include <stdlib.h>
#include "symbols/procmaps.h"
#include "symbols/perfmap.h"
#include "symbols/ksyms.h"

#define TGID 4242u

static size_t addrs_of(const char *t, size_t len, uint64_t *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 3 <= max; i++) {
		if (i && t[i - 1] != '\n' && t[i - 1] != '-' && t[i - 1] != ' ')
			continue;
		char tmp[20];
		size_t l = 0;
		while (i + l < len && l < 16 && strchr("0123456789abcdefABCDEF", t[i + l]) && t[i + l])
			tmp[l] = t[i + l], l++;
		if (!l)
			continue;
		tmp[l] = 0;
		uint64_t a = strtoull(tmp, NULL, 16);
		out[n++] = a;
		out[n++] = a - 1;
		out[n++] = a + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t addrs[512];
	char *buf, *perf, *ks;
	size_t n, len;
	unsigned extra;

	if (size < 1)
		return 0;
	extra = data[0] % 64;
	len = size - 1;
	buf = malloc(len + 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	buf[len] = 0;
	ks = memmem(buf, len, "\n==KSYMS==\n", 11);
	if (ks) {
		*ks = 0;
		ks += 11;
	}
	perf = memmem(buf, ks ? (size_t)(ks - 11 - buf) : len, "\n==PERF==\n", 10);
	if (perf) {
		*perf = 0;
		perf += 10;
	}
	size_t maps_len = perf ? (size_t)(perf - 10 - buf) : ks ? (size_t)(ks - 11 - buf) : len;
	size_t perf_len = perf ? (ks ? (size_t)(ks - 11 - perf) : (size_t)(buf + len - perf)) : 0;
	size_t ks_len = ks ? (size_t)(buf + len - ks) : 0;

	fuzz_files[0] = (struct fuzz_file){ "/maps", buf, maps_len };
	fuzz_files[1] = (struct fuzz_file){ ".map", perf, perf_len };
	fuzz_files[2] = (struct fuzz_file){ "kallsyms", ks, ks_len };

	n = addrs_of(buf, len, addrs, sizeof(addrs) / sizeof(addrs[0]));

	/* /proc/PID/maps */
	struct procmaps *pm = procmaps_new();
	if (pm) {
		procmaps_learn(pm, TGID);
		for (unsigned i = 0; i < extra; i++) {
			if (i & 1)
				procmaps_fork(pm, TGID + 1 + i, TGID);
			else
				procmaps_learn_once(pm, TGID + 1 + i);
		}
		for (size_t i = 0; i < n; i++) {
			const struct pmap *m = procmaps_find(pm, TGID, addrs[i]);
			if (m && (addrs[i] < m->start || addrs[i] >= m->end || !m->path))
				abort();	/* a mapping that does not contain addr */
			if (m)
				(void)strlen(m->path);
			m = procmaps_find(pm, TGID + 1 + (i % (extra + 1)), addrs[i]);
			if (m)
				(void)strlen(m->path);
		}
		procmaps_stale(pm, TGID);
		procmaps_learn_once(pm, TGID);
		procmaps_free(pm);
	}

	/* /tmp/perf-PID.map */
	struct perfmaps *pf = perfmaps_new();
	if (pf) {
		for (size_t i = 0; i < n; i++) {
			const char *s = perfmaps_name(pf, TGID + (i % 3), addrs[i]);
			if (s)
				(void)strlen(s);
		}
		perfmaps_free(pf);
	}

	/* /proc/kallsyms */
	struct ksyms *k = ksyms_load(ks ? "/fuzz/kallsyms" : NULL);
	if (k) {
		for (size_t i = 0; i < n; i++) {
			const char *s = ksyms_name(k, addrs[i]);
			if (s)
				(void)strlen(s);
		}
		ksyms_free(k);
	}
	free(buf);
	return 0;
}
