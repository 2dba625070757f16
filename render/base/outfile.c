// SPDX-License-Identifier: Apache-2.0
/*
 * outfile.c - writing a named output file safely: every writer of the
 * tool (the capture's -o FILE, convert's -o, --cp's palette.map) goes
 * through here.  In base/ because the renderer and the capture side both
 * need it, and render/ may not depend on src/.
 *
 * Only a regular file (or a new name) is replaced atomically: the output
 * goes to a temporary file in the same directory, unnamed (O_TMPFILE)
 * where the file system allows, so that no signal, not even SIGKILL,
 * leaves it behind, and named (NAME.XXXXXX) otherwise; it is linked or
 * renamed into place only when complete.  A device, FIFO or socket is
 * written directly (opening a FIFO waits for its reader, as a shell's
 * redirection does): `-o /dev/null` must not replace /dev/null by a
 * regular file.  A symbolic link is written through (its target, or the
 * missing file it names, is replaced atomically in the target's
 * directory), or, with OW_OUT_NOFOLLOW, refused.
 *
 * The links are followed here, not by the kernel, so fs.protected_symlinks
 * would not apply: its rule is applied to each link of the chain instead
 * (whatever the sysctl says), and a link another user made in a sticky
 * world-writable directory (/tmp) is refused; root writing -o
 * /tmp/NAME must not replace the file a user's link there names.  The
 * file found is then replaced by name (rename does not follow a link
 * made meanwhile) or opened O_NOFOLLOW.
 */
#include "outfile.h"
#include "errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static const char not_followed[] =
	"a symbolic link another user owns in a sticky world-writable directory (not followed)";

/* The directory path is in ("." for a bare name), or NULL (ENOMEM). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) :
		       strdup(".");
}

/*
 * Whether the link p (lnk: its lstat) may be followed, by the kernel's
 * protected_symlinks rule: yes unless its directory is sticky and
 * world-writable, there only when the link is ours or the directory
 * owner's.
 */
static bool may_follow(const char *p, const struct stat *lnk)
{
	char *dir = dir_of(p);
	struct stat d;
	bool ok = dir && !stat(dir, &d) &&
		  ((d.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH) ||
		   lnk->st_uid == geteuid() || lnk->st_uid == d.st_uid);

	free(dir);
	return ok;
}

/* The file a chain of symbolic links ends at (which may not exist), or
 * NULL with errno (and *why when a link may not be followed). */
static char *resolve_links(const char *name, const char **why)
{
	char *p = strdup(name);
	struct stat st;

	for (int hops = 0; p; hops++) {
		if (lstat(p, &st) || !S_ISLNK(st.st_mode))
			return p;
		if (hops == 40 || !may_follow(p, &st)) {
			if (hops < 40)
				*why = not_followed;
			free(p);
			errno = hops == 40 ? ELOOP : EACCES;
			return NULL;
		}
		char link[PATH_MAX];
		ssize_t n = readlink(p, link, sizeof(link) - 1);
		if (n < 0) {
			free(p);
			return NULL;
		}
		link[n] = 0;
		char *slash = strrchr(p, '/'), *next;
		if (link[0] == '/' || !slash)
			next = strdup(link);
		else if (asprintf(&next, "%.*s/%s", (int)(slash - p), p, link) < 0)
			next = NULL;
		free(p);
		p = next;
	}
	errno = ENOMEM;
	return NULL;
}

/* A connected stream to a listening UNIX socket. */
static int open_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* An unnamed file in path's directory (O_TMPFILE), or -1. */
static int open_unnamed(const char *path)
{
#ifdef O_TMPFILE
	char *dir = dir_of(path);
	int fd = dir ? open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666) : -1;

	free(dir);
	return fd;
#else
	(void)path;
	errno = EOPNOTSUPP;
	return -1;
#endif
}

