/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export.h - writing a stack set in the formats other tools read: folded
 * text, pprof (gzipped profile.proto: go tool pprof, Pyroscope, Parca,
 * Cloud Profiler) and speedscope's JSON.  Used by "offwake-svg convert"
 * (reports/convert.c) and by the capture's --format (capture/output.c).  The SVG
 * is the renderer's own (fg_render); it is listed here so that one table
 * names every format and file extension.  src/export/ depends on common/
 * (and the renderer's fg.h) only, so that capture/ and reports/ can both
 * use it.
 */
#ifndef OW_EXPORT_H
#define OW_EXPORT_H

#include <stdint.h>
#include <stdio.h>
#include "fg.h"

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

/* What the stacks are and where they came from. */
struct export_info {
	const char *countname;	/* the unit of the counts, as --countname:
				 * "us" (NULL: microseconds), "ns", "ms",
				 * "s", "samples", or any name */
	const char *name;	/* the profile's name (speedscope), or NULL */
	const char *const *comments;	/* pprof comments (capture parameters) */
	size_t ncomments;
	int64_t time_nanos;	/* when the capture started, 0: unknown */
	int64_t duration_nanos;	/* how long it ran, 0: unknown */
};

/*
 * Write the stacks in format f (not EXPORT_SVG) to out.  Returns 0, or -1
 * after printing "offwake-svg: WHAT: why" (errno EPIPE: nothing printed,
 * the reader went away).
 */
int export_write(enum export_format f, struct fg_stacks *s,
		 const struct export_info *info, FILE *out, const char *what);

/* The sample type an export_info's countname gives: pprof's type and unit,
 * speedscope's unit ("none" when it has no such unit). */
struct export_unit {
	const char *type, *unit, *speedscope;
};
struct export_unit export_unit_of(const char *countname);

/*
 * pprof with what a capture knows beyond names: where each frame is (an
 * address in a mapped file, whose build id lets pprof, Pyroscope or Parca
 * find the binary and its debug info), and whose the sample is (labels).
 * Frames without a map are names only, as export_pprof() writes every
 * frame of a stack set.
 */
struct export_map {
	const char *path;	/* the mapped file, "[kernel.kallsyms]", ... */
	const char *build_id;	/* hex, or NULL */
	uint64_t start, limit;	/* the mapping's addresses: [start, limit) */
	uint64_t offset;	/* the file offset of start */
};
struct export_frame {
	const char *name;
	size_t len;
	const struct export_map *map;	/* NULL: a name only */
	uint64_t addr;		/* within map (pprof's instruction address) */
};
struct export_label {
	const char *key;
	const char *str;	/* a string label, or NULL: num is the value */
	int64_t num;
};

struct pprof;
/* An empty profile; NULL (message printed, naming what) when out of memory. */
struct pprof *pprof_new(const struct export_info *info, const char *what);
/* Add a sample: frames root first, its value, its labels; 0 or -1 (errno). */
int pprof_add(struct pprof *p, const struct export_frame *frames, size_t n,
	      int64_t value, const struct export_label *labels, size_t nlabels);
/* Write the profile gzipped; 0, or -1 after a message (EPIPE: none). */
int pprof_write(struct pprof *p, FILE *out);
void pprof_free(struct pprof *p);

/* The writers, for export_write(). */
int export_pprof(struct fg_stacks *s, const struct export_info *info, FILE *out,
		 const char *what);
int export_speedscope(struct fg_stacks *s, const struct export_info *info, FILE *out,
		      const char *what);
int export_folded(struct fg_stacks *s, FILE *out, const char *what);

#endif
