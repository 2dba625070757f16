/* SPDX-License-Identifier: Apache-2.0 */
/*
 * python_names.h - the names of Python frames, "function (file.py)" or
 * with --python-lines "function (file.py:LINE)", read from the code
 * objects in the process's memory while it lives, cached by process and
 * code object.
 */
#ifndef OW_PYTHON_NAMES_H
#define OW_PYTHON_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the names are read with: offsets in a version's objects. */
struct py_layout {
	unsigned version;		/* 0x030b: 3.11 */
	uint16_t co_filename, co_name, co_qualname, co_firstlineno,
		 co_linetable;
	uint16_t str_state, str_len;	/* PyASCIIObject.state, .length */
	uint16_t str_ascii, str_compact; /* where the characters of a
					 * compact ASCII / other string are */
	uint16_t bytes_len, bytes_data;	/* PyBytesObject */
};

/* Who knows the layout of a process's interpreter. */
typedef const struct py_layout *(*py_layout_fn)(const void *ctx, uint32_t tgid);

struct pynames;

/* layout(ctx, tgid): the offsets of tgid's interpreter (py_procs_layout());
 * lines: the line of each frame's instruction too (--python=lines). */
struct pynames *py_names_new(py_layout_fn layout, const void *ctx, bool lines);
void py_names_free(struct pynames *n);

/* The name of the Python frame value (an OW_FRAME_INTERP entry's value,
 * unwind_python.h) of tgid; valid until py_names_free(). */
const char *py_names_name(struct pynames *n, uint32_t tgid, uint64_t value);

/* Read the names of the Python frames of raw stack ips (nr entries) of
 * tgid now (a stack just received: its process may exit soon). */
void py_names_prefetch(struct pynames *n, uint32_t tgid, const uint64_t *ips,
		       uint32_t nr);

/* Where a frame is, for pprof: its code object's function, file and first
 * line (false when not known). */
bool py_names_where(struct pynames *n, uint32_t tgid, uint64_t value,
		    const char **func, const char **file, int *first_line);

/* Read len bytes of tgid's memory at addr: 0, or -1. */
int py_mem_read(uint32_t tgid, uint64_t addr, void *buf, size_t len);

/*
 * The line of instruction idx (in code units) by a 3.11 location table
 * (co_linetable) of a code object starting at first_line; -1 when the
 * table gives none.
 */
int py_line_of(const uint8_t *table, size_t len, int first_line, uint64_t idx);

#endif
