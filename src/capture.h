/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture.h - one capture: load and attach the BPF programs, run until the
 * duration ends or SIGINT/SIGTERM, drain the kernel's sums into user space
 * while running, and keep the stack map for symbolisation afterwards.
 */
#ifndef OW_CAPTURE_H
#define OW_CAPTURE_H

#include <stdint.h>
#include "agg.h"
#include "cli.h"
#include "procmaps.h"

#define OW_MAX_STACK_DEPTH 127

struct offwake_bpf;
struct ring_buffer;

struct capture {
	struct offwake_bpf *skel;
	struct ring_buffer *rb;
	struct procmaps *pm;
	struct agg agg;			/* key -> blocked ns */
	uint64_t losses[OW_LOSS_NR];
	uint64_t drain_errors;		/* keys user space could not store */
	double seconds;			/* how long the capture ran */
	int drains;			/* which counts map is active */
};

/* Load, attach, run, detach; 0 or -1 (message printed). */
int capture_run(struct capture *c, const struct capture_opts *o);
void capture_close(struct capture *c);

/*
 * The addresses of stack id (leaf first) into ips (OW_MAX_STACK_DEPTH
 * slots); returns the number of frames, or -1 when the id is not stored.
 */
int capture_stack(struct capture *c, int32_t id, uint64_t *ips);

/* Print the loss counters and their fixes on stderr. */
void capture_report_losses(const struct capture *c);

#endif
