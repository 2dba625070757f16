/* SPDX-License-Identifier: Apache-2.0 */
/*
 * perfmap.h - symbols of JIT-compiled code from /tmp/perf-PID.map.
 */
#ifndef OW_PERFMAP_H
#define OW_PERFMAP_H

#include <stdbool.h>
#include <stdint.h>

struct perfmaps;

struct perfmaps *perfmaps_new(void);
void perfmaps_free(struct perfmaps *p);

/* Name of the JIT symbol of tgid containing addr, or NULL; valid until
 * the next perfmaps_sweep(). */
const char *perfmaps_name(struct perfmaps *p, uint32_t tgid, uint64_t addr);
/* The same at the end, for the frames that missed while tracing: each
 * map is read once more then, whenever it was last read. */
const char *perfmaps_name_now(struct perfmaps *p, uint32_t tgid,
			      uint64_t addr);
/* Whether tgid has a map we read (its misses may be named later). */
bool perfmaps_has(struct perfmaps *p, uint32_t tgid);
/* A warning line for the maps refused and one for the lines not used. */
void perfmaps_report(const struct perfmaps *p);
/* Once a second: let go of the maps of processes gone a few seconds. */
void perfmaps_sweep(struct perfmaps *p);
/* The processes whose maps are kept, and their symbols' bytes. */
void perfmaps_counts(const struct perfmaps *p, size_t *maps, size_t *bytes);

#endif
