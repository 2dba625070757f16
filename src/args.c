// SPDX-License-Identifier: Apache-2.0
/*
 * args.c - the capture command line: every offwaketime option with
 * argparse's rules and messages (exact long names, bundled short flags,
 * attached values, mutually exclusive groups, exit status 2), plus -o,
 * --text, --format (and the format -o FILE's extension names), GNU
 * --help/--version.  Every argument that is not ours (render
 * options such as --title or --width, and operands) goes, in order, to the
 * renderer's own parser, fg_options_parse(); the operand left over is the
 * DURATION.  Each option is one row of opts[], from which the parser, the
 * usage line and --help's lists are made.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include "cli.h"
#include "offwake.h"
#include "capture/capture_cfg.h"
#include "common/settings.h"
#include "common/util.h"
#include "export/writers.h"
#include "live/web.h"
#include "base/errmsg.h"

/* The text of --help around the generated parts (print_help()). */
static const char help_intro[] =
	"\nSummarize blocked time by off-CPU stack and waker stack (like bcc's\n"
	"offwaketime) with eBPF, and write a flame graph SVG to standard output.\n";

static const char help_examples[] =
	"examples:\n"
	"  " OW_PROG " -p 1234 10 > out.svg      process 1234 for 10 s, as an SVG\n"
	"  " OW_PROG " -f -u 10 > out.folded     user threads, folded (offwaketime -f)\n"
	"  " OW_PROG " -K --state 2 10 > d.svg   uninterruptible sleeps, kernel stacks\n"
	"  " OW_PROG " -p 1234 -o out.svg --title=\"db stall\"   until Ctrl-C\n"
	"  " OW_PROG " -p 1234 -o out.pb.gz 30   pprof (go tool pprof, Pyroscope)\n";

static const char help_outro[] =
	"Every option of \"" OW_PROG " render\" (flamegraph.pl's options, listed\n"
	"below) is applied to the SVG.  Capture defaults: --colors=chain\n"
	"--countname=us --title=\"Off-Wake Time Flame Graph\" and a subtitle\n"
	"naming what was traced, for how long, and the kernel release.\n"
	"Interrupt-context wakeups get a [hardirq] or [softirq] frame before the\n"
	"waker's name.  Set OFFWAKE_DEBUG=1 to see libbpf's messages.\n"
	"\n"
	"Exit status: 0 success, 1 run-time failure, 2 bad arguments (a -p/-t id\n"
	"that does not exist included) or (SVG) nothing was captured.\n";

static const char auto_subtitle[] = "";

/* argparse's message, and where to look (not the whole usage: the render
 * options alone are 45 lines) */
static int usage_error(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, OW_PROG ": error: ");
	fprintf(stderr, fmt, a, b);
	fputs("\nTry '" OW_PROG " --help' for more information.\n", stderr);
	return 2;
}

/* argparse's int(): optional sign, decimal digits, surrounding spaces. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-' && s[1] >= '0' && s[1] <= '9') {
		*v = 0;
		return -2;	/* negative */
	}
	if (*s < '0' || *s > '9')
		if (*s != '+' || s[1] < '0' || s[1] > '9')
			return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end || errno)
		return -1;
	return 0;
}

/* offwaketime's positive_int / positive_nonzero_int, checked to max. */
static int int_arg(const char *name, const char *val, uint64_t max,
		   bool nonzero, uint64_t *out)
{
	int r = parse_u64(val, out);

	if (r == -1 || (r == 0 && *out > max))
		return usage_error("argument %s: invalid int value: '%s'",
				   name, val);
	if (r == -2)
		return usage_error("argument %s: must be positive%s", name, "");
	if (nonzero && *out == 0)
		return usage_error("argument %s: must be nonzero%s", name, "");
	return 0;
}

/* Seconds, a decimal number > 0 and at most an hour (--interval). */
static int seconds_arg(const char *name, const char *val, double *out)
{
	const double max = 3600;
	char *end;

	errno = 0;
	*out = strtod(val, &end);
	if (end == val || *end || errno || !(*out > 0) || *out > max)
		return usage_error("%s: expected seconds (> 0, at most 3600): '%s'",
				   name, val);
	return 0;
}

/* The option groups: the options of one exclude each other. */
enum { G_NONE, G_THREADS, G_STACKS, G_OUTPUT, G_COUNT };

/* What an option's value is, and how store() puts it in its field. */
enum otype {
	T_BOOL,		/* no value: the bool field is set */
	T_SET,		/* no value: the field is set to .set */
	T_UINT,		/* a decimal integer, .min (0 or 1) to .max */
	T_SECONDS,	/* seconds, > 0 and at most 3600 (a double) */
	T_STR,		/* the text as given (a const char *) */
	T_CHOICE,	/* one of .choices' names: its value */
	T_CUSTOM,	/* .parse() */
};

