// SPDX-License-Identifier: Apache-2.0
/*
 * usyms.c - user frames to function names.  The process's mapping gives
 * the file and the file offset; the file's PT_LOAD headers turn that into
 * an ELF virtual address (this handles PIE executables and shared
 * libraries alike); the function symbols of .symtab and .dynsym give the
 * name.  When a file has no .symtab, its separate debug file is used:
 * /usr/lib/debug/.build-id/xx/yyyy.debug by build-id, else .gnu_debuglink
 * next to the file, in its .debug/ directory or under /usr/lib/debug (a
 * debug file is used only when its build id, or without one the link's
 * CRC, is the file's), else its MiniDebugInfo (.gnu_debugdata), else,
 * for Go binaries, their pclntab (gopclntab.c); else, with DEBUGINFOD_URLS
 * set, the file is kept (never swept) and its names wait for the debug
 * file from debuginfod (debuginfod.c), fetched by usyms_fetch() after the
 * capture for the files whose frames were asked about (usyms_deferred()),
 * with the same build-id check.
 * Files are opened through /proc/PID/map_files while the process lives
 * (deleted files, memfd executables), then /proc/PID/root/PATH (processes
 * in containers), then by their path (processes that have exited).
 * Only regular files are read (ow_open_file()): these paths are under the
 * traced users' control, and a FIFO or device there must not block us.
 * They are the traced users' files, so what they cost is bounded: names
 * are interned (aliases of one string share one copy) and cut at
 * SYM_NAME_MAX, a file's symbols and names bounded; a debug file is used
 * only when its link names a file beside the binary's (no '/'), it is at
 * most DEBUG_SIZE_MAX and owned by root or the binary's owner, and a CRC
 * check stops after CRC_MS or at SIGINT (usyms_stop_flag()); what was
 * left out is counted and said once (usyms_report()).
 * Each file is read once, cached by device and inode (a hash table), and
 * forgotten when unused for a while (usyms_sweep()), read again if needed.
 * Anonymous executable mappings (JIT code) are looked up in
 * /tmp/perf-PID.map, kept while the process lives (perfmap.c).  Names
 * are demangled on first use.  A frame with no symbol can still be named
 * after its file (usyms_file_name()).
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <lzma.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "debuginfod.h"
#include "demangle.h"
#include "gopclntab.h"
#include "common/htab.h"
#include "perfmap.h"
#include "usyms.h"
#include "common/util.h"

/*
 * Bounds on what one file's symbols may take (the file is the traced
 * user's): a name's bytes (a longer one is cut there), the symbols and
 * the bytes of their names kept.  Names are interned: the symbols that
 * share one string of the file's string table (or of Go's funcnametab)
 * share one copy, so N aliases of one long name cost one name, not N.
 */
#define SYM_NAME_MAX	8192
#define FILE_SYMS_MAX	(8u << 20)
#define FILE_NAMES_MAX	(128u << 20)
/* Debug files: at most this large (a link's file is read whole for its
 * CRC; build-id ones are mapped); the CRC read stops after CRC_MS. */
#define DEBUG_SIZE_MAX	(4ull << 30)
#define CRC_MS		2000

struct esym {
	uint64_t addr, size;
	uint32_t name;		/* offset into names */
	bool global;
};

struct seg {
	uint64_t off, vaddr, filesz;
};

struct efile {
	uint64_t dev, ino;
	char *path;		/* for files without dev/ino */
	char *label;		/* "[basename]": frames without a symbol */
	struct esym *syms;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
	struct htab by_ptr;	/* while a file is read: its string -> name + 1 */
	struct htab demangled;	/* name -> its demangled copy, or not_mangled */
	uint64_t lost[USYMS_LOST_NR];	/* not yet told usyms (tally()) */
	struct seg *segs;
	size_t nsegs, segcap;
	bool fixed;		/* an executable that is not a PIE */
	unsigned idle;		/* sweeps since it was last used */
	/* no symbols here: its names wait for debuginfod (usyms_fetch()) */
	bool remote;		/* kept till the end (never swept) */
	bool asked;		/* a frame of it is shown */
	bool fetched;
	unsigned char id[64];	/* its build id */
	size_t idlen;
};

