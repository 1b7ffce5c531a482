/* SPDX-License-Identifier: MIT */
/*
 * server.c - the server of proto.h on one epoll loop (loop.h). See server.h for what
 * a client must know; docs/design/measurement.md section 3 for why each limit exists.
 *
 * Every resource has a bound: tests (max_clients), flows per test (PROTO_MAX_FLOWS),
 * connections waiting for their first frame (max_pending, closed after
 * hello_timeout_ms), bytes buffered per connection (one frame in, a few frames out),
 * probe rate per stream (token bucket). A housekeeping tick every SWEEP_MS enforces
 * the timeouts; REPORTs run on their own per-test timers so a step stays a step.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/hist.h"
#include "base/loop.h"
#include "base/peer.h"
#include "http/hthread.h"
#include "meter/cc.h"
#include "meter/server.h"
#include "meter/tokens.h"

#define SWEEP_MS	100
#define SWEEP_SLICE	64 /* records the sweep looks at between two looks at the probes */
#define ACCEPT_BATCH	64
#define PROBE_BATCH	64		     /* datagrams per recvmmsg / sendmmsg */
#define PROBE_ROUNDS	4		     /* batches per wake-up of the UDP socket */
#define PROBE_CTL_LEN	128		     /* a timestamp and a TOS, with room */
#define HOLD_SANE_NS	(10 * 1000000000ULL) /* longer: the wall clock stepped */
#define BULK_LEN	(512 * 1024)	     /* one send()/recv() of bulk data (see on_bulk_out) */
#define BULK_READS	2    /* recv()s per event (1 MB): no flow starves the rest */
#define OUT_LEN		4096 /* control output: ~15 REPORTs the client did not read */
#define FRAME_LEN	(PROTO_FRAME_HDR + PROTO_MAX_BODY) /* the longest frame */
#define PROBE_BUF	2048
#define PROBE_BURST	5
#define CLOSING_MS	2000 /* time to flush FINAL before closing anyway */
#define STEP_MIN_MS	50
#define STEP_MAX_MS	10000
#define STEP_DEFAULT_MS 200
#define DURATION_MIN_MS 1000
#define NS_PER_MS	1000000ULL

enum conn_kind {
	CONN_NEW,     /* accepted, no frame yet */
	CONN_CONTROL, /* sent HELLO */
	CONN_UPLOAD,
	CONN_DOWNLOAD,
	CONN_CLOSING, /* flushing a last frame */
};

struct test;

struct conn {
	struct server *s;
	struct conn *prev, *next;   /* every open connection, for the sweep */
	struct conn *pprev, *pnext; /* the pending ones (CONN_NEW), for eviction */
	int fd;
	enum conn_kind kind;
	struct sockaddr_storage peer;
	uint64_t since_ns;    /* accepted, or started closing */
	uint64_t progress_ns; /* a flow's last byte moved */
	struct test *test;
	uint8_t flow_id;
	uint8_t nonce[PROTO_NONCE_LEN]; /* keyed mode: this connection's CHALLENGE */
	uint32_t events;		/* what the loop watches for it */
	/* Allocated only while they hold something: a frame's first part (FRAME_LEN) and
	 * frames the peer has not taken yet (OUT_LEN). A quiet connection has neither. */
	uint8_t *in, *out;
	size_t inlen, outlen;
};

struct bucket {
	uint8_t stream;
	bool used;
	uint64_t credit_ns, last_ns;
};

/* One load flow of a test: its connection once attached, and its bytes. */
struct test_flow {
	struct conn *conn;
	uint64_t rx, tx;
};

struct test {
	struct server *s;
	unsigned slot; /* index in server.tests */
	uint8_t token[PROTO_TOKEN_LEN];
	struct sockaddr_storage addr; /* the client's IP (port ignored) */
	struct peer_net ip;	      /* ... as a key: the probes' sources are checked on it */
	struct conn *control;
	/* nflows of them, allocated with the test only when it asked for flows: a test
	 * of probes alone (the many-clients case) carries no per-flow state. */
	struct test_flow *flows;
	uint32_t flows_used; /* bit per flow id ever attached */
	uint8_t nflows;
	char cc[PROTO_CC_LEN];
	struct proto_welcome granted;
	uint64_t start_ns, end_ns, active_ns, report_ns;
	uint64_t report_timer;
	uint32_t flags, answered, dropped;
	uint32_t held;	      /* probes held longer than hold_max_us */
	uint32_t hold_max_us; /* the longest hold of an answered probe */
	uint32_t proc_max_us; /* the longest processing time of an answered probe */
	struct bucket buckets[SERVER_MAX_STREAMS];
};

/* One request accepted, its reply waiting for the batch's sendmmsg. */
struct probe_reply {
	struct test *t;
	struct proto_probe p;
	size_t len;	  /* the request's */
	unsigned in;	  /* its index in the batch read */
	int tos;	  /* its marking, -1: unknown */
	uint64_t rx_ns;	  /* arrival on the monotonic clock (see probe_arrival) */
	uint64_t proc_ns; /* the server's own work on it (see server_probe_stats) */
};

/* Hold and processing times of answered probes (server_probe_stats), in ns. */
struct probe_times {
	struct hist hold, proc;
	uint64_t since_ns;
};

/* The vectors of one batch in and one out, allocated once per server (~140 KB). */
struct probe_io {
	struct mmsghdr in[PROBE_BATCH];
	struct iovec in_iov[PROBE_BATCH];
	struct sockaddr_storage from[PROBE_BATCH];
	union {
		char buf[PROBE_CTL_LEN];
		struct cmsghdr align;
	} in_ctl[PROBE_BATCH];
	uint8_t buf[PROBE_BATCH][PROBE_BUF];
	struct probe_reply pend[PROBE_BATCH];
	struct mmsghdr out[PROBE_BATCH];
	struct iovec out_iov[PROBE_BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} out_ctl[PROBE_BATCH];
	uint8_t reply[PROBE_BATCH][PROTO_PROBE_LEN + PROTO_MAC_LEN];
};

struct server {
	struct server_config cfg;
	struct loop *loop;
	int tcp, udp, reserve_fd;
	uint16_t port;
	int family; /* of the sockets */
	int rpm_fd; /* the responsiveness test's listener, or -1 */
	uint16_t rpm_port;
	struct hthread *rpm; /* its connections, on their own thread */
	struct conn *conns, *pending;
	unsigned nconns, npending, ntests;
	struct test **tests; /* the running tests, dense: [0, ntests) */
	/* tests[i]'s network (cfg.v6_prefix), side by side: a HELLO's count of its
	 * network's tests scans these 24 bytes a test, not the tests themselves. */
	struct peer_net *nets;
	struct token_table by_token;
	uint64_t sweep_timer;
	uint8_t *bulk;		  /* BULK_LEN: zeros to send, and a sink to read into */
	uint8_t frame[FRAME_LEN]; /* control input is read here, then kept only if partial */
	struct probe_io *pio;
	int rcvbuf;			/* the UDP receive buffer the kernel granted, bytes */
	uint32_t rxq_drops;		/* datagrams the kernel dropped on a full UDP buffer */
	uint32_t rxq_drops_seen;	/* ... when the sweep last marked the tests for it */
	struct probe_times window, run; /* since the last stats callback; since the start */
	uint64_t stats_timer;
};

