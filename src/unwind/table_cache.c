// SPDX-License-Identifier: Apache-2.0
/*
 * table_cache.c - unwind tables kept on disk across captures (see
 * table_cache.h).  One file a table, named by a hash of its key: the ELF
 * file's identity and version (device, inode, size, modification and
 * change times, as fstat() gives them) and the identity of this
 * offwake-svg (its executable's size and modification time: another
 * build may compile tables otherwise, so it neither reads nor trusts
 * these).  The file holds the key again (a hash collision is a miss),
 * the table's counts, a CRC-32 of the whole and its rows.  A table read
 * back must be one the builder could have made for the file
 * (uw_table_check(): rows in order, each rule's fields in range, pcs in
 * the file's text), or it is refused, counted and built again.
 *
 * The directory is the caller's (root's by default) and must not be
 * writable by anyone else: a table is what the walker believes, so one
 * planted there would give wrong stacks.  Its path is walked once, a
 * component at a time, a symbolic link followed only when root's or ours
 * (another user's, in a shared directory on the way, could send root's
 * writes anywhere), and the directory is then held open: every file is
 * reached from it, without following a link at its name or waiting on a
 * FIFO there.  Nothing is ever executed from it.
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
#include <zlib.h>
#include "table_cache.h"
#include "common/util.h"

#define MAGIC		"OWUWTAB2"
#define SUFFIX		".uwt"
#define MAX_LINKS	40	/* symbolic links followed in the path */

struct hdr {
	char magic[8];
	uint64_t row_size;
	uint64_t dev, ino, size, mtime_ns, ctime_ns;	/* the ELF file */
	uint64_t self_size, self_mtime_ns;		/* offwake-svg */
	uint64_t base, nrows, nfde, nexpr, nother, nskip, noverlap;
	int64_t debug_frame;
	uint64_t crc;	/* crc32() of the header (this 0) and the rows */
};

