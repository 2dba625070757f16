// SPDX-License-Identifier: Apache-2.0
/*
 * python_procs.c - the traced processes that run CPython, found in user
 * space at the moments their unwind tables are (first seen, exec, fork,
 * a waker asking for tables), and given a pyprocs map entry the BPF
 * walker follows (bpf/unwind_python.bpf.h).
 *
 * A process runs CPython when one of its executable file mappings (the
 * executable, or libpython*.so) exports _PyRuntime and Py_Version in its
 * dynamic symbols (so no debug symbols are needed).  Py_Version (the
 * PY_VERSION_HEX the interpreter was built as) is read from the process's
 * memory; the version's major and minor pick the offsets from the table
 * below, checked against Debian's python3.11 with its -dbg symbols
 * (gdb: ptype/o struct _ts, struct _PyInterpreterFrame, PyCodeObject...).
 * A version not in the table is counted and named once in the summary;
 * its threads keep their native frames.
 *
 * Files are looked at once (by device and inode); a process once per
 * version of its maps (a libpython dlopen()ed later is found at the next
 * look).  What was learnt of a process that exited is kept: its frames'
 * names may still be read (python_names.c) from what was cached.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include "python_procs.h"
#include "unwind_python.h"
#include "common/htab.h"

/* One supported version: the walk's offsets and the names'. */
struct py_version {
	struct ow_pyproc walk;	/* runtime left 0 */
	struct py_layout names;
};

static const struct py_version versions[] = {
	{	/* 3.11 */
		.walk = { .rt_interp = 40, .is_tstate = 16, .ts_next = 8,
			  .ts_cframe = 56, .ts_tid = 160, .cf_frame = 8,
			  .fr_code = 32, .fr_previous = 48, .fr_instr = 56,
			  .fr_entry = 68, .co_code = 184, .version = 0x030b,
			  .ts_chunk = 296, .ts_top = 304, .sc_data = 24 },
		.names = { .version = 0x030b, .co_filename = 112,
			   .co_name = 120, .co_qualname = 128,
			   .co_firstlineno = 72, .co_linetable = 136,
			   .str_state = 32, .str_len = 16, .str_ascii = 48,
			   .str_compact = 72, .bytes_len = 16,
			   .bytes_data = 32 },
	},
	{	/* 3.12 (pyenv's 3.12.1 with its debug info) */
		.walk = { .rt_interp = 40, .is_tstate = 72, .ts_next = 8,
			  .ts_cframe = 56, .ts_tid = 144, .cf_frame = 0,
			  .fr_code = 0, .fr_previous = 8, .fr_instr = 56,
			  .fr_entry = 70, .co_code = 192, .version = 0x030c,
			  .entry_kind = OW_PY_OWNER_CSTACK,
			  .ts_chunk = 232, .ts_top = 240, .sc_data = 24 },
		.names = { .version = 0x030c, .co_filename = 112,
			   .co_name = 120, .co_qualname = 128,
			   .co_firstlineno = 68, .co_linetable = 136,
			   .str_state = 32, .str_len = 16, .str_ascii = 40,
			   .str_compact = 56, .bytes_len = 16,
			   .bytes_data = 32 },
	},
};

/* What a file exports (by device and inode). */
struct py_file {
	bool python;		/* exports both symbols */
	uint64_t runtime, version;	/* their values (link-time addresses) */
	uint64_t load_off;	/* p_vaddr - p_offset of its text segment */
};

struct py_proc {
	uint64_t maps_version;	/* of the maps last looked at */
	const struct py_version *v;	/* NULL: none (yet) */
	bool in_map;
};

struct pyprocs {
	struct procmaps *pm;
	int map_fd;
	volatile __u64 *bits;		/* the BPF side's python_bits */
	uint32_t bit_users[OW_PY_BITS];	/* entries behind each bit */
	struct htab files;	/* (dev, ino) -> struct py_file */
	struct htab procs;	/* (tgid, 0) -> struct py_proc */
	struct py_stats st;
	int (*ready)(void *);	/* before the first entry (the walker) */
	void *ready_ctx;
	int ready_err;		/* what it said: no entries then */
	bool readied;
};

struct pyprocs *py_procs_new(struct procmaps *pm, int map_fd,
			     volatile __u64 *bits)
{
	struct pyprocs *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	elf_version(EV_CURRENT);
	p->pm = pm;
	p->map_fd = map_fd;
	p->bits = bits;
	return p;
}