/* A T_CHOICE value; a hidden one is not offered nor taken from the
 * command line, only as an option's .fixed value (--text's writer). */
struct choice {
	const char *name;
	int value;
	bool hidden;
};

struct opt;
typedef int (*parse_fn)(struct capture_cfg *o, const struct opt *p,
			const char *name, const char *val);

/*
 * One row per capture option, argparse's add_argument() and git's struct
 * option: its names, the value's name (NULL: none, or for a choice the
 * choices), its group, where the value goes (a field of struct
 * capture_cfg, which the engine reads as it is), its type, range, choices
 * and default, and what --help says of it.  The usage line and the options
 * of --help are printed from here, in this order (argparse's: also the
 * order an ambiguous prefix's matches are named in); tests/t_cli_docs.sh
 * checks the man page and the bash completion against --help, choices
 * included.
 */
struct opt {
	char s;			/* short name or 0 */
	const char *l;		/* long name */
	const char *arg;	/* the value's name; NULL: none (T_CHOICE: the
				 * choices, "a|b|c") */
	int group;		/* G_*: which options it excludes */
	enum otype type;
	size_t off, size;	/* the field in struct capture_cfg */
	uint64_t min, max;	/* T_UINT: max, larger is no int; min 1: nonzero */
	uint64_t top;		/* T_UINT: 0, or the most that is taken */
	int set;		/* T_SET's value, or a T_CUSTOM's */
	const struct choice *choices;	/* T_CHOICE, ended by a NULL name */
	const char *fixed;	/* the value of an option that takes none */
	bool eq_ok;		/* no value, but "--NAME=VALUE" is taken */
	const char *def;	/* the default, stored as if given; NULL: 0 */
	parse_fn parse;		/* T_CUSTOM */
	const char *help;	/* lines after the first are indented */
};

#define FIELD(x) .off = offsetof(struct capture_cfg, x), \
	.size = sizeof(((struct capture_cfg *)0)->x)
#define STR_(x) #x
#define STR(x) STR_(x)

/* a choice: its name and the value it stores */
#define CH(n, v) { .name = n, .value = v }
static const struct choice group_choices[] = {
	CH("comm", OW_GROUP_COMM), CH("process", OW_GROUP_PROCESS),
	CH("thread", OW_GROUP_THREAD), { .name = NULL },
};
static const struct choice unwind_choices[] = {
	CH("auto", OW_UNWIND_AUTO), CH("fp", OW_UNWIND_FP),
	CH("cfi", OW_UNWIND_CFI), { .name = NULL },
};
static const struct choice unknown_choices[] = {
	CH("file", false), CH("plain", true), { .name = NULL },
};
static const struct choice python_choices[] = {
	CH("on", OW_PYTHON_ON), CH("off", OW_PYTHON_OFF),
	CH("lines", OW_PYTHON_LINES), { .name = NULL },
};
static const struct choice help_choices[] = { CH("env", 1), { .name = NULL } };
/* --format's: the writers' names (writers.h), made by capture_parse()
 * before anything reads the table; --text's writer is hidden */
#define MAX_WRITERS 16
static struct choice format_choices[MAX_WRITERS + 1];

static int help_opt(struct capture_cfg *, const struct opt *, const char *,
		    const char *);
static int version_opt(struct capture_cfg *, const struct opt *,
		       const char *, const char *);
static int ids_arg(struct capture_cfg *, const struct opt *, const char *,
		   const char *);
static int state_arg(struct capture_cfg *, const struct opt *, const char *,
		     const char *);
static int serve_arg(struct capture_cfg *, const struct opt *, const char *,
		     const char *);

