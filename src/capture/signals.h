/* SPDX-License-Identifier: Apache-2.0 */
/*
 * signals.h - the capture's stop flag and the signals that set it
 * (SIGINT, SIGTERM, SIGHUP), with the nudge that cuts a BPF load short
 * when one comes while the programs load.
 */
#ifndef OW_SIGNALS_H
#define OW_SIGNALS_H

#include <signal.h>

/* Set by an ending signal, capture_stop() and a DURATION's end: the
 * capture is to end (or its start, before the arming). */
extern volatile sig_atomic_t capsig_stop;
/* The first ending signal that came, or 0. */
extern volatile sig_atomic_t capsig_got;

/* Take the ending signals, and make the nudge (once). */
void capsig_install(void);
/* Around a BPF load: a signal meanwhile starts the nudge, whose no-op
 * signal is pending again every few ms until the load has failed. */
void capsig_load_begin(void);
void capsig_load_end(void);

#endif
