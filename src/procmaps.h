/* SPDX-License-Identifier: Apache-2.0 */
/*
 * procmaps.h - executable memory mappings of the traced processes, learnt
 * while they are alive and kept after they exit.
 */
#ifndef OW_PROCMAPS_H
#define OW_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>

struct pmap {
	uint64_t start, end;	/* [start, end) */
	uint64_t off;		/* file offset of start */
	uint64_t dev, ino;	/* 0 for anonymous mappings */
	char *path;		/* "" when anonymous, "[vdso]" and alike */
};

struct procmaps;

struct procmaps *procmaps_new(void);
void procmaps_free(struct procmaps *pm);

/* Read /proc/TGID/maps now (replacing what was known); 0 or -1. */
int procmaps_learn(struct procmaps *pm, uint32_t tgid);
/* Learn TGID's maps unless known already. */
void procmaps_learn_once(struct procmaps *pm, uint32_t tgid);
/*
 * How many times TGID's maps were read (learning them first if never
 * tried): symbols found under one generation stay valid while it lasts.
 */
uint32_t procmaps_gen(struct procmaps *pm, uint32_t tgid);
/* TGID exec'd: read its maps again at the next procmaps_learn_once(). */
void procmaps_stale(struct procmaps *pm, uint32_t tgid);
/* A new process starts with its parent's mappings (until learnt). */
void procmaps_fork(struct procmaps *pm, uint32_t child, uint32_t parent);

/* The executable mapping of tgid containing addr, or NULL. */
const struct pmap *procmaps_find(struct procmaps *pm, uint32_t tgid,
				 uint64_t addr);

#endif
