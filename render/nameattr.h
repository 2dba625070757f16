/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nameattr.h - --nameattr files (name<TAB>key=value...) and --cp's
 * palette.map, the two per-name tables flamegraph.pl reads.
 */
#ifndef FG_NAMEATTR_H
#define FG_NAMEATTR_H

#include <stddef.h>

/* The attributes of one function; NULL = absent.  "exists" flags follow
 * Perl's hash: a key may exist with an undefined value. */
struct fg_attrs {
	char *name;
	char *title, *id, *class_, *g_extra, *href, *target, *a_extra;
	unsigned char has_id, has_class;
};

struct fg_attrtab {
	struct fg_attrs *v;
	size_t n;
};

/* Returns 0, or -1 with a message in err ("Can't read FILE: ...",
 * "Invalid format in FILE"). */
int fg_attrtab_load(struct fg_attrtab *t, const char *file, char *err, size_t errlen);
void fg_attrtab_free(struct fg_attrtab *t);

/* palette.map: key -> value (value NULL = no value) */
struct fg_palmap_entry {
	char *key;
	char *value;
	size_t seq;	/* order of addition */
};

struct fg_palmap {
	struct fg_palmap_entry *v;
	size_t n, cap;
};

/* Load the file if it exists (a regular file, not a link).  Returns 0,
 * or -1 with a message naming the file. */
int fg_palmap_load(struct fg_palmap *m, const char *file, char *err, size_t errlen);
/* Append an entry (copies the strings). */
int fg_palmap_add(struct fg_palmap *m, const char *key, size_t klen, const char *value);
/* Write it back sorted by key, the last of equal keys winning, replacing
 * the file atomically.  Returns 0, or -1 with a message naming the file. */
int fg_palmap_save(struct fg_palmap *m, const char *file, char *err, size_t errlen);
void fg_palmap_free(struct fg_palmap *m);

#endif
