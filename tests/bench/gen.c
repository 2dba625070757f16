/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gen.c - seeded generator of benchmark input for `make bench`: folded
 * off-wake chain stacks in the shape `offwaketime -f` prints,
 *
 *   comm;user frames;-;kernel frames;--;waker kernel frames;-;waker user frames;wakercomm COUNT
 *
 * about 51 frames and about 1 KB per line, counts in microseconds.
 *
 * Realism: frame names come from a vocabulary of a few thousand names
 * (kernel-like ones such as __x64_sys_read or schedule, and user-space
 * C++/Rust-like ones, some of them long).  Each stack segment is a walk
 * down an implicit, deterministic call tree: a node's children are a
 * function of the node's identity, most nodes have a single child (a
 * straight call chain) and a few fan out, and walks prefer the first
 * children.  Stacks therefore share long prefixes as in real profiles.
 * Lines are written in generation order, i.e. random, not sorted.
 *
 * Usage: gen LINES [SEED]  > file        (the output depends only on both)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(void) { return splitmix(&rng_state); }
static uint64_t rndn(uint64_t n) { return rnd() % n; }

/* A stateless mix of a node id and a child index. */
static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t s = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL);
	return splitmix(&s);
}

/* ---- vocabulary --------------------------------------------------------- */

static const char *kernel_real[] = {
	"entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_read",
	"__x64_sys_write", "__x64_sys_futex", "__x64_sys_epoll_wait",
	"__x64_sys_poll", "__x64_sys_select", "__x64_sys_nanosleep",
	"__x64_sys_clock_nanosleep", "__x64_sys_recvfrom", "__x64_sys_sendto",
	"__x64_sys_recvmsg", "__x64_sys_sendmsg", "__x64_sys_accept4",
	"__x64_sys_connect", "__x64_sys_openat", "__x64_sys_fsync",
	"__x64_sys_pread64", "__x64_sys_pwrite64", "__x64_sys_io_uring_enter",
	"__x64_sys_wait4", "__x64_sys_pselect6", "__x64_sys_ppoll",
	"ksys_read", "ksys_write", "vfs_read", "vfs_write", "new_sync_read",
	"new_sync_write", "do_futex", "futex_wait", "futex_wait_queue",
	"futex_wake", "wake_up_q", "try_to_wake_up", "schedule",
	"__schedule", "schedule_hrtimeout_range", "schedule_hrtimeout_range_clock",
	"schedule_timeout", "do_epoll_wait", "ep_poll", "do_sys_poll",
	"do_select", "core_sys_select", "hrtimer_nanosleep", "do_nanosleep",
	"pipe_read", "pipe_write", "__wake_up_common_lock", "__wake_up_common",
	"autoremove_wake_function", "default_wake_function", "ep_poll_callback",
	"pollwake", "sock_read_iter", "sock_write_iter", "sock_recvmsg",
	"sock_sendmsg", "inet_recvmsg", "inet_sendmsg", "tcp_recvmsg",
	"tcp_recvmsg_locked", "tcp_sendmsg", "tcp_sendmsg_locked", "tcp_push",
	"__tcp_push_pending_frames", "tcp_write_xmit", "__tcp_transmit_skb",
	"ip_queue_xmit", "__ip_queue_xmit", "ip_local_out", "ip_output",
	"ip_finish_output2", "__dev_queue_xmit", "dev_hard_start_xmit",
	"loopback_xmit", "netif_rx", "__netif_receive_skb_one_core",
	"ip_rcv", "ip_local_deliver", "ip_local_deliver_finish",
	"ip_protocol_deliver_rcu", "tcp_v4_rcv", "tcp_v4_do_rcv",
	"tcp_rcv_established", "tcp_data_queue", "tcp_data_ready",
	"sock_def_readable", "sk_wait_data", "wait_woken",
	"__x64_sys_exit_group", "do_exit", "do_group_exit", "irq_exit_rcu",
	"__irq_exit_rcu", "__do_softirq", "net_rx_action", "__napi_poll",
	"process_backlog", "hrtimer_wakeup", "__hrtimer_run_queues",
	"hrtimer_interrupt", "__sysvec_apic_timer_interrupt",
	"sysvec_apic_timer_interrupt", "asm_sysvec_apic_timer_interrupt",
	"ext4_file_read_iter", "ext4_file_write_iter", "ext4_buffered_write_iter",
	"generic_perform_write", "filemap_read", "filemap_get_pages",
	"page_cache_sync_ra", "ondemand_readahead", "folio_wait_bit_common",
	"io_schedule", "blk_mq_submit_bio", "submit_bio_noacct", "bio_endio",
	"blk_update_request", "blk_mq_end_request", "nvme_complete_rq",
	"nvme_irq", "__handle_irq_event_percpu", "handle_irq_event",
	"handle_edge_irq", "__common_interrupt", "common_interrupt",
	"asm_common_interrupt", "rwsem_down_read_slowpath",
	"rwsem_down_write_slowpath", "down_read", "down_write", "up_read",
	"up_write", "mutex_lock", "__mutex_lock.constprop.0",
	"__mutex_unlock_slowpath.constprop.0", "mutex_unlock",
	"worker_thread", "process_one_work", "kthread", "ret_from_fork",
	"ret_from_fork_asm", "rcu_gp_kthread", "rcu_gp_fqs_loop", "swake_up_one",
	"smpboot_thread_fn", "run_ksoftirqd", "kworker_thread", "wb_workfn",
	"jbd2_journal_commit_transaction", "kjournald2", "jbd2_log_wait_commit",
	"ext4_sync_file", "file_write_and_wait_range", "io_uring_cqring_wait",
	"io_cqring_wait", "io_req_task_work_add", "__io_req_complete_post",
	"signalfd_read", "eventfd_read", "eventfd_write", "eventfd_signal",
	"timerfd_read", "timerfd_tmrproc", "anon_pipe_buf_release",
	"unix_stream_read_generic", "unix_stream_recvmsg", "unix_stream_sendmsg",
	"sock_alloc_send_pskb", "skb_copy_datagram_iter", "copy_page_to_iter",
	"_copy_to_user", "rep_movs_alternative", "finish_task_switch.isra.0",
	"pick_next_task_fair", "dequeue_task_fair", "enqueue_task_fair",
	"ttwu_do_activate", "select_task_rq_fair", "update_curr",
};

