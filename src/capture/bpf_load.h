/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bpf_load.h - the kernel side of a capture opened, configured, loaded
 * (tp_btf programs, else raw_tp ones), told the kernel's addresses it
 * tests, and attached (bpf_load.c).
 */
#ifndef OW_BPF_LOAD_H
#define OW_BPF_LOAD_H

#include <stdint.h>

struct capture;
struct capture_cfg;

/* The ring buffer's bytes and the stack backlog's entries for o (its
 * options, else sized by the CPUs and the memory). */
void bpfload_buffer_sizes(const struct capture_cfg *o, uint64_t *rb_bytes,
			  uint32_t *backlog);
/* c->skel opened, configured for o and loaded; 0 or -1 (message printed,
 * none when a signal came: capsig_stop). */
int bpfload_open(struct capture *c, const struct capture_cfg *o);
/* The -p/-t ids into the threads map; 0 or -1 (message printed). */
int bpfload_threads(struct capture *c, const struct capture_cfg *o);
/* The kernel stack cache's ORC table, or why there is none (c->kc_off). */
void bpfload_kstack_cache(struct capture *c);
/* The system call entry and the soft IRQ loop's callers, for the
 * waker's process_context() test. */
void bpfload_syscall_entry(struct capture *c);
/* Attach the programs; 0 or -1 (message printed). */
int bpfload_attach(struct capture *c);

#endif
