// SPDX-License-Identifier: Apache-2.0
/*
 * python_names.c - Python frames' names, read from their code objects in
 * the process's memory (process_vm_readv) with the offsets of its
 * version (python_procs.c): co_name and co_filename's last component,
 * "function (file.py)", and with --python-lines the line of the frame's
 * instruction, "function (file.py:LINE)", from co_linetable (3.11's
 * location table) and co_firstlineno.
 *
 * Each code object is read once per process (code objects are immutable,
 * and live as long as a frame runs them); its names are kept after the
 * process exits, so the stacks drained after that keep them.  A code
 * object that could not be read is "[python: unreadable]" (an exited
 * process whose frame was never named before).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <linux/types.h>
#include "python_names.h"
#include "offwake.h"
#include "common/htab.h"

#define PY_NAME_MAX	256	/* characters of a name read at most */
#define PY_TABLE_MAX	(64 << 10)	/* bytes of a location table */

struct py_code {
	char *func, *file;	/* NULL: unreadable */
	int first_line;
	uint8_t *table;		/* co_linetable (--python-lines) */
	size_t table_len;
	char *name;		/* "func (file)" */
};

struct pynames {
	py_layout_fn layout;
	const void *ctx;
	bool lines;
	struct htab codes;	/* (code address, tgid) -> struct py_code */
	struct htab lined;	/* (code address, tgid | line << 32) ->
				 * "func (file:line)" */
};

static const char unreadable[] = "[python: unreadable]";

int py_mem_read(uint32_t tgid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };

	return process_vm_readv(tgid, &local, 1, &remote, 1, 0) ==
	       (ssize_t)len ? 0 : -1;
}

struct pynames *py_names_new(py_layout_fn layout, const void *ctx, bool lines)
{
	struct pynames *n = calloc(1, sizeof(*n));

	if (n) {
		n->layout = layout;
		n->ctx = ctx;
		n->lines = lines;
	}
	return n;
}

void py_names_free(struct pynames *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->codes.size; i++) {
		struct py_code *c = n->codes.tab[i].val;

		if (!c)
			continue;
		free(c->func);
		free(c->file);
		free(c->table);
		free(c->name);
		free(c);
	}
	for (size_t i = 0; i < n->lined.size; i++)
		free(n->lined.tab[i].val);
	htab_free(&n->codes);
	htab_free(&n->lined);
	free(n);
}

/* Append code point cp to out (UTF-8); the new length. */
static size_t put_utf8(char *out, size_t o, uint32_t cp)
{
	if (cp < 0x80) {
		out[o++] = cp;
	} else if (cp < 0x800) {
		out[o++] = 0xc0 | cp >> 6;
		out[o++] = 0x80 | (cp & 63);
	} else if (cp < 0x10000) {
		out[o++] = 0xe0 | cp >> 12;
		out[o++] = 0x80 | ((cp >> 6) & 63);
		out[o++] = 0x80 | (cp & 63);
	} else {
		out[o++] = 0xf0 | cp >> 18;
		out[o++] = 0x80 | ((cp >> 12) & 63);
		out[o++] = 0x80 | ((cp >> 6) & 63);
		out[o++] = 0x80 | (cp & 63);
	}
	return o;
}

/*
 * The str object at addr of tgid as a UTF-8 string (malloc'd), or NULL:
 * compact strings only (what code objects hold); state bits as 3.11 has
 * them: kind (1, 2, 4 bytes a character) at bit 2, compact bit 5, ascii
 * bit 6.
 */
static char *read_str(uint32_t tgid, const struct py_layout *l, uint64_t addr)
{
	uint8_t raw[PY_NAME_MAX * 4];
	uint64_t len = 0;
	uint32_t state = 0;
	unsigned kind;
	size_t o = 0;
	char *out;

	if (!addr || py_mem_read(tgid, addr + l->str_len, &len, sizeof(len)) ||
	    py_mem_read(tgid, addr + l->str_state, &state, sizeof(state)) ||
	    !(state >> 5 & 1))
		return NULL;
	kind = state >> 6 & 1 ? 1 : state >> 2 & 7;
	if (kind != 1 && kind != 2 && kind != 4)
		return NULL;
	if (len > PY_NAME_MAX)
		len = PY_NAME_MAX;
	if (len && py_mem_read(tgid, addr + (state >> 6 & 1 ? l->str_ascii :
						 l->str_compact),
			       raw, len * kind))
		return NULL;
	if (!(out = malloc(len * 4 + 1)))
		return NULL;
	for (size_t i = 0; i < len; i++) {
		uint32_t cp = kind == 1 ? raw[i] :
			      kind == 2 ? ((uint16_t *)raw)[i] :
			      ((uint32_t *)raw)[i];

		o = put_utf8(out, o, cp > 0x10ffff ? '?' : cp);
	}
	out[o] = 0;
	return out;
}

