/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stacks.c - the in-memory stack set: folded-line grammar, token and frame
 * interning, the token trie, and walks in sorted or input order.
 * See stacks.h for why a trie of tokens gives flamegraph.pl's line order.
 */
#include "stacks.h"
#include "utf8.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct tok {
	uint64_t off;		/* bytes in the arena */
	uint32_t len;
	uint32_t frame;		/* frame id of the field this token holds */
	uint32_t leaf;		/* index in leaves for final tokens, else FG_NONE */
	uint32_t rank;		/* position in byte order (set before a sorted walk) */
};

struct frame {
	uint64_t off;
	uint32_t len;
	uint32_t waker;		/* id of name + "_[w]", FG_NONE until asked */
};

#define VEC(T) struct { T *v; size_t n, cap; }
#define VEC_PUSH(vec, x) (((vec).n == (vec).cap && vec_grow((void **)&(vec).v, &(vec).cap, \
	sizeof(*(vec).v))) ? -1 : ((vec).v[(vec).n++] = (x), 0))

static int vec_grow(void **v, size_t *cap, size_t elem)
{
	size_t n = *cap ? *cap * 2 : 64;
	void *p = realloc(*v, n * elem);
	if (!p)
		return -1;
	*v = p;
	*cap = n;
	return 0;
}

struct fg_stacks {
	VEC(char) arena;
	VEC(struct tok) toks;
	struct fg_idtab toktab;
	VEC(struct frame) frames;
	struct fg_idtab frametab;
	VEC(struct fg_leafinfo) leaves;
	/* trie nodes; node 0 is the root (no token) */
	VEC(uint32_t) parent;
	VEC(uint32_t) ntok;
	VEC(uint64_t) mult;
	struct fg_idtab nodetab;
	VEC(uint32_t) order;	/* leaf node of each line, input order */
	size_t nlines, nignored;
	int reverse;
	int ranked;
	/* the previous line, to reuse the nodes of a common prefix */
	VEC(char) prev;
	VEC(uint32_t) prev_end;		/* end offset of each non-final token */
	VEC(uint32_t) prev_node;	/* trie node after each non-final token */
	uint32_t prev_leaf;
};

struct fg_stacks *fg_stacks_new(void)
{
	struct fg_stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (fg_idtab_init(&s->toktab, 1024) || fg_idtab_init(&s->frametab, 1024) ||
	    fg_idtab_init(&s->nodetab, 4096) || VEC_PUSH(s->parent, FG_NONE) ||
	    VEC_PUSH(s->ntok, FG_NONE) || VEC_PUSH(s->mult, 0)) {
		fg_stacks_free(s);
		return NULL;
	}
	s->prev_leaf = FG_NONE;
	if (fg_frame_lookup(s, "", 0) == FG_NONE) {
		struct frame f = { 0, 0, FG_NONE };
		uint64_t h = fg_hash_bytes("", 0);
		if (VEC_PUSH(s->frames, f)) {
			fg_stacks_free(s);
			return NULL;
		}
		s->frametab.slot[h & s->frametab.mask] = 1;
		s->frametab.hash[h & s->frametab.mask] = h;
		s->frametab.used = 1;
	}
	return s;
}

void fg_stacks_set_reverse(struct fg_stacks *s, int on)
{
	s->reverse = on;
}

void fg_stacks_free(struct fg_stacks *s)
{
	if (!s)
		return;
	free(s->arena.v);
	free(s->toks.v);
	fg_idtab_free(&s->toktab);
	free(s->frames.v);
	fg_idtab_free(&s->frametab);
	free(s->leaves.v);
	free(s->parent.v);
	free(s->ntok.v);
	free(s->mult.v);
	fg_idtab_free(&s->nodetab);
	free(s->order.v);
	free(s->prev.v);
	free(s->prev_end.v);
	free(s->prev_node.v);
	free(s);
}

size_t fg_stacks_lines(const struct fg_stacks *s)
{
	return s->nlines;
}

size_t fg_stacks_ignored(const struct fg_stacks *s)
{
	return s->nignored;
}

static int arena_add(struct fg_stacks *s, const char *b, size_t len, uint64_t *off)
{
	while (s->arena.n + len > s->arena.cap)
		if (vec_grow((void **)&s->arena.v, &s->arena.cap, 1))
			return -1;
	memcpy(s->arena.v + s->arena.n, b, len);
	*off = s->arena.n;
	s->arena.n += len;
	return 0;
}

