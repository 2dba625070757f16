/* SPDX-License-Identifier: Apache-2.0 */
/*
 * privs.h - the capabilities a capture needs, to name the missing ones in
 * its errors and warnings.
 */
#ifndef OW_PRIVS_H
#define OW_PRIVS_H

#include <stdbool.h>
#include <stddef.h>

/* Whether our effective set has capability cap (CAP_* of linux/capability.h). */
bool privs_have(int cap);
/*
 * Why loading or attaching the BPF programs was refused (EPERM/EACCES):
 * the capture's capabilities we lack, or else what else refuses (kernel
 * lockdown).  Written into buf; returns buf.
 */
const char *privs_bpf_hint(char *buf, size_t len);
/*
 * For files of traced processes we could not open: the capabilities that
 * would let us ("" when we have them all, e.g. as root).
 */
const char *privs_files_hint(void);
/* Why /proc/kallsyms showed no addresses. */
const char *privs_kallsyms_hint(void);
/* The same for other processes' /proc/PID/maps. */
const char *privs_maps_hint(void);

#endif
