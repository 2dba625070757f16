/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nameattr.c - reading --nameattr files and reading/writing palette.map,
 * with flamegraph.pl's splitting rules (Perl split semantics).  palette.map
 * is read and replaced only as a regular file, never through a link.
 */
#include "base/errmsg.h"
#include "base/outfile.h"
#include "hashtab.h"
#include "nameattr.h"
#include "utf8.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read a whole stream as UTF-8 (invalid bytes repaired) and close it;
 * NULL on error (errno set). */
static char *slurp_stream(FILE *f, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;

	for (;;) {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, cap);
			if (!nb)
				goto fail;
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (!got)
			break;
	}
	if (ferror(f))
		goto fail;
	fclose(f);
	buf[n] = 0;
	if (utf8_valid_prefix(buf, n) != n) {
		char *fixed = utf8_repair(buf, n, &n);
		free(buf);
		if (!(buf = fixed))
			errno = ENOMEM;
	}
	*len = n;
	return buf;
fail:
	if (!errno)
		errno = ENOMEM;
	free(buf);
	fclose(f);
	return NULL;
}

static char *slurp(const char *file, size_t *len)
{
	FILE *f = fopen(file, "rb");

	return f ? slurp_stream(f, len) : NULL;
}

static void set(char **slot, const char *v)
{
	free(*slot);
	*slot = v ? strdup(v) : NULL;
}

/* Perl: { map { split /=/, $_, 2 } split /\t/, $attrstr } */
static void parse_attrs(struct fg_attrs *a, char *s)
{
	char *list[512];
	int n = 0;

	/* split /\t/ drops trailing empty fields */
	size_t len = strlen(s);
	while (len && s[len - 1] == '\t')
		s[--len] = 0;
	for (char *p = s; *s && n < 510;) {
		char *tab = strchr(p, '\t');
		if (tab)
			*tab = 0;
		char *eq = strchr(p, '=');
		if (eq) {
			*eq = 0;
			list[n++] = p;
			list[n++] = eq + 1;
		} else if (*p || tab) {	/* split of "" gives nothing */
			list[n++] = p;
		}
		if (!tab)
			break;
		p = tab + 1;
	}
	for (int i = 0; i < n; i += 2) {
		const char *k = list[i], *v = i + 1 < n ? list[i + 1] : NULL;
		if (!strcmp(k, "title"))
			set(&a->title, v);
		else if (!strcmp(k, "id"))
			set(&a->id, v), a->has_id = 1;
		else if (!strcmp(k, "class"))
			set(&a->class_, v), a->has_class = 1;
		else if (!strcmp(k, "g_extra"))
			set(&a->g_extra, v);
		else if (!strcmp(k, "href"))
			set(&a->href, v);
		else if (!strcmp(k, "target"))
			set(&a->target, v);
		else if (!strcmp(k, "a_extra"))
			set(&a->a_extra, v);
	}
}

static void attrs_free(struct fg_attrs *a)
{
	free(a->name);
	free(a->title);
	free(a->id);
	free(a->class_);
	free(a->g_extra);
	free(a->href);
	free(a->target);
	free(a->a_extra);
}

/* The entry named name, or the empty slot where it goes (*slot). */
static struct fg_attrs *attr_find(struct fg_attrtab *t, struct fg_idtab *ids, const char *name,
				  uint32_t h, size_t *slot)
{
	size_t i = h & ids->mask;

	for (; ids->slot[i].id; i = (i + 1) & ids->mask)
		if (ids->slot[i].h == h && !strcmp(t->v[ids->slot[i].id - 1].name, name))
			return &t->v[ids->slot[i].id - 1];
	*slot = i;
	return NULL;
}