static const struct opt opts[] = {
	{ 'h', "help", NULL, G_NONE, T_CUSTOM, .parse = help_opt,
	  .choices = help_choices, .eq_ok = true,
	  .help = "show this help message and exit (--help=env:\n"
		  "the OFFWAKE_* environment settings)" },
	{ 0, "version", NULL, G_NONE, T_CUSTOM, .parse = version_opt,
	  .help = "show the version and exit" },
	{ 'p', "pid", "PID[,PID...]", G_THREADS, T_CUSTOM, .parse = ids_arg,
	  .set = OW_THREADS_TGID,
	  .help = "trace these processes only" },
	{ 't', "tid", "TID[,TID...]", G_THREADS, T_CUSTOM, .parse = ids_arg,
	  .set = OW_THREADS_TID,
	  .help = "trace these threads only" },
	{ 'u', "user-threads-only", NULL, G_THREADS, T_SET, FIELD(threads),
	  .set = OW_THREADS_USER,
	  .help = "user threads only (no kernel threads)" },
	{ 'k', "kernel-threads-only", NULL, G_THREADS, T_SET, FIELD(threads),
	  .set = OW_THREADS_KERNEL,
	  .help = "kernel threads only (no user threads)" },
	{ 'U', "user-stacks-only", NULL, G_STACKS, T_BOOL, FIELD(user_stacks_only),
	  .help = "show stacks from user space only" },
	{ 'K', "kernel-stacks-only", NULL, G_STACKS, T_BOOL, FIELD(kernel_stacks_only),
	  .help = "show stacks from kernel space only" },
	{ 'd', "delimited", NULL, G_NONE, T_BOOL, FIELD(delimited),
	  .help = "insert delimiter between kernel/user stacks" },
	{ 'f', "folded", NULL, G_OUTPUT, T_CHOICE, FIELD(output),
	  .choices = format_choices, .fixed = "folded",
	  .help = "output folded format (as offwaketime -f)" },
	{ 0, "text", NULL, G_OUTPUT, T_CHOICE, FIELD(output),
	  .choices = format_choices, .fixed = "text",
	  .help = "output offwaketime's multi-line text format" },
	{ 0, "format", NULL, G_OUTPUT, T_CHOICE, FIELD(output),
	  .choices = format_choices, .def = "svg",
	  .help = "what to write (default svg, or\n"
		  "by -o FILE's extension: .svg, .folded, .pb.gz,\n"
		  ".speedscope.json); pprof is gzipped\n"
		  "profile.proto with addresses, build ids and\n"
		  "comm/pid/tid labels, not written to a terminal" },
	{ 0, "stack-storage-size", "N", G_NONE, T_UINT, FIELD(stack_storage_size),
	  .min = 1, .max = UINT32_MAX / 2, .def = "131072",
	  .help = "the number of unique stack traces the kernel\n"
		  "side remembers having sent (default 131072);\n"
		  "more are sent again, nothing is lost" },
	{ 0, "ring-buffer-size", "MB", G_NONE, T_UINT, FIELD(ringbuf_mb),
	  .min = 1, .max = 4096,
	  .help = "the buffer that brings stacks and process\n"
		  "events to user space (default: 4 per CPU, 8 to\n"
		  "256; rounded up to a power of 2); as much again\n"
		  "for the copies of stacks whose tables are late" },
	{ 0, "backlog", "N", G_NONE, T_UINT, FIELD(stack_backlog),
	  .min = 1, .max = 1 << 24,
	  .help = "stacks the kernel side keeps when the ring\n"
		  "buffer is full, until read (default: by the\n"
		  "machine's memory, 1/128 of it, 16384 to\n"
		  "1048576; about 1 KB each, taken as used): a\n"
		  "slow reader loses nothing until it is full" },
	{ 'm', "min-block-time", "US", G_NONE, T_UINT, FIELD(min_block_us),
	  .min = 1, .max = UINT64_MAX, .def = "1",
	  .help = "only blocks of at least US microseconds\n"
		  "(default 1)" },
	{ 'M', "max-block-time", "US", G_NONE, T_UINT, FIELD(max_block_us),
	  .min = 1, .max = UINT64_MAX, .def = "18446744073709551615",
	  .help = "only blocks of at most US microseconds\n"
		  "(default U64_MAX)" },
	{ 0, "state", "MASK", G_NONE, T_CUSTOM, FIELD(state), .parse = state_arg,
	  .max = UINT32_MAX,
	  .help = "only tasks whose state has any bit of MASK set\n"
		  "(1 interruptible, 2 uninterruptible: 3 either;\n"
		  "as offwaketime); 0 means running (preempted) only" },
	{ 'o', "output", "FILE", G_NONE, T_STR, FIELD(out_file),
	  .help = "write the output to FILE (atomically)" },
	{ 'q', "quiet", NULL, G_NONE, T_BOOL, FIELD(quiet),
	  .help = "no live status line (shown on a terminal only)" },
	{ 0, "live", NULL, G_NONE, T_BOOL, FIELD(live),
	  .help = "watch it live in the terminal: a tree of blocked\n"
		  "stacks and their wakers, hottest first, with the\n"
		  "last interval's time and the time since the start\n"
		  "(keys: f follow, / search, space freeze, v view,\n"
		  "w write a file, q quit and write the output)" },
	{ 0, "interval", "S", G_NONE, T_SECONDS, FIELD(interval), .def = "1",
	  .help = "seconds between a live view's refreshes\n"
		  "(--live, --serve; default 1)" },
	{ 0, "group", NULL, G_NONE, T_CHOICE, FIELD(group),
	  .choices = group_choices, .def = "comm",
	  .help = "name the bottom (and waker) frame comm\n"
		  "(default, as offwaketime), comm-PID or\n"
		  "comm-PID/TID, to single out a process or thread" },
	{ 0, "follow", NULL, G_NONE, T_BOOL, FIELD(follow),
	  .help = "with -p: also trace the processes they start\n"
		  "during the capture (followed in the kernel)" },
	{ 0, "cgroup", "PATH", G_NONE, T_STR, FIELD(cgroup),
	  .help = "only tasks in this cgroup v2 directory and its\n"
		  "descendants (filtered in the kernel); with\n"
		  "-p/-t/-u/-k/--follow or -- CMD, the tasks both\n"
		  "select" },
	{ 0, "unwind", NULL, G_NONE, T_CHOICE, FIELD(unwind),
	  .choices = unwind_choices, .def = "auto",
	  .help = "how user stacks are walked: cfi follows each\n"
		  "file's unwind tables (.eh_frame, .debug_frame),\n"
		  "which needs no frame pointers; fp follows frame\n"
		  "pointers (as offwaketime); auto (default): the\n"
		  "tables where a file has them, frame pointers\n"
		  "elsewhere (JIT code, files that cannot be read)" },
	{ 0, "unknown-frames", NULL, G_NONE, T_CHOICE, FIELD(plain_unknown),
	  .choices = unknown_choices, .def = "file",
	  .help = "user frames without a symbol: file (default)\n"
		  "names them after their file, \"[libc.so.6]\", as\n"
		  "perf does; plain shows offwaketime's \"[unknown]\"" },
	{ 0, "python", NULL, G_NONE, T_CHOICE, FIELD(python),
	  .choices = python_choices, .def = "on",
	  .help = "CPython 3.11/3.12 frames in user stacks, in place of\n"
		  "the interpreter's: on (default) names them\n"
		  "\"function (file.py)\", lines adds \":LINE\", off\n"
		  "keeps the interpreter's C frames" },
	{ 0, "unwind-memory", "MB", G_NONE, T_UINT, FIELD(unwind_mb),
	  .min = 1, .max = 65536, .def = "32",
	  .help = "kernel memory for unwind tables (default 32;\n"
		  "files whose tables do not fit use frame pointers)" },
	{ 0, "chain-depth", "N", G_NONE, T_UINT, FIELD(chain_depth),
	  .min = 1, .max = UINT32_MAX, .top = OW_CHAIN_MAX, .def = "1",
	  .help = "wakeup chain levels, 1 to 4 (default 1: the waker):\n"
		  "2 adds who last woke the waker before it woke\n"
		  "the target, and so on, each after a \"--\"" },
	{ 0, "chain-max-age", "US", G_NONE, T_UINT, FIELD(chain_max_age_us),
	  .min = 1, .max = UINT64_MAX / 1000, .def = STR(OW_CHAIN_MAX_AGE_US),
	  .help = "a level is kept when the waker's own wakeup was\n"
		  "at most US before it woke the next (default\n"
		  "10000): older, the chain ends there" },
	{ 0, "timeline", NULL, G_NONE, T_BOOL, FIELD(timeline),
	  .help = "keep every block of at least --event-min as an\n"
		  "event too (start, end, wakeup, CPU, state; in the\n"
		  "sums all the same): pprof gets a sample per such\n"
		  "block, labelled start and duration (ns)" },
	{ 0, "event-min", "US", G_NONE, T_UINT, FIELD(event_min_us),
	  .min = 1, .max = UINT64_MAX / 1000, .def = "1000",
	  .help = "the blocks --timeline keeps as events: at least\n"
		  "US microseconds (default 1000); shorter ones are\n"
		  "only summed" },
	{ 0, "serve", "[ADDR:]PORT", G_NONE, T_CUSTOM, FIELD(serve),
	  .parse = serve_arg,
	  .help = "serve a live view of the capture over HTTP, a\n"
		  "page that updates every --interval with\n"
		  "downloads of the SVG, folded and pprof; on\n"
		  "127.0.0.1 unless ADDR is given (PORT 0: any free\n"
		  "port; the address is printed, with a token that\n"
		  "every request must carry)" },
};
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NOPTS ARRAY_SIZE(opts)

