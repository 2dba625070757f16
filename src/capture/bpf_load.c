// SPDX-License-Identifier: Apache-2.0
/*
 * bpf_load.c - the kernel side (bpf/offwake.bpf.c) opened, configured,
 * loaded and attached for one capture.
 *
 * Loading: tp_btf programs with task-local storage first; if that fails,
 * the raw_tp set with a pid-keyed hash map.  Configuration goes into the
 * read-only data before load, so the filters cost nothing when unused;
 * after the load, the -p/-t threads go into their map, and the kernel's
 * addresses the programs test (the system call entry, the soft IRQ loop's
 * callers, the ORC table of the kernel stack cache) into .bss.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include "bpf_load.h"
#include "engine.h"
#include "kbtf.h"
#include "kstack_cache.h"
#include "offwake.skel.h"
#include "signals.h"
#include "walks.h"
#include "common/privs.h"
#include "common/progress.h"
#include "common/settings.h"
#include "common/util.h"

#define RINGBUF_MB_CPU	4		/* --ring-buffer-size default, per CPU */
#define RINGBUF_MB_MIN	8
#define RINGBUF_MB_MAX	256
#define BACKLOG_MIN	16384		/* --backlog default's bounds */
#define BACKLOG_MAX	1048576
#define BACKLOG_RAM	128		/* 1/128 of the memory */
#define TIMELINE_BYTES	(4u << 20)	/* --timeline's ring buffer: about
					 * 35000 records at --chain-depth 1
					 * (112 bytes and a header of 8) */
#define BTF_PATH	"/sys/kernel/btf/vmlinux"

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return 0;
}

static int libbpf_verbose(enum libbpf_print_level level, const char *fmt,
			  va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

static uint64_t us_to_ns(uint64_t us)
{
	return us > UINT64_MAX / 1000 ? UINT64_MAX : us * 1000;
}

/* Whether the kernel has the bare tracepoint name (its BTF says so). */
static bool kernel_has_tp(const char *name)
{
	const struct btf *btf = kbtf();
	char type[64];

	if (!btf)
		return false;
	snprintf(type, sizeof(type), "btf_trace_%s", name);
	return btf__find_by_name_kind(btf, type, BTF_KIND_TYPEDEF) > 0;
}

/* Rows that fit --unwind-memory (struct ow_urow: 8 bytes). */
static uint32_t rows_cap(const struct capture_cfg *o)
{
	uint64_t n = (o->unwind_mb << 20) / sizeof(struct ow_urow);

	return n > UINT32_MAX ? UINT32_MAX : n;
}

void bpfload_buffer_sizes(const struct capture_cfg *o, uint64_t *rb_bytes,
			  uint32_t *backlog)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t mb = o->ringbuf_mb, rb = 1, n = o->stack_backlog;
	struct sysinfo si;

	if (!mb) {
		mb = (uint64_t)(ncpu > 0 ? ncpu : 1) * RINGBUF_MB_CPU;
		mb = mb < RINGBUF_MB_MIN ? RINGBUF_MB_MIN :
		     mb > RINGBUF_MB_MAX ? RINGBUF_MB_MAX : mb;
	}
	while (rb < (mb << 20))		/* the kernel wants a power of 2 */
		rb *= 2;
	*rb_bytes = rb;
	if (!n) {
		n = sysinfo(&si) ? 0 : (uint64_t)si.totalram * si.mem_unit /
			BACKLOG_RAM / sizeof(struct ow_stack);
		n = n < BACKLOG_MIN ? BACKLOG_MIN : n > BACKLOG_MAX ? BACKLOG_MAX : n;
	}
	*backlog = n;
}

/* --timeline's ring buffer: TIMELINE_BYTES, or OFFWAKE_TIMELINE_BUFFER's. */
static uint64_t timeline_bytes(void)
{
	uint64_t want = ow_setting_uint("OFFWAKE_TIMELINE_BUFFER",
					TIMELINE_BYTES), rb = 4096;

	while (rb < want && rb < (1ULL << 31))	/* a power of 2 */
		rb *= 2;
	return rb;
}

