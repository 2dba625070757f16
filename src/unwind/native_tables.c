// SPDX-License-Identifier: Apache-2.0
/*
 * native_tables.c - an ELF file's call frame information compiled into
 * the rows the BPF walker follows (struct ow_urow, bpf/unwind_native.h).
 *
 * The FDEs are enumerated from the sections themselves (dwarf_next_cfi on
 * .eh_frame and .debug_frame; the initial location decoded with the CIE's
 * pointer encoding), so that FDEs missing from .eh_frame_hdr are found
 * too.  The rules are libdw's: for each FDE, dwarf_cfi_addrframe() at its
 * start gives the first row and its range [start, end); the next row is
 * asked for at end, until the FDE's end.  Each row becomes one ow_urow:
 *
 *   CFA = rsp + N          OW_CFA_RSP, off N (OW_CFA_RSP_X8, off N/8 read
 *                          as unsigned: up to 512 KiB, when
 *                          N does not fit 16 bits and is a multiple of 8)
 *   CFA = rbp + N          OW_CFA_RBP, off N
 *   CFA = rbx + N          OW_CFA_RBX, off N (ld.so's lazy-binding resolver)
 *   the PLT expression     OW_CFA_PLT, off 10 or 11 (see plt_rule())
 *   return address undefined  OW_CFA_END (_start, a thread's start)
 *   signal frame ('S')     OW_CFA_SIGNAL, off SIGCTX_OFF (see below)
 *   CFA = *(rbp + N)       OW_CFA_NONE, off OW_DRAP_RULE, rbp N / 8: a
 *                          realigned frame (gcc's DRAP: -mstackrealign,
 *                          alloca beside an over-aligned local), whose
 *                          rbp is saved at rbp + 0
 *   anything else          OW_CFA_NONE, off OW_NONE_RULE, rbp -2 where rbp
 *                          is saved at CFA - 16 (the walker takes one
 *                          frame by rbp there), else 0 (it stops there:
 *                          no guess); counted
 *
 * and the return address must be at CFA - 8; rbp saved at CFA + N gives
 * rbp = N / 8, rbp unchanged (or undefined) gives 0; rbx saved at CFA - N
 * gives rbx = N / 8 (N up to 240), unchanged (or undefined) 0, anything
 * else OW_RBX_LOST (the row is still followed: only a CFA = rbx row above
 * it would need rbx).
 *
 * .eh_frame rules come first; .debug_frame FDEs are used only where no
 * .eh_frame FDE covers their range.  A NONE row ends each FDE that the
 * next one does not touch, so that a gap does not inherit a rule; rows
 * with equal rules are merged.
 *
 * A Go binary's runtime functions that are a stack's outermost frame
 * (go_ends.c: runtime.goexit, mstart, mcall, ...) get OW_CFA_END over
 * their whole range, whatever its CFI said (Go's .debug_frame describes
 * them as called on the stack they switched from), the ones that call
 * the vDSO on g0 (nanotime1, time.now) their frame by rbp, and a Go
 * binary with no CFI at all (go build -ldflags=-s -w) gets a table of
 * those rows alone: elsewhere it is walked by frame pointers, as before.
 *
 * Not covered (the walker falls back to frame pointers there): files
 * without section headers (the sections are found by name), .debug_frame
 * in separate debug files, other machines than x86_64.
 */
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "native_tables.h"
#include "go_ends.h"
#include "common/util.h"

/*
 * Signal frames.  At __restore_rt (the return address the kernel puts in
 * a signal handler's frame) rsp points at the struct ucontext of the
 * rt_sigframe: uc_flags (8), uc_link (8), uc_stack (24), then
 * uc_mcontext, the struct sigcontext, at rsp + 40.  In the sigcontext the
 * walker reads rbp at +80, rsp at +120 and rip at +128 (r8..r15 at 0..56,
 * rdi 64, rsi 72, rbp 80, rbx 88, rdx 96, rax 104, rcx 112, rsp 120,
 * rip 128).  glibc's CFI for __restore_rt says the same: CFA is
 * DW_OP_breg7 (rsp) 160; DW_OP_deref, 160 = 40 + 120.
 */
#define SIGCTX_OFF	40

#define REG_RBX		3
#define REG_RBP		6
#define REG_RSP		7
#define REG_RA		16
#define PC_LIMIT	(1ULL << 32)
#define BETWEEN_MS	20	/* between() at least this often */

enum src { SRC_EH, SRC_DEBUG };

struct fde {
	uint64_t lo, hi;	/* [lo, hi) in ELF vaddr */
	enum src src;
};

struct fdes {
	struct fde *v;
	size_t n, cap;
};

