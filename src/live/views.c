// SPDX-License-Identifier: Apache-2.0
/*
 * views.c - the table of live views (cli.h's struct ow_live_view): each
 * row is a view the capture command (capture/run.c) starts when its
 * option asks for it.  A new view is its files and a row here.
 */
#include "cli.h"
#include "tui.h"
#include "web.h"

const struct ow_live_view ow_live_views[] = {
	/* --live */
	{ tui_wanted, tui_check, tui_start, tui_stop, NULL, NULL },
	/* --serve */
	{ web_wanted, NULL, web_start, web_stop, web_report, web_free },
};
const size_t ow_nlive_views = sizeof(ow_live_views) / sizeof(ow_live_views[0]);
_Static_assert(sizeof(ow_live_views) / sizeof(ow_live_views[0]) <= OW_LIVE_MAX,
	       "OW_LIVE_MAX too small");
