// SPDX-License-Identifier: Apache-2.0
/*
 * demangle.c - C++ (Itanium ABI) and Rust (legacy and v0) demangling with
 * libiberty's cplus_demangle, with parameter lists as bcc shows them.
 */
#include <libiberty/demangle.h>
#include "demangle.h"

char *ow_demangle(const char *name)
{
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