/* Every deadline and stamp of the server is on its loop's clock (cfg.clock). */
static uint64_t server_now(const struct server *s)
{
	return loop_now(s->loop);
}

void server_config_defaults(struct server_config *c)
{
	*c = (struct server_config){
	    .family = AF_UNSPEC,
	    .port = PROTO_DEFAULT_PORT,
	    .max_clients = 32,
	    .max_pending = 256,
	    .max_tests_per_addr = 4,
	    .max_pending_per_addr = 16,
	    .v6_prefix = PEER_V6_BITS_DEFAULT,
	    .max_duration_ms = 180000,
	    .min_interval_us = 10000,
	    .max_probe_len = 1472,
	    .grace_ms = 5000,
	    .idle_ms = 10000,
	    .hello_timeout_ms = 3000,
	    .flow_stall_ms = 30000,
	    .udp_rcvbuf = SERVER_UDP_RCVBUF,
	    .hold_max_us = SERVER_HOLD_MAX_US,
	    .allowed_cc_path = CC_ALLOWED_PATH,
	    .available_cc_path = CC_AVAILABLE_PATH,
	    .rpm_port = HSERVER_DEFAULT_PORT,
	};
	hserver_config_defaults(&c->rpm_cfg);
}

uint16_t server_port(const struct server *s)
{
	return s->port;
}

uint16_t server_rpm_port(const struct server *s)
{
	return s->rpm_port;
}

int server_udp_rcvbuf(const struct server *s)
{
	return s->rcvbuf;
}

/* ---- connections ---- */

static void conn_event(struct loop *l, int fd, uint32_t events, void *ctx);

/* c said what it is (or is going): off the pending list. */
static void conn_unpend(struct conn *c)
{
	struct server *s = c->s;

	if (c->pprev)
		c->pprev->pnext = c->pnext;
	else
		s->pending = c->pnext;
	if (c->pnext)
		c->pnext->pprev = c->pprev;
	c->pprev = c->pnext = NULL;
	s->npending--;
}

static void conn_close(struct conn *c)
{
	struct server *s = c->s;

	if (c->kind == CONN_NEW)
		conn_unpend(c);
	if (c->test && c->test->control == c)
		c->test->control = NULL;
	if (c->test && (c->kind == CONN_UPLOAD || c->kind == CONN_DOWNLOAD) &&
	    c->test->flows[c->flow_id].conn == c)
		c->test->flows[c->flow_id].conn = NULL;
	loop_del(s->loop, c->fd);
	close(c->fd);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	free(c->in);
	free(c->out);
	free(c);
}

/* Have the loop watch c for `events`; a syscall only when that changes. */
static void conn_watch(struct conn *c, uint32_t events)
{
	if (c->events != events && loop_mod(c->s->loop, c->fd, events) == 0)
		c->events = events;
}

/* Flush what the control output holds. false when the peer is gone. */
static bool conn_flush(struct conn *c)
{
	while (c->outlen) {
		ssize_t n = send(c->fd, c->out, c->outlen, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0)
			return false;
		memmove(c->out, c->out + n, c->outlen - (size_t)n);
		c->outlen -= (size_t)n;
	}
	if (!c->outlen) {
		free(c->out);
		c->out = NULL;
	}
	/* A closing connection waits for room only: after SHUT_RD, EPOLLIN never clears. */
	if (c->kind == CONN_CLOSING)
		conn_watch(c, EPOLLOUT);
	else
		conn_watch(c, c->outlen ? EPOLLIN | EPOLLOUT : EPOLLIN);
	return true;
}

/*
 * Queue one frame and try to send it. false when it does not fit or the peer is gone.
 * With nothing queued before it, it goes straight from the stack to the socket: a
 * buffer is taken only for what the socket would not take.
 */
static bool conn_send(struct conn *c, const struct proto_msg *m)
{
	uint8_t frame[FRAME_LEN];
	int n = proto_encode(m, frame, sizeof(frame));
	size_t off = 0;

	if (n < 0 || c->outlen + (size_t)n > OUT_LEN)
		return false;
	while (!c->outlen && off < (size_t)n) {
		ssize_t w = send(c->fd, frame + off, (size_t)n - off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (w <= 0)
			return false;
		off += (size_t)w;
	}
	if (off < (size_t)n) {
		if (!c->out && !(c->out = malloc(OUT_LEN)))
			return false;
		memcpy(c->out + c->outlen, frame + off, (size_t)n - off);
		c->outlen += (size_t)n - off;
	}
	return conn_flush(c);
}

/* A last frame, then close once it is out (or after CLOSING_MS). */
static void conn_send_last(struct conn *c, const struct proto_msg *m)
{
	enum conn_kind was = c->kind;

	if (was == CONN_NEW)
		conn_unpend(c);
	c->kind = CONN_CLOSING;
	c->since_ns = server_now(c->s);
	if (c->test && c->test->control == c)
		c->test->control = NULL;
	if (c->test && (was == CONN_UPLOAD || was == CONN_DOWNLOAD) &&
	    c->test->flows[c->flow_id].conn == c)
		c->test->flows[c->flow_id].conn = NULL;
	c->test = NULL;
	if (!conn_send(c, m) || !c->outlen) {
		conn_close(c);
		return;
	}
	shutdown(c->fd, SHUT_RD);
}

static void conn_error(struct conn *c, enum proto_error code, const char *text)
{
	struct proto_msg m = {.type = PROTO_ERROR};

	m.u.error.code = (uint16_t)code;
	snprintf(m.u.error.text, sizeof(m.u.error.text), "%s", text);
	conn_send_last(c, &m);
}

/* ---- tests ---- */

static void test_report(struct loop *l, uint64_t id, void *ctx);

static void fill_counts(const struct test *t, uint64_t *rx, uint64_t *tx)
{
	for (unsigned i = 0; i < t->nflows; i++) {
		if (rx)
			rx[i] = t->flows[i].rx;
		if (tx)
			tx[i] = t->flows[i].tx;
	}
}

static void test_end(struct test *t, const char *reason)
{
	struct server *s = t->s;
	struct server_test_summary sum = {.reason = reason};
	struct proto_msg m = {.type = PROTO_FINAL};
	uint64_t now = server_now(s);
	unsigned i;

	m.u.final.server_ns = now;
	m.u.final.flags = t->flags;
	m.u.final.nflows = t->nflows;
	fill_counts(t, m.u.final.rx_bytes, m.u.final.tx_bytes);
	m.u.final.probes_answered = t->answered;
	m.u.final.probes_dropped = t->dropped;
	if (t->control)
		conn_send_last(t->control, &m);
	for (i = 0; i < t->nflows; i++)
		if (t->flows[i].conn)
			conn_close(t->flows[i].conn);
	if (t->report_timer)
		loop_timer_del(s->loop, t->report_timer);

	peer_text(&t->addr, sum.client, sizeof(sum.client));
	sum.duration_ms = t->granted.duration_ms;
	sum.elapsed_ms = (uint32_t)((now - t->start_ns) / NS_PER_MS);
	sum.interval_us = t->granted.interval_us;
	sum.probe_len = t->granted.probe_len;
	sum.nflows = t->nflows;
	memcpy(sum.cc, t->cc, sizeof(sum.cc));
	for (i = 0; i < t->nflows; i++) {
		sum.rx_bytes += t->flows[i].rx;
		sum.tx_bytes += t->flows[i].tx;
	}
	sum.probes_answered = t->answered;
	sum.probes_dropped = t->dropped;
	sum.probes_held = t->held;
	sum.hold_max_us = t->hold_max_us;
	sum.proc_max_us = t->proc_max_us;
	sum.flags = t->flags;
	tokens_del(&s->by_token, t->token);
	s->tests[t->slot] = s->tests[--s->ntests];
	s->nets[t->slot] = s->nets[s->ntests];
	s->tests[t->slot]->slot = t->slot;
	free(t->flows);
	free(t);
	if (s->cfg.on_test_end)
		s->cfg.on_test_end(s->cfg.ctx, &sum);
}

static void test_report(struct loop *l, uint64_t id, void *ctx)
{
	struct test *t = ctx;
	uint64_t now = loop_now(l), step = (uint64_t)t->granted.step_ms * NS_PER_MS;
	struct proto_msg m = {.type = PROTO_REPORT};

	t->report_timer = 0;
	if (now - t->report_ns > step)
		t->flags |= PROTO_REPORT_OVERLOADED;
	m.u.report.server_ns = now;
	m.u.report.flags = t->flags;
	m.u.report.nflows = t->nflows;
	fill_counts(t, m.u.report.rx_bytes, NULL);
	/* A client that reads no REPORTs fills OUT_LEN: it is not running a test. */
	if (!t->control || !conn_send(t->control, &m)) {
		test_end(t, "closed");
		return;
	}
	/* The next step on the grid; steps missed while late are skipped, not bunched. */
	do
		t->report_ns += step;
	while (t->report_ns <= now);
	t->report_timer = loop_timer_at(l, t->report_ns, test_report, t);
}

static struct test *find_test(struct server *s, const uint8_t *token)
{
	return tokens_find(&s->by_token, token);
}

static uint32_t clamp32(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* true when c became the test's control connection; else c may be gone. */
/*
 * Tests running for peer's network (its address, an IPv6 one's prefix): a scan of the running
 * tests, only at HELLO (10000 tests: ~50 us per HELLO, against a TCP handshake's cost; not worth a
 * second table).
 */
static unsigned tests_from(const struct server *s, const struct peer_net *net)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->ntests; i++)
		n += peer_net_equal(&s->nets[i], net);
	return n;
}

