// SPDX-License-Identifier: Apache-2.0
/*
 * reader.c - reading folded text into a stack set.
 *
 * The calling thread reads the input (a file or a pipe) in blocks cut at
 * line ends; two parser threads take the blocks in turn, each into a stack
 * set of its own, and the second set is then merged into the first with the
 * lines in input order.  An input that fits in one block is parsed directly.
 * An input mapped in memory is cut into the same blocks without a copy, and
 * its pages are released as the blocks are parsed.
 */
#include "stacks.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BLOCK (1u << 20)
#define NSLOTS 4

enum { FREE, FULL, TAKEN };

struct slot {
	char *buf;
	size_t len, cap, seq;
	int state;
};

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct slot slot[NSLOTS];
	int eof, err;
};

/* An input in memory, cut into blocks as the parsers ask for them. */
struct memsrc {
	pthread_mutex_t lock;
	const char *buf;
	size_t len, pos, seq;
};

struct parser {
	struct queue *q;
	struct memsrc *m;
	struct fg_stacks *s;
	int owner;
	struct fg_block *blocks;	/* one per block taken, seq in .first of seqs */
	size_t *seqs;
	size_t n, cap;
	int ret, err;	/* err: errno of a failure, which happened on this parser's thread */
};

static int note_block(struct parser *p, size_t seq, size_t first, size_t count)
{
	if (p->n == p->cap) {
		size_t c = p->cap ? p->cap * 2 : 64;
		struct fg_block *b = realloc(p->blocks, c * sizeof(*b));
		size_t *s = b ? realloc(p->seqs, c * sizeof(*s)) : NULL;
		if (!b || !s) {
			if (b)
				p->blocks = b;
			return -1;
		}
		p->blocks = b;
		p->seqs = s;
		p->cap = c;
	}
	p->blocks[p->n] = (struct fg_block){ first, count, p->owner };
	p->seqs[p->n++] = seq;
	return 0;
}

/* Parse block number seq into p's stack set and note its lines. */
static int parse_block(struct parser *p, const char *b, size_t len, size_t seq)
{
	size_t first = fg_stacks_lines(p->s);

	if (fg_stacks_add_block(p->s, b, len))
		return -1;
	return note_block(p, seq, first, fg_stacks_lines(p->s) - first);
}

