// SPDX-License-Identifier: Apache-2.0
/*
 * output.c - the three outputs of a capture, from the summed keys, whose
 * stacks the capture symbolised already (fold.c):
 *
 * -f: offwaketime -f's folded lines, smallest count first:
 *   target;target user frames (root first);"-" with -d, else an empty
 *   frame;target kernel frames (root first, ending at __schedule);--;
 *   waker kernel frames (leaf first);"-" or empty;waker user frames (leaf
 *   first);[softirq]/[hardirq] for interrupt wakeups;waker COUNT
 *   With --chain-depth, each further level of the wakeup chain follows:
 *   --;its kernel frames (leaf first);"-" or empty;its user frames;its
 *   [softirq]/[hardirq];its name.
 *   One line per key, as offwaketime prints them (keys that differ only
 *   in pids print the same line twice); lines of equal counts are in the
 *   order of their frames.
 * --text: offwaketime's multi-line format (waker stack root first, "--",
 *   target stack leaf first, then the count), one entry per key; chain
 *   levels above the waker, the furthest first, each ending in "--".
 * SVG (default): the -f lines go straight into the renderer's stack set
 *   (fg_stacks_add, no text round trip) and fg_render() draws them; there
 *   the capture summed keys that differ only in pids (or in stacks that
 *   symbolise to the same names) into one line already.
 * --format=pprof|speedscope: the same stack set, written by the exporters
 *   (reports/export.h), with the capture's parameters as pprof comments.
 *
 * Counts are microseconds: the kernel sums nanoseconds per key and we
 * divide the sum once (offwaketime truncates every block to whole
 * microseconds before adding).  -o opens FILE before the capture starts
 * (so a bad FILE fails at once) through ow_outfile (render/outfile.c): a
 * regular file is replaced atomically when the output is complete, a
 * device, FIFO or socket written directly.  A reader that went away
 * (EPIPE, when SIGPIPE is ignored) ends the output quietly, as SIGPIPE.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "fold.h"
#include "engine.h"
#include "output.h"
#include "common/util.h"
#include "export/export.h"
#include "export/export_pprof.h"
#include "base/errmsg.h"

#define MAX_LINE_FRAMES ((KS_NR + LS_NR * (OW_CHAIN_MAX - 1)) * \
			 OW_MAX_STACK_DEPTH + 6 + 5 * (OW_CHAIN_MAX - 1))

static int cmp_stack(const struct symstack *a, const struct symstack *b)
{
	int r = 0;

	for (uint32_t i = 0; !r && i < a->n && i < b->n; i++)
		r = strcmp(a->f[i].name, b->f[i].name);
	return r ? r : (a->n > b->n) - (a->n < b->n);
}

/* Entries by count, then key (--text, as offwaketime) or frames (-f). */
static int cmp_entry(const void *a, const void *b, void *text)
{
	const struct agg_entry *x = *(struct agg_entry *const *)a;
	const struct agg_entry *y = *(struct agg_entry *const *)b;
	int r;

	if (x->ns / 1000 != y->ns / 1000)
		return x->ns / 1000 < y->ns / 1000 ? -1 : 1;
	if (*(bool *)text)
		return memcmp(&x->key, &y->key, sizeof(x->key));
	r = strncmp(x->key.target, y->key.target, OW_COMM_LEN);
	for (int i = 0; !r && i < KS_NR; i++)
		r = cmp_stack(x->stk[i], y->stk[i]);
	r = r ? r : strncmp(x->key.waker, y->key.waker, OW_COMM_LEN);
	for (int i = 0; !r && i < OW_CHAIN_MAX - 1; i++) {	/* chain levels */
		const struct ow_level *a = &x->key.up[i], *b = &y->key.up[i];

		if (!a->comm[0] || !b->comm[0])
			return (a->comm[0] != 0) - (b->comm[0] != 0);
		for (int j = 0; !r && j < LS_NR; j++)
			r = cmp_stack(x->up[i][j], y->up[i][j]);
		r = r ? r : strncmp(a->comm, b->comm, OW_COMM_LEN);
	}
	return r;
}