struct cie_enc {
	uint64_t off;		/* section offset of the CIE */
	uint8_t enc;		/* its FDEs' pointer encoding (DW_EH_PE_*) */
};

struct seg {
	uint64_t lo, hi;
};

struct builder {
	const char *name;
	char *err;
	size_t errlen;
	struct uw_table *t;
	size_t rcap;
	Elf *elf;
	Dwarf_CFI *cfi[2];	/* indexed by enum src */
	Dwarf *dw;		/* owns cfi[SRC_DEBUG] */
	struct seg *segs;	/* executable PT_LOADs */
	size_t nsegs;
	struct cie_enc *cies;
	size_t ncies, ciecap;
	void (*between)(void *);
	void *ctx;
	double last_ms;		/* when between() last returned */
};

/* between(), when BETWEEN_MS have passed since it last returned (a large
 * file's rows take seconds: the capture keeps reading its ring buffer);
 * its time is counted apart from the build's. */
static void maybe_between(struct builder *b)
{
	double t;

	if (!b->between || (t = ow_now_ms()) - b->last_ms < BETWEEN_MS)
		return;
	b->between(b->ctx);
	b->last_ms = ow_now_ms();
	b->t->between_ms += b->last_ms - t;
}

static int fail(struct builder *b, int e, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(b->err, b->errlen, "%s: ", b->name);
	if (n >= 0 && (size_t)n < b->errlen) {
		va_start(ap, fmt);
		vsnprintf(b->err + n, b->errlen - n, fmt, ap);
		va_end(ap);
	}
	errno = e;
	return -1;
}

/* The executable PT_LOAD segments, and the table's base (see unwind.h). */
static int read_segments(struct builder *b)
{
	size_t n, i;
	uint64_t lo = UINT64_MAX, hi = 0;

	if (elf_getphdrnum(b->elf, &n) || !n)
		return fail(b, EINVAL, "no program headers");
	b->segs = calloc(n, sizeof(*b->segs));
	if (!b->segs)
		return fail(b, ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(b->elf, i, &ph))
			return fail(b, EINVAL, "bad program header %zu", i);
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_memsz)
			continue;
		b->segs[b->nsegs].lo = ph.p_vaddr;
		b->segs[b->nsegs].hi = ph.p_vaddr + ph.p_memsz;
		if (b->segs[b->nsegs].hi < ph.p_vaddr)
			return fail(b, EINVAL, "bad program header %zu", i);
		lo = lo < ph.p_vaddr ? lo : ph.p_vaddr;
		hi = hi > b->segs[b->nsegs].hi ? hi : b->segs[b->nsegs].hi;
		b->nsegs++;
	}
	if (!b->nsegs)
		return fail(b, ENOENT, "no executable segment");
	b->t->base = hi <= PC_LIMIT ? 0 : lo;
	return 0;
}

/* Is [lo, hi) inside one executable segment, and within 4 GiB of base? */
static bool in_text(const struct builder *b, uint64_t lo, uint64_t hi)
{
	size_t i;

	if (hi <= lo || hi - b->t->base > PC_LIMIT || lo < b->t->base)
		return false;
	for (i = 0; i < b->nsegs; i++)
		if (lo >= b->segs[i].lo && hi <= b->segs[i].hi)
			return true;
	return false;
}

/* --- FDE enumeration ------------------------------------------------ */

static const uint8_t *skip_uleb(const uint8_t *p, const uint8_t *end)
{
	while (p < end && (*p & 0x80))
		p++;
	return p < end ? p + 1 : NULL;
}

/*
 * Decode a pointer of encoding enc at p (vaddr: the address p is loaded
 * at, for pcrel).  Only what FDEs use: absptr, udata/sdata 2/4/8, with
 * pcrel or absolute application.  Returns the byte after it, or NULL.
 */
static const uint8_t *read_ptr(uint8_t enc, const uint8_t *p,
			       const uint8_t *end, uint64_t vaddr,
			       bool apply, uint64_t *val)
{
	size_t size;
	uint64_t v = 0;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: case DW_EH_PE_udata8: case DW_EH_PE_sdata8:
	case DW_EH_PE_signed:
		size = 8;
		break;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4:
		size = 4;
		break;
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2:
		size = 2;
		break;
	default:
		return NULL;
	}
	if ((size_t)(end - p) < size)
		return NULL;
	memcpy(&v, p, size);	/* x86_64: little-endian, as the file */
	if (size < 8 && (enc & 0x08) && (v >> (size * 8 - 1)))
		v |= ~0ULL << (size * 8);
	if (apply) {
		switch (enc & 0x70) {
		case DW_EH_PE_absptr:
			break;
		case DW_EH_PE_pcrel:
			v += vaddr;
			break;
		default:
			return NULL;
		}
	}
	*val = v;
	return p + size;
}

