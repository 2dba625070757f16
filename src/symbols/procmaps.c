// SPDX-License-Identifier: Apache-2.0
/*
 * procmaps.c - snapshots of the executable mappings in /proc/PID/maps.
 * offwaketime reads the maps when it prints, so frames of processes that
 * exited during the trace are lost; we read them when the kernel side
 * first sees a thread block or be woken, at each exec and again at the
 * next event after it (once the dynamic loader has mapped the libraries),
 * and (for a process never read) at first lookup.  A lookup that misses
 * re-reads a live process's maps once (code mapped later, e.g. dlopen).
 *
 * A snapshot (struct space) is shared: a forked child uses its parent's
 * (one copy however many children; it also covers children that exit
 * before we can read their own), an exec makes a new one, and a process
 * whose maps come to differ from the ones it shares gets one of its own.
 * A lineage is the processes forked from one exec, which share addresses
 * whatever their maps say (a read may even come after the next exec): the
 * caller's caches are kept per lineage (procmaps_slot()).  A process
 * keeps the maps and lineage it had before its last exec: keys drained
 * after the exec may name its stacks from before.  Each sweep
 * checks the processes with kill(pid, 0); one gone for the grace period
 * is forgotten, and a lineage no process uses any more (its processes
 * gone or exec'd) is released one grace period later, so memory follows
 * the processes alive or recently gone, not every one seen.
 *
 * A non-root capture opens files as its user (src/common/privs.c): the
 * files and maps it was refused are counted (each file once, by device
 * and inode) and procmaps_report_denied() says so, with the capabilities
 * that would help, rather than leaving [unknown] frames unexplained.
 * A file opened by its path (the process gone, or its mapping not
 * readable) must be the one mapped (device and inode as the maps gave
 * them): one replaced on disk since (an upgrade renames a new build over
 * it) is not read, and reported the same way, since its symbols would
 * name the wrong functions.  (A file rewritten in place keeps its inode:
 * not detected; executables being run cannot be written.)
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "common/htab.h"
#include "common/privs.h"
#include "procmaps.h"
#include "common/util.h"

struct space {
	unsigned int procs;	/* processes using it */
	uint64_t version;	/* unique to these maps */
	struct pmap *maps;	/* sorted by start */
	size_t n;
};

struct lineage {
	unsigned int procs;	/* processes in it */
	void *slot;		/* the caller's (procmaps_slot()) */
	double left;		/* when found unused; 0: not yet */
};

struct proc {
	bool tried;		/* a read was attempted */
	bool reread;		/* re-read after a lookup miss */
	double gone;		/* when found gone; 0: alive */
	struct space *sp;
	struct lineage *ln;
	struct space *osp;	/* before the last exec, or NULL */
	struct lineage *oln;
};

struct procmaps {
	struct htab procs;	/* (tgid, 0) -> struct proc */
	struct lineage **unused; /* lineages no process is in, to release */
	size_t nunused, unusedcap;
	uint64_t versions;	/* versions given so far */
	size_t spaces, lineages, map_bytes;	/* alive (procmaps_counts()) */
	void (*release)(void *slot, void *ctx);
	void *ctx;
};

struct procmaps *procmaps_new(void)
{
	return calloc(1, sizeof(struct procmaps));
}

void procmaps_on_release(struct procmaps *pm, void (*fn)(void *, void *),
			 void *ctx)
{
	pm->release = fn;
	pm->ctx = ctx;
}

