// SPDX-License-Identifier: Apache-2.0
/*
 * output.c - a finished capture as the profile model (export/profile.h),
 * handed to the writer --format chose (export/writers.h), from the summed
 * keys, whose stacks the capture symbolised already (fold.c).  A key is a
 * sample whose typed frames, root first, are what offwaketime -f prints:
 *   target;target user frames (root first);"-" with -d, else an empty
 *   frame;target kernel frames (root first, ending at __schedule);--;
 *   waker kernel frames (leaf first);"-" or empty;waker user frames (leaf
 *   first);[softirq]/[hardirq] for interrupt wakeups;waker COUNT
 *   With --chain-depth, each further level of the wakeup chain follows:
 *   --;its kernel frames (leaf first);"-" or empty;its user frames;its
 *   [softirq]/[hardirq];its name.
 * The writer's needs decide the rest: one sample per key, smallest first,
 * equal counts in the order of their keys (--text, as offwaketime prints
 * them: keys that differ only in pids twice); one per distinct line,
 * smallest first, equal counts in the order of their frames (-f: the
 * capture summed keys that differ only in pids, or in stacks or comms
 * that read the same, and what it could not sum, stacks equal by names
 * only, is summed here); or as summed (the SVG, speedscope, pprof);
 * frames' addresses and mappings, and labels (pprof); with --timeline, each
 * sample of one key carries the key's long blocks kept so far (timeline.h),
 * by start, in the last output as in a live view's or a snapshot's.  The
 * capture's parameters become the SVG's subtitle, the
 * profile's name and comments, and the text's header.
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
#include <math.h>
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
#include "common/safetext.h"
#include "common/util.h"
#include "export/writers.h"
#include "base/errmsg.h"

/* The profile's kinds of code are the stacks' typed frames' kinds. */
_Static_assert((int)OW_PF_NATIVE == (int)OW_FRAME_NATIVE &&
	       (int)OW_PF_KERNEL == (int)OW_FRAME_KERNEL &&
	       (int)OW_PF_JIT == (int)OW_FRAME_JIT &&
	       (int)OW_PF_INTERP == (int)OW_FRAME_INTERP &&
	       (int)OW_PF_MARKER == (int)OW_FRAME_MARKER,
	       "export/profile.h's kinds of code differ from bpf/offwake.h's");

#define MAX_LINE_FRAMES ((KS_NR + LS_NR * (OW_CHAIN_MAX - 1)) * \
			 OW_MAX_STACK_DEPTH + 6 + 5 * (OW_CHAIN_MAX - 1))

static int cmp_stack(const struct symstack *a, const struct symstack *b)
{
	int r = 0;

	for (uint32_t i = 0; !r && i < a->n && i < b->n; i++)
		r = strcmp(a->f[i].name, b->f[i].name);
	return r ? r : (a->n > b->n) - (a->n < b->n);
}

/*
 * A line of the output: an entry, with the count of the entries whose
 * lines read the same (-f: one line per distinct folded stack).
 */
struct row {
	const struct agg_entry *e;
	uint64_t us;
};

/* How rows are ordered: by count first, then by key (--text, as
 * offwaketime) or by what their lines show (-f). */
struct row_order {
	bool by_count, by_key;
};

/* Entries' lines by what they show: names (comms as shown: the capture
 * sums -f's keys so, capture.c's shown_key()), stacks' frames, and the
 * pids --group shows (zero where it does not). */
