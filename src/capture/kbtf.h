/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kbtf.h - the running kernel's BTF, parsed once for all of start-up's
 * questions (which tracepoints there are, struct orc_entry's layout,
 * which kfuncs): each had parsed /sys/kernel/btf/vmlinux again, about
 * 0.1-0.3 s of CPU a time.  (libbpf parses its own copy for the load:
 * libbpf 1.1 takes no parsed one.)
 */
#ifndef OW_KBTF_H
#define OW_KBTF_H

struct btf;

/* The kernel's BTF, parsed at the first call; NULL when it has none. */
const struct btf *kbtf(void);

/* Free it (once start-up is done; a later kbtf() parses it again). */
void kbtf_free(void);

#endif