/* The operands, for the usage line (each in brackets) and --help. */
static const struct {
	const char *name;
	const char *help;
} operands[] = {
	{ "DURATION",
	  "seconds to trace (default: until SIGINT/SIGTERM,\n"
	  "which end the capture and still write the output)" },
	{ "-- CMD [ARGS...]",
	  "start CMD, trace it and every process it starts\n"
	  "until it exits (or DURATION, the most, ends: CMD\n"
	  "is left running); exit status: CMD's when it\n"
	  "failed (128+N for signal N), else the capture's" },
};

/* "-p/--pid" as argparse names an option in messages. */
static const char *opt_name(const struct opt *p)
{
	static char buf[64];

	if (p->s)
		snprintf(buf, sizeof(buf), "-%c/--%s", p->s, p->l);
	else
		snprintf(buf, sizeof(buf), "--%s", p->l);
	return buf;
}

/* One row of --help, as argparse lays it out: "  NAME", the help from
 * column 24 (two spaces after a longer NAME), its further lines under it. */
static void help_row(FILE *f, const char *name, const char *help)
{
	int n = fprintf(f, "  %s", name);

	fprintf(f, "%*s", n < 22 ? 24 - n : 2, "");
	for (const char *nl; (nl = strchr(help, '\n')); help = nl + 1)
		fprintf(f, "%.*s\n%24s", (int)(nl - help), help, "");
	fprintf(f, "%s\n", help);
}