uint32_t fg_frame_lookup(const struct fg_stacks *s, const char *name, size_t len)
{
	uint64_t h = fg_hash_bytes(name, len);
	const struct fg_idtab *t = &s->frametab;

	for (size_t i = h & t->mask; t->slot[i]; i = (i + 1) & t->mask) {
		const struct frame *f = &s->frames.v[t->slot[i] - 1];
		if (t->hash[i] == h && f->len == len && !memcmp(s->arena.v + f->off, name, len))
			return t->slot[i] - 1;
	}
	return FG_NONE;
}

uint32_t fg_frame_intern(struct fg_stacks *s, const char *name, size_t len)
{
	uint64_t h = fg_hash_bytes(name, len);
	struct fg_idtab *t = &s->frametab;
	size_t i;

	for (i = h & t->mask; t->slot[i]; i = (i + 1) & t->mask) {
		const struct frame *f = &s->frames.v[t->slot[i] - 1];
		if (t->hash[i] == h && f->len == len && !memcmp(s->arena.v + f->off, name, len))
			return t->slot[i] - 1;
	}
	struct frame f = { 0, (uint32_t)len, FG_NONE };
	if (len > UINT32_MAX || arena_add(s, name, len, &f.off) || VEC_PUSH(s->frames, f))
		return FG_NONE;
	t->slot[i] = s->frames.n;
	t->hash[i] = h;
	t->used++;
	if (fg_idtab_reserve(t))
		return FG_NONE;
	return s->frames.n - 1;
}

const char *fg_frame_name(const struct fg_stacks *s, uint32_t id, size_t *len)
{
	*len = s->frames.v[id].len;
	return s->arena.v + s->frames.v[id].off;
}

size_t fg_frame_count(const struct fg_stacks *s)
{
	return s->frames.n;
}

uint32_t fg_frame_waker(struct fg_stacks *s, uint32_t id)
{
	if (s->frames.v[id].waker != FG_NONE)
		return s->frames.v[id].waker;
	size_t len = s->frames.v[id].len;
	char *tmp = malloc(len + 4);
	if (!tmp)
		return FG_NONE;
	memcpy(tmp, s->arena.v + s->frames.v[id].off, len);
	memcpy(tmp + len, "_[w]", 4);
	uint32_t w = fg_frame_intern(s, tmp, len + 4);
	free(tmp);
	if (w != FG_NONE)
		s->frames.v[id].waker = w;
	return w;
}

struct pnum fg_count_pnum(struct fg_count c)
{
	return c.nv ? pnum_nv(c.d) : pnum_iv(c.u);
}

static struct fg_count count_read(const char *p, size_t len)
{
	struct pnum v = pnum_parse_count(p, len);
	struct fg_count c;

	c.nv = (uint8_t)v.is_nv;
	if (v.is_nv)
		c.d = v.nv;
	else
		c.u = (uint64_t)v.iv;
	return c;
}

/*
 * flamegraph.pl's line grammar: /^(.*)\s+?(\d+(?:\.\d*)?)$/.  The count is
 * everything after the last whitespace character, the stack everything
 * before it.  Returns the stack length, or -1 if no count.
 */
static long split_count(const char *s, size_t len, size_t *cstart)
{
	size_t r = len;

	while (r > 0 && ((s[r - 1] >= '0' && s[r - 1] <= '9') || s[r - 1] == '.'))
		r--;
	if (r == len || s[r] == '.')
		return -1;
	const char *dot = memchr(s + r, '.', len - r);
	if (dot && memchr(dot + 1, '.', s + len - dot - 1))
		return -1;
	int ws = perl_space_before(s, r);
	if (!ws)
		return -1;
	*cstart = r;
	return (long)(r - ws);
}

struct parsed {
	size_t stack_len;
	size_t c1, c1len, c2, c2len;	/* offsets and lengths of the counts */
	int two;
};

static int parse_line(const char *s, size_t len, struct parsed *p)
{
	size_t cs, cs2;
	long st = split_count(s, len, &cs);

	if (st < 0)
		return -1;
	p->two = 0;
	p->c1 = cs;
	p->c1len = len - cs;
	long st2 = split_count(s, (size_t)st, &cs2);
	if (st2 >= 0) {
		p->two = 1;
		p->c2 = p->c1;
		p->c2len = p->c1len;
		p->c1 = cs2;
		p->c1len = (size_t)st - cs2;
		st = st2;
	}
	p->stack_len = (size_t)st;
	return 0;
}