static const char *kstem[] = {
	"read", "write", "poll", "wait", "wake", "lock", "unlock", "alloc",
	"free", "queue", "xmit", "rcv", "flush", "sync", "map", "unmap",
	"fault", "commit", "submit", "complete", "release", "get", "put",
	"insert", "lookup", "evict", "scan", "reclaim", "balance", "migrate",
};
static const char *kpre[] = {
	"ext4_", "xfs_", "btrfs_", "tcp_", "udp_", "ip6_", "nf_", "sched_",
	"mm_", "page_", "folio_", "blk_", "nvme_", "virtio_", "sock_", "skb_",
	"__", "do_", "vfs_", "kvm_", "cgroup_", "bpf_", "rcu_", "irq_",
	"dma_", "pci_", "usb_", "drm_", "snd_", "fuse_",
};
static const char *ksuf[] = {
	"", "", "", "_slowpath", "_locked", "_common", "_one", "_range",
	"_iter", "_nowait", ".isra.0", ".constprop.0", "_fn", "_work",
};

static const char *ns[] = {
	"std", "boost", "folly", "absl", "google::protobuf", "grpc", "mysql",
	"rocksdb", "v8::internal", "llvm", "tokio", "hyper", "serde_json",
	"mio", "futures_util", "core", "alloc", "std::sys", "app", "db",
	"net", "http", "storage", "query", "cache", "rpc", "util", "engine",
};
static const char *cls[] = {
	"Connection", "Session", "Executor", "Scheduler", "ThreadPool",
	"Worker", "Buffer", "Parser", "Handler", "Server", "Client", "Reader",
	"Writer", "Queue", "Channel", "Mutex", "Condvar", "Future", "Task",
	"Runtime", "Table", "Index", "Iterator", "Allocator", "Arena",
	"Transaction", "Request", "Response", "Stream", "Socket", "Timer",
	"EventLoop", "Reactor", "Registry", "Codec", "Compressor", "Builder",
};
static const char *meth[] = {
	"run", "poll", "process", "handle", "dispatch", "read", "write",
	"flush", "wait", "notify", "submit", "execute", "parse", "serialize",
	"deserialize", "lookup", "insert", "commit", "rollback", "accept",
	"connect", "send", "recv", "park", "unpark", "block_on", "spawn",
	"try_lock", "lock", "next", "fill_buf", "compress", "decompress",
	"operator()", "do_work", "step", "tick", "drain",
};
static const char *args[] = {
	"()", "(int)", "(unsigned long)", "(char const*, unsigned long)",
	"(std::string const&)", "(void*)", "(Request const&, Response*)",
	"(std::vector<unsigned char, std::allocator<unsigned char> >&)",
	"(std::chrono::duration<long, std::ratio<1l, 1000000000l> >)",
	"(std::function<void ()>)", "(std::unique_lock<std::mutex>&)",
};
static const char *libc_real[] = {
	"_start", "__libc_start_main", "__libc_start_call_main", "main",
	"start_thread", "clone3", "__GI___clone3", "__futex_abstimed_wait_common",
	"__GI___lll_lock_wait", "pthread_cond_wait@@GLIBC_2.3.2",
	"__pthread_cond_wait_common", "__GI___poll", "epoll_wait",
	"__libc_read", "__libc_write", "__libc_recv", "__libc_send",
	"__GI___nanosleep", "__clock_nanosleep", "malloc", "free", "memcpy",
	"__memmove_avx_unaligned_erms", "[unknown]",
};