static void free_maps(struct pmap *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

/* What maps take: their entries and paths. */
static size_t maps_bytes(const struct pmap *maps, size_t n)
{
	size_t b = n * sizeof(*maps);

	for (size_t i = 0; i < n; i++)
		b += strlen(maps[i].path) + 1;
	return b;
}

static struct space *new_space(struct procmaps *pm)
{
	struct space *sp = calloc(1, sizeof(*sp));

	if (sp) {
		sp->version = ++pm->versions;
		pm->spaces++;
	}
	return sp;
}

static void put_space(struct procmaps *pm, struct space *sp)
{
	if (sp && !--sp->procs) {
		pm->spaces--;
		pm->map_bytes -= maps_bytes(sp->maps, sp->n);
		free_maps(sp->maps, sp->n);
		free(sp);
	}
}

static void free_lineage(struct procmaps *pm, struct lineage *ln)
{
	if (ln->slot && pm->release)
		pm->release(ln->slot, pm->ctx);
	pm->lineages--;
	free(ln);
}

/*
 * One process fewer in ln.  Empty, it is released at a sweep (keys of its
 * processes may still be drained), or now if nothing is kept for it.
 */
static void put_lineage(struct procmaps *pm, struct lineage *ln)
{
	if (!ln || --ln->procs)
		return;
	if (ln->slot && !ow_grow(&pm->unused, &pm->unusedcap, pm->nunused,
				 sizeof(*pm->unused)))
		pm->unused[pm->nunused++] = ln;
	else
		free_lineage(pm, ln);
}

/* p lets go of its maps and lineages. */
static void put_proc(struct procmaps *pm, struct proc *p)
{
	put_space(pm, p->sp);
	put_lineage(pm, p->ln);
	put_space(pm, p->osp);
	put_lineage(pm, p->oln);
}

/*
 * p starts afresh in sp and ln (new ones when NULL: an exec, or a process
 * seen first); 0 or -1 (ENOMEM).
 */
static int restart(struct procmaps *pm, struct proc *p, struct space *sp,
		   struct lineage *ln)
{
	struct space *nsp = sp ? sp : new_space(pm);
	struct lineage *nln = ln ? ln : calloc(1, sizeof(*nln));

	if (!ln && nln)
		pm->lineages++;
	if (!nsp || !nln) {
		if (!sp && nsp) {
			pm->spaces--;
			free(nsp);
		}
		if (!ln && nln) {
			pm->lineages--;
			free(nln);
		}
		return -1;
	}
	nsp->procs++;
	nln->procs++;
	put_proc(pm, p);
	*p = (struct proc){ .sp = nsp, .ln = nln };
	return 0;
}

static void forget(struct procmaps *pm, uint32_t tgid)
{
	struct proc *p = htab_get(&pm->procs, tgid, 0);

	put_proc(pm, p);
	htab_del(&pm->procs, tgid, 0);
	free(p);
}

void procmaps_free(struct procmaps *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->procs.size; i++) {
		struct proc *p = pm->procs.tab[i].val;

		if (p) {
			put_proc(pm, p);
			free(p);
		}
	}
	htab_free(&pm->procs);
	for (size_t i = 0; i < pm->nunused; i++)
		free_lineage(pm, pm->unused[i]);
	free(pm->unused);
	free(pm);
}

/* The process tgid, made (seen first) when new; NULL: ENOMEM. */
static struct proc *get(struct procmaps *pm, uint32_t tgid)
{
	struct proc *p = htab_get(&pm->procs, tgid, 0);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p || restart(pm, p, NULL, NULL) < 0) {
		free(p);
		return NULL;
	}
	if (htab_put(&pm->procs, tgid, 0, p) < 0) {
		put_proc(pm, p);
		free(p);
		return NULL;
	}
	return p;
}

/* The number in hex (base 16) or decimal at *s, followed by the
 * character end (skipped); -1 on anything else. */
static int field(const char **s, int base, char end, unsigned long long *v)
{
	char *e;

	errno = 0;
	*v = strtoull(*s, &e, base);
	if (e == *s || *e != end || errno)
		return -1;
	*s = e + 1;
	return 0;
}

/*
 * One line of /proc/PID/maps, "start-end perms offset major:minor inode
 * path", into m; *exec from perms.  The path (the rest of the line, spaces
 * and all) is copied for executable mappings only (others: NULL).  A
 * parser of its own: sscanf() was 17% of the capture's CPU time at a new
 * process's start (its maps read by each event that may bring new
 * libraries).
 */
