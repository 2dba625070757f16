// SPDX-License-Identifier: Apache-2.0
/*
 * run.c - the capture command: capture, write the output, then report
 * what was lost and how to avoid it.
 */
#include "capture.h"
#include "cli.h"
#include "output.h"
#include "util.h"

int capture_main(struct capture_opts *o)
{
	struct capture c;
	int r;

	if (capture_run(&c, o)) {
		capture_close(&c);
		return OW_EXIT_FAIL;
	}
	r = output_write(&c, o);
	capture_report_losses(&c);
	capture_close(&c);
	return r;
}
