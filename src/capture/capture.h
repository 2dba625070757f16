/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture.h - one capture session: the calls that load and start the BPF
 * programs, run the event loop (its periodic jobs in one tick table, and
 * the caller's own through capture_every()), stop it, hand the current
 * sums to a writer while it runs (capture_snapshot()), and finish it.
 * The state itself (struct capture) is private to src/capture/
 * (engine.h); the engine's options (struct capture_cfg) carry nothing of
 * the output's or the renderer's.
 */
#ifndef OW_CAPTURE_H
#define OW_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture_cfg.h"

struct capture;
struct progress;

/* A session; NULL when out of memory (message printed). */
struct capture *capture_new(void);
/* Load, attach and arm the programs, let -- CMD exec; 0 or -1 (message
 * printed, or a signal came first: capture_interrupted()).  The status
 * line is shown on pg (may be NULL). */
int capture_start(struct capture *c, const struct capture_cfg *cfg,
		  struct progress *pg);
/* Run the loop until the DURATION ends, capture_stop(), SIGINT, SIGTERM
 * or SIGHUP,
 * or -- CMD exits; 0 or -1 (message printed). */
int capture_loop(struct capture *c);
/* Ask the loop to return (async-signal-safe). */
void capture_stop(void);
/* Disarm, detach, and take in what is left; 0 or -1. */
int capture_finish(struct capture *c);
/* capture_start(), capture_loop(), capture_finish(). */
int capture_run(struct capture *c, const struct capture_cfg *cfg,
		struct progress *pg);
/*
 * Run job(c, ctx) from the loop every `every` seconds (a live view, a
 * periodic output); a job that returns non-zero ends the loop.  0, or -1
 * when the table is full.
 */
int capture_every(struct capture *c, double every,
		  int (*job)(struct capture *c, void *ctx), void *ctx);
/*
 * Bring the sums up to date (the kernel's counts and stacks so far) and
 * hand the session to write(), which may write it as at the end (output.h)
 * while the capture goes on; write()'s result, or -1.
 */
int capture_snapshot(struct capture *c,
		     int (*write)(struct capture *c, void *ctx), void *ctx);
void capture_free(struct capture *c);

/* The seconds traced so far (all of them once finished). */
double capture_seconds(const struct capture *c);
/* Whether anything was captured. */
bool capture_empty(const struct capture *c);
/* The signal that ended the start before tracing started (said on
 * standard error: nothing was traced), or 0. */
int capture_interrupted(const struct capture *c);
/* -- CMD's wait status when it exited during the capture; else false. */
bool capture_cmd_status(const struct capture *c, int *status);
/* The ring buffer's bytes and the stack backlog's entries for cfg (its
 * options, else sized by the CPUs and the memory). */
void capture_buffer_sizes(const struct capture_cfg *cfg, uint64_t *rb_bytes,
			  uint32_t *backlog);

/* Print the loss counters and their fixes on stderr. */
void capture_report_losses(const struct capture *c);
/* --timeline's long blocks not kept as events (the kernel's and ours). */
uint64_t capture_events_lost(const struct capture *c);
/* Print why nothing was captured: the filters and what they kept out. */
void capture_report_empty(const struct capture *c);
/* Print how user stacks were walked, each unwinder's summary lines
 * (--unwind, --python), on stderr. */
void capture_report_unwind(const struct capture *c);
/* How kernel stacks were taken (the kernel stack cache). */
void capture_report_kstacks(const struct capture *c);

#endif