static void configure(struct offwake_bpf *s, const struct capture_cfg *o,
		      bool raw)
{
	uint64_t rb_bytes;
	uint32_t backlog;
	static const int modes[] = {
		[OW_THREADS_ALL] = 0, [OW_THREADS_TGID] = 1,
		[OW_THREADS_TID] = 2, [OW_THREADS_USER] = 3,
		[OW_THREADS_KERNEL] = 4,
	};
	uint32_t slots = 1;
	struct bpf_program *p;

	while (slots < o->stack_storage_size)	/* a power of 2 */
		slots *= 2;
	s->rodata->min_ns = us_to_ns(o->min_block_us);
	/* offwaketime keeps blocks whose whole microseconds are <= max. */
	s->rodata->max_ns = o->max_block_us >= UINT64_MAX / 1000 - 1 ?
			    UINT64_MAX : (o->max_block_us + 1) * 1000;
	s->rodata->filter_mode = modes[o->threads];
	s->rodata->cgroup_id = o->cgroup_id;
	s->rodata->state_filter = o->has_state;
	s->rodata->state_mask = o->state;
	s->rodata->want_kstack = !o->user_stacks_only;
	s->rodata->want_ustack = !o->kernel_stacks_only;
	/* the CFI walker needs task pointers (tp_btf) */
	s->rodata->unwind_mode = raw || o->kernel_stacks_only ? 0 :
				 o->unwind == OW_UNWIND_AUTO ? 1 :
				 o->unwind == OW_UNWIND_CFI ? 2 : 0;
	if (s->rodata->unwind_mode) {
		bpf_map__set_max_entries(s->maps.rows, rows_cap(o));
		bpf_map__set_map_flags(s->maps.rows, BPF_F_MMAPABLE);
	}
	bpf_map__set_max_entries(s->maps.seen, slots);
	/* a reader behind: what the ring buffer cannot take waits in the
	 * backlogs (events: one per process at most, as a rule) */
	bpfload_buffer_sizes(o, &rb_bytes, &backlog);
	bpf_map__set_max_entries(s->maps.events, rb_bytes);
	/* deferred stacks' copies (unwind_copy.h): a ring of their own, as
	 * large, where the CFI walker runs */
	bpf_map__set_max_entries(s->maps.ucopies, s->rodata->unwind_mode ?
				 rb_bytes : 4096);
	bpf_map__set_max_entries(s->maps.stack_backlog, backlog);
	bpf_map__set_max_entries(s->maps.event_backlog, 65536);
	/* --chain-depth: the keys grow by a level each (offwake.h) */
	s->rodata->chain_depth = o->chain_depth;
	s->rodata->ncpus = libbpf_num_possible_cpus() > 0 ?
			   libbpf_num_possible_cpus() : 1;
	/* (the tests' way to send keys to the counts maps: fewer slots) */
	s->rodata->cslots_max = ow_setting_uint("OFFWAKE_COUNT_SLOTS", OW_CSLOTS);
	s->rodata->python_mode = o->kernel_stacks_only ? OW_PYTHON_OFF : o->python;
	s->rodata->kc_check = ow_setting_uint("OFFWAKE_KSTACK_CHECK", 0) != 0;
	/* OFFWAKE_KSTACK_FLAT=0: every hit by kc_replay()'s general loop
	 * (t_kstack_cache checks both ways) */
	s->rodata->kc_flat_on = ow_setting_uint("OFFWAKE_KSTACK_FLAT", 1) != 0;
	s->rodata->kc_direct = !raw && kstack_cache_direct();
	/* the user stack cache (bpf/ustack_cache.bpf.h) */
	s->rodata->uc_on = !raw && s->rodata->want_ustack &&
			   ow_setting_uint("OFFWAKE_USTACK_CACHE", 1) != 0;
	s->rodata->uc_verify = ow_setting_uint("OFFWAKE_USTACK_CHECK", 0) != 0;
	s->rodata->chain_age_ns = us_to_ns(o->chain_max_age_us);
	s->rodata->timeline = o->timeline;
	s->rodata->event_min_ns = us_to_ns(o->event_min_us);
	bpf_map__set_max_entries(s->maps.tl_ring, o->timeline ?
				 timeline_bytes() : 4096);
	s->rodata->tl_wake_bytes = bpf_map__max_entries(s->maps.tl_ring) / 4;
	bpf_map__set_key_size(s->maps.counts0, OW_KEY_SIZE(o->chain_depth));
	bpf_map__set_key_size(s->maps.counts1, OW_KEY_SIZE(o->chain_depth));
	bpf_map__set_key_size(s->maps.cslots0, OW_KEY_SIZE(o->chain_depth));
	bpf_map__set_key_size(s->maps.cslots1, OW_KEY_SIZE(o->chain_depth));
	s->rodata->seen_mask = slots - 1;
	/* --follow: room for the processes the traced ones start */
	s->rodata->follow = o->follow || o->cmd_pid > 0;
	bpf_map__set_max_entries(s->maps.threads, s->rodata->follow ? 65536 :
				 o->nids ? o->nids : 1);
	if (raw)
		bpf_map__set_autocreate(s->maps.tstore, false);
	else
		bpf_map__set_max_entries(s->maps.thash, 1);
	bpf_object__for_each_program(p, s->obj) {
		const char *sec = bpf_program__section_name(p);

		bpf_program__set_autoload(p, !strncmp(sec, raw ? "raw_tp/" :
						      "tp_btf/", 7));
	}
	/* with -m above the default, a blocked task's stacks are taken at
	 * the end of schedule() (sched_exit_tp) once its block is kept, not
	 * at every switch-out (offwake.bpf.c: lazy_stacks); only then is
	 * that tracepoint watched (a program run at every switch: a switch
	 * the kernel hides is found at the next one, end_hidden_block()) */
	s->rodata->lazy_stacks = !raw && kernel_has_tp("sched_exit_tp") &&
				 o->min_block_us > 1;
	bpf_program__set_autoload(s->progs.schedule_end_btf,
				  s->rodata->lazy_stacks);
	walks_configure(s, raw);
}