/*
 * May a client have congestion control cc (NUL-terminated, at most PROTO_CC_LEN - 1)?
 * The kernel's lists are read on every request: an operator who changes the sysctl
 * need not restart the server. A list that cannot be read is empty.
 */
static int cc_allowed(const struct server *s, const char *cc)
{
	char allowed[512], available[512];

	cc_list_read(s->cfg.allowed_cc_path, allowed, sizeof(allowed));
	cc_list_read(s->cfg.available_cc_path, available, sizeof(available));
	return cc_server_allows(cc, allowed, available, s->cfg.allow_cc);
}

/* The ERROR text for a congestion control that cc_allowed() or setsockopt() refused. */
static void cc_refusal(char *text, size_t len, const char *cc, int r)
{
	snprintf(text, len, "congestion control \"%.*s\" is %s", PROTO_CC_LEN, cc,
		 r == -ENOENT ? "not available here"
			      : "not allowed here (see tcp_allowed_congestion_control)");
}

static bool on_hello(struct conn *c, const struct proto_hello *h)
{
	struct server *s = c->s;
	struct proto_msg m = {.type = PROTO_WELCOME};
	struct proto_welcome *w = &m.u.welcome;
	uint16_t min_len = PROTO_PROBE_LEN + (s->cfg.keylen ? PROTO_MAC_LEN : 0);
	char text[128];
	struct peer_net net;
	struct test *t;
	int r;

	if (s->cfg.keylen && proto_hello_verify(h, c->nonce, s->cfg.key, s->cfg.keylen) < 0) {
		conn_error(c, PROTO_ERR_AUTH, "bad or missing key (HMAC)");
		return false;
	}
	if (h->version != PROTO_VERSION) {
		conn_error(c, PROTO_ERR_VERSION, "unsupported protocol version");
		return false;
	}
	if (h->nflows > PROTO_MAX_FLOWS) {
		conn_error(c, PROTO_ERR_PARAMS, "too many flows (at most 32)");
		return false;
	}
	/* Refused here, not when the first download flow comes: the client hears why
	 * before its test starts. */
	if (h->cc[0] && (r = cc_allowed(s, h->cc)) < 0) {
		cc_refusal(text, sizeof(text), h->cc, r);
		conn_error(c, PROTO_ERR_CC, text);
		return false;
	}
	peer_net(&c->peer, s->cfg.v6_prefix, &net);
	if (tests_from(s, &net) >= s->cfg.max_tests_per_addr) {
		conn_error(c, PROTO_ERR_BUSY, "too many tests from your address");
		return false;
	}
	if (s->ntests == s->cfg.max_clients) {
		conn_error(c, PROTO_ERR_BUSY, "server busy: too many tests running");
		return false;
	}
	t = calloc(1, sizeof(*t));
	/* A token already running (2^-128 per pair, but cheap to rule out): draw again. */
	r = t ? -EEXIST : -ENOMEM;
	while (r == -EEXIST) {
		if (getrandom(t->token, sizeof(t->token), 0) != sizeof(t->token))
			r = -ENOMEM;
		else if (!tokens_find(&s->by_token, t->token))
			r = 0;
	}
	if (r < 0) {
		free(t);
		conn_error(c, PROTO_ERR_BUSY, "server out of resources");
		return false;
	}
	if (h->nflows && !(t->flows = calloc(h->nflows, sizeof(*t->flows)))) {
		free(t);
		conn_error(c, PROTO_ERR_BUSY, "server out of resources");
		return false;
	}
	t->s = s;
	peer_addr(&c->peer, &t->addr);
	peer_net(&c->peer, 128, &t->ip);
	t->nflows = h->nflows;
	memcpy(t->cc, h->cc, sizeof(t->cc));
	memcpy(w->token, t->token, sizeof(w->token));
	w->duration_ms = clamp32(h->duration_ms, DURATION_MIN_MS, s->cfg.max_duration_ms);
	w->interval_us =
	    h->interval_us > s->cfg.min_interval_us ? h->interval_us : s->cfg.min_interval_us;
	w->probe_len = (uint16_t)clamp32(h->probe_len, min_len, s->cfg.max_probe_len);
	w->step_ms = clamp32(h->step_ms ? h->step_ms : STEP_DEFAULT_MS, STEP_MIN_MS, STEP_MAX_MS);
	w->max_duration_ms = s->cfg.max_duration_ms;
	w->min_interval_us = s->cfg.min_interval_us;
	w->max_probe_len = s->cfg.max_probe_len;
	t->start_ns = t->active_ns = w->server_ns = server_now(s);
	t->end_ns = t->start_ns + ((uint64_t)w->duration_ms + s->cfg.grace_ms) * NS_PER_MS;
	t->report_ns = t->start_ns + (uint64_t)w->step_ms * NS_PER_MS;
	if (s->cfg.keylen)
		proto_welcome_sign(w, c->nonce, s->cfg.key, s->cfg.keylen);
	t->granted = *w;
	t->report_timer = loop_timer_at(s->loop, t->report_ns, test_report, t);
	if (!t->report_timer || tokens_add(&s->by_token, t->token, t) < 0) {
		if (t->report_timer)
			loop_timer_del(s->loop, t->report_timer);
		free(t->flows);
		free(t);
		conn_error(c, PROTO_ERR_BUSY, "server out of resources");
		return false;
	}
	t->slot = s->ntests;
	s->nets[s->ntests] = net;
	s->tests[s->ntests++] = t;
	conn_unpend(c);
	c->kind = CONN_CONTROL;
	c->test = t;
	t->control = c;
	if (!conn_send(c, &m)) {
		test_end(t, "closed");
		return false;
	}
	return true;
}

