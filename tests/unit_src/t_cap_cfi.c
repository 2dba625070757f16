// SPDX-License-Identifier: Apache-2.0
/*
 * t_cap_cfi.c - unit tests of the capture's unwind table upload
 * (src/unwind/native_maps.c) without root: the rows "map" is a plain
 * array, and the umaps map is a fake one in this file (libbpf's map calls
 * are wrapped at link time: creating a real BPF map needs privileges).  The
 * processes are this program and children forked from it, so their
 * files are real.  Covers each file's rows being its table (as
 * native_tables.c builds it), a mapping's adj turning an address into
 * the ELF address the rows use, the per-process entry and its copy at
 * fork, a table that does not fit, and the lifetime: processes gone are
 * deleted from the map and their files' rows returned, so the same
 * tables fit again in exactly the same room.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/types.h>
#include "unwind/native_maps.h"
#include "offwake.h"
#include "unwind/native_tables.h"
#include "check.h"

#define UMAPS_FD	4242	/* not a descriptor: only the fake map takes it */
#define CAP		(1 << 21)

/* ---- the fake umaps map ---------------------------------------------- */

static struct {
	uint32_t tgid;
	struct ow_umaps um;
} fake[8];
static int nfake, wrong_fd;

static int find(const void *key)
{
	for (int i = 0; i < nfake; i++)
		if (fake[i].tgid == *(const uint32_t *)key)
			return i;
	return -1;
}

int __wrap_bpf_map_update_elem(int fd, const void *key, const void *value,
			       __u64 flags)
{
	int i = find(key);

	wrong_fd += fd != UMAPS_FD;
	if (i < 0 && nfake == 8)
		return -E2BIG;
	if (i < 0) {
		i = nfake++;
		fake[i].tgid = *(const uint32_t *)key;
	}
	memcpy(&fake[i].um, value, sizeof(fake[i].um));
	return 0;
}

int __wrap_bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	int i = find(key);

	wrong_fd += fd != UMAPS_FD;
	if (i < 0)
		return -ENOENT;
	memcpy(value, &fake[i].um, sizeof(fake[i].um));
	return 0;
}

int __wrap_bpf_map_delete_elem(int fd, const void *key)
{
	int i = find(key);

	wrong_fd += fd != UMAPS_FD;
	if (i < 0)
		return -ENOENT;
	fake[i] = fake[--nfake];
	return 0;
}

static const struct ow_umaps *entry(uint32_t tgid)
{
	int i = find(&tgid);

	return i < 0 ? NULL : &fake[i].um;
}

/* ---- helpers ------------------------------------------------------------ */

static void count_between(void *ctx)
{
	(*(size_t *)ctx)++;
}

/* A child that lives until end_child(). */
static pid_t child(void)
{
	pid_t pid = fork();

	if (!pid) {
		for (;;)
			pause();
	}
	return pid;
}

static void end_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * The mapping of um holding addr, whose rows must be the table of the
 * file at path, and addr - adj the address's ELF vaddr (load bias bias)
 * relative to the table's base.
 */
static void check_file(const struct ow_umaps *um, const struct ow_urow *rows,
		       uint64_t addr, const char *path, uint64_t bias,
		       const char *name)
{
	const struct ow_umap *m = NULL;
	struct uw_table t = { 0 };
	char err[256] = "", what[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	for (uint32_t i = 0; um && i < um->n; i++)
		if (addr >= um->m[i].start && addr < um->m[i].end)
			m = &um->m[i];
	if (fd < 0 || uw_table_build(fd, path, &t, err, sizeof(err), NULL, NULL)) {
		snprintf(what, sizeof(what), "%s: %s", path, err);
		check(0, name, "%s", what);
	} else if (!m) {
		check(0, name, "no mapping holds %#llx", (unsigned long long)addr);
	} else {
		check(m->nrows == t.nrows && m->first + m->nrows <= CAP &&
		      !memcmp(rows + m->first, t.rows, t.nrows * sizeof(*t.rows)) &&
		      addr - m->adj == addr - bias - t.base,
		      name, "%u rows at %u (table %zu), pc %#llx want %#llx",
		      m->nrows, m->first, t.nrows,
		      (unsigned long long)(addr - m->adj),
		      (unsigned long long)(addr - bias - t.base));
	}
	if (fd >= 0)
		close(fd);
	uw_table_free(&t);
}

static int first_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	*(uint64_t *)data = info->dlpi_addr;
	return 1;		/* the first is the program */
}

