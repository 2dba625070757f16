/* SPDX-License-Identifier: Apache-2.0 */
/*
 * output.h - writing a finished capture as the profile model, by the writer
 * --format chose (export/writers.h), to standard output or atomically to a file.
 */
#ifndef OW_OUTPUT_H
#define OW_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include "capture.h"
#include "cli.h"
#include "base/outfile.h"

struct output {
	FILE *f;
	struct ow_outfile file;	/* -o FILE */
	const char *path;	/* -o FILE, NULL: standard output */
	bool broken_pipe;	/* the reader went away (quiet failure) */
};

/* Open standard output, or path as ow_outfile_open does; 0 or -1. */
int output_open(struct output *out, const char *path);
/* Close without output: nothing is left behind. */
void output_discard(struct output *out);
/* Write the capture as o asks and close; returns the exit status. */
int output_write(struct output *out, struct capture *c,
		 const struct capture_cfg *o);
/* What is traced, as the titles name it: "PID 12,34", "CMD (PID 1234)". */
void output_traced(const struct capture_cfg *o, char *buf, size_t len);
/*
 * Hand the capture to fn as the profile model (export/profile.h) as the
 * writers see it, its samples in the capture's order (keys summed as the
 * capture sums them), without labels, addresses or events: what the
 * terminal view reads; fn's result.
 */
struct ow_profile;
int output_profile(struct capture *c, const struct capture_cfg *o,
		   int (*fn)(const struct ow_profile *p, void *ctx), void *ctx);

/* Write the capture as o asks to f, which stays open (a live view's
 * snapshot, in memory); returns the exit status. */
int output_write_to(FILE *f, struct capture *c, const struct capture_cfg *o);

#endif
