/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stacks.c - the in-memory stack set: folded-line grammar, token and frame
 * interning, the token trie, and walks in sorted or input order.
 * See stacks.h for why a trie of tokens gives flamegraph.pl's line order.
 */
#include "stacks.h"
#include "count.h"
#include "mkqs.h"
#include "par.h"
#include "tokens.h"
#include "utf8.h"
#include "vec.h"

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


struct line {
	uint64_t off;		/* first token id in seq */
	uint32_t n;		/* number of tokens, the last one final */
};

struct arena {
	char *v;
	size_t n, cap;
};

/* The table of frame (non-final) tokens: each slot holds what the lookup
 * needs, so a hit costs one slot and the token's bytes. */
struct hotslot {
	uint32_t tok1;		/* token id + 1; 0 = empty */
	uint32_t h;
	uint32_t len;
	uint32_t off;		/* bytes in the hot arena */
};

struct fg_stacks {
	struct arena arena;	/* frame names and final tokens */
	struct arena hotarena;	/* non-final token bytes */
	struct hotslot *hot;
	size_t hotmask, hotused;
	VEC(struct tok) toks;
	/* final tokens are not looked up: a line's last token (leaf and
	 * count) is nearly always new, so it is just appended */
	VEC(struct frame) frames;
	struct fg_idtab frametab;
	VEC(struct fg_leafinfo) leaves;
	VEC(uint32_t) seq;	/* token ids of all lines (ranks once ranked) */
	VEC(struct line) lines;	/* input order */
	struct fg_sortkey *sorted;	/* the lines in sorted order, once sorted */
	uint32_t *rank_frame;	/* frame id of each token rank */
	uint32_t *rank_leaf;	/* leaf info of each token rank */
	size_t nignored;
	size_t max_depth;	/* the depth cap (fg.h), 0: none */
	size_t ntruncated;	/* lines it cut */
	/* the sum of the widths while every count is an integer: with no
	 * double involved, Perl's total does not depend on the line order */
	unsigned __int128 isum;
	int inexact;
	int reverse;
	int ranked;		/* seq holds ranks; no more lines can be added */
	/* the previous line, to reuse the tokens of a common prefix */
	const char *prev_line;	/* in the reader's buffer, or in prev */
	size_t prev_len;
	int borrow;		/* the reader keeps prev_line valid until told */
	VEC(char) prev;
	VEC(uint32_t) prev_end;	/* end offset of each non-final token */
	VEC(uint32_t) hashes;	/* of the line being stored */
	VEC(char) scratch;	/* a token being built by fg_stacks_add() */
};

