// SPDX-License-Identifier: Apache-2.0
/*
 * web.c - the browser live view (--serve [ADDR:]PORT).
 *
 * Two sides that share only the rendered documents:
 *   - the capture loop (capture_every(), every --interval) brings the sums
 *     up to date and hands them to the writers of --format
 *     (capture_snapshot(), output_write_to()): the SVG at the first
 *     refresh and while a client looks (asked for it or /status in the
 *     last KEEP_ASKED_S), the folded and pprof files while a client asks
 *     for them; with nobody looking, a refresh renders nothing.  Each
 *     document is a reference-counted buffer of one generation; a refresh
 *     swaps the newest in under the lock and drops its reference to the
 *     old one, so memory holds the newest documents plus those still being
 *     sent;
 *   - libmicrohttpd's threads (one a connection, at most MAX_CONNS, each
 *     timed out) answer GET requests under /TOKEN/: the page (page.html),
 *     status (the newest generation, as JSON), svg, folded, pprof (the
 *     newest buffer: a reference taken under the lock, sent, released when
 *     done).  A slow or vanished client holds its own thread and its
 *     reference, never the lock: the capture never waits for it.
 * Who may ask: TOKEN is 128 random bits, printed once in the address on
 * our stderr; a request without it is refused (403), so another local
 * user who reaches the port reads nothing.  Bound to 127.0.0.1 unless an
 * address is given (a warning when it is not loopback); on loopback, a
 * Host that is not a loopback literal (127.x.y.z, [::1]) or localhost is
 * refused, so a web page cannot read the profile through DNS rebinding.
 * A client's request must be whole within HEAD_S of its connection (or of
 * its previous response), and a new connection ends the oldest of
 * MAX_PENDING unfinished ones: slow clients cannot hold every connection
 * (conn_*, the reaper).  libmicrohttpd's messages go through one limiter,
 * LOG_PER_S lines a second, the rest counted.  Every request is
 * read-only (other methods: 405).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "web.h"
#include "capture/capture.h"
#include "capture/output.h"
#include "common/util.h"
#include "export/writers.h"

extern const char ow_live_page[];	/* page.html, embedded at build time */

#define MAX_CONNS	128	/* connections at a time */
#define MAX_PENDING	64	/* of them without a whole request yet */
#define HEAD_S		10	/* a request is whole this long after its
				 * connection or the previous response */
#define CONN_TIMEOUT_S	30	/* an idle or stuck connection is closed */
#define LOG_PER_S	5	/* libmicrohttpd's lines a second, at most */
#define TOKEN_BYTES	16	/* random bits of the address: 128 */
#define KEEP_ASKED_S	10	/* folded/pprof are rendered this long after
				 * a client last asked for them */

/* The documents served from the capture: one row each. */
enum { DOC_SVG, DOC_FOLDED, DOC_PPROF, NDOCS };
static const struct doc {
	const char *path, *format, *type, *file;
	bool always;	/* rendered at the first refresh; all while asked for */
} docs[NDOCS] = {
	[DOC_SVG] = { "/svg", "svg", "image/svg+xml", "offwake.svg", true },
	[DOC_FOLDED] = { "/folded", "folded", "text/plain; charset=utf-8",
			 "offwake.folded", false },
	[DOC_PPROF] = { "/pprof", "pprof", "application/octet-stream",
			"offwake.pb.gz", false },
};

/* One rendered document, shared by the responses sending it. */
struct buf {
	atomic_int refs;
	atomic_bool fetched;
	uint64_t gen;
	size_t len;
	char *data;
};

/* A connection, for the reaper: its socket (our own descriptor of it,
 * so that it cannot be another's by the time we shut it) and since when
 * it has been waiting for a whole request. */
struct conn {
	int fd;		/* -1: a free slot */
	bool busy;	/* a request is being answered */
	double since;	/* accepted, or its last response completed */
};