/* The FDE pointer encoding from a CIE's augmentation ("zPLR", ...). */
static int cie_encoding(const Dwarf_CIE *c)
{
	const uint8_t *p = c->augmentation_data;
	const uint8_t *end = p ? p + c->augmentation_data_size : NULL;
	const char *a = c->augmentation;
	uint64_t dummy;

	if (!a || a[0] != 'z')
		return a && a[0] ? -1 : DW_EH_PE_absptr;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			return p && p < end ? *p : -1;
		case 'L':
			p++;
			break;
		case 'P':
			if (!p || p >= end)
				return -1;
			if ((*p & 0x0f) == DW_EH_PE_uleb128)
				p = skip_uleb(p + 1, end);
			else
				p = read_ptr(*p & 0x0f, p + 1, end, 0, false, &dummy);
			if (!p)
				return -1;
			break;
		case 'S': case 'B': case 'G':
			break;
		default:
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

static int cie_enc_cmp(const void *a, const void *b)
{
	const struct cie_enc *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static int fde_lo_cmp(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (int)x->src - (int)y->src;
}

static int add_fde(struct builder *b, struct fdes *f, const Dwarf_FDE *e,
		   const Elf_Data *d, uint64_t sh_addr, enum src src)
{
	struct cie_enc key = { .off = e->CIE_pointer }, *c;
	const uint8_t *p = e->start;
	uint64_t lo, len;

	c = b->ncies ? bsearch(&key, b->cies, b->ncies, sizeof(*c), cie_enc_cmp) : NULL;
	if (!c) {
		b->t->nskip++;
		return 0;
	}
	p = read_ptr(c->enc, p, e->end, sh_addr + (p - (const uint8_t *)d->d_buf),
		     true, &lo);
	if (p)
		p = read_ptr(c->enc & 0x0f, p, e->end, 0, false, &len);
	if (!p || !in_text(b, lo, lo + len)) {
		b->t->nskip += !p || len != 0;	/* empty FDEs: not worth a word */
		return 0;
	}
	if (ow_grow(&f->v, &f->cap, f->n, sizeof(*f->v)))
		return fail(b, ENOMEM, "out of memory");
	f->v[f->n++] = (struct fde){ .lo = lo, .hi = lo + len, .src = src };
	return 0;
}

static int add_cie(struct builder *b, const Dwarf_CIE *c, Dwarf_Off off)
{
	int enc = cie_encoding(c);

	if (enc < 0)
		return 0;	/* its FDEs are counted in nskip */
	if (ow_grow(&b->cies, &b->ciecap, b->ncies, sizeof(*b->cies)))
		return fail(b, ENOMEM, "out of memory");
	b->cies[b->ncies++] = (struct cie_enc){ .off = off, .enc = enc };
	return 0;
}

/*
 * The data of a CFI section, decompressed if need be (a compressed
 * .debug_frame; libdw decompresses its own copy the same way).
 */
static Elf_Data *section_data(struct builder *b, Elf_Scn *scn, GElf_Shdr *sh)
{
	if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
		return NULL;
	if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return NULL;
	return elf_getdata(scn, NULL);
}

/*
 * Every FDE of one CFI section into f: a first pass notes the CIEs'
 * pointer encodings (a CIE may follow its FDEs in .debug_frame), the
 * second decodes the FDEs' ranges.
 */
static int scan_section(struct builder *b, Elf_Scn *scn, enum src src,
			struct fdes *f)
{
	GElf_Shdr sh;
	Elf_Data *d = section_data(b, scn, &sh);
	const unsigned char *ident = (const unsigned char *)elf_getident(b->elf, NULL);
	int pass;

	if (!d || !d->d_buf)
		return fail(b, EINVAL, "cannot read its %s section: %s",
			    src == SRC_EH ? ".eh_frame" : ".debug_frame",
			    elf_errmsg(-1));
	b->ncies = 0;
	for (pass = 0; pass < 2; pass++) {
		Dwarf_Off off = 0, next;
		Dwarf_CFI_Entry e;
		int r;

		while ((r = dwarf_next_cfi(ident, d, src == SRC_EH, off, &next, &e)) == 0) {
			bool cie = e.CIE_id == LIBDW_CIE_ID;

			if (pass == 0 && cie)
				r = add_cie(b, &e.cie, off);
			else if (pass == 1 && !cie)
				r = add_fde(b, f, &e.fde, d, sh.sh_addr, src);
			if (r)
				return r;
			off = next;
		}
		if (r < 0)
			b->t->nskip++;	/* a malformed entry ends the section */
		if (pass == 0 && b->ncies)
			qsort(b->cies, b->ncies, sizeof(*b->cies), cie_enc_cmp);
	}
	return 0;
}

static Elf_Scn *find_section(Elf *elf, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, want))
			return scn;
	}
	return NULL;
}

