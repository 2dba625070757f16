/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fg.h - public API of the flame graph library (render/).
 *
 * The library is a native port of flamegraph.pl: an options struct with
 * documented defaults, an in-memory stack set that is filled from folded
 * text or directly by code, and a render call that writes the SVG to a
 * FILE *.  It depends on libc and pcre2 only; it knows nothing of BPF,
 * ELF or processes.
 */
#ifndef FG_H
#define FG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>


/* Exit statuses, as flamegraph.pl uses them. */
enum {
	FG_EXIT_OK = 0,
	FG_EXIT_FAIL = 1,	/* a run-time error, already reported */
	FG_EXIT_EMPTY = 2,	/* no stack counts: an error SVG was written */
	FG_EXIT_USAGE = 255,	/* bad option or validation failure */
};

/*
 * Rendering options.  fg_options_init() sets the defaults noted here.
 * Strings are borrowed (not copied) and must outlive the render call.
 * Float options keep their literal text (*_text) because flamegraph.pl
 * prints them as written (--fontsize=12.0 gives font-size:12.0px).
 */
struct fg_options {
	const char *title;	/* NULL: "Flame Graph", "Icicle Graph" with
				 * inverted, "Flame Chart" with flamechart */
	const char *subtitle;	/* "" (drawn only when non-empty) */
	long long width;	/* 1200: image width in px */
	long long height;	/* 16: frame height in px */
	double fontsize;	/* 12 */
	const char *fontsize_text;	/* "12" */
	double fontwidth;	/* 0.59 */
	const char *fontwidth_text;	/* "0.59" */
	const char *minwidth;	/* "0.1": px, or "N%" of the total */
	const char *fonttype;	/* "Verdana" */
	const char *countname;	/* "samples" */
	const char *nametype;	/* "Function:" */
	const char *colors;	/* "hot" */
	const char *bgcolors;	/* "": derived from the palette */
	int hash;		/* 0: colours from a hash of the name */
	int random;		/* 0: truly random colours */
	int cp;			/* 0: consistent palette via palette_file */
	const char *palette_file;	/* "palette.map" (in the cwd) */
	int reverse;		/* 0: reverse each stack before merging */
	int inverted;		/* 0: icicle graph */
	int flamechart;		/* 0: keep input order, do not sort */
	int negate;		/* 0: swap red/blue in differentials */
	const char *notes;	/* "": text for the NOTES comment */
	const char *total;	/* NULL: pretend the total is this number */
	const char *factor;	/* "1": scale counts shown in tooltips */
	const char *encoding;	/* NULL: encoding= in the XML declaration */
	const char *nameattr;	/* NULL: file of per-function attributes */
	int chain_grey_waker_dash;	/* 1: the palette's fixed colours apply
					 * (chain.rules: waker-side "-" frames are
					 * grey; our improvement; 0 = as
					 * flamegraph.pl) */
	int quiet;		/* 0: warnings on stderr */
	int delta_inclusive;	/* 0: a two-count line's change goes to its
				 * leaf frame only (flamegraph.pl); 1 ("diff"):
				 * every frame's change is that of its whole
				 * width, the changes of the lines under it
				 * summed, for its colour and its tooltip */
	long long max_depth;	/* FG_MAX_DEPTH (--maxdepth): the depth cap
				 * of the stack sets the caller reads (the
				 * caller sets it: fg_stacks_set_max_depth());
				 * 0 none */
	long long max_size;	/* 1024 (--maxsize, MB): fg_render() refuses
				 * a graph whose SVG it estimates larger,
				 * before writing it; 0 none */
	const char *empty_text;	/* NULL: with no stack counts, the error SVG
				 * says flamegraph.pl's "ERROR: No valid input
				 * provided to flamegraph.pl." and stderr "ERROR:
				 * No stack counts found"; else this text, and
				 * nothing on stderr (the caller explains) */
};

void fg_options_init(struct fg_options *o);

/*
 * Parse flamegraph.pl's command line (Getopt::Long rules: --opt=value,
 * --opt value, single dash, unique prefixes, permuted operands, "--").
 * Non-option arguments are stored back into argv[0..*nfiles-1].  Float
 * values are normalised in place (underscores dropped), so the strings
 * must be writable, as main()'s argv is.
 * Returns 0 on success, 1 for --help (usage already printed to stdout),
 * -1 on error (message and usage printed to stderr).
 */
int fg_options_parse(struct fg_options *o, int argc, char **argv,
		     int *nfiles, const char *prog);
