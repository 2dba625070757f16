/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * cgroup_filter.bpf.h - --cgroup PATH in the kernel: whether a task is in
 * a cgroup v2 (the default hierarchy) or in one of its descendants.
 *
 * User space sets cgroup_id to the cgroup's id (its directory's file
 * handle, as bpftool and bcc's --cgroupmap take it; 0: no filter).  A
 * task's cgroup is task->cgroups->dfl_cgrp; it and its ancestors are
 * compared by their kernfs node's id, walking up by the parent css (a
 * cgroup's css "self" is its first member, but its offset is relocated
 * all the same).  The walk is bounded (CG_MAX_DEPTH levels): a task
 * deeper than that below the cgroup asked for is not matched.  Unlike
 * bpf_current_task_under_cgroup(), it works for any task: the wakee at
 * sched_waking is not the current task.
 *
 * The includer provides vmlinux_min.h and the bpf/ helpers' headers.
 */
#ifndef CGROUP_FILTER_BPF_H
#define CGROUP_FILTER_BPF_H

#define CG_MAX_DEPTH	32

/* Set by user space before load: the cgroup's id, 0 for none. */
const volatile __u64 cgroup_id = 0;

/* The kernel types the walk reads (CO-RE relocated). */
struct kernfs_node___cg {
	__u64 id;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state___cg {
	struct cgroup_subsys_state___cg *parent;
} __attribute__((preserve_access_index));

struct cgroup___cg {
	struct cgroup_subsys_state___cg self;
	struct kernfs_node___cg *kn;
} __attribute__((preserve_access_index));

struct css_set___cg {
	struct cgroup___cg *dfl_cgrp;
} __attribute__((preserve_access_index));

struct task_struct___cg {
	struct css_set___cg *cgroups;
} __attribute__((preserve_access_index));

/* Whether task t is in the --cgroup one or below it (true without it). */
static __always_inline bool cgroup_ok(struct task_struct *t)
{
	struct cgroup___cg *cg;
	struct cgroup_subsys_state___cg *css;

	if (!cgroup_id)
		return true;
	cg = BPF_CORE_READ((struct task_struct___cg *)t, cgroups, dfl_cgrp);
	for (int i = 0; i < CG_MAX_DEPTH && cg; i++) {
		if (BPF_CORE_READ(cg, kn, id) == cgroup_id)
			return true;
		css = BPF_CORE_READ(cg, self.parent);
		if (!css)
			return false;
		cg = (void *)css - bpf_core_field_offset(struct cgroup___cg, self);
	}
	return false;
}

#endif