struct usyms {
	struct procmaps *pm;
	struct perfmaps *jit;
	struct efile **files;	/* all files, for freeing */
	size_t n, cap;
	struct htab by_inode;	/* (dev, ino) -> file */
	bool remote;		/* DEBUGINFOD_URLS names a server */
	const volatile sig_atomic_t *stop;	/* usyms_stop_flag() */
	struct htab tallied;	/* (dev, ino) of the files counted in lost */
	uint64_t lost[USYMS_LOST_NR];
	char first[PATH_MAX];	/* the first file with a loss */
};

/* What each count of usyms.lost is, for usyms_report(). */
static const char *const lost_what[USYMS_LOST_NR] = {
	[USYMS_LOST_CUT] = "names cut at 8192 bytes",
	[USYMS_LOST_SYMS] = "symbols over a file's bounds (8M symbols, 128 MB of names)",
	[USYMS_LOST_DBG_BIG] = "debug files over 4 GiB",
	[USYMS_LOST_DBG_OWNER] = "debug files owned by neither root nor the file's owner",
	[USYMS_LOST_DBG_LINK] = "debug links naming a path, not a file",
	[USYMS_LOST_DBG_CRC] = "debug files whose CRC check was cut short (2 s, or the capture stopped)",
};

struct usyms *usyms_new(struct procmaps *pm)
{
	struct usyms *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pm = pm;
	u->remote = dbgfetch_enabled();
	u->jit = perfmaps_new();
	if (!u->jit || elf_version(EV_CURRENT) == EV_NONE) {
		usyms_free(u);
		return NULL;
	}
	return u;
}

static char not_mangled;	/* e->demangled's value for a plain name */

static void efile_free(struct efile *e)
{
	for (size_t i = 0; i < e->demangled.size; i++)
		if (e->demangled.tab[i].val != &not_mangled)
			free(e->demangled.tab[i].val);
	htab_free(&e->demangled);
	htab_free(&e->by_ptr);
	free(e->syms);
	free(e->names);
	free(e->segs);
	free(e->path);
	free(e->label);
	free(e);
}

void usyms_free(struct usyms *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++)
		efile_free(u->files[i]);
	free(u->files);
	htab_free(&u->by_inode);
	htab_free(&u->tallied);
	perfmaps_free(u->jit);
	free(u);
}

/*
 * name's offset in e->names: one copy per string of the file being read
 * (e->by_ptr, by its address in the file's data, forgotten when the file
 * is let go: forget_strings()), cut at SYM_NAME_MAX bytes; SIZE_MAX when
 * the file's names are over FILE_NAMES_MAX (or out of memory).
 */
static size_t intern(struct efile *e, const char *name)
{
	void *v = htab_get(&e->by_ptr, (uintptr_t)name, 0);
	size_t len, off;

	if (v)
		return (uintptr_t)v - 1;
	len = strnlen(name, SYM_NAME_MAX);
	if (e->nlen + len + 1 > FILE_NAMES_MAX ||
	    ow_grow(&e->names, &e->ncap, e->nlen + len, 1) < 0)
		return SIZE_MAX;
	off = e->nlen;
	memcpy(e->names + off, name, len);
	e->names[off + len] = 0;
	e->nlen += len + 1;
	if (name[len])
		e->lost[USYMS_LOST_CUT]++;
	/* (not kept: the next alias takes a copy of its own, still bounded) */
	htab_put(&e->by_ptr, (uintptr_t)name, 0, (void *)(uintptr_t)(off + 1));
	return off;
}

/* The strings of a file let go (its memory may be another's next). */
static void forget_strings(struct efile *e)
{
	htab_free(&e->by_ptr);
}