static int parse_line(const char *line, struct pmap *m, bool *exec)
{
	unsigned long long start, end, off, maj, min, ino;
	const char *s = line;
	char *e;

	if (field(&s, 16, '-', &start) || field(&s, 16, ' ', &end) ||
	    strnlen(s, 5) < 5 || s[4] != ' ')
		return -1;
	*exec = s[2] == 'x';
	s += 5;
	if (field(&s, 16, ' ', &off) || field(&s, 16, ':', &maj) ||
	    field(&s, 16, ' ', &min))
		return -1;
	errno = 0;
	ino = strtoull(s, &e, 10);	/* then spaces and the path, or none */
	if (e == s || errno || (*e && *e != ' ' && *e != '\n'))
		return -1;
	s = e;
	m->start = start;
	m->end = end;
	m->off = off;
	m->dev = makedev(maj, min);
	m->ino = ino;
	m->path = NULL;
	if (!*exec)
		return 0;
	s += strspn(s, " ");
	m->path = strdup(s);
	if (!m->path)
		return -1;
	m->path[strcspn(m->path, "\n")] = 0;
	return 0;
}

/* What we were refused (one capture per process: file-scope state). */
static struct {
	struct htab files;	/* (dev, ino) of each file refused */
	struct htab procs;	/* (tgid, 0) of each process's maps */
	size_t nfiles, nmaps;
	char file[PATH_MAX];	/* the first file and maps refused */
	char maps[64];
	struct htab changed;	/* (dev, ino) of each file replaced */
	size_t nchanged;
	char first_changed[PATH_MAX];
} denied;

static bool is_denial(int err)
{
	return err == EACCES || err == EPERM;
}

/* Count what was refused once (key (a, b) in seen); keep the first name. */
static void note_denied(struct htab *seen, uint64_t a, uint64_t b,
			size_t *n, char *first, size_t len, const char *name)
{
	static char once;

	if (htab_get(seen, a, b) || htab_put(seen, a, b, &once) < 0)
		return;
	if (!(*n)++)
		snprintf(first, len, "%s", name);
}

/* The executable mappings of tgid (*n of them); NULL when none. */
static struct pmap *read_maps(uint32_t tgid, size_t *n)
{
	char path[64], line[4096 + 128];
	struct pmap *maps = NULL, m;
	size_t cap = 0;
	bool exec;
	FILE *f;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", tgid);
	f = fopen(path, "re");
	if (!f) {
		if (is_denial(errno))
			note_denied(&denied.procs, tgid, 0, &denied.nmaps,
				    denied.maps, sizeof(denied.maps), path);
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		if (parse_line(line, &m, &exec) < 0)
			continue;
		if (!exec || ow_grow(&maps, &cap, *n, sizeof(*maps)) < 0) {
			free(m.path);
			continue;
		}
		maps[(*n)++] = m;
	}
	fclose(f);
	if (!*n) {		/* a zombie, or a kernel thread */
		free(maps);
		return NULL;
	}
	return maps;
}

static bool same_maps(const struct space *sp, const struct pmap *maps,
		      size_t n)
{
	if (sp->n != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct pmap *a = &sp->maps[i], *b = &maps[i];

		if (a->start != b->start || a->end != b->end ||
		    a->off != b->off || a->dev != b->dev || a->ino != b->ino ||
		    strcmp(a->path, b->path))
			return false;
	}
	return true;
}

int procmaps_learn(struct procmaps *pm, uint32_t tgid)
{
	struct proc *p = get(pm, tgid);
	struct pmap *maps;
	size_t n;

	if (!p)
		return -1;
	p->tried = true;
	maps = read_maps(tgid, &n);
	if (!maps)
		return -1;
	if (same_maps(p->sp, maps, n)) {
		free_maps(maps, n);
		return 0;
	}
	/* the others sharing the space keep what they have */
	if (p->sp->procs > 1) {
		struct space *sp = new_space(pm);

		if (!sp) {
			free_maps(maps, n);
			return -1;
		}
		sp->procs = 1;
		put_space(pm, p->sp);
		p->sp = sp;
	}
	pm->map_bytes += maps_bytes(maps, n) - maps_bytes(p->sp->maps, p->sp->n);
	free_maps(p->sp->maps, p->sp->n);
	p->sp->maps = maps;
	p->sp->n = n;
	p->sp->version = ++pm->versions;
	return 0;
}

