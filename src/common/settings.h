/* SPDX-License-Identifier: Apache-2.0 */
/*
 * settings.h - the OFFWAKE_* environment settings (most of them for the
 * tests): one table (settings.c) of their names, types and what they do,
 * read from the environment once, at start-up (main.c), listed by
 * "offwake-svg --help=env" and in the man page's ENVIRONMENT
 * (tests/t_cli_docs.sh checks both against the table).  Code asks for a
 * setting by its name; a name that is not a row aborts.
 */
#ifndef OW_SETTINGS_H
#define OW_SETTINGS_H

#include <stddef.h>

/* Read every row's variable (again: the values as the environment has
 * them now).  The accessors read it first when nobody has yet. */
void ow_settings_read(void);

/* A text setting: its value, NULL when unset. */
const char *ow_setting_str(const char *name);
/* A number: (unsigned)strtoul() of its value, def when unset or empty. */
unsigned ow_setting_uint(const char *name, unsigned def);
/* A decimal number: atof() of its value, def when unset. */
double ow_setting_num(const char *name, double def);

/* Row i of the table (--help=env lists them): its name, the value's
 * name in *arg and what it does in *help (lines after the first are to
 * be indented); NULL past the last row. */
const char *ow_setting_row(size_t i, const char **arg, const char **help);

#endif
