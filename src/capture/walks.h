/* SPDX-License-Identifier: Apache-2.0 */
/*
 * walks.h - the stack walks' BPF programs (bpf/offwake.bpf.c: walkst):
 * which load with the capture, which slots of the triggers' program
 * arrays they fill, and the ones loaded later, when first needed (an
 * interpreter's walker, when the first process running it is seen).
 */
#ifndef OW_WALKS_H
#define OW_WALKS_H

#include <stdbool.h>
#include "offwake.h"

struct offwake_bpf;
struct walks_late;

/* Before the load: each walk's program loaded or not (none for raw: the
 * raw_tp programs walk inline), and never attached. */
void walks_configure(struct offwake_bpf *s, bool raw);
/* After it: the loaded ones into their slots; 0, or an errno. */
int walks_fill(struct offwake_bpf *s);

/*
 * The walks of slot (OW_WALK_PYTHON, ...), for every trigger loaded,
 * loaded now from a second instance of the object whose maps are s's, and
 * put into their slots: 0, or an errno (with the libbpf's message on
 * stderr).  Once per slot: again, it returns what it returned first.
 * *late keeps them; walks_free() drops them all.
 */
int walks_load_late(struct walks_late **late, struct offwake_bpf *s,
		    enum ow_walk_slot slot);
void walks_free(struct walks_late *late);

#endif