static void add_sym(struct efile *e, uint64_t addr, uint64_t size,
		    const char *name, bool global)
{
	size_t off;

	if (!*name)
		return;
	if (e->n >= FILE_SYMS_MAX || (off = intern(e, name)) == SIZE_MAX ||
	    ow_grow(&e->syms, &e->cap, e->n, sizeof(*e->syms)) < 0) {
		e->lost[USYMS_LOST_SYMS]++;
		return;
	}
	e->syms[e->n++] = (struct esym){ .addr = addr, .size = size,
					 .name = (uint32_t)off,
					 .global = global };
}

/* Function symbols of one symbol table section. */
static void read_symtab(struct efile *e, Elf *elf, Elf_Scn *scn,
			GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	for (size_t i = 0; data && i < n; i++) {
		int type;

		if (!gelf_getsym(data, i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		add_sym(e, sym.st_value, sym.st_size,
			elf_strptr(elf, sh->sh_link, sym.st_name) ?: "",
			GELF_ST_BIND(sym.st_info) != STB_LOCAL);
	}
}

/* Symbols of elf; returns whether it had a .symtab. */
static bool read_syms(struct efile *e, Elf *elf)
{
	Elf_Scn *scn = NULL;
	bool symtab = false;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			read_symtab(e, elf, scn, &sh);
		symtab |= sh.sh_type == SHT_SYMTAB;
	}
	return symtab;
}

static void read_segs(struct efile *e, Elf *elf)
{
	size_t n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    ow_grow(&e->segs, &e->segcap, e->nsegs, sizeof(*e->segs)) < 0)
			continue;
		e->segs[e->nsegs++] = (struct seg){ ph.p_offset, ph.p_vaddr,
						    ph.p_filesz };
	}
}

/* Contents of the section called name, or NULL. */
static Elf_Data *section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name)) {
			Elf_Data *d = elf_getdata(scn, NULL);

			return d && d->d_buf ? d : NULL;  /* SHT_NOBITS: none */
		}
	}
	return NULL;
}

/* The ELF open on fd (closed when it is not one), or NULL. */
static Elf *elf_of(int fd)
{
	Elf *elf;

	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	return elf;
}

/* The GNU build id of elf (*len bytes), or NULL. */
static const void *build_id(Elf *elf, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name, desc;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name, &desc)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name, "GNU", 4) &&
			    nh.n_descsz) {
				*len = nh.n_descsz;
				return (char *)d->d_buf + desc;
			}
	}
	return NULL;
}

/* What a debug file must have to be the file's: its build id, or (a file
 * without one) the CRC of .gnu_debuglink. */
struct want {
	const void *id;
	size_t idlen;
	bool has_crc;
	uint32_t crc;
	uid_t owner;		/* the file's owner: may own its debug file */
	const volatile sig_atomic_t *stop;	/* the capture's stop, or NULL */
};

/*
 * Whether fd's CRC is w's.  The file is read whole: within CRC_MS, and
 * not past the capture's stop (SIGINT) if that comes while it is read
 * (after the stop, the names of the output are made: only CRC_MS).
 */
static bool crc_matches(struct efile *e, int fd, const struct want *w)
{
	bool stopped = w->stop && *w->stop;
	double end = ow_now_ms() + CRC_MS;
	unsigned char buf[65536];
	uLong crc = crc32(0, NULL, 0);
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		crc = crc32(crc, buf, n);
		if (ow_now_ms() > end || (!stopped && w->stop && *w->stop)) {
			e->lost[USYMS_LOST_DBG_CRC]++;
			return false;
		}
	}
	return !n && crc == w->crc;
}

/* Whether the debug file open on fd may be read: at most DEBUG_SIZE_MAX
 * bytes, owned by root, us or the file's owner (another user's would
 * name its functions as that user likes). */
static bool debug_allowed(struct efile *e, int fd, const struct want *w)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	if ((uint64_t)st.st_size > DEBUG_SIZE_MAX) {
		e->lost[USYMS_LOST_DBG_BIG]++;
		return false;
	}
	if (st.st_uid && st.st_uid != geteuid() && st.st_uid != w->owner) {
		e->lost[USYMS_LOST_DBG_OWNER]++;
		return false;
	}
	return true;
}

