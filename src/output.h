/* SPDX-License-Identifier: Apache-2.0 */
/*
 * output.h - writing a finished capture: folded lines, offwaketime's text,
 * or the SVG, to standard output or atomically to a file.
 */
#ifndef OW_OUTPUT_H
#define OW_OUTPUT_H

#include "capture.h"
#include "cli.h"

/* Write the capture as o asks; returns the exit status. */
int output_write(struct capture *c, const struct capture_opts *o);

#endif