static struct offwake_bpf *open_load(const struct capture_cfg *o, bool raw,
				     int *err)
{
	struct offwake_bpf *s = offwake_bpf__open();

	if (!s) {
		*err = errno;
		return NULL;
	}
	configure(s, o, raw);
	/* OFFWAKE_DEBUG=stats: the verifier's figures of each program that
	 * loads too (instructions processed, of its 1M budget) */
	if (ow_setting_str("OFFWAKE_DEBUG") && !strcmp(ow_setting_str("OFFWAKE_DEBUG"), "stats")) {
		struct bpf_program *p;

		bpf_object__for_each_program(p, s->obj)
			bpf_program__set_log_level(p, 4);	/* BPF_LOG_STATS */
	}
	if (capsig_stop) {	/* a signal while starting: not loaded */
		offwake_bpf__destroy(s);
		*err = EINTR;
		return NULL;
	}
	capsig_load_begin();
	*err = offwake_bpf__load(s);
	capsig_load_end();
	if (*err)
		*err = -*err;
	else
		*err = walks_fill(s);
	if (*err) {
		offwake_bpf__destroy(s);
		return NULL;
	}
	return s;
}

static const char *load_hint(int err)
{
	static char why[256];

	if (err == EPERM || err == EACCES)
		return privs_bpf_hint(why, sizeof(why));
	if (err == ENOMEM || err == E2BIG)
		return "lower --stack-storage-size or free memory";
	return "set OFFWAKE_DEBUG=1 to see the verifier's log";
}

int bpfload_threads(struct capture *c, const struct capture_cfg *o)
{
	int fd = bpf_map__fd(c->skel->maps.threads);
	__u8 one = 1;

	for (size_t i = 0; i < o->nids; i++)
		if (bpf_map_update_elem(fd, &o->ids[i], &one, BPF_ANY)) {
			ow_err("setting the thread filter: %s", strerror(errno));
			return -1;
		}
	return 0;
}

/* Where the system call entry is, for the waker's process_context() test
 * in the kernel (without it, interrupts from user mode pass for it), and
 * the callers of the soft IRQ loop (without them, a soft IRQ a task runs
 * itself is taken for an interrupt's: its user stack is not walked). */