/* Symbols from the debug file at path if it is the one w describes; true
 * when it had any.  A debug file of another build is never used: its
 * addresses would name the wrong functions. */
static bool try_debug_fd(struct efile *e, int fd, const struct want *w)
{
	size_t before = e->n, len = 0;
	const void *id;
	bool ok;
	Elf *elf;

	if (fd >= 0 && !debug_allowed(e, fd, w)) {
		close(fd);
		return false;
	}
	elf = elf_of(fd);
	if (!elf)
		return false;
	id = build_id(elf, &len);
	if (w->idlen)
		ok = id && len == w->idlen && !memcmp(id, w->id, len);
	else
		ok = w->has_crc && crc_matches(e, fd, w);
	if (ok)
		read_syms(e, elf);
	elf_end(elf);
	forget_strings(e);
	close(fd);
	return e->n > before;
}

static bool try_debug(struct efile *e, const char *path, const struct want *w)
{
	return try_debug_fd(e, ow_open_file(path), w);
}

static bool debug_by_build_id(struct efile *e, const struct want *w)
{
	const unsigned char *id = w->id;
	char path[PATH_MAX], *p;

	if (!w->idlen)
		return false;
	p = path + sprintf(path, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < w->idlen && i < 64; i++)
		p += sprintf(p, "%02x", id[i]);
	strcpy(p, ".debug");
	return try_debug(e, path, w);
}

static bool debug_by_link(struct efile *e, Elf *elf, const char *file,
			  struct want *w)
{
	Elf_Data *d = section(elf, ".gnu_debuglink");
	char path[2 * PATH_MAX + 32], dir[PATH_MAX];
	const char *name;
	size_t len;

	if (!d || !d->d_size || !memchr(d->d_buf, 0, d->d_size))
		return false;
	name = d->d_buf;
	if (!*name || strchr(name, '/')) {	/* a file beside this one */
		e->lost[USYMS_LOST_DBG_LINK]++;
		return false;
	}
	len = (strlen(name) + 4) & ~(size_t)3;	/* then the CRC, aligned */
	if (len + 4 <= d->d_size) {
		memcpy(&w->crc, (char *)d->d_buf + len, 4);
		w->has_crc = true;
	}
	snprintf(dir, sizeof(dir), "%s", file);
	dirname(dir);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (strcmp(path, file) && try_debug(e, path, w))
		return true;
	snprintf(path, sizeof(path), "%s/.debug/%s", dir, name);
	if (try_debug(e, path, w))
		return true;
	snprintf(path, sizeof(path), "/usr/lib/debug%s/%s", dir, name);
	return try_debug(e, path, w);
}

/*
 * MiniDebugInfo (Fedora, RHEL, ...): .gnu_debugdata, an xz-compressed ELF
 * whose .symtab has the function symbols .dynsym lacks.  Decompressed
 * (at most MINIDEBUG_MAX bytes: the file is the traced user's) and read
 * as an in-memory ELF.  True when it gave symbols.
 */
#define MINIDEBUG_MAX	(256u << 20)
static bool minidebuginfo(struct efile *e, Elf *elf)
{
	Elf_Data *d = section(elf, ".gnu_debugdata");
	lzma_stream xz = LZMA_STREAM_INIT;
	size_t before = e->n, cap = 0;
	char *buf = NULL;
	lzma_ret r;
	Elf *mem;

	if (!d || lzma_stream_decoder(&xz, MINIDEBUG_MAX, 0) != LZMA_OK)
		return false;
	xz.next_in = d->d_buf;
	xz.avail_in = d->d_size;
	do {
		if (!xz.avail_out) {
			if (cap >= MINIDEBUG_MAX ||
			    ow_grow(&buf, &cap, cap + 1, 1) < 0)
				break;
			xz.next_out = (uint8_t *)buf + xz.total_out;
			xz.avail_out = cap - xz.total_out;
		}
		r = lzma_code(&xz, LZMA_FINISH);
	} while (r == LZMA_OK);
	if (r == LZMA_STREAM_END &&
	    (mem = elf_memory(buf, xz.total_out))) {
		if (elf_kind(mem) == ELF_K_ELF)
			read_syms(e, mem);
		elf_end(mem);
		forget_strings(e);
	}
	lzma_end(&xz);
	free(buf);
	return e->n > before;
}

