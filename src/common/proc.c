// SPDX-License-Identifier: Apache-2.0
/*
 * proc.c - a process's comm and its children, from /proc (proc.h).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proc.h"
#include "util.h"

int ow_proc_comm(uint32_t pid, char *comm)
{
	char path[64];
	FILE *f;
	int r = -1;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	strcpy(comm, "?");
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(comm, OW_PROC_COMM, f)) {
		comm[strcspn(comm, "\n")] = 0;
		r = 0;
	}
	fclose(f);
	return r;
}

/* /proc/PID/stat's parent and comm ("PID (COMM) S PPID ..."; the comm
 * may hold spaces and parentheses: it ends at the last ')'); 0 or -1. */
static int read_stat(uint32_t pid, uint32_t *ppid, char *comm)
{
	char path[64], buf[512], *open, *close;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open ||
	    sscanf(close + 1, " %*c %u", ppid) != 1)
		return -1;
	n = close - open - 1;
	if (n >= OW_PROC_COMM)
		n = OW_PROC_COMM - 1;
	memcpy(comm, open + 1, n);
	comm[n] = 0;
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	const struct ow_child *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

size_t ow_proc_children(uint32_t tgid, struct ow_child *kids, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct ow_child k, *all = NULL;
	size_t n = 0, cap = 0;
	uint32_t ppid;
	char *end;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		k.pid = strtoul(de->d_name, &end, 10);
		if (*end || !k.pid || read_stat(k.pid, &ppid, k.comm) ||
		    ppid != tgid)
			continue;
		if (ow_grow(&all, &cap, n, sizeof(*all)))
			break;
		all[n++] = k;
	}
	closedir(d);
	if (n) {
		qsort(all, n, sizeof(*all), by_pid);
		memcpy(kids, all, (n < max ? n : max) * sizeof(*kids));
	}
	free(all);
	return n;
}
