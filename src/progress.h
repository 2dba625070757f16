/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.h - a one-line live status on stderr for long renders: shown
 * only when stderr is a terminal and the work has taken over a second,
 * cleared at the end.
 */
#ifndef OW_PROGRESS_H
#define OW_PROGRESS_H

struct progress;

/* Start the status thread (NULL when stderr is not a terminal or quiet). */
struct progress *progress_start(int quiet);
/* Name the current phase ("reading FILE", "rendering"); text is copied. */
void progress_phase(struct progress *p, const char *text);
/* Stop and clear the line. */
void progress_stop(struct progress *p);

#endif
