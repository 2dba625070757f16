/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup.h - --cgroup PATH: the id of a cgroup v2 directory, which the
 * kernel side compares with a task's cgroup and its ancestors
 * (bpf/cgroup_filter.bpf.h).
 */
#ifndef OW_CGROUP_H
#define OW_CGROUP_H

#include <stdint.h>

/*
 * The id of the cgroup v2 directory at path into *id; 0, or -1 after a
 * one-line message naming the path and why it is not one (missing, not
 * a directory, not on a cgroup v2 file system: then where cgroup v2 is
 * mounted, if anywhere).
 */
int cgroup_id_of(const char *path, uint64_t *id);

#endif
