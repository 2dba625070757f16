// SPDX-License-Identifier: Apache-2.0
/*
 * table_cache.c - unwind tables kept on disk across captures (see
 * table_cache.h).  One file a table, named by a hash of its key: the ELF
 * file's identity and version (device, inode, size, modification and
 * change times, as fstat() gives them) and the identity of this
 * offwake-svg (its executable's size and modification time: another
 * build may compile tables otherwise, so it neither reads nor trusts
 * these).  The file holds the key again (a hash collision is a miss),
 * the table's counts and its rows.  A table read back is checked as the
 * builder leaves them (native_tables.h: pcs strictly increasing, the last
 * row's rule OW_CFA_NONE) and must have the size its header says.
 *
 * The directory is the caller's (root's by default) and must not be
 * writable by anyone else: a table is what the walker believes, so one
 * planted there would give wrong stacks.  Nothing is ever executed from
 * it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include "table_cache.h"

#define MAGIC		"OWUWTAB1"
#define SUFFIX		".uwt"

struct hdr {
	char magic[8];
	uint64_t row_size;
	uint64_t dev, ino, size, mtime_ns, ctime_ns;	/* the ELF file */
	uint64_t self_size, self_mtime_ns;		/* offwake-svg */
	uint64_t base, nrows, nfde, nexpr, nother, nskip, noverlap;
	int64_t debug_frame;
};

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + ts->tv_nsec;
}

/* The key fields of the file open on fd and of this executable. */
static int key_of(int fd, struct hdr *h)
{
	static struct stat self;
	static int self_ok = -1;
	struct stat st;

	if (self_ok < 0)
		self_ok = stat("/proc/self/exe", &self) == 0;
	if (!self_ok || fstat(fd, &st))
		return -1;
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, MAGIC, sizeof(h->magic));
	h->row_size = sizeof(struct ow_urow);
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	h->size = st.st_size;
	h->mtime_ns = ns_of(&st.st_mtim);
	h->ctime_ns = ns_of(&st.st_ctim);
	h->self_size = self.st_size;
	h->self_mtime_ns = ns_of(&self.st_mtim);
	return 0;
}

/* dir/HASH.uwt of the key in h */
static void path_of(char *p, size_t n, const char *dir, const struct hdr *h)
{
	const uint64_t *w = &h->row_size;
	uint64_t x = 0xcbf29ce484222325ull;

	for (size_t i = 0; i <= (size_t)(&h->self_mtime_ns - w); i++)
		x = (x ^ w[i]) * 0x100000001b3ull;
	snprintf(p, n, "%s/%016llx" SUFFIX, dir, (unsigned long long)x);
}

static bool same_key(const struct hdr *a, const struct hdr *b)
{
	return !memcmp(a, b, offsetof(struct hdr, base));
}

/* mkdir -p dir (mode 0700 for what it makes) */
static int make_dir(const char *dir)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return -1;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0700) && errno != EEXIST ? -1 : 0;
}

static char why_off[PATH_MAX + 64];

const char *uw_cache_dir(void)
{
	static char dir[PATH_MAX];
	static int state;	/* 0: not decided, 1: dir, -1: off */
	const char *e = getenv("OFFWAKE_UNWIND_CACHE"), *home;
	struct stat st;
	int n;

	if (state)
		return state > 0 ? dir : NULL;
	state = -1;
	snprintf(why_off, sizeof(why_off), "OFFWAKE_UNWIND_CACHE=off");
	if (e && (!*e || !strcmp(e, "off")))
		return NULL;
	if (e)
		n = snprintf(dir, sizeof(dir), "%s", e);
	else if (geteuid() == 0)
		n = snprintf(dir, sizeof(dir), "/var/cache/offwake-svg/unwind");
	else if ((home = getenv("XDG_CACHE_HOME")) && *home == '/')
		n = snprintf(dir, sizeof(dir), "%s/offwake-svg/unwind", home);
	else if ((home = getenv("HOME")) && *home == '/')
		n = snprintf(dir, sizeof(dir), "%s/.cache/offwake-svg/unwind", home);
	else
		n = 0;
	if (n <= 0 || n >= (int)sizeof(dir)) {
		snprintf(why_off, sizeof(why_off), "no directory for it (set OFFWAKE_UNWIND_CACHE)");
		return NULL;
	}
	if (make_dir(dir) || stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why_off, sizeof(why_off), "%.*s: %s", PATH_MAX, dir,
			 strerror(errno ? errno : ENOTDIR));
		return NULL;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(why_off, sizeof(why_off), "%.*s: not ours alone (owner or mode)",
			 PATH_MAX, dir);
		return NULL;
	}
	state = 1;
	return dir;
}