static int cmp_frames(const struct agg_entry *x, const struct agg_entry *y)
{
	const struct ow_key *a = &x->key, *b = &y->key;
	int r = strncmp(a->target, b->target, OW_COMM_LEN);

	for (int i = 0; !r && i < KS_NR; i++)
		r = cmp_stack(x->stk[i], y->stk[i]);
	r = r ? r : strncmp(a->waker, b->waker, OW_COMM_LEN);
	r = r ? r : memcmp(&a->t_pid, &b->t_pid, 4 * sizeof(a->t_pid));
	for (int i = 0; !r && i < OW_CHAIN_MAX - 1; i++) {	/* chain levels */
		const struct ow_level *p = &a->up[i], *q = &b->up[i];

		if (!p->comm[0] || !q->comm[0])
			return (p->comm[0] != 0) - (q->comm[0] != 0);
		for (int j = 0; !r && j < LS_NR; j++)
			r = cmp_stack(x->up[i][j], y->up[i][j]);
		r = r ? r : strncmp(p->comm, q->comm, OW_COMM_LEN);
		r = r ? r : memcmp(&p->pid, &q->pid, 2 * sizeof(p->pid));
	}
	return r;
}

static int cmp_row(const void *a, const void *b, void *order)
{
	const struct row *x = a, *y = b;
	const struct row_order *o = order;

	if (o->by_count && x->us != y->us)
		return x->us < y->us ? -1 : 1;
	if (o->by_key)
		return memcmp(&x->e->key, &y->e->key, sizeof(x->e->key));
	return cmp_frames(x->e, y->e);
}

/*
 * The summed entries as rows, smallest first (as offwaketime sorts
 * them): one per key (each_key), else one per distinct line, the counts
 * of entries whose lines read the same added up (what the capture's sums
 * leave: stacks equal by names but not by where their frames are).
 * NULL when out of memory; *n the rows.
 */
static struct row *sorted_rows(struct agg *a, bool each_key, bool by_key,
			       size_t *n)
{
	struct row *v = malloc((a->n + 1) * sizeof(*v));
	struct row_order o = { false, by_key };
	size_t m = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < a->n; i++)
		v[i] = (struct row){ &a->ent[i], a->ent[i].ns / 1000 };
	*n = a->n;
	if (!each_key) {
		qsort_r(v, a->n, sizeof(*v), cmp_row, &o);
		for (size_t i = 0; i < a->n; i++) {
			if (m && !cmp_frames(v[m - 1].e, v[i].e))
				v[m - 1].us += v[i].us;
			else
				v[m++] = v[i];
		}
		*n = m;
	}
	o.by_count = true;
	qsort_r(v, *n, sizeof(*v), cmp_row, &o);
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

/* A sample's frames, root first (profile.h's typed frames). */
struct line {
	struct ow_frame *f;
	size_t n;
};

static void add_name(struct line *l, const char *name, size_t len,
		     enum ow_pf_kind kind, const struct symloc *loc)
{
	l->f[l->n++] = (struct ow_frame){ name, len, kind, loc ? loc->map : NULL,
					  loc ? loc->addr : 0, 0,
					  loc ? loc->src : NULL };
}

/* Append the frames of s, root first (up) or leaf first. */
static void add_stack(struct line *l, const struct symstack *s, bool up,
		      enum ow_pf_kind kind)
{
	const struct symloc *locs = symstack_locs(s);

	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t j = up ? s->n - 1 - i : i;

		add_name(l, s->f[j].name, s->f[j].len, kind, locs ? &locs[j] : NULL);
	}
}

static void add_str(struct line *l, const char *name, enum ow_pf_kind kind)
{
	add_name(l, name, strlen(name), kind, NULL);
}

static void add_thread(struct line *l, const char *name, uint32_t tid)
{
	add_str(l, name, OW_PF_THREAD);
	l->f[l->n - 1].tid = tid;
}

/*
 * -d's "-" between a stack's user and kernel frames.  Without -d there is
 * no frame there (offwaketime -f prints none: no empty field, no blank
 * bar in the graph).
 */
static void add_delim(struct line *l, bool delimited)
{
	if (delimited)
		add_str(l, "-", OW_PF_DELIM);
}