/* Whether a value follows the option's name. */
static bool takes_value(const struct opt *p)
{
	return p->arg || (p->type == T_CHOICE && !p->fixed);
}

/* The value's name: the row's, or a choice's choices, "auto|fp|cfi". */
static const char *value_name(const struct opt *p)
{
	static char buf[128];
	size_t n = 0;

	if (p->arg)
		return p->arg;
	buf[0] = 0;
	for (const struct choice *c = p->choices; c->name && n < sizeof(buf); c++)
		if (!c->hidden)
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "|" : "", c->name);
	return buf;
}

/* "-p PID[,PID...]" (usage) or "-p, --pid PID[,PID...]" (help) */
static const char *opt_invocation(const struct opt *p, bool usage)
{
	static char buf[96];
	int n;

	if (p->s && usage)
		n = snprintf(buf, sizeof(buf), "-%c", p->s);
	else if (p->s)
		n = snprintf(buf, sizeof(buf), "-%c, --%s", p->s, p->l);
	else
		n = snprintf(buf, sizeof(buf), "--%s", p->l);
	if (takes_value(p))
		snprintf(buf + n, sizeof(buf) - n, " %s", value_name(p));
	return buf;
}

/* Add part (one "[...]" item) to the usage line, wrapped as argparse
 * wraps (78 columns, further lines under the first option).  *col is the
 * line's length. */
static void usage_part(FILE *f, int *col, const char *part)
{
	static const int indent = sizeof("usage: " OW_PROG " ") - 1;
	int len = strlen(part);

	if (*col > indent && *col + 1 + len > 78)
		*col = fprintf(f, "\n%*s", indent, "") - 1;
	else if (*col > indent)
		*col += fprintf(f, " ");
	*col += fprintf(f, "%s", part);
}

/* Whether opts[j] goes in opts[i]'s bracket of the usage line. */
static bool same_group(size_t i, size_t j)
{
	return i == j || (opts[i].group && opts[j].group == opts[i].group);
}

/* argparse's usage: every option in table order, a group's members in one
 * bracket at its first member's place, then the operands. */
static void print_usage(FILE *f)
{
	char part[256];
	int col = fprintf(f, "usage: " OW_PROG " ");

	for (size_t i = 0; i < NOPTS; i++) {
		size_t n = 0, j;

		for (j = 0; j < i && !same_group(i, j); j++)
			;
		if (j < i)
			continue;	/* printed with its group */
		for (j = i; j < NOPTS; j++)
			if (same_group(i, j))
				n += snprintf(part + n, sizeof(part) - n, "%s%s",
					      n ? " | " : "[", opt_invocation(&opts[j], true));
		snprintf(part + n, sizeof(part) - n, "]");
		usage_part(f, &col, part);
	}
	usage_part(f, &col, "[RENDER OPTIONS]");
	for (size_t i = 0; i < ARRAY_SIZE(operands); i++) {
		snprintf(part, sizeof(part), "[%s]", operands[i].name);
		usage_part(f, &col, part);
	}
	fprintf(f, "\n       " OW_PROG " COMMAND [ARGS...]\n");
}

static void print_help(FILE *f)
{
	print_usage(f);
	fprintf(f, "%s\ncommands (each has its own --help):\n", help_intro);
	for (const struct ow_command *c = ow_commands; c->name; c++) {
		char name[128];

		snprintf(name, sizeof(name), "%s %s", c->name, c->args);
		help_row(f, name, c->help);
	}
	fprintf(f, "\n%s\npositional arguments:\n", help_examples);
	for (size_t i = 0; i < ARRAY_SIZE(operands); i++)
		help_row(f, operands[i].name, operands[i].help);
	fprintf(f, "\noptions:\n");
	for (size_t i = 0; i < NOPTS; i++)
		help_row(f, opt_invocation(&opts[i], false), opts[i].help);
	fprintf(f, "\n%s\nrender options:\n", help_outro);
	fg_usage(f, OW_PROG " render");
}

struct parse_state {
	const struct opt *seen[G_COUNT];	/* per group, the option given */
};

