/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heatmap.c - the heat map above a flame graph with events (fg.h's
 * fg_render_events): FlameScope's picture of time, columns the seconds of
 * the capture, rows the offset within the second, each cell coloured by
 * the blocked time of the blocks starting in it, from white to dark red;
 * and, for the page's script (heatmap.js), the cells' grid, the event
 * stacks' frames (interned, with their fills) and the blocks, bounded.
 */
#include "heatmap.h"
#include "stacks.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S ((uint64_t)1000000000)
#define MIN_COL_PX 2.0

int fg_heat_init(struct fg_heat *h, const struct fg_events *e, double width, size_t max_depth)
{
	memset(h, 0, sizeof(*h));
	h->e = e;
	h->len_ns = e->length_ns;
	for (size_t i = 0; i < e->ev.n; i++)
		if (e->ev.v[i].start_ns >= h->len_ns)
			h->len_ns = e->ev.v[i].start_ns + 1;
	if (!h->len_ns)
		h->len_ns = 1;
	uint64_t secs = (h->len_ns + NS_PER_S - 1) / NS_PER_S;
	uint64_t maxcols = width / MIN_COL_PX > 1 ? (uint64_t)(width / MIN_COL_PX) : 1;
	uint64_t per = (secs + maxcols - 1) / maxcols;	/* seconds a column */
	h->col_ns = per * NS_PER_S;
	h->row_ns = h->col_ns / FG_HEAT_ROWS;
	h->ncols = (uint32_t)((secs + per - 1) / per);
	h->cell_ns = calloc((size_t)h->ncols * FG_HEAT_ROWS, sizeof(*h->cell_ns));
	h->cell_n = calloc((size_t)h->ncols * FG_HEAT_ROWS, sizeof(*h->cell_n));
	if (!h->cell_ns || !h->cell_n)
		return -1;
	for (size_t i = 0; i < e->ev.n; i++) {
		const struct fg_ev *v = &e->ev.v[i];
		size_t c = v->start_ns / h->row_ns;	/* col * ROWS + row */
		h->cell_ns[c] += v->dur_ns;
		h->cell_n[c]++;
		if (h->cell_ns[c] > h->max_ns)
			h->max_ns = h->cell_ns[c];
	}
	for (size_t i = 0; i < e->stacks.n; i++) {
		uint32_t d = e->stacks.v[i].n;
		if (max_depth && d > max_depth)
			d = (uint32_t)max_depth;
		if (d > h->depth)
			h->depth = d;
	}
	return 0;
}

void fg_heat_free(struct fg_heat *h)
{
	free(h->cell_ns);
	free(h->cell_n);
	h->cell_ns = NULL;
	h->cell_n = NULL;
}

/* title line, the grid, the axis line, a gap */
double fg_heat_height(double fontsize)
{
	return fontsize * 1.5 + FG_HEAT_ROWS * FG_HEAT_ROW_PX + fontsize * 2;
}

static double grid_y(const struct fg_heat *h)
{
	return h->top + h->fontsize * 1.5;
}

/* white for nothing, from a light tint to dark red (140,0,0) at the max,
 * on a square-root scale (a cell of 1/16 of the max is a quarter dark) */
static void cell_fill(uint64_t ns, uint64_t max, char *buf, size_t size)
{
	double t = max ? sqrt((double)ns / (double)max) : 0;
	snprintf(buf, size, "rgb(%d,%d,%d)", (int)(255 - 115 * t + 0.5),
		 (int)(235 * (1 - t) + 0.5), (int)(235 * (1 - t) + 0.5));
}

static void put_ms(struct outbuf *ob, uint64_t ns)
{
	ob_fixed(ob, (double)ns / 1e6, 1);
	ob_puts(ob, " ms");
}