struct web {
	struct MHD_Daemon *d;
	struct sockaddr_storage sa;
	bool loopback;
	char token[2 * TOKEN_BYTES + 1];	/* hex */
	double interval;
	struct capture_cfg doc_opts[NDOCS];	/* the capture's, as each writer */
	pthread_mutex_t lock;
	pthread_cond_t fresh;	/* a refresh published a generation */
	/* under the lock: */
	struct buf *cur[NDOCS];
	uint64_t gen;
	double asked[NDOCS];	/* when a client last asked (monotonic s) */
	double seconds;		/* the capture's, at the newest generation */
	bool stopping;
	/* the capture thread's: */
	uint64_t refreshes, failed, dropped, idle;
	double cpu_sum, cpu_max;
	/* the server's: */
	atomic_ulong requests, cut, refused;
	struct conn conns[2 * MAX_CONNS];	/* under the lock */
	unsigned long reaped;			/* under the lock */
	pthread_t reaper;
	bool reaping;
	/* libmicrohttpd's messages: under log_lock */
	pthread_mutex_t log_lock;
	double log_t0;
	unsigned log_n;
	unsigned long log_held, log_suppressed;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void buf_unref(void *p)
{
	struct buf *b = p;

	if (b && atomic_fetch_sub(&b->refs, 1) == 1) {
		free(b->data);
		free(b);
	}
}

/* ---- the address ---- */

int web_parse_addr(const char *s, struct sockaddr_storage *sa)
{
	struct sockaddr_storage tmp;
	const char *colon = strrchr(s, ':'), *port = colon ? colon + 1 : s;
	char host[64] = "127.0.0.1", *end;
	unsigned long p;

	if (!sa)
		sa = &tmp;
	memset(sa, 0, sizeof(*sa));
	if (colon) {
		size_t n = colon - s;

		if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
			s++, n -= 2;	/* [IPv6] */
		if (!n || n >= sizeof(host))
			return -1;
		memcpy(host, s, n);
		host[n] = 0;
	}
	if (*port < '0' || *port > '9')
		return -1;
	errno = 0;
	p = strtoul(port, &end, 10);
	if (*end || errno || p > 65535)
		return -1;
	if (!strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	struct sockaddr_in *v4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)sa;

	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(p);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1 && colon &&
	    colon[-1] == ']') {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(p);
		return 0;
	}
	return -1;
}

static bool is_loopback(const struct sockaddr_storage *sa)
{
	if (sa->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* "127.0.0.1:8080" or "[::1]:8080" */
static void addr_str(const struct sockaddr_storage *sa, unsigned port,
		     char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	bool v6 = sa->ss_family == AF_INET6;

	inet_ntop(sa->ss_family, v6 ? (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr :
				      (const void *)&((const struct sockaddr_in *)sa)->sin_addr,
		  ip, sizeof(ip));
	snprintf(buf, len, v6 ? "[%s]:%u" : "%s:%u", ip, port);
}

/* Whether Host h names a loopback literal: localhost, [::1] or a dotted
 * quad 127.x.y.z (four decimal parts, inet_pton's), then ":PORT" or
 * nothing.  127.attacker.test, whose owner can make it resolve to
 * 127.0.0.1, is not one. */
static bool loopback_host(const char *h)
{
	static const char *const names[] = { "localhost", "[::1]" };
	size_t n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":");
	const char *port = h + n;
	struct in_addr a;
	char quad[16];

	if (n > strlen(h))
		return false;	/* "[" without "]" */
	if (*port && (*port != ':' || strspn(port + 1, "0123456789") != strlen(port + 1) ||
		      strlen(port + 1) > 5))
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (n == strlen(names[i]) && !strncasecmp(h, names[i], n))
			return true;
	if (n >= sizeof(quad))
		return false;
	memcpy(quad, h, n);
	quad[n] = 0;
	return inet_pton(AF_INET, quad, &a) == 1 && ntohl(a.s_addr) >> 24 == 127;
}

/* On loopback, the Host a browser names must be a loopback one (an
 * attacker's name that resolves to 127.0.0.1 is refused). */
static bool host_allowed(const struct web *w, struct MHD_Connection *conn)
{
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");

	if (!w->loopback)
		return true;
	if (!h)
		return true;	/* HTTP/1.0 without Host: not a browser */
	return loopback_host(h);
}

/* The path after /TOKEN (from its "/" on, or ""), or NULL when url does
 * not begin with the token and a "/" or its end; compared in constant
 * time. */
static const char *after_token(const struct web *w, const char *url)
{
	size_t n = sizeof(w->token) - 1;
	unsigned char diff = 0;

	if (url[0] != '/' || strnlen(url + 1, n) < n)
		return NULL;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)url[1 + i] ^ (unsigned char)w->token[i];
	if (diff || (url[1 + n] && url[1 + n] != '/'))
		return NULL;
	return url + 1 + n;
}

/* TOKEN_BYTES from getrandom() as hex; 0 or -1 (errno). */
static int make_token(char *hex)
{
	unsigned char r[TOKEN_BYTES];
	size_t got = 0;

	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);

		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			got += n;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		sprintf(hex + 2 * i, "%02x", r[i]);
	return 0;
}

