/* SPDX-License-Identifier: Apache-2.0 */
/*
 * palette.c - frame colours computed from the palette data in palettes/.
 *
 * flat.pal gives each flat palette's channel formulas; NAME.rules gives a
 * classifying palette's ordered (regex, flat palette) rules, compiled with
 * pcre2, and its fixed colours (regex, =COLOUR), which a matching frame
 * gets before any other colouring; backgrounds.pal gives the gradients.  The three values a formula
 * uses come from the name (deterministic drand48 step, or flamegraph.pl's
 * name hash), or from a random generator.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "palette.h"
#include "utf8.h"

#include <pcre2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const struct {
	const char *name;
	const char *data;
} fg_palette_files[];

struct channel {
	int base, scale, var;	/* base + int(scale * v[var]) */
};

struct flat {
	char name[16];
	struct channel ch[3];
};

struct rule {
	pcre2_code *re;
	int flat;		/* index into flats, -1 for a fixed colour */
	char fixed[24];		/* the fixed colour: "rgb(200,200,200)" */
};

#define MAX_FLATS 32
#define MAX_RULES 32

struct fg_palette {
	struct flat flats[MAX_FLATS];
	int nflats;
	struct rule rules[MAX_RULES];
	int nrules, nfixed;
	int flat;		/* the palette itself when flat, else -1 */
	char bg_default[16];
	char bg_names[8][16], bg_stop1[8][32], bg_stop2[8][32];
	int nbg;
	pcre2_match_data *md;
	unsigned short rng[3];	/* --random's generator, seeded at load */
};

static const char *data_file(const char *name)
{
	for (int i = 0; fg_palette_files[i].name; i++)
		if (!strcmp(fg_palette_files[i].name, name))
			return fg_palette_files[i].data;
	return NULL;
}

/* Next non-comment line of data into buf; returns 0 at the end. */
static int next_line(const char **pos, char *buf, size_t size)
{
	while (**pos) {
		const char *nl = strchr(*pos, '\n');
		size_t len = nl ? (size_t)(nl - *pos) : strlen(*pos);
		const char *line = *pos;
		*pos = nl ? nl + 1 : line + len;
		while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
			len--;
		while (len && (*line == ' ' || *line == '\t'))
			line++, len--;
		if (!len || *line == '#')
			continue;
		if (len >= size)
			len = size - 1;
		memcpy(buf, line, len);
		buf[len] = 0;
		return 1;
	}
	return 0;
}

static int parse_channel(const char *s, struct channel *c)
{
	int n = 0;

	c->scale = 0;
	c->var = 0;
	if (sscanf(s, "%d+%d*v%d%n", &c->base, &c->scale, &c->var, &n) == 3 && !s[n] &&
	    c->var >= 1 && c->var <= 3)
		return 0;
	c->scale = 0;
	c->var = 1;
	return sscanf(s, "%d%n", &c->base, &n) == 1 && !s[n] ? 0 : -1;
}

static int load_flats(struct fg_palette *p, char *err, size_t errlen)
{
	const char *pos = data_file("flat.pal");
	char line[256], name[64], f[3][64];

	if (!pos) {
		snprintf(err, errlen, "palette data flat.pal missing");
		return -1;
	}
	while (next_line(&pos, line, sizeof(line))) {
		if (sscanf(line, "%63s %63s %63s %63s", name, f[0], f[1], f[2]) != 4 ||
		    p->nflats == MAX_FLATS || strlen(name) >= sizeof(p->flats[0].name) ||
		    parse_channel(f[0], &p->flats[p->nflats].ch[0]) ||
		    parse_channel(f[1], &p->flats[p->nflats].ch[1]) ||
		    parse_channel(f[2], &p->flats[p->nflats].ch[2])) {
			snprintf(err, errlen, "palettes/flat.pal: bad line: %s", line);
			return -1;
		}
		strcpy(p->flats[p->nflats++].name, name);
	}
	return 0;
}

static int find_flat(const struct fg_palette *p, const char *name)
{
	for (int i = 0; i < p->nflats; i++)
		if (!strcmp(p->flats[i].name, name))
			return i;
	return -1;
}

