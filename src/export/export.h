/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export.h - writing a stack set in the formats other tools read: folded
 * text, pprof (gzipped profile.proto: go tool pprof, Pyroscope, Parca,
 * Cloud Profiler) and speedscope's JSON.  Used by "offwake-svg convert"
 * (reports/convert.c) and by the capture's --format (capture/output.c).  The SVG
 * is the renderer's own (fg_render); it is listed here so that one table
 * names every format and file extension.  The writers have headers of
 * their own (export_pprof.h, export_speedscope.h), and what they share
 * is in export_info.h, so that none of them includes this dispatch back.
 * src/export/ depends on common/ and base/ (and the renderer's fg.h)
 * only, so that capture/ and reports/ can both use it.
 */
#ifndef OW_EXPORT_H
#define OW_EXPORT_H

#include <stdint.h>
#include <stdio.h>
#include "fg.h"
#include "export_info.h"

enum export_format {
	EXPORT_SVG,
	EXPORT_FOLDED,
	EXPORT_PPROF,
	EXPORT_SPEEDSCOPE,
};

/* A format by name ("pprof"); -1 when unknown. */
int export_format_by_name(const char *name);
/* A format by a file name's extension (".pb.gz"); -1 when none matches. */
int export_format_by_path(const char *path);
/* The name of a format; "svg|folded|pprof|speedscope" for messages. */
const char *export_format_name(enum export_format f);
extern const char export_format_names[];
/* Binary formats are not written to a terminal. */
int export_format_is_binary(enum export_format f);

/*
 * Write the stacks in format f (not EXPORT_SVG) to out.  Returns 0, or -1
 * after printing "offwake-svg: WHAT: why" (errno EPIPE: nothing printed,
 * the reader went away).
 */
int export_write(enum export_format f, struct fg_stacks *s,
		 const struct export_info *info, FILE *out, const char *what);

/* The folded writer: one "root;...;leaf COUNT" line per stack. */
int export_folded(struct fg_stacks *s, FILE *out, const char *what);

#endif
