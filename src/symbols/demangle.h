/* SPDX-License-Identifier: Apache-2.0 */
/*
 * demangle.h - C++ and Rust symbol demangling.
 */
#ifndef OW_DEMANGLE_H
#define OW_DEMANGLE_H

/* The demangled name (malloc'd), or NULL when name is not mangled. */
char *ow_demangle(const char *name);

#endif
