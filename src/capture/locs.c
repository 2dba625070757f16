// SPDX-License-Identifier: Apache-2.0
/*
 * locs.c - the mappings pprof gets for a capture's frames, so that it and
 * the fleet profilers (Pyroscope, Parca) can find each binary and its
 * debug info, and show files and lines (go tool pprof -symbolize=force).
 *
 * A user frame's file is known from the process's executable mapping
 * (procmaps.c).  One pprof mapping per mapped segment of a file (device,
 * inode and file offset; by path for files without them, as [vdso]), with
 * the addresses the first process seen mapped it at, which is what pprof
 * wants: its start, limit and file offset are the process's own, so pprof
 * computes the ELF address of a frame from the file's program headers as
 * for any process; every other process's address is moved into it by its
 * offset from its own mapping's start (address randomisation differs per
 * process, the code is the same), so one piece of code is one location.
 * The build id is the ELF note's (libdw's dwelf_elf_gnu_build_id), read
 * once per file, through the process's map_files while it lives
 * (procmaps_open()).  Frames in anonymous memory (JIT code) have none.
 *
 * Kernel frames are in one "[kernel.kallsyms]" mapping from the lowest to
 * the highest address seen, with the running kernel's build id from
 * /sys/kernel/notes (pprof does not symbolise it: our names stay).
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "locs.h"
#include "base/hash.h"

struct locfile {
	struct export_map map;
	uint64_t dev, ino;
	struct locfile *next;	/* another segment or path with the same key */
	char id[96];		/* the build id, hex, or "" */
	char path[];
};

void locs_free(struct locs *l)
{
	for (size_t i = 0; i < l->files.size; i++) {
		struct locfile *f = l->files.tab[i].val, *next;

		for (; f; f = next) {
			next = f->next;
			free(f);
		}
	}
	htab_free(&l->files);
	memset(l, 0, sizeof(*l));
}

static void hex(char *out, size_t outlen, const unsigned char *id, size_t len)
{
	*out = 0;
	for (size_t i = 0; i < len && 2 * i + 2 < outlen; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

/* The build id of the file mapped at m in tgid, or "". */
static void file_build_id(struct locfile *f, uint32_t tgid, const struct pmap *m)
{
	int fd = f->dev || f->ino ? procmaps_open(tgid, m) : -1;
	const void *id;
	ssize_t len;
	Elf *elf;

	if (fd < 0)
		return;
	if (elf_version(EV_CURRENT) != EV_NONE &&
	    (elf = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		if ((len = dwelf_elf_gnu_build_id(elf, &id)) > 0)
			hex(f->id, sizeof(f->id), id, len);
		elf_end(elf);
	}
	close(fd);
}

static bool same_file(const struct locfile *f, const struct pmap *m)
{
	return f->map.offset == m->off && f->dev == m->dev && f->ino == m->ino &&
	       (m->dev || m->ino || !strcmp(f->path, m->path));
}

/* The file segment of m (added, from tgid's mapping, when new), or NULL. */
static struct locfile *file_of(struct locs *l, uint32_t tgid, const struct pmap *m)
{
	bool named = m->dev || m->ino;
	uint64_t a = named ? m->dev : ow_hash(m->path, strlen(m->path));
	uint64_t b = named ? m->ino : ~0ULL;
	struct locfile *head = htab_get(&l->files, a, b), *f;
	size_t plen = strlen(m->path);

	for (f = head; f; f = f->next)
		if (same_file(f, m))
			return f;
	if (!(f = calloc(1, sizeof(*f) + plen + 1)))
		return NULL;
	memcpy(f->path, m->path, plen + 1);
	f->dev = m->dev;
	f->ino = m->ino;
	f->map = (struct export_map){ f->path, NULL, m->start, m->end, m->off };
	file_build_id(f, tgid, m);
	f->map.build_id = f->id[0] ? f->id : NULL;
	f->next = head;
	if (htab_put(&l->files, a, b, f)) {
		free(f);
		return NULL;
	}
	return f;
}

struct symloc locs_user(struct locs *l, uint32_t tgid, const struct pmap *m,
			uint64_t addr, bool leaf)
{
	struct locfile *f;
	uint64_t rel;

	if (!m || !m->path[0] || addr < m->start || addr >= m->end ||
	    !(f = file_of(l, tgid, m)))
		return (struct symloc){ NULL, 0, NULL };
	rel = addr - m->start;
	if (!leaf && rel)
		rel--;
	return (struct symloc){ &f->map, f->map.start + rel, NULL };
}

/* The running kernel's build id: the GNU note of /sys/kernel/notes. */
static void kernel_build_id(struct locs *l)
{
	unsigned char buf[4096];
	Elf_Data d = { .d_buf = buf, .d_type = ELF_T_NHDR, .d_version = EV_CURRENT };
	size_t off = 0, name, desc;
	GElf_Nhdr nh;
	ssize_t n;
	int fd;

	l->kernel_read = true;
	if ((fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0 || elf_version(EV_CURRENT) == EV_NONE)
		return;
	d.d_size = n;
	while ((off = gelf_getnote(&d, off, &nh, &name, &desc)) > 0)
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4)) {
			hex(l->kernel_id, sizeof(l->kernel_id), buf + desc, nh.n_descsz);
			return;
		}
}

struct symloc locs_kernel(struct locs *l, uint64_t addr)
{
	if (!l->kernel_read) {
		kernel_build_id(l);
		l->kernel = (struct export_map){ "[kernel.kallsyms]",
			l->kernel_id[0] ? l->kernel_id : NULL, UINT64_MAX, 0, 0 };
	}
	if (addr)
		addr--;		/* a return address (see locs.h) */
	if (addr < l->kernel.start)
		l->kernel.start = addr;
	if (addr >= l->kernel.limit)
		l->kernel.limit = addr + 1;
	return (struct symloc){ &l->kernel, addr, NULL };
}
