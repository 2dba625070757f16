// SPDX-License-Identifier: Apache-2.0
/*
 * progress.c - the render command's live status line (see progress.h).
 */
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct progress {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	char phase[256];
	int stop, shown;
	double delay;		/* seconds before the line appears (1) */
	struct timespec start;
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *run(void *arg)
{
	struct progress *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		if (p->delay <= 0 && !p->shown)
			goto show;	/* at once when asked to (tests) */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 100 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &until);
show:;
		double t = since(&p->start);
		if (!p->stop && t >= p->delay) {
			fprintf(stderr, "\r\033[Koffwake-svg: %s... %.1f s", p->phase, t);
			fflush(stderr);
			p->shown = 1;
		}
	}
	if (p->shown)
		fputs("\r\033[K", stderr);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct progress *progress_start(int quiet)
{
	struct progress *p;

	if (quiet || !isatty(STDERR_FILENO) || !(p = calloc(1, sizeof(*p))))
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	const char *d = getenv("OFFWAKE_PROGRESS_DELAY");	/* for tests */
	p->delay = d ? atof(d) : 1.0;
	strcpy(p->phase, "starting");
	if (pthread_create(&p->thread, NULL, run, p)) {
		free(p);
		return NULL;
	}
	return p;
}

void progress_phase(struct progress *p, const char *text)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	snprintf(p->phase, sizeof(p->phase), "%s", text);
	pthread_mutex_unlock(&p->lock);
}

void progress_stop(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	free(p);
}