/* The summed entries, smallest first (as offwaketime sorts them). */
static struct agg_entry **sorted_entries(struct agg *a, bool text)
{
	struct agg_entry **v = malloc((a->n + 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < a->n; i++)
		v[i] = &a->ent[i];
	qsort_r(v, a->n, sizeof(*v), cmp_entry, &text);
	return v;
}

/* A level of the wakeup chain past the waker: name, context, stacks. */
struct level {
	const char *name, *ctx;
	char gname[64];		/* --group: comm-PID[/TID] */
	const struct symstack *stk[LS_NR];
	uint32_t pid;
};

/* A key's pieces: names of target and waker, the waker's context, and
 * the chain's further levels. */
struct parts {
	const char *target, *waker, *wctx;
	char tname[64], wname[64];	/* --group: comm-PID[/TID] */
	const struct symstack *stk[KS_NR];
	struct level up[OW_CHAIN_MAX - 1];
	int nup;
};

/* comm, comm-PID or comm-PID/TID (--group); a missing comm stays empty */
static const char *group_name(char *buf, size_t len, const char *comm,
			      uint32_t tgid, uint32_t pid, enum ow_group g)
{
	if (g == OW_GROUP_COMM || !comm[0])
		return comm;
	if (g == OW_GROUP_PROCESS)
		snprintf(buf, len, "%s-%u", comm, tgid);
	else
		snprintf(buf, len, "%s-%u/%u", comm, tgid, pid);
	return buf;
}

static void entry_parts(struct folder *fo, const struct agg_entry *e,
			struct parts *p, enum ow_group g)
{
	p->target = group_name(p->tname, sizeof(p->tname),
			       fold_comm(fo, e->key.target), e->key.t_tgid,
			       e->key.t_pid, g);
	p->waker = group_name(p->wname, sizeof(p->wname),
			      fold_comm(fo, e->key.waker), e->key.w_tgid,
			      e->key.w_pid, g);
	memcpy(p->stk, e->stk, sizeof(p->stk));
	p->wctx = e->stk[KS_W_KERNEL]->ctx;
	for (p->nup = 0; p->nup < OW_CHAIN_MAX - 1 && e->up[p->nup][LS_KERNEL];
	     p->nup++) {
		struct level *l = &p->up[p->nup];
		const struct ow_level *k = &e->key.up[p->nup];

		l->name = group_name(l->gname, sizeof(l->gname),
				     fold_comm(fo, k->comm), k->tgid, k->pid, g);
		l->pid = k->pid;
		memcpy(l->stk, e->up[p->nup], sizeof(l->stk));
		l->ctx = l->stk[LS_KERNEL]->ctx;
	}
}

/* A folded line's frames, root first, and where each is (loc: pprof's
 * lines only, NULL for the names and markers that are no stack frame). */
struct line {
	const char **fr;
	size_t *lens;
	const struct symloc **loc;	/* NULL: names only */
	size_t n;
};

static void add_name(struct line *l, const char *name, size_t len,
		     const struct symloc *loc)
{
	if (l->loc)
		l->loc[l->n] = loc;
	l->fr[l->n] = name;
	l->lens[l->n++] = len;
}

/* Append the frames of s, root first (up) or leaf first. */
static void add_stack(struct line *l, const struct symstack *s, bool up)
{
	const struct symloc *locs = symstack_locs(s);

	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t j = up ? s->n - 1 - i : i;

		add_name(l, s->f[j].name, s->f[j].len, locs ? &locs[j] : NULL);
	}
}

static void add_str(struct line *l, const char *name)
{
	add_name(l, name, strlen(name), NULL);
}