static void add_go_fn(void *e, uint64_t addr, uint64_t size, const char *name)
{
	add_sym(e, addr, size, name, true);
}

/*
 * Symbols from the debug files of elf, mapped from path: by build id,
 * by .gnu_debuglink, else its MiniDebugInfo, else (Go) its pclntab;
 * else, with a build id and DEBUGINFOD_URLS set, the file's names wait
 * for the debug file from the server, fetched after the capture.
 */
static void read_debug(struct efile *e, Elf *elf, const char *path,
		       const struct usyms *u, uid_t owner)
{
	struct want w = { .owner = owner, .stop = u->stop };
	bool remote = u->remote;

	w.id = build_id(elf, &w.idlen);
	if (debug_by_build_id(e, &w) || debug_by_link(e, elf, path, &w) ||
	    minidebuginfo(e, elf) || gopclntab_read(elf, add_go_fn, e) > 0)
		return;
	if (w.idlen && w.idlen <= sizeof(e->id) && remote) {
		e->remote = true;
		e->idlen = w.idlen;
		memcpy(e->id, w.id, w.idlen);
	}
}

/* An executable that is not a PIE: mapped at one address in every process. */
static bool is_fixed(Elf *elf)
{
	GElf_Ehdr eh;

	return gelf_getehdr(elf, &eh) && eh.e_type == ET_EXEC;
}

static int cmp_esym(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->global - x->global;	/* globals first among aliases */
}

/* "[basename]" of a mapped file's path, without " (deleted)";
 * "[basename (changed)]" for a file replaced on disk since it was mapped. */
static char *file_label(const char *path, bool changed)
{
	const char *base = strrchr(path, '/');
	char *l;

	base = base ? base + 1 : path;
	if (asprintf(&l, "[%.*s%s]", (int)procmaps_path_len(base), base,
		     changed ? " (changed)" : "") < 0)
		return NULL;
	return l;
}

static struct efile *load_file(const struct usyms *u, uint32_t tgid,
			       const struct pmap *m)
{
	struct efile *e = calloc(1, sizeof(*e));
	struct stat st;
	Elf *elf;
	int fd;

	if (!e)
		return NULL;
	e->dev = m->dev;
	e->ino = m->ino;
	e->path = strdup(m->path);
	fd = procmaps_open(tgid, m);
	e->label = file_label(m->path, fd < 0 && errno == ESTALE);
	elf = elf_of(fd);
	if (elf) {
		e->fixed = is_fixed(elf);
		read_segs(e, elf);
		if (!read_syms(e, elf))
			read_debug(e, elf, m->path, u,
				   fstat(fd, &st) ? 0 : st.st_uid);
		elf_end(elf);
		forget_strings(e);
		close(fd);
	}
	if (e->n)
		qsort(e->syms, e->n, sizeof(*e->syms), cmp_esym);
	return e;
}

/* e's losses, into u's counts. */
static void tally(struct usyms *u, const struct efile *e)
{
	bool any = false;

	for (int i = 0; i < USYMS_LOST_NR; i++) {
		u->lost[i] += e->lost[i];
		any |= e->lost[i];
	}
	if (any && !u->first[0])
		snprintf(u->first, sizeof(u->first), "%.*s",
			 (int)procmaps_path_len(e->path ? e->path : ""),
			 e->path ? e->path : "");
}