void bpfload_syscall_entry(struct capture *c)
{
	static const char *const copies[] = { "", ".part.0" };
	char name[128];
	uint64_t lo, hi;
	size_t n = 0;

	if (!c->fo.ks)
		return;
	/* each caller, and the copy the compiler made of it (a symbol of
	 * its own: do_softirq.part.0 beside do_softirq) */
	for (size_t i = 0; i < ksyms_nsoftirq_callers; i++)
		for (size_t j = 0; j < sizeof(copies) / sizeof(*copies) &&
				   n < OW_SOFTIRQ_CALLERS; j++) {
			snprintf(name, sizeof(name), "%s%s",
				 ksyms_softirq_callers[i].name, copies[j]);
			if (!ksyms_extent(c->fo.ks, name, &lo, &hi))
				c->skel->bss->softirq_callers[n++] = (struct ow_krange){
					lo, hi, ksyms_softirq_callers[i].task };
		}
	if (!ksyms_extent(c->fo.ks, "entry_SYSCALL_64", &lo, &hi)) {
		c->skel->bss->syscall_hi = hi;
		__atomic_store_n(&c->skel->bss->syscall_lo, lo, __ATOMIC_RELEASE);
	}
}

/* The kernel stack cache (bpf/kstack_cache.bpf.h): the kernel's ORC
 * table for it, or why there is none (OFFWAKE_KSTACK_CACHE=0 turns it
 * off, for comparisons). */
void bpfload_kstack_cache(struct capture *c)
{
	struct kc_orc t;

	if (!c->skel->rodata->want_kstack)
		return;
	if (!bpf_map__autocreate(c->skel->maps.tstore)) {	/* raw_tp */
		c->kc_off = "the raw_tp programs";
		return;
	}
	if (!ow_setting_uint("OFFWAKE_KSTACK_CACHE", 1)) {
		c->kc_off = "OFFWAKE_KSTACK_CACHE=0";
		return;
	}
	if (kstack_cache_find(c->fo.ks, &t, &c->kc_off))
		return;
	c->skel->bss->kc_orc_ip = t.ip;
	c->skel->bss->kc_orc = t.orc;
	c->skel->bss->kc_text_lo = t.text_lo;
	c->skel->bss->kc_text_hi = t.text_hi;
	__atomic_store_n(&c->skel->bss->kc_orc_nr, t.nr, __ATOMIC_RELEASE);
}

int bpfload_open(struct capture *c, const struct capture_cfg *o)
{
	bool force_raw = ow_setting_uint("OFFWAKE_RAW_TP", 0) == 1;
	int err, err2;

	if (access(BTF_PATH, R_OK)) {
		ow_err("%s: %s: this kernel needs BTF (CONFIG_DEBUG_INFO_BTF=y)",
		       BTF_PATH, strerror(errno));
		return -1;
	}
	libbpf_set_print(ow_setting_str("OFFWAKE_DEBUG") ? libbpf_verbose :
						   libbpf_quiet);
	/* (the status line says what start-up is doing: a terminal's only) */
	progress_phase(c->pg, "starting: loading the BPF programs");
	c->skel = force_raw ? NULL : open_load(o, false, &err);
	if (!c->skel && capsig_stop)
		return -1;	/* interrupted: no message, no other set */
	if (!c->skel && (force_raw || (err != EPERM && err != EACCES))) {
		c->skel = open_load(o, true, force_raw ? &err : &err2);
		/* said: the raw_tp set walks user stacks by frame pointers */
		if (c->skel && !force_raw)
			fprintf(stderr, OW_PROG ": warning: the tp_btf programs did not load (%s): tracing with the raw_tp ones, user stacks by frame pointers only (%s)\n",
				strerror(err), load_hint(err));
	}
	if (!c->skel && capsig_stop)
		return -1;
	if (!c->skel) {
		ow_err("loading the BPF programs: %s: %s", strerror(err),
		       load_hint(err));
		return -1;
	}
	return 0;
}

/*
 * Attach the programs, last: the tracing window then starts (armed) right
 * after, so that a test or script waiting for the links to exist knows
 * tracing is about to start, not that kernel symbols are still being read.
 */
int bpfload_attach(struct capture *c)
{
	int err = offwake_bpf__attach(c->skel);

	if (err)
		ow_err("attaching to the sched tracepoints: %s: %s",
		       strerror(-err), load_hint(-err));
	return err ? -1 : 0;
}