struct fg_stacks *fg_stacks_new(void)
{
	struct fg_stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	/* arenas start allocated: no arithmetic on NULL, even for "" */
	if (vec_grow((void **)&s->arena.v, &s->arena.cap, 1) ||
	    vec_grow((void **)&s->hotarena.v, &s->hotarena.cap, 1)) {
		fg_stacks_free(s);
		return NULL;
	}
	memset(s->arena.v, 0, s->arena.cap);
	memset(s->hotarena.v, 0, s->hotarena.cap);
	s->max_depth = FG_MAX_DEPTH;
	s->hotmask = 1023;
	s->hot = calloc(s->hotmask + 1, sizeof(*s->hot));
	if (!s->hot || fg_idtab_init(&s->frametab, 1024)) {
		fg_stacks_free(s);
		return NULL;
	}
	if (fg_frame_intern(s, "", 0) != 0) {	/* frame 0 is the empty name */
		fg_stacks_free(s);
		return NULL;
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
	free(s->hotarena.v);
	free(s->hot);
	free(s->toks.v);
	free(s->frames.v);
	fg_idtab_free(&s->frametab);
	free(s->leaves.v);
	free(s->seq.v);
	free(s->lines.v);
	free(s->sorted);
	free(s->rank_frame);
	free(s->rank_leaf);
	free(s->prev.v);
	free(s->prev_end.v);
	free(s->hashes.v);
	free(s->scratch.v);
	free(s);
}

size_t fg_stacks_lines(const struct fg_stacks *s)
{
	return s->lines.n;
}

size_t fg_stacks_ignored(const struct fg_stacks *s)
{
	return s->nignored;
}

void fg_stacks_set_max_depth(struct fg_stacks *s, size_t max)
{
	s->max_depth = max;
}

size_t fg_stacks_max_depth(const struct fg_stacks *s)
{
	return s->max_depth;
}

size_t fg_stacks_truncated(const struct fg_stacks *s)
{
	return s->ntruncated;
}

void fg_stacks_report_truncated(const struct fg_stacks *s, size_t before, const char *what)
{
	size_t n = s->ntruncated - before;

	if (n)
		fprintf(stderr, "offwake-svg: %s: %zu stack%s deeper than %zu frames cut to %zu, "
			"the last one " FG_TRUNCATED "\n", what, n, n == 1 ? "" : "s",
			s->max_depth, s->max_depth);
}


static int arena_add(struct arena *a, const char *b, size_t len, uint64_t *off)
{

	if (!len) {
		*off = a->n;
		return 0;
	}
	while (a->n + len > a->cap) {
		size_t old = a->cap;
		if (vec_grow((void **)&a->v, &a->cap, 1))
			return -1;
		/* zeroed: pcre2's JIT reads names in whole blocks, past their end */
		memset(a->v + old, 0, a->cap - old);
	}
	memcpy(a->v + a->n, b, len);
	*off = a->n;
	a->n += len;
	return 0;
}

/* Probe for a frame name: its id, or FG_NONE with *slot set to the empty
 * slot where it belongs. */
static uint32_t frame_find(const struct fg_stacks *s, const char *name, size_t len,
			   uint32_t h, size_t *slot)
{
	const struct fg_idtab *t = &s->frametab;
	size_t i;

	for (i = h & t->mask; t->slot[i].id; i = (i + 1) & t->mask) {
		const struct frame *f = &s->frames.v[t->slot[i].id - 1];
		if (t->slot[i].h == h && f->len == len && !memcmp(s->arena.v + f->off, name, len))
			return t->slot[i].id - 1;
	}
	*slot = i;
	return FG_NONE;
}

uint32_t fg_frame_lookup(const struct fg_stacks *s, const char *name, size_t len)
{
	size_t slot;

	return frame_find(s, name, len, fg_h32(ow_hash(name, len)), &slot);
}

uint32_t fg_frame_intern(struct fg_stacks *s, const char *name, size_t len)
{
	uint32_t h = fg_h32(ow_hash(name, len));
	size_t i;
	uint32_t id = frame_find(s, name, len, h, &i);

	if (id != FG_NONE)
		return id;
	struct frame f = { 0, (uint32_t)len, FG_NONE };
	if (len > UINT32_MAX || s->frames.n >= FG_NONE - 1 || arena_add(&s->arena, name, len, &f.off) ||
	    VEC_PUSH(s->frames, f) || fg_idtab_put(&s->frametab, i, s->frames.n - 1, h))
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

struct pnum fg_textcount_pnum(struct fg_textcount c)
{
	return c.nv == 2 ? pnum_nv_string(c.d) : c.nv ? pnum_nv(c.d) : pnum_iv(c.u);
}

static struct fg_textcount count_read(const char *p, size_t len)
{
	struct pnum v = pnum_parse_count(p, len);
	struct fg_textcount c;

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
	p->c2 = p->c2len = 0;
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

/* The bytes of a token: non-final ones live in the hot arena. */
static const char *tok_bytes(const struct fg_stacks *s, const struct tok *k)
{
	return (k->leaf == FG_NONE ? s->hotarena.v : s->arena.v) + k->off;
}

static int hot_grow(struct fg_stacks *s)
{
	size_t mask = s->hotmask * 2 + 1;
	struct hotslot *n = calloc(mask + 1, sizeof(*n));

	if (!n)
		return -1;
	for (size_t k = 0; k <= s->hotmask; k++) {
		if (!s->hot[k].tok1)
			continue;
		size_t j = s->hot[k].h & mask;
		while (n[j].tok1)
			j = (j + 1) & mask;
		n[j] = s->hot[k];
	}
	free(s->hot);
	s->hot = n;
	s->hotmask = mask;
	return 0;
}

/* A frame token's id, or FG_NONE with *slot set to the empty slot where
 * it belongs. */
static inline uint32_t hot_find(const struct fg_stacks *s, const char *b, size_t len, uint32_t h,
				size_t *slot)
{
	size_t i = h & s->hotmask;

	for (; s->hot[i].tok1; i = (i + 1) & s->hotmask) {
		const struct hotslot *e = &s->hot[i];
		if (e->h == h && e->len == len && fg_tok_equal(s->hotarena.v + e->off, b, len))
			return e->tok1 - 1;
	}
	*slot = i;
	return FG_NONE;
}

/* A new token: a frame token (p NULL) goes into the hot table at slot; a
 * final token (p: its counts) is appended (duplicates get equal ranks). */
static uint32_t tok_add(struct fg_stacks *s, const char *b, size_t len, size_t frame_len,
			const struct fg_leafinfo *p, uint32_t h, size_t slot)
{
	struct tok k = { 0, (uint32_t)len, 0, FG_NONE, 0 };

	k.frame = fg_frame_intern(s, b, frame_len);
	if (k.frame == FG_NONE || len > UINT32_MAX || s->toks.n >= FG_NONE - 1)
		return FG_NONE;
	if (p) {
		k.leaf = s->leaves.n;
		if (arena_add(&s->arena, b, len, &k.off) || VEC_PUSH(s->leaves, *p) ||
		    VEC_PUSH(s->toks, k))
			return FG_NONE;
		return s->toks.n - 1;
	}
	if (s->hotarena.n + len > UINT32_MAX || arena_add(&s->hotarena, b, len, &k.off) ||
	    VEC_PUSH(s->toks, k))
		return FG_NONE;
	s->hot[slot] = (struct hotslot){ (uint32_t)s->toks.n, h, (uint32_t)len, (uint32_t)k.off };
	if (++s->hotused * 8 > (s->hotmask + 1) * 5 && hot_grow(s))
		return FG_NONE;
	return s->toks.n - 1;
}

/* A token's id: frame tokens (p NULL) are looked up first. */
static inline uint32_t tok_intern(struct fg_stacks *s, const char *b, size_t len,
				  size_t frame_len, const struct fg_leafinfo *p, uint32_t h)
{
	size_t slot = 0;

	if (!p) {
		uint32_t t = hot_find(s, b, len, h, &slot);
		if (t != FG_NONE)
			return t;
	}
	return tok_add(s, b, len, frame_len, p, h, slot);
}

static void add_to_sum(struct fg_stacks *s, const struct fg_leafinfo *li)
{
	const struct fg_textcount *w = li->two ? &li->c2 : &li->c1;

	if (w->nv)
		s->inexact = 1;
	else
		s->isum += w->u;
}

int fg_stacks_exact_total(const struct fg_stacks *s, struct pnum *total)
{
	if (s->inexact || s->isum > UINT64_MAX)
		return 0;
	*total = pnum_iv((__int128)s->isum);
	return 1;
}

/* Copy the previous line out of a buffer that is about to change. */
static int keep_prev(struct fg_stacks *s)
{
	if (s->prev_line == s->prev.v)
		return 0;
	if (vec_reserve((void **)&s->prev.v, &s->prev.cap, s->prev_len, 1))
		return -1;
	memcpy(s->prev.v, s->prev_line, s->prev_len);
	s->prev_line = s->prev.v;
	return 0;
}

/* Store one valid, UTF-8-clean line as its token ids. */
static int store_line(struct fg_stacks *s, const char *line, size_t len, const struct parsed *p)
{
	struct line l = { s->seq.n, 0 };
	size_t pos = 0, k = 0;

	if (s->ranked) {
		errno = EINVAL;	/* lines cannot be added after a walk */
		return -1;
	}
	/* the tokens of the prefix shared with the previous line */
	if (s->lines.n) {
		size_t n = len < s->prev_len ? len : s->prev_len, lcp = 0;
		const char *q = s->prev_line;
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
		const struct line pl = s->lines.v[s->lines.n - 1];
		if (lcp == len && len == s->prev_len)	/* the same line again */
			k = pl.n;
		else
			while (k < s->prev_end.n && s->prev_end.v[k] <= lcp &&
			       s->prev_end.v[k] <= p->stack_len)
				k++;
		for (size_t i = 0; i < k; i++)
			if (VEC_PUSH(s->seq, s->seq.v[pl.off + i]))
				return -1;
		if (k == pl.n) {
			l.n = k;
			add_to_sum(s, &s->leaves.v[s->toks.v[s->seq.v[pl.off + k - 1]].leaf]);
			return VEC_PUSH(s->lines, l);
		}
		if (k)
			pos = s->prev_end.v[k - 1];
	}
	/* the frame tokens: find their ends 64 bytes at a time and hash
	 * them, fetching their table slots ahead, then look them up.  No ';'
	 * follows the stack in a line (only spaces and counts). */
	s->prev_end.n = k;
	s->hashes.n = 0;
	for (size_t at = pos, start = pos; at < p->stack_len; at += 64) {
		uint64_t m = at + 64 <= len ? fg_semis64(line + at) : fg_semis_tail(line + at, len - at);
		for (; m; m &= m - 1) {
			size_t end = at + __builtin_ctzll(m) + 1;
			uint32_t h = fg_tok_hash(line + start, end - start, len - start);
			__builtin_prefetch(&s->hot[h & s->hotmask]);
			if (VEC_PUSH(s->prev_end, (uint32_t)end) || VEC_PUSH(s->hashes, h))
				return -1;
			start = end;
		}
	}
	for (size_t i = 0; i < s->hashes.n; i++) {	/* and their likely bytes */
		const struct hotslot *e = &s->hot[s->hashes.v[i] & s->hotmask];
		if (e->h == s->hashes.v[i])
			__builtin_prefetch(s->hotarena.v + e->off);
	}
	for (size_t i = 0; i < s->hashes.n; i++) {
		size_t end = s->prev_end.v[k + i];
		uint32_t t = tok_intern(s, line + pos, end - pos, end - pos - 1, NULL, s->hashes.v[i]);
		if (t == FG_NONE || VEC_PUSH(s->seq, t))
			return -1;
		pos = end;
	}
	struct fg_leafinfo li = { 0 };
	li.two = (uint8_t)p->two;
	li.c1 = count_read(line + p->c1, p->c1len);
	if (p->two)
		li.c2 = count_read(line + p->c2, p->c2len);
	add_to_sum(s, &li);
	uint32_t t = tok_intern(s, line + pos, len - pos, p->stack_len - pos, &li, 0);
	if (t == FG_NONE || VEC_PUSH(s->seq, t))
		return -1;
	l.n = s->seq.n - l.off;
	s->prev_line = line;	/* borrowed; keep_prev() copies it when needed */
	s->prev_len = len;
	return VEC_PUSH(s->lines, l);
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

/*
 * The depth cap: where a stack (its first len bytes) of more than max
 * frames is cut, just past its (max - 1)th ';' (0 for max 1), or SIZE_MAX
 * when it is not that deep.  Only a stack of at least max bytes can be.
 */
static size_t depth_cut(const char *stack, size_t len, size_t max)
{
	size_t at = 0, cut = 0;

	if (!max || len < max)
		return SIZE_MAX;
	for (size_t semis = 0; semis < max; semis++) {
		const char *q = memchr(stack + at, ';', len - at);
		if (!q)
			return SIZE_MAX;
		at = (size_t)(q - stack) + 1;
		if (semis + 2 == max)
			cut = at;
	}
	return cut;
}

/* The line cut at cut: its root-most frames, FG_TRUNCATED, its counts. */
static char *cut_line(const char *line, size_t len, const struct parsed *p, size_t cut,
		      size_t *outlen)
{
	size_t mark = sizeof(FG_TRUNCATED) - 1, tail = len - p->stack_len;
	char *out = malloc(cut + mark + tail);

	if (!out)
		return NULL;
	memcpy(out, line, cut);
	memcpy(out + cut, FG_TRUNCATED, mark);
	memcpy(out + cut + mark, line + p->stack_len, tail);
	*outlen = cut + mark + tail;
	return out;
}

int fg_stacks_add_line(struct fg_stacks *s, const char *line, size_t len)
{
	char *fixed = NULL, *rev = NULL, *cutl = NULL;
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
	size_t cut = depth_cut(line, p.stack_len, s->max_depth);
	if (cut != SIZE_MAX) {
		if (!(cutl = cut_line(line, len, &p, cut, &len))) {
			free(fixed);
			free(rev);
			return -1;
		}
		line = cutl;
		parse_line(line, len, &p);	/* valid: the same counts */
		s->ntruncated++;
	}
	ret = store_line(s, line, len, &p);
	if (!ret && (!s->borrow || fixed || rev || cutl))
		ret = keep_prev(s);
	free(fixed);
	free(rev);
	free(cutl);
	return ret;
}

/* Put frame i's bytes (UTF-8 repaired) and then the suffix into scratch. */
static int frame_token(struct fg_stacks *s, const char *f, size_t len, const char *suffix,
		       size_t slen, size_t *flen)
{
	char *fixed = NULL;

	if (utf8_valid_prefix(f, len) != len) {
		if (!(fixed = utf8_repair(f, len, &len)))
			return -1;
		f = fixed;
	}
	s->scratch.n = 0;
	if (vec_reserve((void **)&s->scratch.v, &s->scratch.cap, len + slen, 1)) {
		free(fixed);
		return -1;
	}
	memcpy(s->scratch.v, f, len);
	memcpy(s->scratch.v + len, suffix, slen);
	s->scratch.n = len + slen;
	*flen = len;
	free(fixed);
	return 0;
}

/*
 * A stack from code becomes the same tokens its folded line
 * "f0;f1;...;fn-1 COUNT" would give, built directly: each frame with its
 * ';', and the last frame with " COUNT" (parsed like a line's end, so a
 * leaf named like "x 12" gives a two-count line exactly as the text would).
 */
int fg_stacks_add(struct fg_stacks *s, const char *const *frames, const size_t *lens,
		  size_t nframes, uint64_t count)
{
	struct line l = { s->seq.n, 0 };
	char digits[24];
	size_t n = nframes, flen;

	for (size_t i = 0; i < n; i++)
		if (memchr(frames[i], ';', lens[i]) || memchr(frames[i], '\n', lens[i])) {
			errno = EINVAL;
			return -1;
		}
	if (s->ranked) {
		errno = EINVAL;
		return -1;
	}
	if (s->reverse)	/* Perl's split drops trailing empty fields first */
		while (n && !lens[n - 1])
			n--;
	/* the depth cap: max - 1 frames kept, then FG_TRUNCATED */
	int cut = s->max_depth && n > s->max_depth;
	size_t nst = cut ? s->max_depth : n;
	digits[0] = ' ';
	size_t dlen = 1 + fg_u64_digits(digits + 1, count);
	for (size_t k = 0; k + 1 < nst; k++) {
		size_t i = s->reverse ? n - 1 - k : k;
		if (frame_token(s, frames[i], lens[i], ";", 1, &flen))
			return -1;
		uint32_t t = tok_intern(s, s->scratch.v, flen + 1, flen, NULL,
				       fg_tok_hash(s->scratch.v, flen + 1, flen + 1));
		if (t == FG_NONE || VEC_PUSH(s->seq, t))
			return -1;
	}
	size_t last = !n ? 0 : s->reverse ? 0 : n - 1;
	const char *lf = cut ? FG_TRUNCATED : n ? frames[last] : "";
	size_t ll = cut ? sizeof(FG_TRUNCATED) - 1 : n ? lens[last] : 0;
	if (frame_token(s, lf, ll, digits, dlen, &flen))
		return -1;
	s->ntruncated += cut;
	struct parsed p;
	struct fg_leafinfo li = { 0 };
	parse_line(s->scratch.v, s->scratch.n, &p);	/* valid: ends in " DIGITS" */
	li.two = (uint8_t)p.two;
	li.c1 = count_read(s->scratch.v + p.c1, p.c1len);
	if (p.two)
		li.c2 = count_read(s->scratch.v + p.c2, p.c2len);
	add_to_sum(s, &li);
	uint32_t t = tok_intern(s, s->scratch.v, s->scratch.n, p.stack_len, &li, 0);
	if (t == FG_NONE || VEC_PUSH(s->seq, t))
		return -1;
	l.n = s->seq.n - l.off;
	s->prev_len = 0;	/* lines from code share no text */
	return VEC_PUSH(s->lines, l);
}

int fg_stacks_add_block(struct fg_stacks *s, const char *buf, size_t len)
{
	const char *end = buf + len;
	int ret = 0;

	s->borrow = 1;	/* the block stays put until we return */
	while (buf < end && !ret) {
		const char *nl = memchr(buf, '\n', end - buf);
		size_t l = nl ? (size_t)(nl - buf) : (size_t)(end - buf);
		if (fg_stacks_add_line(s, buf, l) < 0)
			ret = -1;
		buf += l + 1;
	}
	if (keep_prev(s))
		ret = -1;
	s->borrow = 0;
	return ret;
}

struct fg_stacks *fg_stacks_new_like(const struct fg_stacks *s)
{
	struct fg_stacks *n = fg_stacks_new();

	if (n) {
		n->reverse = s->reverse;
		n->max_depth = s->max_depth;
	}
	return n;
}

/* to[i] = map[from[i]] (to may be from) */
struct remap {
	uint32_t *to;
	const uint32_t *from, *map;
};

static void remap_ids(void *ctx, size_t lo, size_t hi)
{
	struct remap *rm = ctx;

	for (size_t i = lo; i < hi; i++)
		rm->to[i] = rm->map[rm->from[i]];
}

int fg_stacks_merge_blocks(struct fg_stacks *dst, const struct fg_stacks *src,
			   const struct fg_block *blocks, size_t nblocks)
{
	uint32_t *map = malloc((src->toks.n + 1) * sizeof(*map));
	struct line *order = malloc((dst->lines.n + src->lines.n + 1) * sizeof(*order));
	size_t n = 0;
	int ret = -1;

	if (!map || !order)
		goto out;
	for (size_t i = 0; i < src->toks.n; i++) {	/* src's tokens in dst */
		const struct tok *k = &src->toks.v[i];
		const struct fg_leafinfo *li = k->leaf == FG_NONE ? NULL : &src->leaves.v[k->leaf];
		const char *b = tok_bytes(src, k);
		map[i] = tok_intern(dst, b, k->len, src->frames.v[k->frame].len, li,
				    li ? 0 : fg_tok_hash(b, k->len, k->len));
		if (map[i] == FG_NONE)
			goto out;
	}
	uint64_t base = dst->seq.n;
	if (vec_reserve((void **)&dst->seq.v, &dst->seq.cap, base + src->seq.n,
			sizeof(*dst->seq.v)))
		goto out;
	struct remap rm = { dst->seq.v + base, src->seq.v, map };
	fg_run2(remap_ids, &rm, src->seq.n);
	dst->seq.n = base + src->seq.n;
	/* the lines, block after block, as the input had them */
	for (size_t b = 0; b < nblocks; b++) {
		const struct fg_block *k = &blocks[b];
		for (size_t i = k->first; i < k->first + k->count; i++) {
			struct line l = k->owner ? src->lines.v[i] : dst->lines.v[i];
			if (k->owner)
				l.off += base;
			order[n++] = l;
		}
	}
	free(dst->lines.v);
	dst->lines.v = order;
	dst->lines.n = dst->lines.cap = n;
	order = NULL;
	dst->nignored += src->nignored;
	dst->ntruncated += src->ntruncated;
	dst->isum += src->isum;
	dst->inexact |= src->inexact;
	dst->prev_len = 0;	/* the next line shares nothing known */
	dst->prev_end.n = 0;
	ret = 0;
out:
	free(map);
	free(order);
	return ret;
}

/* ---- walks ---------------------------------------------------------- */

/* Give tokens their rank in byte order and rewrite the lines as ranks. */
static int rank_tokens(struct fg_stacks *s)
{
	size_t n = s->toks.n;
	struct fg_sortkey *it = malloc((n + 1) * sizeof(*it));
	uint32_t *rank = malloc((n + 1) * sizeof(*rank));

	s->rank_frame = malloc((n + 1) * sizeof(*s->rank_frame));
	s->rank_leaf = malloc((n + 1) * sizeof(*s->rank_leaf));
	if (!it || !rank || !s->rank_frame || !s->rank_leaf) {
		free(it);
		free(rank);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		it[i] = (struct fg_sortkey){ tok_bytes(s, &s->toks.v[i]), s->toks.v[i].len, i, 0 };
	if (fg_sort_bytes(it, n)) {
		free(it);
		free(rank);
		return -1;
	}
	/* equal bytes (repeated final tokens) share a rank */
	uint32_t r = 0;
	for (size_t j = 0; j < n; j++) {
		if (j && !(it[j].len == it[j - 1].len && !memcmp(it[j].p, it[j - 1].p, it[j].len)))
			r++;
		rank[it[j].idx] = r;
		s->rank_frame[r] = s->toks.v[it[j].idx].frame;
		s->rank_leaf[r] = s->toks.v[it[j].idx].leaf;
	}
	struct remap rm = { s->seq.v, s->seq.v, rank };
	fg_run2(remap_ids, &rm, s->seq.n);
	free(it);
	free(rank);
	s->ranked = 1;
	return 0;
}

static int sort_lines(struct fg_stacks *s)
{
	size_t n = s->lines.n;
	struct fg_sortkey *it = malloc((n + 1) * sizeof(*it));

	if (!it)
		return -1;
	for (size_t i = 0; i < n; i++)
		it[i] = (struct fg_sortkey){ s->seq.v + s->lines.v[i].off, s->lines.v[i].n, i, 0 };
	s->sorted = it;	/* kept: the walk reads the sequences straight from it */
	return fg_sort_ranks(it, n);
}

/* How many leading entries a and b share. */
static size_t common_prefix(const uint32_t *a, const uint32_t *b, size_t n)
{
	size_t i = 0;

	for (; i + 2 <= n; i += 2) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return i + (a[i] == b[i]);
	}
	return i < n && a[i] == b[i] ? i + 1 : i;
}

/* Ranks for the tokens, and the lines sorted when asked for. */
static int prepare(struct fg_stacks *s, int sorted)
{
	if (!s->ranked && rank_tokens(s))
		return -1;
	if (sorted && !s->sorted && sort_lines(s))
		return -1;
	return 0;
}

/*
 * Lines lo..hi-1 of the walk (see fg_stacks_walk).  Equal ranks are equal
 * tokens, so a line's fields are worked out only after the ranks it
 * shares with the line before (fields keeps them).
 */
static int walk_lines(struct fg_stacks *s, int sorted, int leaves_only, size_t lo, size_t hi,
		      fg_line_fn fn, void *ctx)
{
	uint32_t *fields = NULL;
	const uint32_t *prev = NULL;
	size_t cap = 0, plen = 0;
	int ret = 0;

	for (size_t i = lo; i < hi && !ret; i++) {
		const uint32_t *r;
		size_t len;
		if (sorted) {
			r = s->sorted[i].p;
			len = s->sorted[i].len;
			/* fetch ahead: the ranks of line i + 8, then what the
			 * ranks of line i + 4 lead to (frames and counts) */
			if (i + 8 < hi) {
				const struct fg_sortkey *ahead = &s->sorted[i + 8];
				const uint32_t *ar = ahead->p;
				__builtin_prefetch(ar + (leaves_only ? ahead->len - 1 : 0));
				for (size_t b = 16; !leaves_only && b < ahead->len; b += 16)
					__builtin_prefetch(ar + b);
			}
			if (i + 4 < hi) {
				const struct fg_sortkey *ahead = &s->sorted[i + 4];
				const uint32_t *ar = ahead->p;
				__builtin_prefetch(&s->leaves.v[s->rank_leaf[ar[ahead->len - 1]]]);
				for (size_t b = 0; !leaves_only && b < ahead->len; b++)
					__builtin_prefetch(&s->rank_frame[ar[b]]);
			}
		} else {
			r = s->seq.v + s->lines.v[i].off;
			len = s->lines.v[i].n;
		}
		if (!leaves_only && len > cap) {
			cap = len * 2;
			uint32_t *nf = realloc(fields, cap * sizeof(*nf));
			if (!nf) {
				ret = -1;
				break;
			}
			fields = nf;
		}
		size_t same = 0;
		if (!leaves_only) {
			same = prev ? common_prefix(prev, r, len < plen ? len : plen) : 0;
			for (size_t k = same; k < len; k++)
				fields[k] = s->rank_frame[r[k]];
		}
		struct fg_line fl = { fields, leaves_only ? 0 : len, same,
				      &s->leaves.v[s->rank_leaf[r[len - 1]]], 1 };
		ret = fn(ctx, &fl);
		prev = r;
		plen = len;
	}
	free(fields);
	return ret;
}

int fg_stacks_walk(struct fg_stacks *s, int sorted, int leaves_only, fg_line_fn fn, void *ctx)
{
	if (prepare(s, sorted))
		return -1;
	return walk_lines(s, sorted, leaves_only, 0, s->lines.n, fn, ctx);
}

int fg_stacks_walk_range(struct fg_stacks *s, size_t lo, size_t hi, fg_line_fn fn, void *ctx)
{
	return walk_lines(s, 1, 0, lo, hi, fn, ctx);
}

/* fg_stacks_foreach (fg.h): the walk above, with names instead of ids. */
struct foreach {
	const struct fg_stacks *s;
	fg_stack_fn fn;
	void *ctx;
	const char **names;
	size_t *lens, cap;
};

static int foreach_line(void *ctx, const struct fg_line *l)
{
	struct foreach *f = ctx;

	if (l->nfields > f->cap) {
		size_t cap = l->nfields * 2;
		const char **n = realloc(f->names, cap * sizeof(*n));
		if (n)
			f->names = n;
		size_t *ln = n ? realloc(f->lens, cap * sizeof(*ln)) : NULL;
		if (!ln)
			return -1;
		f->lens = ln;
		f->cap = cap;
	}
	for (size_t k = 0; k < l->nfields; k++)
		f->names[k] = fg_frame_name(f->s, l->fields[k], &f->lens[k]);
	struct pnum c = fg_textcount_pnum(l->info->two ? l->info->c2 : l->info->c1);
	if (l->mult > 1)
		c = pnum_mul(c, pnum_iv(l->mult));
	return f->fn(f->ctx, f->names, f->lens, l->nfields, fg_count_from_pnum(c));
}

int fg_stacks_foreach(struct fg_stacks *s, fg_stack_fn fn, void *ctx)
{
	struct foreach f = { s, fn, ctx, NULL, NULL, 0 };
	int ret = fg_stacks_walk(s, 0, 0, foreach_line, &f);

	free(f.names);
	free(f.lens);
	return ret;
}

/* The width of sorted line i, when a one-count line's integer below 2^62. */
static int line_width(const struct fg_stacks *s, size_t i, uint64_t *w)
{
	const struct fg_sortkey *k = &s->sorted[i];
	const struct fg_leafinfo *li = &s->leaves.v[s->rank_leaf[((const uint32_t *)k->p)[k->len - 1]]];

	if (li->two || li->c1.nv || li->c1.u >= (1ULL << 62))
		return -1;
	*w = li->c1.u;
	return 0;
}

size_t fg_stacks_split(struct fg_stacks *s, uint64_t *before)
{
	size_t n = s->lines.n, k;
	uint64_t t = 0, w;

	if (prepare(s, 1) || n < 2)
		return 0;
	for (k = n / 2; k < n; k++) {
		const uint32_t *a = s->sorted[k - 1].p, *b = s->sorted[k].p;
		if (s->rank_frame[a[0]] != s->rank_frame[b[0]] && !line_width(s, k, &w) && w)
			break;
	}
	if (k == n)
		return 0;
	for (size_t i = 0; i < k; i++) {
		if (line_width(s, i, &w) || t + w >= (1ULL << 53))
			return 0;
		t += w;
	}
	*before = t;
	return k;
}
