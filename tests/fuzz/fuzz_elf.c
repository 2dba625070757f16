// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_elf.c - libFuzzer harness for the symboliser's ELF reading
 * (src/symbols/usyms.c: PT_LOAD segments, .symtab/.dynsym, build-id and
 * .gnu_debuglink lookups, demangling).  usyms has no entry point that
 * takes a buffer, so the input is written to a temporary file and a fake
 * /proc/PID/maps (fuzz_common.h) maps it for a process that does not exist;
 * usyms then opens the file by its path, as for a process that exited.
 *
 * Lookups: the harness reads the same bytes with libelf itself to find
 * the function symbols and turns each into the address that usyms maps
 * back to it, plus a few fixed and input-derived addresses.
 */
#define FUZZ_COMMON_IMPL
#include "fuzz_common.h"
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "symbols/procmaps.h"
#include "symbols/usyms.h"

#define TGID 999999999u		/* above any pid_max: no /proc/TGID */
#define MAXADDR 256

static char path[64];
static char maps[256];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(path, sizeof(path), "/dev/shm/fuzz_elf.%d", (int)getpid());
	elf_version(EV_CURRENT);
	return 0;
}

/* File offsets that usyms turns into the addresses of function symbols. */
static size_t targets(const uint8_t *data, size_t size, uint64_t *out, size_t max)
{
	Elf *elf = elf_memory((char *)data, size);
	size_t n = 0, nph = 0;
	Elf_Scn *scn = NULL;
	GElf_Phdr ph[8];
	size_t nload = 0;

	if (!elf)
		return 0;
	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph))
		goto out;
	for (size_t i = 0; i < nph && nload < 8; i++)
		if (gelf_getphdr(elf, i, &ph[nload]) && ph[nload].p_type == PT_LOAD)
			nload++;
	while ((scn = elf_nextscn(elf, scn)) && n < max) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Sym sym;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && i < 64 && n < max; i++) {
			if (!gelf_getsym(d, i, &sym))
				break;
			for (size_t j = 0; j < nload && n < max; j++)
				if (sym.st_value >= ph[j].p_vaddr &&
				    sym.st_value - ph[j].p_vaddr < ph[j].p_filesz) {
					out[n++] = sym.st_value - ph[j].p_vaddr + ph[j].p_offset;
					break;
				}
		}
	}
out:
	elf_end(elf);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t addrs[MAXADDR];
	size_t n = 0;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);

	/* one mapping from address 0 at offset 0: address = file offset */
	snprintf(maps, sizeof(maps), "0-ffffffffffffffff r-xp 00000000 fe:01 %u %s\n",
		 (unsigned)(size + 1), path);
	fuzz_files[0] = (struct fuzz_file){ "/maps", maps, strlen(maps) };
	fuzz_files[1] = (struct fuzz_file){ ".map", NULL, 0 };	/* no perf maps */

	addrs[n++] = 0;
	addrs[n++] = 0x40;
	addrs[n++] = 0x1000;
	addrs[n++] = size ? size - 1 : 0;
	for (size_t i = 0; i + 8 <= size && i < 64 && n < 16; i += 8) {
		uint64_t v;
		memcpy(&v, data + size - 8 - i, 8);
		addrs[n++] = v;
	}
	n += targets(data, size, addrs + n, MAXADDR - n);

	struct procmaps *pm = procmaps_new();
	struct usyms *u = pm ? usyms_new(pm) : NULL;
	if (u) {
		for (size_t i = 0; i < n; i++) {
			const char *s = usyms_name(u, TGID, addrs[i]);
			if (s)
				(void)strlen(s);
		}
		/* a second lookup uses the cached file and demangled names */
		for (size_t i = 0; i < n; i++)
			(void)usyms_name(u, TGID, addrs[i]);
	}
	usyms_free(u);
	procmaps_free(pm);
	unlink(path);
	return 0;
}
