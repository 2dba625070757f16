/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.h - a one-line live status on stderr for long renders and for
 * captures: shown only when stderr is a terminal and the work has taken
 * over a second (OFFWAKE_PROGRESS_DELAY=SECONDS for tests), cleared at the
 * end and before each ow_err() message.
 */
#ifndef OW_PROGRESS_H
#define OW_PROGRESS_H

struct progress;

/* Start the status thread (NULL when stderr is not a terminal or quiet). */
struct progress *progress_start(int quiet);
/* Name the current phase ("reading FILE", "rendering"); text is copied. */
void progress_phase(struct progress *p, const char *text);
/* Show text as it is (no phase time added: the caller updates it). */
void progress_status(struct progress *p, const char *text);
/* Stop and clear the line. */
void progress_stop(struct progress *p);

#endif
