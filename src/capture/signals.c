// SPDX-License-Identifier: Apache-2.0
/*
 * signals.c - the signals that end a capture (its output still written)
 * or, before it is armed, its start (nothing traced, no output: run.c),
 * and the capture's stop flag they set.
 *
 * A signal while the programs load: the verifier gives up at a pending
 * signal (EAGAIN), but libbpf loads again, 5 times (2.3 s a program here),
 * and the handler has taken the signal by then: while loading, the
 * handler starts the nudge timer, whose signal (no-op) is pending again
 * every NUDGE_MS, until the load has failed.
 */
#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include "signals.h"

#define NUDGE_MS	5
#ifndef sigev_notify_thread_id	/* glibc before 2.38 does not name it */
#define sigev_notify_thread_id _sigev_un._tid
#endif

volatile sig_atomic_t capsig_stop;
volatile sig_atomic_t capsig_got;	/* SIGINT, SIGTERM or SIGHUP, or 0 */
static volatile sig_atomic_t loading;	/* a load runs, the nudge exists */
static timer_t nudge;
static bool have_nudge;

static void on_signal(int sig)
{
	static const struct itimerspec every = {
		{ 0, NUDGE_MS * 1000000L }, { 0, NUDGE_MS * 1000000L } };

	if (!capsig_got)
		capsig_got = sig;
	capsig_stop = 1;
	if (loading)
		timer_settime(nudge, 0, &every, NULL);
}

static void on_nudge(int sig)
{
	(void)sig;
}

/*
 * SIGHUP (the terminal was closed) too, unless it is ignored (nohup);
 * SIGINT is taken even when ignored (a script's background job starts so).
 */
static const struct {
	int sig;
	bool keep_ignored;
} ending_signals[] = {
	{ SIGINT, false },
	{ SIGTERM, false },
	{ SIGHUP, true },
};

void capsig_install(void)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(ending_signals) / sizeof(*ending_signals); i++) {
		int sig = ending_signals[i].sig;

		if (ending_signals[i].keep_ignored &&
		    (sigaction(sig, NULL, &old) || old.sa_handler == SIG_IGN))
			continue;
		sigaction(sig, &sa, NULL);
	}
	/* the nudge: to this thread, the one that loads the programs (a
	 * signal may go to another: the load is cut short all the same) */
	sa.sa_handler = on_nudge;
	ev.sigev_signo = SIGRTMIN;
	ev.sigev_notify_thread_id = gettid();
	if (!have_nudge)
		have_nudge = !sigaction(SIGRTMIN, &sa, NULL) &&
			     !timer_create(CLOCK_MONOTONIC, &ev, &nudge);
}

void capsig_load_begin(void)
{
	loading = have_nudge;
}

void capsig_load_end(void)
{
	loading = 0;
	if (have_nudge)
		timer_settime(nudge, 0, &(struct itimerspec){ 0 }, NULL);
}
