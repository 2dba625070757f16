/* SPDX-License-Identifier: Apache-2.0 */
/*
 * errmsg.h - an errno value as every message of the tool gives it, in the
 * renderer and on the capture side alike.
 */
#ifndef OW_ERRMSG_H
#define OW_ERRMSG_H

#include <errno.h>
#include <string.h>

/* "out of memory" for ENOMEM (whichever thread ran out), strerror()
 * otherwise (EIO for 0). */
static inline const char *ow_strerror(int err)
{
	return err == ENOMEM ? "out of memory" : strerror(err ? err : EIO);
}

#endif