/* The namespace of the attributes fg:x and fg:w on every frame's <rect>:
 * the frame's exact start and width in input counts (integers), which the
 * drawn x and width, rounded to 0.1 px, cannot always give.  fg:w is left
 * out where the tooltip's count is exact (no --factor, below 10^15). */
#define FG_NS "urn:x-offwake-svg:frames"

/* fg_options_parse() with flags: FG_PARSE_NO_USAGE prints the error lines
 * only, not the usage (for a command line the caller explains itself). */
#define FG_PARSE_NO_USAGE	1u
int fg_options_parse_ex(struct fg_options *o, int argc, char **argv,
			int *nfiles, const char *prog, unsigned flags);
/* Whether name (len bytes, no dashes) is an option's full name: -1 no,
 * 0 a flag, 1 an option that takes a value. */
int fg_option_arity(const char *name, size_t len);
/* Print the renderer's usage text. */
void fg_usage(FILE *f, const char *prog);
/*
 * The checks flamegraph.pl makes before reading input (--nameattr file,
 * --minwidth, --bgcolors, sizes).  Returns 0, or FG_EXIT_USAGE after
 * printing the error.  fg_render() makes them too.
 */
int fg_options_check(const struct fg_options *o);

/* ---- the stack set ---------------------------------------------------- */

struct fg_stacks;

struct fg_stacks *fg_stacks_new(void);
void fg_stacks_free(struct fg_stacks *s);
/* --reverse rewrites lines as they are added: call before adding any. */
void fg_stacks_set_reverse(struct fg_stacks *s, int on);

/*
 * Add one folded line ("a;b;c 12", no newline; a trailing "\r" is
 * accepted).  Returns 0 when stored, 1 when the line is invalid (it is
 * counted and reported by the render call), -1 on allocation failure.
 * Invalid UTF-8 is replaced by U+FFFD.
 */
int fg_stacks_add_line(struct fg_stacks *s, const char *line, size_t len);

/*
 * Add one stack from code: frames[0] is the root-most frame.  The result
 * is exactly what the folded line "f0;f1;...;fn-1 COUNT" would give.
 * Frame names must not contain ';' or '\n' (returns -1 with errno EINVAL).
 */
int fg_stacks_add(struct fg_stacks *s, const char *const *frames,
		  const size_t *lens, size_t nframes, uint64_t count);

/*
 * Read folded lines from an open stream.  The name is used in messages.
 * Returns 0, or -1 on a read error (errno set).
 */
int fg_stacks_read(struct fg_stacks *s, FILE *f, const char *name);
/*
 * Read folded lines from a file mapped in memory (read-only, MAP_PRIVATE):
 * parsed on two threads without a copy, its pages released (MADV_DONTNEED)
 * as they are parsed.  Returns 0, or -1 when out of memory.  A file that
 * shrinks meanwhile raises SIGBUS: the caller decides what that does.
 */
int fg_stacks_read_map(struct fg_stacks *s, const char *buf, size_t len);

/* Number of valid lines stored and of invalid lines seen. */
size_t fg_stacks_lines(const struct fg_stacks *s);
size_t fg_stacks_ignored(const struct fg_stacks *s);

/*
 * The depth cap: a stack of more than max frames (root first, after
 * --reverse) keeps its max - 1 root-most frames and ends in a frame named
 * FG_TRUNCATED, so that one line of millions of frames cannot make
 * millions of nodes (each as wide as the graph, so all drawn).  Counted:
 * fg_stacks_truncated().  A new set has FG_MAX_DEPTH; 0: no cap.  Set it
 * before adding lines.
 */
#define FG_MAX_DEPTH 8192
#define FG_TRUNCATED "[truncated]"
void fg_stacks_set_max_depth(struct fg_stacks *s, size_t max);
size_t fg_stacks_max_depth(const struct fg_stacks *s);
size_t fg_stacks_truncated(const struct fg_stacks *s);
/* Say on stderr how many stacks the cap cut since the count was before:
 * "offwake-svg: WHAT: N stacks deeper than MAX frames cut to MAX, ...";
 * nothing when none. */
void fg_stacks_report_truncated(const struct fg_stacks *s, size_t before, const char *what);

/* ---- counts ---------------------------------------------------------- */

/*
 * A count as flamegraph.pl holds it: a Perl number, an exact integer while
 * it fits in 64 bits, a double once it has a fraction or outgrows that (or
 * was written with a decimal point).  Opaque: its bytes are the renderer's.
 * Callers make, add, compare, scale and print counts with the functions
 * below, which keep Perl's arithmetic exactly.
 */
