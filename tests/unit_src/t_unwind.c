// SPDX-License-Identifier: Apache-2.0
/*
 * t_unwind.c - unit tests of the unwind table builder
 * (src/unwind/native_tables.c) on real files: the fixture tests/unwind/chain.c compiled here -O2
 * -fomit-frame-pointer (frame shapes at known functions, its PLT), the
 * same with .debug_frame only and compressed, libc's signal trampoline
 * (found as the kernel sees it, sa_restorer), this program's _start, the
 * row search, and files that must be refused without a crash (no CFI,
 * not ELF, truncated, another machine, corrupted CFI), and the check of
 * a table read back (uw_table_check()).  Prints
 * PASS:/FAIL:/SKIP: lines; needs cc (else the fixture tests skip).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "unwind/native_tables.h"
#include "check.h"

static char tmp[] = "/tmp/t_unwind.XXXXXX";

static int run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int build(const char *path, struct uw_table *t, char *err, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		memset(t, 0, sizeof(*t));
		return -1;
	}
	r = uw_table_build(fd, path, t, err, len, NULL, NULL);
	close(fd);
	return r;
}

static const char *rule_name(const struct ow_urow *r)
{
	/* every value of the 3-bit field */
	static const char *names[8] = { "none", "rsp", "rbp", "plt", "end",
					"signal", "rsp_x8", "rbx" };

	if (!r)
		return "(no row)";
	return names[r->cfa];
}

/* Rows strictly increasing, no two neighbours with the same rule. */
static void check_invariants(const char *what, const struct uw_table *t)
{
	char name[256];
	size_t i;

	for (i = 1; i < t->nrows; i++) {
		const struct ow_urow *a = &t->rows[i - 1], *b = &t->rows[i];

		if (a->pc >= b->pc || (a->cfa == b->cfa && a->rbp == b->rbp &&
				       a->rbx == b->rbx &&
				       a->off == b->off))
			break;
	}
	snprintf(name, sizeof(name), "unwind: %s: rows sorted, neighbours differ", what);
	check(t->nrows && i == t->nrows, name, "row %zu of %zu", i, t->nrows);
	snprintf(name, sizeof(name), "unwind: %s: the last row ends the code (none)", what);
	check(t->nrows && t->rows[t->nrows - 1].cfa == OW_CFA_NONE, name, "last row %s",
	      t->nrows ? rule_name(&t->rows[t->nrows - 1]) : "-");
}

