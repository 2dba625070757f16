/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proc.h - what /proc says of a process that the capture's messages name:
 * its command name, and its child processes (to say which processes -p
 * left out).
 */
#ifndef OW_PROC_H
#define OW_PROC_H

#include <stddef.h>
#include <stdint.h>

#define OW_PROC_COMM	16	/* TASK_COMM_LEN */

/* Task pid's comm into comm (OW_PROC_COMM bytes); 0, or -1 (gone: "?"). */
int ow_proc_comm(uint32_t pid, char *comm);

struct ow_child {
	uint32_t pid;
	char comm[OW_PROC_COMM];
};

/*
 * The child processes of process tgid, lowest pid first: the first max
 * into kids; returns how many there are in all (from /proc/PID/stat's
 * parent field: /proc/PID/task/TID/children needs CONFIG_PROC_CHILDREN).
 */
size_t ow_proc_children(uint32_t tgid, struct ow_child *kids, size_t max);

#endif
