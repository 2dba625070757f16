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
 * The calls capture_main() makes (cli.h): check() that the view can be
 * drawn here (a terminal that is not dumb); start() opens the screen and
 * has the capture's loop refresh it and read its keys, and until end()
 * what is said on stderr is kept for after; end() closes the screen and
 * prints what was said meanwhile.
 */
extern const struct ow_live_ops tui_ops;

#endif
