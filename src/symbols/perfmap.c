// SPDX-License-Identifier: Apache-2.0
/*
 * perfmap.c - JIT symbols: the "START SIZE NAME" lines (hex) that runtimes
 * such as the JVM, V8 or LuaJIT write to /tmp/perf-PID.map.  The file is
 * looked for in the process's own /tmp (through /proc/PID/root, so
 * processes in containers are found), then, only when there is none
 * there, in our /tmp.  It is the traced user's, so it is opened as that
 * user (setfsuid/setfsgid to the process's effective ids: a file that
 * user cannot read, bind-mounted over the path in a mount namespace of
 * its own, is not read by us either), not through a symbolic link at its
 * end, only when a regular file (a FIFO planted there cannot block us),
 * and only when owned by the process's user (for a root process: root):
 * a map owned by anyone else would put names of its choosing into the
 * graph.  A refused map is remembered (not opened again) and said once,
 * with why, by perfmaps_report().  At most MAP_BYTES of a map are read
 * and MAP_SYMS lines kept (the rest counted); a line longer than LINE_MAX
 * is skipped whole.
 *
 * Runtimes add lines while they run: a lookup that finds no symbol reads
 * what was added since (at most every RECHECK_MS per map; the whole map
 * again when it was replaced or shrank), so code compiled during the
 * capture is named too; a line not yet ended is left for the next read.
 * Processes without a map are not remembered (a fork storm would make a
 * long list): the caller caches the names it got.  A map is let go once
 * its process has been gone for GONE_SWEEPS sweeps (perfmaps_sweep()):
 * its keys have been symbolised by then, and a runtime that starts and
 * stops JIT processes all day would otherwise keep every one it ever ran
 * (and a reused pid would take the old map's names).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perfmap.h"
#include "common/util.h"

#define GONE_SWEEPS	5
#define RECHECK_MS	500		/* a map read again at most so often */
#define MAP_BYTES	(256u << 20)	/* of one map read */
#define MAP_SYMS	(4u << 20)	/* of one map kept */
#define JLINE_MAX	4096		/* a line's bytes */
#define NO_ID		((uint32_t)-1)

struct jsym {
	uint64_t start, size;
	uint64_t seq;		/* its line's number: a later one wins */
	char *name;
};

struct jmap {
	uint32_t tgid;
	uint32_t uid, gid;	/* the process's (effective), or NO_ID */
	unsigned gone;		/* sweeps that found the process gone */
	bool refused;		/* its map is not ours to read */
	bool skipping;		/* in a line too long, to its end */
	bool capped;		/* MAP_BYTES read (the rest counted once) */
	struct jsym *syms;	/* sorted by start, then seq */
	size_t n, cap;
	uint64_t dev, ino, off;	/* the file read, and how far */
	double checked;		/* ow_now_ms() of the last read */
};

struct perfmaps {
	struct jmap *maps;
	size_t n, cap;
	uint64_t refused, lines_lost;
	double final;		/* the first perfmaps_name_now(), or 0 */
	char why[160];		/* the first map refused, and why */
};

struct perfmaps *perfmaps_new(void)
{
	return calloc(1, sizeof(struct perfmaps));
}

static void free_syms(struct jmap *m)
{
	for (size_t j = 0; j < m->n; j++)
		free(m->syms[j].name);
	free(m->syms);
	m->syms = NULL;
	m->n = m->cap = 0;
}

void perfmaps_free(struct perfmaps *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free_syms(&p->maps[i]);
	free(p->maps);
	free(p);
}

void perfmaps_sweep(struct perfmaps *p)
{
	for (size_t i = 0; i < p->n;) {
		struct jmap *m = &p->maps[i];

		if (!kill((pid_t)m->tgid, 0) || errno != ESRCH)
			m->gone = 0;
		else if (++m->gone >= GONE_SWEEPS) {
			free_syms(m);
			*m = p->maps[--p->n];
			continue;
		}
		i++;
	}
}

static int cmp_jsym(const void *a, const void *b)
{
	const struct jsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The effective uid and gid of a live process (m->uid, m->gid); left as
 * they were when it is gone. */
static void process_ids(struct jmap *m)
{
	unsigned int r, e;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", m->tgid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %u %u", &r, &e) == 2)
			m->uid = e;
		else if (sscanf(line, "Gid: %u %u", &r, &e) == 2)
			m->gid = e;
	}
	fclose(f);
}

