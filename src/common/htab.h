/* SPDX-License-Identifier: Apache-2.0 */
/*
 * htab.h - an open-addressing hash table from a two-word key to a
 * pointer, for the capture side's tables (stacks by hash, symbolised
 * stacks, processes, ELF files by device and inode, diff's stack texts
 * by hash, unfold's failed search states).  Keys are compared exactly.
 *
 * Why the renderer keeps a table of its own (render/hashtab.h, fg_idtab):
 * it interns millions of frame tokens, so its slot is 8 bytes (a 32-bit
 * id and 32 bits of hash) with the keys in the caller's arrays and the
 * probe loop inlined at the caller, which compares tokens its own way;
 * it never deletes.  This one owns two-word keys, maps them to pointers
 * and deletes (the capture forgets processes, stacks and files).  One
 * table doing both would give the renderer 24-byte slots (three times
 * the cache misses on its hottest loop) or this side keys it cannot own.
 */
#ifndef OW_HTAB_H
#define OW_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct htab_slot {
	uint64_t a, b;
	void *val;		/* NULL: empty slot */
};

struct htab {
	struct htab_slot *tab;	/* power-of-two size */
	size_t size, used;
};

/* An empty table needs no init: {0}. */
void htab_free(struct htab *h);
/* The value stored under (a, b), or NULL. */
void *htab_get(const struct htab *h, uint64_t a, uint64_t b);
/* Store val (not NULL) under (a, b), replacing; 0 or -1 (ENOMEM). */
int htab_put(struct htab *h, uint64_t a, uint64_t b, void *val);
/* Remove what is stored under (a, b), if anything. */
void htab_del(struct htab *h, uint64_t a, uint64_t b);

/*
 * Iterate: for (size_t i = 0; i < h->size; i++) if (h->tab[i].val) ...
 * htab_del() moves later entries back: after deleting the entry of slot
 * i, look at slot i again.
 */

#endif