/* IP_TOS / IPV6_TCLASS and the congestion control of one flow socket. -errno from cc. */
static int flow_setup(struct conn *c, uint8_t tos, const char *cc, bool sender)
{
	int v = tos, r;

	/* One of the two applies, depending on the socket's family; the other fails. */
	setsockopt(c->fd, IPPROTO_IP, IP_TOS, &v, sizeof(v));
	setsockopt(c->fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof(v));
	if (!sender || !cc[0])
		return 0;
	r = cc_allowed(c->s, cc);
	if (r < 0)
		return r;
	if (setsockopt(c->fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)) < 0)
		return -errno;
	return 0;
}

static void upload_count(struct conn *c, size_t n);

static void on_flow(struct conn *c, const struct proto_flow *f, size_t rest)
{
	struct server *s = c->s;
	struct test *t = find_test(s, f->token);
	char text[128];
	const char *cc;
	int r;

	/* Keyed: signed over this connection's nonce, so a FLOW seen once is no key. */
	if (s->cfg.keylen && proto_flow_verify(f, c->nonce, s->cfg.key, s->cfg.keylen) < 0)
		return conn_error(c, PROTO_ERR_AUTH, "bad or missing key (HMAC)");
	if (!t || !peer_same(&t->addr, &c->peer))
		return conn_error(c, PROTO_ERR_TOKEN, "unknown or expired token");
	if (f->flow_id >= t->nflows || (t->flows_used >> f->flow_id & 1))
		return conn_error(c, PROTO_ERR_PARAMS, "bad or duplicate flow id");
	t->flows_used |= 1u << f->flow_id;
	cc = f->cc[0] ? f->cc : t->cc;
	r = flow_setup(c, f->tos, cc, f->direction == PROTO_DOWNLOAD);
	if (r < 0) {
		t->flags |= PROTO_REPORT_FLOW_REFUSED;
		cc_refusal(text, sizeof(text), cc, r);
		return conn_error(c, PROTO_ERR_CC, text);
	}
	conn_unpend(c);
	c->kind = f->direction == PROTO_DOWNLOAD ? CONN_DOWNLOAD : CONN_UPLOAD;
	c->test = t;
	c->flow_id = f->flow_id;
	t->flows[f->flow_id].conn = c;
	t->active_ns = c->progress_ns = server_now(s);
	if (c->kind == CONN_DOWNLOAD)
		conn_watch(c, EPOLLIN | EPOLLOUT);
	else if (rest)
		upload_count(c, rest);
}

static void conn_gone(struct conn *c);

/*
 * The frames in buf[0, len) from a new or control connection: the bytes used, or -1
 * when the connection was closed (or became a flow, whose further bytes are bulk data).
 */
static ssize_t conn_frames(struct conn *c, const uint8_t *buf, size_t len)
{
	struct proto_msg m;
	size_t used = 0;
	int n;

	while (used < len) {
		n = proto_decode(buf + used, len - used, &m);
		if (n == 0)
			break;
		if (n < 0) {
			if (c->test)
				test_end(c->test, "protocol");
			else
				conn_close(c);
			return -1;
		}
		used += (size_t)n;
		if (c->kind == CONN_NEW && m.type == PROTO_HELLO) {
			if (!on_hello(c, &m.u.hello))
				return -1;
		} else if (c->kind == CONN_NEW && m.type == PROTO_FLOW) {
			on_flow(c, &m.u.flow, len - used);
			return -1; /* a flow's further bytes are bulk data, not frames */
		} else if (c->kind == CONN_CONTROL && m.type == PROTO_STOP) {
			test_end(c->test, "stop");
			return -1;
		} else {
			if (c->test)
				test_end(c->test, "protocol");
			else
				conn_close(c);
			return -1;
		}
		c->test->active_ns = server_now(c->s);
	}
	return (ssize_t)used;
}

/*
 * Read a new or control connection: into the server's frame buffer, after the part of
 * a frame kept from before, if any; what is left of a frame after the whole ones is
 * kept in a buffer of the connection's own, which is freed once the frame is whole.
 */
static void conn_read(struct conn *c)
{
	uint8_t *buf = c->s->frame;
	size_t have = c->inlen;
	ssize_t n;

	if (have)
		memcpy(buf, c->in, have);
	n = recv(c->fd, buf + have, FRAME_LEN - have, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0)
		return conn_gone(c);
	have += (size_t)n;
	n = conn_frames(c, buf, have);
	if (n < 0)
		return;
	c->inlen = have - (size_t)n;
	if (!c->inlen) {
		free(c->in);
		c->in = NULL;
		return;
	}
	if (!c->in && !(c->in = malloc(FRAME_LEN)))
		return conn_gone(c);
	memmove(c->in, buf + n, c->inlen);
}

static void upload_count(struct conn *c, size_t n)
{
	c->test->flows[c->flow_id].rx += n;
	c->test->active_ns = server_now(c->s);
}

static void conn_gone(struct conn *c)
{
	if (c->kind == CONN_CONTROL && c->test)
		test_end(c->test, "closed");
	else
		conn_close(c);
}

static void probes_serve(struct server *s, int rounds);

static void on_bulk_in(struct conn *c)
{
	for (int i = 0; i < BULK_READS; i++) {
		ssize_t n;

		/* Probes first: one batch before every slice of bulk work (see server.h). */
		probes_serve(c->s, 1);
		n = recv(c->fd, c->s->bulk, BULK_LEN, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0)
			return conn_close(c);
		c->progress_ns = server_now(c->s);
		if (c->kind == CONN_UPLOAD)
			upload_count(c, (size_t)n);
		if ((size_t)n < BULK_LEN)
			return;
	}
}

/* Downloads cost about a quarter less CPU per byte with 512 KB sends than with 256 KB
 * (8 flows on loopback, both ends' CPU together). */
static void on_bulk_out(struct conn *c)
{
	/* Not const: a const array of zeros lands in .rodata and adds BULK_LEN to the
	 * static binary; in .bss it costs nothing on disk. Never written. */
	static uint8_t zeros[BULK_LEN];
	ssize_t n;

	probes_serve(c->s, 1);
	n = send(c->fd, zeros, sizeof(zeros), MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0)
		return conn_close(c);
	c->test->flows[c->flow_id].tx += (uint64_t)n;
	c->test->active_ns = c->progress_ns = server_now(c->s);
}