/* The bytes object at addr of tgid (malloc'd, *len), or NULL. */
static uint8_t *read_bytes(uint32_t tgid, const struct py_layout *l,
			   uint64_t addr, size_t *len)
{
	uint64_t n = 0;
	uint8_t *b;

	if (!addr || py_mem_read(tgid, addr + l->bytes_len, &n, sizeof(n)) ||
	    n > PY_TABLE_MAX || !(b = malloc(n + 1)))
		return NULL;
	if (n && py_mem_read(tgid, addr + l->bytes_data, b, n)) {
		free(b);
		return NULL;
	}
	*len = n;
	return b;
}

/* The last component of a path, in place. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The code object at addr of tgid, read once. */
static struct py_code *code_of(struct pynames *n, uint32_t tgid, uint64_t addr)
{
	const struct py_layout *l = n->layout(n->ctx, tgid);
	struct py_code *c = htab_get(&n->codes, addr, tgid);
	uint64_t func = 0, file = 0, table = 0;
	int32_t first = 0;

	if (c)
		return c;
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	if (l && !py_mem_read(tgid, addr + l->co_name, &func, sizeof(func)) &&
	    !py_mem_read(tgid, addr + l->co_filename, &file, sizeof(file)) &&
	    !py_mem_read(tgid, addr + l->co_firstlineno, &first, sizeof(first))) {
		c->func = read_str(tgid, l, func);
		c->file = read_str(tgid, l, file);
		c->first_line = first;
		if (n->lines &&
		    !py_mem_read(tgid, addr + l->co_linetable, &table, sizeof(table)))
			c->table = read_bytes(tgid, l, table, &c->table_len);
	}
	if (c->func && c->file && asprintf(&c->name, "%s (%s)", c->func,
					   base_name(c->file)) < 0)
		c->name = NULL;
	if (htab_put(&n->codes, addr, tgid, c) < 0) {
		free(c->func);
		free(c->file);
		free(c->table);
		free(c->name);
		free(c);
		return NULL;
	}
	return c;
}

/* 3.11's varints: 6 bits a byte, low first, bit 6 says more follow. */
static uint64_t varint(const uint8_t *t, size_t len, size_t *p)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (*p >= len)
			return v;
		b = t[(*p)++];
		v |= (uint64_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64 && shift < 60);
	return v;
}

static int64_t svarint(const uint8_t *t, size_t len, size_t *p)
{
	uint64_t v = varint(t, len, p);

	return v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
}

/*
 * Location table entries: a first byte with bit 7 set, code (bits 3-6) and
 * length - 1 in code units (bits 0-2), then by code: 15 no location, 14
 * long form (line delta, end line delta, column, end column), 13 no column
 * (line delta), 10-12 one line (delta code - 10, two column bytes), 0-9
 * short form (same line, one column byte).
 */
int py_line_of(const uint8_t *t, size_t len, int first_line, uint64_t idx)
{
	int64_t line = first_line;
	uint64_t at = 0;
	size_t p = 0;

	while (p < len) {
		uint8_t b = t[p++];
		unsigned code = b >> 3 & 15, n = (b & 7) + 1;
		bool none = false;

		if (code == 15) {
			none = true;
		} else if (code == 14) {
			line += svarint(t, len, &p);
			varint(t, len, &p);
			varint(t, len, &p);
			varint(t, len, &p);
		} else if (code == 13) {
			line += svarint(t, len, &p);
		} else if (code >= 10) {
			line += code - 10;
			p += 2;
		} else {
			p += 1;
		}
		if (idx < at + n)
			return none ? -1 : (int)line;
		at += n;
	}
	return -1;
}

const char *py_names_name(struct pynames *n, uint32_t tgid, uint64_t value)
{
	struct py_code *c = code_of(n, tgid, OW_PY_CODE(value));
	uint64_t idx = OW_PY_IDX(value);
	char *s;
	int line;

	if (!c || !c->name)
		return unreadable;
	if (!n->lines || !c->table || idx >= OW_PY_IDX_MAX ||
	    (line = py_line_of(c->table, c->table_len, c->first_line, idx)) < 0)
		return c->name;
	s = htab_get(&n->lined, OW_PY_CODE(value), tgid | (uint64_t)line << 32);
	if (s)
		return s;
	if (asprintf(&s, "%s (%s:%d)", c->func, base_name(c->file), line) < 0)
		return c->name;
	if (htab_put(&n->lined, OW_PY_CODE(value), tgid | (uint64_t)line << 32,
		     s) < 0) {
		free(s);
		return c->name;
	}
	return s;
}

void py_names_prefetch(struct pynames *n, uint32_t tgid, const uint64_t *ips,
		       uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		if (OW_FRAME_KIND(ips[i]) == OW_FRAME_INTERP)
			py_names_name(n, tgid, OW_FRAME_VALUE(ips[i]));
}

bool py_names_where(struct pynames *n, uint32_t tgid, uint64_t value,
		    const char **func, const char **file, int *first_line)
{
	struct py_code *c = code_of(n, tgid, OW_PY_CODE(value));

	if (!c || !c->name)
		return false;
	*func = c->func;
	*file = c->file;
	*first_line = c->first_line;
	return true;
}