/* A waker's part of a line: --;kernel (leaf first);delim;user;ctx;name */
static void add_waker(struct line *l, const struct symstack *kstk,
		      const struct symstack *ustk, const char *delim,
		      const char *ctx, const char *name)
{
	add_str(l, "--");
	add_stack(l, kstk, false);
	add_str(l, delim);
	add_stack(l, ustk, false);
	if (ctx)
		add_str(l, ctx);
	add_str(l, name);
}

/* The frames of a folded line, root first, into l (from l->n = 0). */
static void line_frames(const struct parts *p, bool delimited, struct line *l)
{
	const char *delim = delimited ? "-" : "";

	l->n = 0;
	add_str(l, p->target);
	add_stack(l, p->stk[KS_T_USER], true);
	add_str(l, delim);
	add_stack(l, p->stk[KS_T_KERNEL], true);
	add_waker(l, p->stk[KS_W_KERNEL], p->stk[KS_W_USER], delim, p->wctx,
		  p->waker);
	for (int i = 0; i < p->nup; i++)	/* who woke the level below */
		add_waker(l, p->up[i].stk[LS_KERNEL], p->up[i].stk[LS_USER],
			  delim, p->up[i].ctx, p->up[i].name);
}

/* The frames of s, one a line, root first (up) or leaf first. */
static void text_stack(FILE *out, const struct symstack *s, bool up)
{
	for (uint32_t i = 0; i < s->n; i++)
		fprintf(out, "    %s\n", s->f[up ? s->n - 1 - i : i].name);
}

/* One waker's part of a text entry: its name, its stack root first. */
static void text_waker(FILE *out, const char *label, const char *name,
		       uint32_t pid, const char *ctx,
		       const struct symstack *ustk, const struct symstack *kstk,
		       bool delimited)
{
	fprintf(out, "    %-16s %s %u\n", label, name, pid);
	if (ctx)
		fprintf(out, "    %s\n", ctx);
	text_stack(out, ustk, true);
	if (delimited)
		fputs("    -\n", out);
	text_stack(out, kstk, true);
	fprintf(out, "    %-16s %s\n", "--", "--");
}

static void write_text_entry(FILE *out, const struct parts *p,
			     const struct ow_key *k, uint64_t us,
			     bool delimited)
{
	for (int i = p->nup - 1; i >= 0; i--) {	/* the furthest first */
		const struct level *l = &p->up[i];
		char label[24];

		snprintf(label, sizeof(label), "waker %d:", i + 2);
		text_waker(out, label, l->name, l->pid, l->ctx,
			   l->stk[LS_USER], l->stk[LS_KERNEL], delimited);
	}
	text_waker(out, "waker:", p->waker, k->w_pid, p->wctx,
		   p->stk[KS_W_USER], p->stk[KS_W_KERNEL], delimited);
	text_stack(out, p->stk[KS_T_KERNEL], false);
	if (delimited)
		fputs("    -\n", out);
	text_stack(out, p->stk[KS_T_USER], false);
	fprintf(out, "    %-16s %s %u\n", "target:", p->target, k->t_pid);
	fprintf(out, "        %llu\n\n", (unsigned long long)us);
}

static const char *stack_kind(const struct capture_opts *o)
{
	if (o->user_stacks_only)
		return "user";
	if (o->kernel_stacks_only)
		return "kernel";
	return "user + kernel";
}

/* "all threads", "PID 12,34", ... as offwaketime names what it traces. */
static void thread_context(const struct capture_opts *o, char *buf,
			   size_t len)
{
	static const char *const names[] = {
		[OW_THREADS_ALL] = "all threads", [OW_THREADS_TGID] = "PID",
		[OW_THREADS_TID] = "TID", [OW_THREADS_USER] = "user threads",
		[OW_THREADS_KERNEL] = "kernel threads",
	};
	size_t n = snprintf(buf, len, "%s", names[o->threads]);

	for (size_t i = 0; i < o->nids && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%u", i ? "," : " ",
			      o->ids[i]);
}

