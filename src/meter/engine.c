/* SPDX-License-Identifier: MIT */
/*
 * engine.c - runs one latency-under-load test against `debloat server` (engine.h).
 *
 * Setup (resolve, connect, HELLO/WELCOME) is sequential with bounded waits; the test
 * itself is one event loop over the control connection, the flows, the probe sockets
 * and three timers: the probe interval, the sampling step, and the phase changes
 * (load on, load off, end of probing, STOP sent, FINAL received).
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/clock.h"
#include "base/loop.h"
#include "base/print.h"
#include "meter/engine.h"
#include "meter/probe.h"
#include "meter/proto.h"

#define SETUP_TIMEOUT_MS 5000
/* One send()/recv() of bulk data, as the server's. Uploads cost about a fifth less CPU
 * per byte with 256 KB sends than with 128 KB (iperf3's), and a quarter less again with
 * 512 KB; 1 MB saves no more (8 flows on loopback, client and server together). */
#define BULK_CHUNK (512 * 1024)
/* Reads per wake-up per download flow: bounded so one fast flow cannot starve the rest. */
#define READS_PER_WAKE 8
#define CTRL_BUF       4096
#define MIN(a, b)      ((a) < (b) ? (a) : (b))

enum phase {
	PHASE_IDLE_BEFORE,
	PHASE_LOAD,
	PHASE_IDLE_AFTER,
	PHASE_DRAIN,	/* probing over: waiting for the last replies */
	PHASE_STOPPING, /* STOP sent: waiting for FINAL */
	PHASE_DONE,
};

struct engine;

struct flow_state {
	struct engine *e;
	const struct test_flow *spec;
	uint8_t id;
	int fd;
	bool connected, header_sent;
	bool challenged; /* keyed: the server's CHALLENGE read and FLOW signed with it */
	uint8_t chal[PROTO_FRAME_HDR + PROTO_NONCE_LEN];
	size_t chal_len;
	uint8_t header[PROTO_FRAME_HDR + PROTO_MAX_BODY];
	size_t header_len, header_off;
	uint64_t bytes;			     /* download: bytes read */
	uint8_t head[PROTO_FRAME_HDR + 130]; /* a download's first bytes: an ERROR frame? */
	struct series *goodput, *tcp_rtt;
	uint64_t own_bytes; /* TCP_INFO's bytes acked (upload) or received (download) */
	uint64_t own_mono;  /* when own_bytes was read; 0: never */
	/* download: the last sample of its byte count, and that count on the grid */
	uint64_t sample_mono, sample_bytes;
	size_t grid_i;	   /* the last grid point with a count */
	double grid_bytes; /* the count there */
};

struct probe_state {
	struct engine *e;
	struct probe_stream ps;
	struct series *series;
	uint64_t *sent_ns;	     /* per seq: send time, 0 once answered or lost */
	uint32_t cap, nsent, oldest; /* oldest: first seq that may still be pending */
	double *step_sum;
	uint32_t *step_count;
};

struct engine {
	const struct engine_opts *o;
	struct test_result *r;
	struct engine_notes *notes;
	struct test_spec spec;
	struct loop *loop;

	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct sockaddr_storage local; /* --local, bound by every socket when local_len */
	socklen_t local_len;
	int ctrl;
	uint8_t rx[CTRL_BUF];
	size_t rxlen;
	uint8_t token[PROTO_TOKEN_LEN];
	uint8_t nonce[PROTO_NONCE_LEN]; /* keyed: the control connection's CHALLENGE */
	uint32_t interval_us, step_ms, duration_ms;
	uint64_t server_ns_last;
	/*
	 * Our CLOCK_MONOTONIC less the server's: the smallest (arrival - server_ns) of
	 * WELCOME and every REPORT, the one with the least queueing in it. WELCOME comes
	 * over the idle path, so this is the clock offset plus about half an idle RTT.
	 */
	int64_t server_offset_ns;

	enum phase phase;
	uint64_t t0_mono; /* x = 0 */
	double t0_real;
	double total_s;
	uint64_t last_report_mono; /* the last REPORT or UDP probe answer */
	double path_rtt_ms;	   /* the largest round trip seen: engine_silence_s() */
	uint32_t probe_tick;	   /* next probe sequence number (all streams) */

	struct flow_state flows[PROTO_MAX_FLOWS];
	struct probe_state probes[TEST_MAX_PROBES];
	size_t nprobes;

	struct rusage ru_load;
	uint64_t load_mono;
	double last_latency_ms;
	double last_up_mbps;

	bool stop;
	int err;
	char *why;
	size_t whylen;
};

static double real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double elapsed_s(const struct engine *e)
{
	return (double)(mono_ns() - e->t0_mono) / 1e9;
}

/* The step index nearest to x seconds, clamped to the grid. */
static size_t step_of(const struct engine *e, double x)
{
	double i = floor(x / e->r->step_s + 0.5);

	if (i < 0)
		return 0;
	if (i >= (double)e->r->nsteps)
		return e->r->nsteps - 1;
	return (size_t)i;
}

static void note(struct engine_notes *n, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(struct engine_notes *n, const char *fmt, ...)
{
	va_list ap;

	if (!n || n->n >= COUNT(n->text))
		return;
	va_start(ap, fmt);
	vsnprintf(n->text[n->n++], sizeof(n->text[0]), fmt, ap);
	va_end(ap);
}

/* End the test with err and a sentence; the first failure wins. */
static void fail(struct engine *e, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(struct engine *e, int err, const char *fmt, ...)
{
	va_list ap;

	if (!e->err) {
		e->err = err;
		va_start(ap, fmt);
		vsnprintf(e->why, e->whylen, fmt, ap);
		va_end(ap);
	}
	e->stop = true;
}

/* ---- setup: resolve, connect, HELLO/WELCOME (sequential, bounded) ---------------- */

static int set_tos(int fd, int family, uint8_t tos)
{
	int v = tos;

	if (family == AF_INET6)
		return setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof(v)) ? -errno : 0;
	return setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v)) ? -errno : 0;
}

static int wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = events};
	int n;

	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