struct fg_count {
	_Alignas(16) unsigned char opaque_[48];
};

/* An exact integer count. */
struct fg_count fg_count_of(uint64_t n);
/* a + b, a * b, a / b, int(a), as Perl computes them. */
struct fg_count fg_count_add(struct fg_count a, struct fg_count b);
struct fg_count fg_count_mul(struct fg_count a, struct fg_count b);
struct fg_count fg_count_div(struct fg_count a, struct fg_count b);
struct fg_count fg_count_int(struct fg_count a);
/* <0, 0, >0 as a < b, a == b, a > b; whether a is 0. */
int fg_count_cmp(struct fg_count a, struct fg_count b);
int fg_count_is_zero(struct fg_count a);
/* The value as a double. */
double fg_count_double(struct fg_count a);
/* 1 and *v when a is an integer (not a double) within int64_t, else 0. */
int fg_count_int64(struct fg_count a, int64_t *v);
/* Perl's string form ("12", "12.5", "1e+20"); returns the length. */
int fg_count_format(struct fg_count a, char *buf, size_t size);
/* The same value as plain decimal digits, never an exponent ("1e-05" is
 * "0.00001"), as the folded grammar reads them; -1 if size is too small. */
int fg_count_format_plain(struct fg_count a, char *buf, size_t size);

/*
 * Visit the valid lines in input order (identical lines may be handed
 * over once, their count multiplied): frames[0] is the root-most frame,
 * names are not NUL-terminated and stay valid during the call only; empty
 * trailing fields ("a;b; 1") are kept.  A two-count line gives its second
 * count, the one that is drawn.  A non-zero return from fn stops the walk
 * and is returned; -1 also when out of memory.
 */
typedef int (*fg_stack_fn)(void *ctx, const char *const *frames, const size_t *lens,
			   size_t nframes, struct fg_count count);
int fg_stacks_foreach(struct fg_stacks *s, fg_stack_fn fn, void *ctx);

/* ---- rendering ------------------------------------------------------- */

/*
 * Render the stack set as an SVG flame graph to out.  Prints the warnings
 * flamegraph.pl prints (unless o->quiet).  Returns FG_EXIT_OK,
 * FG_EXIT_EMPTY (an error SVG was written) or FG_EXIT_USAGE (validation
 * failure, message on stderr, nothing written), FG_EXIT_FAIL (--cp's
 * palette.map could not be written, or the SVG would be larger than
 * --maxsize and nothing was written: message on stderr); -1 on an I/O or
 * memory error (errno set).  The stack set may be reordered but stays valid.
 */
int fg_render(const struct fg_options *o, struct fg_stacks *s, FILE *out);

/* ---- events: long blocks in time (the heat map) ----------------------- */

/*
 * An event set: for some stacks of the set, the long blocks they stand
 * for, in time.  Given to fg_render_events(), it makes the SVG show a
 * FlameScope-style heat map above the flame graph (columns: the seconds
 * of the capture; rows: the offset within the second; colour: the blocked
 * time of the blocks starting there), and its script draws the flame
 * graph of the blocks of a range selected on it (`?t=START,END` in the
 * URL, seconds from the capture's start).
 */
struct fg_events;
struct fg_event {
	uint64_t start_ns;	/* from the capture's start */
	uint64_t dur_ns;
};
/* length_ns: the capture's length; ns_per_count: what one count of the
 * stack set is in ns (1000 for microseconds), for the range graphs. */
struct fg_events *fg_events_new(uint64_t length_ns, uint64_t ns_per_count);
void fg_events_free(struct fg_events *e);
/* One stack (frames[0] root-most, as fg_stacks_add()) and its blocks.
 * Returns 0, or -1 with errno (EINVAL: a name holds ';' or '\n'). */
int fg_events_add(struct fg_events *e, const char *const *frames, const size_t *lens,
		  size_t nframes, const struct fg_event *ev, size_t nev);
size_t fg_events_count(const struct fg_events *e);
/* At most this many blocks go into the SVG as they are; beyond, the
 * blocks of a stack are summed per cell of the map (the map stays exact),
 * and beyond that again the rest is left out of the range graphs (the
 * page says how much). */
#define FG_EVENTS_EMBED 200000

/* fg_render() with an event set (NULL or empty: exactly fg_render()). */
int fg_render_events(const struct fg_options *o, struct fg_stacks *s,
		     const struct fg_events *e, FILE *out);

#endif
