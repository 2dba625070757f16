// SPDX-License-Identifier: Apache-2.0
/*
 * unwinders.c - the table of user-space unwinders (unwinder.h).  Each
 * row lives in a file of its own (native.c, python.c) and is declared
 * here, next to its line: a new unwinder is that file and a line.  Also
 * what the rows share: the kernel side's maps, globals and per-CPU
 * counters by name.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>
#include "unwinder.h"

extern const struct ow_unwinder ow_unwinder_native;
extern const struct ow_unwinder ow_unwinder_python;
#ifdef OW_TEST_UNWINDER	/* tests/unit_src/unwind_test.c: one for the test */
extern const struct ow_unwinder ow_unwinder_test;
#endif

/* In the order they are called; an interpreter frame is the first
 * naming row's (python's names every one of them: rows that name only
 * their own go before it). */
const struct ow_unwinder *const ow_unwinders[] = {
	&ow_unwinder_native,
#ifdef OW_TEST_UNWINDER
	&ow_unwinder_test,
#endif
	&ow_unwinder_python,
};
const size_t ow_nunwinders = sizeof(ow_unwinders) / sizeof(ow_unwinders[0]);

int ow_uw_map_fd(const struct ow_uw_host *h, const char *name, uint32_t *entries)
{
	struct bpf_map *m = h->obj ? bpf_object__find_map_by_name(h->obj, name) : NULL;

	if (entries)
		*entries = m ? bpf_map__max_entries(m) : 0;
	return m ? bpf_map__fd(m) : -1;
}

volatile void *ow_uw_global(const struct ow_uw_host *h, const char *name)
{
	const struct btf *btf = h->obj ? bpf_object__btf(h->obj) : NULL;
	struct bpf_map *m;

	if (!btf)
		return NULL;
	bpf_object__for_each_map(m, h->obj) {
		const struct btf_type *t = btf__type_by_id(btf, bpf_map__btf_value_type_id(m));
		const struct btf_var_secinfo *v;
		size_t size;
		char *mem;

		if (!t || !btf_is_datasec(t) ||
		    !(mem = (char *)bpf_map__initial_value(m, &size)))
			continue;
		v = btf_var_secinfos(t);
		for (int i = 0; i < btf_vlen(t); i++, v++) {
			const struct btf_type *var = btf__type_by_id(btf, v->type);

			if (var && !strcmp(btf__name_by_offset(btf, var->name_off), name) &&
			    v->offset < size)
				return mem + v->offset;
		}
	}
	return NULL;
}

void ow_uw_percpu(const struct ow_uw_host *h, const char *name, uint64_t *sums,
		  uint32_t n)
{
	int ncpu = libbpf_num_possible_cpus(), fd = ow_uw_map_fd(h, name, NULL);
	__u64 *v;

	if (fd < 0 || ncpu <= 0 || !(v = calloc(ncpu, sizeof(*v))))
		return;
	for (__u32 k = 0; k < n; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		sums[k] = 0;
		for (int i = 0; i < ncpu; i++)
			sums[k] += v[i];
	}
	free(v);
}
