// SPDX-License-Identifier: Apache-2.0
/*
 * export_svg.c - the SVG writer (writers.c's "svg" row): the profile's
 * stack set, in memory (no text round trip), drawn by the renderer
 * through fg.h with the capture's render options.
 */
#include "writers.h"
#include "common/util.h"
#include "base/errmsg.h"

#include <errno.h>

int export_svg_write(const struct ow_profile *p, const struct ow_write_opts *o, FILE *out)
{
	struct fg_stacks *made, *s = ow_profile_stacks(p, "rendering the SVG", o->fg, &made);
	int r;

	if (!s)
		return OW_EXIT_FAIL;
	r = fg_render(o->fg, s, out);
	fg_stacks_free(made);
	if (r < 0) {
		if (errno != EPIPE)
			ow_err("%s the SVG: %s", errno == ENOMEM ? "rendering" : "writing",
			       ow_strerror(errno));
		return OW_EXIT_FAIL;
	}
	return r == FG_EXIT_USAGE ? OW_EXIT_USAGE : r;
}