static uint32_t tok_intern(struct fg_stacks *s, const char *b, size_t len,
			   size_t frame_len, const char *line, const struct parsed *p)
{
	uint64_t h = fg_hash_bytes(b, len);
	struct fg_idtab *t = &s->toktab;
	size_t i;

	for (i = h & t->mask; t->slot[i]; i = (i + 1) & t->mask) {
		const struct tok *k = &s->toks.v[t->slot[i] - 1];
		if (t->hash[i] == h && k->len == len && !memcmp(s->arena.v + k->off, b, len))
			return t->slot[i] - 1;
	}
	struct tok k = { 0, (uint32_t)len, 0, FG_NONE, 0 };
	k.frame = fg_frame_intern(s, b, frame_len);
	if (k.frame == FG_NONE || len > UINT32_MAX || arena_add(s, b, len, &k.off))
		return FG_NONE;
	if (p) {
		struct fg_leafinfo li = { 0 };
		li.two = (uint8_t)p->two;
		li.c1 = count_read(line + p->c1, p->c1len);
		if (p->two)
			li.c2 = count_read(line + p->c2, p->c2len);
		k.leaf = s->leaves.n;
		if (VEC_PUSH(s->leaves, li))
			return FG_NONE;
	}
	if (VEC_PUSH(s->toks, k))
		return FG_NONE;
	t->slot[i] = s->toks.n;
	t->hash[i] = h;
	t->used++;
	if (fg_idtab_reserve(t))
		return FG_NONE;
	s->ranked = 0;
	return s->toks.n - 1;
}

static uint32_t node_child(struct fg_stacks *s, uint32_t parent, uint32_t tok)
{
	uint64_t h = fg_mix(parent, tok);
	struct fg_idtab *t = &s->nodetab;
	size_t i;

	for (i = h & t->mask; t->slot[i]; i = (i + 1) & t->mask) {
		uint32_t n = t->slot[i] - 1;
		if (t->hash[i] == h && s->parent.v[n] == parent && s->ntok.v[n] == tok)
			return n;
	}
	if (s->parent.n >= FG_NONE - 1 || VEC_PUSH(s->parent, parent) ||
	    VEC_PUSH(s->ntok, tok) || VEC_PUSH(s->mult, 0))
		return FG_NONE;
	t->slot[i] = s->parent.n;
	t->hash[i] = h;
	t->used++;
	if (fg_idtab_reserve(t))
		return FG_NONE;
	return s->parent.n - 1;
}

/* Store one valid, UTF-8-clean line. */
static int store_line(struct fg_stacks *s, const char *line, size_t len, const struct parsed *p)
{
	uint32_t node = 0;
	size_t pos = 0, k = 0;

	/* the nodes of the prefix shared with the previous line */
	if (s->prev_leaf != FG_NONE) {
		size_t n = len < s->prev.n ? len : s->prev.n, lcp = 0;
		const char *q = s->prev.v;
		while (lcp + 8 <= n) {
			uint64_t a, b;
			memcpy(&a, line + lcp, 8);
			memcpy(&b, q + lcp, 8);
			if (a != b)
				break;
			lcp += 8;
		}
		while (lcp < n && line[lcp] == q[lcp])
			lcp++;
		if (lcp == len && len == s->prev.n) {
			s->mult.v[s->prev_leaf]++;
			s->nlines++;
			return VEC_PUSH(s->order, s->prev_leaf);
		}
		while (k < s->prev_end.n && s->prev_end.v[k] <= lcp && s->prev_end.v[k] <= p->stack_len)
			k++;
		if (k) {
			node = s->prev_node.v[k - 1];
			pos = s->prev_end.v[k - 1];
		}
	}
	s->prev_end.n = k;
	s->prev_node.n = k;
	for (;;) {
		const char *semi = memchr(line + pos, ';', p->stack_len - pos);
		if (!semi)
			break;
		size_t end = semi - line + 1;
		uint32_t t = tok_intern(s, line + pos, end - pos, end - pos - 1, NULL, NULL);
		if (t == FG_NONE || (node = node_child(s, node, t)) == FG_NONE ||
		    VEC_PUSH(s->prev_end, (uint32_t)end) || VEC_PUSH(s->prev_node, node))
			return -1;
		pos = end;
	}
	uint32_t t = tok_intern(s, line + pos, len - pos, p->stack_len - pos, line, p);
	if (t == FG_NONE || (node = node_child(s, node, t)) == FG_NONE)
		return -1;
	s->mult.v[node]++;
	s->nlines++;
	s->prev_leaf = node;
	s->prev.n = 0;
	while (len > s->prev.cap)
		if (vec_grow((void **)&s->prev.v, &s->prev.cap, 1))
			return -1;
	memcpy(s->prev.v, line, len);
	s->prev.n = len;
	return VEC_PUSH(s->order, node);
}

