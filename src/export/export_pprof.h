/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export_pprof.h - the pprof writer (export_pprof.c): a stack set's names
 * (export_pprof, for export_write()), or a capture's frames with
 * addresses, mappings and labels, sample by sample (pprof_*).
 */
#ifndef OW_EXPORT_PPROF_H
#define OW_EXPORT_PPROF_H

#include <stdint.h>
#include <stdio.h>
#include "fg.h"
#include "export_info.h"

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

/* A stack set's names as a gzipped profile; 0, or -1 after a message. */
int export_pprof(struct fg_stacks *s, const struct export_info *info, FILE *out,
		 const char *what);

#endif