/* A waker's part of a line: --;kernel (leaf first);[-;]user;ctx;name */
static void add_waker(struct line *l, const struct symstack *kstk,
		      const struct symstack *ustk, bool delimited,
		      const char *ctx, const char *name, uint32_t tid)
{
	add_str(l, "--", OW_PF_DIVIDER);
	add_stack(l, kstk, false, OW_PF_KERNEL);
	add_delim(l, delimited);
	add_stack(l, ustk, false, OW_PF_NATIVE);
	if (ctx)
		add_str(l, ctx, OW_PF_MARKER);
	add_thread(l, name, tid);
}

/* The frames of a folded line, root first, into l (from l->n = 0). */
static void line_frames(const struct parts *p, const struct ow_key *k,
			bool delimited, struct line *l)
{
	l->n = 0;
	add_thread(l, p->target, k->t_pid);
	add_stack(l, p->stk[KS_T_USER], true, OW_PF_NATIVE);
	add_delim(l, delimited);
	add_stack(l, p->stk[KS_T_KERNEL], true, OW_PF_KERNEL);
	add_waker(l, p->stk[KS_W_KERNEL], p->stk[KS_W_USER], delimited, p->wctx,
		  p->waker, k->w_pid);
	for (int i = 0; i < p->nup; i++)	/* who woke the level below */
		add_waker(l, p->up[i].stk[LS_KERNEL], p->up[i].stk[LS_USER],
			  delimited, p->up[i].ctx, p->up[i].name, p->up[i].pid);
}

static const char *stack_kind(const struct capture_cfg *o)
{
	if (o->user_stacks_only)
		return "user";
	if (o->kernel_stacks_only)
		return "kernel";
	return "user + kernel";
}

#define CMD_SHOWN 60	/* bytes of a -- CMD line shown in the titles */

/*
 * "-- CMD ARGS..." as a shell would read it back (an argument with a space
 * or a quote in single quotes), on one line (each byte that may not be
 * shown, common/safetext.h, as '?'), cut to CMD_SHOWN bytes on a
 * character boundary and ended by "..." then.
 */
static void cmd_line(char *const *cmd, char *buf, size_t len)
{
	size_t n = 0, cut;

	for (char *const *a = cmd; *a && n + 1 < len; a++) {
		bool quote = !**a || strpbrk(*a, " \t'\"\\$`;&|<>()*?[]{}~#!") != NULL;

		if (a != cmd)
			buf[n++] = ' ';
		for (const char *p = quote ? "'" : ""; *p && n + 1 < len; p++)
			buf[n++] = *p;
		for (const char *p = *a, *end = p + strlen(p); p < end && n + 1 < len;) {
			size_t bad, ok = ow_text_span(p, end - p, 0, &bad);

			for (; ok && n + 1 < len; ok--, p++) {
				if (*p == '\'' && quote) {	/* ' -> '\'' */
					for (const char *q = "'\\''"; *q && n + 1 < len; q++)
						buf[n++] = *q;
					continue;
				}
				buf[n++] = *p;
			}
			for (; bad && n + 1 < len; bad--, p++)
				buf[n++] = '?';
		}
		if (quote && n + 1 < len)
			buf[n++] = '\'';
	}
	buf[n] = 0;
	if (n <= CMD_SHOWN)
		return;
	cut = CMD_SHOWN - 3;
	while (cut && ((unsigned char)buf[cut] & 0xc0) == 0x80)
		cut--;	/* not inside a UTF-8 character */
	strcpy(buf + cut, "...");
}

/* "all threads", "PID 12,34", ... as offwaketime names what it traces;
 * "tar cf - /usr (PID 1234)" for -- CMD (and " in cgroup PATH"). */