/* FILE's extension: after the last '.' of its last component, not the
 * one of a dot file (".svg"), nor an empty one; NULL when none. */
static const char *file_ext(const char *file)
{
	const char *base = strrchr(file, '/'), *dot;

	base = base ? base + 1 : file;
	dot = strrchr(base, '.');
	return dot && dot > base && dot[1] ? dot : NULL;
}

/*
 * -o FILE without -f, --text or --format: the format its extension names
 * (.svg, .folded, .pb.gz, .speedscope.json); no extension, the SVG; any
 * other extension (x.pdf, x.png) is refused, not written as an SVG.  On
 * a terminal (no -o) only the formats of lines to read are written (-f,
 * --text), as gzip refuses to: an SVG, pprof or speedscope's JSON is
 * refused before tracing (-o /dev/stdout insists).
 */
static int pick_format(struct capture_cfg *o, const struct parse_state *ps)
{
	const struct ow_writer *w;
	const char *ext;
	char exts[128];
	int f;

	if (o->out_file && !ps->seen[G_OUTPUT]) {
		if ((f = ow_writer_by_path(o->out_file)) >= 0)
			o->output = f;
		else if ((ext = file_ext(o->out_file))) {
			ow_err("-o %s: no format writes %s files (name it %s, or give --format or -f)",
			       o->out_file, ext,
			       ow_writer_exts(exts, sizeof(exts), "*%s", ", "));
			return 2;
		}
	}
	w = &ow_writers[o->output];
	if (!w->to_read && !o->out_file && isatty(STDOUT_FILENO)) {
		ow_err("standard output is a terminal: not writing %s%s output there (use -o FILE%s, -f for folded lines, or redirect it)",
		       w->binary ? "binary " : "", w->name, w->ext);
		return 2;
	}
	return 0;
}

/* v in the field of p, whichever its size (bool, enum or int, uint32_t,
 * uint64_t; none: nothing). */
static void put_int(struct capture_cfg *o, const struct opt *p, uint64_t v)
{
	void *f = (char *)o + p->off;

	if (p->size == sizeof(bool))
		*(bool *)f = v;
	else if (p->size == sizeof(uint32_t))
		*(uint32_t *)f = v;
	else if (p->size == sizeof(uint64_t))
		*(uint64_t *)f = v;
}

/* The choice named val, stored in the field of p (the one choice parser:
 * --group, --unwind, --format, -f, --help=...). */
static int choice_arg(struct capture_cfg *o, const struct opt *p,
		      const char *name, const char *val)
{
	char list[256], fmt[400];
	size_t n = 0;

	for (const struct choice *c = p->choices; c->name; c++)
		if (!strcmp(c->name, val) && (!c->hidden || val == p->fixed)) {
			put_int(o, p, c->value);
			return 0;
		}
	list[0] = 0;
	for (const struct choice *c = p->choices; c->name && n < sizeof(list); c++)
		if (!c->hidden)
			n += snprintf(list + n, sizeof(list) - n, "%s'%s'", n ? ", " : "", c->name);
	/* the names have no '%' */
	snprintf(fmt, sizeof(fmt), "argument %%s: invalid choice: '%%s' (choose from %s)", list);
	return usage_error(fmt, name, val);
}

/* An integer in p's range, stored in its field. */
static int uint_arg(struct capture_cfg *o, const struct opt *p,
		    const char *name, const char *val)
{
	char fmt[128];
	uint64_t v;
	int r = int_arg(name, val, p->max, p->min > 0, &v);

	if (!r && p->top && v > p->top) {
		snprintf(fmt, sizeof(fmt), "argument %%s: must be %llu to %llu, not '%%s'",
			 (unsigned long long)p->min, (unsigned long long)p->top);
		r = usage_error(fmt, name, val);
	}
	put_int(o, p, v);
	return r;
}

/* val, the option's value (NULL: it takes none), in the field of p. */
static int store(struct capture_cfg *o, const struct opt *p, const char *name,
		 const char *val)
{
	void *f = (char *)o + p->off;

	if (p->fixed)
		val = p->fixed;
	switch (p->type) {
	case T_BOOL:
		*(bool *)f = true;
		return 0;
	case T_SET:
		put_int(o, p, p->set);
		return 0;
	case T_UINT:
		return uint_arg(o, p, name, val);
	case T_SECONDS:
		return seconds_arg(name, val, f);
	case T_STR:
		*(const char **)f = val;
		return 0;
	case T_CHOICE:
		return choice_arg(o, p, name, val);
	case T_CUSTOM:
		return p->parse(o, p, name, val);
	}
	return 0;
}