void usyms_report(const struct usyms *u)
{
	char list[1024];

	if (ow_counts_list(list, sizeof(list), u->lost, lost_what, 0,
			   USYMS_LOST_NR))
		fprintf(stderr, OW_PROG ": warning: symbols not used: %s (first in %s)\n",
			list, u->first);
	perfmaps_report(u->jit);
}

void usyms_stop_flag(struct usyms *u, const volatile sig_atomic_t *stop)
{
	u->stop = stop;
}

static struct efile *get_file(struct usyms *u, uint32_t tgid,
			      const struct pmap *m)
{
	struct efile *e = NULL;

	if (m->ino) {
		e = htab_get(&u->by_inode, m->dev, m->ino);
	} else {
		for (size_t i = 0; i < u->n && !e; i++)
			if (!u->files[i]->ino && u->files[i]->path &&
			    !strcmp(u->files[i]->path, m->path))
				e = u->files[i];
	}
	if (e) {
		e->idle = 0;
		return e;
	}
	if (ow_grow(&u->files, &u->cap, u->n, sizeof(*u->files)) < 0)
		return NULL;
	e = load_file(u, tgid, m);
	if (!e)
		return NULL;
	if (m->ino && htab_put(&u->by_inode, m->dev, m->ino, e) < 0) {
		efile_free(e);
		return NULL;
	}
	/* a file read again (swept meanwhile) is counted once */
	if (!m->ino || !htab_get(&u->tallied, m->dev, m->ino))
		tally(u, e);
	memset(e->lost, 0, sizeof(e->lost));
	if (m->ino)
		htab_put(&u->tallied, m->dev, m->ino, &not_mangled);
	u->files[u->n++] = e;
	return e;
}

void usyms_sweep(struct usyms *u, unsigned max_idle)
{
	perfmaps_sweep(u->jit);
	for (size_t i = 0; i < u->n;) {
		struct efile *e = u->files[i];

		if (++e->idle <= max_idle || e->remote) {
			i++;
			continue;
		}
		if (e->ino)
			htab_del(&u->by_inode, e->dev, e->ino);
		efile_free(e);
		u->files[i] = u->files[--u->n];
	}
}

/* s's name, demangled once per distinct name (aliases share it). */
static const char *sym_name(struct efile *e, const struct esym *s)
{
	const char *name = e->names + s->name;
	char *d = htab_get(&e->demangled, s->name, 0);

	if (!d) {
		d = ow_demangle(name);
		if (!d)
			d = &not_mangled;
		if (htab_put(&e->demangled, s->name, 0, d) < 0) {
			if (d != &not_mangled)
				free(d);
			return name;
		}
	}
	return d == &not_mangled ? name : d;
}

static const char *lookup(struct efile *e, uint64_t vaddr)
{
	size_t lo = ow_count_le(e->syms, e->n, sizeof(*e->syms), offsetof(struct esym, addr), vaddr);
	struct esym *s;

	if (!lo)
		return NULL;
	s = &e->syms[lo - 1];
	while (s > e->syms && s[-1].addr == s->addr)
		s--;
	if (s->size && vaddr >= s->addr + s->size)
		return NULL;
	return sym_name(e, s);
}

/* The file mapped at addr in tgid, and addr's ELF virtual address in it
 * (*vaddr); NULL when none (or JIT code: *jit). */
static struct efile *file_at(struct usyms *u, uint32_t tgid, uint64_t addr,
			     uint64_t *vaddr, bool *jit)
{
	const struct pmap *m = procmaps_find(u->pm, tgid, addr);
	struct efile *e;
	uint64_t foff;

	*jit = !m || !m->path[0] || !strncmp(m->path, "[anon", 5) ||
	       !strncmp(m->path, "//anon", 6);
	if (*jit || m->path[0] != '/')
		return NULL;		/* [vdso], [vsyscall] */
	e = get_file(u, tgid, m);
	if (!e)
		return NULL;
	foff = addr - m->start + m->off;
	for (size_t i = 0; i < e->nsegs; i++) {
		struct seg *s = &e->segs[i];

		if (foff >= s->off && foff < s->off + s->filesz) {
			*vaddr = foff - s->off + s->vaddr;
			return e;
		}
	}
	return NULL;
}