/* --reverse: "f1;...;fn c1[ c2]" becomes "fn;...;f1 c1[ c2]" (Perl split
 * drops trailing empty fields first). */
static char *reverse_line(const char *line, const struct parsed *p, size_t *outlen)
{
	size_t sl = p->stack_len;
	char *out = malloc(sl + p->c1len + p->c2len + 3);
	size_t o = 0;

	if (!out)
		return NULL;
	while (sl > 0 && line[sl - 1] == ';')
		sl--;
	size_t end = sl;
	while (end > 0) {
		const char *semi = memrchr(line, ';', end);
		size_t start = semi ? (size_t)(semi - line) + 1 : 0;
		if (o)
			out[o++] = ';';
		memcpy(out + o, line + start, end - start);
		o += end - start;
		end = semi ? start - 1 : 0;
		if (!semi)
			break;
		if (end == 0 && semi == line) {	/* leading empty field */
			out[o++] = ';';
			break;
		}
	}
	out[o++] = ' ';
	memcpy(out + o, line + p->c1, p->c1len);
	o += p->c1len;
	if (p->two) {
		out[o++] = ' ';
		memcpy(out + o, line + p->c2, p->c2len);
		o += p->c2len;
	}
	*outlen = o;
	return out;
}

int fg_stacks_add_line(struct fg_stacks *s, const char *line, size_t len)
{
	char *fixed = NULL, *rev = NULL;
	struct parsed p;
	int ret;

	if (len && line[len - 1] == '\r')
		len--;
	if (utf8_valid_prefix(line, len) != len) {
		fixed = utf8_repair(line, len, &len);
		if (!fixed)
			return -1;
		line = fixed;
	}
	if (parse_line(line, len, &p)) {
		s->nignored++;
		free(fixed);
		return 1;
	}
	if (s->reverse) {
		rev = reverse_line(line, &p, &len);
		if (!rev) {
			free(fixed);
			return -1;
		}
		line = rev;
		if (parse_line(line, len, &p)) {
			s->nignored++;
			free(fixed);
			free(rev);
			return 1;
		}
	}
	ret = store_line(s, line, len, &p);
	free(fixed);
	free(rev);
	return ret;
}

int fg_stacks_add(struct fg_stacks *s, const char *const *frames, const size_t *lens,
		  size_t nframes, uint64_t count)
{
	size_t total = 24;

	for (size_t i = 0; i < nframes; i++) {
		if (memchr(frames[i], ';', lens[i]) || memchr(frames[i], '\n', lens[i])) {
			errno = EINVAL;
			return -1;
		}
		total += lens[i] + 1;
	}
	char *line = malloc(total), *p = line;
	if (!line)
		return -1;
	for (size_t i = 0; i < nframes; i++) {
		if (i)
			*p++ = ';';
		memcpy(p, frames[i], lens[i]);
		p += lens[i];
	}
	p += sprintf(p, " %llu", (unsigned long long)count);
	int ret = fg_stacks_add_line(s, line, p - line);
	free(line);
	if (ret == 1) {	/* cannot happen for a frame list, but be exact */
		errno = EINVAL;
		return -1;
	}
	return ret;
}

int fg_stacks_read(struct fg_stacks *s, FILE *f, const char *name)
{
	size_t cap = 1 << 20, have = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -1;
	for (;;) {
		if (have == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -1;
			}
			buf = nb;
			cap *= 2;
		}
		size_t got = fread(buf + have, 1, cap - have, f);
		have += got;
		size_t start = 0;
		char *nl;
		while ((nl = memchr(buf + start, '\n', have - start))) {
			if (fg_stacks_add_line(s, buf + start, nl - (buf + start)) < 0) {
				free(buf);
				return -1;
			}
			start = nl - buf + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (got == 0)
			break;
	}
	int err = ferror(f);
	if (!err && have && fg_stacks_add_line(s, buf, have) < 0)
		err = 1;
	free(buf);
	return err ? -1 : 0;
}

/* ---- walks ---------------------------------------------------------- */