/* This program's load bias (its children's too: they are forks). */
static uint64_t program_bias(void)
{
	uint64_t bias = 0;

	dl_iterate_phdr(first_bias, &bias);
	return bias;
}

/* ---- tests ------------------------------------------------------------- */

__attribute__((noinline)) void fn_in_program(void)
{
	__asm__ volatile("nop");
}

/* This process's tables: returns the rows they took. */
static size_t test_self(struct ow_urow *rows)
{
	struct procmaps *pm = procmaps_new();
	struct cfi *c = cfi_new(pm, -1, rows, CAP, UMAPS_FD);
	const struct ow_umaps *um;
	struct cfi_stats st;
	uint64_t sum = 0, prev_end = 0;
	size_t between = 0, done;
	uint32_t quick_n;
	Dl_info dl;
	int sorted = 1;

	cfi_queue(c, getpid());
	cfi_queue(c, getpid());
	cfi_get_stats(c, &st);
	check(st.queued == 1 && st.procs == 1, "cfi: a process is queued once",
	      "%zu queued", st.queued);
	done = cfi_work(c, 60000, count_between, &between);
	cfi_get_stats(c, &st);
	um = entry(getpid());
	quick_n = um ? um->n : 0;
	/* first its program's, libc's and the loader's tables only (the
	 * quick pass: it maps libelf, libz ... too) */
	check(st.quick == 1 && done == 1 && um && um->n >= 2 && um->gen == 1 &&
	      !st.queued && !cfi_pending(c, getpid()),
	      "cfi: a new process gets a quick pass first, nothing queued after it",
	      "quick %zu, done %zu, %u mappings, gen %u, %zu queued", st.quick,
	      done, um ? um->n : 0, um ? um->gen : 0, st.queued);
	/* the rest once a walk meets one of them */
	check(cfi_want_all(c, getpid()) && cfi_pending(c, getpid()),
	      "cfi: a walk that misses a partial entry queues the rest", "not queued");
	done = cfi_work(c, 60000, count_between, &between);
	cfi_get_stats(c, &st);
	um = entry(getpid());
	check(st.quick == 1 && st.wanted == 1 && done == 1 && um &&
	      um->n > quick_n && um->gen == 2 && !st.queued && !st.no_room &&
	      st.tables >= 2 && st.rows > 0 && st.rows_cap == CAP &&
	      !cfi_want_all(c, getpid()),
	      "cfi: this process's tables loaded, its entry written whole",
	      "quick %zu, wanted %zu, done %zu, %u mappings (%u quick), %zu tables, %zu rows, no room %zu, gen %u",
	      st.quick, st.wanted, done, um ? um->n : 0, quick_n, st.tables,
	      st.rows, st.no_room, um ? um->gen : 0);
	/* after each file built, and every 20 ms of a build (native_tables.c's
	 * BETWEEN_MS: a sanitised build of a large file takes seconds) */
	check(between >= st.files &&
	      between <= 2 * st.files + (size_t)(st.build_ms / 20),
	      "cfi: between() called after each file built, and during long builds",
	      "%zu calls, %zu files, %.0f ms building", between, st.files,
	      st.build_ms);
	for (uint32_t i = 0; um && i < um->n; i++) {
		sorted &= um->m[i].start >= prev_end && um->m[i].end > um->m[i].start;
		prev_end = um->m[i].end;
		sum += um->m[i].nrows;
	}
	check(sorted && sum == st.rows,
	      "cfi: mappings sorted, apart, their rows all the rows loaded",
	      "%llu rows in the entry, %zu loaded",
	      (unsigned long long)sum, st.rows);
	check_file(um, rows, (uintptr_t)fn_in_program + 1, "/proc/self/exe",
		   program_bias(), "cfi: this program's rows are its table, adj right");
	if (dladdr((void *)&getpid, &dl) && dl.dli_fname)
		check_file(um, rows, (uintptr_t)&getpid, dl.dli_fname,
			   (uintptr_t)dl.dli_fbase,
			   "cfi: a library's rows are its table, adj right");
	else
		printf("SKIP: cfi: a library's rows: getpid not found\n");
	cfi_free(c);
	procmaps_free(pm);
	return st.rows;
}

