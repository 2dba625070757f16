// SPDX-License-Identifier: Apache-2.0
/*
 * ksyms.c - kernel symbols: the text symbols of /proc/kallsyms (kernel and
 * modules, BPF programs and trampolines), sorted once by address and
 * looked up by binary search: the symbol with the highest address not
 * above the one asked for, as bcc's ksym() does.  Addresses that are all
 * zero (kptr_restrict hides them) make the load fail with EPERM.
 * The __pfx_ and __cfi_ symbols name the padding in front of functions,
 * not code that runs, and are skipped.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include "ksyms.h"
#include "common/util.h"

struct ksym {
	uint64_t addr;
	size_t name;		/* offset into names */
};

struct ksyms {
	struct ksym *syms;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
	uint64_t marks[KSYMS_NMARKS];
};

/* enum ksyms_mark's names, in its order. */
static const char *const mark_names[KSYMS_NMARKS] = {
	"__start_orc_unwind_ip", "__stop_orc_unwind_ip", "__start_orc_unwind",
	"_stext", "_etext",
};

/* name's mark, if it is one not seen yet (all start with '_'). */
static void mark(struct ksyms *k, uint64_t addr, const char *name)
{
	if (name[0] != '_' || !addr)
		return;
	for (size_t i = 0; i < KSYMS_NMARKS; i++)
		if (!k->marks[i] && !strcmp(name, mark_names[i]))
			k->marks[i] = addr;
}

uint64_t ksyms_mark(const struct ksyms *k, enum ksyms_mark m)
{
	return k && m < KSYMS_NMARKS ? k->marks[m] : 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add(struct ksyms *k, uint64_t addr, const char *name)
{
	size_t len = strlen(name) + 1;

	if (ow_grow(&k->syms, &k->cap, k->n, sizeof(*k->syms)) < 0 ||
	    ow_grow(&k->names, &k->ncap, k->nlen + len, 1) < 0)
		return -1;
	k->syms[k->n].addr = addr;
	k->syms[k->n++].name = k->nlen;
	memcpy(k->names + k->nlen, name, len);
	k->nlen += len;
	return 0;
}

/*
 * One kallsyms line, "ADDR TYPE NAME[\t[MODULE]]", split in place: 0, or
 * -1 for a line of another shape.  (sscanf() was about 60 ms of start-up's
 * CPU for this kernel's 122k lines.)  A name is cut at 255 bytes.
 */
static int parse_line(char *line, unsigned long long *addr, char *type,
		      char **name)
{
	char *p, *e;

	*addr = strtoull(line, &p, 16);
	if (p == line || p[0] != ' ' || !p[1] || p[2] != ' ')
		return -1;
	*type = p[1];
	p += 3;
	e = p + strcspn(p, " \t\n");
	if (e == p)
		return -1;
	*e = 0;
	if (e - p > 255)
		p[255] = 0;
	*name = p;
	return 0;
}

struct ksyms *ksyms_load(const char *path)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	FILE *f = fopen(path ? path : "/proc/kallsyms", "r");
	char line[512], *name, type;
	unsigned long long addr;
	bool nonzero = false;
	int err = 0;

	if (!k || !f) {
		err = errno;
		goto fail;
	}
	while (fgets(line, sizeof(line), f)) {
		if (parse_line(line, &addr, &type, &name))
			continue;
		mark(k, addr, name);
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		/* Padding before functions, not functions. */
		if (!strncmp(name, "__pfx_", 6) || !strncmp(name, "__cfi_", 6))
			continue;
		nonzero |= addr != 0;
		if (add(k, addr, name) < 0) {
			err = ENOMEM;
			goto fail;
		}
	}
	if (!nonzero) {
		err = EPERM;
		goto fail;
	}
	fclose(f);
	qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	return k;
fail:
	if (f)
		fclose(f);
	ksyms_free(k);
	errno = err;
	return NULL;
}

struct ksyms_read {
	pthread_t thread;
	char *path;
	struct ksyms *k;
	int err;
};

static void *load_thread(void *arg)
{
	struct ksyms_read *r = arg;

	r->k = ksyms_load(r->path);
	r->err = r->k ? 0 : errno;
	return NULL;
}

struct ksyms_read *ksyms_load_async(const char *path)
{
	struct ksyms_read *r = calloc(1, sizeof(*r));

	if (!r || (path && !(r->path = strdup(path))))
		goto fail;
	if (!pthread_create(&r->thread, NULL, load_thread, r))
		return r;
fail:
	if (r)
		free(r->path);
	free(r);
	return NULL;
}

struct ksyms *ksyms_load_wait(struct ksyms_read *r)
{
	struct ksyms *k;
	int err;

	pthread_join(r->thread, NULL);
	k = r->k;
	err = r->err;
	free(r->path);
	free(r);
	errno = err;
	return k;
}

int ksyms_add(struct ksyms *k, const struct ksyms_extra *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (add(k, v[i].addr, v[i].name) < 0 ||
		    (v[i].len && add(k, v[i].addr + v[i].len, "") < 0))
			return -1;
	qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	return 0;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}

int ksyms_extent(const struct ksyms *k, const char *name, uint64_t *lo,
		 uint64_t *hi)
{
	size_t i, len = strlen(name);

	for (i = 0; i < k->n && strcmp(k->names + k->syms[i].name, name); i++)
		;
	if (i == k->n)
		return -1;
	*lo = k->syms[i].addr;
	for (; i < k->n; i++)
		if (strncmp(k->names + k->syms[i].name, name, len)) {
			*hi = k->syms[i].addr;
			return *hi > *lo ? 0 : -1;
		}
	return -1;
}

const char *ksyms_name(const struct ksyms *k, uint64_t addr)
{
	size_t lo = ow_count_le(k->syms, k->n, sizeof(*k->syms), offsetof(struct ksym, addr), addr);
	const char *name;

	/* (an end ksyms_add() made: the symbol at the same address wins) */
	while (lo > 1 && k->syms[lo - 1].addr == k->syms[lo - 2].addr &&
	       !k->names[k->syms[lo - 1].name])
		lo--;
	if (!lo)
		return NULL;
	name = k->names + k->syms[lo - 1].name;
	return *name ? name : NULL;
}

const struct ksyms_caller ksyms_softirq_callers[] = {
	{ "do_softirq", true }, { "__local_bh_enable_ip", true },
	{ "__irq_exit_rcu", false }, { "irq_exit_rcu", false },
	{ "irq_exit", false }, { "run_ksoftirqd", false },
};
const size_t ksyms_nsoftirq_callers =
	sizeof(ksyms_softirq_callers) / sizeof(ksyms_softirq_callers[0]);

bool ksyms_is(const char *name, const char *fn)
{
	size_t n = strlen(fn);

	return !strncmp(name, fn, n) && (!name[n] || name[n] == '.');
}