/* ---- the capture's side: a refresh ---- */

/* Render doc i of the capture now into a new buffer; NULL on failure. */
static struct buf *render(struct web *w, struct capture *c, int i, uint64_t gen)
{
	struct buf *b = calloc(1, sizeof(*b));
	FILE *f = b ? open_memstream(&b->data, &b->len) : NULL;
	int r;

	if (!f) {
		free(b);
		return NULL;
	}
	atomic_init(&b->refs, 1);
	r = output_write_to(f, c, &w->doc_opts[i]);
	if (fclose(f) || !(r == OW_EXIT_OK || (r == OW_EXIT_USAGE && capture_empty(c)))) {
		buf_unref(b);
		return NULL;
	}
	b->gen = gen;
	return b;
}

/* capture_snapshot()'s writer: render what is wanted, then publish it. */
static int publish(struct capture *c, void *ctx)
{
	struct web *w = ctx;
	struct buf *nb[NDOCS] = { NULL };
	double t0 = thread_cpu_s(), now = mono_s(), cpu;
	bool want[NDOCS], any = false;
	uint64_t gen;

	pthread_mutex_lock(&w->lock);
	gen = w->gen + 1;
	for (int i = 0; i < NDOCS; i++) {
		want[i] = (docs[i].always && !w->gen) || now - w->asked[i] < KEEP_ASKED_S;
		any |= want[i];
	}
	pthread_mutex_unlock(&w->lock);
	if (!any) {
		w->idle++;
		return 0;	/* nobody is looking: nothing rendered */
	}
	want[DOC_SVG] = true;	/* a generation is its SVG, and what else was asked */
	for (int i = 0; i < NDOCS; i++)
		if (want[i] && !(nb[i] = render(w, c, i, gen)))
			w->failed++;
	if (!nb[DOC_SVG]) {
		for (int i = 0; i < NDOCS; i++)
			buf_unref(nb[i]);
		return 0;	/* the capture goes on; the view keeps its last */
	}
	pthread_mutex_lock(&w->lock);
	for (int i = 0; i < NDOCS; i++) {
		struct buf *old = w->cur[i];

		if (!nb[i])
			continue;
		if (i == DOC_SVG && old && !atomic_load(&old->fetched))
			w->dropped++;
		w->cur[i] = nb[i];
		buf_unref(old);
	}
	w->gen = gen;
	w->seconds = capture_seconds(c);
	pthread_cond_broadcast(&w->fresh);
	pthread_mutex_unlock(&w->lock);
	cpu = thread_cpu_s() - t0;
	w->refreshes++;
	w->cpu_sum += cpu;
	w->cpu_max = fmax(w->cpu_max, cpu);
	return 0;
}

static int refresh(struct capture *c, void *ctx)
{
	capture_snapshot(c, publish, ctx);
	return 0;	/* a failed refresh does not end the capture */
}

/* ---- the server's side ---- */

static enum MHD_Result send_resp(struct MHD_Connection *conn, unsigned status,
				 struct MHD_Response *r, const char *type)
{
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	if (type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	/* a link followed from the page or the SVG does not carry the token */
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_text(struct MHD_Connection *conn, unsigned status,
				 const char *text, const char *type)
{
	return send_resp(conn, status,
			 MHD_create_response_from_buffer(strlen(text), (void *)text,
							 MHD_RESPMEM_MUST_COPY),
			 type ? type : "text/plain; charset=utf-8");
}

/* The newest document i: a reference taken under the lock.  folded and
 * pprof, when not rendered at the newest refresh, are asked of the next
 * one and waited for (this connection's thread only). */
static struct buf *take_doc(struct web *w, int i)
{
	struct timespec until;
	struct buf *b = NULL;
	double wait = w->interval * 2 + 5;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)wait;
	pthread_mutex_lock(&w->lock);
	w->asked[i] = mono_s();
	while (!w->stopping && (!w->cur[i] || w->cur[i]->gen < w->gen) &&
	       pthread_cond_timedwait(&w->fresh, &w->lock, &until) == 0)
		;
	if (w->cur[i]) {
		b = w->cur[i];
		atomic_fetch_add(&b->refs, 1);
		atomic_store(&b->fetched, true);
	}
	pthread_mutex_unlock(&w->lock);
	return b;
}

static enum MHD_Result send_doc(struct web *w, struct MHD_Connection *conn, int i)
{
	struct buf *b = take_doc(w, i);
	struct MHD_Response *r;
	char gen[32], disp[96];

