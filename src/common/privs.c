// SPDX-License-Identifier: Apache-2.0
/*
 * privs.c - the capabilities a capture needs, found by experiment (run
 * as an unprivileged user with file capabilities, tests/t_caps.sh):
 *   CAP_BPF      maps (task storage, array of maps, the mmapped rows),
 *                programs;
 *   CAP_PERFMON  tracing programs (tp_btf, raw_tp), reading user memory,
 *                and other users' /proc/PID/maps;
 *   CAP_SYSLOG   kernel addresses in /proc/kallsyms (hidden without it
 *                when kernel.kptr_restrict >= 1 or perf_event_paranoid >= 2).
 * With those alone, a traced process's files are opened by their path,
 * as the capture's user.  Files that user cannot open (another user's
 * unreadable files, another mount namespace, deleted or replaced files)
 * need /proc/PID/root (CAP_SYS_PTRACE) or /proc/PID/map_files
 * (CAP_DAC_READ_SEARCH for the directory, CAP_SYS_PTRACE and
 * CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN for the links).  Root has them
 * all; CAP_SYS_ADMIN also stands in for CAP_BPF and CAP_PERFMON (as the
 * kernel allows for older programs), not for CAP_SYSLOG.  Our effective set comes from capget(2), so this is right for root
 * with a reduced set and for file capabilities alike.
 */
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "privs.h"

static const struct {
	int cap;
	const char *name;
	bool admin;		/* CAP_SYS_ADMIN stands in for it */
} capture_caps[] = {
	{ CAP_BPF, "CAP_BPF", true },
	{ CAP_PERFMON, "CAP_PERFMON", true },
	{ CAP_SYSLOG, "CAP_SYSLOG", false },
};

bool privs_have(int cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return true;	/* cannot tell: blame nothing */
	return d[cap / 32].effective & (1u << (cap % 32));
}

/* The mode in brackets in /sys/kernel/security/lockdown, or "". */
static void lockdown(char *mode, size_t len)
{
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");
	char line[128], *a, *b;

	*mode = 0;
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && (a = strchr(line, '[')) &&
	    (b = strchr(a, ']')) && strncmp(a, "[none]", 6))
		snprintf(mode, len, "%.*s", (int)(b - a - 1), a + 1);
	fclose(f);
}

const char *privs_bpf_hint(char *buf, size_t len)
{
	size_t n = 0;
	char mode[32];

	for (size_t i = 0; i < sizeof(capture_caps) / sizeof(*capture_caps); i++)
		if (!privs_have(capture_caps[i].cap) && n < len &&
		    !(capture_caps[i].admin && privs_have(CAP_SYS_ADMIN)))
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "missing ",
				      capture_caps[i].name);
	if (n) {
		if (n < len)
			snprintf(buf + n, len - n, " (a capture needs CAP_BPF, CAP_PERFMON and CAP_SYSLOG, or root)");
		return buf;
	}
	lockdown(mode, sizeof(mode));
	if (*mode)
		snprintf(buf, len, "refused by kernel lockdown (%s)", mode);
	else
		snprintf(buf, len, "refused with CAP_BPF, CAP_PERFMON and CAP_SYSLOG: a security module (SELinux, AppArmor) or a seccomp filter");
	return buf;
}

const char *privs_files_hint(void)
{
	if (privs_have(CAP_SYS_PTRACE) && privs_have(CAP_DAC_READ_SEARCH) &&
	    (privs_have(CAP_CHECKPOINT_RESTORE) || privs_have(CAP_SYS_ADMIN)))
		return "";
	return "; CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH and CAP_CHECKPOINT_RESTORE let a capture open them";
}

const char *privs_maps_hint(void)
{
	if (privs_have(CAP_PERFMON) || privs_have(CAP_SYS_PTRACE))
		return "";
	return "; CAP_PERFMON or CAP_SYS_PTRACE lets a capture read them";
}

const char *privs_kallsyms_hint(void)
{
	if (privs_have(CAP_SYSLOG))
		return "kernel addresses hidden (kernel.kptr_restrict=2 hides them from everyone)";
	return "kernel addresses hidden: missing CAP_SYSLOG (a capture needs CAP_BPF, CAP_PERFMON and CAP_SYSLOG, or root)";
}
