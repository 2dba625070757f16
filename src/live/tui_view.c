// SPDX-License-Identifier: Apache-2.0
/*
 * tui_view.c - the live view's screen (see tui_view.h): a title line, the
 * columns' names, one row per shown node of the tree (the blocked time in
 * the view's measure, since the start, its share of the view's whole, and
 * the frame, indented by depth: "+" closed, "-" open), and a bottom line
 * for the keys, a prompt or a message.  Made for 80x24 and ASCII (a
 * terminal over ssh): a deep stack's indentation stops at a third of the
 * width, a long name is cut.  The keys are one table: a key, what it does.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include "tui_view.h"
#include "export/profile.h"

#define VALUE_W		9	/* a count's column */
#define COLS_LEFT	(VALUE_W + 1 + VALUE_W + 1 + 6 + 2)	/* before the frame */

/* The views' names: the title's and the first column's. */
static const struct {
	const char *title, *column;
} views[LIVE_VIEWS] = {
	[LIVE_INTERVAL] = { "last interval", "interval" },
	[LIVE_TOTAL] = { "since start", "interval" },
	[LIVE_DECAY] = { "decaying", "decaying" },
};

/* Color pairs (when the terminal has colors). */
enum { PAIR_WAKER = 1, PAIR_TITLE };

static const char help_line[] =
	"q quit  arrows move  f follow  / search  n next  space freeze  "
	"v view  w write";

/* A count in VALUE_W columns: digits, or G/T for the larger. */
static void fmt_count(char *buf, size_t len, double v)
{
	if (v < 999999999.5)
		snprintf(buf, len, "%*.0f", VALUE_W, v);
	else if (v < 999999e9)
		snprintf(buf, len, "%*.2fG", VALUE_W - 1, v / 1e9);
	else
		snprintf(buf, len, "%*.2fT", VALUE_W - 1, v / 1e12);
}

static void draw_title(struct tui_view *v)
{
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "offwake-svg live  %.0f s  %s",
		     v->elapsed, views[v->view].title);
	if (v->view == LIVE_INTERVAL && n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - n, " (%.1f s)", v->interval);
	if (v->frozen && n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - n, "  [FROZEN]");
	if (n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, "  %s", v->what);
	attron(A_BOLD | COLOR_PAIR(PAIR_TITLE));
	mvaddnstr(0, 0, line, COLS);
	attroff(A_BOLD | COLOR_PAIR(PAIR_TITLE));
	n = snprintf(line, sizeof(line), "%*s %*s %6s  frame (%s)",
		     VALUE_W, views[v->view].column, VALUE_W, "all", "share", v->unit);
	attron(A_UNDERLINE);
	mvaddnstr(1, 0, line, COLS);
	attroff(A_UNDERLINE);
	if (n > 0 && n + 2 + (int)strlen(v->stats) <= COLS)
		mvaddstr(1, COLS - strlen(v->stats), v->stats);
}

static void draw_row(struct tui_view *v, int y, struct live_node *n, double whole)
{
	char a[32], b[32], share[16];
	double x = live_value(v->tree, n, v->view);
	int ind = n->depth, maxind = (COLS - COLS_LEFT) / 3, attr = A_NORMAL;

	if (ind > maxind)
		ind = maxind > 0 ? maxind : 0;
	fmt_count(a, sizeof(a), v->view == LIVE_TOTAL ?
		  live_value(v->tree, n, LIVE_INTERVAL) : x);
	fmt_count(b, sizeof(b), n->total);
	snprintf(share, sizeof(share), "%5.1f%%", whole > 0 ? 100 * x / whole : 0.0);
	if (n == v->cur)
		attr |= A_REVERSE;
	if (n->kind == OW_PF_THREAD && !n->waker)
		attr |= A_BOLD;
	if (n->kind == OW_PF_DIVIDER)
		attr |= A_DIM;
	if (n->waker && has_colors())
		attr |= COLOR_PAIR(PAIR_WAKER);
	attron(attr);
	move(y, 0);
	clrtoeol();
	mvprintw(y, 0, "%s %s %6s  %*s%c", a, b, share, ind, "",
		 n->nkids ? (n->open ? '-' : '+') : ' ');
	if (live_has_text(n, v->search))
		attron(A_UNDERLINE);
	addnstr(n->name, COLS - COLS_LEFT - ind - 1 > 0 ? COLS - COLS_LEFT - ind - 1 : 0);
	attroff(A_UNDERLINE);
	if (n == v->cur)	/* the whole line shows the selection */
		for (int x0 = getcurx(stdscr); x0 < COLS; x0++)
			addch(' ');
	attroff(attr);
}

