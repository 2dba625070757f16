/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heatmap.h - the heat map of an event set (heatmap.c): its cells, where
 * it goes above the flame graph, its drawing, and the data the page's
 * script (heatmap.js) draws the flame graph of a time range from.
 */
#ifndef FG_HEATMAP_H
#define FG_HEATMAP_H

#include "events.h"
#include "outbuf.h"

#define FG_HEAT_ROWS 50		/* rows per column: 20 ms each of 1 s */
#define FG_HEAT_ROW_PX 4	/* a row's height in px */

struct fg_heat {
	const struct fg_events *e;
	uint64_t len_ns;	/* the capture's length (covers every block) */
	uint64_t col_ns, row_ns;	/* a column's span (1 s, or whole
					 * seconds for a long capture), a row's */
	uint32_t ncols;
	uint64_t *cell_ns;	/* blocked time starting in a cell, by
				 * col * FG_HEAT_ROWS + row */
	uint32_t *cell_n;	/* and how many blocks */
	uint64_t max_ns;
	uint32_t depth;		/* the deepest stack (frames, capped) */
	double top, x, w, fontsize;	/* where it is drawn */
};

/* The cells of e for a grid of width px (at least 2 px a column).
 * max_depth: the depth cap (0 none).  0, or -1 when out of memory. */
int fg_heat_init(struct fg_heat *h, const struct fg_events *e, double width,
		 size_t max_depth);
void fg_heat_free(struct fg_heat *h);
/* The height the map takes above the graph, with its text lines. */
double fg_heat_height(double fontsize);
/* Draw it (group #heatmap) at h->top. */
void fg_heat_draw(const struct fg_heat *h, struct outbuf *ob);

/* A frame's fill for the range graphs: waker, a waker-side frame of the
 * chain palette (its name annotated _[w]). */
typedef void (*fg_fill_fn)(void *ctx, const char *name, size_t len, int waker,
			   char *buf, size_t size);
/* The data members of the script's fg_heat object (after its caller's
 * own): the cells' grid, frames with fills, stacks, blocks. */
int fg_heat_data(const struct fg_heat *h, struct outbuf *ob, size_t max_depth, int chain,
		 fg_fill_fn fill, void *ctx);

#endif
