/* SPDX-License-Identifier: Apache-2.0 */
/*
 * drain.h - a capture's intake (drain.c): the ring buffer's records, the
 * kernel's backlogs, and the two counts maps drained in turn into the
 * symbolised sums (struct capture's agg, and pending for keys whose
 * stacks are not in yet).
 */
#ifndef OW_DRAIN_H
#define OW_DRAIN_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

struct bpf_map;
struct capture;

#define DRAIN_FAST_MS	100	/* the first period, and one after a full one */
/* drain_record()'s way to end a ring_buffer__poll() early (a reader
 * behind a full ring buffer: the loop's ticks come first) */
#define POLL_YIELD	(-EAGAIN)

/* The counts slots mapped, the batch buffers, the ring buffer opened
 * (its records to drain_record()); 0 or -1 (message printed). */
int drain_open(struct capture *c);
/* The stack store's hooks into the kernel side (a stack given up is sent
 * again) and its settings. */
void drain_keep_stacks(struct capture *c);
/* One record of the ring buffer (ctx: the capture): a stack, a deferred
 * stack, or a process event; 0 or POLL_YIELD. */
int drain_record(void *ctx, void *data, size_t len);
/* The idle counts map drained and made active: the milliseconds to the
 * next drain, or -1. */
int drain_tick(struct capture *c);
/* The ring buffer read and the backlogs fetched; 0 or -1. */
int drain_backlog(struct capture *c);
/* At the end (err: an error before, then only pending is retried): both
 * counts maps drained, pending taken as it is, the lost blocks; err, or
 * 1 on an error here. */
int drain_last(struct capture *c, int err);
/* The sums over the CPUs of the first nkeys entries of a per-CPU array. */
void drain_percpu(struct bpf_map *map, uint64_t *sums, __u32 nkeys);
/* The ring buffer closed, the counts slots unmapped, the buffers freed. */
void drain_close(struct capture *c);

#endif
