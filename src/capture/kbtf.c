// SPDX-License-Identifier: Apache-2.0
/*
 * kbtf.c - the running kernel's BTF, parsed once (see kbtf.h).
 */
#include <bpf/btf.h>
#include <stdbool.h>

#include "kbtf.h"

static struct btf *btf;
static bool tried;

const struct btf *kbtf(void)
{
	if (!tried) {
		btf = btf__load_vmlinux_btf();	/* NULL on failure */
		tried = true;
	}
	return btf;
}

void kbtf_free(void)
{
	btf__free(btf);
	btf = NULL;
	tried = false;
}