static void draw_bottom(struct tui_view *v)
{
	char line[720];

	if (v->prompt)
		snprintf(line, sizeof(line), "%s%s",
			 v->prompt == '/' ? "search: " :
			 "write to FILE (.svg .folded .pb.gz .speedscope.json): ",
			 v->input);
	else
		snprintf(line, sizeof(line), "%s", v->msg[0] ? v->msg : help_line);
	move(LINES - 1, 0);
	clrtoeol();
	attron(v->prompt ? A_BOLD : A_NORMAL);
	mvaddnstr(LINES - 1, 0, line, COLS - 1);
	attroff(A_BOLD);
}

/* The rows, the selection's index in them (kept visible: an ancestor
 * when a close hid it), and the first row on the screen adjusted. */
static size_t layout(struct tui_view *v, struct live_node ***rows, size_t *at)
{
	size_t n = live_rows(v->tree, v->view, rows), page = LINES > 3 ? LINES - 3 : 1;

	*at = 0;
	if (!n) {
		v->cur = NULL;
		return 0;
	}
	for (struct live_node *c = v->cur; c; c = c->parent)
		for (size_t i = 0; i < n; i++)
			if ((*rows)[i] == c) {
				*at = i;
				goto found;
			}
found:
	v->cur = (*rows)[*at];
	if (*at < v->top)
		v->top = *at;
	if (*at >= v->top + page)
		v->top = *at - page + 1;
	if (v->top + page > n)
		v->top = n > page ? n - page : 0;
	return n;
}

void view_draw(struct tui_view *v)
{
	struct live_node **rows;
	size_t at, n = layout(v, &rows, &at), page = LINES > 3 ? LINES - 3 : 1;
	double whole = live_value(v->tree, live_tree_root(v->tree), v->view);

	erase();
	draw_title(v);
	for (size_t i = 0; i < page && v->top + i < n; i++)
		draw_row(v, 2 + i, rows[v->top + i], whole);
	if (!n)
		mvaddnstr(2, 0, "(no blocked time yet)", COLS);
	draw_bottom(v);
	refresh();
}

void view_colors(void)
{
	if (!has_colors() || start_color() == ERR)
		return;
	use_default_colors();
	init_pair(PAIR_WAKER, COLOR_CYAN, -1);
	init_pair(PAIR_TITLE, COLOR_YELLOW, -1);
}

/* The keys' actions. */
static enum view_ask move_by(struct tui_view *v, long d)
{
	struct live_node **rows;
	size_t at, n = layout(v, &rows, &at);

	if (!n)
		return VIEW_NONE;
	if (d < 0 && (size_t)-d > at)
		at = 0;
	else if (d > 0 && at + d >= n)
		at = n - 1;
	else
		at += d;
	v->cur = rows[at];
	return VIEW_DRAW;
}

static enum view_ask k_up(struct tui_view *v) { return move_by(v, -1); }
static enum view_ask k_down(struct tui_view *v) { return move_by(v, 1); }
static enum view_ask k_pgup(struct tui_view *v) { return move_by(v, -(LINES - 3)); }
static enum view_ask k_pgdn(struct tui_view *v) { return move_by(v, LINES - 3); }
static enum view_ask k_home(struct tui_view *v) { return move_by(v, -(long)1e9); }
static enum view_ask k_end(struct tui_view *v) { return move_by(v, (long)1e9); }

static enum view_ask k_open(struct tui_view *v)
{
	if (v->cur && v->cur->nkids)
		v->cur->open = true;
	return VIEW_DRAW;
}

static enum view_ask k_close(struct tui_view *v)
{
	if (v->cur && v->cur->open && v->cur->nkids)
		v->cur->open = false;
	else if (v->cur && v->cur->parent && v->cur->parent->parent)
		v->cur = v->cur->parent;
	return VIEW_DRAW;
}

