/* SPDX-License-Identifier: Apache-2.0 */
/*
 * web.h - the browser live view (--serve [ADDR:]PORT, web.c): an HTTP
 * server (libmicrohttpd, its own threads) whose page shows the capture's
 * SVG, refreshed from the capture loop every --interval, with the SVG,
 * folded and pprof to download.  Read-only; bound to 127.0.0.1 unless an
 * address is given; answers only requests that carry the random token of
 * the address it prints.
 */
#ifndef OW_LIVE_WEB_H
#define OW_LIVE_WEB_H

#include <sys/socket.h>
#include "cli.h"

struct capture;

/* Parse --serve's [ADDR:]PORT (ADDR: IPv4, "localhost", or IPv6 in
 * brackets; default 127.0.0.1) into sa (may be NULL: only check); 0 or -1. */
int web_parse_addr(const char *s, struct sockaddr_storage *sa);
/* Whether o asks for it (--serve). */
bool web_wanted(const struct capture_cfg *o);
/* Listen as o->serve says, print the page's address with its token (and
 * a warning when it is not loopback), refresh from c's loop every o->interval; the view
 * (a struct web), or NULL after a message. */
void *web_start(const struct capture_cfg *o, struct capture *c);
/* Stop serving: the capture has ended. */
void web_stop(void *w);
/* The summary on stderr: refreshes, their CPU, requests, updates no
 * client fetched, responses cut short. */
void web_report(const void *w);
void web_free(void *w);

#endif
