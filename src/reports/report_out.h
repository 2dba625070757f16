/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_out.h - where the report commands (render, diff, convert) write:
 * standard output, or -o FILE written atomically (base/outfile.h), the
 * same way as the capture's -o.
 */
#ifndef OW_REPORT_OUT_H
#define OW_REPORT_OUT_H

#include <stdio.h>
#include "base/outfile.h"

struct report_out {
	const char *cmd;	/* "render", for the messages */
	const char *name;	/* -o FILE, or NULL: standard output */
	struct ow_outfile of;
	FILE *f;		/* write here once open */
};

/*
 * Take -o FILE, -oFILE, --output FILE and --output=FILE out of argv (up
 * to a "--"; the value of a render option that takes one is left alone,
 * so --title -o is a title).  *name: the last one given, or NULL.
 * 0, or -1 after "offwake-svg: CMD: -o: a file name is expected".
 */
int report_take_output(int *argc, char **argv, const char *cmd, const char **name);
/* Open o->f on name (NULL: standard output); 0, or -1 after a message
 * naming the file. */
int report_out_open(struct report_out *o, const char *cmd, const char *name);
/* Finish: a file is put in place when keep (else removed), standard
 * output is flushed.  0, or -1 after a message (none for a closed pipe). */
int report_out_close(struct report_out *o, int keep);

#endif
