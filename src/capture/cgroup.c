// SPDX-License-Identifier: Apache-2.0
/*
 * cgroup.c - --cgroup PATH to the cgroup's id.  On cgroup v2 a cgroup's
 * id is its kernfs node's, which is what the directory's file handle
 * holds (name_to_handle_at(), as bpftool and systemd read it) and, on
 * 64-bit kernels, its inode number (the fallback).  The path must be a
 * directory of a cgroup2 file system (statfs()); a cgroup v1 hierarchy or
 * any other directory is refused with the reason and, to help, where
 * cgroup v2 is mounted (a hybrid system has it at /sys/fs/cgroup/unified).
 */
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "cgroup.h"
#include "common/util.h"

/* Where a cgroup2 file system is mounted, into buf; "" when none. */
static void cgroup2_mount(char *buf, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *m;

	buf[0] = 0;
	if (!f)
		return;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2")) {
			snprintf(buf, len, "%s", m->mnt_dir);
			break;
		}
	endmntent(f);
}

int cgroup_id_of(const char *path, uint64_t *id)
{
	union {
		struct file_handle fh;
		char room[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	char where[512], hint[600];
	struct statfs sf;
	struct stat st;
	int mnt;

	if (stat(path, &st) || statfs(path, &sf)) {
		ow_err("--cgroup %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		cgroup2_mount(where, sizeof(where));
		snprintf(hint, sizeof(hint), where[0] ? "cgroup v2 is mounted at %s" :
			 "no cgroup v2 is mounted (mount -t cgroup2 none DIR)", where);
		ow_err("--cgroup %s: not a cgroup v2 directory (%s; %s)", path,
		       !S_ISDIR(st.st_mode) ? "not a directory" :
		       sf.f_type == CGROUP_SUPER_MAGIC ? "a cgroup v1 hierarchy" :
		       "not on a cgroup file system", hint);
		return -1;
	}
	*id = st.st_ino;
	if (!name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt, 0) &&
	    h.fh.handle_bytes == sizeof(uint64_t))
		memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}
