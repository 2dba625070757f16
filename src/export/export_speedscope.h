/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export_speedscope.h - the speedscope writer (export_speedscope.c), for
 * export_write().
 */
#ifndef OW_EXPORT_SPEEDSCOPE_H
#define OW_EXPORT_SPEEDSCOPE_H

#include <stdio.h>
#include "fg.h"
#include "export_info.h"

/* A stack set as speedscope's JSON; 0, or -1 after a message. */
int export_speedscope(struct fg_stacks *s, const struct export_info *info, FILE *out,
		      const char *what);

#endif