const char *const uw_cache_got_name[UW_CACHE_GOT_N] = {
	[UW_CACHE_NOT_REG] = "not a regular file",
	[UW_CACHE_NOT_OURS] = "not ours",
	[UW_CACHE_SIZE] = "not its header's size",
	[UW_CACHE_UNREAD] = "unreadable",
	[UW_CACHE_CRC] = "checksum",
	[UW_CACHE_ORDER] = "rows out of order",
	[UW_CACHE_RULE] = "a rule out of range",
	[UW_CACHE_TEXT] = "a pc outside the file's text",
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

/* HASH.uwt of the key in h */
static void name_of(char *p, size_t n, const struct hdr *h)
{
	const uint64_t *w = &h->row_size;
	uint64_t x = 0xcbf29ce484222325ull;

	for (size_t i = 0; i <= (size_t)(&h->self_mtime_ns - w); i++)
		x = (x ^ w[i]) * 0x100000001b3ull;
	snprintf(p, n, "%016llx" SUFFIX, (unsigned long long)x);
}

static bool same_key(const struct hdr *a, const struct hdr *b)
{
	return !memcmp(a, b, offsetof(struct hdr, base));
}

/* The CRC-32 of h (its crc taken as 0) and n rows. */
static uint64_t crc_of(const struct hdr *h, const struct ow_urow *rows, size_t n)
{
	struct hdr z = *h;
	uLong c;

	z.crc = 0;
	c = crc32(0L, (const Bytef *)&z, sizeof(z));
	for (size_t done = 0, k; done < n; done += k) {	/* uInt lengths */
		k = n - done < (1u << 26) ? n - done : (1u << 26);
		c = crc32(c, (const Bytef *)(rows + done), k * sizeof(*rows));
	}
	return c;
}

static char why_off[PATH_MAX + 96];
static int dir_fd = -1;

static int open_dir(int at, const char *path, int depth, bool last);

/*
 * name in the directory open on at, as a directory (made when missing:
 * mode 0700 when last, the cache itself, else 0755).  A symbolic link is
 * followed only when root's or ours, read as the one inode it is (O_PATH,
 * fstat, readlinkat: not swapped between the check and the read), its
 * target walked by the same rules.  An fd, or -1 with errno and why_off.
 */
static int open_step(int at, const char *name, int depth, bool last)
{
	const int fl = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	char *target;
	struct stat st;
	ssize_t n;
	int fd = openat(at, name, fl), lfd;

	if (fd < 0 && errno == ENOENT) {
		if (mkdirat(at, name, last ? 0700 : 0755) && errno != EEXIST)
			return -1;
		fd = openat(at, name, fl);
	}
	if (fd >= 0 || (errno != ELOOP && errno != ENOTDIR))
		return fd;
	lfd = openat(at, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (lfd < 0)
		return -1;
	if (fstat(lfd, &st) || !S_ISLNK(st.st_mode)) {
		close(lfd);
		errno = ENOTDIR;
		return -1;
	}
	if (st.st_uid && st.st_uid != geteuid()) {
		close(lfd);
		snprintf(why_off, sizeof(why_off), "%.*s: a symbolic link of uid %u's on the way (not followed)",
			 PATH_MAX, name, (unsigned)st.st_uid);
		errno = EPERM;
		return -1;
	}
	if (depth >= MAX_LINKS || !(target = malloc(PATH_MAX))) {
		close(lfd);
		errno = depth >= MAX_LINKS ? ELOOP : ENOMEM;
		return -1;
	}
	n = readlinkat(lfd, "", target, PATH_MAX);
	close(lfd);
	if (n <= 0 || n >= PATH_MAX) {
		free(target);
		errno = n < 0 ? errno : ENAMETOOLONG;
		return -1;
	}
	target[n] = 0;
	fd = open_dir(at, target, depth + 1, last);
	free(target);
	return fd;
}

/* path (from at; absolute: from /) as a directory, one component at a
 * time (open_step()); last: path ends at the cache itself. */
static int open_dir(int at, const char *path, int depth, bool last)
{
	char name[NAME_MAX + 1];
	const char *s = path, *e;
	int cur, fd;

	cur = openat(at, *path == '/' ? "/" : ".",
		     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (cur >= 0) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchrnul(s, '/');
		if (e - s > NAME_MAX) {
			close(cur);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(name, s, e - s);
		name[e - s] = 0;
		s = e;
		if (!strcmp(name, "."))
			continue;
		fd = open_step(cur, name, depth, last && !s[strspn(s, "/")]);
		close(cur);
		cur = fd;
	}
	return cur;
}

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
	why_off[0] = 0;
	errno = 0;
	dir_fd = open_dir(AT_FDCWD, dir, 0, true);
	if (dir_fd < 0) {
		char step[PATH_MAX + 96];

		if (why_off[0])
			snprintf(step, sizeof(step), "%s", why_off);
		else
			snprintf(step, sizeof(step), "%s", strerror(errno ? errno : ENOTDIR));
		snprintf(why_off, sizeof(why_off), "%.*s: %.*s", PATH_MAX / 2,
			 dir, PATH_MAX / 2, step);
		return NULL;
	}
	if (fstat(dir_fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(why_off, sizeof(why_off), "%.*s: not ours alone (owner or mode)",
			 PATH_MAX, dir);
		close(dir_fd);
		dir_fd = -1;
		return NULL;
	}
	state = 1;
	return dir;
}

int uw_cache_fd(void)
{
	return uw_cache_dir() ? dir_fd : -1;
}

const char *uw_cache_why(void)
{
	return why_off;
}

/* Read n bytes into p (a regular file's: short only at its end). */
static bool read_all(int fd, void *p, size_t n)
{
	for (ssize_t k; n; n -= k, p = (char *)p + k)
		if ((k = read(fd, p, n)) <= 0)
			return false;
	return true;
}

/* The header and rows of the file open on cfd into h and *rows, checked
 * as a file (not the rows' meaning): UW_CACHE_HIT or why not. */
static enum uw_cache_got read_table(int cfd, const struct hdr *want,
				    struct hdr *h, struct ow_urow **rows)
{
	struct stat st;
	size_t len;

	if (fstat(cfd, &st))
		return UW_CACHE_UNREAD;
	if ((uint64_t)st.st_size < sizeof(*h) ||
	    (uint64_t)st.st_size > (uint64_t)UW_CACHE_MAX_MB << 20)
		return UW_CACHE_SIZE;
	if (!read_all(cfd, h, sizeof(*h)))
		return UW_CACHE_UNREAD;
	if (!same_key(h, want))
		return UW_CACHE_MISS;	/* a hash collision, or not ours to know */
	if (!h->nrows || h->nrows > (st.st_size - sizeof(*h)) / sizeof(**rows) ||
	    (uint64_t)st.st_size != sizeof(*h) + h->nrows * sizeof(**rows))
		return UW_CACHE_SIZE;
	len = h->nrows * sizeof(**rows);
	if (!(*rows = malloc(len)))
		return UW_CACHE_MISS;	/* (built instead: it may fail there) */
	if (!read_all(cfd, *rows, len))
		return UW_CACHE_UNREAD;
	if (h->crc != crc_of(h, *rows, h->nrows))
		return UW_CACHE_CRC;
	if ((uint64_t)h->debug_frame > 1)
		return UW_CACHE_RULE;
	return UW_CACHE_HIT;
}

enum uw_cache_got uw_cache_get(int dfd, int fd, struct uw_table *t)
{
	static const enum uw_cache_got of_rows[] = {
		[UW_ROWS_OK] = UW_CACHE_HIT, [UW_ROWS_ORDER] = UW_CACHE_ORDER,
		[UW_ROWS_RULE] = UW_CACHE_RULE, [UW_ROWS_TEXT] = UW_CACHE_TEXT,
	};
	char name[32];
	struct hdr want, h;
	struct ow_urow *rows = NULL;
	enum uw_cache_got got;
	int cfd;

	if (dfd < 0 || key_of(fd, &want))
		return UW_CACHE_MISS;
	name_of(name, sizeof(name), &want);
	cfd = ow_open_ours_at(dfd, name);
	if (cfd < 0)
		return errno == ENOENT ? UW_CACHE_MISS :
		       errno == EPERM ? UW_CACHE_NOT_OURS :
		       errno == EINVAL || errno == ELOOP ? UW_CACHE_NOT_REG :
		       UW_CACHE_UNREAD;
	got = read_table(cfd, &want, &h, &rows);
	close(cfd);
	if (got == UW_CACHE_HIT) {
		memset(t, 0, sizeof(*t));
		t->base = h.base;
		t->rows = rows;
		t->nrows = h.nrows;
		got = of_rows[uw_table_check(fd, t)];
	}
	if (got != UW_CACHE_HIT) {
		free(rows);
		memset(t, 0, sizeof(*t));
		return got;
	}
	t->nfde = h.nfde;
	t->nexpr = h.nexpr;
	t->nother = h.nother;
	t->nskip = h.nskip;
	t->noverlap = h.noverlap;
	t->debug_frame = (int)h.debug_frame;
	return UW_CACHE_HIT;
}

/* Bytes the directory's tables take (its *.uwt files). */
static uint64_t dir_bytes(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	struct stat st;
	uint64_t sum = 0;
	size_t n;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		n = strlen(de->d_name);
		if (n > strlen(SUFFIX) &&
		    !strcmp(de->d_name + n - strlen(SUFFIX), SUFFIX) &&
		    !fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			sum += st.st_size;
	}
	closedir(d);
	return sum;
}

bool uw_cache_put(int dfd, int fd, const struct uw_table *t)
{
	static uint64_t used = UINT64_MAX;	/* bytes in dir, once read */
	static unsigned seq;			/* temporary files made */
	char name[32], tmp[64];
	size_t len;
	struct hdr h;
	bool ok;
	int cfd;

	if (dfd < 0 || !t->nrows || key_of(fd, &h))
		return false;
	len = sizeof(h) + t->nrows * sizeof(*t->rows);
	if (used == UINT64_MAX)
		used = dir_bytes(dfd);
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
	h.crc = crc_of(&h, t->rows, t->nrows);
	name_of(name, sizeof(name), &h);
	snprintf(tmp, sizeof(tmp), "%s.%d.%u.tmp", name, (int)getpid(), seq++);
	cfd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		     O_NOFOLLOW, 0600);
	if (cfd < 0)
		return false;
	ok = write(cfd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
	     write(cfd, t->rows, t->nrows * sizeof(*t->rows)) ==
		     (ssize_t)(t->nrows * sizeof(*t->rows));
	ok = !close(cfd) && ok && !renameat(dfd, tmp, dfd, name);
	if (!ok)
		unlinkat(dfd, tmp, 0);
	else
		used += len;
	return ok;
}