/*
 * Too little room: nothing loaded, and it is said; the entry lists the
 * files without rows (the walker knows them: frame pointers there, and
 * no stack deferred waiting for tables that will not come).
 */
static void test_no_room(void)
{
	struct ow_urow row;
	struct procmaps *pm = procmaps_new();
	struct cfi *c = cfi_new(pm, -1, &row, 1, UMAPS_FD);
	const struct ow_umaps *um;
	struct cfi_stats st;
	uint32_t rowed = 0;

	nfake = 0;
	cfi_queue(c, getpid());
	cfi_work(c, 60000, NULL, NULL);
	cfi_get_stats(c, &st);
	um = entry(getpid());
	for (uint32_t i = 0; um && i < um->n; i++)
		rowed += um->m[i].nrows != 0;
	check(!st.tables && !st.rows && st.no_room >= 2 && um && um->n >= 2 &&
	      !rowed, "cfi: tables that do not fit are not loaded; the entry lists the files, without rows",
	      "%zu tables, no room %zu, entry %s with %u mappings, %u with rows",
	      st.tables, st.no_room, um ? "written" : "none", um ? um->n : 0,
	      rowed);
	cfi_free(c);
	procmaps_free(pm);
}

/* Children: fork copies the entry, exits delete it and free the rows. */
static void test_lifetime(struct ow_urow *rows, size_t need)
{
	struct procmaps *pm = procmaps_new();
	struct cfi *c = cfi_new(pm, -1, rows, need, UMAPS_FD);
	struct cfi_stats st, st0;
	pid_t a = child(), b = child(), cc;

	nfake = 0;
	cfi_queue(c, a);
	cfi_work(c, 60000, NULL, NULL);
	cfi_want_all(c, a);	/* (past the quick pass: all) */
	cfi_work(c, 60000, NULL, NULL);
	cfi_fork(c, b, a);
	cfi_get_stats(c, &st0);
	check(entry(a) && entry(b) && !memcmp(entry(a), entry(b), sizeof(*entry(a))) &&
	      st0.procs == 2 && !st0.no_room && st0.rows == need,
	      "cfi: a fork gets its parent's entry; the tables fit exactly",
	      "entries %d/%d, %zu procs, no room %zu, rows %zu of %zu",
	      !!entry(a), !!entry(b), st0.procs, st0.no_room, st0.rows, need);
	end_child(a);
	cfi_sweep(c, 0);
	cfi_get_stats(c, &st);
	check(!entry(a) && entry(b) && st.procs == 1 && st.tables == st0.tables,
	      "cfi: a process gone is deleted; files another uses stay",
	      "entry %s, %zu procs, %zu tables", entry(a) ? "kept" : "deleted",
	      st.procs, st.tables);
	end_child(b);
	cfi_sweep(c, 0);
	cfi_get_stats(c, &st);
	check(!nfake && !st.procs && !st.tables && !st.rows && !st.files,
	      "cfi: the last process gone: its files and rows are freed",
	      "%d entries, %zu procs, %zu tables, %zu rows", nfake, st.procs,
	      st.tables, st.rows);
	memset(rows, 0, need * sizeof(*rows));
	cc = child();
	cfi_queue(c, cc);
	cfi_work(c, 60000, NULL, NULL);
	cfi_want_all(c, cc);
	cfi_work(c, 60000, NULL, NULL);
	cfi_get_stats(c, &st);
	check(entry(cc) && !st.no_room && st.tables == st0.tables,
	      "cfi: the rows freed are room again: the same tables fit",
	      "no room %zu, %zu tables of %zu", st.no_room, st.tables,
	      st0.tables);
	check_file(entry(cc), rows, (uintptr_t)fn_in_program + 1,
		   "/proc/self/exe", program_bias(),
		   "cfi: ...and are written again");
	end_child(cc);
	cfi_free(c);
	procmaps_free(pm);
}

int main(void)
{
	struct ow_urow *rows = calloc(CAP, sizeof(*rows));
	size_t need;

	setvbuf(stdout, NULL, _IOLBF, 0);
	elf_version(EV_CURRENT);	/* native_maps.c reads ELF files, as
					 * usyms_new() */
	if (!rows)
		return 1;
	need = test_self(rows);
	test_no_room();
	if (need)
		test_lifetime(rows, need);
	check(!wrong_fd, "cfi: the map calls are on the umaps fd given",
	      "%d calls on another", wrong_fd);
	free(rows);
	return failed;
}
