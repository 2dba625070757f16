/* SPDX-License-Identifier: Apache-2.0 */
/*
 * palette.h - frame colours: the flat palettes and the name-classifying
 * palettes, both read from the data in palettes/ (embedded at build
 * time), the background gradients, and the differential colour scale.
 */
#ifndef FG_PALETTE_H
#define FG_PALETTE_H

#include <stddef.h>
#include "pnum.h"

struct fg_palette;

/* Load the data for palette NAME.  Returns NULL with a message in err. */
struct fg_palette *fg_palette_load(const char *name, char *err, size_t errlen);
void fg_palette_free(struct fg_palette *p);

enum fg_vmode { FG_V_DEFAULT, FG_V_HASH, FG_V_RANDOM };

/*
 * The palette's fixed colours (a rule "REGEX =COLOUR"), which a frame gets
 * before --cp, --hash, --random or a differential's scale apply: whether
 * the palette has any, and a frame name's (raw, annotations included), or
 * NULL.
 */
int fg_palette_has_fixed(const struct fg_palette *p);
const char *fg_palette_fixed(const struct fg_palette *p, const char *name, size_t len);

/* "rgb(r,g,b)" for a frame name (raw, annotations included). */
int fg_palette_color(struct fg_palette *p, enum fg_vmode mode,
		     const char *name, size_t len, char *out, size_t outlen);

/*
 * The gradient stops for --bgcolors (empty: the palette's default).
 * Returns 0, or -1 for an unknown --bgcolors value.
 */
int fg_palette_background(const struct fg_palette *p, const char *bgcolors,
			  char stop1[32], char stop2[32]);

/* flamegraph.pl's differential scale for a delta. */
int fg_delta_color(struct pnum delta, struct pnum maxdelta, int negate,
		   char *out, size_t outlen);

#endif
