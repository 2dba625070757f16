/* SPDX-License-Identifier: Apache-2.0 */
/*
 * writers.h - the one table of output formats (writers.c): for each, its
 * name (--format), file extension (-o FILE), whether it is binary and
 * whether it is lines to read (only those go to a terminal), what it
 * needs of the profile (needs: the capture asks instead of testing
 * formats) and its write function, which takes the profile model
 * (profile.h).  A new format is one file with its write
 * function plus its row (and its test).  Used by the capture (args.c,
 * capture/output.c) and "convert" (reports/convert.c).
 */
#ifndef OW_WRITERS_H
#define OW_WRITERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "fg.h"
#include "profile.h"

/* What a writer needs of the profile, beyond frame names and values. */
enum ow_needs {
	OW_NEED_ADDRS = 1,	/* frames' addresses and mappings (pprof) */
	OW_NEED_LABELS = 2,	/* samples' labels: comm, pid, tid (as --group) */
	OW_NEED_EACH_KEY = 4,	/* a sample per captured key, smallest first
				 * (offwaketime's text), not summed by what a
				 * line shows */
	OW_NEED_KEY_ORDER = 8,	/* with EACH_KEY: equal values by key (text) */
	OW_NEED_LINES = 32,	/* a sample per distinct line, smallest first,
				 * equal values by frames (-f) */
	OW_NEED_THREADS = 16,	/* typed frames with thread ids: a capture's,
				 * not names read back (convert) */
	OW_NEED_EVENTS = 64,	/* the long blocks in time (profile.h's
				 * ow_sample.events): the capture keeps them
				 * as with --timeline (perfetto) */
};

/* How a writer writes. */
struct ow_write_opts {
	const struct fg_options *fg;	/* the SVG's render options */
	const char *what;	/* for messages: "writing the profile" */
	bool late_errors;	/* the line writers (folded, text) stop at a
				 * write error and return OK: the caller reports
				 * it when it closes out, as for offwaketime's
				 * lines */
};

/* Write p to out; returns an exit status (OW_EXIT_OK, OW_EXIT_FAIL after
 * a message, none for EPIPE; OW_EXIT_USAGE when options are refused). */
typedef int (*ow_write_fn)(const struct ow_profile *p, const struct ow_write_opts *o,
			   FILE *out);

struct ow_writer {
	const char *name;	/* --format's */
	const char *ext;	/* -o FILE's, or NULL: none */
	bool binary;		/* binary (pprof's gzip) */
	bool to_read;		/* lines for people to read (folded, text):
				 * the only formats a capture writes to a
				 * terminal */
	bool own_option;	/* chosen by an option of its own (--text),
				 * not --format */
	unsigned needs;		/* enum ow_needs */
	ow_write_fn write;
};

/* The table; its first row (index 0) is the SVG, the default. */
extern const struct ow_writer ow_writers[];
extern const size_t ow_nwriters;
#define OW_WRITER_SVG 0

/* A writer by name ("pprof"), -1 when unknown. */
int ow_writer_by_name(const char *name);
/* A writer by a file name's extension (".pb.gz"), -1 when none matches. */
int ow_writer_by_path(const char *path);
/* What writer w needs of the profile (enum ow_needs). */
unsigned ow_writer_needs(int w);
/* --format's choices, each as fmt formats it ("'%s'"), between sep
 * ("|", ", "): "svg|folded|pprof|speedscope".  Returns buf. */
char *ow_writer_choices(char *buf, size_t len, const char *fmt, const char *sep);
/* The same of the extensions -o FILE names a format by: ".svg, .folded,
 * ...".  Returns buf. */
char *ow_writer_exts(char *buf, size_t len, const char *fmt, const char *sep);

/*
 * For the writers of text (folded, text): hand each sample to fn (its ctx
 * is out) and stop at a write error, reported as o asks (late_errors: by
 * the caller, else here naming o->what unless EPIPE).  Returns the exit
 * status.
 */
int ow_write_samples(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out,
		     ow_sample_fn fn);

#endif