void fg_heat_draw(const struct fg_heat *h, struct outbuf *ob)
{
	double gy = grid_y(h), gh = FG_HEAT_ROWS * FG_HEAT_ROW_PX, cw = h->w / h->ncols;
	char fill[40];

	ob_puts(ob, "<g id=\"heatmap\">\n<text id=\"heatlegend\" x=\"");
	ob_fixed(ob, h->x, 2);
	ob_puts(ob, "\" y=\"");
	ob_perlnum(ob, h->top + h->fontsize);
	ob_printf(ob, "\" >Blocks by start: columns of %" PRIu64 " s, rows of ", h->col_ns / NS_PER_S);
	put_ms(ob, h->row_ns);
	ob_puts(ob, "; white none, dark red ");
	put_ms(ob, h->max_ns);
	ob_puts(ob, ". Drag or shift-click to select a range.</text>\n<text id=\"heatrange\" x=\"");
	ob_fixed(ob, h->x + h->w, 2);
	ob_puts(ob, "\" y=\"");
	ob_perlnum(ob, h->top + h->fontsize);
	ob_puts(ob, "\" style=\"text-anchor:end;cursor:pointer\" > </text>\n<rect id=\"heatgrid\" x=\"");
	ob_fixed(ob, h->x, 2);
	ob_puts(ob, "\" y=\"");
	ob_perlnum(ob, gy);
	ob_puts(ob, "\" width=\"");
	ob_fixed(ob, h->w, 2);
	ob_puts(ob, "\" height=\"");
	ob_perlnum(ob, gh);
	ob_puts(ob, "\" fill=\"rgb(255,255,255)\" stroke=\"rgb(200,200,200)\" stroke-width=\"0.5\" />\n");
	for (uint32_t c = 0; c < h->ncols; c++)
		for (uint32_t r = 0; r < FG_HEAT_ROWS; r++) {
			size_t i = (size_t)c * FG_HEAT_ROWS + r;
			if (!h->cell_n[i])
				continue;
			cell_fill(h->cell_ns[i], h->max_ns, fill, sizeof(fill));
			ob_puts(ob, "<rect class=\"cell\" x=\"");
			ob_fixed(ob, h->x + c * cw, 2);
			ob_puts(ob, "\" y=\"");
			ob_perlnum(ob, gy + r * FG_HEAT_ROW_PX);
			ob_puts(ob, "\" width=\"");
			ob_fixed(ob, cw, 2);
			ob_printf(ob, "\" height=\"%d\" fill=\"%s\" fg:c=\"%" PRIu32 "\" fg:r=\"%" PRIu32
				  "\" fg:ns=\"%" PRIu64 "\" fg:n=\"%" PRIu32 "\" />\n", FG_HEAT_ROW_PX,
				  fill, c, r, h->cell_ns[i], h->cell_n[i]);
		}
	/* the axis: a column's start time, labels at least 50 px apart */
	uint32_t step = cw >= 50 ? 1 : (uint32_t)(50 / cw) + 1;
	for (uint32_t c = 0; c < h->ncols; c += step) {
		ob_puts(ob, "<text x=\"");
		ob_fixed(ob, h->x + c * cw, 2);
		ob_puts(ob, "\" y=\"");
		ob_perlnum(ob, gy + gh + h->fontsize);
		ob_printf(ob, "\" >%" PRIu64 " s</text>\n", c * (h->col_ns / NS_PER_S));
	}
	ob_puts(ob, "<g id=\"heatsel\"></g>\n</g>\n");
}

/* ---- the script's data ---- */

struct embed {
	uint32_t stack;
	uint64_t start_ns, dur_ns;
};

static int by_stack_cell(const void *a, const void *b, void *arg)
{
	const struct embed *x = a, *y = b;
	uint64_t row = *(const uint64_t *)arg;

	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	uint64_t cx = x->start_ns / row, cy = y->start_ns / row;
	return cx < cy ? -1 : cx > cy;
}

/* The blocks as embedded: as they are, or, past FG_EVENTS_EMBED, summed
 * per stack and cell (starting at the cell's start); *lost counts the
 * blocks of the entries past FG_EVENTS_EMBED even then. */
static struct embed *embedded(const struct fg_heat *h, size_t *n, int *merged, uint64_t *lost)
{
	const struct fg_events *e = h->e;
	struct embed *v = malloc((e->ev.n ? e->ev.n : 1) * sizeof(*v));
	size_t k = 0;

