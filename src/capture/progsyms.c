// SPDX-License-Identifier: Apache-2.0
/*
 * progsyms.c - our BPF programs' JIT images as kernel symbols (see
 * progsyms.h).  Start-up reads /proc/kallsyms on a thread of its own
 * while the verifier checks the programs (about 80 ms of start-up here,
 * done beside the 180 ms of the load), so the list lacks the programs
 * themselves, whose frames are a kernel stack's leaf frames (the fold's
 * plumbing, matched by name).  Their images are asked of the kernel
 * (bpf_prog_info: jited_ksyms, jited_func_lens, tag) and named as
 * kallsyms would name them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "progsyms.h"
#include "symbols/ksyms.h"

#define MAX_FUNCS	64	/* functions of one program kept at most */

/* One program's functions into v (names into pool): how many. */
static size_t prog_funcs(int fd, const char *name, struct ksyms_extra *v,
			 char (*pool)[64])
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), lens[MAX_FUNCS] = { 0 }, n;
	__u64 addrs[MAX_FUNCS] = { 0 };
	char tag[2 * BPF_TAG_SIZE + 1];

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	n = info.nr_jited_ksyms < MAX_FUNCS ? info.nr_jited_ksyms : MAX_FUNCS;
	if (!n || info.nr_jited_func_lens < n)
		return 0;
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		snprintf(tag + 2 * i, 3, "%02x", info.tag[i]);
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = info.nr_jited_func_lens = n;
	info.jited_ksyms = (__u64)(unsigned long)addrs;
	info.jited_func_lens = (__u64)(unsigned long)lens;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	for (__u32 i = 0; i < n; i++) {
		/* (kallsyms names a subprogram bpf_prog_TAG_F) */
		snprintf(pool[i], sizeof(*pool), "bpf_prog_%s_%s", tag,
			 i ? "F" : name);
		v[i] = (struct ksyms_extra){ addrs[i], lens[i], pool[i] };
	}
	return n;
}

int progsyms_add(struct ksyms *k, const struct bpf_object *obj)
{
	struct bpf_program *p;
	size_t n = 0, cap = 0;
	struct ksyms_extra *v = NULL;
	char (*pool)[64] = NULL;
	int err = 0;

	bpf_object__for_each_program(p, obj) {
		if (bpf_program__fd(p) >= 0)
			cap += MAX_FUNCS;
	}
	if (!cap)
		return 0;
	v = calloc(cap, sizeof(*v));
	pool = calloc(cap, sizeof(*pool));
	if (!v || !pool) {
		err = ENOMEM;
		goto out;
	}
	bpf_object__for_each_program(p, obj) {
		if (bpf_program__fd(p) >= 0)
			n += prog_funcs(bpf_program__fd(p), bpf_program__name(p),
					v + n, pool + n);
	}
	if (n && ksyms_add(k, v, n))
		err = ENOMEM;
out:
	free(v);
	free(pool);
	return err;
}