	if (!b)
		return send_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				 "not rendered yet: try again after the next refresh\n", NULL);
	r = MHD_create_response_from_buffer_with_free_callback_cls(b->len, b->data,
								    buf_unref, b);
	if (!r) {
		buf_unref(b);
		return MHD_NO;
	}
	snprintf(gen, sizeof(gen), "%llu", (unsigned long long)b->gen);
	MHD_add_response_header(r, "X-Offwake-Generation", gen);
	if (MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "download")) {
		snprintf(disp, sizeof(disp), "attachment; filename=\"%s\"", docs[i].file);
		MHD_add_response_header(r, "Content-Disposition", disp);
	}
	return send_resp(conn, MHD_HTTP_OK, r, docs[i].type);
}

static enum MHD_Result send_status(struct web *w, struct MHD_Connection *conn)
{
	char json[160];

	pthread_mutex_lock(&w->lock);
	w->asked[DOC_SVG] = mono_s();	/* a page is looking */
	snprintf(json, sizeof(json),
		 "{\"generation\":%llu,\"interval\":%g,\"seconds\":%.1f,\"running\":%s}\n",
		 (unsigned long long)w->gen, w->interval, w->seconds,
		 w->stopping ? "false" : "true");
	pthread_mutex_unlock(&w->lock);
	return send_text(conn, MHD_HTTP_OK, json, "application/json");
}

static enum MHD_Result refuse(struct web *w, struct MHD_Connection *conn, const char *why)
{
	atomic_fetch_add(&w->refused, 1);
	return send_text(conn, MHD_HTTP_FORBIDDEN, why, NULL);
}

/* "/TOKEN" alone: to the page, whose own requests are relative to it. */
static enum MHD_Result to_page(struct web *w, struct MHD_Connection *conn)
{
	char where[sizeof(w->token) + 2];
	struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"",
								 MHD_RESPMEM_PERSISTENT);

	snprintf(where, sizeof(where), "/%s/", w->token);
	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, where);
	return send_resp(conn, MHD_HTTP_FOUND, r, NULL);
}

static void conn_busy(struct web *w, struct MHD_Connection *conn, bool busy);

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **req)
{
	struct web *w = cls;
	const char *path;

	(void)version, (void)upload, (void)upload_size, (void)req;
	conn_busy(w, conn, true);	/* its request is whole: no deadline now */
	atomic_fetch_add(&w->requests, 1);
	if (!host_allowed(w, conn))
		return refuse(w, conn, "this live view answers to a loopback address only\n");
	if (!(path = after_token(w, url)))
		return refuse(w, conn, "this live view answers only at the address it printed (with its token)\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		struct MHD_Response *r =
			MHD_create_response_from_buffer(sizeof("read-only: GET only\n") - 1,
							(void *)"read-only: GET only\n",
							MHD_RESPMEM_PERSISTENT);

		if (r)
			MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
		return send_resp(conn, MHD_HTTP_METHOD_NOT_ALLOWED, r, "text/plain; charset=utf-8");
	}
	if (!*path)
		return to_page(w, conn);
	if (!strcmp(path, "/") || !strcmp(path, "/index.html"))
		return send_resp(conn, MHD_HTTP_OK,
				 MHD_create_response_from_buffer(strlen(ow_live_page),
								 (void *)ow_live_page,
								 MHD_RESPMEM_PERSISTENT),
				 "text/html; charset=utf-8");
	if (!strcmp(path, "/status"))
		return send_status(w, conn);
	for (int i = 0; i < NDOCS; i++)
		if (!strcmp(path, docs[i].path))
			return send_doc(w, conn, i);
	return send_text(conn, MHD_HTTP_NOT_FOUND, "not found\n", NULL);
}

/* A response that did not reach its end: the client was slow or left.
 * Either way the connection waits for a whole request again. */
static void completed(void *cls, struct MHD_Connection *conn, void **req,
		      enum MHD_RequestTerminationCode toe)
{
	struct web *w = cls;