/* A non-blocking TCP socket connecting to e->addr (EINPROGRESS is fine), or -errno. */
static int tcp_socket(struct engine *e, uint8_t tos, const char *cc, bool nodelay)
{
	int fd, one = 1, r;

	fd = socket(e->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = set_tos(fd, e->addr.ss_family, tos);
	if (!r && cc && *cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc)))
		r = -errno;
	if (!r && e->local_len && bind(fd, (struct sockaddr *)&e->local, e->local_len))
		r = -errno;
	if (!r && nodelay) /* the control connection: small messages, no delay */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!r && connect(fd, (struct sockaddr *)&e->addr, e->addrlen) && errno != EINPROGRESS)
		r = -errno;
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

int engine_local_addr(const char *local, struct sockaddr_storage *out, socklen_t *len)
{
	struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_PASSIVE,
				 .ai_socktype = SOCK_DGRAM};
	struct addrinfo *res;
	int fd, r = 0;

	if (getaddrinfo(local, NULL, &hints, &res))
		return -EINVAL;
	fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen))
		r = -errno;
	if (fd >= 0)
		close(fd);
	if (!r) {
		memcpy(out, res->ai_addr, res->ai_addrlen);
		*len = res->ai_addrlen;
	}
	freeaddrinfo(res);
	return r;
}

static int resolve(struct engine *e)
{
	struct addrinfo hints = {.ai_family = e->o->family, .ai_socktype = SOCK_STREAM};
	struct addrinfo *res;
	char port[8];
	int r;

	if (e->o->local) {
		r = engine_local_addr(e->o->local, &e->local, &e->local_len);
		if (r < 0) {
			fail(e, r, "cannot use local address %s: %s", e->o->local,
			     r == -EINVAL ? "not an IP address" : strerror(-r));
			return r;
		}
		/* The server's address must be of the source's family. */
		hints.ai_family = e->local.ss_family;
	}
	snprintf(port, sizeof(port), "%u", e->o->port ? e->o->port : PROTO_DEFAULT_PORT);
	r = getaddrinfo(e->o->host, port, &hints, &res);
	if (r) {
		fail(e, -EHOSTUNREACH, "cannot resolve %s%s: %s", e->o->host,
		     !e->o->local		  ? ""
		     : hints.ai_family == AF_INET ? " to an IPv4 address (as --local)"
						  : " to an IPv6 address (as --local)",
		     r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
		return -EHOSTUNREACH;
	}
	memcpy(&e->addr, res->ai_addr, res->ai_addrlen);
	e->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static int send_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN) {
			int r = wait_fd(fd, POLLOUT, SETUP_TIMEOUT_MS);

			if (r < 0)
				return r;
			continue;
		}
		if (n < 0)
			return -errno;
		buf += n, len -= (size_t)n;
	}
	return 0;
}

/* One whole message from the control connection, waiting at most timeout_ms. */
static int read_msg(struct engine *e, struct proto_msg *m, int timeout_ms)
{
	for (;;) {
		int n = proto_decode(e->rx, e->rxlen, m);
		ssize_t got;

		if (n > 0) {
			memmove(e->rx, e->rx + n, e->rxlen - (size_t)n);
			e->rxlen -= (size_t)n;
			return 1;
		}
		if (n < 0)
			return n;
		if (e->rxlen == sizeof(e->rx))
			return -EMSGSIZE;
		got = recv(e->ctrl, e->rx + e->rxlen, sizeof(e->rx) - e->rxlen, 0);
		if (got > 0) {
			e->rxlen += (size_t)got;
			continue;
		}
		if (got == 0)
			return -ECONNRESET;
		if (errno != EAGAIN)
			return -errno;
		if (timeout_ms < 0)
			return 0;
		n = wait_fd(e->ctrl, POLLIN, timeout_ms);
		if (n < 0)
			return n;
	}
}

static const char *server_error(uint16_t code)
{
	switch (code) {
	case PROTO_ERR_BUSY:
		return "busy (its client limit is reached)";
	case PROTO_ERR_VERSION:
		return "speaks another protocol version";
	case PROTO_ERR_AUTH:
		return "wants a shared key (--key), or ours is wrong";
	case PROTO_ERR_PARAMS:
		return "cannot serve these parameters";
	case PROTO_ERR_CC:
		return "refuses this congestion control";
	default:
		return "refused the test";
	}
}

/* The CHALLENGE a keyed server sends first on the control connection. */
static int read_challenge(struct engine *e, uint8_t *nonce)
{
	struct proto_msg m;
	int r;

	r = read_msg(e, &m, SETUP_TIMEOUT_MS);
	if (r > 0 && m.type == PROTO_CHALLENGE) {
		memcpy(nonce, m.u.challenge.nonce, PROTO_NONCE_LEN);
		return 0;
	}
	r = r < 0 ? r : -EPROTO;
	fail(e, r, "the server at %s did not challenge our key: %s", e->o->host,
	     r == -ETIMEDOUT ? "no CHALLENGE in time (is it a keyed debloat server?)"
	     : r == -EPROTO  ? "it sent something else (a server without a key?)"
			     : strerror(-r));
	return r;
}