static const struct fg_stacks *cmp_ctx;
static int tok_cmp(const void *a, const void *b)
{
	const struct tok *x = &cmp_ctx->toks.v[*(const uint32_t *)a];
	const struct tok *y = &cmp_ctx->toks.v[*(const uint32_t *)b];
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(cmp_ctx->arena.v + x->off, cmp_ctx->arena.v + y->off, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int rank_tokens(struct fg_stacks *s)
{
	uint32_t *ids = malloc((s->toks.n + 1) * sizeof(*ids));

	if (!ids)
		return -1;
	for (size_t i = 0; i < s->toks.n; i++)
		ids[i] = i;
	cmp_ctx = s;
	qsort(ids, s->toks.n, sizeof(*ids), tok_cmp);
	for (size_t i = 0; i < s->toks.n; i++)
		s->toks.v[ids[i]].rank = i;
	free(ids);
	s->ranked = 1;
	return 0;
}

/* children sorted by token rank: counting sort by rank, then by parent */
static int build_children(struct fg_stacks *s, uint32_t **start_out, uint32_t **kids_out)
{
	size_t n = s->parent.n;
	uint32_t *byrank = malloc(n * sizeof(*byrank));
	uint32_t *start = calloc(n + 1, sizeof(*start));
	uint32_t *kids = malloc(n * sizeof(*kids));
	uint32_t *cnt = calloc(s->toks.n + 1, sizeof(*cnt));

	if (!byrank || !start || !kids || !cnt) {
		free(byrank), free(start), free(kids), free(cnt);
		return -1;
	}
	for (size_t i = 1; i < n; i++)
		cnt[s->toks.v[s->ntok.v[i]].rank + 1]++;
	for (size_t r = 0; r < s->toks.n; r++)
		cnt[r + 1] += cnt[r];
	for (size_t i = 1; i < n; i++)
		byrank[cnt[s->toks.v[s->ntok.v[i]].rank]++] = i;
	free(cnt);
	for (size_t i = 1; i < n; i++)
		start[s->parent.v[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		start[i + 1] += start[i];
	uint32_t *fill = malloc(n * sizeof(*fill));
	if (!fill) {
		free(byrank), free(start), free(kids);
		return -1;
	}
	memcpy(fill, start, n * sizeof(*fill));
	for (size_t j = 0; j + 1 < n; j++) {
		uint32_t c = byrank[j];
		kids[fill[s->parent.v[c]]++] = c;
	}
	free(fill);
	free(byrank);
	*start_out = start;
	*kids_out = kids;
	return 0;
}

static int emit(struct fg_stacks *s, uint32_t leaf, const uint32_t *fields, size_t n,
		uint64_t mult, fg_line_fn fn, void *ctx)
{
	struct fg_line l;
	const struct tok *t = &s->toks.v[s->ntok.v[leaf]];

	l.fields = fields;
	l.nfields = n;
	l.info = &s->leaves.v[t->leaf];
	l.mult = mult;
	return fn(ctx, &l);
}

int fg_stacks_walk(struct fg_stacks *s, int sorted, fg_line_fn fn, void *ctx)
{
	VEC(uint32_t) path = { 0 };
	int ret = 0;

	if (!sorted) {
		for (size_t i = 0; i < s->order.n && !ret; i++) {
			path.n = 0;
			for (uint32_t n = s->order.v[i]; n; n = s->parent.v[n])
				if (VEC_PUSH(path, s->toks.v[s->ntok.v[n]].frame)) {
					free(path.v);
					return -1;
				}
			for (size_t a = 0, b = path.n - 1; a < b; a++, b--) {
				uint32_t x = path.v[a];
				path.v[a] = path.v[b];
				path.v[b] = x;
			}
			ret = emit(s, s->order.v[i], path.v, path.n, 1, fn, ctx);
		}
		free(path.v);
		return ret;
	}
	if (!s->ranked && rank_tokens(s))
		return -1;
	uint32_t *start, *kids;
	if (build_children(s, &start, &kids))
		return -1;
	/* iterative DFS; stack holds (node, next child index) */
	VEC(uint64_t) st = { 0 };
	if (VEC_PUSH(st, (uint64_t)start[0] << 32 | 0))
		ret = -1;
	while (st.n && !ret) {
		uint64_t top = st.v[st.n - 1];
		uint32_t node = (uint32_t)top, next = top >> 32;
		if (next == start[node + 1]) {
			st.n--;
			if (st.n)
				path.n--;
			continue;
		}
		st.v[st.n - 1] = (uint64_t)(next + 1) << 32 | node;
		uint32_t c = kids[next];
		if (VEC_PUSH(path, s->toks.v[s->ntok.v[c]].frame)) {
			ret = -1;
			break;
		}
		if (s->mult.v[c]) {
			ret = emit(s, c, path.v, path.n, s->mult.v[c], fn, ctx);
			path.n--;
			continue;	/* final tokens have no children */
		}
		if (VEC_PUSH(st, (uint64_t)start[c] << 32 | c))
			ret = -1;
	}
	free(st.v);
	free(path.v);
	free(start);
	free(kids);
	return ret;
}