	(void)req;
	if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
		atomic_fetch_add(&w->cut, 1);
	conn_busy(w, conn, false);
}

/* ---- slow clients: a deadline for each request ---- */

/* End connection c's socket (the lock held): its thread sees the end and
 * closes it. */
static void conn_end(struct web *w, struct conn *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->since = INFINITY;	/* once */
	w->reaped++;
}

/* A connection starts (a slot, our descriptor of its socket; the oldest
 * of MAX_PENDING unfinished ones ended) or closes (both freed). */
static void conn_notify(void *cls, struct MHD_Connection *conn, void **ctx,
			enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *ci;
	struct web *w = cls;
	struct conn *c = *ctx, *oldest = NULL, *slot = NULL;
	unsigned pending = 0;
	int fd;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (c) {
			pthread_mutex_lock(&w->lock);
			close(c->fd);
			c->fd = -1;
			pthread_mutex_unlock(&w->lock);
		}
		*ctx = NULL;
		return;
	}
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	fd = ci ? fcntl(ci->connect_fd, F_DUPFD_CLOEXEC, 0) : -1;
	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < sizeof(w->conns) / sizeof(*w->conns); i++) {
		struct conn *o = &w->conns[i];

		if (o->fd < 0) {
			slot = slot ? slot : o;
			continue;
		}
		if (o->busy || o->since == INFINITY)
			continue;
		pending++;
		if (!oldest || o->since < oldest->since)
			oldest = o;
	}
	if (pending >= MAX_PENDING)
		conn_end(w, oldest);
	if (slot && fd >= 0) {
		*slot = (struct conn){ .fd = fd, .since = mono_s() };
		*ctx = slot;
	} else {	/* cannot be watched: not kept */
		if (fd >= 0)
			close(fd);
		if (ci)
			shutdown(ci->connect_fd, SHUT_RDWR);
		w->reaped++;
	}
	pthread_mutex_unlock(&w->lock);
}

static void conn_busy(struct web *w, struct MHD_Connection *conn, bool busy)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *c = ci ? ci->socket_context : NULL;

	if (!c)
		return;
	pthread_mutex_lock(&w->lock);
	if (c->fd >= 0 && c->since != INFINITY) {
		c->busy = busy;
		c->since = mono_s();
	}
	pthread_mutex_unlock(&w->lock);
}

/* The reaper: every 0.5 s, the connections that have waited more than
 * HEAD_S for a whole request are ended. */