static void conn_event(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct conn *c = ctx;

	if (c->kind == CONN_CLOSING) {
		if (!conn_flush(c) || !c->outlen)
			conn_close(c);
		return;
	}
	if (c->kind == CONN_UPLOAD || c->kind == CONN_DOWNLOAD) {
		if (events & EPOLLOUT && c->kind == CONN_DOWNLOAD) {
			on_bulk_out(c);
			/* on_bulk_out may have closed c: only read when nothing else arrived */
			return;
		}
		if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
			on_bulk_in(c);
		return;
	}
	if (events & EPOLLOUT && c->kind == CONN_CONTROL && !conn_flush(c))
		return conn_gone(c);
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		conn_read(c);
}

/* ---- accepting ---- */

/* Out of descriptors: take the pending connection with the reserve fd and drop it. */
static bool accept_shed(struct server *s)
{
	int fd;

	if (s->reserve_fd < 0)
		return false;
	close(s->reserve_fd);
	fd = accept(s->tcp, NULL, NULL);
	if (fd >= 0)
		close(fd);
	s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return fd >= 0;
}

/*
 * The oldest connection that has not said what it is yet, from peer's network (NULL:
 * any), and how many there are from that address: a walk of the pending list (at most
 * max_pending), not of every connection.
 */
static struct conn *oldest_pending(const struct server *s, const struct sockaddr_storage *peer,
				   unsigned *n)
{
	struct conn *oldest = NULL;

	*n = 0;
	for (struct conn *c = s->pending; c; c = c->pnext) {
		if (peer && !peer_same_net(peer, &c->peer, s->cfg.v6_prefix))
			continue;
		(*n)++;
		if (!oldest || c->since_ns <= oldest->since_ns)
			oldest = c;
	}
	return oldest;
}

/* Room for one more pending connection from peer: evict the oldest in the way. */
static void make_pending_room(struct server *s, const struct sockaddr_storage *peer)
{
	unsigned n;
	struct conn *c = oldest_pending(s, peer, &n);

	if (c && n >= s->cfg.max_pending_per_addr)
		conn_close(c);
	if (s->npending >= s->cfg.max_pending && (c = oldest_pending(s, NULL, &n)))
		conn_close(c);
}

/* Keyed mode: the server speaks first, a nonce this connection's HELLO or FLOW signs. */
static void challenge(struct conn *c)
{
	struct proto_msg m = {.type = PROTO_CHALLENGE};

	if (getrandom(c->nonce, sizeof(c->nonce), 0) != sizeof(c->nonce)) {
		conn_close(c);
		return;
	}
	memcpy(m.u.challenge.nonce, c->nonce, sizeof(c->nonce));
	conn_send(c, &m); /* a fresh socket has room; a failure shows on the next read */
}

static void on_accept(struct loop *l, int lfd, uint32_t events, void *ctx)
{
	struct server *s = ctx;
	unsigned max_conns = s->cfg.max_clients * (PROTO_MAX_FLOWS + 1) + s->cfg.max_pending;

	for (int i = 0; i < ACCEPT_BATCH; i++) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		struct conn *c;
		int fd =
		    accept4(lfd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0 &&
		    (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)) {
			/* Without a reserve fd to shed with, wait for a close to free one. */
			if (!accept_shed(s))
				return;
			continue;
		}
		if (fd < 0)
			return; /* EAGAIN, or the peer gave up (ECONNABORTED): try later */
		make_pending_room(s, &peer);
		if (s->npending >= s->cfg.max_pending || s->nconns >= max_conns ||
		    !(c = calloc(1, sizeof(*c)))) {
			close(fd);
			continue;
		}
		*c = (struct conn){.s = s,
				   .fd = fd,
				   .kind = CONN_NEW,
				   .events = EPOLLIN,
				   .peer = peer,
				   .since_ns = server_now(s),
				   .next = s->conns};
		if (loop_add(l, fd, EPOLLIN, conn_event, c) < 0) {
			close(fd);
			free(c);
			continue;
		}
		if (s->conns)
			s->conns->prev = c;
		s->conns = c;
		c->pnext = s->pending;
		if (s->pending)
			s->pending->pprev = c;
		s->pending = c;
		s->nconns++;
		s->npending++;
		if (s->cfg.keylen)
			challenge(c);
	}
}

/* ---- probes ---- */

static bool bucket_take(struct test *t, uint8_t stream, uint64_t now)
{
	uint64_t cost = (uint64_t)t->granted.interval_us * 1000, cap = PROBE_BURST * cost;
	struct bucket *b = NULL;

	for (unsigned i = 0; i < SERVER_MAX_STREAMS && !b; i++)
		if (t->buckets[i].used && t->buckets[i].stream == stream)
			b = &t->buckets[i];
	for (unsigned i = 0; i < SERVER_MAX_STREAMS && !b; i++)
		if (!t->buckets[i].used) {
			b = &t->buckets[i];
			*b = (struct bucket){
			    .stream = stream, .used = true, .credit_ns = cap, .last_ns = now};
		}
	if (!b)
		return false;
	/* Arrival times come from the kernel: never trust them to be in order. */
	b->credit_ns += now > b->last_ns ? now - b->last_ns : 0;
	if (b->credit_ns > cap)
		b->credit_ns = cap;
	if (now > b->last_ns)
		b->last_ns = now;
	if (b->credit_ns < cost)
		return false;
	b->credit_ns -= cost;
	return true;
}

/* The TOS (IPv4) or traffic class (IPv6) of a datagram, -1 if not told. */
static int cmsg_tos(const struct cmsghdr *cm)
{
	int v;

	if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TOS && cm->cmsg_len >= CMSG_LEN(1))
		return *(const uint8_t *)CMSG_DATA(cm);
	if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_TCLASS &&
	    cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
		memcpy(&v, CMSG_DATA(cm), sizeof(v));
		return v & 0xff;
	}
	return -1;
}

/* What the kernel told about one datagram: its marking and receive time. */
static void probe_cmsgs(struct msghdr *mh, int *tos, uint64_t *rx_real_ns)
{
	*tos = -1;
	*rx_real_ns = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			*rx_real_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		} else if (*tos < 0) {
			*tos = cmsg_tos(cm);
		}
	}
}

/*
 * Check one request; true and a filled reply slot when it gets an answer. Rate-limited,
 * badly signed, unknown-token and stranger's probes get none.
 */
static bool probe_accept(struct server *s, const uint8_t *buf, size_t len,
			 const struct sockaddr_storage *from, uint64_t rx_ns,
			 struct probe_reply *out)
{
	struct peer_net ip;
	struct test *t;

