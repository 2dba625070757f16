// SPDX-License-Identifier: Apache-2.0
/*
 * gopclntab.c - Go's function table (runtime/symtab.go's pcHeader and
 * functab) to function names, for stripped Go binaries.  The header
 * gives the number of functions, where the names (funcnametab) and the
 * function table are; each table entry gives a function's entry address
 * and its _func record, whose nameoff indexes funcnametab.  A function
 * ends where the next begins (the table ends with the end of the text).
 *
 *   magic        Go        header after magic, pad, minLC, ptrSize
 *   0xfffffffa   1.16-17   nfunc, nfiles, funcnameOff, cuOff, filetabOff,
 *                          pctabOff, pclnOff; functab {entry, funcoff}
 *                          as uintptrs, _func starts with entry (uintptr)
 *   0xfffffff0   1.18-19   nfunc, nfiles, textStart, then as above;
 *   0xfffffff1   1.20+     functab {entryoff, funcoff} as uint32 from
 *                          textStart, _func starts with entryoff (uint32)
 *                          (both: 1.20 changed only the magic)
 *
 * The table is .gopclntab, .data.rel.ro.gopclntab in PIEs, else (no
 * section headers) searched for.  Everything is bounds-checked: the file is the traced user's.
 */
#include <stdbool.h>
#include <string.h>
#include "gopclntab.h"

struct pcln {
	const unsigned char *p;
	size_t size;
	unsigned ptr;		/* pointer size: 4 or 8 */
	bool le;		/* little-endian */
};

static uint64_t get(const struct pcln *t, uint64_t off, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)t->p[off + i] << 8 * (t->le ? i : n - 1 - i);
	return v;
}

/* Whether the n bytes at off are in the table. */
static bool in(const struct pcln *t, uint64_t off, uint64_t n)
{
	return off <= t->size && n <= t->size - off;
}

/* The header's word i after its first 8 bytes. */
static uint64_t word(const struct pcln *t, unsigned i)
{
	return get(t, 8 + (uint64_t)i * t->ptr, t->ptr);
}

/* A plausible header at p: magic, zero padding, minLC, pointer size. */
static bool header(struct pcln *t, const unsigned char *p, size_t size,
		   bool le)
{
	static const uint32_t magics[] = { 0xfffffffa, 0xfffffff0,
					   0xfffffff1 };

	*t = (struct pcln){ p, size, 0, le };
	if (size < 8 + 8 * 8 || p[4] || p[5] ||
	    (p[6] != 1 && p[6] != 2 && p[6] != 4) || (p[7] != 4 && p[7] != 8))
		return false;
	t->ptr = p[7];
	for (size_t i = 0; i < sizeof(magics) / sizeof(*magics); i++)
		if (get(t, 0, 4) == magics[i])
			return true;
	return false;
}

/* Give each function of t to fn (NULL: count them only); text: the
 * address of .text. */
static size_t read_table(const struct pcln *t, uint64_t text, gopcln_fn *fn,
			 void *ctx)
{
	uint32_t magic = get(t, 0, 4);
	bool old = magic == 0xfffffffa;		/* 1.16, 1.17 */
	unsigned w = old ? 0 : 1;		/* 1.18+: textStart first */
	uint64_t nfunc = word(t, 0), names = word(t, 2 + w);
	uint64_t pcln = word(t, 6 + w), ent = old ? t->ptr : 4;
	uint64_t start = old ? 0 : word(t, 2);
	size_t n = 0;

	if (!old && !start)
		start = text;	/* PIE: relocated at run time, 0 in the file */
	if (nfunc > t->size || !in(t, pcln, (nfunc + 1) * 2 * ent) ||
	    names >= t->size)
		return 0;
	for (uint64_t i = 0; i < nfunc; i++) {
		uint64_t e = pcln + i * 2 * ent;
		uint64_t addr = get(t, e, ent), next = get(t, e + 2 * ent, ent);
		uint64_t func = get(t, e + ent, ent), nameoff;
		const char *name;

		/* from pcln, within the table (a funcoff near 2^64 would
		 * wrap round to the header) */
		if (func > t->size - pcln || !in(t, func += pcln, ent + 4))
			continue;
		nameoff = get(t, func + ent, 4);
		if (names + nameoff >= t->size)
			continue;
		name = (const char *)t->p + names + nameoff;
		if (!memchr(name, 0, t->size - names - nameoff) ||
		    next < addr)
			continue;
		if (fn)
			fn(ctx, start + addr, next - addr, name);
		n++;
	}
	return n;
}

/* The section called name, with *sh its header, or NULL. */
static Elf_Scn *find_scn(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) &&
		    (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	return NULL;
}

static Elf_Data *contents(Elf *elf, const char *name)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, name, &sh);
	Elf_Data *d = scn && sh.sh_type != SHT_NOBITS ?
		elf_getdata(scn, NULL) : NULL;

	return d && d->d_buf ? d : NULL;
}

/* Whether elf has a PT_NOTE with Go's build id: a Go binary. */
static bool is_go(Elf *elf)
{
	size_t n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t off = 0, name, desc;
		Elf_Data *d;
		GElf_Nhdr nh;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE ||
		    !(d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					       ELF_T_NHDR)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name, &desc)) > 0)
			if ((nh.n_namesz == 3 || nh.n_namesz == 4) &&	/* "Go\0\0" */
			    !memcmp((char *)d->d_buf + name, "Go", 3))
				return true;
	}
	return false;
}

/* A Go binary without the table's section (section headers stripped):
 * its header is searched in the data segments, pointer-aligned, and
 * taken when every one of its functions reads well. */
static size_t search_segments(Elf *elf, bool le, uint64_t text,
			      gopcln_fn *fn, void *ctx)
{
	size_t n = 0, size;
	const unsigned char *file = (unsigned char *)elf_rawfile(elf, &size);
	struct pcln t;
	GElf_Phdr ph;

	if (!file || elf_getphdrnum(elf, &n) || !is_go(elf))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    (ph.p_flags & PF_X) || ph.p_offset > size ||
		    ph.p_filesz > size - ph.p_offset)
			continue;
		for (uint64_t off = ph.p_offset & ~7ULL;
		     off + 8 < ph.p_offset + ph.p_filesz; off += 8) {
			uint64_t nf;

			if (off < ph.p_offset ||
			    !header(&t, file + off, ph.p_offset + ph.p_filesz - off, le))
				continue;
			nf = word(&t, 0);
			if (nf && read_table(&t, text, NULL, NULL) == nf)
				return read_table(&t, text, fn, ctx);
		}
	}
	return 0;
}

size_t gopclntab_read(Elf *elf, gopcln_fn *fn, void *ctx)
{
	static const char *const names[] = { ".gopclntab",
					     ".data.rel.ro.gopclntab" };
	uint64_t text = 0;
	struct pcln t;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	bool le;

	if (!gelf_getehdr(elf, &eh))
		return 0;
	le = eh.e_ident[EI_DATA] == ELFDATA2LSB;
	if (find_scn(elf, ".text", &sh))
		text = sh.sh_addr;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		Elf_Data *d = contents(elf, names[i]);

		if (d && header(&t, d->d_buf, d->d_size, le))
			return read_table(&t, text, fn, ctx);
	}
	return search_segments(elf, le, text, fn, ctx);
}