/* The option p given (with val), after the options it excludes. */
static int apply(struct capture_cfg *o, struct parse_state *ps,
		 const struct opt *p, const char *val)
{
	int g = p->group;

	if (g && ps->seen[g] && ps->seen[g] != p) {
		char other[64];

		snprintf(other, sizeof(other), "%s", opt_name(ps->seen[g]));
		return usage_error("argument %s: not allowed with argument %s",
				   opt_name(p), other);
	}
	if (g)
		ps->seen[g] = p;
	return store(o, p, opt_name(p), val);
}

/* The custom parsers. */

/* --help, or --help=env: the settings (common/settings.h). */
static int help_opt(struct capture_cfg *o, const struct opt *p,
		    const char *name, const char *val)
{
	const char *arg, *help, *env;

	if (val && choice_arg(o, p, name, val))	/* "env" only */
		return 2;
	if (!val) {
		print_help(stdout);
		return 1;
	}
	printf("environment settings (read at the start; most are for the tests):\n");
	for (size_t i = 0; (env = ow_setting_row(i, &arg, &help)); i++) {
		char row[96];

		snprintf(row, sizeof(row), "%s=%s", env, arg);
		help_row(stdout, row, help);
	}
	return 1;
}
static int version_opt(struct capture_cfg *o, const struct opt *p,
		       const char *name, const char *val)
{
	printf("%s %s\n", OW_PROG, OFFWAKE_VERSION);
	return 1;
}

/* -p, -t: the ids, comma-separated; p->set is what o->threads becomes. */
static int ids_arg(struct capture_cfg *o, const struct opt *p,
		   const char *name, const char *val)
{
	char *copy = strdup(val), *tok, *save = NULL;
	size_t n = 1;
	uint32_t *ids;
	uint64_t v;
	int r = 0;

	o->threads = p->set;
	for (const char *c = val; *c; c++)
		n += *c == ',';
	ids = realloc(o->ids, n * sizeof(*ids));
	if (!copy || !ids) {
		free(copy);
		return usage_error("argument %s: %s", name, strerror(ENOMEM));
	}
	o->ids = ids;
	o->nids = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !r;
	     tok = strtok_r(NULL, ",", &save)) {
		r = int_arg(name, tok, INT32_MAX, false, &v);
		o->ids[o->nids++] = v;
	}
	if (!r && !o->nids)
		r = usage_error("argument %s: invalid int value: '%s'", name,
				val);
	free(copy);
	return r;
}

/* --state MASK: 0 is a mask too (running only), so has_state says given. */
static int state_arg(struct capture_cfg *o, const struct opt *p,
		     const char *name, const char *val)
{
	o->has_state = true;
	return uint_arg(o, p, name, val);
}

static int serve_arg(struct capture_cfg *o, const struct opt *p,
		     const char *name, const char *val)
{
	if (web_parse_addr(val, NULL))
		return usage_error("%s: expected [ADDR:]PORT (an IPv4 address, or IPv6 in brackets; PORT 0 to 65535): '%s'",
				   "--serve", val);
	o->serve = val;
	return 0;
}

static const struct opt *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strlen(opts[i].l) == len && !strncmp(opts[i].l, name, len))
			return &opts[i];
	return NULL;
}

static const struct opt *find_short(char c)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].s && opts[i].s == c)
			return &opts[i];
	return NULL;
}

/* Our option that name (len bytes) abbreviates, as argparse allows: a
 * unique prefix; NULL (message printed, *r set) when none or ambiguous. */
static const struct opt *find_prefix(const char *name, size_t len,
				     const char *arg, int *r)
{
	const struct opt *hit = NULL;
	char all[256] = "";
	size_t n = 0, used = 0;

	for (size_t i = 0; i < NOPTS; i++)
		if (!strncmp(opts[i].l, name, len)) {
			hit = &opts[i];
			n++;
			used += snprintf(all + used, used < sizeof(all) ? sizeof(all) - used : 0,
					 "%s--%s", n > 1 ? ", " : "", opts[i].l);
		}
	if (n == 1)
		return hit;
	*r = n ? usage_error("ambiguous option: %s could match %s", arg, all) :
		 usage_error("unrecognized arguments: %s%s", arg,
			     " (render options are taken by their full names)");
	return NULL;
}

/*
 * Parse one "--name[=value]": ours (by name, or a unique prefix as
 * argparse allows), else a render option by its full name, stored in rest
 * with its value.  0 done, else the exit status.
 */