	if (len > s->cfg.max_probe_len || proto_probe_decode(buf, len, &out->p) < 0 ||
	    out->p.magic != PROTO_PROBE_MAGIC_REQ)
		return false;
	t = find_test(s, out->p.token);
	if (!t)
		return false;
	peer_net(from, 128, &ip);
	if (!peer_net_equal(&t->ip, &ip))
		return false; /* nothing to count it against, and never an answer to a stranger */
	if (s->cfg.keylen && proto_probe_verify(buf, len, s->cfg.key, s->cfg.keylen) < 0) {
		t->dropped++;
		return false;
	}
	if (!bucket_take(t, out->p.stream, rx_ns)) {
		t->dropped++;
		return false;
	}
	t->active_ns = rx_ns; /* only a probe we answer keeps a test alive */
	out->t = t;
	out->len = len;
	return true;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * When a datagram arrived, on the monotonic clock: the kernel's receive timestamp
 * (CLOCK_REALTIME, SO_TIMESTAMPNS) moved by the two clocks' offset, read once per
 * batch. Without a timestamp, or across a step of the wall clock, it is when recvmmsg
 * returned. The hold time runs from here to the reply's send, so a client of any
 * version, which subtracts server_tx_ns - server_rx_ns, takes out the time a request
 * waited in the socket's queue as well.
 */
static uint64_t probe_arrival(uint64_t rx_real, uint64_t read_mono, uint64_t read_real)
{
	if (!rx_real || rx_real > read_real || read_real - rx_real >= HOLD_SANE_NS ||
	    read_real - rx_real > read_mono)
		return read_mono;
	return read_mono - (read_real - rx_real);
}

/* Stamp, sign and address reply i; flag its test when it was held too long. */
static void probe_reply_prepare(struct server *s, struct probe_io *io, unsigned i, uint64_t mono_ns)
{
	struct probe_reply *r = &io->pend[i];
	uint64_t hold = r->rx_ns < mono_ns ? mono_ns - r->rx_ns : 0;
	struct msghdr *mh = &io->out[i].msg_hdr;
	struct test *t = r->t;
	size_t len = PROTO_PROBE_LEN;

	if (hold > (uint64_t)s->cfg.hold_max_us * 1000) {
		t->flags |= PROTO_REPORT_OVERLOADED;
		t->held++;
	}
	r->p.magic = PROTO_PROBE_MAGIC_REP;
	r->p.flags = s->cfg.keylen ? PROTO_PROBE_KEYED : 0;
	r->p.server_rx_ns = r->rx_ns;
	r->p.server_tx_ns = mono_ns;
	proto_probe_encode(&r->p, io->reply[i], sizeof(io->reply[i]));
	if (s->cfg.keylen)
		len = (size_t)proto_probe_sign(io->reply[i], sizeof(io->reply[i]), s->cfg.key,
					       s->cfg.keylen);
	io->out_iov[i] = (struct iovec){.iov_base = io->reply[i], .iov_len = len};
	*mh = (struct msghdr){.msg_name = &io->from[r->in],
			      .msg_namelen = io->in[r->in].msg_hdr.msg_namelen,
			      .msg_iov = &io->out_iov[i],
			      .msg_iovlen = 1};
	/* The request's marking on the reply, so an EF probe is EF both ways as in
	 * flent's RRUL; in a control message: no setsockopt per probe. */
	if (r->tos > 0) {
		struct cmsghdr *cm;
		int family = io->from[r->in].ss_family;

		memset(&io->out_ctl[i], 0, sizeof(io->out_ctl[i]));
		mh->msg_control = io->out_ctl[i].buf;
		mh->msg_controllen = sizeof(io->out_ctl[i].buf);
		cm = CMSG_FIRSTHDR(mh);
		cm->cmsg_level = family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP;
		cm->cmsg_type = family == AF_INET6 ? IPV6_TCLASS : IP_TOS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &r->tos, sizeof(int));
	}
}

static uint32_t ns_to_us32(uint64_t ns)
{
	return ns / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 1000);
}

/*
 * An answered probe's hold and processing time. The hold ends at `done`, when the
 * sendmmsg that carried its reply returned; the processing time was measured when the
 * batch was read (probes_serve): the batch's other requests, its signing and its send,
 * which grow with the batch, are in the hold only. Four histogram records: O(1).
 */
static void probe_times_record(struct server *s, const struct probe_reply *r, uint64_t done)
{
	uint64_t hold = done > r->rx_ns ? done - r->rx_ns : 0;
	uint64_t proc = r->proc_ns;
	struct test *t = r->t;

	hist_record(&s->window.hold, hold);
	hist_record(&s->window.proc, proc);
	hist_record(&s->run.hold, hold);
	hist_record(&s->run.proc, proc);
	if (ns_to_us32(hold) > t->hold_max_us)
		t->hold_max_us = ns_to_us32(hold);
	if (ns_to_us32(proc) > t->proc_max_us)
		t->proc_max_us = ns_to_us32(proc);
}

/*
 * Send the batch's replies with sendmmsg; each counts as answered or dropped. An
 * answered one's times end when the call that carried it returned.
 */
static void probe_replies_send(struct server *s, struct probe_io *io, unsigned n)
{
	unsigned sent = 0;

	while (sent < n) {
		int r = sendmmsg(s->udp, io->out + sent, n - sent, MSG_DONTWAIT);
		uint64_t done = server_now(s);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			/* This one failed (a full buffer, a refused destination): the rest may
			 * not, so go on with the next. */
			io->pend[sent++].t->dropped++;
			continue;
		}
		for (unsigned i = sent; i < sent + (unsigned)r; i++) {
			/* The invariant that makes us useless for amplification. */
			if (io->out[i].msg_len == io->out_iov[i].iov_len) {
				io->pend[i].t->answered++;
				probe_times_record(s, &io->pend[i], done);
			} else
				io->pend[i].t->dropped++;
		}
		sent += (unsigned)r;
	}
}

/*
 * Read up to `rounds` batches of PROBE_BATCH requests (recvmmsg) and answer them
 * (sendmmsg). Returns when the socket is empty or the rounds are used up, so bulk work
 * and control frames get their turn as well.
 */
