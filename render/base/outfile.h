/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outfile.h - writing a named output file safely (base/outfile.c): the
 * capture's -o FILE, convert's -o and --cp's palette.map all go through
 * it.
 */
#ifndef OW_OUTFILE_H
#define OW_OUTFILE_H

#include <stdio.h>

/*
 * An output file: a regular file (or a new name) is written to a temporary
 * file in its directory (unnamed where the file system allows) and put in
 * place when closed with keep; a device, FIFO or socket is written
 * directly; a symbolic link is written through (its target replaced),
 * unless another user made it in a sticky world-writable directory (the
 * kernel's protected_symlinks rule: refused, EACCES).
 */
struct ow_outfile {
	FILE *f;		/* write here */
	char *path;		/* the file replaced (a link's target) */
	char *tmp;		/* the named temporary file, if any */
	int direct;		/* written in place (device, FIFO, socket) */
	const char *why;	/* a refusal errno does not say, or NULL */
};
enum {
	OW_OUT_NOFOLLOW = 1,	/* refuse a symbolic link, and anything but a
				 * regular file or a new name */
	OW_OUT_WRITABLE = 2,	/* refuse to replace a file we may not write */
};
/* 0, or -1 with errno (message: ow_outfile_strerror) and nothing made. */
int ow_outfile_open(struct ow_outfile *o, const char *name, int flags);
/* Flush and put in place (keep), or remove what was written (!keep, or
 * an error); 0, or -1 with errno. */
int ow_outfile_close(struct ow_outfile *o, int keep);
/* A file opened to append to (created if missing), its links followed
 * by the same rule: a file descriptor, or -1 with errno (and *why when
 * errno does not say it). */
int ow_outfile_append(const char *name, const char **why);
/* Why ow_outfile_open failed: o->why, else ow_strerror(err). */
const char *ow_outfile_strerror(const struct ow_outfile *o, int err);

#endif
