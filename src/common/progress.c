// SPDX-License-Identifier: Apache-2.0
/*
 * progress.c - the live status line of render and capture (see
 * progress.h).  A thread redraws it every TICK_MS when its text changed,
 * cut to the terminal's width (a wrapped line could not be cleared).
 */
#include "progress.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "safetext.h"
#include "settings.h"
#include "util.h"

#define TICK_MS	100

struct progress {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	char text[256];
	bool timed;		/* text + "... N.N s" (a phase) */
	bool stop;
	char line[512];		/* as drawn; "" when not on the screen */
	size_t width;		/* of the terminal */
	double delay;		/* seconds before the line appears (1) */
	struct timespec start;
};

/* The line on the screen, for ow_err() to clear first (one at a time). */
static struct progress *active;

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Erase the line (the lock held). */
static void erase(struct progress *p)
{
	if (!p->line[0])
		return;
	fputs("\r\033[K", ow_stderr_raw());
	fflush(ow_stderr_raw());
	p->line[0] = 0;
}

static void hide_active(void)
{
	if (!active)
		return;
	pthread_mutex_lock(&active->lock);
	erase(active);
	pthread_mutex_unlock(&active->lock);
}

/* Draw the line if due and changed (the lock held). */
static void draw(struct progress *p)
{
	double t = since(&p->start);
	char line[sizeof(p->line)];

	if (t < p->delay)
		return;
	if (p->timed)
		snprintf(line, sizeof(line), OW_PROG ": %s... %.1f s", p->text, t);
	else
		snprintf(line, sizeof(line), OW_PROG ": %s", p->text);
	if (p->width && strlen(line) >= p->width)
		line[p->width - 1] = 0;
	if (!strcmp(line, p->line))
		return;
	fputs("\r\033[K", ow_stderr_raw());	/* ours; the text escaped */
	fputs(line, stderr);
	fflush(stderr);
	strcpy(p->line, line);
}

static void *run(void *arg)
{
	struct progress *p = arg;
	struct timespec until;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		draw(p);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += TICK_MS * 1000 * 1000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &until);
	}
	erase(p);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct progress *progress_start(int quiet)
{
	struct winsize ws;
	struct progress *p;

	if (quiet || !isatty(STDERR_FILENO) || !(p = calloc(1, sizeof(*p))))
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->delay = ow_setting_num("OFFWAKE_PROGRESS_DELAY", 1.0);	/* tests */
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws))
		p->width = ws.ws_col;
	strcpy(p->text, "starting");
	p->timed = true;
	if (pthread_create(&p->thread, NULL, run, p)) {
		free(p);
		return NULL;
	}
	active = p;
	ow_err_hook = hide_active;
	return p;
}

static void set_text(struct progress *p, const char *text, bool timed)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	snprintf(p->text, sizeof(p->text), "%s", text);
	p->timed = timed;
	pthread_mutex_unlock(&p->lock);
}

void progress_phase(struct progress *p, const char *text)
{
	set_text(p, text, true);
}

void progress_status(struct progress *p, const char *text)
{
	set_text(p, text, false);
}

void progress_stop(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	ow_err_hook = NULL;
	active = NULL;
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	free(p);
}