static void text_header(FILE *out, const struct capture_opts *o)
{
	fprintf(out, "Tracing blocked time (us) by %s off-CPU and waker stack",
		stack_kind(o));
	if (o->duration)
		fprintf(out, " for %llu secs.\n",
			(unsigned long long)o->duration);
	else
		fputs("... Hit Ctrl-C to end.\n", out);
	fputc('\n', out);
}

/* The -f lines as a stack set (SVG, pprof, speedscope); NULL after a
 * message naming what. */
static struct fg_stacks *stack_set(struct capture *c, const struct capture_opts *o,
				   const char *what)
{
	static const char *fr[MAX_LINE_FRAMES];
	static size_t lens[MAX_LINE_FRAMES];
	struct line l = { fr, lens, NULL, 0 };
	struct fg_stacks *s = fg_stacks_new();

	for (size_t i = 0; s && i < c->agg.n; i++) {
		const struct agg_entry *e = &c->agg.ent[i];
		struct parts p;

		entry_parts(&c->fo, e, &p, o->group);
		line_frames(&p, o->delimited, &l);
		if (fg_stacks_add(s, fr, lens, l.n, e->ns / 1000) < 0) {
			fg_stacks_free(s);
			s = NULL;
		}
	}
	if (!s)
		ow_err("%s: %s", what, ow_strerror(errno ? errno : ENOMEM));
	return s;
}

static int render_svg(struct capture *c, const struct capture_opts *o,
		      FILE *out)
{
	struct fg_options fg = o->fg;
	struct fg_stacks *s = stack_set(c, o, "rendering the SVG");
	char subtitle[512], what[256];
	struct utsname u;
	int r;

	if (!s)
		return OW_EXIT_FAIL;
	if (!o->subtitle_set) {
		thread_context(o, what, sizeof(what));
		uname(&u);
		snprintf(subtitle, sizeof(subtitle),
			 "%s, %s stacks, %.1f s, Linux %s", what, stack_kind(o),
			 c->seconds, u.release);
		fg.subtitle = subtitle;
	}
	r = fg_render(&fg, s, out);
	fg_stacks_free(s);
	if (r < 0) {
		if (errno != EPIPE)
			ow_err("%s the SVG: %s", errno == ENOMEM ? "rendering" : "writing",
			       ow_strerror(errno));
		return OW_EXIT_FAIL;
	}
	return r == FG_EXIT_USAGE ? OW_EXIT_USAGE : r;
}

/* -f and --text: the entries, smallest first (as offwaketime). */
static int write_lines(struct capture *c, const struct capture_opts *o,
		       FILE *out)
{
	static const char *fr[MAX_LINE_FRAMES];
	static size_t lens[MAX_LINE_FRAMES];
	struct line l = { fr, lens, NULL, 0 };
	bool text = o->output == OW_OUT_TEXT;
	struct agg_entry **v = sorted_entries(&c->agg, text);

	if (!v) {
		ow_err("sorting the stacks: out of memory");
		return OW_EXIT_FAIL;
	}
	if (text)
		text_header(out, o);
	for (size_t i = 0; i < c->agg.n && !ferror(out); i++) {
		uint64_t us = v[i]->ns / 1000;
		struct parts p;

		entry_parts(&c->fo, v[i], &p, o->group);
		if (text) {
			write_text_entry(out, &p, &v[i]->key, us, o->delimited);
			continue;
		}
		line_frames(&p, o->delimited, &l);
		for (size_t j = 0; j < l.n; j++) {
			fwrite(fr[j], 1, lens[j], out);
			fputc(j + 1 < l.n ? ';' : ' ', out);
		}
		fprintf(out, "%llu\n", (unsigned long long)us);
	}
	free(v);
	return OW_EXIT_OK;
}

/*
 * The labels of e's pprof sample: the blocked thread's comm, and its pid
 * and tid as far as --group keeps them in the key (capture.c's
 * shown_key(): their lines are summed otherwise), the same of the waker.
 */