/*
 * Sort f and drop the FDEs that overlap one kept before them, or (for
 * .debug_frame FDEs) one of the kept .eh_frame FDEs in eh.
 */
static void keep_disjoint(struct builder *b, struct fdes *f, const struct fdes *eh)
{
	size_t i, n = 0;

	if (f->n)
		qsort(f->v, f->n, sizeof(*f->v), fde_lo_cmp);
	for (i = 0; i < f->n; i++) {
		const struct fde *x = &f->v[i];
		size_t k = eh ? ow_count_le(eh->v, eh->n, sizeof(*eh->v),
					    offsetof(struct fde, lo), x->hi - 1) : 0;

		if ((n && x->lo < f->v[n - 1].hi) || (k && eh->v[k - 1].hi > x->lo)) {
			if (!eh || (n && x->lo < f->v[n - 1].hi))
				b->t->noverlap++;
			continue;
		}
		f->v[n++] = *x;
	}
	f->n = n;
}

/* All FDEs to follow, sorted and disjoint, into all. */
static int collect_fdes(struct builder *b, struct fdes *all)
{
	struct fdes dbg = { 0 };
	Elf_Scn *scn;
	int r = 0;

	scn = find_section(b->elf, ".eh_frame");
	if (scn && b->cfi[SRC_EH] && (r = scan_section(b, scn, SRC_EH, all)))
		return r;
	keep_disjoint(b, all, NULL);
	scn = find_section(b->elf, ".debug_frame");
	if (scn && b->cfi[SRC_DEBUG]) {
		r = scan_section(b, scn, SRC_DEBUG, &dbg);
		if (!r) {
			keep_disjoint(b, &dbg, all);
			b->t->debug_frame = dbg.n > 0;
		}
		if (!r && dbg.n && ow_grow(&all->v, &all->cap, all->n + dbg.n, sizeof(*all->v)))
			r = fail(b, ENOMEM, "out of memory");
		if (!r && dbg.n) {
			memcpy(all->v + all->n, dbg.v, dbg.n * sizeof(*dbg.v));
			all->n += dbg.n;
			qsort(all->v, all->n, sizeof(*all->v), fde_lo_cmp);
		}
	}
	free(dbg.v);
	return r;
}

/* --- rows ------------------------------------------------------------ */

/* "CFA - 8" (or CFA + n for rbp): DW_OP_call_frame_cfa [DW_OP_plus_uconst n] */
static bool cfa_offset(const Dwarf_Op *ops, size_t nops, int64_t *n)
{
	if (nops < 1 || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*n = 0;
		return true;
	}
	if (ops[1].atom != DW_OP_plus_uconst)
		return false;
	*n = (int64_t)ops[1].number;
	return true;
}

/*
 * The PLT entries' CFA (GCC and binutils, lazy-binding PLT of 16-byte
 * entries): rsp + 8, and 8 more once the entry's push is done, i.e. at
 * (rip & 15) >= 11 (or 10, for the second PLT flavour):
 * DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_lit11;
 * DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus.  Returns 10, 11 or 0.
 */
static int plt_rule(const Dwarf_Op *o, size_t n)
{
	static const uint8_t want[9] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	size_t i;

	if (n != 9 || o[0].number != 8 || o[1].number != 0)
		return 0;
	for (i = 0; i < 9; i++)
		if (i != 4 && o[i].atom != want[i])
			return 0;
	return o[4].atom == DW_OP_lit11 ? 11 : o[4].atom == DW_OP_lit10 ? 10 : 0;
}

enum why { FOLLOWED, EXPR, OTHER, DRAP };

/* The CFA rule into r: FOLLOWED, or why not. */
static enum why cfa_rule(Dwarf_Frame *f, struct ow_urow *r)
{
	Dwarf_Op *o;
	size_t n;
	unsigned reg;
	int64_t off;