void py_procs_on_first(struct pyprocs *p, int (*ready)(void *), void *ctx)
{
	p->ready = ready;
	p->ready_ctx = ctx;
}

void py_procs_free(struct pyprocs *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->files.size; i++)
		free(p->files.tab[i].val);
	for (size_t i = 0; i < p->procs.size; i++)
		free(p->procs.tab[i].val);
	htab_free(&p->files);
	htab_free(&p->procs);
	free(p);
}

/* The symbols of elf's .dynsym that matter here into f. */
static void read_dynsym(Elf *elf, struct py_file *f)
{
	Elf_Scn *scn = NULL;
	bool rt = false, ver = false;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, i, &s) || !s.st_value ||
			    !(name = elf_strptr(elf, sh.sh_link, s.st_name)))
				continue;
			if (!strcmp(name, "_PyRuntime")) {
				f->runtime = s.st_value;
				rt = true;
			} else if (!strcmp(name, "Py_Version")) {
				f->version = s.st_value;
				ver = true;
			}
		}
	}
	f->python = rt && ver;
}

/* The load segment of elf that mapping m holds. */
static bool text_segment(Elf *elf, const struct pmap *m, struct py_file *f)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    procmaps_holds_segment(m, ph.p_offset, ph.p_filesz)) {
			f->load_off = ph.p_vaddr - ph.p_offset;
			return true;
		}
	}
	return false;
}

/* What the file of m (in tgid) exports, looked at once per file; NULL
 * when it could not be read (looked at again next time). */
static const struct py_file *file_of(struct pyprocs *p, uint32_t tgid,
				     const struct pmap *m)
{
	struct py_file *f = htab_get(&p->files, m->dev, m->ino);
	Elf *elf = NULL;
	int fd;

	if (f)
		return f;
	if ((fd = procmaps_open(tgid, m)) < 0)
		return NULL;
	if (!(f = calloc(1, sizeof(*f))) ||
	    !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		free(f);
		close(fd);
		return NULL;
	}
	read_dynsym(elf, f);
	if (f->python && !text_segment(elf, m, f))
		f->python = false;
	elf_end(elf);
	close(fd);
	if (htab_put(&p->files, m->dev, m->ino, f) < 0) {
		free(f);
		return NULL;
	}
	return f;
}

/* Whether the file mapped at path may be an interpreter (python3.11,
 * libpython3.11.so.1.0): only those are opened. */
static bool maybe_python(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "python", 6) || !strncmp(base, "libpython", 9);
}

/* The bytes from the first of n 8-byte fields (and the byte at b1) to
 * the last: *base (8-aligned) and *len. */
static void span(const uint16_t *f8, size_t n, uint16_t b1, uint16_t *base,
		 uint16_t *len)
{
	uint16_t lo = b1, hi = b1 + 1;

	for (size_t i = 0; i < n; i++) {
		lo = f8[i] < lo ? f8[i] : lo;
		hi = f8[i] + 8 > hi ? f8[i] + 8 : hi;
	}
	*base = lo & ~7;
	*len = hi - *base;
}

/* The bytes of a frame and of a thread state the walk reads: from their
 * first field to their last. */
static void read_spans(struct ow_pyproc *e)
{
	const uint16_t fr[] = { e->fr_code, e->fr_previous, e->fr_instr };
	const uint16_t ts[] = { e->ts_cframe, e->ts_tid, e->ts_chunk,
				e->ts_top };

	span(fr, sizeof(fr) / sizeof(*fr), e->fr_entry, &e->fr_base,
	     &e->fr_len);
	span(ts, sizeof(ts) / sizeof(*ts), e->ts_tid, &e->ts_base, &e->ts_len);
}

static const struct py_version *find_version(unsigned mm)
{
	for (size_t i = 0; i < sizeof(versions) / sizeof(*versions); i++)
		if (versions[i].walk.version == mm)
			return &versions[i];
	return NULL;
}

/* tgid's entry came (delta 1) or went (-1): its bit in python_bits (a
 * bit the fork program set stays set until its last entry goes). */
static void set_count(struct pyprocs *p, uint32_t tgid, int delta)
{
	uint32_t b = tgid % OW_PY_BITS;

	if (delta < 0 && !p->bit_users[b])
		return;
	p->bit_users[b] += delta;
	if (p->bits && delta > 0)
		__sync_fetch_and_or(&p->bits[OW_PY_BIT_WORD(tgid)], OW_PY_BIT(tgid));
	else if (p->bits && !p->bit_users[b])
		__sync_fetch_and_and(&p->bits[OW_PY_BIT_WORD(tgid)], ~OW_PY_BIT(tgid));
}