static size_t entry_labels(struct folder *fo, const struct agg_entry *e,
			   enum ow_group g, struct export_label *lab)
{
	static const char *const keys[2][3] = {
		{ "comm", "pid", "tid" }, { "waker_comm", "waker_pid", "waker_tid" },
	};
	const char *comm[2] = { e->key.target, e->key.waker };
	uint32_t tgid[2] = { e->key.t_tgid, e->key.w_tgid };
	uint32_t pid[2] = { e->key.t_pid, e->key.w_pid };
	size_t n = 0;

	for (int i = 0; i < 2; i++) {
		if (!comm[i][0])	/* no waker seen */
			continue;
		lab[n++] = (struct export_label){ keys[i][0], fold_comm(fo, comm[i]), 0 };
		if (g != OW_GROUP_COMM)
			lab[n++] = (struct export_label){ keys[i][1], NULL, tgid[i] };
		if (g == OW_GROUP_THREAD)
			lab[n++] = (struct export_label){ keys[i][2], NULL, pid[i] };
	}
	return n;
}

/* --format=pprof: one sample per summed key, its frames where they are. */
static int write_pprof(struct capture *c, const struct capture_opts *o,
		       const struct export_info *info, FILE *out)
{
	static const char *fr[MAX_LINE_FRAMES];
	static size_t lens[MAX_LINE_FRAMES];
	static const struct symloc *loc[MAX_LINE_FRAMES];
	static struct export_frame ef[MAX_LINE_FRAMES];
	struct line l = { fr, lens, loc, 0 };
	struct export_label lab[6];
	struct pprof *p = pprof_new(info, "writing the profile");
	int r = -1;

	for (size_t i = 0; p && i < c->agg.n; i++) {
		const struct agg_entry *e = &c->agg.ent[i];
		struct parts pa;

		entry_parts(&c->fo, e, &pa, o->group);
		line_frames(&pa, o->delimited, &l);
		for (size_t j = 0; j < l.n; j++)
			ef[j] = (struct export_frame){ fr[j], lens[j],
				loc[j] ? loc[j]->map : NULL, loc[j] ? loc[j]->addr : 0 };
		if (pprof_add(p, ef, l.n, e->ns / 1000, lab,
			      entry_labels(&c->fo, e, o->group, lab))) {
			ow_err("writing the profile: %s", ow_strerror(errno));
			goto out;
		}
	}
	r = p ? pprof_write(p, out) : -1;
out:
	pprof_free(p);
	return r;
}

/* --format=pprof|speedscope: what was traced as comments; speedscope
 * takes the stack set (names), pprof the keys (write_pprof()). */
static int write_export(struct capture *c, const struct capture_opts *o,
			FILE *out)
{
	char com[6][640], title[512];
	const char *comments[6];
	struct export_info info = {
		.countname = o->fg.countname, .name = title, .comments = comments,
		.ncomments = 6, .duration_nanos = c->seconds * 1e9,
		.time_nanos = (int64_t)time(NULL) * 1000000000 - (int64_t)(c->seconds * 1e9),
	};
	struct fg_stacks *s = NULL;
	struct utsname u;
	int r;

	uname(&u);
	snprintf(com[0], sizeof(com[0]), "%s %s: off-wake time (blocked time by off-CPU and waker stack)",
		 OW_PROG, OFFWAKE_VERSION);
	thread_context(o, title, sizeof(title));
	snprintf(com[1], sizeof(com[1]), "traced: %s, %s stacks%s", title, stack_kind(o),
		 o->delimited ? ", delimited" : "");
	snprintf(com[2], sizeof(com[2]), "duration: %.1f s", c->seconds);
	snprintf(com[3], sizeof(com[3]), "block time: at least %llu us", (unsigned long long)o->min_block_us);
	if (o->max_block_us != UINT64_MAX)
		snprintf(com[3] + strlen(com[3]), sizeof(com[3]) - strlen(com[3]), ", at most %llu us",
			 (unsigned long long)o->max_block_us);
	if (o->has_state)
		snprintf(com[4], sizeof(com[4]), "state mask: %u", o->state);
	else
		snprintf(com[4], sizeof(com[4]), "state mask: any");
	snprintf(com[5], sizeof(com[5]), "kernel: Linux %s %s", u.release, u.machine);
	for (int i = 0; i < 6; i++)
		comments[i] = com[i];
	snprintf(title + strlen(title), sizeof(title) - strlen(title), ", %.1f s, Linux %s",
		 c->seconds, u.release);
	if (o->output == OW_OUT_PPROF)
		r = write_pprof(c, o, &info, out);
	else if ((s = stack_set(c, o, "writing the profile")))
		r = export_write(EXPORT_SPEEDSCOPE, s, &info, out, "writing the profile");
	else
		r = -1;
	fg_stacks_free(s);
	return r ? OW_EXIT_FAIL : OW_EXIT_OK;
}

