/* SPDX-License-Identifier: Apache-2.0 */
/*
 * intern_floor.c - for `make bench`: the least a parser that interns
 * frame tokens must do, timed on its own.  Two threads, each over half of
 * a folded file already in memory, cut every frame token ("name;") with
 * the renderer's 64-byte ';' scan, hash it with the renderer's token hash
 * (render/tokens.h) and find or add it in the renderer's id table
 * (render/hashtab.c), comparing its bytes exactly.  Nothing else: no line
 * checks, no counts, no storing of the lines.  offwake-svg's other work (checking lines,
 * ranking, sorting, merging, writing the SVG) comes on top of this.
 *
 * Usage: intern_floor FILE [RUNS]   prints the best wall time in seconds
 */
#define _GNU_SOURCE
#include "tokens.h"
#include "vec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tok {
	uint32_t off, len;	/* bytes in the arena */
};

struct half {
	const char *buf;
	size_t len;
	struct fg_idtab tab;	/* render/hashtab.c, as the renderer's frame table */
	struct tok *tok;
	size_t ntok, tcap;
	char *arena;
	size_t an, acap;
	int err;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int add(struct half *h, size_t i, const char *b, size_t len, uint32_t hash)
{
	if (vec_reserve((void **)&h->arena, &h->acap, h->an + len, 1) ||
	    vec_reserve((void **)&h->tok, &h->tcap, h->ntok + 1, sizeof(*h->tok)))
		return -1;
	memcpy(h->arena + h->an, b, len);
	h->tok[h->ntok] = (struct tok){ (uint32_t)h->an, (uint32_t)len };
	h->an += len;
	return fg_idtab_put(&h->tab, i, (uint32_t)h->ntok++, hash);
}

/* Look up tokens start..end[0], end[0]..end[1], ... of the line at p. */
static int lookup(struct half *h, const char *p, size_t start, const uint32_t *hash,
		  const size_t *end, size_t k)
{
	for (size_t t = 0; t < k; t++) {
		size_t n = end[t] - start, i = hash[t] & h->tab.mask;
		for (;; i = (i + 1) & h->tab.mask) {
			const struct fg_slot *s = &h->tab.slot[i];
			if (!s->id) {
				if (add(h, i, p + start, n, hash[t]))
					return -1;
				break;
			}
			const struct tok *k = &h->tok[s->id - 1];
			if (s->h == hash[t] && k->len == n && fg_tok_equal(h->arena + k->off, p + start, n))
				break;
		}
		start = end[t];
	}
	return 0;
}

/* The frame tokens of one line, up to 64 at a time: hashed and their
 * slots fetched first, then looked up, as the renderer does. */
static int line_tokens(struct half *h, const char *p, size_t len)
{
	uint32_t hash[64];
	size_t end[64], k = 0, first = 0, tok = 0;	/* batch start, token start */
	const char *sp = memrchr(p, ' ', len);
	size_t stack = sp ? (size_t)(sp - p) : 0;

	for (size_t at = 0; at < stack; at += 64) {
		uint64_t m = at + 64 <= len ? fg_semis64(p + at) : fg_semis_tail(p + at, len - at);
		for (; m; m &= m - 1) {
			size_t e = at + __builtin_ctzll(m) + 1;
			if (e > stack)
				break;
			if (k == 64) {
				if (lookup(h, p, first, hash, end, k))
					return -1;
				first = tok;
				k = 0;
			}
			hash[k] = fg_tok_hash(p + tok, e - tok, len - tok);
			__builtin_prefetch(&h->tab.slot[hash[k] & h->tab.mask]);
			end[k++] = e;
			tok = e;
		}
	}
	return lookup(h, p, first, hash, end, k);
}

static void *run(void *arg)
{
	struct half *h = arg;
	const char *p = h->buf, *e = h->buf + h->len;

	h->err = fg_idtab_init(&h->tab, 1024);
	while (p < e && !h->err) {
		const char *nl = memchr(p, '\n', e - p);
		size_t l = nl ? (size_t)(nl - p) : (size_t)(e - p);
		h->err = line_tokens(h, p, l);
		p += l + 1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	int runs = argc > 2 ? atoi(argv[2]) : 3;
	double best = -1;

	if (!f) {
		fprintf(stderr, "usage: intern_floor FILE [RUNS]\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	size_t n = (size_t)ftell(f);
	rewind(f);
	char *buf = malloc(n + 1);
	if (!buf || fread(buf, 1, n, f) != n) {
		fprintf(stderr, "intern_floor: cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(f);
	const char *mid = memchr(buf + n / 2, '\n', n - n / 2);
	size_t a = mid ? (size_t)(mid + 1 - buf) : n;
	for (int r = 0; r < runs; r++) {
		struct half h[2] = { { .buf = buf, .len = a }, { .buf = buf + a, .len = n - a } };
		pthread_t t;
		double t0 = now();
		if (pthread_create(&t, NULL, run, &h[1])) {
			fprintf(stderr, "intern_floor: no thread\n");
			return 1;
		}
		run(&h[0]);
		pthread_join(t, NULL);
		double w = now() - t0;
		for (int i = 0; i < 2; i++) {
			if (h[i].err) {
				fprintf(stderr, "intern_floor: out of memory\n");
				return 1;
			}
			fg_idtab_free(&h[i].tab);
			free(h[i].tok);
			free(h[i].arena);
		}
		if (best < 0 || w < best)
			best = w;
	}
	printf("%.3f\n", best);
	free(buf);
	return 0;
}