	if (dwarf_frame_cfa(f, &o, &n) || n == 0)
		return OTHER;
	if (n == 2 && o[0].atom == DW_OP_breg6 && o[1].atom == DW_OP_deref &&
	    (int64_t)o[0].number % 8 == 0 && (int64_t)o[0].number / 8 >= INT8_MIN &&
	    (int64_t)o[0].number / 8 <= INT8_MAX) {
		r->off = OW_DRAP_RULE;	/* CFA = *(rbp + N) */
		r->rbp = (int64_t)o[0].number / 8;
		return DRAP;
	}
	if (n > 1) {
		r->off = plt_rule(o, n);
		r->cfa = OW_CFA_PLT;
		return r->off ? FOLLOWED : EXPR;
	}
	if (o->atom == DW_OP_bregx) {
		reg = o->number;
		off = (int64_t)o->number2;
	} else if (o->atom >= DW_OP_breg0 && o->atom <= DW_OP_breg31) {
		reg = o->atom - DW_OP_breg0;
		off = (int64_t)o->number;
	} else {
		return EXPR;
	}
	if (reg != REG_RSP && reg != REG_RBP && reg != REG_RBX)
		return OTHER;
	r->cfa = reg == REG_RSP ? OW_CFA_RSP : reg == REG_RBP ? OW_CFA_RBP :
							       OW_CFA_RBX;
	if (off >= INT16_MIN && off <= INT16_MAX) {
		r->off = off;
	} else if (reg == REG_RSP && off > 0 && off % 8 == 0 &&
		   off / 8 <= UINT16_MAX) {
		r->cfa = OW_CFA_RSP_X8;	/* (a frame of up to 512 KiB) */
		r->off = (int16_t)(uint16_t)(off / 8);
	} else {
		return OTHER;
	}
	return FOLLOWED;
}

/* Where rbp is saved (r->rbp); false if we do not follow its rule. */
static bool rbp_rule(Dwarf_Frame *f, struct ow_urow *r)
{
	Dwarf_Op mem[3], *o;
	size_t n;
	int64_t off;

	if (dwarf_frame_register(f, REG_RBP, mem, &o, &n))
		return false;
	if (n == 0) {		/* same value, or undefined */
		r->rbp = 0;
		return true;
	}
	if (!cfa_offset(o, n, &off) || off % 8 || off / 8 < INT8_MIN ||
	    off / 8 > INT8_MAX || off == 0)
		return false;
	r->rbp = off / 8;
	return true;
}

/* Where rbx is saved (r->rbx): unchanged 0, at CFA - 8 * r->rbx, or lost. */
static void rbx_rule(Dwarf_Frame *f, struct ow_urow *r)
{
	Dwarf_Op mem[3], *o;
	size_t n;
	int64_t off;

	r->rbx = OW_RBX_LOST;
	if (dwarf_frame_register(f, REG_RBX, mem, &o, &n))
		return;
	if (n == 0)		/* same value, or undefined */
		r->rbx = 0;
	else if (cfa_offset(o, n, &off) && off < 0 && off % 8 == 0 &&
		 -off / 8 < OW_RBX_LOST)
		r->rbx = -off / 8;
}

/*
 * A row whose rule we do not follow (r: OW_NONE_RULE) keeps rbp = -2
 * when rbp is saved beside the return address (at CFA - 16), the frame
 * pointer's layout: the walker may take one frame by rbp there (a
 * function with a frame pointer: CFA = rbp + 16).  Otherwise rbp is 0
 * and the walk stops at the row: a frame-pointer step would guess (a
 * realigned frame without one: the CFA off by the padding, a wrong frame
 * above).
 */
static void fp_layout(Dwarf_Frame *f, struct ow_urow *r)
{
	struct ow_urow fp = { 0 };

	if (rbp_rule(f, &fp) && fp.rbp == -2)
		r->rbp = -2;
}

/*
 * A realigned frame's row (r has its CFA rule): kept when the return
 * address is at CFA - 8 (ra: its rule, n ops; NULL: none) and rbp is
 * saved where rbp points (libdw gives DW_CFA_expression as the CFA, then
 * the expression: DW_OP_call_frame_cfa; DW_OP_breg6 0); rbx saved there
 * too is rbp-relative: lost.  Else an expression we do not follow.
 */
static void drap_rule(Dwarf_Frame *f, struct ow_urow *r, const Dwarf_Op *ra,
		      size_t n, struct uw_table *t)
{
	Dwarf_Op mem[3], *o;
	int64_t off;

	if (!ra || !cfa_offset(ra, n, &off) || off != -8 ||
	    dwarf_frame_register(f, REG_RBP, mem, &o, &n) || n != 2 ||
	    o[0].atom != DW_OP_call_frame_cfa || o[1].atom != DW_OP_breg6 ||
	    o[1].number != 0) {
		*r = (struct ow_urow){ .cfa = OW_CFA_NONE, .off = OW_NONE_RULE };
		fp_layout(f, r);
		t->nexpr++;
		return;
	}
	r->rbx = dwarf_frame_register(f, REG_RBX, mem, &o, &n) || n ?
		 OW_RBX_LOST : 0;
}

/*
 * One row of libdw's into r.  The return address: undefined makes the
 * outermost frame (END); otherwise it must be saved at CFA - 8.
 */