static void *reap(void *v)
{
	struct web *w = v;
	struct timespec until;

	pthread_mutex_lock(&w->lock);
	while (!w->stopping) {
		double now = mono_s();

		for (size_t i = 0; i < sizeof(w->conns) / sizeof(*w->conns); i++) {
			struct conn *c = &w->conns[i];

			if (c->fd >= 0 && !c->busy && now - c->since > HEAD_S)
				conn_end(w, c);
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 500000000;
		if (until.tv_nsec >= 1000000000)
			until.tv_sec++, until.tv_nsec -= 1000000000;
		pthread_cond_timedwait(&w->fresh, &w->lock, &until);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* ---- libmicrohttpd's messages ---- */

/* "N more ... suppressed" for what the limiter held back (log_lock held) */
static void log_flush(struct web *w)
{
	if (w->log_held)
		fprintf(stderr, OW_PROG ": --serve: %lu more libmicrohttpd messages suppressed (at most %d a second)\n",
			w->log_held, LOG_PER_S);
	w->log_held = 0;
}

/* libmicrohttpd's messages, as ours: one line each, printable (a client's
 * bytes may be in them), at most LOG_PER_S a second, the rest counted. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct web *w = cls;
	char msg[240];
	double now = mono_s();

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = 0;
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	pthread_mutex_lock(&w->log_lock);
	if (now - w->log_t0 >= 1) {
		log_flush(w);
		w->log_t0 = now;
		w->log_n = 0;
	}
	if (w->log_n < LOG_PER_S) {
		w->log_n++;
		fprintf(stderr, OW_PROG ": --serve: %s\n", msg);
	} else {
		w->log_held++;
		w->log_suppressed++;
	}
	pthread_mutex_unlock(&w->log_lock);
}

bool web_wanted(const struct capture_cfg *o)
{
	return o->serve != NULL;
}

void *web_start(const struct capture_cfg *o, struct capture *c)
{
	struct web *w = calloc(1, sizeof(*w));
	const union MHD_DaemonInfo *info;
	sigset_t all, old;
	char where[80];
	unsigned port;

	if (!w) {
		ow_err("--serve: %s", strerror(ENOMEM));
		return NULL;
	}
	web_parse_addr(o->serve, &w->sa);	/* checked by args.c */
	w->loopback = is_loopback(&w->sa);
	w->interval = o->interval;
	for (int i = 0; i < NDOCS; i++) {
		w->doc_opts[i] = *o;
		w->doc_opts[i].output = ow_writer_by_name(docs[i].format);
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->fresh, NULL);
	pthread_mutex_init(&w->log_lock, NULL);
	for (size_t i = 0; i < sizeof(w->conns) / sizeof(*w->conns); i++)
		w->conns[i].fd = -1;
	if (make_token(w->token)) {
		ow_err("--serve: no random token for the address: %s", strerror(errno));
		web_free(w);
		return NULL;
	}
	/* the server's threads take no signal: SIGINT ends the capture loop */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	w->reaping = !pthread_create(&w->reaper, NULL, reap, w);
	w->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
				MHD_USE_ERROR_LOG |
				(w->sa.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, handle, w,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, w,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&w->sa,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONN_TIMEOUT_S,
				MHD_OPTION_NOTIFY_COMPLETED, completed, w,
				MHD_OPTION_NOTIFY_CONNECTION, conn_notify, w,
				MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!w->reaping) {
		ow_err("--serve: no thread for the connections' deadlines");
		web_free(w);
		return NULL;
	}
	if (!w->d) {
		ow_err("--serve %s: cannot listen there (%s)", o->serve,
		       errno ? strerror(errno) : "libmicrohttpd failed");
		web_free(w);
		return NULL;
	}
	info = MHD_get_daemon_info(w->d, MHD_DAEMON_INFO_BIND_PORT);
	port = info ? info->port : 0;
	addr_str(&w->sa, port, where, sizeof(where));
	if (!w->loopback)
		fprintf(stderr, OW_PROG ": warning: --serve %s: not a loopback address: the address printed below and its token cross the network unencrypted; anyone who sees them can read the profile (stacks, command names) while the capture runs\n",
			o->serve);
	if (capture_every(c, w->interval, refresh, w)) {
		ow_err("--serve: no room for the live view's job");
		web_free(w);
		return NULL;
	}
	fprintf(stderr, OW_PROG ": live view at http://%s/%s/ until the capture ends\n",
		where, w->token);
	return w;
}

void web_stop(void *v)
{
	struct web *w = v;

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_broadcast(&w->fresh);
	pthread_mutex_unlock(&w->lock);
	if (w->reaping)
		pthread_join(w->reaper, NULL);
	w->reaping = false;
	if (w->d)
		MHD_stop_daemon(w->d);
	w->d = NULL;
	pthread_mutex_lock(&w->log_lock);
	log_flush(w);
	pthread_mutex_unlock(&w->log_lock);
}

void web_report(const void *v)
{
	const struct web *w = v;

	if (!w)
		return;
	fprintf(stderr, OW_PROG ": live view: %llu refreshes, %.1f ms CPU each (at most %.1f); %llu skipped with nobody looking; %lu requests; %llu updates replaced before any client fetched them; %lu responses cut short (a slow or vanished client); %lu requests refused (no token, or a Host not loopback); %lu connections ended (no whole request in %d s, or more than %d waiting for one); %lu libmicrohttpd messages suppressed%s\n",
		(unsigned long long)w->refreshes,
		w->refreshes ? w->cpu_sum * 1e3 / w->refreshes : 0.0, w->cpu_max * 1e3,
		(unsigned long long)w->idle, atomic_load(&w->requests), (unsigned long long)w->dropped,
		atomic_load(&w->cut), atomic_load(&w->refused), w->reaped, HEAD_S, MAX_PENDING,
		w->log_suppressed, w->failed ? " (some renders failed)" : "");
}

void web_free(void *v)
{
	struct web *w = v;

	if (!w)
		return;
	web_stop(w);
	for (int i = 0; i < NDOCS; i++)
		buf_unref(w->cur[i]);
	pthread_cond_destroy(&w->fresh);
	pthread_mutex_destroy(&w->lock);
	pthread_mutex_destroy(&w->log_lock);
	free(w);
}