static void probes_serve(struct server *s, int rounds)
{
	struct probe_io *io = s->pio;

	for (int round = 0; round < rounds; round++) {
		unsigned nout = 0;
		uint64_t read_mono, read_real, mono, turn, done;
		int n;

		for (unsigned i = 0; i < PROBE_BATCH; i++) {
			io->in_iov[i] =
			    (struct iovec){.iov_base = io->buf[i], .iov_len = PROBE_BUF};
			io->in[i].msg_hdr =
			    (struct msghdr){.msg_name = &io->from[i],
					    .msg_namelen = sizeof(io->from[i]),
					    .msg_iov = &io->in_iov[i],
					    .msg_iovlen = 1,
					    .msg_control = io->in_ctl[i].buf,
					    .msg_controllen = sizeof(io->in_ctl[i].buf)};
		}
		n = recvmmsg(s->udp, io->in, PROBE_BATCH, MSG_DONTWAIT, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		read_mono = server_now(s);
		read_real = realtime_ns();
		/* Each request's processing runs from when the server turned to it (the read's
		 * return, for the first) to when its reply was decided, which is when the
		 * next one's starts: one clock read per request. */
		turn = read_mono;
		for (int i = 0; i < n; i++, turn = done) {
			struct msghdr *mh = &io->in[i].msg_hdr;
			struct probe_reply *r = &io->pend[nout];
			uint64_t rx_real, rx;
			bool accepted;
			int tos;

			probe_cmsgs(mh, &tos, &rx_real);
			/* A truncated datagram is longer than any probe we accept (its
			 * moment goes to the next request's processing). */
			done = turn;
			if (mh->msg_flags & MSG_TRUNC)
				continue;
			rx = probe_arrival(rx_real, read_mono, read_real);
			accepted =
			    probe_accept(s, io->buf[i], io->in[i].msg_len, &io->from[i], rx, r);
			done = server_now(s);
			if (!accepted)
				continue;
			r->in = (unsigned)i;
			r->tos = tos;
			r->rx_ns = rx;
			r->proc_ns = done - turn;
			/* The reply is never longer than the request: checked before it is
			 * built, for the keyed size too. */
			if ((size_t)PROTO_PROBE_LEN + (s->cfg.keylen ? PROTO_MAC_LEN : 0) >
			    r->len) {
				r->t->dropped++;
				continue;
			}
			nout++;
		}
		/* One clock read stamps the batch, just before it goes out. */
		mono = server_now(s);
		for (unsigned i = 0; i < nout; i++)
			probe_reply_prepare(s, io, i, mono);
		probe_replies_send(s, io, nout);
		/* The stamp is taken before the batch is signed and sent: when that took
		 * longer than the bound (the server lost its CPU in between), the replies
		 * left later than they say, and their tests are flagged like a long hold. */
		if (server_now(s) - mono > (uint64_t)s->cfg.hold_max_us * 1000)
			for (unsigned i = 0; i < nout; i++)
				io->pend[i].t->flags |= PROTO_REPORT_OVERLOADED;
		if (n < PROBE_BATCH)
			return;
	}
}

static void on_probe(struct loop *l, int fd, uint32_t events, void *ctx)
{
	(void)l;
	(void)fd;
	(void)events;
	probes_serve(ctx, PROBE_ROUNDS);
}

/* ---- housekeeping ---- */

/*
 * How long before now `then` was; 0 when it is later. The sweep reads its clock once,
 * and the probes it lets in on the way (loop_urgent_point) stamp their tests with
 * arrival times that may follow it: in unsigned arithmetic those would look ages old.
 */
static uint64_t since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

static void sweep(struct loop *l, uint64_t id, void *ctx)
{
	struct server *s = ctx;
	uint64_t now = loop_now(l);
	struct conn *c, *next;
	unsigned k = 0;

	/* The kernel dropped probes on a full buffer since the last sweep: whose it cannot
	 * say, so every running test may have lost some to us, not to the path. The count
	 * is the socket's (SO_MEMINFO), not one carried by later datagrams: a burst that
	 * ends in drops is seen even if nothing arrives after it. */
	{
		uint32_t mem[SK_MEMINFO_VARS];
		socklen_t len = sizeof(mem);

		if (getsockopt(s->udp, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 &&
		    len > SK_MEMINFO_DROPS * sizeof(uint32_t))
			s->rxq_drops = mem[SK_MEMINFO_DROPS];
	}
	if (s->rxq_drops != s->rxq_drops_seen) {
		s->rxq_drops_seen = s->rxq_drops;
		for (unsigned i = 0; i < s->ntests; i++)
			s->tests[i]->flags |= PROTO_REPORT_OVERLOADED;
	}
	/* Backwards: an ending test's slot takes the last test, one already seen. Probes
	 * keep their turn in the long walks (probes never end a test nor close a
	 * connection). */
	for (unsigned i = s->ntests; i-- > 0;) {
		struct test *t = s->tests[i];

		if (!(i % SWEEP_SLICE))
			loop_urgent_point(l);
		if (now >= t->end_ns)
			test_end(t, "expired");
		else if (since(now, t->active_ns) >= (uint64_t)s->cfg.idle_ms * NS_PER_MS)
			test_end(t, "idle");
	}
	/* From the head now: the tests that ended closed connections. */
	for (c = s->conns; c; c = next) {
		next = c->next;
		if (!(++k % SWEEP_SLICE))
			loop_urgent_point(l);
		if (c->kind == CONN_NEW &&
		    since(now, c->since_ns) >= (uint64_t)s->cfg.hello_timeout_ms * NS_PER_MS)
			conn_close(c);
		else if (c->kind == CONN_CLOSING &&
			 since(now, c->since_ns) >= CLOSING_MS * NS_PER_MS)
			conn_close(c);
		else if ((c->kind == CONN_UPLOAD || c->kind == CONN_DOWNLOAD) &&
			 since(now, c->progress_ns) >= (uint64_t)s->cfg.flow_stall_ms * NS_PER_MS)
			conn_close(c); /* stalled: its peer stopped reading or sending */
	}
	/* Re-arm the EMFILE reserve if a shed could not take it back. */
	if (s->reserve_fd < 0)
		s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s->sweep_timer = loop_timer_at(l, now + SWEEP_MS * NS_PER_MS, sweep, s);
}

/* ---- probe statistics ---- */

static int probe_times_init(struct probe_times *pt, uint64_t now)
{
	int r = hist_init(&pt->hold);

	if (r < 0)
		return r;
	pt->since_ns = now;
	return hist_init(&pt->proc);
}

static void probe_times_free(struct probe_times *pt)
{
	hist_free(&pt->hold);
	hist_free(&pt->proc);
}

static void probe_times_report(struct server *s, const struct probe_times *pt, bool final,
			       uint64_t now)
{
	struct server_probe_stats st = {
	    .final = final,
	    .window_ns = now - pt->since_ns,
	    .probes = pt->proc.count,
	    .hold_p50_ns = hist_quantile(&pt->hold, 0.50),
	    .hold_p99_ns = hist_quantile(&pt->hold, 0.99),
	    .hold_max_ns = pt->hold.max,
	    .proc_p50_ns = hist_quantile(&pt->proc, 0.50),
	    .proc_p99_ns = hist_quantile(&pt->proc, 0.99),
	    .proc_max_ns = pt->proc.max,
	};

	if (s->cfg.on_stats)
		s->cfg.on_stats(s->cfg.ctx, &st);
}

/* A window's statistics, when it answered any probe; then the next window. */
static void stats_tick(struct loop *l, uint64_t id, void *ctx)
{
	struct server *s = ctx;
	uint64_t now = loop_now(l);

	(void)id;
	if (s->window.proc.count)
		probe_times_report(s, &s->window, false, now);
	hist_clear(&s->window.hold);
	hist_clear(&s->window.proc);
	s->window.since_ns = now;
	s->stats_timer =
	    loop_timer_at(l, now + (uint64_t)s->cfg.stats_ms * NS_PER_MS, stats_tick, s);
}

/* ---- setup ---- */

static int make_addr(const struct server_config *cfg, int family, struct sockaddr_storage *a,
		     socklen_t *len, uint16_t port)
{
	struct sockaddr_in *a4 = (void *)a;
	struct sockaddr_in6 *a6 = (void *)a;

	memset(a, 0, sizeof(*a));
	if (family == AF_INET) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		if (cfg->bind && inet_pton(AF_INET, cfg->bind, &a4->sin_addr) != 1)
			return -EINVAL;
		*len = sizeof(*a4);
	} else {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		if (cfg->bind && inet_pton(AF_INET6, cfg->bind, &a6->sin6_addr) != 1)
			return -EINVAL;
		*len = sizeof(*a6);
	}
	return 0;
}

/*
 * Ask for a receive buffer of `want` bytes: SO_RCVBUFFORCE first (root, CAP_NET_ADMIN:
 * past net.core.rmem_max), else SO_RCVBUF (capped at rmem_max). The kernel doubles
 * the value for its bookkeeping; server_udp_rcvbuf() reports what it granted.
 */
static void udp_buffer(int fd, int want)
{
	if (want <= 0)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
}

static int open_socket(const struct server_config *cfg, int family, int type, uint16_t port)
{
	struct sockaddr_storage a;
	socklen_t alen;
	int fd, one = 1, zero = 0, r;

	r = make_addr(cfg, family, &a, &alen, port);
	if (r < 0)
		return r;
	fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, cfg->family == AF_INET6 ? &one : &zero,
			   sizeof(one));
	/* Probes: learn each request's marking, to reply with the same. */
	if (type == SOCK_DGRAM) {
		setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
		if (family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof(one));
		/* The kernel's receive time of each datagram: the hold time. */
		setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
		udp_buffer(fd, cfg->udp_rcvbuf);
	}
	if (bind(fd, (struct sockaddr *)&a, alen) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 1024) < 0)) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