/* The interpreter of tgid (mapped at m, file f): its map entry; -1 when
 * its memory could not be read (looked at again next time). */
static int found(struct pyprocs *p, uint32_t tgid, struct py_proc *pr,
		 const struct pmap *m, const struct py_file *f)
{
	uint64_t bias = m->start - m->off - f->load_off;
	uint32_t hex = 0;
	struct ow_pyproc e;
	unsigned mm;

	if (py_mem_read(tgid, bias + f->version, &hex, sizeof(hex)) || !hex)
		return -1;
	mm = hex >> 16;
	pr->v = find_version(mm);
	if (!pr->v) {
		if (!p->st.unsupported++) {
			p->st.unsupported_version = mm;
			p->st.unsupported_pid = tgid;
		}
		return 0;
	}
	if (p->ready && !p->readied) {
		p->ready_err = p->ready(p->ready_ctx);
		p->readied = true;
	}
	if (p->ready_err) {
		p->st.unwalked++;
		return 0;
	}
	e = pr->v->walk;
	e.runtime = bias + f->runtime;
	read_spans(&e);
	if (bpf_map_update_elem(p->map_fd, &tgid, &e, BPF_ANY))
		return -1;
	if (!pr->in_map)
		set_count(p, tgid, 1);
	pr->in_map = true;
	p->st.procs++;
	return 0;
}

static struct py_proc *proc_of(struct pyprocs *p, uint32_t tgid)
{
	struct py_proc *pr = htab_get(&p->procs, tgid, 0);

	if (pr || !(pr = calloc(1, sizeof(*pr))))
		return pr;
	if (htab_put(&p->procs, tgid, 0, pr) < 0) {
		free(pr);
		return NULL;
	}
	return pr;
}

void py_procs_check(struct pyprocs *p, uint32_t tgid)
{
	const struct pmap *maps;
	struct py_proc *pr;
	uint64_t version;
	size_t n;

	if (!p || !(pr = proc_of(p, tgid)) || pr->in_map || pr->v)
		return;
	maps = procmaps_current(p->pm, tgid, &n, &version);
	if (!maps || version == pr->maps_version)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct py_file *f;

		if (!maps[i].ino || !maybe_python(maps[i].path))
			continue;
		if (!(f = file_of(p, tgid, &maps[i])))
			return;		/* not read: not this version either */
		if (f->python) {
			if (!found(p, tgid, pr, &maps[i], f))
				pr->maps_version = version;
			return;
		}
	}
	pr->maps_version = version;
}

void py_procs_exec(struct pyprocs *p, uint32_t tgid)
{
	struct py_proc *pr = p ? htab_get(&p->procs, tgid, 0) : NULL;

	if (!pr)
		return;
	if (pr->in_map)		/* (the BPF side deleted the entry) */
		set_count(p, tgid, -1);
	memset(pr, 0, sizeof(*pr));
}

void py_procs_fork(struct pyprocs *p, uint32_t child, uint32_t parent)
{
	struct py_proc *pp = p ? htab_get(&p->procs, parent, 0) : NULL;
	struct py_proc *pc;
	struct ow_pyproc e;

	if (!pp || !pp->in_map || !(pc = proc_of(p, child)))
		return;
	if (pc->in_map)
		set_count(p, child, -1);
	*pc = *pp;
	pc->in_map = !bpf_map_lookup_elem(p->map_fd, &child, &e);
	if (pc->in_map)
		set_count(p, child, 1);
}

void py_procs_sweep(struct pyprocs *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->procs.size; i++) {
		struct py_proc *pr = p->procs.tab[i].val;
		uint32_t tgid = p->procs.tab[i].a;

		if (pr && pr->in_map && kill(tgid, 0) && errno == ESRCH) {
			bpf_map_delete_elem(p->map_fd, &tgid);
			pr->in_map = false;
			set_count(p, tgid, -1);
		}
	}
}

const struct py_layout *py_procs_layout(const void *ctx, uint32_t tgid)
{
	const struct pyprocs *p = ctx;
	const struct py_proc *pr = p ? htab_get(&p->procs, tgid, 0) : NULL;

	return pr && pr->v ? &pr->v->names : NULL;
}

void py_procs_stats(const struct pyprocs *p, struct py_stats *st)
{
	if (p)
		*st = p->st;
	else
		memset(st, 0, sizeof(*st));
}
