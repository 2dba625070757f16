/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tui_view.h - the live view's screen (tui_view.c): what it shows of the
 * tree (tree.h), the selected row, the prompts, and the keys, for the
 * session (tui.c), which owns the terminal and the capture's side.
 */
#ifndef OW_LIVE_TUI_VIEW_H
#define OW_LIVE_TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include "tree.h"

/* What a key asks of the session. */
enum view_ask {
	VIEW_NONE,
	VIEW_DRAW,		/* the screen changed */
	VIEW_REFRESH,		/* take a snapshot now (thawed) */
	VIEW_WRITE,		/* write the profile to view.input */
	VIEW_QUIT,		/* end the capture, write the output */
};

struct tui_view {
	struct live_tree *tree;
	enum live_view view;
	double interval;	/* --interval */
	const char *unit;	/* the profile's ("us") */
	const char *what;	/* what is traced, for the title */
	const char *stats;	/* the stacks, the refresh's cost */
	double elapsed;		/* capture seconds at the last update */
	struct live_node *cur;	/* the selected row; NULL: the first */
	size_t top;		/* the row at the top of the screen */
	bool frozen;
	char prompt;		/* 0, '/' (search) or 'w' (write) */
	char input[256];	/* what is typed after the prompt */
	size_t ninput;
	char search[256];	/* the last search */
	size_t nth, count;	/* its match shown, of how many */
	char msg[640];		/* a message for the bottom line, or "" */
};

/* Set the colors up, where the terminal has them (after newterm()). */
void view_colors(void);
/* Draw everything on stdscr. */
void view_draw(struct tui_view *v);
/* Act on a key (curses' wgetch() value); what the session must do. */
enum view_ask view_key(struct tui_view *v, int key);

#endif
