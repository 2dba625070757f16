// SPDX-License-Identifier: Apache-2.0
/*
 * tui.c - the terminal live view's session (--live; see tui.h): the
 * screen (ncurses, on /dev/tty, so that standard output can still carry
 * the profile) and two jobs of the capture's loop (capture_every()): every
 * KEYS_S the keys (tui_view.c acts on them), every --interval a snapshot
 * of the capture (capture_snapshot()) read as the profile the writers
 * read (output_profile()) into the tree (tree.h), and the screen drawn
 * again.  Frozen, the snapshots stop and the screen stays as it is while
 * the capture goes on.  "w" writes the profile to a file, in the format
 * its extension names (else --format's), through the writers' own path
 * (output_write()); "q" ends the capture as Ctrl-C does, so the output is
 * written.  While the screen is up, standard error goes to a temporary
 * file (the capture's warnings, -- CMD's output): its last line is shown
 * at the bottom, and all of it is printed once the screen is closed.
 * The CPU time of each refresh (the view's part: reading the profile, the
 * tree, the drawing; not the drain, which the capture does anyway) is
 * shown on the second line.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <term.h>
#include <time.h>
#include <unistd.h>
#include "tui.h"
#include "tui_view.h"
#include "capture/capture.h"
#include "capture/output.h"
#include "cli.h"
#include "common/util.h"
#include "export/profile.h"
#include "export/writers.h"

#define KEYS_S	0.05	/* how often keys are read */

struct tui {
	struct capture *c;
	const struct capture_cfg *o;
	struct tui_view v;
	struct live_tree *tree;
	SCREEN *scr;
	FILE *tty;
	int saved_err;		/* the real standard error */
	FILE *errs;		/* what is said on it meanwhile */
	off_t errs_shown;	/* its bytes already shown */
	char what[256];		/* what is traced */
	char stats[96];		/* the stacks and the refresh's cost */
	double refresh_ms;	/* the last refresh's CPU time */
	double next_ok;		/* no refresh before (monotonic seconds) */
};

bool tui_wanted(const struct capture_cfg *o)
{
	return o->live;
}

int tui_check(const struct capture_cfg *o)
{
	const char *term = getenv("TERM");
	int fd, err = 0;

	if (!term || !*term || !strcmp(term, "dumb")) {
		ow_err("--live: needs a terminal that can draw a screen, not TERM=%s (write a file instead: -o FILE)",
		       term && *term ? term : "(unset)");
		return -1;
	}
	fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ow_err("--live: no terminal to draw on (/dev/tty: %s); write a file instead: -o FILE",
		       strerror(errno));
		return -1;
	}
	if (setupterm((char *)term, fd, &err) != OK) {
		ow_err("--live: the terminal type TERM=%s is not known here", term);
		close(fd);
		return -1;
	}
	del_curterm(cur_term);
	close(fd);
	return 0;
}

/* The loop thread's CPU time (the view runs there). */
static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The last line said on standard error since the last look, to show. */
static void show_errs(struct tui *t)
{
	struct stat st;
	char buf[512], *line;
	off_t from;
	ssize_t n;

	if (fstat(fileno(t->errs), &st) || st.st_size <= t->errs_shown)
		return;
	from = st.st_size > (off_t)sizeof(buf) - 1 ? st.st_size - (off_t)sizeof(buf) + 1 : 0;
	n = pread(fileno(t->errs), buf, sizeof(buf) - 1, from);
	t->errs_shown = st.st_size;
	if (n <= 0)
		return;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	line = strrchr(buf, '\n');
	snprintf(t->v.msg, sizeof(t->v.msg), "%s", line ? line + 1 : buf);
}

static void draw(struct tui *t)
{
	snprintf(t->stats, sizeof(t->stats), "%zu stacks, refresh %.1f ms CPU",
		 live_tree_stacks(t->tree), t->refresh_ms);
	t->v.what = t->what;
	t->v.stats = t->stats;
	view_draw(&t->v);
}

/* capture_snapshot()'s reading: the profile into the tree. */
static int take_profile(const struct ow_profile *p, void *ctx)
{
	struct tui *t = ctx;

	t->v.elapsed = p->info.duration_nanos / 1e9;
	t->v.unit = "us";
	if (p->info.countname && *p->info.countname)
		t->v.unit = p->info.countname;
	return live_tree_update(t->tree, p);
}

/* The view's own cost: reading the profile, the tree, the drawing (the
 * snapshot's drain is the capture's work, done now rather than later). */
static int take_snapshot(struct capture *c, void *ctx)
{
	struct tui *t = ctx;
	double t0 = cpu_ms();
	int r = output_profile(c, t->o, take_profile, t);

	t->refresh_ms = cpu_ms() - t0;
	return r;
}