/* Refuse m's map at path: remembered, counted, the first one said. */
static int refuse(struct perfmaps *p, struct jmap *m, const char *path,
		  const char *why)
{
	m->refused = true;
	free_syms(m);
	if (!p->refused++)
		snprintf(p->why, sizeof(p->why), "%s: %s", path, why);
	return -1;
}

/*
 * path opened as m's process would (its fsuid and fsgid, when we know
 * them), then kept only when owned by its user (root for a root process;
 * for a process gone before we knew its user, root or us).  The file, or
 * -1: errno ENOENT when there is none (m->refused when there is one we
 * must not read).
 */
static int open_as(struct perfmaps *p, struct jmap *m, const char *path)
{
	bool known = m->uid != NO_ID && m->gid != NO_ID;
	uid_t ou = 0;
	gid_t og = 0;
	struct stat st = { 0 };
	char why[96];
	int fd, err;

	if (known) {
		og = setfsgid(m->gid);
		ou = setfsuid(m->uid);
	}
	fd = ow_open_owned(path, known ? m->uid : 0);
	err = errno;
	if (known) {
		setfsuid(ou);
		setfsgid(og);
	}
	if (fd < 0) {
		if (err == ENOENT || err == ENOTDIR || err == ESRCH) {
			errno = ENOENT;
			return -1;
		}
		if (err == ELOOP)
			snprintf(why, sizeof(why), "a symbolic link");
		else if (err == EINVAL)
			snprintf(why, sizeof(why), "not a regular file");
		else if (err == EPERM)
			snprintf(why, sizeof(why), "owned by another user than the process's (uid %" PRIu32 ")",
				 m->uid);
		else
			snprintf(why, sizeof(why), "%s as the process's user (uid %" PRIu32 ")",
				 strerror(err), m->uid);
		return refuse(p, m, path, why);
	}
	if (fstat(fd, &st) || (known ? st.st_uid != m->uid :
			       st.st_uid && st.st_uid != geteuid())) {
		close(fd);
		snprintf(why, sizeof(why), "owned by uid %lu, not by the process's user (uid %" PRIu32 ")",
			 (unsigned long)st.st_uid, m->uid);
		return refuse(p, m, path, why);
	}
	return fd;
}

/* m's map: in the process's /tmp, else (none there) in ours. */
static int open_map(struct perfmaps *p, struct jmap *m)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/root/tmp/perf-%" PRIu32
		 ".map", m->tgid, m->tgid);
	fd = open_as(p, m, path);
	if (fd < 0 && errno == ENOENT && !m->refused) {
		snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", m->tgid);
		fd = open_as(p, m, path);
	}
	return fd;
}

/* One "START SIZE NAME" line into m; false when it is not one. */
static bool add_line(struct perfmaps *p, struct jmap *m, char *line,
		     uint64_t seq)
{
	unsigned long long start, size;
	int pos = 0;
	char *name;

	if (sscanf(line, "%llx %llx %n", &start, &size, &pos) < 2 || !pos)
		return false;
	if (m->n >= MAP_SYMS || ow_grow(&m->syms, &m->cap, m->n, sizeof(*m->syms)) < 0 ||
	    !(name = strdup(line + pos))) {
		p->lines_lost++;
		return true;
	}
	m->syms[m->n++] = (struct jsym){ start, size, seq, name };
	return true;
}

/* The lines of f from m->off on (ended ones only: the runtime may be
 * writing the last), into m. */
static void read_lines(struct perfmaps *p, struct jmap *m, FILE *f)
{
	char line[JLINE_MAX];
	size_t n0 = m->n;
	off_t at;

	while (m->off < MAP_BYTES && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		bool ended = len && line[len - 1] == '\n';

		if ((!ended && feof(f)) || (at = ftello(f)) < 0)
			break;		/* not yet written whole */
		m->off = (uint64_t)at;
		if (m->skipping || !ended) {
			if (!m->skipping)
				p->lines_lost++;
			m->skipping = !ended;
			continue;
		}
		line[len - 1] = 0;
		add_line(p, m, line, m->off);
	}
	if (m->off >= MAP_BYTES && !m->capped && fgetc(f) != EOF) {
		m->capped = true;
		p->lines_lost++;	/* (one for all the rest) */
	}
	if (m->n > n0)
		qsort(m->syms, m->n, sizeof(*m->syms), cmp_jsym);
}