uint32_t procmaps_tgid(uint32_t tid)
{
	char path[64], line[128];
	unsigned int tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

const struct pmap *procmaps_current(struct procmaps *pm, uint32_t tgid,
				    size_t *n, uint64_t *version)
{
	struct proc *p = htab_get(&pm->procs, tgid, 0);

	if (!p || !p->sp || !p->sp->n) {
		*n = 0;
		return NULL;
	}
	*n = p->sp->n;
	*version = p->sp->version;
	return p->sp->maps;
}

/*
 * Whether fd, opened by m's path (not the mapping itself), is another
 * file than the one mapped: replaced on disk since (an upgrade renames a
 * new file over it).  Its symbols would name the wrong functions.
 */
static bool replaced(int fd, const struct pmap *m, const char *file)
{
	struct stat st;

	if (!m->ino || fstat(fd, &st))
		return false;
	if (st.st_ino == m->ino && st.st_dev == m->dev)
		return false;
	note_denied(&denied.changed, m->dev, m->ino, &denied.nchanged,
		    denied.first_changed, sizeof(denied.first_changed), file);
	return true;
}

size_t procmaps_path_len(const char *path)
{
	size_t len = strlen(path);

	return len > 10 && !strcmp(path + len - 10, " (deleted)") ?
	       len - 10 : len;
}

int procmaps_open(uint32_t tgid, const struct pmap *m)
{
	char path[PATH_MAX + 32], file[PATH_MAX];
	bool refused, by_path;
	int fd;

	/* the path, without " (deleted)": whatever is at the path now is
	 * another file (replaced() says so), or nothing */
	snprintf(file, sizeof(file), "%.*s", (int)procmaps_path_len(m->path),
		 m->path);
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/map_files/%" PRIx64
		 "-%" PRIx64, tgid, m->start, m->end);
	fd = ow_open_file(path);
	refused = fd < 0 && is_denial(errno);
	by_path = fd < 0;	/* not the mapping itself: it may be another */
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%" PRIu32 "/root%s", tgid,
			 file);
		fd = ow_open_file(path);
		refused |= fd < 0 && is_denial(errno);
	}
	if (fd < 0) {
		fd = ow_open_file(file);
		refused |= fd < 0 && is_denial(errno);
	}
	if (fd < 0 && refused)	/* each way refused, or the file gone */
		note_denied(&denied.files, m->dev, m->ino, &denied.nfiles,
			    denied.file, sizeof(denied.file), file);
	if (fd >= 0 && by_path && replaced(fd, m, file)) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

void procmaps_report_denied(void)
{
	if (denied.nmaps)
		fprintf(stderr, OW_PROG ": warning: the maps of %zu processes could not be read (%s: %s): their user frames are [unknown]%s\n",
			denied.nmaps, denied.maps, strerror(EACCES),
			privs_maps_hint());
	if (denied.nfiles)
		fprintf(stderr, OW_PROG ": warning: %zu files mapped by traced processes could not be opened (%s: %s): their frames have no function names (only the file's) and their stacks are walked by frame pointers%s\n",
			denied.nfiles, denied.file, strerror(EACCES),
			privs_files_hint());
	if (denied.nchanged)
		fprintf(stderr, OW_PROG ": warning: %zu files changed on disk since they were mapped (%s: another file is there now): their frames are named [FILE (changed)], not by the new file's symbols\n",
			denied.nchanged, denied.first_changed);
	htab_free(&denied.files);
	htab_free(&denied.procs);
	htab_free(&denied.changed);
	memset(&denied, 0, sizeof(denied));
}

void procmaps_learn_once(struct procmaps *pm, uint32_t tgid)
{
	struct proc *p = get(pm, tgid);

	if (p && !p->tried)
		procmaps_learn(pm, tgid);
}

void procmaps_stale(struct procmaps *pm, uint32_t tgid)
{
	struct proc *p = get(pm, tgid);

	if (p)
		p->tried = false;
}

