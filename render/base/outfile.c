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
 */
#include "outfile.h"
#include "errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* The file a chain of symbolic links ends at (which may not exist). */
static char *resolve_links(const char *name)
{
	char *p = strdup(name);
	struct stat st;

	for (int hops = 0; p; hops++) {
		if (lstat(p, &st) || !S_ISLNK(st.st_mode))
			return p;
		if (hops == 40) {
			free(p);
			errno = ELOOP;
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
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
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
	if (stat(name, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return fail_open(o, -1, EISDIR, NULL);
		if (flags & OW_OUT_NOFOLLOW)
			return fail_open(o, -1, EINVAL, "not a regular file");
		/* a device, FIFO or socket: written in place */
		fd = S_ISSOCK(st.st_mode) ? open_socket(name) :
		     open(name, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 || !(o->f = fdopen(fd, "w")))
			return fail_open(o, fd, errno, NULL);
		o->direct = 1;
		return 0;
	}
	if (!(o->path = resolve_links(name)))
		return fail_open(o, -1, errno, NULL);
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

const char *ow_outfile_strerror(const struct ow_outfile *o, int err)
{
	return o->why ? o->why : ow_strerror(err);
}
