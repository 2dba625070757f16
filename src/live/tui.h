/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tui.h - the terminal live view (--live): a curses screen on the
 * controlling terminal, refreshed from the capture's snapshot call every
 * --interval while the capture runs (see tui.c).
 */
#ifndef OW_LIVE_TUI_H
#define OW_LIVE_TUI_H

#include "cli.h"

/*
 * A row of the live views' table (cli.h, views.c): wanted() with --live;
 * check() that the view can be drawn here (a terminal that is not dumb:
 * else a message, -1); start() opens the screen and has the capture's
 * loop refresh it and read its keys, and until stop() what is said on
 * stderr is kept for after; stop() closes the screen, prints what was
 * said meanwhile and frees the view.
 */
bool tui_wanted(const struct capture_cfg *o);
int tui_check(const struct capture_cfg *o);
void *tui_start(const struct capture_cfg *o, struct capture *c);
void tui_stop(void *view);

#endif