void procmaps_exec(struct procmaps *pm, uint32_t tgid)
{
	struct proc *p = get(pm, tgid);
	struct space *sp;
	struct lineage *ln;

	if (!p)
		return;
	sp = p->sp;
	ln = p->ln;
	sp->procs++;
	ln->procs++;
	if (restart(pm, p, NULL, NULL) < 0) {
		put_space(pm, sp);
		put_lineage(pm, ln);
		return;
	}
	p->osp = sp;
	p->oln = ln;
}

void procmaps_fork(struct procmaps *pm, uint32_t child, uint32_t parent)
{
	struct proc *p = htab_get(&pm->procs, parent, 0);
	struct proc *c = get(pm, child);

	if (c)
		restart(pm, c, p ? p->sp : NULL, p ? p->ln : NULL);
}

static const struct pmap *lookup(const struct space *sp, uint64_t addr)
{
	size_t i = ow_count_le(sp->maps, sp->n, sizeof(*sp->maps),
			       offsetof(struct pmap, start), addr);

	return i && addr < sp->maps[i - 1].end ? &sp->maps[i - 1] : NULL;
}

/* Whether addr is only in the maps p had before its last exec. */
static bool before_exec(const struct proc *p, uint64_t addr)
{
	return p->osp && !lookup(p->sp, addr) && lookup(p->osp, addr);
}

const struct pmap *procmaps_find(struct procmaps *pm, uint32_t tgid,
				 uint64_t addr)
{
	struct proc *p = get(pm, tgid);
	const struct pmap *m;

	if (!p)
		return NULL;
	procmaps_learn_once(pm, tgid);
	if (before_exec(p, addr))
		return lookup(p->osp, addr);
	m = lookup(p->sp, addr);
	if (!m && !p->reread && !p->gone) {
		p->reread = true;
		if (!procmaps_learn(pm, tgid))
			m = lookup(p->sp, addr);
	}
	return m;
}

void **procmaps_slot(struct procmaps *pm, uint32_t tgid, uint64_t addr,
		     uint64_t *version)
{
	struct proc *p = get(pm, tgid);
	bool old;

	if (!p)
		return NULL;
	procmaps_learn_once(pm, tgid);
	old = before_exec(p, addr);
	*version = (old ? p->osp : p->sp)->version;
	return old ? &p->oln->slot : &p->ln->slot;
}

/* Release the lineages found unused at a sweep grace seconds ago or more. */
static void sweep_unused(struct procmaps *pm, double now, double grace)
{
	size_t n = 0;

	for (size_t i = 0; i < pm->nunused; i++) {
		struct lineage *ln = pm->unused[i];

		if (!ln->left)
			ln->left = now;
		if (now - ln->left >= grace)
			free_lineage(pm, ln);
		else
			pm->unused[n++] = ln;
	}
	pm->nunused = n;
}

void procmaps_sweep(struct procmaps *pm, double now, double grace)
{
	sweep_unused(pm, now, grace);
	for (size_t i = 0; i < pm->procs.size;) {
		struct htab_slot *s = &pm->procs.tab[i];
		struct proc *p = s->val;

		if (p && !p->gone && kill((pid_t)s->a, 0) && errno == ESRCH)
			p->gone = now;
		if (p && p->gone && now - p->gone >= grace) {
			forget(pm, s->a);	/* slot i is refilled: again */
			continue;
		}
		i++;
	}
}

void procmaps_counts(const struct procmaps *pm, size_t *procs,
		     size_t *spaces, size_t *lineages, size_t *bytes)
{
	*procs = pm->procs.used;
	*spaces = pm->spaces;
	*lineages = pm->lineages;
	*bytes = pm->map_bytes + pm->procs.size * sizeof(*pm->procs.tab) +
		 pm->procs.used * sizeof(struct proc) +
		 pm->spaces * sizeof(struct space) +
		 pm->lineages * sizeof(struct lineage);
}

bool procmaps_holds_segment(const struct pmap *m, uint64_t off,
			    uint64_t filesz)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	return m->off >= (off & ~(page - 1)) && m->off < off + filesz;
}