static int long_opt(struct capture_cfg *o, struct parse_state *ps,
		    int argc, char **argv, int *i, char **rest, int *nrest)
{
	const char *a = argv[*i] + 2, *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const struct opt *p = find_long(a, len);
	int arity, r = 0;

	if (!p && (arity = fg_option_arity(a, len)) >= 0) {
		rest[(*nrest)++] = argv[*i];
		if (arity && !eq) {
			if (*i + 1 >= argc)
				return usage_error("argument %s: expected one argument%s",
						   argv[*i], "");
			rest[(*nrest)++] = argv[++*i];
		}
		return 0;
	}
	if (!p && !(p = find_prefix(a, len, argv[*i], &r)))
		return r;
	if (!takes_value(p)) {
		if (eq && !p->eq_ok)
			return usage_error("argument %s: ignored explicit argument '%s'",
					   opt_name(p), eq + 1);
		return apply(o, ps, p, eq ? eq + 1 : NULL);
	}
	if (eq)
		return apply(o, ps, p, eq + 1);
	if (*i + 1 >= argc)
		return usage_error("argument %s: expected one argument%s",
				   opt_name(p), "");
	return apply(o, ps, p, argv[++*i]);
}

/* Parse a bundle of short options ("-fK", "-p123", "-p 123"); a letter
 * offwaketime does not have is an error (not a render option's prefix:
 * "-s 5" is no --subtitle). */
static int short_opts(struct capture_cfg *o, struct parse_state *ps,
		      int argc, char **argv, int *i)
{
	const char *a = argv[*i] + 1;
	int r;

	if (!find_short(*a))	/* offwaketime's letters only */
		return usage_error("unrecognized arguments: %s%s", argv[*i],
				   " (render options are taken by their full names, as --title)");
	for (; *a; a++) {
		const struct opt *p = find_short(*a);

		if (!p) {
			char c[2] = { *a, 0 };

			return usage_error("unrecognized arguments: -%s%s", c,
					   "");
		}
		if (takes_value(p)) {
			if (a[1])
				return apply(o, ps, p, a + 1);
			if (*i + 1 >= argc)
				return usage_error("argument %s: expected one argument%s",
						   opt_name(p), "");
			return apply(o, ps, p, argv[++*i]);
		}
		r = apply(o, ps, p, NULL);
		if (r)
			return r;
	}
	return 0;
}

int capture_parse(struct capture_cfg *o, int argc, char **argv)
{
	struct parse_state ps = { { 0 } };
	char **rest = calloc(argc + 1, sizeof(*rest));
	int nrest = 0, nfiles = 0, r = 0;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < ow_nwriters && i < MAX_WRITERS; i++)
		format_choices[i] = (struct choice){ ow_writers[i].name, i,
						     ow_writers[i].own_option };
	for (size_t i = 0; i < NOPTS; i++)	/* the defaults */
		if (opts[i].def)
			store(o, &opts[i], opts[i].l, opts[i].def);
	fg_options_init(&o->fg);
	o->fg.colors = "chain";
	o->fg.countname = "us";
	o->fg.title = "Off-Wake Time Flame Graph";
	o->fg.subtitle = auto_subtitle;
	/* nothing captured: the SVG says so (why is on stderr) */
	o->fg.empty_text = "No blocked time matched what was traced (see the message on stderr)";
	if (!rest) {
		ow_err("parsing arguments: %s", strerror(ENOMEM));
		return 2;
	}
	for (int i = 1; i < argc && !r; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {	/* -- CMD [ARGS...] */
			if (i + 1 < argc)
				o->cmd = &argv[i + 1];
			break;
		}
		if (a[0] == '-' && a[1] == '-' && a[2])
			r = long_opt(o, &ps, argc, argv, &i, rest, &nrest);
		else if (a[0] == '-' && a[1])
			r = short_opts(o, &ps, argc, argv, &i);
		else
			rest[nrest++] = argv[i];	/* DURATION */
	}
	if (!r) {
		r = fg_options_parse_ex(&o->fg, nrest, rest, &nfiles, OW_PROG,
					FG_PARSE_NO_USAGE);
		if (r < 0) {
			fputs("Try '" OW_PROG " --help' for more information.\n", stderr);
			r = 2;
		}
	}
	if (!r && nfiles > 1)
		r = usage_error("unrecognized arguments: %s%s", rest[1], "");
	if (!r && nfiles == 1) {
		r = int_arg("duration", rest[0], UINT32_MAX, true, &v);
		o->duration = v;
	}
	if (!r)
		r = pick_format(o, &ps);
	if (!r && o->cmd && o->threads != OW_THREADS_ALL)
		r = usage_error("argument -- CMD: not allowed with argument %s%s",
				ps.seen[G_THREADS] ? opt_name(ps.seen[G_THREADS]) : "-p/-t/-u/-k", "");
	if (!r && o->follow && o->threads != OW_THREADS_TGID && !o->cmd)
		r = usage_error("argument --follow: needs -p PID (or -- CMD)%s%s", "", "");
	o->cmd_go = -1;
	o->subtitle_set = o->fg.subtitle != auto_subtitle;
	free(rest);
	return r;
}

void capture_cfg_free(struct capture_cfg *o)
{
	free(o->ids);
	o->ids = NULL;
}
