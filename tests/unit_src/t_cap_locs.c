// SPDX-License-Identifier: Apache-2.0
/*
 * t_cap_locs.c - unit tests of where frames are for pprof
 * (src/capture/locs.c): one mapping per file segment, shared by every
 * process (its address moved into the first process's mapping), callers
 * moved back into their call instruction, the kernel's one mapping
 * widening to the addresses seen, frames outside any file without one,
 * and this program's build id (read here from its own note in memory).
 * No root, no BPF.
 */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "capture/locs.h"
#include "check.h"

static void test_kernel(void)
{
	struct locs l = { 0 };
	struct symloc a = locs_kernel(&l, 0xffffffff81002000ULL);
	struct symloc b = locs_kernel(&l, 0xffffffff81000100ULL);
	struct symloc c = locs_kernel(&l, 0xffffffff81004000ULL);

	check(a.map && a.map == b.map && b.map == c.map &&
	      !strcmp(a.map->path, "[kernel.kallsyms]"),
	      "locs: kernel frames share one [kernel.kallsyms] mapping",
	      "%s", a.map ? a.map->path : "no map");
	check(a.addr == 0xffffffff81001fffULL && b.addr == 0xffffffff810000ffULL,
	      "locs: kernel return addresses moved back into the call",
	      "%#llx", (unsigned long long)a.addr);
	check(a.map->start == 0xffffffff810000ffULL &&
	      a.map->limit == 0xffffffff81004000ULL,
	      "locs: the kernel mapping spans the addresses seen",
	      "%#llx-%#llx", (unsigned long long)a.map->start,
	      (unsigned long long)a.map->limit);
	locs_free(&l);
}

static void test_user(void)
{
	struct locs l = { 0 };
	struct pmap vdso1 = { 0x1000, 0x3000, 0, 0, 0, "[vdso]" };
	struct pmap vdso2 = { 0x7000, 0x9000, 0, 0, 0, "[vdso]" };
	struct pmap other = { 0x7000, 0x9000, 0x2000, 0, 0, "[vdso]" };
	struct pmap anon = { 0x5000, 0x6000, 0, 0, 0, "" };
	struct pmap lib1 = { 0x40000, 0x50000, 0x1000, 0xfe01, 77,
			     "/nonexistent/lib.so" };
	struct pmap lib2 = { 0x80000, 0x90000, 0x1000, 0xfe01, 77,
			     "/nonexistent/moved/lib.so" };
	struct pmap lib3 = { 0x80000, 0x90000, 0x1000, 0xfe01, 78,
			     "/nonexistent/lib.so" };
	struct symloc a = locs_user(&l, 1, &vdso1, 0x1010, true);
	struct symloc b = locs_user(&l, 2, &vdso2, 0x7010, false);
	struct symloc c = locs_user(&l, 2, &vdso2, 0x7010, true);
	struct symloc d = locs_user(&l, 2, &other, 0x7010, true);

	check(a.map && a.map == b.map && a.addr == 0x1010 && b.addr == 0x100f &&
	      c.addr == 0x1010,
	      "locs: one mapping a file segment; other processes' addresses moved into it",
	      "addrs %#llx %#llx %#llx", (unsigned long long)a.addr,
	      (unsigned long long)b.addr, (unsigned long long)c.addr);
	check(d.map && d.map != a.map && d.map->offset == 0x2000 &&
	      d.addr == 0x7010,
	      "locs: another segment of the file is another mapping",
	      "%s", d.map == a.map ? "the same" : "offset or address wrong");
	check(!locs_user(&l, 1, &vdso1, 0x3000, true).map &&
	      !locs_user(&l, 1, &anon, 0x5000, true).map &&
	      !locs_user(&l, 1, NULL, 0x5000, true).map &&
	      !a.map->build_id,
	      "locs: no mapping outside a file's, for anonymous code, none for [vdso]'s id",
	      "%s", "a mapping or a build id");
	a = locs_user(&l, 999999999, &lib1, 0x40010, true);
	b = locs_user(&l, 999999998, &lib2, 0x80020, true);
	c = locs_user(&l, 999999998, &lib3, 0x80020, true);
	check(a.map && a.map == b.map && b.addr == 0x40020 && c.map != a.map &&
	      !strcmp(a.map->path, lib1.path),
	      "locs: files known by device and inode, not path",
	      "%s", a.map == c.map ? "two inodes one mapping" : "one file two");
	locs_free(&l);
}

/* This program's GNU build id, hex, from its note in memory. */
static int note_id(struct dl_phdr_info *info, size_t size, void *data)
{
	char *out = data;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;

		while (ph->p_type == PT_NOTE && p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const unsigned char *desc = (const unsigned char *)
				(p + sizeof(*n) + ((n->n_namesz + 3) & ~3));

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(n + 1, "GNU", 4)) {
				for (size_t k = 0; k < n->n_descsz; k++)
					sprintf(out + 2 * k, "%02x", desc[k]);
				return 1;
			}
			p = (const char *)desc + ((n->n_descsz + 3) & ~3);
		}
	}
	return 1;		/* the first is the program */
}

__attribute__((noinline)) void fn_in_program(void)
{
	__asm__ volatile("nop");
}

static void test_build_id(void)
{
	struct locs l = { 0 };
	struct procmaps *pm = procmaps_new();
	uint64_t addr = (uintptr_t)fn_in_program;
	char want[96] = "";
	struct symloc s;

	dl_iterate_phdr(note_id, want);
	s = locs_user(&l, getpid(), procmaps_find(pm, getpid(), addr), addr,
		      true);
	if (!want[0])
		printf("SKIP: locs: build id: this program has none\n");
	else
		check(s.map && s.map->build_id && !strcmp(s.map->build_id, want),
		      "locs: this program's mapping has its build id",
		      "got %s, want %s", s.map && s.map->build_id ?
		      s.map->build_id : "none", want);
	locs_free(&l);
	procmaps_free(pm);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_kernel();
	test_user();
	test_build_id();
	return failed;
}
