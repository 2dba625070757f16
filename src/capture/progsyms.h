/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progsyms.h - our BPF programs' JIT images as kernel symbols, for a
 * kallsyms read while they loaded (ksyms_load_async()).
 */
#ifndef OW_PROGSYMS_H
#define OW_PROGSYMS_H

struct ksyms;
struct bpf_object;

/* Each loaded program of obj (its functions too) into k, as kallsyms
 * names them: bpf_prog_TAG_NAME; 0, or an errno. */
int progsyms_add(struct ksyms *k, const struct bpf_object *obj);

#endif