void output_traced(const struct capture_cfg *o, char *buf, size_t len)
{
	static const char *const names[] = {
		[OW_THREADS_ALL] = "all threads", [OW_THREADS_TGID] = "PID",
		[OW_THREADS_TID] = "TID", [OW_THREADS_USER] = "user threads",
		[OW_THREADS_KERNEL] = "kernel threads",
	};
	char cmd[CMD_SHOWN * 4 + 8];
	size_t n;

	if (o->cmd && o->cmd_pid > 0) {
		cmd_line(o->cmd, cmd, sizeof(cmd));
		n = snprintf(buf, len, "%s (PID %d)", cmd, o->cmd_pid);
	} else {
		n = snprintf(buf, len, "%s", names[o->threads]);
		for (size_t i = 0; i < o->nids && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%u", i ? "," : " ",
				      o->ids[i]);
	}
	if (o->cgroup && n < len)
		snprintf(buf + n, len - n, " in cgroup %s", o->cgroup);
}

/* offwaketime's first lines (--text) */
static void text_header(char *buf, size_t len, const struct capture_cfg *o)
{
	size_t n = snprintf(buf, len, "Tracing blocked time (us) by %s off-CPU and waker stack",
			    stack_kind(o));

	if (o->duration)
		snprintf(buf + n, len - n, " for %llu secs.\n\n",
			 (unsigned long long)o->duration);
	else
		snprintf(buf + n, len - n, "... Hit Ctrl-C to end.\n\n");
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

/* The capture as a profile (profile.h): its keys, in the order and with
 * what the writer needs (writers.h). */
struct capsrc {
	struct capture *c;
	const struct capture_cfg *o;
	struct row *sorted;	/* smallest first, or NULL: as summed */
	size_t nsorted;
	unsigned needs;
	bool events;		/* the samples carry their long blocks */
};

static int capture_foreach(const struct ow_profile *prof, ow_sample_fn fn, void *ctx)
{
	static struct ow_frame fr[MAX_LINE_FRAMES];
	const struct capsrc *cs = prof->src;
	struct line l = { fr, 0 };
	struct export_label lab[6];
	int r = 0;

	size_t n = cs->sorted ? cs->nsorted : cs->c->agg.n;

	for (size_t i = 0; !r && i < n; i++) {
		const struct agg_entry *e = cs->sorted ? cs->sorted[i].e : &cs->c->agg.ent[i];
		uint64_t us = cs->sorted ? cs->sorted[i].us : e->ns / 1000;
		struct ow_sample smp = { .frames = fr, .labels = lab, .value = fg_count_of(us) };
		struct parts p;

		if (cs->events)		/* (a row of one entry) */
			smp.events = timeline_of(&cs->c->tl, (size_t)(e - cs->c->agg.ent),
						 &smp.nevents);
		entry_parts(&cs->c->fo, e, &p, cs->o->group);
		line_frames(&p, &e->key, cs->o->delimited, &l);
		smp.nframes = l.n;
		if (cs->needs & OW_NEED_LABELS)
			smp.nlabels = entry_labels(&cs->c->fo, e, cs->o->group, lab);
		r = fn(ctx, &smp);
	}
	return r;
}

/* What fn does with the profile: write it (output_write()) or read it
 * (output_profile()). */
typedef int (*profile_fn)(const struct ow_profile *p, struct fg_options *fg,
			  void *ctx);

/* What was traced: the SVG's subtitle, the profile's name and comments
 * (pprof), offwaketime's header (--text); then fn, with the samples as a
 * writer of `needs` wants them (and their events, with --timeline, if
 * events: a writer's, not the terminal view's reading). */
static int with_profile(struct capture *c, const struct capture_cfg *o,
			unsigned needs, bool events, profile_fn fn, void *ctx)
{
	char com[6][640], title[512], what[256], subtitle[512], preamble[256];
	const char *comments[6];
	struct capsrc cs = { .c = c, .o = o, .needs = needs };
	struct ow_profile prof = {
		.info = {
			.countname = o->fg.countname, .name = title, .comments = comments,
			.ncomments = 6, .duration_nanos = c->seconds * 1e9,
			.time_nanos = (int64_t)time(NULL) * 1000000000 -
				      (int64_t)(c->seconds * 1e9),
		},
		.preamble = preamble, .foreach = capture_foreach, .src = &cs,
	};
	struct fg_options fg = o->fg;
	struct utsname u;
	int r;

	uname(&u);
	snprintf(com[0], sizeof(com[0]), "%s %s: off-wake time (blocked time by off-CPU and waker stack)",
		 OW_PROG, OFFWAKE_VERSION);
	output_traced(o, title, sizeof(title));
	if (!o->subtitle_set) {
		output_traced(o, what, sizeof(what));
		snprintf(subtitle, sizeof(subtitle), "%s, %s stacks, %.1f s, Linux %s", what,
			 stack_kind(o), c->seconds, u.release);
		fg.subtitle = subtitle;
	}
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
	text_header(preamble, sizeof(preamble), o);
	if ((cs.needs & (OW_NEED_EACH_KEY | OW_NEED_LINES)) &&
	    !(cs.sorted = sorted_rows(&c->agg, cs.needs & OW_NEED_EACH_KEY,
				      cs.needs & OW_NEED_KEY_ORDER, &cs.nsorted))) {
		ow_err("sorting the stacks: out of memory");
		return OW_EXIT_FAIL;
	}
	/* events with the rows of one entry each (not -f's summed lines):
	 * those kept so far, up to the time traced so far while it runs (a
	 * live view's refresh, a snapshot: capture_snapshot() set seconds) */
	if (events && c->tl.on && !(cs.needs & OW_NEED_LINES)) {
		if (timeline_index(&c->tl, c->agg.n)) {
			ow_err("indexing the events: out of memory");
			free(cs.sorted);
			return OW_EXIT_FAIL;
		}
		cs.events = true;
		prof.info.has_events = true;
		prof.info.clock_start_ns = c->tl.clock_start_ns;
		prof.info.clock_end_ns = c->finished ? c->tl.clock_end_ns :
					 c->tl.clock_start_ns + llround(c->seconds * 1e9);
		prof.info.event_min_ns = o->event_min_us * 1000;
		prof.info.events_lost = capture_events_lost(c);
	}
	r = fn(&prof, &fg, ctx);
	timeline_unindex(&c->tl);	/* (a copy of the events: not kept) */
	free(cs.sorted);
	return r;
}

/* A writer's job for with_profile(): ctx is the capture's options and
 * the file. */
struct write_to {
	const struct capture_cfg *o;
	FILE *out;
};

static int write_profile(const struct ow_profile *p, struct fg_options *fg,
			 void *ctx)
{
	struct write_to *w = ctx;
	struct ow_write_opts wo = { fg, "writing the profile", true };

	return ow_writers[w->o->output].write(p, &wo, w->out);
}

static int write_all(struct capture *c, const struct capture_cfg *o,
		     FILE *out)
{
	struct write_to w = { o, out };

	return with_profile(c, o, ow_writer_needs(o->output), true, write_profile, &w);
}

/* output_profile()'s call without the render options. */
struct read_by {
	int (*fn)(const struct ow_profile *p, void *ctx);
	void *ctx;
};

static int read_profile(const struct ow_profile *p, struct fg_options *fg,
			void *ctx)
{
	struct read_by *r = ctx;

	return r->fn(p, r->ctx);
}

int output_profile(struct capture *c, const struct capture_cfg *o,
		   int (*fn)(const struct ow_profile *p, void *ctx), void *ctx)
{
	struct read_by r = { fn, ctx };

	return with_profile(c, o, 0, false, read_profile, &r);
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

int output_write_to(FILE *f, struct capture *c, const struct capture_cfg *o)
{
	int r = write_all(c, o, f);

	return r == OW_EXIT_OK && (fflush(f) || ferror(f)) ? OW_EXIT_FAIL : r;
}

int output_write(struct output *out, struct capture *c,
		 const struct capture_cfg *o)
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