static enum view_ask k_follow(struct tui_view *v)
{
	if (v->cur)
		v->cur = live_follow(v->tree, v->cur, v->view);
	return VIEW_DRAW;
}

static enum view_ask find(struct tui_view *v, const struct live_node *after)
{
	struct live_node *n = live_search(v->tree, v->view, v->search, after,
					  &v->nth, &v->count);

	if (n) {
		v->cur = n;
		snprintf(v->msg, sizeof(v->msg), "search '%s': match %zu of %zu",
			 v->search, v->nth, v->count);
	} else {
		snprintf(v->msg, sizeof(v->msg), "search '%s': no match", v->search);
	}
	return VIEW_DRAW;
}

static enum view_ask k_next(struct tui_view *v)
{
	return v->search[0] ? find(v, v->cur) : VIEW_NONE;
}

static enum view_ask k_freeze(struct tui_view *v)
{
	v->frozen = !v->frozen;
	snprintf(v->msg, sizeof(v->msg), "%s", v->frozen ?
		 "frozen: the capture goes on; space thaws" : "");
	return v->frozen ? VIEW_DRAW : VIEW_REFRESH;
}

static enum view_ask k_view(struct tui_view *v)
{
	v->view = (v->view + 1) % LIVE_VIEWS;
	return VIEW_DRAW;
}

static enum view_ask k_prompt_search(struct tui_view *v)
{
	v->prompt = '/';
	v->ninput = 0;
	v->input[0] = 0;
	return VIEW_DRAW;
}

static enum view_ask k_prompt_write(struct tui_view *v)
{
	v->prompt = 'w';
	v->ninput = 0;
	v->input[0] = 0;
	return VIEW_DRAW;
}

static enum view_ask k_quit(struct tui_view *v)
{
	snprintf(v->msg, sizeof(v->msg), "ending the capture, writing the output...");
	return VIEW_QUIT;
}

static enum view_ask k_redraw(struct tui_view *v)
{
	clearok(curscr, TRUE);
	return VIEW_DRAW;
}

static const struct {
	int key;
	enum view_ask (*act)(struct tui_view *v);
} keys[] = {
	{ KEY_UP, k_up }, { 'k', k_up }, { KEY_DOWN, k_down }, { 'j', k_down },
	{ KEY_PPAGE, k_pgup }, { KEY_NPAGE, k_pgdn }, { KEY_HOME, k_home },
	{ 'g', k_home }, { KEY_END, k_end }, { 'G', k_end },
	{ KEY_RIGHT, k_open }, { 'l', k_open }, { '+', k_open }, { '\n', k_open },
	{ '\r', k_open }, { KEY_ENTER, k_open },
	{ KEY_LEFT, k_close }, { 'h', k_close }, { '-', k_close },
	{ 'f', k_follow }, { '/', k_prompt_search }, { 'n', k_next },
	{ ' ', k_freeze }, { 'p', k_freeze }, { 'v', k_view },
	{ 'w', k_prompt_write }, { 'q', k_quit }, { 'Q', k_quit },
	{ KEY_RESIZE, k_redraw }, { 12 /* ^L */, k_redraw },
};

/* A key while a prompt is open: edit the line; Enter acts, Esc cancels. */
static enum view_ask prompt_key(struct tui_view *v, int key)
{
	char prompt = v->prompt;

	if (key == 27 || key == 7 /* ^G */) {
		v->prompt = 0;
		return VIEW_DRAW;
	}
	if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (v->ninput)
			v->input[--v->ninput] = 0;
		return VIEW_DRAW;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		v->prompt = 0;
		if (!v->ninput)
			return VIEW_DRAW;
		if (prompt == 'w')
			return VIEW_WRITE;
		snprintf(v->search, sizeof(v->search), "%s", v->input);
		return find(v, NULL);
	}
	if (key >= 0x20 && key < 0x7f && v->ninput + 1 < sizeof(v->input)) {
		v->input[v->ninput++] = key;
		v->input[v->ninput] = 0;
	}
	return VIEW_DRAW;
}

enum view_ask view_key(struct tui_view *v, int key)
{
	if (v->prompt)
		return prompt_key(v, key);
	if (key != KEY_RESIZE && !v->frozen)
		v->msg[0] = 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].key == key)
			return keys[i].act(v);
	return VIEW_NONE;
}