const char *uw_cache_why(void)
{
	return why_off;
}

/* Whether rows are as the builder leaves them. */
static bool rows_ok(const struct ow_urow *r, size_t n)
{
	if (!n || r[n - 1].cfa != OW_CFA_NONE)
		return false;
	for (size_t i = 1; i < n; i++)
		if (r[i].pc <= r[i - 1].pc)
			return false;
	return true;
}

int uw_cache_get(const char *dir, int fd, struct uw_table *t)
{
	char p[PATH_MAX];
	struct hdr want, h;
	struct stat st;
	struct ow_urow *rows = NULL;
	int cfd;

	if (!dir || key_of(fd, &want))
		return -1;
	path_of(p, sizeof(p), dir, &want);
	cfd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (cfd < 0)
		return -1;
	if (fstat(cfd, &st) || st.st_uid != geteuid() ||
	    read(cfd, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
	    !same_key(&h, &want) || !h.nrows ||
	    h.nrows > (uint64_t)(SIZE_MAX / sizeof(*rows)) ||
	    (uint64_t)st.st_size != sizeof(h) + h.nrows * sizeof(*rows) ||
	    !(rows = malloc(h.nrows * sizeof(*rows))) ||
	    read(cfd, rows, h.nrows * sizeof(*rows)) !=
		    (ssize_t)(h.nrows * sizeof(*rows)) ||
	    !rows_ok(rows, h.nrows)) {
		free(rows);
		close(cfd);
		return -1;
	}
	close(cfd);
	memset(t, 0, sizeof(*t));
	t->base = h.base;
	t->rows = rows;
	t->nrows = h.nrows;
	t->nfde = h.nfde;
	t->nexpr = h.nexpr;
	t->nother = h.nother;
	t->nskip = h.nskip;
	t->noverlap = h.noverlap;
	t->debug_frame = (int)h.debug_frame;
	return 0;
}

/* Bytes the directory's tables take (its *.uwt files). */
static uint64_t dir_bytes(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	uint64_t sum = 0;
	size_t n;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		n = strlen(de->d_name);
		if (n > strlen(SUFFIX) &&
		    !strcmp(de->d_name + n - strlen(SUFFIX), SUFFIX) &&
		    !fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			sum += st.st_size;
	}
	closedir(d);
	return sum;
}

bool uw_cache_put(const char *dir, int fd, const struct uw_table *t)
{
	static uint64_t used = UINT64_MAX;	/* bytes in dir, once read */
	char p[PATH_MAX], tmp[PATH_MAX + 32];
	size_t len;
	struct hdr h;
	bool ok;
	int cfd;

	if (!dir || !t->nrows || key_of(fd, &h))
		return false;
	len = sizeof(h) + t->nrows * sizeof(*t->rows);
	if (used == UINT64_MAX)
		used = dir_bytes(dir);
	if (used + len > (uint64_t)UW_CACHE_MAX_MB << 20)
		return false;
	h.base = t->base;
	h.nrows = t->nrows;
	h.nfde = t->nfde;
	h.nexpr = t->nexpr;
	h.nother = t->nother;
	h.nskip = t->nskip;
	h.noverlap = t->noverlap;
	h.debug_frame = t->debug_frame;
	path_of(p, sizeof(p), dir, &h);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", p, (int)getpid());
	cfd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		   0600);
	if (cfd < 0)
		return false;
	ok = write(cfd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
	     write(cfd, t->rows, t->nrows * sizeof(*t->rows)) ==
		     (ssize_t)(t->nrows * sizeof(*t->rows));
	ok = !close(cfd) && ok && !rename(tmp, p);
	if (!ok)
		unlink(tmp);
	else
		used += len;
	return ok;
}