static int write_all(struct capture *c, const struct capture_opts *o,
		     FILE *out)
{
	if (o->output == OW_OUT_SVG)
		return render_svg(c, o, out);
	if (OW_OUT_STACK_SET(o->output))
		return write_export(c, o, out);
	return write_lines(c, o, out);
}

/*
 * Where the file system has no unnamed files (O_TMPFILE), the temporary
 * file has a name: a signal that ends the process removes it first.
 * (SIGKILL cannot be caught: only an unnamed file survives it cleanly.)
 */
static const char *named_tmp;
static const int fatal_signals[] = { SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
				     SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPIPE };

static void on_fatal_signal(int sig)
{
	if (named_tmp)
		unlink(named_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void remove_on_signals(const char *tmp)
{
	struct sigaction sa = { .sa_handler = on_fatal_signal }, old;

	named_tmp = tmp;
	if (!tmp)
		return;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(*fatal_signals); i++)
		if (!sigaction(fatal_signals[i], NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(fatal_signals[i], &sa, NULL);
}

int output_open(struct output *out, const char *path)
{
	memset(out, 0, sizeof(*out));
	out->path = path;
	if (!path) {
		out->f = stdout;
		return 0;
	}
	if (ow_outfile_open(&out->file, path, 0)) {
		ow_err("%s: %s", path, ow_outfile_strerror(&out->file, errno));
		return -1;
	}
	out->f = out->file.f;
	remove_on_signals(out->file.tmp);
	return 0;
}

/* Flush and, with -o, put the file in place (or remove it). */
static int output_close(struct output *out, bool keep)
{
	int err = 0;

	if (out->path) {
		named_tmp = NULL;	/* freed by the close */
		if (!ow_outfile_close(&out->file, keep))
			return 0;
		err = errno;
		out->broken_pipe = err == EPIPE;
		if (!out->broken_pipe)
			ow_err("%s: %s", out->path, ow_strerror(err));
		return -1;
	}
	if (fflush(out->f) || ferror(out->f))
		err = errno ? errno : EIO;
	out->broken_pipe = err == EPIPE;
	if (err && !out->broken_pipe)
		ow_err("writing standard output: %s", strerror(err));
	return err ? -1 : 0;
}

void output_discard(struct output *out)
{
	output_close(out, false);
}

int output_write(struct output *out, struct capture *c,
		 const struct capture_opts *o)
{
	int r;

	errno = 0;
	r = write_all(c, o, out->f);
	/* kept: a good output, and the SVG that says nothing was captured
	 * (exit 2 too, as flamegraph.pl's), not one refused by validation */
	if (output_close(out, r == OW_EXIT_OK || (r == OW_EXIT_USAGE && !c->agg.n)) &&
	    r == OW_EXIT_OK)
		r = OW_EXIT_FAIL;
	return r;
}