	*merged = 0;
	*lost = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < e->ev.n; i++)
		v[i] = (struct embed){ e->ev.v[i].stack, e->ev.v[i].start_ns, e->ev.v[i].dur_ns };
	*n = e->ev.n;
	if (*n <= FG_EVENTS_EMBED)
		return v;
	*merged = 1;
	qsort_r(v, *n, sizeof(*v), by_stack_cell, (void *)&h->row_ns);
	for (size_t i = 0; i < *n; i++) {
		uint64_t cell = v[i].start_ns / h->row_ns;
		if (k && v[k - 1].stack == v[i].stack && v[k - 1].start_ns / h->row_ns == cell) {
			v[k - 1].dur_ns += v[i].dur_ns;
			continue;
		}
		if (k == FG_EVENTS_EMBED) {
			++*lost;
			continue;
		}
		v[k++] = (struct embed){ v[i].stack, cell * h->row_ns, v[i].dur_ns };
	}
	*n = k;
	return v;
}

int fg_heat_data(const struct fg_heat *h, struct outbuf *ob, size_t max_depth, int chain,
		 fg_fill_fn fill, void *ctx)
{
	const struct fg_events *e = h->e;
	size_t nf = fg_frame_count(e->names), n, len;
	int merged;
	uint64_t lost;
	char buf[64];
	struct embed *v = embedded(h, &n, &merged, &lost);

	if (!v)
		return -1;
	ob_printf(ob, "\"len\":%" PRIu64 ",\"col\":%" PRIu64 ",\"rows\":%d,\"ncols\":%" PRIu32
		  ",\"unit\":%" PRIu64 ",\"grid\":[", h->len_ns, h->col_ns, FG_HEAT_ROWS, h->ncols,
		  e->ns_per_count);
	ob_perlnum(ob, h->x);
	ob_puts(ob, ",");
	ob_perlnum(ob, grid_y(h));
	ob_puts(ob, ",");
	ob_perlnum(ob, h->w);
	ob_printf(ob, ",%d],\"merged\":%s,\"lost\":%" PRIu64 ",\"frames\":[", FG_HEAT_ROWS *
		  FG_HEAT_ROW_PX, merged ? "true" : "false", lost);
	/* every interned name, then FG_TRUNCATED (index nf) */
	for (size_t i = 0; i <= nf; i++) {
		const char *name = i < nf ? fg_frame_name(e->names, (uint32_t)i, &len) : FG_TRUNCATED;
		if (i == nf)
			len = strlen(FG_TRUNCATED);
		ob_puts(ob, i ? ",[" : "[");
		ob_json(ob, name, len);
		for (int w = 0; w <= chain; w++) {
			fill(ctx, name, len, w, buf, sizeof(buf));
			ob_puts(ob, ",");
			ob_json(ob, buf, strlen(buf));
		}
		ob_puts(ob, "]");
	}
	ob_puts(ob, "],\"stacks\":[");
	for (size_t i = 0; i < e->stacks.n; i++) {
		const struct fg_evstack *s = &e->stacks.v[i];
		uint32_t d = s->n, cut = max_depth && d > max_depth;
		if (cut)
			d = (uint32_t)max_depth - 1;
		ob_puts(ob, i ? ",[" : "[");
		for (uint32_t k = 0; k < d; k++)
			ob_printf(ob, "%s%" PRIu32, k ? "," : "", e->ids.v[s->first + k]);
		if (cut)
			ob_printf(ob, "%s%zu", d ? "," : "", nf);
		ob_puts(ob, "]");
	}
	/* stack, start and duration in microseconds, three numbers a block */
	ob_puts(ob, "],\"ev\":[");
	for (size_t i = 0; i < n; i++)
		ob_printf(ob, "%s%" PRIu32 ",%" PRIu64 ",%" PRIu64, i ? "," : "", v[i].stack,
			  v[i].start_ns / 1000, (v[i].dur_ns + 500) / 1000);
	ob_puts(ob, "]");
	free(v);
	return 0;
}