const char *usyms_name(struct usyms *u, uint32_t tgid, uint64_t addr)
{
	uint64_t vaddr;
	bool jit;
	struct efile *e = file_at(u, tgid, addr, &vaddr, &jit);

	if (jit)
		return perfmaps_name(u->jit, tgid, addr);
	return e ? lookup(e, vaddr) : NULL;
}

bool usyms_jit_late(struct usyms *u, uint32_t tgid, uint64_t addr)
{
	uint64_t vaddr;
	bool jit;

	file_at(u, tgid, addr, &vaddr, &jit);
	return jit && procmaps_find(u->pm, tgid, addr) &&
	       perfmaps_has(u->jit, tgid);
}

const char *usyms_jit_name_now(struct usyms *u, uint32_t tgid, uint64_t addr)
{
	return perfmaps_name_now(u->jit, tgid, addr);
}

bool usyms_deferred(struct usyms *u, uint32_t tgid, uint64_t addr,
		    const void **file, uint64_t *vaddr)
{
	bool jit;
	struct efile *e = u->remote ? file_at(u, tgid, addr, vaddr, &jit) : NULL;

	if (!e || !e->remote)
		return false;
	e->asked = true;
	*file = e;
	return true;
}

void usyms_fetch(struct usyms *u)
{
	for (size_t i = 0; i < u->n; i++) {
		struct efile *e = u->files[i];
		struct want w = { e->id, e->idlen, false, 0, geteuid(), NULL };
		char *path;
		int fd;

		if (!e->remote || !e->asked || e->fetched)
			continue;
		e->fetched = true;
		fd = dbgfetch_file(e->id, e->idlen, &path);
		if (try_debug_fd(e, fd, &w))
			qsort(e->syms, e->n, sizeof(*e->syms), cmp_esym);
		else if (fd >= 0)
			dbgfetch_unused();	/* another build's: never used */
		tally(u, e);
		memset(e->lost, 0, sizeof(e->lost));
		free(path);
	}
}

const char *usyms_deferred_name(struct usyms *u, const void *file,
				uint64_t vaddr)
{
	(void)u;
	return lookup((struct efile *)file, vaddr);
}

const char *usyms_deferred_label(const void *file)
{
	return ((const struct efile *)file)->label;
}

const char *usyms_file_name(struct usyms *u, uint32_t tgid, uint64_t addr)
{
	const struct pmap *m = procmaps_find(u->pm, tgid, addr);
	struct efile *e;

	if (!m)
		return NULL;
	if (!m->path[0] || !strncmp(m->path, "//anon", 6))
		return "[anon]";
	if (m->path[0] != '/')
		return m->path;		/* [vdso], [anon:NAME], ... */
	e = get_file(u, tgid, m);
	return e ? e->label : NULL;
}

void usyms_counts(const struct usyms *u, size_t *files, size_t *jits,
		  size_t *bytes)
{
	size_t b = 0;

	for (size_t i = 0; i < u->n; i++) {
		const struct efile *e = u->files[i];

		b += sizeof(*e) + (e->label ? strlen(e->label) + 1 : 0) +
		     e->cap * sizeof(*e->syms) + e->ncap +
		     e->segcap * sizeof(*e->segs) +
		     e->demangled.size * sizeof(*e->demangled.tab);
	}
	*files = u->n;
	perfmaps_counts(u->jit, jits, bytes);
	*bytes += b;
}

bool usyms_fixed(struct usyms *u, uint32_t tgid, uint64_t addr)
{
	const struct pmap *m = procmaps_find(u->pm, tgid, addr);
	struct efile *e;

	if (!m || m->path[0] != '/')
		return false;		/* unknown, anonymous or [vdso] */
	e = get_file(u, tgid, m);
	return e && e->fixed;
}