/* [*lo, *hi) of section sec in path; 0, or -1 if there is none. */
static int section_range(const char *path, const char *sec, uint64_t *lo, uint64_t *hi)
{
	int fd = open(path, O_RDONLY), r = -1;
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t stri;

	if (e && !elf_getshdrstrndx(e, &stri)) {
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (!gelf_getshdr(scn, &sh))
				continue;
			n = elf_strptr(e, stri, sh.sh_name);
			if (n && !strcmp(n, sec)) {
				*lo = sh.sh_addr;
				*hi = sh.sh_addr + sh.sh_size;
				r = 0;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return r;
}

/* A symbol of a loaded library: its ELF vaddr and size. */
static int sym_of(void *lib, const char *name, uint64_t *vaddr, uint64_t *size)
{
	void *p = dlsym(lib, name);
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (!p || !dladdr1(p, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return -1;
	*vaddr = sym->st_value;
	*size = sym->st_size;
	return 0;
}

/* The rows from vaddr lo (its rule included) to hi. */
static size_t rows_in(const struct uw_table *t, uint64_t lo, uint64_t hi,
		      const struct ow_urow **first)
{
	const struct ow_urow *a = uw_table_find(t, lo - t->base);
	const struct ow_urow *b = uw_table_find(t, hi - 1 - t->base);

	*first = a;
	return a && b ? (size_t)(b - a) + 1 : 0;
}

static void test_leaf(void *lib, const struct uw_table *t, const char *what)
{
	const struct ow_urow *r;
	uint64_t at, size;
	char name[256];
	size_t n, i;

	snprintf(name, sizeof(name), "unwind: %s: leaf() is rsp+8 from entry to end", what);
	if (sym_of(lib, "leaf", &at, &size)) {
		check(0, name, "no symbol leaf");
		return;
	}
	n = rows_in(t, at, at + size, &r);
	for (i = 0; i < n; i++)
		if (r[i].cfa != OW_CFA_RSP || r[i].off != 8 || r[i].rbp)
			break;
	check(n == 1 && i == 1 && r->pc == at - t->base, name,
	      "%zu rows from %#lx, the first %s%+d rbp %d", n,
	      n ? (unsigned long)(t->base + r->pc) : 0UL, rule_name(n ? r : NULL),
	      n ? r->off : 0, n ? r->rbp : 0);
}

/*
 * saver() pushes callee-saved registers one by one: rsp+8 at its entry,
 * then the CFA offset grows by 8 per row; when rbp is pushed, it is
 * saved at CFA - (the offset of that row).
 */
static void test_saver(void *lib, const struct uw_table *t, const char *what)
{
	const struct ow_urow *r;
	uint64_t at, size;
	char name[256];
	size_t n, i;
	int off = 8, rbp_ok = 0;

	snprintf(name, sizeof(name), "unwind: %s: saver() pushes: rsp+8, +16, +24 ..., rbp at CFA-offset", what);
	if (sym_of(lib, "saver", &at, &size)) {
		check(0, name, "no symbol saver");
		return;
	}
	n = rows_in(t, at, at + size, &r);
	if (!n || r->pc != at - t->base || r->cfa != OW_CFA_RSP || r->off != 8) {
		check(0, name, "entry row %s%+d", rule_name(n ? r : NULL), n ? r->off : 0);
		return;
	}
	for (i = 1; i < n && r[i].cfa == OW_CFA_RSP && r[i].off == off + 8; i++) {
		off += 8;
		if (r[i].rbp && !r[i - 1].rbp)
			rbp_ok = r[i].rbp * 8 == -off;
	}
	check(off >= 24 && rbp_ok, name, "pushes up to rsp+%d, rbp saved right: %d", off, rbp_ok);
}

static void test_shape(void *lib, const struct uw_table *t, const char *what,
		       const char *fn, int cfa, int min_off, int rbp)
{
	const struct ow_urow *r;
	uint64_t at, size;
	char name[256];
	size_t n, i;

	snprintf(name, sizeof(name), "unwind: %s: %s() has a %s row (CFA offset %s%d, rbp %d)",
		 what, fn, rule_name(&(struct ow_urow){ .cfa = cfa }),
		 cfa == OW_CFA_RSP_X8 ? ">= " : "", min_off, rbp);
	if (sym_of(lib, fn, &at, &size)) {
		check(0, name, "no symbol %s", fn);
		return;
	}
	n = rows_in(t, at, at + size, &r);
	for (i = 0; i < n; i++)
		if (r[i].cfa == cfa && r[i].rbp == rbp &&
		    (cfa == OW_CFA_RSP_X8 ? (uint16_t)r[i].off * 8 >= min_off : r[i].off == min_off))
			break;
	check(i < n, name, "not among its %zu rows", n);
}

/* After the lazy PLT's first entry (PLT0), the entries' rule is the PLT's. */
static void test_plt(const char *path, const struct uw_table *t, const char *what)
{
	uint64_t lo, hi;
	const struct ow_urow *r;
	char name[256];

	snprintf(name, sizeof(name), "unwind: %s: .plt entries are OW_CFA_PLT (11)", what);
	if (section_range(path, ".plt", &lo, &hi) || hi - lo < 48) {
		check(0, name, "no .plt of 3 entries or more");
		return;
	}
	r = uw_table_find(t, lo + 16 - t->base);
	check(r && r->cfa == OW_CFA_PLT && r->off == 11 &&
	      uw_table_find(t, hi - 1 - t->base) == r, name,
	      "at .plt+16: %s%+d", rule_name(r), r ? r->off : 0);
}

static void test_fixture_table(const char *path, const char *what, int debug_frame)
{
	struct uw_table t;
	char err[512], name[256];
	void *lib;

	snprintf(name, sizeof(name), "unwind: %s: table built", what);
	if (build(path, &t, err, sizeof(err))) {
		check(0, name, "%s", err);
		return;
	}
	check(t.nfde >= 5 && t.debug_frame == debug_frame && !t.nskip && !t.noverlap,
	      name, "%zu FDEs, debug_frame %d, %zu skipped, %zu overlapping",
	      t.nfde, t.debug_frame, t.nskip, t.noverlap);
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		check(0, name, "dlopen: %s", dlerror());
		uw_table_free(&t);
		return;
	}
	check_invariants(what, &t);
	test_leaf(lib, &t, what);
	test_saver(lib, &t, what);
	test_shape(lib, &t, what, "bigframe", OW_CFA_RSP_X8, 40000, 0);
	test_shape(lib, &t, what, "vla", OW_CFA_RBP, 16, -2);
	if (!debug_frame)
		test_plt(path, &t, what);
	dlclose(lib);
	uw_table_free(&t);
}

/* Two tables of the same code: the same rows. */
static void test_same(const char *a, const char *b, const char *name)
{
	struct uw_table ta, tb;
	char err[512];
	int ok;

	if (build(a, &ta, err, sizeof(err)) || build(b, &tb, err, sizeof(err))) {
		check(0, name, "%s", err);
		uw_table_free(&ta);
		return;
	}
	ok = ta.nrows == tb.nrows && !memcmp(ta.rows, tb.rows, ta.nrows * sizeof(*ta.rows));
	check(ok, name, "%zu rows vs %zu", ta.nrows, tb.nrows);
	uw_table_free(&ta);
	uw_table_free(&tb);
}

static void test_fixture(const char *top, const char *cc)
{
	static const char *flags = "-O2 -fomit-frame-pointer -fno-stack-protector -shared -fPIC";
	char so[512], dbg[512], z[512];

	snprintf(so, sizeof(so), "%s/libchain.so", tmp);
	snprintf(dbg, sizeof(dbg), "%s/libchain_dbg.so", tmp);
	snprintf(z, sizeof(z), "%s/libchain_z.so", tmp);
	if (run("%s %s -o %s %s/tests/unwind/chain.c", cc, flags, so, top)) {
		printf("SKIP: unwind: fixture: cannot compile tests/unwind/chain.c with %s\n", cc);
		return;
	}
	test_fixture_table(so, "chain.so (.eh_frame)", 0);
	if (run("%s %s -g -fno-asynchronous-unwind-tables -o %s %s/tests/unwind/chain.c",
		cc, flags, dbg, top)) {
		check(0, "unwind: chain.so (.debug_frame)", "cannot compile");
		return;
	}
	test_fixture_table(dbg, "chain.so (.debug_frame)", 1);
	if (run("objcopy --compress-debug-sections=zlib %s %s", dbg, z)) {
		printf("SKIP: unwind: compressed .debug_frame: objcopy failed\n");
		return;
	}
	test_same(dbg, z, "unwind: compressed .debug_frame: the same rows");
}

/* The kernel's sa_restorer for a handler glibc installed: __restore_rt. */
static void on_usr2(int sig)
{
}

struct k_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask;
};

static void test_signal(void)
{
	struct sigaction sa = { .sa_handler = on_usr2 };
	struct k_sigaction k = { 0 };
	struct link_map *lm = NULL;
	struct uw_table t;
	const struct ow_urow *r, *before;
	const char *name = "unwind: libc: __restore_rt (sa_restorer) is OW_CFA_SIGNAL, off 40";
	char err[512];
	Dl_info info;
	uint64_t at;

	sigaction(SIGUSR2, &sa, NULL);
	if (syscall(SYS_rt_sigaction, SIGUSR2, NULL, &k, 8) || !k.restorer ||
	    !dladdr1(k.restorer, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) {
		check(0, name, "no sa_restorer in a library");
		return;
	}
	if (build(info.dli_fname, &t, err, sizeof(err))) {
		check(0, name, "%s", err);
		return;
	}
	at = (uint64_t)(uintptr_t)k.restorer - lm->l_addr - t.base;
	r = uw_table_find(&t, at);
	before = uw_table_find(&t, at - 1);	/* the FDE starts a byte early */
	check(r && r->cfa == OW_CFA_SIGNAL && r->off == 40 && before == r, name,
	      "%s: at %#lx: %s%+d", info.dli_fname, (unsigned long)at, rule_name(r),
	      r ? r->off : 0);
	check_invariants("libc", &t);
	test_plt(info.dli_fname, &t, "libc");
	uw_table_free(&t);
}

extern char _start[];

static void test_start(void)
{
	struct link_map *lm = NULL;
	struct uw_table t;
	const struct ow_urow *r;
	const char *name = "unwind: this program's _start is OW_CFA_END";
	char err[512];
	Dl_info info;

	if (!dladdr1(_start, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) {
		check(0, name, "dladdr1(_start) failed");
		return;
	}
	if (build("/proc/self/exe", &t, err, sizeof(err))) {
		check(0, name, "%s", err);
		return;
	}
	r = uw_table_find(&t, (uintptr_t)_start - lm->l_addr - t.base);
	check(r && r->cfa == OW_CFA_END, name, "row %s", rule_name(r));
	uw_table_free(&t);
}

static void test_find(void)
{
	struct ow_urow rows[] = {
		{ .pc = 0x100, .cfa = OW_CFA_RSP, .off = 8 },
		{ .pc = 0x104, .cfa = OW_CFA_RSP, .off = 16 },
		{ .pc = 0x200, .cfa = OW_CFA_NONE },
	};
	struct uw_table t = { .rows = rows, .nrows = 3 };

	check(!uw_table_find(&t, 0xff) && uw_table_find(&t, 0x100) == &rows[0] &&
	      uw_table_find(&t, 0x103) == &rows[0] && uw_table_find(&t, 0x104) == &rows[1] &&
	      uw_table_find(&t, 0x1ff) == &rows[1] && uw_table_find(&t, 0x200) == &rows[2] &&
	      uw_table_find(&t, 0xffffffff) == &rows[2] && !uw_table_find(&t, 1ULL << 32),
	      "unwind: uw_table_find: the last row with pc <= the address", "wrong row");
	t.nrows = 0;
	check(!uw_table_find(&t, 0x100), "unwind: uw_table_find: empty table", "a row");
}

/* path must be refused: -1, errno e (0: any), a message naming it. */
static void expect_refused(const char *path, int e, const char *what)
{
	struct uw_table t;
	char err[512], name[256];
	int r;

	snprintf(name, sizeof(name), "unwind: refused: %s", what);
	errno = 0;
	r = build(path, &t, err, sizeof(err));
	check(r == -1 && (e ? errno == e : errno != 0) && strstr(err, path) &&
	      !t.rows && !t.nrows, name, "returned %d, errno %d (%s), err '%s'",
	      r, errno, strerror(errno), err);
	if (!r)
		uw_table_free(&t);
}

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "w");
	int ok = f && fwrite(p, 1, n, f) == n;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

static char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	char *p = NULL;

	if (f && !fstat(fileno(f), &st) && (p = malloc(st.st_size + 1)) &&
	    fread(p, 1, st.st_size, f) != (size_t)st.st_size) {
		free(p);
		p = NULL;
	}
	if (f)
		fclose(f);
	*n = p ? (size_t)st.st_size : 0;
	return p;
}

static void test_refused(const char *top, const char *cc)
{
	static const size_t cuts[] = { 0, 4, 63, 64, 1000, 4096 };
	char path[512], what[128], *libc;
	size_t n, i;
	uint16_t arm = 183;	/* EM_AARCH64 */

	snprintf(path, sizeof(path), "%s/text", tmp);
	write_file(path, "#!/bin/sh\necho not an ELF file\n", 31);
	expect_refused(path, EINVAL, "a text file (EINVAL)");
	snprintf(path, sizeof(path), "%s/nocfi", tmp);
	if (!run("%s -O2 -static -nostdlib -fno-asynchronous-unwind-tables -fno-unwind-tables "
		 "-o %s %s/tests/unwind/nocfi.c", cc, path, top))
		expect_refused(path, ENOENT, "an executable without CFI (ENOENT)");
	else
		printf("SKIP: unwind: refused: no CFI: cannot link tests/unwind/nocfi.c\n");
	libc = read_all("/lib/x86_64-linux-gnu/libc.so.6", &n);
	if (!libc || n < 8192) {
		printf("SKIP: unwind: refused: truncated: no /lib/x86_64-linux-gnu/libc.so.6\n");
		free(libc);
		return;
	}
	snprintf(path, sizeof(path), "%s/cut.so", tmp);
	for (i = 0; i < sizeof(cuts) / sizeof(*cuts) + 2; i++) {
		size_t cut = i < sizeof(cuts) / sizeof(*cuts) ? cuts[i] : i == 6 ? n / 2 : n - 1;

		write_file(path, libc, cut);
		snprintf(what, sizeof(what), "libc cut to %zu bytes", cut);
		expect_refused(path, 0, what);
	}
	memcpy(libc + 18, &arm, 2);	/* e_machine */
	write_file(path, libc, n);
	expect_refused(path, ENOTSUP, "libc as if for aarch64 (ENOTSUP)");
	free(libc);
}

/*
 * Corrupted CFI: bytes of the fixture's .eh_frame and .eh_frame_hdr
 * changed at random (a fixed seed); every build must end, without a
 * memory error (ASan build), and a table it returns must be sorted.
 */
static void test_corrupt(void)
{
	char so[512], path[512], *img;
	uint64_t lo, hi, hlo, hhi;
	size_t n, i, built = 0, bad = 0;
	unsigned seed = 22;

	snprintf(so, sizeof(so), "%s/libchain.so", tmp);
	snprintf(path, sizeof(path), "%s/corrupt.so", tmp);
	img = read_all(so, &n);
	if (!img || section_range(so, ".eh_frame", &lo, &hi) ||
	    section_range(so, ".eh_frame_hdr", &hlo, &hhi) || hi > n || hhi > n) {
		printf("SKIP: unwind: corrupted CFI: no fixture\n");
		free(img);
		return;
	}
	for (i = 0; i < 300; i++) {
		char *c = malloc(n);
		struct uw_table t;
		char err[512];
		int k;

		memcpy(c, img, n);
		for (k = 0; k < 1 + (int)(i % 4); k++) {
			uint64_t at = i % 3 ? lo + rand_r(&seed) % (hi - lo)
					    : hlo + rand_r(&seed) % (hhi - hlo);

			c[at] = (char)rand_r(&seed);
		}
		write_file(path, c, n);
		free(c);
		if (build(path, &t, err, sizeof(err)))
			continue;
		built++;
		for (size_t j = 1; j < t.nrows; j++)
			bad += t.rows[j - 1].pc >= t.rows[j].pc;
		uw_table_free(&t);
	}
	check(!bad, "unwind: corrupted CFI: 300 files, no crash, tables sorted",
	      "%zu unsorted rows in %zu tables", bad, built);
	free(img);
}

/* The objects this program has loaded (dl_iterate_phdr()), by path. */
static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
	char (*paths)[16][512] = data;

	for (int i = 0; i < 16; i++)
		if (!(*paths)[i][0]) {
			snprintf((*paths)[i], sizeof((*paths)[i]), "%s",
				 info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe");
			break;
		}
	return 0;
}

/*
 * uw_table_check() (a table read back from the cache, table_cache.c):
 * every table the builder makes for the objects loaded here passes it (no
 * good table refused), and libc's table damaged is refused for what was
 * damaged: two rows swapped (order), a row's rule END with an offset
 * (rule), another base, a pc beyond the text (text).
 */
static void test_check(void)
{
	static char paths[16][512];
	const char *name = "unwind: uw_table_check: the builder's tables pass";
	struct uw_table t;
	struct ow_urow keep, *r;
	char err[512], *libc = NULL;
	size_t n = 0, bad = 0, i;
	int fd;

	dl_iterate_phdr(add_object, &paths);
	for (i = 0; i < 16 && paths[i][0]; i++) {
		fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || uw_table_build(fd, paths[i], &t, err, sizeof(err), NULL, NULL)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		n++;
		if (uw_table_check(fd, &t) != UW_ROWS_OK) {
			check(0, name, "%s: %d", paths[i], (int)uw_table_check(fd, &t));
			bad++;
		}
		if (strstr(paths[i], "/libc.so") && !libc) {
			libc = paths[i];
			for (r = t.rows + 1; r < t.rows + t.nrows - 1; r++)
				if (r->cfa == OW_CFA_RSP && r->off >= 8)
					break;
			keep = r[0];
			r[0] = r[1], r[1] = keep;
			check(uw_table_check(fd, &t) == UW_ROWS_ORDER,
			      "unwind: uw_table_check: rows swapped: order", "%d",
			      (int)uw_table_check(fd, &t));
			r[1] = r[0], r[0] = keep;
			r->cfa = OW_CFA_END;
			check(uw_table_check(fd, &t) == UW_ROWS_RULE,
			      "unwind: uw_table_check: END with an offset: rule", "%d",
			      (int)uw_table_check(fd, &t));
			*r = keep;
			t.base += 0x1000;
			check(uw_table_check(fd, &t) == UW_ROWS_TEXT,
			      "unwind: uw_table_check: another base: text", "%d",
			      (int)uw_table_check(fd, &t));
			t.base -= 0x1000;
			t.rows[t.nrows - 1].pc = UINT32_MAX;
			check(uw_table_check(fd, &t) == UW_ROWS_TEXT,
			      "unwind: uw_table_check: a pc beyond the text: text", "%d",
			      (int)uw_table_check(fd, &t));
		}
		uw_table_free(&t);
		close(fd);
	}
	if (!bad)
		check(n >= 3 && libc, name, "%zu tables built, libc %s", n,
		      libc ? "found" : "not found");
}

int main(void)
{
	const char *top = getenv("TOP") ? getenv("TOP") : ".";
	const char *cc = getenv("CC") ? getenv("CC") : "cc";

	setvbuf(stdout, NULL, _IOLBF, 0);
	elf_version(EV_CURRENT);
	if (!mkdtemp(tmp)) {
		check(0, "unwind: temporary directory", "%s", strerror(errno));
		return 1;
	}
	test_find();
	test_start();
	test_signal();
	test_fixture(top, cc);
	test_refused(top, cc);
	test_corrupt();
	test_check();
	run("rm -rf %s", tmp);
	return failed;
}