static void row_rule(Dwarf_Frame *f, bool signalp, struct ow_urow *r,
		     struct uw_table *t)
{
	Dwarf_Op mem[3], *o;
	size_t n;
	int64_t off;
	enum why why;
	int ra;

	*r = (struct ow_urow){ .cfa = OW_CFA_NONE };
	if (signalp) {
		r->cfa = OW_CFA_SIGNAL;
		r->off = SIGCTX_OFF;
		return;
	}
	ra = dwarf_frame_register(f, REG_RA, mem, &o, &n);
	if (!ra && n == 0 && o) {
		/* undefined: *ops is ops_mem (same value: NULL; libdw.h) */
		r->cfa = OW_CFA_END;
		return;
	}
	why = cfa_rule(f, r);
	if (why == DRAP)
		return drap_rule(f, r, ra ? NULL : o, n, t);
	if (why == FOLLOWED && (ra || !cfa_offset(o, n, &off) || off != -8 ||
				!rbp_rule(f, r)))
		why = OTHER;
	if (why == FOLLOWED)
		rbx_rule(f, r);
	if (why != FOLLOWED) {
		*r = (struct ow_urow){ .cfa = OW_CFA_NONE, .off = OW_NONE_RULE };
		fp_layout(f, r);
		t->nexpr += why == EXPR;
		t->nother += why == OTHER;
	}
}

static bool same_rule(const struct ow_urow *a, const struct ow_urow *b)
{
	return a->cfa == b->cfa && a->rbp == b->rbp && a->off == b->off &&
	       a->rbx == b->rbx;
}

/* Append r at vaddr pc, merged with the row before when the rules agree. */
static int emit(struct builder *b, uint64_t pc, struct ow_urow r)
{
	struct uw_table *t = b->t;
	struct ow_urow *last = t->nrows ? &t->rows[t->nrows - 1] : NULL;

	r.pc = pc - t->base;
	if (last && same_rule(last, &r))
		return 0;
	if (last && last->pc == r.pc) {
		*last = r;	/* an empty range before: the later rule wins */
		if (t->nrows > 1 && same_rule(&t->rows[t->nrows - 2], &r))
			t->nrows--;
		return 0;
	}
	if (ow_grow(&t->rows, &b->rcap, t->nrows, sizeof(*t->rows)))
		return fail(b, ENOMEM, "out of memory");
	t->rows[t->nrows++] = r;
	return 0;
}

/* The rows of one FDE, then a NONE row at its end if nothing follows. */
static int fde_rows(struct builder *b, const struct fde *x, uint64_t next_lo)
{
	Dwarf_CFI *cfi = b->cfi[x->src];
	uint64_t addr = x->lo;
	int r = 0;

	while (addr < x->hi && !r) {
		Dwarf_Frame *f;
		Dwarf_Addr start, end;
		bool signalp = false;
		struct ow_urow row = { .cfa = OW_CFA_NONE, .off = OW_NONE_RULE };

		maybe_between(b);	/* a row costs its FDE's program so far */
		if (dwarf_cfi_addrframe(cfi, addr, &f)) {
			b->t->nother++;
			r = emit(b, addr, row);	/* NONE to the FDE's end */
			break;
		}
		dwarf_frame_info(f, &start, &end, &signalp);
		row_rule(f, signalp, &row, b->t);
		free(f);
		r = emit(b, addr, row);
		if (end <= addr)
			break;
		addr = end;
	}
	if (!r && x->hi != next_lo)
		r = emit(b, x->hi, (struct ow_urow){ .cfa = OW_CFA_NONE });
	return r;
}

static int build_rows(struct builder *b, const struct fdes *all)
{
	size_t i;
	int r = 0;

	b->rcap = all->n * 4 + 1;
	b->t->rows = malloc(b->rcap * sizeof(*b->t->rows));
	if (!b->t->rows)
		return fail(b, ENOMEM, "out of memory");
	for (i = 0; i < all->n && !r; i++)
		r = fde_rows(b, &all->v[i], i + 1 < all->n ? all->v[i + 1].lo : 0);
	return r;
}

/*
 * A rule CFA = rsp + N past a function's entry (N > 8) as the frame
 * pointer's: CFA = rbp + 16, rbp saved at CFA - 16 (go_ends.c's
 * UW_GO_BY_RBP); at the entry and after the return, rsp + 8, it stays.
 */
static struct ow_urow by_rbp(struct ow_urow r)
{
	if ((r.cfa == OW_CFA_RSP && r.off > 8) || r.cfa == OW_CFA_RSP_X8)
		r = (struct ow_urow){ .cfa = OW_CFA_RBP, .off = 16, .rbp = -2,
				      .rbx = r.rbx };
	return r;
}