static void refresh_now(struct tui *t)
{
	double t0;

	if (capture_snapshot(t->c, take_snapshot, t))
		snprintf(t->v.msg, sizeof(t->v.msg), "the snapshot failed (see the messages at the end)");
	t0 = cpu_ms();
	output_traced(t->o, t->what, sizeof(t->what));
	show_errs(t);
	draw(t);
	t->refresh_ms += cpu_ms() - t0;	/* shown at the next refresh */
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A refresh that took long (a huge profile) puts the next off: the view
 * takes at most about a quarter of a CPU. */
static int refresh_job(struct capture *c, void *ctx)
{
	struct tui *t = ctx;
	double t0 = wall_s();

	if (t->v.frozen || t0 < t->next_ok)
		return 0;
	refresh_now(t);
	t->next_ok = t0 + 4 * t->refresh_ms / 1e3;
	return 0;
}

/* "w": the profile, as it is now, to the file typed in. */
struct write_req {
	const char *path;
	struct capture_cfg o;
};

static int write_snapshot(struct capture *c, void *ctx)
{
	struct write_req *w = ctx;
	struct output out;

	if (output_open(&out, w->path))
		return -1;
	return output_write(&out, c, &w->o);
}

static void write_file(struct tui *t)
{
	struct write_req w = { t->v.input, *t->o };
	int f = ow_writer_by_path(t->v.input), r;

	if (f >= 0)
		w.o.output = f;
	w.o.out_file = t->v.input;
	r = capture_snapshot(t->c, write_snapshot, &w);
	show_errs(t);
	if (r == OW_EXIT_OK || r == OW_EXIT_USAGE)	/* USAGE: nothing yet */
		snprintf(t->v.msg, sizeof(t->v.msg), "wrote %s (%s)%s", t->v.input,
			 ow_writers[w.o.output].name, r ? ", nothing captured yet" : "");
}

static int keys_job(struct capture *c, void *ctx)
{
	struct tui *t = ctx;
	bool redraw = false;
	int key;

	while ((key = wgetch(stdscr)) != ERR) {
		switch (view_key(&t->v, key)) {
		case VIEW_NONE:
			break;
		case VIEW_DRAW:
			redraw = true;
			break;
		case VIEW_REFRESH:
			refresh_now(t);
			redraw = false;
			break;
		case VIEW_WRITE:
			write_file(t);
			redraw = true;
			break;
		case VIEW_QUIT:
			capture_stop();
			redraw = true;
			break;
		}
	}
	if (redraw)
		draw(t);
	return 0;
}

/* Standard error to a temporary file while the screen is up. */
static int hold_stderr(struct tui *t)
{
	fflush(stderr);
	t->errs = tmpfile();
	t->saved_err = t->errs ? dup(STDERR_FILENO) : -1;
	if (t->saved_err < 0 || dup2(fileno(t->errs), STDERR_FILENO) < 0) {
		ow_err("--live: keeping the messages: %s", strerror(errno));
		if (t->errs)
			fclose(t->errs);
		if (t->saved_err >= 0)
			close(t->saved_err);
		return -1;
	}
	fcntl(t->saved_err, F_SETFD, FD_CLOEXEC);
	return 0;
}

/* Standard error back, and what was said on it printed there, escaped
 * as all of stderr (safetext.h): a traced command's messages too. */
static void release_stderr(struct tui *t)
{
	char buf[8192];
	off_t at = 0;
	ssize_t n;

	fflush(stderr);
	dup2(t->saved_err, STDERR_FILENO);
	close(t->saved_err);
	while ((n = pread(fileno(t->errs), buf, sizeof(buf), at)) > 0) {
		if (fwrite(buf, 1, n, stderr) != (size_t)n)
			break;
		at += n;
	}
	fclose(t->errs);
}

void *tui_start(const struct capture_cfg *o, struct capture *c)
{
	struct tui *t = calloc(1, sizeof(*t));

	if (!t || !(t->tree = live_tree_new())) {
		ow_err("--live: %s", strerror(ENOMEM));
		free(t);
		return NULL;
	}
	t->c = c;
	t->o = o;
	t->v = (struct tui_view){ .tree = t->tree, .interval = o->interval,
				  .unit = o->fg.countname ? o->fg.countname : "us" };
	t->tty = fopen("/dev/tty", "r+e");
	if (!t->tty || !(t->scr = newterm(NULL, t->tty, t->tty))) {
		ow_err("--live: opening the terminal: %s", strerror(errno ? errno : ENOTTY));
		goto fail;
	}
	set_term(t->scr);
	cbreak();	/* Ctrl-C still ends the capture */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	view_colors();
	if (hold_stderr(t))
		goto fail;
	if (capture_every(c, KEYS_S, keys_job, t) ||
	    capture_every(c, o->interval, refresh_job, t)) {
		ow_err("--live: the capture's jobs are taken");
		release_stderr(t);
		goto fail;
	}
	output_traced(o, t->what, sizeof(t->what));
	snprintf(t->v.msg, sizeof(t->v.msg), "starting the capture...");
	draw(t);
	t->v.msg[0] = 0;
	return t;
fail:
	if (t->scr) {
		endwin();
		delscreen(t->scr);
	}
	if (t->tty)
		fclose(t->tty);
	live_tree_free(t->tree);
	free(t);
	return NULL;
}

void tui_stop(void *view)
{
	struct tui *t = view;

	if (!t)
		return;
	endwin();
	delscreen(t->scr);
	fclose(t->tty);
	release_stderr(t);
	live_tree_free(t->tree);
	free(t);
}