static int bound_port(int fd)
{
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);

	if (getsockname(fd, (struct sockaddr *)&a, &alen) < 0)
		return -errno;
	return ntohs(a.ss_family == AF_INET ? ((struct sockaddr_in *)(void *)&a)->sin_port
					    : ((struct sockaddr_in6 *)(void *)&a)->sin6_port);
}

/* TCP and UDP on the same port; an ephemeral port is retried if UDP has it taken. */
static int open_sockets(struct server *s)
{
	int family = s->cfg.family, r = -EADDRINUSE;

	if (family == AF_UNSPEC) {
		/* An IPv6 socket taking both, unless this host has no IPv6 (or bind is IPv4). */
		if (s->cfg.bind && strchr(s->cfg.bind, '.'))
			family = AF_INET;
		else {
			int probe = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);

			family = probe < 0 ? AF_INET : AF_INET6;
			if (probe >= 0)
				close(probe);
		}
	}
	for (int tries = 0; tries < 16; tries++) {
		s->tcp = open_socket(&s->cfg, family, SOCK_STREAM, s->cfg.port);
		if (s->tcp < 0)
			return s->tcp;
		r = bound_port(s->tcp);
		if (r < 0)
			return r;
		s->port = (uint16_t)r;
		s->udp = open_socket(&s->cfg, family, SOCK_DGRAM, s->port);
		s->family = family;
		if (s->udp >= 0)
			return 0;
		r = s->udp;
		close(s->tcp);
		s->tcp = -1;
		if (s->cfg.port || r != -EADDRINUSE)
			break;
	}
	return r;
}

int server_new(const struct server_config *cfg, struct server **out)
{
	struct server *s;
	uint64_t seed;
	int r;

	if (!cfg->max_clients || cfg->max_clients > SERVER_MAX_CLIENTS || !cfg->max_pending ||
	    cfg->min_interval_us == 0 ||
	    cfg->max_probe_len < PROTO_PROBE_LEN + (cfg->keylen ? PROTO_MAC_LEN : 0) ||
	    cfg->max_duration_ms < DURATION_MIN_MS || cfg->keylen > PROTO_MAX_KEY)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cfg = *cfg;
	s->tcp = s->udp = s->reserve_fd = s->rpm_fd = -1;
	s->tests = calloc(cfg->max_clients, sizeof(*s->tests));
	s->nets = calloc(cfg->max_clients, sizeof(*s->nets));
	s->bulk = malloc(BULK_LEN);
	s->pio = malloc(sizeof(*s->pio));
	s->loop = loop_new_clock(cfg->clock);
	if (!s->tests || !s->nets || !s->bulk || !s->pio || !s->loop) {
		r = -ENOMEM;
		goto fail;
	}
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = loop_now_ns();
	r = tokens_init(&s->by_token, cfg->max_clients, seed);
	if (r < 0)
		goto fail;
	if ((r = probe_times_init(&s->window, server_now(s))) < 0 ||
	    (r = probe_times_init(&s->run, server_now(s))) < 0)
		goto fail;
	if (cfg->keylen) {
		uint8_t *k = malloc(cfg->keylen);

		if (!k) {
			r = -ENOMEM;
			goto fail;
		}
		memcpy(k, cfg->key, cfg->keylen);
		s->cfg.key = k;
	}
	r = open_sockets(s);
	if (r < 0)
		goto fail;
	{
		socklen_t len = sizeof(s->rcvbuf);

		if (getsockopt(s->udp, SOL_SOCKET, SO_RCVBUF, &s->rcvbuf, &len) < 0)
			s->rcvbuf = 0;
	}
	s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if ((r = loop_add(s->loop, s->tcp, EPOLLIN, on_accept, s)) < 0 ||
	    (r = loop_add(s->loop, s->udp, EPOLLIN, on_probe, s)) < 0 ||
	    (r = loop_set_urgent(s->loop, s->udp)) < 0)
		goto fail;
	if (cfg->rpm) {
		if ((r = open_socket(&s->cfg, s->family, SOCK_STREAM, cfg->rpm_port)) < 0)
			goto fail;
		s->rpm_fd = r;
		if ((r = bound_port(s->rpm_fd)) < 0)
			goto fail;
		s->rpm_port = (uint16_t)r;
		struct hserver_config rc = cfg->rpm_cfg;

		rc.v6_prefix = cfg->v6_prefix;
		if ((r = hthread_start(s->rpm_fd, &rc, &s->rpm)) < 0)
			goto fail;
	}
	s->sweep_timer = loop_timer_at(s->loop, server_now(s) + SWEEP_MS * NS_PER_MS, sweep, s);
	if (!s->sweep_timer) {
		r = -ENOMEM;
		goto fail;
	}
	if (cfg->stats_ms) {
		s->stats_timer = loop_timer_at(
		    s->loop, server_now(s) + (uint64_t)cfg->stats_ms * NS_PER_MS, stats_tick, s);
		if (!s->stats_timer) {
			r = -ENOMEM;
			goto fail;
		}
	}
	*out = s;
	return 0;
fail:
	server_free(s);
	return r;
}

int server_run(struct server *s, const volatile sig_atomic_t *stop)
{
	int r = 0;

	while (!*stop) {
		r = loop_once(s->loop, 100);
		if (r < 0)
			break;
		r = 0;
	}
	while (s->ntests)
		test_end(s->tests[s->ntests - 1], "shutdown");
	probe_times_report(s, &s->run, true, server_now(s));
	return r;
}

void server_free(struct server *s)
{
	if (!s)
		return;
	while (s->ntests)
		test_end(s->tests[s->ntests - 1], "shutdown");
	while (s->conns)
		conn_close(s->conns);
	hthread_stop(s->rpm);
	if (s->rpm_fd >= 0)
		close(s->rpm_fd);
	if (s->tcp >= 0)
		close(s->tcp);
	if (s->udp >= 0)
		close(s->udp);
	if (s->reserve_fd >= 0)
		close(s->reserve_fd);
	if (s->cfg.keylen && s->cfg.key) {
		memset((void *)s->cfg.key, 0, s->cfg.keylen);
		free((void *)s->cfg.key);
	}
	loop_free(s->loop);
	free(s->tests);
	free(s->nets);
	tokens_free(&s->by_token);
	free(s->bulk);
	free(s->pio);
	probe_times_free(&s->window);
	probe_times_free(&s->run);
	free(s);
}