static int load_rules(struct fg_palette *p, const char *file, const char *data,
		      char *err, size_t errlen)
{
	char line[512];

	while (next_line(&data, line, sizeof(line))) {
		char *sp = line + strlen(line);
		while (sp > line && sp[-1] != ' ' && sp[-1] != '\t')
			sp--;
		char *re_end = sp;
		while (re_end > line && (re_end[-1] == ' ' || re_end[-1] == '\t'))
			re_end--;
		*re_end = 0;
		int flat = *sp == '=' ? -1 : find_flat(p, sp);
		int fixed = *sp == '=' && sp[1] && strlen(sp + 1) < sizeof(p->rules[0].fixed);
		if (sp == line || (flat < 0 && !fixed) || p->nrules == MAX_RULES) {
			snprintf(err, errlen, "palettes/%s: bad rule: %s", file, line);
			return -1;
		}
		int ec;
		PCRE2_SIZE eo;
		pcre2_code *re = pcre2_compile((PCRE2_SPTR)line, PCRE2_ZERO_TERMINATED,
					       PCRE2_UTF, &ec, &eo, NULL);
		if (!re) {
			PCRE2_UCHAR msg[120];
			pcre2_get_error_message(ec, msg, sizeof(msg));
			snprintf(err, errlen, "palettes/%s: regex '%s': %s", file, line, msg);
			return -1;
		}
		pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
		p->rules[p->nrules].re = re;
		p->rules[p->nrules].flat = flat;
		if (fixed) {
			strcpy(p->rules[p->nrules].fixed, sp + 1);
			p->nfixed++;
		}
		p->nrules++;
	}
	return 0;
}

static int load_backgrounds(struct fg_palette *p, const char *palette, char *err, size_t errlen)
{
	const char *pos = data_file("backgrounds.pal");
	char line[256], kind[16], a[32], b[32], c[32];

	if (!pos) {
		snprintf(err, errlen, "palette data backgrounds.pal missing");
		return -1;
	}
	while (next_line(&pos, line, sizeof(line))) {
		int n = sscanf(line, "%15s %31s %31s %31s", kind, a, b, c);
		if (n == 4 && !strcmp(kind, "bg") && p->nbg < 8 && strlen(a) < 16 &&
		    strlen(b) == 7 && strlen(c) == 7) {
			strcpy(p->bg_names[p->nbg], a);
			strcpy(p->bg_stop1[p->nbg], b);
			strcpy(p->bg_stop2[p->nbg++], c);
		} else if (n == 3 && !strcmp(kind, "default") && strlen(b) < 16) {
			if (!p->bg_default[0] && (!strcmp(a, palette) || !strcmp(a, "*")))
				strcpy(p->bg_default, b);
		} else {
			snprintf(err, errlen, "palettes/backgrounds.pal: bad line: %s", line);
			return -1;
		}
	}
	return 0;
}

struct fg_palette *fg_palette_load(const char *name, char *err, size_t errlen)
{
	struct fg_palette *p = calloc(1, sizeof(*p));
	char file[64];

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (load_flats(p, err, errlen) || load_backgrounds(p, name, err, errlen))
		goto fail;
	p->flat = find_flat(p, name);
	if (p->flat < 0 && strlen(name) < 40 && !strchr(name, '/')) {
		snprintf(file, sizeof(file), "%s.rules", name);
		const char *data = data_file(file);
		if (data && load_rules(p, file, data, err, errlen))
			goto fail;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	p->rng[0] = (unsigned short)ts.tv_nsec;
	p->rng[1] = (unsigned short)(ts.tv_nsec >> 16);
	p->rng[2] = (unsigned short)ts.tv_sec;
	p->md = pcre2_match_data_create(4, NULL);
	if (!p->md) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return p;
fail:
	fg_palette_free(p);
	return NULL;
}

void fg_palette_free(struct fg_palette *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nrules; i++)
		pcre2_code_free(p->rules[i].re);
	pcre2_match_data_free(p->md);
	free(p);
}

/* Perl's srand(seed); rand(1): one drand48 step. */
static double drand48_seeded(uint32_t seed)
{
	uint64_t x = ((uint64_t)seed << 16) + 0x330E;

	x = (x * 0x5DEECE66DULL + 0xB) & ((1ULL << 48) - 1);
	return (double)x / (double)(1ULL << 48);
}

/* flamegraph.pl's namehash over code points (module prefix stripped). */
static double namehash(const char *s, size_t len)
{
	double vector = 0, weight = 1, max = 1;
	int mod = 10;
	size_t i = 0;

	if (len) {	/* delete up to the first backtick that has a character before it */
		size_t first = utf8_prefix_bytes(s, len, 1);
		const char *bt = memchr(s + first, '`', len - first);
		if (bt) {
			len -= bt + 1 - s;
			s = bt + 1;
		}
	}
	while (i < len && mod <= 12) {
		uint32_t c;
		i += utf8_decode(s + i, len - i, &c);
		vector += ((double)(c % mod) / (mod - 1)) * weight;
		mod++;
		max += weight;
		weight *= 0.70;
	}
	return 1 - vector / max;
}