/* Read what m's map has that we have not: all of it when it is another
 * file or shorter than what we read. */
static void refresh(struct perfmaps *p, struct jmap *m)
{
	int fd = open_map(p, m);
	struct stat st;
	FILE *f;

	m->checked = ow_now_ms();
	if (fd < 0)
		return;
	if (fstat(fd, &st)) {
		close(fd);
		return;
	}
	if (st.st_dev != m->dev || st.st_ino != m->ino ||
	    (uint64_t)st.st_size < m->off) {
		free_syms(m);
		m->dev = st.st_dev;
		m->ino = st.st_ino;
		m->off = 0;
		m->skipping = m->capped = false;
	}
	if ((uint64_t)st.st_size == m->off ||
	    lseek(fd, (off_t)m->off, SEEK_SET) < 0 || !(f = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	read_lines(p, m, f);
	fclose(f);
}

static const char *find_sym(const struct jmap *m, uint64_t addr)
{
	size_t lo = ow_count_le(m->syms, m->n, sizeof(*m->syms),
				offsetof(struct jsym, start), addr);

	if (lo && addr < m->syms[lo - 1].start + m->syms[lo - 1].size)
		return m->syms[lo - 1].name;
	return NULL;
}

/* tgid's map, read for the first time when new (NULL: it has none). */
static struct jmap *get_map(struct perfmaps *p, uint32_t tgid)
{
	struct jmap *m;

	for (size_t i = 0; i < p->n; i++)
		if (p->maps[i].tgid == tgid)
			return &p->maps[i];
	if (ow_grow(&p->maps, &p->cap, p->n, sizeof(*p->maps)) < 0)
		return NULL;
	m = &p->maps[p->n];
	*m = (struct jmap){ .tgid = tgid, .uid = NO_ID, .gid = NO_ID };
	process_ids(m);
	refresh(p, m);
	if (!m->n && !m->refused && !m->ino) {
		free_syms(m);
		return NULL;	/* none: not remembered */
	}
	p->n++;
	return m;
}

/* The name at addr in tgid's map, which is read again on a miss if it
 * was last read before the time since (ow_now_ms()). */
static const char *lookup(struct perfmaps *p, uint32_t tgid, uint64_t addr,
			  double since)
{
	struct jmap *m = get_map(p, tgid);
	const char *name;

	if (!m || m->refused)
		return NULL;
	name = find_sym(m, addr);
	if (!name && m->checked < since) {
		refresh(p, m);
		name = m->refused ? NULL : find_sym(m, addr);
	}
	return name;
}

const char *perfmaps_name(struct perfmaps *p, uint32_t tgid, uint64_t addr)
{
	return lookup(p, tgid, addr, ow_now_ms() - RECHECK_MS);
}

const char *perfmaps_name_now(struct perfmaps *p, uint32_t tgid,
			      uint64_t addr)
{
	if (!p->final)
		p->final = ow_now_ms();	/* each map read once more */
	return lookup(p, tgid, addr, p->final);
}

bool perfmaps_has(struct perfmaps *p, uint32_t tgid)
{
	struct jmap *m = get_map(p, tgid);

	return m && !m->refused;
}

void perfmaps_report(const struct perfmaps *p)
{
	if (p->refused)
		fprintf(stderr, OW_PROG ": warning: %" PRIu64 " perf maps not read (%s): their JIT frames are not named by them\n",
			p->refused, p->why);
	if (p->lines_lost)
		fprintf(stderr, OW_PROG ": warning: %" PRIu64 " perf map lines not used: over %u bytes, or past a map's %u lines or %u MB\n",
			p->lines_lost, JLINE_MAX, MAP_SYMS, MAP_BYTES >> 20);
}

void perfmaps_counts(const struct perfmaps *p, size_t *maps, size_t *bytes)
{
	size_t b = p->cap * sizeof(*p->maps);

	for (size_t i = 0; i < p->n; i++) {
		b += p->maps[i].cap * sizeof(struct jsym);
		for (size_t j = 0; j < p->maps[i].n; j++)
			b += strlen(p->maps[i].syms[j].name) + 1;
	}
	*maps = p->n;
	*bytes = b;
}