#define NKV 1800	/* kernel-like names */
#define NUV 2600	/* user-like names */
#define NCOMM 48
#define NKREAL (sizeof(kernel_real) / sizeof(kernel_real[0]))
#define NLIBC (sizeof(libc_real) / sizeof(libc_real[0]))

static char *kv[NKV], *uv[NUV], *comm[NCOMM];

static char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p) { perror("strdup"); exit(1); }
	return p;
}

#define PICK(a) (a[rndn(sizeof(a) / sizeof(a[0]))])

static void build_vocab(void)
{
	char buf[512];
	size_t nk = sizeof(kernel_real) / sizeof(kernel_real[0]);
	for (size_t i = 0; i < NKV; i++) {
		if (i < nk) {
			kv[i] = xstrdup(kernel_real[i]);
			continue;
		}
		snprintf(buf, sizeof buf, "%s%s_%s%s", PICK(kpre), PICK(kstem),
			 PICK(kstem), PICK(ksuf));
		kv[i] = xstrdup(buf);
	}
	size_t nl = sizeof(libc_real) / sizeof(libc_real[0]);
	for (size_t i = 0; i < NUV; i++) {
		if (i < nl) {
			uv[i] = xstrdup(libc_real[i]);
			continue;
		}
		switch (rndn(10)) {
		case 0: case 1: case 2: case 3:	/* plain C */
			snprintf(buf, sizeof buf, "%s_%s", PICK(meth), PICK(cls));
			break;
		case 4: case 5: case 6:	/* C++ method */
			snprintf(buf, sizeof buf, "%s::%s::%s%s", PICK(ns), PICK(cls),
				 PICK(meth), rndn(3) ? "()" : PICK(args));
			break;
		case 7:	/* C++ template */
			snprintf(buf, sizeof buf,
				 "%s::%s<%s::%s, %s::%s>::%s%s", PICK(ns), PICK(cls),
				 PICK(ns), PICK(cls), PICK(ns), PICK(cls), PICK(meth),
				 PICK(args));
			break;
		case 8:	/* Rust trait impl */
			snprintf(buf, sizeof buf,
				 "<%s::%s::%s as core::future::future::Future>::%s",
				 PICK(ns), PICK(meth), PICK(cls), PICK(meth));
			break;
		default:	/* Rust path with a symbol hash */
			snprintf(buf, sizeof buf, "%s::%s::%s::h%016llx",
				 PICK(ns), PICK(cls), PICK(meth),
				 (unsigned long long)rnd());
			break;
		}
		uv[i] = xstrdup(buf);
	}
	static const char *cn[] = {
		"mysqld", "postgres", "java", "node", "nginx", "redis-server",
		"envoy", "containerd", "dockerd", "kubelet", "chrome", "python3",
		"sshd", "systemd", "rsyslogd", "kworker/u16:2", "ksoftirqd/0",
		"rcu_sched", "jbd2/vda1-8", "tokio-runtime-w", "grpc_global_tim",
		"Chrome_IOThread", "ThreadPoolForeg", "gmain", "dbus-daemon",
	};
	for (size_t i = 0; i < NCOMM; i++) {
		if (i < sizeof(cn) / sizeof(cn[0]))
			comm[i] = xstrdup(cn[i]);
		else {
			snprintf(buf, sizeof buf, "%s-%zu", PICK(cn), i);
			comm[i] = xstrdup(buf);
		}
	}
}