static double namehash_reversed(const char *s, size_t len)
{
	char stackbuf[256], *r = len <= sizeof(stackbuf) ? stackbuf : malloc(len);
	size_t o = len;

	if (!r)
		return namehash(s, len);
	for (size_t i = 0; i < len;) {	/* reverse the code points */
		size_t n = utf8_prefix_bytes(s + i, len - i, 1);
		o -= n;
		memcpy(r + o, s + i, n);
		i += n;
	}
	double v = namehash(r, len);
	if (r != stackbuf)
		free(r);
	return v;
}

static double random_value(struct fg_palette *p)
{
	return erand48(p->rng);
}

static int matches(const struct fg_palette *p, int i, const char *name, size_t len)
{
	return pcre2_match(p->rules[i].re, (PCRE2_SPTR)name, len, 0, PCRE2_NO_UTF_CHECK,
			   p->md, NULL) >= 0;
}

static int classify(const struct fg_palette *p, const char *name, size_t len)
{
	if (p->flat >= 0)
		return p->flat;
	for (int i = 0; i < p->nrules; i++)
		if (p->rules[i].flat >= 0 && matches(p, i, name, len))
			return p->rules[i].flat;
	return -1;
}

int fg_palette_has_fixed(const struct fg_palette *p)
{
	return p->nfixed > 0;
}

const char *fg_palette_fixed(const struct fg_palette *p, const char *name, size_t len)
{
	for (int i = 0; i < p->nrules && p->nfixed; i++)
		if (p->rules[i].flat < 0 && matches(p, i, name, len))
			return p->rules[i].fixed;
	return NULL;
}

int fg_palette_color(struct fg_palette *p, enum fg_vmode mode, const char *name,
		     size_t len, char *out, size_t outlen)
{
	double v[4];
	int f = classify(p, name, len);

	if (f < 0)
		return snprintf(out, outlen, "rgb(0,0,0)");
	if (mode == FG_V_HASH) {
		v[1] = namehash(name, len);
		v[2] = v[3] = namehash_reversed(name, len);
	} else if (mode == FG_V_RANDOM) {
		v[1] = random_value(p);
		v[2] = random_value(p);
		v[3] = random_value(p);
	} else {
		uint32_t sum = 0;
		for (size_t i = 0; i < len;) {
			uint32_t c;
			i += utf8_decode(name + i, len - i, &c);
			sum += c;
		}
		v[1] = v[2] = v[3] = drand48_seeded(sum);
	}
	int rgb[3];
	for (int c = 0; c < 3; c++) {
		const struct channel *ch = &p->flats[f].ch[c];
		rgb[c] = ch->base + (int)(ch->scale * v[ch->var]);
	}
	return snprintf(out, outlen, "rgb(%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
}

int fg_palette_background(const struct fg_palette *p, const char *bgcolors,
			  char stop1[32], char stop2[32])
{
	const char *want = *bgcolors ? bgcolors : p->bg_default;

	for (int i = 0; i < p->nbg; i++) {
		if (!strcmp(p->bg_names[i], want)) {
			strcpy(stop1, p->bg_stop1[i]);
			strcpy(stop2, p->bg_stop2[i]);
			return 0;
		}
	}
	/* "#" and any six characters (code points) */
	if (want[0] == '#' && utf8_count(want, strlen(want)) == 7 && strlen(want) < 32) {
		strcpy(stop1, want);
		strcpy(stop2, want);
		return 0;
	}
	return -1;
}

int fg_delta_color(struct pnum delta, struct pnum maxdelta, int negate, char *out, size_t outlen)
{
	int r = 255, g = 255, b = 255;
	struct pnum v = negate ? pnum_sub(pnum_iv(0), delta) : delta;
	int sign = pnum_cmp(v, pnum_iv(0));

	if (sign > 0) {
		struct pnum k = pnum_div(pnum_mul(pnum_iv(210), pnum_sub(maxdelta, v)), maxdelta);
		g = b = (int)trunc(pnum_d(k));
	} else if (sign < 0) {
		struct pnum k = pnum_div(pnum_mul(pnum_iv(210), pnum_add(maxdelta, v)), maxdelta);
		r = g = (int)trunc(pnum_d(k));
	}
	return snprintf(out, outlen, "rgb(%d,%d,%d)", r, g, b);
}