/*
 * The Go runtime's outermost frames over the rows (see the top): END from
 * each range's start, then at its end the rule that was in force there
 * (NONE before the first row); the functions that run on g0 for a while
 * get their rows by_rbp().  The ranges are the traced user's: one outside
 * the executable segments is left out, counted in nskip.
 */
static int add_go_ends(struct builder *b)
{
	struct uw_go_end e[UW_GO_ENDS];
	struct uw_table *t = b->t;
	struct ow_urow *old = t->rows, cur = { .cfa = OW_CFA_NONE };
	const struct ow_urow end = { .cfa = OW_CFA_END };
	size_t n = uw_go_ends(b->elf, e, &t->nskip), nold = t->nrows, i, j = 0;
	int r = 0;

	if (!n)
		return 0;
	t->rows = NULL;
	t->nrows = b->rcap = 0;
	for (i = 0; i < n && !r; i++) {
		if (!in_text(b, e[i].lo, e[i].hi)) {
			t->nskip++;
			continue;
		}
		for (; j < nold && old[j].pc + t->base < e[i].lo && !r; j++)
			r = emit(b, old[j].pc + t->base, cur = old[j]);
		if (e[i].kind == UW_GO_BY_RBP) {
			if (!r)
				r = emit(b, e[i].lo, by_rbp(cur));
			for (; j < nold && old[j].pc + t->base < e[i].hi && !r; j++)
				r = emit(b, old[j].pc + t->base,
					 by_rbp(cur = old[j]));
		}
		for (; j < nold && old[j].pc + t->base <= e[i].hi; j++)
			cur = old[j];
		if (!r && e[i].kind == UW_GO_END)
			r = emit(b, e[i].lo, end);
		if (!r)
			r = emit(b, e[i].hi, cur);
	}
	for (; j < nold && !r; j++)
		r = emit(b, old[j].pc + t->base, old[j]);
	free(old);
	return r;
}

/* --- the table -------------------------------------------------------- */

static int open_cfi(struct builder *b)
{
	GElf_Ehdr eh;

	if (elf_kind(b->elf) != ELF_K_ELF || !gelf_getehdr(b->elf, &eh))
		return fail(b, EINVAL, "not an ELF file");
	if (eh.e_machine != EM_X86_64 || gelf_getclass(b->elf) != ELFCLASS64)
		return fail(b, ENOTSUP, "not an x86_64 ELF file (machine %u)",
			    eh.e_machine);
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return fail(b, ENOTSUP, "not an executable or shared library");
	if (read_segments(b))
		return -1;
	b->cfi[SRC_EH] = dwarf_getcfi_elf(b->elf);
	if (find_section(b->elf, ".debug_frame")) {
		b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
		b->cfi[SRC_DEBUG] = b->dw ? dwarf_getcfi(b->dw) : NULL;
	}
	return 0;
}

static void builder_end(struct builder *b)
{
	if (b->cfi[SRC_EH])
		dwarf_cfi_end(b->cfi[SRC_EH]);
	if (b->dw)
		dwarf_end(b->dw);
	if (b->elf)
		elf_end(b->elf);
	free(b->segs);
	free(b->cies);
}

int uw_table_build(int fd, const char *name, struct uw_table *t,
		   char *err, size_t errlen, void (*between)(void *), void *ctx)
{
	struct builder b = { .name = name, .err = err, .errlen = errlen, .t = t,
			     .between = between, .ctx = ctx, .last_ms = ow_now_ms() };
	struct fdes all = { 0 };
	int r;

	memset(t, 0, sizeof(*t));
	if (errlen)
		err[0] = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(&b, EINVAL, "libelf: %s", elf_errmsg(-1));
	b.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!b.elf)
		r = fail(&b, EINVAL, "not an ELF file: %s", elf_errmsg(-1));
	else
		r = open_cfi(&b);
	if (!r)
		r = collect_fdes(&b, &all);
	t->nfde = all.n;
	if (!r)
		r = build_rows(&b, &all);
	if (!r)
		r = add_go_ends(&b);
	if (!r && !t->nrows)
		r = fail(&b, ENOENT, !b.cfi[SRC_EH] && !b.cfi[SRC_DEBUG] ?
			 "no call frame information (.eh_frame, .debug_frame)" :
			 !all.n ? "no FDE covers its code" : "no unwind rows");
	if (!r && b.rcap > t->nrows) {	/* the table is kept for the run */
		struct ow_urow *p = realloc(t->rows, t->nrows * sizeof(*p));

		t->rows = p ? p : t->rows;
	}
	free(all.v);
	builder_end(&b);
	if (r) {
		int e = errno;

		uw_table_free(t);
		errno = e;
		return -1;
	}
	return 0;
}

/* --- checking a table read back ------------------------------------- */

