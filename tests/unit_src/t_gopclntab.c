// SPDX-License-Identifier: Apache-2.0
/*
 * t_gopclntab.c - src/symbols/gopclntab.c on Go function tables made here,
 * one of each layout it reads, in small ELF images made in memory
 * (elf_memory): with a .gopclntab section, and without section headers
 * (found by the Go build-id note and a search of the data segment).
 *
 * The tables follow debug/gosym/pclntab.go (Go 1.19's, which knows the
 * 1.16 and 1.18 layouts): header {magic, 0, 0, minLC, ptrSize} then
 * pointer-sized words; functab at pclnOff, nfunc+1 {entry, funcoff}
 * pairs (the last entry is the end of the text), funcoff from pclnOff to
 * an _func record {entry, nameoff, ...}, nameoff into funcnametab.
 *   1.16/1.17 (0xfffffffa): nfunc, nfiles, funcnameOff, cuOff, filetabOff,
 *       pctabOff, pclnOff; functab fields and _func.entry are uintptrs.
 *   1.18/1.19 (0xfffffff0): nfunc, nfiles, textStart, funcnameOff, cuOff,
 *       filetabOff, pctabOff, pclnOff; functab fields are uint32 (entries
 *       offsets from textStart), _func.entry is a uint32 offset.
 *   1.20+ (0xfffffff1): Go 1.19's source does not know this magic; Go
 *       1.20's debug/gosym reads it exactly as 1.18's (same header and
 *       functab), only the magic changed, so it is made as 1.18's here.
 *
 * Bad tables (truncated anywhere, nfunc too large, offsets out of the
 * table or wrapping, a name without its NUL, bad headers) must give only
 * functions that are right, or none, and never read outside the table:
 * each table ends the malloc'd image, so the ASan build (build/san)
 * catches a read past it.
 */
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/gopclntab.h"
#include "check.h"

enum { L116, L118, L120, NLAYOUT };
static const struct {
	const char *name;
	uint32_t magic;
	bool text_start;	/* header has textStart, offsets from it */
} layouts[NLAYOUT] = {
	[L116] = { "go1.16", 0xfffffffa, false },
	[L118] = { "go1.18", 0xfffffff0, true },
	[L120] = { "go1.20", 0xfffffff1, true },
};

/* The functions of every table: TEXT is .text's address. */
#define TEXT 0x401000ULL
#define NFN 4
static const struct fn {
	const char *name;
	uint64_t addr, size;
} fns[NFN] = {
	{ "runtime.text", TEXT, 0x40 },
	{ "runtime.gopark", TEXT + 0x40, 0x100 },
	{ "main.(*T).owMethod", TEXT + 0x140, 0x2c0 },
	{ "main.main", TEXT + 0x400, 0x24 },
};

static void put(unsigned char *p, uint64_t v, unsigned n, bool le)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = v >> 8 * (le ? i : n - 1 - i);
}

/* A table as made, and where its parts are (for the bad ones). */
struct tab {
	unsigned char b[1024];
	size_t len, names, pcln, functab_end;
	size_t nameoff[NFN], func[NFN];	/* offsets in names, from pcln */
	unsigned ptr, ent, w;		/* pointer, functab field size; words before funcnameOff */
	bool le;
	uint64_t start;			/* textStart as written */
};

/* Header word i (after the 8 first bytes) of t. */
static void set_word(struct tab *t, unsigned i, uint64_t v)
{
	put(t->b + 8 + i * t->ptr, v, t->ptr, t->le);
}

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Make the table of fns in layout l; start: textStart to write (1.18+;
 * 0 as in a PIE, whose entries are then from .text). */