/* ---- implicit call tree ------------------------------------------------- */

/* Pick a child index: mostly 0 (straight chains), skewed towards small. */
static unsigned child_index(uint64_t node)
{
	uint64_t h = mix(node, 0xC0FFEE);
	unsigned fan = (h % 100) < 75 ? 1 : 2 + (unsigned)((h >> 8) % 7);
	unsigned i = 0;
	while (i + 1 < fan && (rnd() & 1) != 0)	/* P(go on) = 1/2 */
		i++;
	return i;
}

static char line[1 << 16];
static size_t len;

static void put(const char *s)
{
	size_t n = strlen(s);
	if (len + n + 2 >= sizeof line) { fprintf(stderr, "gen: line too long\n"); exit(1); }
	if (len) line[len++] = ';';
	memcpy(line + len, s, n);
	len += n;
}

/*
 * Walk `depth` frames down from `node`, naming frames from vocab (half of
 * the time from its first nreal entries, the well-known names); returns
 * the last node.
 */
static uint64_t walk(uint64_t node, int depth, char **vocab, unsigned nvocab,
		     unsigned nreal)
{
	for (int d = 0; d < depth; d++) {
		node = mix(node, child_index(node) + 1);
		put(vocab[(node >> 40) & 1 ? node % nreal : node % nvocab]);
	}
	return node;
}

static int between(int lo, int hi) { return lo + (int)rndn((uint64_t)(hi - lo + 1)); }

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gen LINES [SEED]\n");
		return 2;
	}
	unsigned long long lines = strtoull(argv[1], NULL, 10);
	rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	build_vocab();
	static char obuf[1 << 20];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

	for (unsigned long long l = 0; l < lines; l++) {
		len = 0;
		/* target: comm (Zipf-ish), user stack from the comm's root */
		unsigned c = (unsigned)(rndn(NCOMM) * rndn(NCOMM) / NCOMM);
		put(comm[c]);
		uint64_t n = mix(0x5EED, c);
		n = walk(n, between(14, 22), uv, NUV, NLIBC);
		put("-");
		/* target kernel stack, continuing from the user leaf's syscall */
		n = mix(n, 0x4B);
		n = walk(n, between(9, 15), kv, NKV, NKREAL);
		put("--");
		/* waker kernel stack (printed leaf first), keyed by the blocking site */
		uint64_t w = mix(n % 4093, 0x57);
		w = walk(w, between(8, 12), kv, NKV, NKREAL);
		put("-");
		w = walk(mix(w, 0x55), between(5, 9), uv, NUV, NLIBC);
		put(comm[w % NCOMM]);
		/* count: microseconds, log-uniform-ish over 1 us .. 10 s */
		unsigned long long cnt = 1ULL << rndn(23);
		cnt += rndn(cnt);
		line[len] = 0;
		printf("%s %llu\n", line, cnt);
	}
	if (fflush(stdout) != 0) {
		perror("gen: write");
		return 1;
	}
	return 0;
}