/* Linear in the file's size: names are found through a hash table. */
int fg_attrtab_load(struct fg_attrtab *t, const char *file, char *err, size_t errlen)
{
	size_t len, cap = 0;
	struct fg_idtab ids;
	char *buf = slurp(file, &len);

	t->v = NULL;
	t->n = 0;
	if (!buf) {
		snprintf(err, errlen, "Can't read %s: %s", file, strerror(errno));
		return -1;
	}
	if (fg_idtab_init(&ids, 1024)) {
		free(buf);
		snprintf(err, errlen, "Can't read %s: %s", file, strerror(ENOMEM));
		return -1;
	}
	for (char *line = buf; line < buf + len;) {
		char *nl = memchr(line, '\n', buf + len - line);
		if (nl)
			*nl = 0;
		char *tab = strchr(line, '\t');
		if (!tab) {
			snprintf(err, errlen, "Invalid format in %s", file);
			goto fail;
		}
		*tab = 0;
		/* a later line for the same name replaces the earlier one */
		uint32_t h = fg_h32(ow_hash(line, strlen(line)));
		size_t slot;
		struct fg_attrs *a = attr_find(t, &ids, line, h, &slot);
		if (a) {
			char *name = a->name;
			a->name = NULL;
			attrs_free(a);
			memset(a, 0, sizeof(*a));
			a->name = name;
		} else {
			if (t->n == cap && vec_grow((void **)&t->v, &cap, sizeof(*t->v)))
				goto nomem;
			a = &t->v[t->n];
			memset(a, 0, sizeof(*a));
			if (!(a->name = strdup(line)))
				goto nomem;
			t->n++;
			if (fg_idtab_put(&ids, slot, (uint32_t)(t->n - 1), h))
				goto nomem;
		}
		parse_attrs(a, tab + 1);
		if (!nl)
			break;
		line = nl + 1;
	}
	free(buf);
	fg_idtab_free(&ids);
	return 0;
nomem:
	snprintf(err, errlen, "Can't read %s: %s", file, strerror(ENOMEM));
fail:
	free(buf);
	fg_idtab_free(&ids);
	fg_attrtab_free(t);
	return -1;
}

void fg_attrtab_free(struct fg_attrtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		attrs_free(&t->v[i]);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

int fg_palmap_add(struct fg_palmap *m, const char *key, size_t klen, const char *value)
{
	if (m->n == m->cap && vec_grow((void **)&m->v, &m->cap, sizeof(*m->v)))
		return -1;
	struct fg_palmap_entry *e = &m->v[m->n];
	e->key = strndup(key, klen);
	e->value = value ? strdup(value) : NULL;
	e->seq = m->n;
	if (!e->key || (value && !e->value))
		return -1;
	m->n++;
	return 0;
}

/*
 * palette.map is opened without following a symbolic link and without
 * blocking (a FIFO planted there would hang the run), and used only when
 * it is a regular file.
 */
int fg_palmap_load(struct fg_palmap *m, const char *file, char *err, size_t errlen)
{
	size_t len;
	struct stat st;
	FILE *f;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno == ELOOP) {
		snprintf(err, errlen, "%s: a symbolic link (not followed)", file);
		return -1;
	}
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		snprintf(err, errlen, "%s: not a regular file", file);
		return -1;
	}
	if (fd >= 0)	/* back to blocking reads (they may matter to NFS, FUSE) */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "can't open file %s: %s", file, strerror(errno));
		return -1;
	}
	char *buf = slurp_stream(f, &len);
	if (!buf) {
		snprintf(err, errlen, "can't read %s: %s", file, strerror(errno));
		return -1;
	}
	for (char *line = buf; line < buf + len;) {
		char *nl = memchr(line, '\n', buf + len - line);
		if (nl)
			*nl = 0;
		/* split "->": the first field is the key, the second the value
		 * (an empty value and no value both give fill="") */
		char *arrow = strstr(line, "->");
		const char *value = NULL;
		if (arrow) {
			*arrow = 0;
			char *next = strstr(arrow + 2, "->");
			if (next)
				*next = 0;
			value = arrow + 2;
		}
		if (fg_palmap_add(m, line, strlen(line), value)) {
			free(buf);
			return -1;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	free(buf);
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct fg_palmap_entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;	/* file order among equal keys */
}

/* Replaced atomically in its directory; never through a symbolic link. */
int fg_palmap_save(struct fg_palmap *m, const char *file, char *err, size_t errlen)
{
	struct ow_outfile out;

	if (ow_outfile_open(&out, file, OW_OUT_NOFOLLOW | OW_OUT_WRITABLE)) {
		snprintf(err, errlen, "%s: %s", file, ow_outfile_strerror(&out, errno));
		return -1;
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), entry_cmp);
	for (size_t i = 0; i < m->n; i++) {
		if (i + 1 < m->n && !strcmp(m->v[i].key, m->v[i + 1].key))
			continue;	/* the last of equal keys wins */
		fprintf(out.f, "%s->%s\n", m->v[i].key, m->v[i].value ? m->v[i].value : "");
	}
	if (ow_outfile_close(&out, 1)) {
		snprintf(err, errlen, "%s: %s", file, ow_strerror(errno));
		return -1;
	}
	return 0;
}

void fg_palmap_free(struct fg_palmap *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].value);
	}
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}