/*
 * The rows row_rule() and fde_rows() make: for each kind of CFA rule
 * (and, for OW_CFA_NONE, each off), the ranges its fields can have.  A
 * row read back (uw_table_check()) must fall in one of them.  off is
 * read as unsigned for OW_CFA_RSP_X8 (cfa_rule(): only offsets above
 * INT16_MAX use it).
 */
#define ANY_RBP		INT8_MIN, INT8_MAX
#define ANY_RBX		0, OW_RBX_LOST
static const struct rule_range {
	uint8_t cfa;
	bool uoff;
	int32_t off_lo, off_hi;
	int8_t rbp_lo, rbp_hi;
	uint8_t rbx_lo, rbx_hi;
} rule_ranges[] = {
	{ OW_CFA_NONE, false, 0, 0, 0, 0, 0, 0 },	/* a gap, an FDE's end */
	{ OW_CFA_NONE, false, OW_NONE_RULE, OW_NONE_RULE, 0, 0, 0, 0 },
	{ OW_CFA_NONE, false, OW_NONE_RULE, OW_NONE_RULE, -2, -2, 0, 0 },
	{ OW_CFA_NONE, false, OW_DRAP_RULE, OW_DRAP_RULE, ANY_RBP, 0, 0 },
	{ OW_CFA_NONE, false, OW_DRAP_RULE, OW_DRAP_RULE, ANY_RBP,
	  OW_RBX_LOST, OW_RBX_LOST },
	{ OW_CFA_RSP, false, INT16_MIN, INT16_MAX, ANY_RBP, ANY_RBX },
	{ OW_CFA_RBP, false, INT16_MIN, INT16_MAX, ANY_RBP, ANY_RBX },
	{ OW_CFA_RBX, false, INT16_MIN, INT16_MAX, ANY_RBP, ANY_RBX },
	{ OW_CFA_PLT, false, 10, 11, ANY_RBP, ANY_RBX },
	{ OW_CFA_END, false, 0, 0, 0, 0, 0, 0 },
	{ OW_CFA_SIGNAL, false, SIGCTX_OFF, SIGCTX_OFF, 0, 0, 0, 0 },
	{ OW_CFA_RSP_X8, true, INT16_MAX / 8 + 1, UINT16_MAX, ANY_RBP, ANY_RBX },
};

static bool rule_ok(const struct ow_urow *r)
{
	for (size_t i = 0; i < sizeof(rule_ranges) / sizeof(*rule_ranges); i++) {
		const struct rule_range *k = &rule_ranges[i];
		int32_t off = k->uoff ? (uint16_t)r->off : r->off;

		if (r->cfa == k->cfa && off >= k->off_lo && off <= k->off_hi &&
		    r->rbp >= k->rbp_lo && r->rbp <= k->rbp_hi &&
		    r->rbx >= k->rbx_lo && r->rbx <= k->rbx_hi)
			return true;
	}
	return false;
}

/* Is pc (from base) in an executable segment, its end included (the
 * NONE row at an FDE's end)? */
static bool pc_in_text(const struct builder *b, uint64_t pc)
{
	uint64_t v = pc + b->t->base;

	for (size_t i = 0; i < b->nsegs; i++)
		if (v >= b->segs[i].lo && v <= b->segs[i].hi)
			return true;
	return false;
}

enum uw_rows_bad uw_table_check(int fd, const struct uw_table *t)
{
	struct uw_table file = { 0 };	/* the file's base (read_segments()) */
	char err[128];
	struct builder b = { .name = "cached table", .err = err,
			     .errlen = sizeof(err), .t = &file };
	enum uw_rows_bad r = UW_ROWS_OK;
	size_t i;

	if (!t->nrows || t->rows[t->nrows - 1].cfa != OW_CFA_NONE)
		return UW_ROWS_ORDER;
	for (i = 1; i < t->nrows; i++)
		if (t->rows[i].pc <= t->rows[i - 1].pc)
			return UW_ROWS_ORDER;
	for (i = 0; i < t->nrows; i++)
		if (!rule_ok(&t->rows[i]))
			return UW_ROWS_RULE;
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    !(b.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) ||
	    read_segments(&b) || file.base != t->base)
		r = UW_ROWS_TEXT;
	for (i = 0; i < t->nrows && r == UW_ROWS_OK; i++)
		if (!pc_in_text(&b, t->rows[i].pc))
			r = UW_ROWS_TEXT;
	builder_end(&b);
	return r;
}

void uw_table_free(struct uw_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nrows = 0;
}

const struct ow_urow *uw_table_find(const struct uw_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nrows;

	if (pc >= PC_LIMIT)
		return NULL;
	while (lo < hi) {	/* first row with row.pc > pc */
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}