static void *parse_blocks(void *arg)
{
	struct parser *p = arg;
	struct queue *q = p->q;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct slot *sl = NULL;
		for (int i = 0; i < NSLOTS; i++)
			if (q->slot[i].state == FULL && (!sl || q->slot[i].seq < sl->seq))
				sl = &q->slot[i];
		if (!sl) {
			if (q->eof || q->err)
				break;
			pthread_cond_wait(&q->changed, &q->lock);
			continue;
		}
		sl->state = TAKEN;
		pthread_mutex_unlock(&q->lock);
		int r = parse_block(p, sl->buf, sl->len, sl->seq);
		if (r)
			p->err = errno ? errno : ENOMEM;
		pthread_mutex_lock(&q->lock);
		sl->state = FREE;
		if (r) {
			p->ret = -1;
			q->err = 1;
		}
		pthread_cond_broadcast(&q->changed);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* The next block of m (up to a line end past BLOCK bytes): 0 at the end. */
static int mem_next(struct memsrc *m, const char **b, size_t *len, size_t *seq)
{
	pthread_mutex_lock(&m->lock);
	size_t pos = m->pos, end = m->len;
	if (pos < m->len && m->len - pos > BLOCK) {
		const char *nl = memchr(m->buf + pos + BLOCK, '\n', m->len - pos - BLOCK);
		if (nl)
			end = (size_t)(nl + 1 - m->buf);
	}
	*b = m->buf + pos;
	*len = end - pos;
	*seq = m->seq++;
	m->pos = end;
	pthread_mutex_unlock(&m->lock);
	return pos < m->len;
}

/* Release the whole pages of a parsed block (the stack set keeps copies
 * of what it needs); the pages at its ends may hold other blocks' lines. */
static void release(const char *b, size_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)b + pg - 1) & ~(pg - 1), hi = ((uintptr_t)b + len) & ~(pg - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

static void *parse_mem_blocks(void *arg)
{
	struct parser *p = arg;
	const char *b;
	size_t len, seq;

	while (!p->ret && mem_next(p->m, &b, &len, &seq)) {
		if (parse_block(p, b, len, seq)) {
			p->err = errno ? errno : ENOMEM;
			p->ret = -1;
			pthread_mutex_lock(&p->m->lock);
			p->m->pos = p->m->len;	/* the other parser stops too */
			pthread_mutex_unlock(&p->m->lock);
		}
		release(b, len);
	}
	return NULL;
}

/* Fill buf from f after the carried-over bytes, growing it for a line
 * longer than a block.  Returns the bytes up to the last newline (all of
 * them at the end of input) and moves the rest to carry. */
static int fill_block(FILE *f, struct slot *sl, char **carry, size_t *ncarry, int *eof)
{
	size_t have = 0;

	for (;;) {
		if (sl->cap < *ncarry + 1 || have == sl->cap) {
			size_t c = sl->cap ? sl->cap * 2 : BLOCK;
			while (c < *ncarry + 1)
				c *= 2;
			char *nb = realloc(sl->buf, c);
			if (!nb)
				return -1;
			sl->buf = nb;
			sl->cap = c;
		}
		if (*ncarry) {
			memcpy(sl->buf, *carry, *ncarry);
			have = *ncarry;
			*ncarry = 0;
		}
		size_t got = fread(sl->buf + have, 1, sl->cap - have, f);
		have += got;
		if (!got) {
			if (ferror(f))
				return -1;
			*eof = 1;
			sl->len = have;
			return 0;
		}
		if (have < sl->cap)
			continue;
		char *nl = memrchr(sl->buf, '\n', have);
		if (!nl)
			continue;	/* grow: one line fills the block */
		sl->len = nl + 1 - sl->buf;
		*ncarry = have - sl->len;
		char *nc = realloc(*carry, *ncarry + 1);
		if (!nc)
			return -1;
		*carry = nc;
		memcpy(*carry, sl->buf + sl->len, *ncarry);
		return 0;
	}
}

static int cmp_seq(const void *a, const void *b, void *seqs)
{
	const size_t *s = seqs;
	size_t x = s[*(const size_t *)a], y = s[*(const size_t *)b];
	return x < y ? -1 : x > y;
}

/* The two parsers' blocks, in input order. */
static struct fg_block *in_order(const struct parser *a, const struct parser *b, size_t *n)
{
	size_t total = a->n + b->n;
	size_t *seqs = malloc((total + 1) * sizeof(*seqs));
	size_t *idx = malloc((total + 1) * sizeof(*idx));
	struct fg_block *all = malloc((total + 1) * sizeof(*all)), *out = NULL;

	if (seqs && idx && all && (out = malloc((total + 1) * sizeof(*out)))) {
		if (a->n) {	/* a parser may have had no block at all */
			memcpy(all, a->blocks, a->n * sizeof(*all));
			memcpy(seqs, a->seqs, a->n * sizeof(*seqs));
		}
		if (b->n) {
			memcpy(all + a->n, b->blocks, b->n * sizeof(*all));
			memcpy(seqs + a->n, b->seqs, b->n * sizeof(*seqs));
		}
		for (size_t i = 0; i < total; i++)
			idx[i] = i;
		qsort_r(idx, total, sizeof(*idx), cmp_seq, seqs);
		for (size_t i = 0; i < total; i++)
			out[i] = all[idx[i]];
		*n = total;
	}
	free(seqs);
	free(idx);
	free(all);
	return out;
}

/* After the parsers: the second one's lines merged into the first's set,
 * in input order, unless ret (or a parser) failed; frees what they hold. */
static int merge_parsers(struct fg_stacks *s, struct parser *pa, struct parser *pb, int ret)
{
	if (!ret && (pa->ret || pb->ret)) {
		/* the failing parser's errno, not this thread's */
		errno = pa->ret ? pa->err : pb->err;
		ret = -1;
	}
	if (!ret) {
		size_t n = 0;
		struct fg_block *blocks = in_order(pa, pb, &n);
		ret = blocks ? fg_stacks_merge_blocks(s, pb->s, blocks, n) : -1;
		free(blocks);
	}
	fg_stacks_free(pb->s);
	free(pa->blocks);
	free(pa->seqs);
	free(pb->blocks);
	free(pb->seqs);
	return ret;
}

int fg_stacks_read(struct fg_stacks *s, FILE *f, const char *name)
{
	struct queue q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { { 0 } }, 0, 0 };
	char *carry = NULL;
	size_t ncarry = 0, seq = 0;
	int eof = 0, ret = 0;

	(void)name;
	/* the first block: the whole input, for most inputs */
	if (fill_block(f, &q.slot[0], &carry, &ncarry, &eof)) {
		free(q.slot[0].buf);
		free(carry);
		return -1;
	}
	if (eof) {
		ret = fg_stacks_add_block(s, q.slot[0].buf, q.slot[0].len);
		free(q.slot[0].buf);
		free(carry);
		return ret;
	}
	struct parser pa = { .q = &q, .s = s, .owner = 0 };
	struct parser pb = { .q = &q, .s = fg_stacks_new_like(s), .owner = 1 };
	pthread_t ta, tb;
	int started = 0;
	q.slot[0].state = FULL;
	q.slot[0].seq = seq++;
	int terr = pb.s ? pthread_create(&ta, NULL, parse_blocks, &pa) : ENOMEM;
	if (!terr) {
		started |= 1;
		if (!pthread_create(&tb, NULL, parse_blocks, &pb))
			started |= 2;
	} else {
		errno = terr;
		ret = -1;
	}
	pthread_mutex_lock(&q.lock);
	while (!eof && !q.err && !ret) {
		struct slot *sl = NULL;
		for (int i = 0; i < NSLOTS && !sl; i++)
			if (q.slot[i].state == FREE)
				sl = &q.slot[i];
		if (!sl) {
			pthread_cond_wait(&q.changed, &q.lock);
			continue;
		}
		sl->state = TAKEN;	/* the reader's, while it fills it */
		pthread_mutex_unlock(&q.lock);
		int r = fill_block(f, sl, &carry, &ncarry, &eof);
		pthread_mutex_lock(&q.lock);
		if (r) {
			ret = -1;
			sl->state = FREE;
			break;
		}
		sl->state = FULL;
		sl->seq = seq++;
		pthread_cond_broadcast(&q.changed);
	}
	q.eof = 1;
	if (ret)
		q.err = 1;
	pthread_cond_broadcast(&q.changed);
	pthread_mutex_unlock(&q.lock);
	if (started & 1)
		pthread_join(ta, NULL);
	if (started & 2)
		pthread_join(tb, NULL);
	ret = merge_parsers(s, &pa, &pb, ret);
	for (int i = 0; i < NSLOTS; i++)
		free(q.slot[i].buf);
	free(carry);
	if (ret && !errno)
		errno = EIO;
	return ret;
}

int fg_stacks_read_map(struct fg_stacks *s, const char *buf, size_t len)
{
	if (len <= BLOCK) {
		int ret = fg_stacks_add_block(s, buf, len);
		release(buf, len);
		return ret;
	}
	struct memsrc m = { .lock = PTHREAD_MUTEX_INITIALIZER, .buf = buf, .len = len };
	struct parser pa = { .m = &m, .s = s, .owner = 0 };
	struct parser pb = { .m = &m, .s = fg_stacks_new_like(s), .owner = 1 };
	pthread_t t;

	if (!pb.s) {
		errno = ENOMEM;
		return -1;
	}
	int started = !pthread_create(&t, NULL, parse_mem_blocks, &pb);
	parse_mem_blocks(&pa);	/* the caller is the first parser */
	if (started)
		pthread_join(t, NULL);
	return merge_parsers(s, &pa, &pb, 0);
}