static int fail_open(struct ow_outfile *o, int fd, int err, const char *why)
{
	if (fd >= 0)
		close(fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	o->why = why;
	errno = err;
	return -1;
}

int ow_outfile_open(struct ow_outfile *o, const char *name, int flags)
{
	struct stat st;
	int fd = -1;

	memset(o, 0, sizeof(*o));
	if (lstat(name, &st) == 0 && S_ISLNK(st.st_mode) && (flags & OW_OUT_NOFOLLOW))
		return fail_open(o, -1, ELOOP, "a symbolic link (not followed)");
	if (!(o->path = resolve_links(name, &o->why)))
		return fail_open(o, -1, errno, o->why);
	if (lstat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return fail_open(o, -1, EISDIR, NULL);
		if (flags & OW_OUT_NOFOLLOW)
			return fail_open(o, -1, EINVAL, "not a regular file");
		/* a device, FIFO or socket: written in place (a link
		 * made there meanwhile is not followed) */
		fd = S_ISSOCK(st.st_mode) ? open_socket(o->path) :
		     S_ISLNK(st.st_mode) ? (errno = ELOOP, -1) :
		     open(o->path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
		if (fd < 0 || !(o->f = fdopen(fd, "w")))
			return fail_open(o, fd, errno, NULL);
		o->direct = 1;
		return 0;
	}
	if ((flags & OW_OUT_WRITABLE) && access(o->path, W_OK) && errno != ENOENT)
		return fail_open(o, -1, errno, NULL);
	fd = open_unnamed(o->path);
	if (fd < 0) {
		if (asprintf(&o->tmp, "%s.XXXXXX", o->path) < 0) {
			o->tmp = NULL;
			return fail_open(o, -1, ENOMEM, NULL);
		}
		fd = mkostemp(o->tmp, O_CLOEXEC);
		if (fd < 0)
			return fail_open(o, -1, errno, NULL);
	}
	if (!(o->f = fdopen(fd, "w")))
		return fail_open(o, fd, errno, NULL);
	return 0;
}

/* Give the unnamed file fd a name in place of o->path: linked under a
 * temporary name, then renamed (a link cannot replace a file). */
static int link_unnamed(struct ow_outfile *o, int fd)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (asprintf(&o->tmp, "%s.XXXXXX", o->path) < 0) {
		o->tmp = NULL;
		errno = ENOMEM;
		return -1;
	}
	size_t len = strlen(o->tmp);
	for (int tries = 0; tries < 100; tries++) {
		static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
		unsigned long r = (unsigned long)random() ^ ((unsigned long)getpid() << 8) ^ tries;
		for (int i = 0; i < 6; i++, r /= 62)
			o->tmp[len - 6 + i] = chars[r % 62];
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) ||
		    (errno == ENOENT && !linkat(fd, "", AT_FDCWD, o->tmp, AT_EMPTY_PATH)))
			return 0;
		if (errno != EEXIST)
			break;
	}
	free(o->tmp);
	o->tmp = NULL;
	return -1;
}

int ow_outfile_close(struct ow_outfile *o, int keep)
{
	int err = 0, fd = fileno(o->f), unnamed = !o->direct && !o->tmp;
	mode_t mask;

	if (keep && (fflush(o->f) || ferror(o->f)))
		err = errno ? errno : EIO;
	if (keep && !err && !o->direct) {
		mask = umask(0);
		umask(mask);
		if (fsync(fd) || fchmod(fd, 0666 & ~mask))
			err = errno;
		else if (unnamed && link_unnamed(o, fd))
			err = errno;
	}
	if (fclose(o->f) && keep && !err)
		err = errno;
	if (keep && !err && o->tmp && rename(o->tmp, o->path))
		err = errno;
	if (o->tmp && (err || !keep))
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->f = NULL;
	o->tmp = o->path = NULL;
	errno = err;
	return err ? -1 : 0;
}

int ow_outfile_append(const char *name, const char **why)
{
	char *p;
	int fd;

	*why = NULL;
	if (!(p = resolve_links(name, why)))
		return -1;
	fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW,
		  0666);
	free(p);
	return fd;
}

const char *ow_outfile_strerror(const struct ow_outfile *o, int err)
{
	return o->why ? o->why : ow_strerror(err);
}