static void make_tab(struct tab *t, int l, unsigned ptr, bool le,
		     uint64_t start)
{
	bool ts = layouts[l].text_start;
	size_t off;

	memset(t, 0, sizeof(*t));
	t->ptr = ptr, t->le = le, t->ent = ts ? 4 : ptr, t->w = ts ? 3 : 2;
	t->start = start;
	put(t->b, layouts[l].magic, 4, le);
	t->b[6] = 1, t->b[7] = ptr;
	off = t->names = 8 + 8 * ptr;
	for (int i = 0; i < NFN; i++) {
		t->nameoff[i] = off - t->names;
		strcpy((char *)t->b + off, fns[i].name);
		off += strlen(fns[i].name) + 1;
	}
	t->pcln = off = align8(off);
	/* functab: NFN pairs and the end of the text; then the _funcs */
	t->functab_end = t->pcln + (2 * NFN + 1) * t->ent;
	off = align8(t->functab_end);
	for (int i = 0; i < NFN; i++) {
		uint64_t e = ts ? fns[i].addr - (start ? start : TEXT) : fns[i].addr;
		unsigned char *f = t->b + t->pcln + 2 * i * t->ent;

		t->func[i] = off - t->pcln;
		put(f, e, t->ent, le);
		put(f + t->ent, t->func[i], t->ent, le);
		put(t->b + off, e, t->ent, le);			/* _func.entry */
		put(t->b + off + t->ent, t->nameoff[i], 4, le);	/* nameoff */
		off = align8(off + t->ent + 4 * 10);	/* args ... nfuncdata */
	}
	put(t->b + t->pcln + 2 * NFN * t->ent,
	    fns[NFN - 1].addr + fns[NFN - 1].size - (ts ? (start ? start : TEXT) : 0),
	    t->ent, le);
	t->len = off;
	set_word(t, 0, NFN);
	set_word(t, 1, 0);			/* nfiles */
	if (ts)
		set_word(t, 2, start);
	set_word(t, t->w, t->names);		/* funcnameOff */
	for (unsigned i = 1; i <= 4; i++)	/* cu, filetab, pctab, pcln */
		set_word(t, t->w + i, t->pcln);
}

/*
 * An ELF image ending with the table: ELF header, PT_NOTE (Go's build id
 * note) and a read-only PT_LOAD of the whole file, the note, .shstrtab,
 * the section headers (null, .text as NOBITS at text, .gopclntab,
 * .shstrtab; none when !shdrs), then the table.  malloc'd to its size.
 */
enum { EH = 64, PH = 56, SH = 64, NOTE = EH + 2 * PH, STR = NOTE + 24,
       SHOFF = STR + 32, TABOFF = SHOFF + 4 * SH };
static const char shstr[] = "\0.text\0.gopclntab\0.shstrtab";

static unsigned char *make_elf(const struct tab *t, size_t len, bool le,
			       bool shdrs, uint64_t text, size_t *size)
{
	unsigned char *e = calloc(1, TABOFF + len), *p;
	static const struct { unsigned name, type; uint64_t addr, off, size; } sh[4] = {
		{ 0 }, { 1, SHT_NOBITS, 0, TABOFF, 0x1000 },
		{ 7, SHT_PROGBITS, 0x500000, TABOFF, 0 },
		{ 18, SHT_STRTAB, 0, STR, sizeof(shstr) },
	};

	memcpy(e, ELFMAG, SELFMAG);
	e[EI_CLASS] = ELFCLASS64, e[EI_DATA] = le ? ELFDATA2LSB : ELFDATA2MSB;
	e[EI_VERSION] = EV_CURRENT;
	put(e + 16, ET_EXEC, 2, le), put(e + 18, le ? EM_X86_64 : EM_S390, 2, le);
	put(e + 20, EV_CURRENT, 4, le), put(e + 32, EH, 8, le);	/* e_phoff */
	put(e + 40, shdrs ? SHOFF : 0, 8, le);
	put(e + 52, EH, 2, le), put(e + 54, PH, 2, le), put(e + 56, 2, 2, le);
	put(e + 58, SH, 2, le), put(e + 60, shdrs ? 4 : 0, 2, le);
	put(e + 62, shdrs ? 3 : 0, 2, le);
	p = e + EH;				/* PT_NOTE */
	put(p, PT_NOTE, 4, le), put(p + 4, PF_R, 4, le), put(p + 8, NOTE, 8, le);
	put(p + 32, 24, 8, le), put(p + 40, 24, 8, le), put(p + 48, 4, 8, le);
	p += PH;				/* PT_LOAD */
	put(p, PT_LOAD, 4, le), put(p + 4, PF_R, 4, le), put(p + 16, 0x4ff000, 8, le);
	put(p + 32, TABOFF + len, 8, le), put(p + 40, TABOFF + len, 8, le);
	p = e + NOTE;				/* "Go\0\0", type 4, build id */
	put(p, 4, 4, le), put(p + 4, 8, 4, le), put(p + 8, 4, 4, le);
	memcpy(p + 12, "Go\0\0owbuildi", 12);
	memcpy(e + STR, shstr, sizeof(shstr));
	for (int i = 1; i < 4; i++) {
		p = e + SHOFF + i * SH;
		put(p, sh[i].name, 4, le), put(p + 4, sh[i].type, 4, le);
		put(p + 16, i == 1 ? text : sh[i].addr, 8, le);
		put(p + 24, sh[i].off, 8, le);
		put(p + 32, i == 2 ? len : sh[i].size, 8, le);
		put(p + 48, i == 2 ? 8 : 1, 8, le);
	}
	memcpy(e + TABOFF, t->b, len);
	*size = TABOFF + len;
	return e;
}