static int handshake(struct engine *e)
{
	struct proto_msg m = {.type = PROTO_HELLO};
	struct proto_hello *h = &m.u.hello, want;
	uint8_t buf[PROTO_FRAME_HDR + PROTO_MAX_BODY];
	char host[NI_MAXHOST] = "?", etext[4 * sizeof(m.u.error.text)];
	int n, r, soerr = 0;
	socklen_t sl = sizeof(soerr);

	getnameinfo((struct sockaddr *)&e->addr, e->addrlen, host, sizeof(host), NULL, 0,
		    NI_NUMERICHOST);
	e->ctrl = tcp_socket(e, 0, NULL, true);
	if (e->ctrl < 0) {
		fail(e, e->ctrl, "cannot connect to %s (%s) port %u: %s", e->o->host, host,
		     e->o->port ? e->o->port : PROTO_DEFAULT_PORT, strerror(-e->ctrl));
		return e->ctrl;
	}
	r = wait_fd(e->ctrl, POLLOUT, SETUP_TIMEOUT_MS);
	if (!r && getsockopt(e->ctrl, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr)
		r = -soerr;
	if (r < 0) {
		fail(e, r, "cannot connect to %s (%s) port %u: %s", e->o->host, host,
		     e->o->port ? e->o->port : PROTO_DEFAULT_PORT,
		     r == -ETIMEDOUT ? "no answer" : strerror(-r));
		return r;
	}
	/* A keyed server speaks first: the nonce our HELLO and its WELCOME sign. */
	if (e->o->key && (r = read_challenge(e, e->nonce)) < 0)
		return r;
	h->version = PROTO_VERSION;
	h->nflows = (uint8_t)e->spec.nflows;
	h->duration_ms = (uint32_t)llround(e->total_s * 1000);
	h->interval_us = (uint32_t)llround(e->o->step_s * 1e6);
	h->probe_len = PROTO_PROBE_LEN + (e->o->key ? PROTO_MAC_LEN : 0);
	h->step_ms = (uint32_t)llround(e->o->step_s * 1000);
	if (e->o->cc)
		snprintf(h->cc, sizeof(h->cc), "%s", e->o->cc);
	if (e->o->key)
		proto_hello_sign(h, e->nonce, e->o->key, e->o->keylen);
	want = *h; /* m is reused for the answer */
	n = proto_encode(&m, buf, sizeof(buf));
	r = n < 0 ? n : send_all(e->ctrl, buf, (size_t)n);
	if (r == 0)
		r = read_msg(e, &m, SETUP_TIMEOUT_MS);
	if (r < 0) {
		fail(e, r, "no answer from the server at %s port %u: %s", e->o->host,
		     e->o->port ? e->o->port : PROTO_DEFAULT_PORT,
		     r == -ETIMEDOUT		     ? "timed out (is it a debloat server?)"
		     : r == -ECONNRESET		     ? "it closed the connection"
		     : r == -EBADMSG || r == -EPROTO ? "it does not speak our protocol"
						     : strerror(-r));
		return r;
	}
	if (m.type == PROTO_CHALLENGE && !e->o->key) {
		fail(e, -EACCES,
		     "the server at %s is private: it needs its shared key (--key FILE)",
		     e->o->host);
		return -EACCES;
	}
	if (m.type == PROTO_ERROR) {
		fail(e, -ECONNREFUSED, "the server at %s %s: %s", e->o->host,
		     server_error(m.u.error.code),
		     print_escape(etext, sizeof(etext), m.u.error.text));
		return -ECONNREFUSED;
	}
	if (m.type != PROTO_WELCOME ||
	    (e->o->key && proto_welcome_verify(&m.u.welcome, e->nonce, e->o->key, e->o->keylen))) {
		fail(e, -EPROTO, "the server at %s answered HELLO with %s", e->o->host,
		     m.type == PROTO_WELCOME ? "a WELCOME that fails our key" : "something else");
		return -EPROTO;
	}
	if (proto_welcome_clamp(&m.u.welcome, &want))
		note(e->notes, "the server granted more than was asked or than is sane; "
			       "held to what was asked");
	memcpy(e->token, m.u.welcome.token, PROTO_TOKEN_LEN);
	e->duration_ms = m.u.welcome.duration_ms;
	e->interval_us = m.u.welcome.interval_us ? m.u.welcome.interval_us : want.interval_us;
	e->step_ms = m.u.welcome.step_ms;
	e->server_ns_last = m.u.welcome.server_ns;
	e->server_offset_ns = (int64_t)(mono_ns() - m.u.welcome.server_ns);
	e->r->granted_duration_ms = e->duration_ms;
	e->r->granted_interval_us = e->interval_us;
	e->r->granted_probe_len = m.u.welcome.probe_len;
	if (e->interval_us > want.interval_us)
		note(e->notes, "the server raised the probe interval to %.1f ms (its minimum)",
		     e->interval_us / 1000.0);
	if (e->step_ms != want.step_ms)
		note(e->notes,
		     "the server reports every %u ms, not every %u ms: upload goodput has that "
		     "resolution",
		     e->step_ms, want.step_ms);
	if (e->duration_ms < want.duration_ms) {
		double load = e->duration_ms / 1000.0 - 2 * e->o->delay_s;

		if (load < e->o->step_s) {
			fail(e, -EINVAL,
			     "the server allows tests of %.1f s at most, too short for a delay of "
			     "%g s each side",
			     e->duration_ms / 1000.0, e->o->delay_s);
			return -EINVAL;
		}
		note(e->notes, "the server allows %.1f s at most: the load lasts %.1f s, not %g s",
		     e->duration_ms / 1000.0, load, e->o->length_s);
		e->r->length_s = load;
		e->total_s = e->duration_ms / 1000.0;
	}
	return 0;
}

/* ---- the result's series -------------------------------------------------------- */

static int add_series(struct engine *e)
{
	char name[64];

	for (size_t i = 0; i < e->spec.nflows; i++) {
		struct flow_state *f = &e->flows[i];
		const struct test_flow *t = &e->spec.flows[i];

		f->goodput = result_add_series(
		    e->r, t->name, "Mbits/s",
		    t->direction == PROTO_UPLOAD ? SERIES_UPLOAD : SERIES_DOWNLOAD, t->tos);
		snprintf(name, sizeof(name), "%s::tcp_rtt", t->name);
		f->tcp_rtt = result_add_series(e->r, name, "ms", SERIES_TCP_RTT, t->tos);
		if (!f->goodput || !f->tcp_rtt)
			return -ENOMEM;
	}
	return 0;
}

static int open_probes(struct engine *e)
{
	size_t total = (size_t)(e->total_s * 1e6 / e->interval_us) + 2;
	size_t u = 0;

	for (size_t i = 0; i < e->spec.nprobes; i++) {
		const struct test_probe *t = &e->spec.probes[i];
		struct probe_state *p = &e->probes[e->nprobes];
		size_t len = strlen(e->r->unavailable);
		int r;

		r = probe_open(&p->ps, t->kind, (uint8_t)i, t->tos, (struct sockaddr *)&e->addr,
			       e->addrlen, e->local_len ? (struct sockaddr *)&e->local : NULL,
			       e->local_len, (uint16_t)e->r->granted_probe_len);
		if (r < 0) {
			/* Said in the result, never replaced by another kind of probe. */
			snprintf(
			    e->r->unavailable + len, sizeof(e->r->unavailable) - len, "%s%s: %s",
			    len ? "; " : "", t->kind == PROBE_ICMP ? "ICMP" : t->name,
			    r == -EPERM || r == -EACCES ? "no permission (needs root, CAP_NET_RAW "
							  "or net.ipv4.ping_group_range)"
							: strerror(-r));
			continue;
		}
		if (t->kind == PROBE_UDP && e->o->key) {
			p->ps.key = e->o->key;
			p->ps.keylen = e->o->keylen;
		}
		p->e = e;
		p->cap = (uint32_t)total;
		p->sent_ns = calloc(total, sizeof(*p->sent_ns));
		p->step_sum = calloc(e->r->nsteps, sizeof(*p->step_sum));
		p->step_count = calloc(e->r->nsteps, sizeof(*p->step_count));
		p->series = result_add_series(e->r, t->name, "ms", SERIES_PROBE, t->tos);
		if (!p->sent_ns || !p->step_sum || !p->step_count || !p->series)
			return -ENOMEM;
		e->nprobes++;
		u++;
	}
	return u ? 0 : -EPERM;
}

/* ---- probes ---------------------------------------------------------------------- */

static void probe_lost(struct engine *e, struct probe_state *p, uint32_t seq)
{
	p->sent_ns[seq] = 0;
	p->series->lost++;
	series_add_raw(p->series, e->t0_real + seq * (e->interval_us / 1e6), NAN, seq);
}

/* Probes unanswered for longer than the timeout are lost. */
static void expire_probes(struct engine *e, uint64_t now_real_ns)
{
	uint64_t timeout = (uint64_t)(ENGINE_PROBE_TIMEOUT_S * 1e9);

	for (size_t i = 0; i < e->nprobes; i++) {
		struct probe_state *p = &e->probes[i];

		while (p->oldest < p->nsent) {
			uint64_t t = p->sent_ns[p->oldest];

			if (t && now_real_ns - t < timeout)
				break;
			if (t)
				probe_lost(e, p, p->oldest);
			p->oldest++;
		}
	}
}

static bool probes_pending(const struct engine *e)
{
	for (size_t i = 0; i < e->nprobes; i++)
		for (uint32_t s = e->probes[i].oldest; s < e->probes[i].nsent; s++)
			if (e->probes[i].sent_ns[s])
				return true;
	return false;
}

static void on_probe_readable(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct probe_state *p = ctx;
	struct engine *e = p->e;
	struct probe_reply rep;
	int r;

	(void)fd, (void)events;
	for (int budget = 64; budget > 0; budget--) {
		double rtt_ms, x;
		size_t i;

		r = probe_receive(&p->ps, &rep);
		if (r <= 0)
			break;
		if (r != 1 || rep.seq >= p->nsent || !p->sent_ns[rep.seq])
			continue; /* not ours, a duplicate, or already counted lost */
		rtt_ms = rep.rtt_ns / 1e6;
		x = rep.seq * (e->interval_us / 1e6);
		p->sent_ns[rep.seq] = 0;
		p->series->received++;
		series_add_raw(p->series, rep.rx_ns / 1e9, rtt_ms, rep.seq);
		i = step_of(e, x);
		p->step_sum[i] += rtt_ms;
		p->step_count[i]++;
		e->last_latency_ms = rtt_ms;
		e->path_rtt_ms = fmax(e->path_rtt_ms, rtt_ms);
		/* The server's own answer (not its kernel's, as ICMP's): it is there, though
		 * its REPORTs may wait out TCP's backoff on a lossy, bloated path. */
		if (p->ps.kind == PROBE_UDP)
			e->last_report_mono = mono_ns();
		if (rep.owd && result_add_owd(e->r, x, rep.up_ns / 1e6, rep.down_ns / 1e6) < 0) {
			fail(e, -ENOMEM, "out of memory");
			return;
		}
	}
	if (r < 0)
		fail(e, r, "cannot read %s replies: %s", p->series->name, strerror(-r));
}

static void on_probe_tick(struct loop *l, uint64_t id, void *ctx)
{
	struct engine *e = ctx;
	uint64_t now = probe_now_ns();

	(void)id;
	expire_probes(e, now);
	if (e->phase >= PHASE_DRAIN)
		return;
	if (e->probe_tick * (e->interval_us / 1e6) > e->total_s + 1e-9) {
		e->phase = PHASE_DRAIN;
		return;
	}
	/* One-shot timers at absolute times from T0: late wake-ups do not add up. */
	if (!loop_timer_at(l, e->t0_mono + (uint64_t)(e->probe_tick + 1) * e->interval_us * 1000,
			   on_probe_tick, e)) {
		fail(e, -ENOMEM, "out of memory");
		return;
	}
	for (size_t i = 0; i < e->nprobes; i++) {
		struct probe_state *p = &e->probes[i];
		uint32_t seq = e->probe_tick;

		if (seq >= p->cap)
			continue;
		p->nsent = seq + 1;
		p->series->sent++;
		p->sent_ns[seq] = now;
		if (probe_send(&p->ps, e->token, seq, now) < 0)
			probe_lost(e, p, seq); /* socket buffer full: as good as lost */
	}
	e->probe_tick++;
}

/* ---- flows ----------------------------------------------------------------------- */

static void flow_event(struct loop *l, int fd, uint32_t events, void *ctx);

/* The FLOW frame into f->header, signed over nonce in keyed mode. */
static int flow_header(struct engine *e, struct flow_state *f, const uint8_t *nonce)
{
	struct proto_msg m = {.type = PROTO_FLOW};
	int n;

	memcpy(m.u.flow.token, e->token, PROTO_TOKEN_LEN);
	m.u.flow.flow_id = f->id;
	m.u.flow.direction = f->spec->direction;
	m.u.flow.tos = f->spec->tos;
	if (e->o->cc)
		snprintf(m.u.flow.cc, sizeof(m.u.flow.cc), "%s", e->o->cc);
	if (e->o->key)
		proto_flow_sign(&m.u.flow, nonce, e->o->key, e->o->keylen);
	n = proto_encode(&m, f->header, sizeof(f->header));
	if (n < 0)
		return n;
	f->header_len = (size_t)n;
	return 0;
}

/* Keyed: read the flow connection's CHALLENGE (it may come in pieces), then sign FLOW
 * with its nonce and wait to send it. 1 done, 0 more to read, -errno. */
static int flow_challenge(struct engine *e, struct flow_state *f)
{
	struct proto_msg m;
	ssize_t n = recv(f->fd, f->chal + f->chal_len, sizeof(f->chal) - f->chal_len, 0);
	int r;

	if (n == 0)
		return -ECONNRESET;
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	f->chal_len += (size_t)n;
	if (f->chal_len < sizeof(f->chal))
		return 0;
	r = proto_decode(f->chal, f->chal_len, &m);
	if (r <= 0 || m.type != PROTO_CHALLENGE)
		return -EPROTO;
	r = flow_header(e, f, m.u.challenge.nonce);
	if (r < 0)
		return r;
	f->challenged = true;
	return loop_mod(e->loop, f->fd, EPOLLOUT) < 0 ? -EIO : 1;
}

static int flow_open(struct engine *e, struct flow_state *f)
{
	int r;

	/* We set our cc on every socket we send from: the uploads. The server does the
	 * downloads' (FLOW carries it). */
	f->fd = tcp_socket(e, f->spec->tos,
			   f->spec->direction == PROTO_UPLOAD && e->o->cc ? e->o->cc : NULL, false);
	if (f->fd < 0)
		return f->fd;
	/* Keyed: the server speaks first; FLOW is signed once its nonce is in. */
	if (e->o->key)
		return loop_add(e->loop, f->fd, EPOLLIN, flow_event, f);
	r = flow_header(e, f, NULL);
	if (r < 0)
		return r;
	return loop_add(e->loop, f->fd, EPOLLOUT, flow_event, f);
}

static void flow_close(struct engine *e, struct flow_state *f)
{
	/* Abortive close: the load stops now, not when our send buffer has drained. */
	struct linger lg = {.l_onoff = 1, .l_linger = 0};

	if (f->fd < 0)
		return;
	loop_del(e->loop, f->fd);
	setsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(f->fd);
	f->fd = -1;
	f->connected = false;
}

static void flow_event(struct loop *l, int fd, uint32_t events, void *ctx)
{
	static uint8_t bulk[BULK_CHUNK];
	static uint8_t sink[BULK_CHUNK];
	struct flow_state *f = ctx;
	struct engine *e = f->e;
	char etext[4 * 128]; /* a proto_errmsg text, escaped */
	ssize_t n;

	(void)l;
	if (!f->connected) {
		int soerr = 0;
		socklen_t sl = sizeof(soerr);

		getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		if (soerr) {
			fail(e, -soerr, "cannot open flow %s: %s", f->spec->name, strerror(soerr));
			return;
		}
		f->connected = true;
	}
	if (e->o->key && !f->challenged) {
		int r = flow_challenge(e, f);

		if (r < 0)
			fail(e, r, "cannot open flow %s: no CHALLENGE from the server: %s",
			     f->spec->name, strerror(-r));
		return;
	}
	if (!f->header_sent) {
		n = send(fd, f->header + f->header_off, f->header_len - f->header_off,
			 MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN)
			goto broken;
		if (n > 0)
			f->header_off += (size_t)n;
		if (f->header_off < f->header_len)
			return;
		f->header_sent = true;
		if (f->spec->direction == PROTO_DOWNLOAD)
			loop_mod(e->loop, fd, EPOLLIN);
		return;
	}
	/* One chunk per wake-up: level-triggered epoll comes back while there is room, and
	 * one wait serves every writable flow at once (8 flows on loopback: about 1.1
	 * system calls per chunk, epoll_wait included). */
	if (f->spec->direction == PROTO_UPLOAD) {
		n = send(fd, bulk, sizeof(bulk), MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN)
			goto broken;
		return;
	}
	for (int i = 0; i < READS_PER_WAKE; i++) {
		n = recv(fd, sink, sizeof(sink), 0);
		if (n > 0) {
			if (f->bytes < sizeof(f->head))
				memcpy(f->head + f->bytes, sink,
				       MIN(sizeof(f->head) - f->bytes, (size_t)n));
			f->bytes += (uint64_t)n;
			/* A short read emptied the socket: no recv() just to hear EAGAIN. */
			if ((size_t)n < sizeof(sink))
				return;
			continue;
		}
		if (n < 0 && errno == EAGAIN)
			return;
		goto broken;
	}
	(void)events;
	return;
broken:
	if (e->phase == PHASE_LOAD && f->spec->direction == PROTO_DOWNLOAD &&
	    f->bytes <= sizeof(f->head)) {
		struct proto_msg m;

		/* A flow the server refused: it said why before closing. */
		if (proto_decode(f->head, (size_t)f->bytes, &m) > 0 && m.type == PROTO_ERROR)
			fail(e, -ECONNREFUSED, "the server refused flow %s: it %s: %s",
			     f->spec->name, server_error(m.u.error.code),
			     print_escape(etext, sizeof(etext), m.u.error.text));
	}
	if (e->phase == PHASE_LOAD)
		fail(e, n == 0 ? -ECONNRESET : -errno, "the server ended flow %s after %.1f s: %s",
		     f->spec->name, elapsed_s(e), n == 0 ? "closed" : strerror(errno));
	flow_close(e, f);
}

/* ---- the control connection ------------------------------------------------------ */

/*
 * A flow's count of bytes at `now` (our clock) onto the grid, up to grid point last:
 * the count at every grid point between the last sample and this one, on the straight
 * line between the two, and each step's goodput the count's rise over the step. A
 * sampler stalled for several steps (a loaded host did not run us, or the server's
 * REPORT timer fired late) spreads what arrived meanwhile over the time it took, and a
 * late sample takes its share of the next step's bytes, not all of them: summed over
 * the steps, the goodput is the bytes counted, exactly. The rate of this one sample
 * (bytes over the time since the last one) in *v.
 */
static void count_steps(struct engine *e, struct flow_state *f, uint64_t now, uint64_t bytes,
			size_t last, double *v)
{
	uint64_t step_ns = (uint64_t)llround(e->r->step_s * 1e9), span = now - f->sample_mono;
	uint64_t rise = bytes >= f->sample_bytes ? bytes - f->sample_bytes : 0;

	*v = NAN;
	if (now <= f->sample_mono)
		return;
	*v = (double)rise * 8 / ((double)span / 1e9) / 1e6;
	for (size_t k = f->grid_i + 1; k < e->r->nsteps && k <= last; k++) {
		uint64_t g = e->t0_mono + k * step_ns;
		double b;

		if (g > now)
			break;
		b = (double)f->sample_bytes +
		    (g > f->sample_mono ? (double)rise * (double)(g - f->sample_mono) / (double)span
					: 0);
		f->goodput->values[k] = (b - f->grid_bytes) * 8 / e->r->step_s / 1e6;
		f->grid_bytes = b;
		f->grid_i = k;
	}
	f->sample_mono = now;
	f->sample_bytes = bytes;
}

/*
 * A REPORT counts the bytes that reached the server up to server_ns: a sample of each
 * upload's count at that moment on our timeline (count_steps), not at its arrival.
 * Under load REPORTs wait behind the download's queue (120 ms in a 1000-packet FIFO at
 * 100 Mbit/s) by an amount that changes, and arrive bunched. The server's timer fires
 * late under load too, then at the next point of its grid, which may be a few ms
 * later: a rate of the bytes between two REPORTs over their own interval, put in a
 * whole step, would read far above the link.
 */
static void on_report(struct engine *e, const struct proto_report *rep)
{
	uint64_t now = mono_ns(), when;
	int64_t offset = (int64_t)(now - rep->server_ns);
	size_t end = step_of(e, e->o->delay_s + e->r->length_s);
	double x, t, sum = 0;
	size_t i;

	if (offset < e->server_offset_ns)
		e->server_offset_ns = offset;
	when = rep->server_ns + (uint64_t)e->server_offset_ns;
	x = (double)(int64_t)(when - e->t0_mono) / 1e9;
	t = e->t0_real + x;
	i = step_of(e, x);
	e->last_report_mono = now;
	if (rep->flags & PROTO_REPORT_OVERLOADED)
		e->r->server_overloaded = true;
	if (rep->flags & PROTO_REPORT_FLOW_REFUSED && e->phase == PHASE_LOAD)
		fail(e, -ECONNREFUSED, "the server refused a flow after %.1f s", x);
	if (rep->server_ns <= e->server_ns_last)
		return;
	e->server_ns_last = rep->server_ns;
	for (size_t k = 0; k < e->spec.nflows && k < rep->nflows; k++) {
		struct flow_state *f = &e->flows[k];
		double v;

		if (f->spec->direction != PROTO_UPLOAD)
			continue;
		/* From the first REPORT of the load to the one past its end (a flow that got
		 * nothing meanwhile, waiting out a retransmission timeout, included). */
		if (e->phase != PHASE_LOAD && !(e->phase == PHASE_IDLE_AFTER && f->grid_i < end))
			continue;
		count_steps(e, f, when, rep->rx_bytes[k], end, &v);
		if (isnan(v))
			continue;
		series_add_raw(f->goodput, t, v, (uint32_t)i);
		sum += v;
	}
	e->last_up_mbps = sum;
}

static void on_control(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct engine *e = ctx;
	struct proto_msg m;
	char etext[4 * sizeof(m.u.error.text)];
	int r;

	(void)l, (void)fd, (void)events;
	while ((r = read_msg(e, &m, -1)) > 0) {
		if (m.type == PROTO_REPORT) {
			on_report(e, &m.u.report);
		} else if (m.type == PROTO_FINAL) {
			if (m.u.final.flags & PROTO_REPORT_OVERLOADED)
				e->r->server_overloaded = true;
			e->phase = PHASE_DONE;
			e->stop = true;
			return;
		} else if (m.type == PROTO_ERROR) {
			fail(e, -ECONNABORTED, "the server ended the test after %.1f s: %s",
			     elapsed_s(e), print_escape(etext, sizeof(etext), m.u.error.text));
			return;
		}
	}
	if (r < 0)
		fail(e, r, "the server %s after %.1f s",
		     r == -ECONNRESET ? "closed the control connection"
				      : "sent a message we cannot read",
		     elapsed_s(e));
}

static int send_stop(struct engine *e)
{
	struct proto_msg m = {.type = PROTO_STOP};
	uint8_t buf[PROTO_FRAME_HDR + 8];
	int n = proto_encode(&m, buf, sizeof(buf));

	if (n < 0)
		return n;
	return send(e->ctrl, buf, (size_t)n, MSG_NOSIGNAL) == n ? 0 : -errno;
}

/* ---- the sampling step and the phases ------------------------------------------- */

static void cpu_check(struct engine *e)
{
	struct rusage ru;
	double cpu, wall = (double)(mono_ns() - e->load_mono) / 1e9;

	getrusage(RUSAGE_SELF, &ru);
	cpu = (double)(ru.ru_utime.tv_sec - e->ru_load.ru_utime.tv_sec) +
	      (double)(ru.ru_stime.tv_sec - e->ru_load.ru_stime.tv_sec) +
	      (double)(ru.ru_utime.tv_usec - e->ru_load.ru_utime.tv_usec) / 1e6 +
	      (double)(ru.ru_stime.tv_usec - e->ru_load.ru_stime.tv_usec) / 1e6;
	if (wall > 0.5 && cpu / wall > 0.9)
		e->r->client_cpu_saturated = true;
}

static void set_phase(struct engine *e, double x)
{
	if (e->phase == PHASE_IDLE_BEFORE && e->spec.nflows && x >= e->o->delay_s - 1e-9) {
		e->phase = PHASE_LOAD;
		getrusage(RUSAGE_SELF, &e->ru_load);
		e->load_mono = mono_ns();
		for (size_t i = 0; i < e->spec.nflows; i++) {
			struct flow_state *f = &e->flows[i];
			int r;

			/* Nothing received yet, as of the grid point the load starts on. */
			f->sample_mono = e->load_mono;
			f->sample_bytes = 0;
			f->grid_i = (size_t)((e->load_mono - e->t0_mono) /
					     (uint64_t)llround(e->r->step_s * 1e9));
			f->grid_bytes = 0;
			r = flow_open(e, f);

			if (r < 0) {
				fail(e, r, "cannot open flow %s: %s", e->flows[i].spec->name,
				     r == -ENOENT && e->o->cc
					 ? "this host has no such congestion control"
					 : strerror(-r));
				return;
			}
		}
	} else if (e->phase == PHASE_LOAD && x >= e->o->delay_s + e->r->length_s - 1e-9) {
		e->phase = PHASE_IDLE_AFTER;
		cpu_check(e);
		for (size_t i = 0; i < e->spec.nflows; i++)
			flow_close(e, &e->flows[i]);
	}
}

/*
 * glibc's struct tcp_info ends before the kernel's byte counters (Linux 4.1 and later):
 * the kernel's layout past it, which is its ABI (linux/tcp.h cannot be included beside
 * netinet/tcp.h).
 */
struct tcp_info_counters {
	struct tcp_info ti;
	uint64_t pacing_rate, max_pacing_rate;
	uint64_t bytes_acked, bytes_received;
};
_Static_assert(offsetof(struct tcp_info_counters, bytes_acked) == 120,
	       "tcpi_bytes_acked is at offset 120 of the kernel's struct tcp_info");

/*
 * One flow's sample at `now`. A download counts the kernel's bytes received, which
 * arrived when the path carried them, not when we got around to reading them: the
 * backlog of a stall, read in a burst afterwards, stays where it arrived. Without that
 * counter (Linux before 4.1), the bytes this process read.
 */
static void sample_flow(struct engine *e, struct flow_state *f, size_t i, uint64_t now, double t,
			double *down)
{
	struct tcp_info_counters tc;
	socklen_t tl = sizeof(tc);
	bool up = f->spec->direction == PROTO_UPLOAD, got, counted;
	uint32_t us = 0;
	double v;

	if (f->fd < 0 || !f->header_sent)
		return;
	memset(&tc, 0, sizeof(tc));
	got = getsockopt(f->fd, IPPROTO_TCP, TCP_INFO, &tc, &tl) == 0;
	counted =
	    got && tl >= offsetof(struct tcp_info_counters, bytes_received) + sizeof(uint64_t);
	if (counted) {
		f->own_bytes = up ? tc.bytes_acked : tc.bytes_received;
		f->own_mono = now;
	}
	if (!up) {
		count_steps(e, f, now, counted ? tc.bytes_received : f->bytes, SIZE_MAX, &v);
		if (!isnan(v)) {
			series_add_raw(f->goodput, t, v, (uint32_t)i);
			*down += v;
		}
	}
	if (got)
		us = up ? tc.ti.tcpi_rtt : tc.ti.tcpi_rcv_rtt;
	if (us) {
		e->path_rtt_ms = fmax(e->path_rtt_ms, us / 1000.0);
		f->tcp_rtt->values[i] = us / 1000.0;
		series_add_raw(f->tcp_rtt, t, us / 1000.0, (uint32_t)i);
	}
}

double engine_silence_s(double path_rtt_ms)
{
	double s = ENGINE_SILENCE_RTTS * path_rtt_ms / 1e3;

	if (!(s > ENGINE_SILENCE_S)) /* NAN too */
		return ENGINE_SILENCE_S;
	return fmin(s, ENGINE_SILENCE_MAX_S);
}

static void on_step(struct loop *l, uint64_t id, void *ctx)
{
	struct engine *e = ctx;
	uint64_t now = mono_ns(), step_ns = (uint64_t)llround(e->r->step_s * 1e9);
	double x = (double)(now - e->t0_mono) / 1e9, down = 0, quiet_s;
	size_t i = step_of(e, x);

	(void)id;
	/* The next grid point still ahead: after a stall, one sample covers the steps it
	 * missed, not a run of late ones each a few microseconds long. */
	if (!loop_timer_at(l, e->t0_mono + ((now - e->t0_mono) / step_ns + 1) * step_ns, on_step,
			   e)) {
		fail(e, -ENOMEM, "out of memory");
		return;
	}
	if (e->phase == PHASE_LOAD)
		for (size_t k = 0; k < e->spec.nflows; k++)
			sample_flow(e, &e->flows[k], i, now, e->t0_real + x, &down);
	set_phase(e, x);
	if (e->err)
		return;
	expire_probes(e, probe_now_ns()); /* the probe timer no longer runs once draining */
	if (e->phase == PHASE_DRAIN && !probes_pending(e)) {
		int r = send_stop(e);

		if (r < 0) {
			fail(e, r, "cannot send STOP to the server: %s", strerror(-r));
			return;
		}
		e->phase = PHASE_STOPPING;
		e->last_report_mono = now; /* FINAL gets its own full silence budget */
	}
	quiet_s = engine_silence_s(e->path_rtt_ms);
	if ((double)(now - e->last_report_mono) / 1e9 > quiet_s) {
		fail(e, -ETIMEDOUT,
		     "the server stopped answering after %.1f s (no word for %.0f s)",
		     (double)(e->last_report_mono - e->t0_mono) / 1e9, quiet_s);
		return;
	}
	if (x > e->total_s + ENGINE_GRACE_S) {
		fail(e, -ETIMEDOUT, "the test did not end %.0f s after its planned end",
		     ENGINE_GRACE_S);
		return;
	}
	if (e->o->progress && e->phase <= PHASE_IDLE_AFTER) {
		struct engine_progress pr = {
		    .elapsed_s = x,
		    .total_s = e->total_s,
		    .download_mbps = down,
		    .upload_mbps = e->phase == PHASE_LOAD ? e->last_up_mbps : 0,
		    .latency_ms = e->last_latency_ms,
		    .loaded = e->phase == PHASE_LOAD,
		};
		e->o->progress(e->o->progress_ctx, &pr);
	}
}

/* Each direction's goodput from its flows' own TCP counters, over the load. */
static void own_goodput(struct engine *e)
{
	double sum[2] = {0, 0};
	bool any[2] = {false, false};

	for (size_t i = 0; i < e->spec.nflows; i++) {
		const struct flow_state *f = &e->flows[i];
		int d = f->spec->direction == PROTO_UPLOAD ? 0 : 1;
		double s;

		if (!f->own_mono || f->own_mono <= e->load_mono)
			continue;
		s = (double)(f->own_mono - e->load_mono) / 1e9;
		sum[d] += (double)f->own_bytes * 8 / s / 1e6;
		any[d] = true;
	}
	e->r->own_upload_mbps = any[0] ? sum[0] : NAN;
	e->r->own_download_mbps = any[1] ? sum[1] : NAN;
}

/* Per-step probe means onto the grid. */
static void finish_probes(struct engine *e)
{
	expire_probes(e, UINT64_MAX / 2); /* whatever is still pending now is lost */
	for (size_t k = 0; k < e->nprobes; k++) {
		struct probe_state *p = &e->probes[k];

		for (size_t i = 0; i < e->r->nsteps; i++)
			if (p->step_count[i])
				p->series->values[i] = p->step_sum[i] / p->step_count[i];
	}
}

/* ---- the run --------------------------------------------------------------------- */

static int check_opts(const struct engine_opts *o)
{
	if (!(o->length_s > 0) || !(o->delay_s >= 0) || !(o->step_s >= 0.001) ||
	    o->length_s + 2 * o->delay_s > 24 * 3600 || o->step_s > o->length_s)
		return -EINVAL;
	return 0;
}

static int run_loop(struct engine *e)
{
	uint64_t step_ns = (uint64_t)llround(e->r->step_s * 1e9);
	int r;

	r = loop_add(e->loop, e->ctrl, EPOLLIN, on_control, e);
	for (size_t i = 0; !r && i < e->nprobes; i++)
		r = loop_add(e->loop, e->probes[i].ps.fd, EPOLLIN, on_probe_readable,
			     &e->probes[i]);
	if (!r && (!loop_timer_at(e->loop, e->t0_mono, on_probe_tick, e) ||
		   !loop_timer_at(e->loop, e->t0_mono + step_ns, on_step, e)))
		r = -ENOMEM;
	if (r < 0) {
		fail(e, r, "cannot set up the event loop: %s", strerror(-r));
		return r;
	}
	/* Bounded: on_step fails the test past total + ENGINE_GRACE_S or after
	 * engine_silence_s() without a word from the server. */
	while (!e->stop) {
		r = loop_once(e->loop, 1000);
		if (r < 0) {
			fail(e, r, "the event loop failed: %s", strerror(-r));
			break;
		}
		if (e->o->interrupt && *e->o->interrupt) {
			e->r->interrupted = true;
			fail(e, -EINTR, "interrupted after %.1f s",
			     (double)(mono_ns() - e->t0_mono) / 1e9);
		}
	}
	return e->err;
}

int engine_run(const struct engine_opts *o, struct test_result *r, struct engine_notes *notes,
	       char *why, size_t whylen)
{
	struct engine *e;
	time_t secs;
	int ret;

	if (whylen)
		why[0] = '\0';
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->o = o, e->r = r, e->notes = notes, e->why = why, e->whylen = whylen;
	e->ctrl = -1;
	for (size_t i = 0; i < PROTO_MAX_FLOWS; i++)
		e->flows[i].fd = -1;
	ret = test_spec_get(o->test, o->streams, &e->spec);
	if (ret < 0) {
		snprintf(why, whylen,
			 ret == -ENOENT ? "unknown test \"%s\"" : "bad --streams for %s", o->test);
		goto out;
	}
	ret = check_opts(o);
	if (ret < 0) {
		snprintf(why, whylen, "bad timing: length %g s, delay %g s, step %g s", o->length_s,
			 o->delay_s, o->step_s);
		goto out;
	}
	e->loop = loop_new();
	if (!e->loop) {
		ret = -ENOMEM;
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	snprintf(r->test, sizeof(r->test), "%s", o->test);
	snprintf(r->host, sizeof(r->host), "%s", o->host);
	gethostname(r->local_host, sizeof(r->local_host) - 1);
	snprintf(r->label, sizeof(r->label), "%s", o->label ? o->label : "");
	snprintf(r->cc, sizeof(r->cc), "%s", o->cc ? o->cc : "");
	r->length_s = o->length_s, r->delay_s = o->delay_s, r->step_s = o->step_s;
	e->total_s = o->length_s + 2 * o->delay_s;
	for (size_t i = 0; i < e->spec.nflows; i++)
		e->flows[i].e = e, e->flows[i].spec = &e->spec.flows[i],
		e->flows[i].id = (uint8_t)i;

	ret = resolve(e);
	if (ret == 0)
		ret = handshake(e);
	if (ret < 0)
		goto out;
	r->ip_version = e->addr.ss_family == AF_INET6 ? 6 : 4;
	ret = result_init(r, (size_t)llround(e->total_s / o->step_s) + 1);
	if (!ret)
		ret = add_series(e);
	if (!ret)
		ret = open_probes(e);
	if (ret < 0) {
		fail(e, ret,
		     ret == -EPERM ? "no probe stream could run: %s" : "cannot set up the test: %s",
		     ret == -EPERM ? r->unavailable : strerror(-ret));
		goto out;
	}
	e->t0_mono = e->last_report_mono = mono_ns();
	e->t0_real = r->t0 = real_s();
	secs = (time_t)r->t0;
	{
		struct tm tm;
		char day[24];

		gmtime_r(&secs, &tm);
		strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(r->time_utc, sizeof(r->time_utc), "%s.%06ldZ", day,
			 (long)((r->t0 - (double)secs) * 1e6));
	}
	e->last_latency_ms = NAN;
	if (!e->spec.nflows)
		e->phase = PHASE_IDLE_AFTER; /* ping: no load, all idle */
	ret = run_loop(e);
	finish_probes(e);
	own_goodput(e);
out:
	if (e->phase == PHASE_LOAD)
		cpu_check(e);
	for (size_t i = 0; i < e->spec.nflows; i++)
		if (e->flows[i].fd >= 0) {
			close(e->flows[i].fd);
			e->flows[i].fd = -1;
		}
	for (size_t i = 0; i < e->nprobes; i++) {
		probe_close(&e->probes[i].ps);
		free(e->probes[i].sent_ns);
		free(e->probes[i].step_sum);
		free(e->probes[i].step_count);
	}
	if (e->ctrl >= 0)
		close(e->ctrl);
	if (e->loop)
		loop_free(e->loop);
	if (!ret && e->err)
		ret = e->err;
	free(e);
	return ret;
}