/* What gopclntab_read gave. */
struct got {
	size_t n, bad;		/* functions; ones not in want */
	uint64_t want_base;	/* fns' addresses are moved by this */
	char first_bad[160];
};

static void collect(void *ctx, uint64_t addr, uint64_t size, const char *name)
{
	struct got *g = ctx;

	for (int i = 0; i < NFN; i++)
		if (addr == fns[i].addr + g->want_base && size == fns[i].size &&
		    !strcmp(name, fns[i].name)) {
			g->n++;
			return;
		}
	if (!g->bad++) {
		int k = snprintf(g->first_bad, sizeof(g->first_bad), "%#llx+%#llx ",
				 (unsigned long long)addr, (unsigned long long)size);

		for (int i = 0; name[i] && i < 60; i++)	/* printable */
			g->first_bad[k++] = name[i] > ' ' && name[i] < 127 ? name[i] : '?';
		g->first_bad[k] = 0;
	}
	g->n++;
}

/* Read the first len bytes of t in an image; returns gopclntab_read's
 * count, with *g what it gave. */
static size_t read_tab(const struct tab *t, size_t len, bool shdrs,
		       uint64_t text, uint64_t base, struct got *g)
{
	size_t size, n = 0;
	unsigned char *img = make_elf(t, len, t->le, shdrs, text, &size);
	Elf *elf = elf_memory((char *)img, size);

	*g = (struct got){ .want_base = base };
	if (elf)
		n = gopclntab_read(elf, collect, g);
	elf_end(elf);
	free(img);
	return n;
}

/* A good table: every function, right. */
static void good(int l, unsigned ptr, bool le, bool shdrs)
{
	char name[96];
	struct tab t;
	struct got g;
	size_t n;

	make_tab(&t, l, ptr, le, TEXT);
	n = read_tab(&t, t.len, shdrs, TEXT, 0, &g);
	snprintf(name, sizeof(name), "gopclntab_%s_ptr%u_%s%s", layouts[l].name,
		 ptr, le ? "le" : "be", shdrs ? "" : "_no_section_headers");
	check(n == NFN && g.n == NFN && !g.bad, name,
	      "%zu functions (%zu given, %zu wrong, first %s), want %d",
	      n, g.n, g.bad, g.bad ? g.first_bad : "-", NFN);
}

/* Expect at most max functions from t, all right (or, when any: right
 * or not, as the table says; only within it). */
static void bad_any(const char *what, int l, const struct tab *t, size_t len,
		    size_t max, bool any)
{
	char name[96];
	struct got g;
	size_t n = read_tab(t, len, true, TEXT, 0, &g);

	snprintf(name, sizeof(name), "gopclntab_%s_%s", layouts[l].name, what);
	check(n <= max && g.n == n && (any || !g.bad), name,
	      "%zu functions (%zu wrong, first %s), want at most %zu, all right",
	      n, g.bad, g.bad ? g.first_bad : "-", max);
}

static void bad(const char *what, int l, const struct tab *t, size_t len,
		size_t max)
{
	bad_any(what, l, t, len, max, false);
}

static void malformed(int l)
{
	static const uint64_t huge[] = { NFN * 1000, 1ULL << 31, 0xffffffff,
					 1ULL << 63, ~0ULL };
	struct tab t, m;
	size_t worst = 0, over = 0;
	struct got g;
	char why[256] = "", name[64];

	make_tab(&t, l, 8, true, TEXT);
	/* cut anywhere: with and without section headers */
	for (size_t len = 0; len < t.len; len++)
		for (int s = 0; s < 2; s++) {
			size_t n = read_tab(&t, len, s, TEXT, 0, &g);

			if (n > NFN || g.bad) {
				over++;
				if (!why[0])
					snprintf(why, sizeof(why), "cut at %zu: %zu functions, first wrong %s",
						 len, n, g.bad ? g.first_bad : "-");
			}
			worst = n > worst ? n : worst;
		}
	snprintf(name, sizeof(name), "gopclntab_%s_cut_anywhere", layouts[l].name);
	check(!over, name, "%zu cuts gave wrong functions: %s", over, why);
	printf("  (%s: cut tables gave at most %zu functions)\n", layouts[l].name, worst);
	for (size_t i = 0; i < sizeof(huge) / sizeof(*huge); i++) {
		m = t, set_word(&m, 0, huge[i]);
		bad("nfunc_too_large", l, &m, m.len, 0);
	}
	m = t, set_word(&m, 0, NFN + 1);	/* one more: reads the end entry as one */
	bad_any("nfunc_one_more", l, &m, m.len, NFN + 1, true);
	m = t, set_word(&m, m.w, m.len);		/* funcnameOff at the end */
	bad("names_off_at_end", l, &m, m.len, 0);
	m = t, set_word(&m, m.w, ~0ULL);
	bad("names_off_huge", l, &m, m.len, 0);
	m = t, set_word(&m, m.w + 4, m.len - 8);	/* pclnOff: functab past the end */
	bad("pcln_off_near_end", l, &m, m.len, 0);
	m = t, set_word(&m, m.w + 4, ~0ULL - 7);
	bad("pcln_off_huge", l, &m, m.len, 0);
	/* one function's funcoff out of the table, also wrapping round to
	 * the header (pclnOff + funcoff = 16 mod 2^64: a name from garbage) */
	m = t, put(m.b + m.pcln + m.ent, m.len, m.ent, true);
	bad("funcoff_past_end", l, &m, m.len, NFN - 1);
	m = t, put(m.b + m.pcln + m.ent, (uint64_t)-(int64_t)m.pcln + 16, m.ent, true);
	bad("funcoff_wraps", l, &m, m.len, NFN - 1);
	/* one function's nameoff out of the table */
	m = t, put(m.b + m.pcln + m.func[1] + m.ent, 0xfffffff0, 4, true);
	bad("nameoff_huge", l, &m, m.len, NFN - 1);
	/* a name without its NUL, ending the table */
	m = t, memcpy(m.b + m.len, "main.cut", 8);
	put(m.b + m.pcln + m.func[2] + m.ent, m.len - m.names, 4, true);
	bad("name_not_terminated", l, &m, m.len + 8, NFN - 1);
	/* the text's end before the last function: it ends before it begins */
	m = t, put(m.b + m.pcln + 2 * NFN * m.ent, fns[NFN - 1].addr - 1 - (layouts[l].text_start ? TEXT : 0),
		   m.ent, true);
	bad("entries_out_of_order", l, &m, m.len, NFN - 1);
	/* bad headers: Go 1.2's magic, pointer size, padding, minLC */
	m = t, put(m.b, 0xfffffffb, 4, true);
	bad("magic_go1.2", l, &m, m.len, 0);
	m = t, m.b[7] = 3;
	bad("ptrsize_3", l, &m, m.len, 0);
	m = t, m.b[4] = 1;
	bad("padding_not_zero", l, &m, m.len, 0);
	m = t, m.b[6] = 3;
	bad("minlc_3", l, &m, m.len, 0);
}

int main(void)
{
	elf_version(EV_CURRENT);
	for (int l = 0; l < NLAYOUT; l++) {
		for (unsigned ptr = 4; ptr <= 8; ptr += 4)
			for (int le = 1; le >= 0; le--)
				for (int s = 1; s >= 0; s--)
					good(l, ptr, le, s);
		malformed(l);
	}
	/* 1.18+ in a PIE: textStart 0 in the file, entries from .text */
	for (int l = L118; l <= L120; l++) {
		struct tab t;
		struct got g;
		char name[64];
		size_t n;

		make_tab(&t, l, 8, true, 0);
		n = read_tab(&t, t.len, true, 0x2000, 0x2000 - TEXT, &g);
		snprintf(name, sizeof(name), "gopclntab_%s_pie_from_text", layouts[l].name);
		check(n == NFN && !g.bad, name, "%zu functions, %zu wrong (first %s), want %d at .text",
		      n, g.bad, g.bad ? g.first_bad : "-", NFN);
	}
	return failed;
}
