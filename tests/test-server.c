/* SPDX-License-Identifier: MIT */
/*
 * test-server.c - src/meter/server.c in-process: the server runs in a thread on
 * 127.0.0.1 with an ephemeral port, the tests are its clients. Timings are asserted
 * with wide margins (two cores shared with other builds).
 *
 * Spoofed sources are real sockets bound to 127.0.0.2 (all of 127/8 is loopback).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "meter/proto.h"
#include "meter/server.h"
#include "meter/serverlog.h"

struct running {
	struct server *s;
	pthread_t thread;
	volatile sig_atomic_t stop;
	int run_ret;
	struct server_test_summary last; /* the last test that ended */
	int ended;
	/* on_stats (set by the tests that read it): read only after stop() */
	struct server_probe_stats run; /* the final, whole-run statistics */
	int nrun, nwindows;
	uint64_t window_probes;
};

static void *serve(void *arg)
{
	struct running *r = arg;

	r->run_ret = server_run(r->s, &r->stop);
	return NULL;
}

static void on_end(void *ctx, const struct server_test_summary *t)
{
	struct running *r = ctx;

	r->last = *t;
	__atomic_add_fetch(&r->ended, 1, __ATOMIC_SEQ_CST);
}

static void on_stats(void *ctx, const struct server_probe_stats *st)
{
	struct running *r = ctx;

	if (st->final) {
		r->run = *st;
		r->nrun++;
	} else {
		r->nwindows++;
		r->window_probes += st->probes;
	}
}

/*
 * A simulated clock for the tests of timeouts: it stands still, and moves only when a
 * test skips ahead (skip_ms), so a timeout of seconds is tested in a few milliseconds
 * without being shortened, and "not yet" is exact. A server on it sees a skip within
 * its 100 ms wait. It never goes back; the servers that use it share it.
 */
static uint64_t skipped_ns;

static uint64_t sim_now_ns(void *ctx)
{
	(void)ctx;
	return 1000ULL * 1000000000ULL + __atomic_load_n(&skipped_ns, __ATOMIC_SEQ_CST);
}

static const struct loop_clock sim_clock = {.now_ns = sim_now_ns};

static uint64_t sim_ms(void)
{
	return sim_now_ns(NULL) / 1000000;
}

static void skip_ms(unsigned ms)
{
	__atomic_add_fetch(&skipped_ns, (uint64_t)ms * 1000000, __ATOMIC_SEQ_CST);
}

/* Long enough (real time) for a server to have run what a skip made due. */
#define SKIP_SEEN_MS 150

static void test_config(struct server_config *c, struct running *r)
{
	server_config_defaults(c);
	c->family = AF_INET;
	c->bind = "127.0.0.1";
	c->port = 0;
	c->on_test_end = on_end;
	c->ctx = r;
}

static int start(struct running *r, const struct server_config *c)
{
	int e = server_new(c, &r->s);

	if (e < 0)
		return e;
	r->stop = 0;
	return -pthread_create(&r->thread, NULL, serve, r);
}

static void stop(struct running *r)
{
	__atomic_store_n(&r->stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(r->thread, NULL);
	server_free(r->s);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void msleep(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static struct sockaddr_in loopback(const char *ip, uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

static void set_timeout(int fd, unsigned ms)
{
	struct timeval tv = {ms / 1000, (long)(ms % 1000) * 1000};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A socket of type bound to src (NULL: any) and, for TCP, connected to the server. */
static int client_socket(int type, const char *src, uint16_t port)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	struct sockaddr_in a;

	if (fd < 0)
		return -1;
	set_timeout(fd, 3000);
	if (src) {
		a = loopback(src, 0);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
			close(fd);
			return -1;
		}
	}
	a = loopback("127.0.0.1", port);
	if (type == SOCK_STREAM && connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		p += n, len -= (size_t)n;
	}
	return 0;
}

static int send_msg(int fd, const struct proto_msg *m)
{
	uint8_t buf[PROTO_FRAME_HDR + PROTO_MAX_BODY];
	int n = proto_encode(m, buf, sizeof(buf));

	return n < 0 ? -1 : send_all(fd, buf, (size_t)n);
}

static int recv_full(int fd, uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = recv(fd, buf, len, 0);

		if (n <= 0)
			return -1;
		buf += n, len -= (size_t)n;
	}
	return 0;
}

/* The next frame; -1 on EOF, timeout (3 s) or a bad frame. */
static int recv_msg(int fd, struct proto_msg *m)
{
	uint8_t buf[PROTO_FRAME_HDR + PROTO_MAX_BODY];
	size_t body;

	if (recv_full(fd, buf, PROTO_FRAME_HDR) < 0)
		return -1;
	body = (size_t)buf[0] << 8 | buf[1];
	if (body > PROTO_MAX_BODY || recv_full(fd, buf + PROTO_FRAME_HDR, body) < 0)
		return -1;
	return proto_decode(buf, PROTO_FRAME_HDR + body, m) > 0 ? 0 : -1;
}

/* The next frame that is not a REPORT. */
static int recv_not_report(int fd, struct proto_msg *m)
{
	int r;

	while ((r = recv_msg(fd, m)) == 0 && m->type == PROTO_REPORT)
		;
	return r;
}

static struct proto_msg hello_msg(uint8_t nflows, uint32_t duration_ms, uint32_t interval_us)
{
	struct proto_msg m = {.type = PROTO_HELLO};

	m.u.hello.version = PROTO_VERSION;
	m.u.hello.nflows = nflows;
	m.u.hello.duration_ms = duration_ms;
	m.u.hello.interval_us = interval_us;
	m.u.hello.probe_len = PROTO_PROBE_LEN;
	m.u.hello.step_ms = 100;
	return m;
}

/* A control connection from source address src (NULL: any) with a WELCOME in *w; -1
 * (and *w's type says what came). */
static int open_test_from(const char *src, uint16_t port, const struct proto_msg *hello,
			  struct proto_msg *w)
{
	int fd = client_socket(SOCK_STREAM, src, port);

	if (fd < 0)
		return -1;
	if (send_msg(fd, hello) < 0 || recv_msg(fd, w) < 0 || w->type != PROTO_WELCOME) {
		close(fd);
		return -1;
	}
	return fd;
}

static int open_test(uint16_t port, const struct proto_msg *hello, struct proto_msg *w)
{
	return open_test_from(NULL, port, hello, w);
}

static int open_flow(uint16_t port, const uint8_t *token, uint8_t id, uint8_t dir, const char *cc)
{
	struct proto_msg m = {.type = PROTO_FLOW};
	int fd = client_socket(SOCK_STREAM, NULL, port);

	if (fd < 0)
		return -1;
	memcpy(m.u.flow.token, token, PROTO_TOKEN_LEN);
	m.u.flow.flow_id = id;
	m.u.flow.direction = dir;
	m.u.flow.tos = 0x20;
	snprintf(m.u.flow.cc, sizeof(m.u.flow.cc), "%s", cc ? cc : "");
	if (send_msg(fd, &m) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Send one probe of len bytes from udp; the reply's length, 0 if none came in wait_ms. */
static int probe(int udp, uint16_t port, const uint8_t *token, uint32_t seq, size_t len,
		 unsigned wait_ms, struct proto_probe *reply)
{
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ, .seq = seq, .client_ns = seq};
	struct sockaddr_in a = loopback("127.0.0.1", port);
	uint8_t buf[2048] = {0};
	struct pollfd pfd = {.fd = udp, .events = POLLIN};
	ssize_t n;

	memcpy(p.token, token, PROTO_TOKEN_LEN);
	proto_probe_encode(&p, buf, sizeof(buf));
	if (sendto(udp, buf, len, 0, (struct sockaddr *)&a, sizeof(a)) != (ssize_t)len)
		return -1;
	if (poll(&pfd, 1, (int)wait_ms) != 1)
		return 0;
	n = recv(udp, buf, sizeof(buf), MSG_TRUNC);
	if (n >= PROTO_PROBE_LEN && reply && proto_probe_decode(buf, (size_t)n, reply) < 0)
		return -1;
	return (int)n;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the DIR's own */
}

static int wait_ended(struct running *r, int n, unsigned ms)
{
	uint64_t until = now_ms() + ms;

	while (__atomic_load_n(&r->ended, __ATOMIC_SEQ_CST) < n && now_ms() < until)
		msleep(10);
	return __atomic_load_n(&r->ended, __ATOMIC_SEQ_CST);
}

/* Raise the open-file limit to n if it is lower (up to the hard limit): true if it is
 * at least n now. */
static bool nofile_at_least(rlim_t n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < n) {
		rl.rlim_cur = rl.rlim_max < n ? rl.rlim_max : n;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= n;
}

/* ---- tests ---- */

TEST(handshake_clamps_and_reports_limits)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(2, 999999999, 1), w;
	int fd;

	test_config(&c, &r);
	c.max_duration_ms = 10000;
	c.min_interval_us = 20000;
	c.max_probe_len = 1400;
	REQUIRE_EQ(start(&r, &c), 0);
	h.u.hello.probe_len = 60000;
	h.u.hello.step_ms = 1;
	fd = open_test(server_port(r.s), &h, &w);
	CHECK(fd >= 0);
	CHECK_EQ(w.u.welcome.duration_ms, 10000);
	CHECK_EQ(w.u.welcome.interval_us, 20000);
	CHECK_EQ(w.u.welcome.probe_len, 1400);
	CHECK_EQ(w.u.welcome.step_ms, 50);
	CHECK_EQ(w.u.welcome.max_duration_ms, 10000);
	CHECK_EQ(w.u.welcome.min_interval_us, 20000);
	CHECK_EQ(w.u.welcome.max_probe_len, 1400);
	CHECK(w.u.welcome.server_ns > 0);
	close(fd);
	/* Within limits: granted as asked. Zero probe_len and step: the defaults. */
	h = hello_msg(1, 5000, 200000);
	h.u.hello.probe_len = 0;
	h.u.hello.step_ms = 0;
	fd = open_test(server_port(r.s), &h, &w);
	CHECK(fd >= 0);
	CHECK_EQ(w.u.welcome.duration_ms, 5000);
	CHECK_EQ(w.u.welcome.interval_us, 200000);
	CHECK_EQ(w.u.welcome.probe_len, PROTO_PROBE_LEN);
	CHECK_EQ(w.u.welcome.step_ms, 200);
	close(fd);
	stop(&r);
}

TEST(bad_hello_gets_error)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(PROTO_MAX_FLOWS + 1, 1000, 0), m;
	int fd;

	test_config(&c, &r);
	REQUIRE_EQ(start(&r, &c), 0);
	fd = client_socket(SOCK_STREAM, NULL, server_port(r.s));
	CHECK(send_msg(fd, &h) == 0 && recv_msg(fd, &m) == 0);
	CHECK_EQ(m.type, PROTO_ERROR);
	CHECK_EQ(m.u.error.code, PROTO_ERR_PARAMS);
	CHECK(recv_msg(fd, &m) < 0); /* closed */
	close(fd);
	h = hello_msg(1, 1000, 0);
	h.u.hello.version = 9;
	fd = client_socket(SOCK_STREAM, NULL, server_port(r.s));
	CHECK(send_msg(fd, &h) == 0 && recv_msg(fd, &m) == 0);
	CHECK_EQ(m.u.error.code, PROTO_ERR_VERSION);
	close(fd);
	stop(&r);
}

TEST(probe_reply_never_longer_than_request)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 1000), w;
	struct proto_probe rep;
	int fd, udp, n, answered = 0;

	test_config(&c, &r);
	c.min_interval_us = 1000;
	REQUIRE_EQ(start(&r, &c), 0);
	fd = open_test(server_port(r.s), &h, &w);
	REQUIRE(fd >= 0);
	udp = client_socket(SOCK_DGRAM, "127.0.0.1", 0);
	for (size_t len = PROTO_PROBE_LEN; len <= 1400; len += 25) {
		n = probe(udp, server_port(r.s), w.u.welcome.token, (uint32_t)len, len, 1000, &rep);
		CHECK(n > 0);
		CHECK(n <= (int)len);
		CHECK_EQ(n, PROTO_PROBE_LEN);
		CHECK_EQ(rep.magic, PROTO_PROBE_MAGIC_REP);
		CHECK_EQ(rep.seq, len);
		CHECK_EQ(rep.client_ns, len);
		CHECK(rep.server_rx_ns && rep.server_rx_ns <= rep.server_tx_ns);
		CHECK(!memcmp(rep.token, w.u.welcome.token, PROTO_TOKEN_LEN));
		answered += n > 0;
		msleep(3); /* stay under the 1 ms rate */
	}
	/* Shorter than a header, or longer than max_probe_len: no answer. */
	CHECK_EQ(probe(udp, server_port(r.s), w.u.welcome.token, 1, PROTO_PROBE_LEN - 1, 200, NULL),
		 0);
	CHECK_EQ(probe(udp, server_port(r.s), w.u.welcome.token, 1, 1473, 200, NULL), 0);
	close(udp);
	close(fd);
	CHECK_EQ(wait_ended(&r, 1, 2000), 1);
	stop(&r);
	CHECK_EQ(r.last.probes_answered, answered);
}

TEST(spoofed_source_and_wrong_token_ignored)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 100000), w, f;
	uint8_t wrong[PROTO_TOKEN_LEN];
	int fd, udp, spoof;

	test_config(&c, &r);
	REQUIRE_EQ(start(&r, &c), 0);
	fd = open_test(server_port(r.s), &h, &w);
	REQUIRE(fd >= 0);
	spoof = client_socket(SOCK_DGRAM, "127.0.0.2", 0);
	udp = client_socket(SOCK_DGRAM, "127.0.0.1", 0);
	REQUIRE(spoof >= 0 && udp >= 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(probe(spoof, server_port(r.s), w.u.welcome.token, 1, 100, 200, NULL), 0);
	memcpy(wrong, w.u.welcome.token, sizeof(wrong));
	wrong[0] ^= 1;
	CHECK_EQ(probe(udp, server_port(r.s), wrong, 1, 100, 200, NULL), 0);
	/* The real client from the real address is answered. */
	CHECK_EQ(probe(udp, server_port(r.s), w.u.welcome.token, 1, 100, 1000, NULL),
		 PROTO_PROBE_LEN);
	/* A flow from the other address with the right token is refused. */
	close(spoof);
	spoof = client_socket(SOCK_STREAM, "127.0.0.2", server_port(r.s));
	REQUIRE(spoof >= 0);
	f = (struct proto_msg){.type = PROTO_FLOW};
	memcpy(f.u.flow.token, w.u.welcome.token, PROTO_TOKEN_LEN);
	CHECK(send_msg(spoof, &f) == 0 && recv_msg(spoof, &f) == 0);
	CHECK_EQ(f.type, PROTO_ERROR);
	CHECK_EQ(f.u.error.code, PROTO_ERR_TOKEN);
	close(spoof);
	close(udp);
	f = (struct proto_msg){.type = PROTO_STOP};
	CHECK(send_msg(fd, &f) == 0 && recv_not_report(fd, &f) == 0);
	CHECK_EQ(f.type, PROTO_FINAL);
	CHECK_EQ(f.u.final.probes_answered, 1);
	close(fd);
	stop(&r);
}

TEST(probes_rate_limited_burst_5)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 200000), m;
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ};
	struct sockaddr_in a;
	uint8_t buf[128] = {0};
	int fd, udp, got = 0;

	test_config(&c, &r);
	REQUIRE_EQ(start(&r, &c), 0);
	fd = open_test(server_port(r.s), &h, &m);
	REQUIRE(fd >= 0);
	udp = client_socket(SOCK_DGRAM, "127.0.0.1", 0);
	a = loopback("127.0.0.1", server_port(r.s));
	memcpy(p.token, m.u.welcome.token, PROTO_TOKEN_LEN);
	for (uint32_t i = 0; i < 50; i++) {
		p.seq = i;
		proto_probe_encode(&p, buf, sizeof(buf));
		sendto(udp, buf, 100, 0, (struct sockaddr *)&a, sizeof(a));
	}
	set_timeout(udp, 500);
	while (recv(udp, buf, sizeof(buf), 0) > 0)
		got++;
	/* 5 from the burst, maybe one more refilled while the 50 went out (200 ms each). */
	CHECK(got >= 5 && got <= 6);
	m = (struct proto_msg){.type = PROTO_STOP};
	CHECK(send_msg(fd, &m) == 0 && recv_not_report(fd, &m) == 0);
	CHECK_EQ(m.u.final.probes_answered, got);
	CHECK_EQ(m.u.final.probes_dropped, 50 - got);
	close(udp);
	close(fd);
	stop(&r);
}

TEST(upload_counted_in_report_and_final)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(2, 10000, 0), m;
	static uint8_t data[1 << 20];
	uint64_t until;
	int fd, up, seen = 0;

	test_config(&c, &r);
	REQUIRE_EQ(start(&r, &c), 0);
	fd = open_test(server_port(r.s), &h, &m);
	REQUIRE(fd >= 0);
	up = open_flow(server_port(r.s), m.u.welcome.token, 1, PROTO_UPLOAD, NULL);
	REQUIRE(up >= 0);
	CHECK_EQ(send_all(up, data, sizeof(data)), 0);
	until = now_ms() + 3000;
	while (now_ms() < until && recv_msg(fd, &m) == 0 && m.type == PROTO_REPORT) {
		CHECK_EQ(m.u.report.nflows, 2);
		if (m.u.report.rx_bytes[1] == sizeof(data)) {
			seen = 1;
			break;
		}
	}
	CHECK(seen);
	CHECK_EQ(m.u.report.rx_bytes[0], 0);
	m = (struct proto_msg){.type = PROTO_STOP};
	CHECK(send_msg(fd, &m) == 0 && recv_not_report(fd, &m) == 0);
	CHECK_EQ(m.type, PROTO_FINAL);
	CHECK_EQ(m.u.final.nflows, 2);
	CHECK_EQ(m.u.final.rx_bytes[1], sizeof(data));
	CHECK(recv_msg(fd, &m) < 0); /* the server closed after FINAL */
	close(up);
	close(fd);
	stop(&r);
	CHECK_STR(r.last.reason, "stop");
	CHECK_EQ(r.last.rx_bytes, sizeof(data));
}

TEST(download_flow_delivers_then_stop_final)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(1, 10000, 0), m;
	static uint8_t buf[1 << 16];
	uint64_t got = 0, until;
	ssize_t n;
	int fd, down;

	test_config(&c, &r);
	REQUIRE_EQ(start(&r, &c), 0);
	fd = open_test(server_port(r.s), &h, &m);
	REQUIRE(fd >= 0);
	down = open_flow(server_port(r.s), m.u.welcome.token, 0, PROTO_DOWNLOAD, NULL);
	REQUIRE(down >= 0);
	until = now_ms() + 3000;
	while (got < (8u << 20) && now_ms() < until && (n = recv(down, buf, sizeof(buf), 0)) > 0)
		got += (uint64_t)n;
	CHECK(got >= (8u << 20));
	m = (struct proto_msg){.type = PROTO_STOP};
	CHECK(send_msg(fd, &m) == 0 && recv_not_report(fd, &m) == 0);
	CHECK_EQ(m.type, PROTO_FINAL);
	CHECK(m.u.final.tx_bytes[0] >= got);
	/* The flow is closed: reading drains what was in flight, then EOF. */
	set_timeout(down, 2000);
	while ((n = recv(down, buf, sizeof(buf), 0)) > 0)
		;
	CHECK_EQ(n, 0);
	close(down);
	close(fd);
	stop(&r);
}

TEST(flow_errors_token_id_cc)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(2, 10000, 0), m, e;
	uint8_t bogus[PROTO_TOKEN_LEN] = {1, 2, 3};
	int fd, f;

	test_config(&c, &r);
	REQUIRE_EQ(start(&r, &c), 0);
	fd = open_test(server_port(r.s), &h, &m);
	REQUIRE(fd >= 0);
	f = open_flow(server_port(r.s), bogus, 0, PROTO_UPLOAD, NULL);
	CHECK(recv_msg(f, &e) == 0 && e.type == PROTO_ERROR && e.u.error.code == PROTO_ERR_TOKEN);
	close(f);
	f = open_flow(server_port(r.s), m.u.welcome.token, 2, PROTO_UPLOAD, NULL);
	CHECK(recv_msg(f, &e) == 0 && e.u.error.code == PROTO_ERR_PARAMS);
	close(f);
	f = open_flow(server_port(r.s), m.u.welcome.token, 0, PROTO_DOWNLOAD, "nosuch-cc");
	CHECK(recv_msg(f, &e) == 0 && e.u.error.code == PROTO_ERR_CC);
	CHECK(strstr(e.u.error.text, "nosuch-cc") != NULL);
	close(f);
	/* The refusal shows in the next REPORT. */
	CHECK(recv_msg(fd, &e) == 0 && e.type == PROTO_REPORT);
	CHECK(e.u.report.flags & PROTO_REPORT_FLOW_REFUSED);
	/* An id is used once, even after its flow is gone. */
	f = open_flow(server_port(r.s), m.u.welcome.token, 0, PROTO_UPLOAD, NULL);
	CHECK(recv_msg(f, &e) == 0 && e.u.error.code == PROTO_ERR_PARAMS);
	close(f);
	close(fd);
	stop(&r);
}

/* A kernel list for the server to read instead of /proc's; path must hold "XXXXXX". */
static void write_list(char *path, const char *list)
{
	int fd = mkstemp(path);

	if (fd >= 0) {
		if (write(fd, list, strlen(list)) < 0)
			path[0] = '\0';
		close(fd);
	}
}

/* The answer to a HELLO asking for congestion control cc; the message in *m. */
static int hello_cc(uint16_t port, const char *cc, struct proto_msg *m)
{
	struct proto_msg h = hello_msg(1, 1000, 0);
	int fd = client_socket(SOCK_STREAM, NULL, port), r = -1;

	snprintf(h.u.hello.cc, sizeof(h.u.hello.cc), "%s", cc);
	if (fd >= 0 && send_msg(fd, &h) == 0 && recv_msg(fd, m) == 0)
		r = 0;
	if (fd >= 0)
		close(fd);
	return r;
}

TEST(cc_only_from_the_allow_list)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(1, 10000, 0), m, e;
	char allowed[] = "/tmp/test-server-allowed-XXXXXX";
	char available[] = "/tmp/test-server-available-XXXXXX";
	int fd, f;

	/* The lists of a host where only reno may be picked; cubic is loaded. */
	write_list(allowed, "reno\n");
	write_list(available, "reno cubic\n");
	REQUIRE(allowed[0] && available[0]);
	test_config(&c, &r);
	c.allowed_cc_path = allowed;
	c.available_cc_path = available;
	REQUIRE_EQ(start(&r, &c), 0);
	/* Refused at HELLO, with the name and why. */
	CHECK(hello_cc(server_port(r.s), "cubic", &m) == 0);
	CHECK_EQ(m.type, PROTO_ERROR);
	CHECK_EQ(m.u.error.code, PROTO_ERR_CC);
	CHECK(strstr(m.u.error.text, "\"cubic\"") && strstr(m.u.error.text, "not allowed"));
	/* Not loaded: refused before any setsockopt that could load a module as root. */
	CHECK(hello_cc(server_port(r.s), "nosuchcc", &m) == 0);
	CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_ERR_CC);
	CHECK(hello_cc(server_port(r.s), "reno", &m) == 0);
	CHECK_EQ(m.type, PROTO_WELCOME);
	/* A FLOW asking for more than its HELLO did is refused too. */
	fd = open_test(server_port(r.s), &h, &m);
	REQUIRE(fd >= 0);
	f = open_flow(server_port(r.s), m.u.welcome.token, 0, PROTO_DOWNLOAD, "cubic");
	CHECK(recv_msg(f, &e) == 0 && e.type == PROTO_ERROR && e.u.error.code == PROTO_ERR_CC);
	CHECK(strstr(e.u.error.text, "not allowed") != NULL);
	close(f);
	close(fd);
	stop(&r);

	/* The operator adds cubic, and a name that is not loaded: that one stays refused. */
	memset(&r, 0, sizeof(r));
	test_config(&c, &r);
	c.allowed_cc_path = allowed;
	c.available_cc_path = available;
	c.allow_cc = "cubic,nosuchcc";
	REQUIRE_EQ(start(&r, &c), 0);
	CHECK(hello_cc(server_port(r.s), "cubic", &m) == 0);
	CHECK_EQ(m.type, PROTO_WELCOME);
	CHECK(hello_cc(server_port(r.s), "nosuchcc", &m) == 0);
	CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_ERR_CC);
	CHECK(strstr(m.u.error.text, "not available") != NULL);
	stop(&r);
	unlink(allowed);
	unlink(available);
}

/*
 * Read and drop what down delivers for up to ms (real time), watching fd: 1 when a
 * FINAL came on fd (in *m), 0 when none did.
 */
static int drain_until_final(int fd, int down, unsigned ms, struct proto_msg *m)
{
	static uint8_t buf[65536];
	uint64_t until = now_ms() + ms;

	while (now_ms() < until) {
		struct pollfd p = {.fd = fd, .events = POLLIN};

		while (recv(down, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
		if (poll(&p, 1, 1) == 1) {
			if (recv_msg(fd, m) < 0)
				return 0;
			if (m->type == PROTO_FINAL)
				return 1;
		}
	}
	return 0;
}

/* The servers' time runs ahead here (skip_ms): the expiry is tested against the
 * server's own clock, without waiting the second and more it takes. */
TEST(test_expires_after_duration_plus_grace)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(1, 1000, 0), m = {0};
	int fd, down;
	uint64_t t0, took;

	test_config(&c, &r);
	c.grace_ms = 300;
	c.clock = &sim_clock;
	REQUIRE_EQ(start(&r, &c), 0);
	t0 = sim_ms();
	fd = open_test(server_port(r.s), &h, &m);
	REQUIRE(fd >= 0);
	/* A download keeps it active (not idle) until expiry. */
	down = open_flow(server_port(r.s), m.u.welcome.token, 0, PROTO_DOWNLOAD, NULL);
	REQUIRE(down >= 0);
	msleep(SKIP_SEEN_MS); /* the server is done with the HELLO and the FLOW */
	/* The granted second passes: in its grace, the test lives on. */
	skip_ms(1000);
	CHECK_EQ(drain_until_final(fd, down, SKIP_SEEN_MS, &m), 0);
	/* The grace passes too: it ends. */
	skip_ms(300);
	CHECK_EQ(drain_until_final(fd, down, 3000, &m), 1);
	took = sim_ms() - t0;
	CHECK_EQ(m.type, PROTO_FINAL);
	CHECK(took >= 1300 && took < 3000);
	close(down);
	close(fd);
	CHECK_EQ(wait_ended(&r, 1, 1000), 1);
	CHECK_STR(r.last.reason, "expired");
	stop(&r);
}

/* On the servers' clock (skip_ms): a test with no flow and no probe ends idle_ms after
 * its HELLO, a connection that sends nothing is closed after hello_timeout_ms, and
 * neither before. */
TEST(idle_test_and_silent_connection_closed)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 0), m;
	struct pollfd p;
	int fd, silent;
	uint64_t t0;

	test_config(&c, &r);
	c.idle_ms = 400;
	c.hello_timeout_ms = 300;
	c.clock = &sim_clock;
	REQUIRE_EQ(start(&r, &c), 0);
	silent = client_socket(SOCK_STREAM, NULL, server_port(r.s));
	REQUIRE(silent >= 0);
	t0 = sim_ms();
	fd = open_test(server_port(r.s), &h, &m);
	REQUIRE(fd >= 0);
	msleep(SKIP_SEEN_MS); /* the server is done with the HELLO (it marks the test active) */
	/* 250 ms: both still open (a sweep or more has run). */
	skip_ms(250);
	msleep(SKIP_SEEN_MS);
	p = (struct pollfd){.fd = silent, .events = POLLIN};
	CHECK_EQ(poll(&p, 1, 0), 0);
	CHECK_EQ(__atomic_load_n(&r.ended, __ATOMIC_SEQ_CST), 0);
	/* The hello timeout passes: the silent connection is gone, the test is not. */
	skip_ms(100);
	CHECK_EQ(recv(silent, &m, 1, 0), 0);
	CHECK_EQ(__atomic_load_n(&r.ended, __ATOMIC_SEQ_CST), 0);
	/* The idle time passes: the test ends. */
	skip_ms(100);
	CHECK_EQ(recv_not_report(fd, &m), 0);
	CHECK_EQ(m.type, PROTO_FINAL);
	CHECK_EQ(sim_ms() - t0, 450);
	close(silent);
	close(fd);
	CHECK_EQ(wait_ended(&r, 1, 1000), 1);
	CHECK_STR(r.last.reason, "idle");
	stop(&r);
}

TEST(busy_at_max_clients)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 0), m;
	int a, b, x;

	test_config(&c, &r);
	c.max_clients = 2;
	REQUIRE_EQ(start(&r, &c), 0);
	a = open_test(server_port(r.s), &h, &m);
	b = open_test(server_port(r.s), &h, &m);
	CHECK(a >= 0 && b >= 0);
	x = client_socket(SOCK_STREAM, NULL, server_port(r.s));
	CHECK(send_msg(x, &h) == 0 && recv_msg(x, &m) == 0);
	CHECK_EQ(m.type, PROTO_ERROR);
	CHECK_EQ(m.u.error.code, PROTO_ERR_BUSY);
	close(x);
	/* One ends, a slot frees. */
	close(a);
	CHECK_EQ(wait_ended(&r, 1, 2000), 1);
	a = open_test(server_port(r.s), &h, &m);
	CHECK(a >= 0);
	close(a);
	close(b);
	stop(&r);
}

TEST(connect_storm_500_no_crash_no_leak)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 0), m;
	struct rlimit old, low;
	int fds[500], base, n = 0, after = -1, fd;
	uint64_t until;

	test_config(&c, &r);
	c.hello_timeout_ms = 300;
	REQUIRE_EQ(start(&r, &c), 0);
	msleep(50);
	base = count_fds();
	/* Clients and server share this process's descriptor table: with a limit of 700,
	 * the server runs out while the clients connect, and must shed, not spin or die. */
	getrlimit(RLIMIT_NOFILE, &old);
	low = old;
	low.rlim_cur = 700;
	setrlimit(RLIMIT_NOFILE, &low);
	for (int i = 0; i < 500; i++) {
		struct sockaddr_in a = loopback("127.0.0.1", server_port(r.s));

		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			break;
		connect(fd, (struct sockaddr *)&a, sizeof(a));
		fds[n++] = fd;
	}
	CHECK(n >= 400);
	msleep(300);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	setrlimit(RLIMIT_NOFILE, &old);
	until = now_ms() + 5000;
	while (now_ms() < until && (after = count_fds()) != base)
		msleep(50);
	CHECK_EQ(after, base);
	/* Still serving. */
	fd = open_test(server_port(r.s), &h, &m);
	CHECK(fd >= 0);
	close(fd);
	stop(&r);
}

/* Garbage of every kind while a legitimate test runs: it must complete unharmed. */
TEST(garbage_while_a_test_runs)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(1, 10000, 20000), w, m;
	static uint8_t junk[4096], data[65536];
	struct sockaddr_in a;
	int fd, up, udp, spoof, g, answered = 0;
	uint64_t sent = 0;

	test_config(&c, &r);
	c.hello_timeout_ms = 500;
	REQUIRE_EQ(start(&r, &c), 0);
	a = loopback("127.0.0.1", server_port(r.s));
	fd = open_test(server_port(r.s), &h, &w);
	REQUIRE(fd >= 0);
	up = open_flow(server_port(r.s), w.u.welcome.token, 0, PROTO_UPLOAD, NULL);
	udp = client_socket(SOCK_DGRAM, "127.0.0.1", 0);
	spoof = client_socket(SOCK_DGRAM, "127.0.0.2", 0);
	REQUIRE(up >= 0 && udp >= 0 && spoof >= 0);
	srand(42);
	for (int round = 0; round < 40; round++) {
		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (uint8_t)rand();
		g = client_socket(SOCK_STREAM, NULL, server_port(r.s));
		switch (round % 8) {
		case 0: /* random bytes */
			send_all(g, junk, sizeof(junk));
			break;
		case 1: /* oversized frame header */
			send_all(g, "\xff\xff\x01", 3);
			break;
		case 2: /* a truncated HELLO, then close */
			send_all(g, "\x00\x40\x01\x01\x02", 5);
			break;
		case 3: /* HELLO with a wrong body length */
			send_all(g, "\x00\x02\x01\x01\x02", 5);
			break;
		case 4: /* FLOW with the real token from the right address but a bad id */
			close(g);
			g = open_flow(server_port(r.s), w.u.welcome.token, 7, PROTO_DOWNLOAD, NULL);
			break;
		case 5: /* STOP as a first frame */
			send_all(g, "\x00\x00\x06", 3);
			break;
		case 6: /* nothing at all (closed by the hello timeout or by us) */
			break;
		case 7: /* a frame of unknown type with a large body */
			junk[0] = 0x03, junk[1] = 0xff, junk[2] = 0x42;
			send_all(g, junk, 1024 + 3);
			break;
		}
		close(g);
		/* UDP garbage: random sizes, oversized, spoofed probes with the real token. */
		sendto(udp, junk, (size_t)(rand() % 1500), 0, (struct sockaddr *)&a, sizeof(a));
		sendto(udp, junk, 4000, 0, (struct sockaddr *)&a, sizeof(a));
		probe(spoof, server_port(r.s), w.u.welcome.token, 1, 200, 0, NULL);
		/* The legitimate test goes on: a probe and some upload. */
		answered += probe(udp, server_port(r.s), w.u.welcome.token, (uint32_t)round, 100,
				  1000, NULL) == PROTO_PROBE_LEN;
		if (send_all(up, data, sizeof(data)) == 0)
			sent += sizeof(data);
		msleep(25);
	}
	CHECK(answered >= 36);
	msleep(200);
	m = (struct proto_msg){.type = PROTO_STOP};
	CHECK(send_msg(fd, &m) == 0 && recv_not_report(fd, &m) == 0);
	CHECK_EQ(m.type, PROTO_FINAL);
	CHECK_EQ(m.u.final.rx_bytes[0], sent);
	CHECK_EQ(m.u.final.probes_answered, answered);
	close(up);
	close(udp);
	close(spoof);
	close(fd);
	stop(&r);
	CHECK_STR(r.last.reason, "stop");
}

/* Keyed: the connection's CHALLENGE, then a HELLO signed over its nonce; the WELCOME. */
static int open_keyed_test(uint16_t port, struct proto_msg *h, const uint8_t *key, size_t keylen,
			   struct proto_msg *w, uint8_t *nonce)
{
	struct proto_msg c;
	int fd = client_socket(SOCK_STREAM, NULL, port);

	if (fd < 0)
		return -1;
	if (recv_msg(fd, &c) < 0 || c.type != PROTO_CHALLENGE) {
		close(fd);
		return -1;
	}
	memcpy(nonce, c.u.challenge.nonce, PROTO_NONCE_LEN);
	proto_hello_sign(&h->u.hello, nonce, key, keylen);
	if (send_msg(fd, h) < 0 || recv_msg(fd, w) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

TEST(keyed_server)
{
	static const uint8_t key[] = "not so secret";
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(1, 10000, 20000), m, ch, replay;
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ, .seq = 4};
	struct sockaddr_in a;
	uint8_t buf[200] = {0}, nonce[PROTO_NONCE_LEN], nonce2[PROTO_NONCE_LEN];
	int fd, fd2, udp, fl;
	ssize_t n;

	test_config(&c, &r);
	c.key = key;
	c.keylen = sizeof(key) - 1;
	REQUIRE_EQ(start(&r, &c), 0);
	/* The server speaks first; an unsigned HELLO: ERROR auth. */
	fd = client_socket(SOCK_STREAM, NULL, server_port(r.s));
	CHECK(recv_msg(fd, &ch) == 0);
	CHECK_EQ(ch.type, PROTO_CHALLENGE);
	CHECK(send_msg(fd, &h) == 0 && recv_msg(fd, &m) == 0);
	CHECK_EQ(m.type, PROTO_ERROR);
	CHECK_EQ(m.u.error.code, PROTO_ERR_AUTH);
	close(fd);
	/* Signed over this connection's nonce: WELCOME, signed over it too. */
	fd = open_keyed_test(server_port(r.s), &h, key, sizeof(key) - 1, &m, nonce);
	REQUIRE(fd >= 0);
	REQUIRE_EQ(m.type, PROTO_WELCOME);
	replay = h; /* what an eavesdropper saw */
	CHECK_EQ(proto_welcome_verify(&m.u.welcome, nonce, key, sizeof(key) - 1), 0);
	CHECK_EQ(m.u.welcome.probe_len, PROTO_PROBE_LEN + PROTO_MAC_LEN);
	/* The same HELLO replayed on a new connection (another nonce): refused. */
	fd2 = client_socket(SOCK_STREAM, NULL, server_port(r.s));
	CHECK(recv_msg(fd2, &ch) == 0);
	CHECK_EQ(ch.type, PROTO_CHALLENGE);
	memcpy(nonce2, ch.u.challenge.nonce, PROTO_NONCE_LEN);
	CHECK(memcmp(nonce, nonce2, PROTO_NONCE_LEN) != 0);
	CHECK(send_msg(fd2, &replay) == 0 && recv_msg(fd2, &ch) == 0);
	CHECK_EQ(ch.type, PROTO_ERROR);
	CHECK_EQ(ch.u.error.code, PROTO_ERR_AUTH);
	close(fd2);
	/* A FLOW with the token but no key (or signed over another connection's nonce):
	 * refused; signed over its own connection's nonce: accepted. */
	for (int round = 0; round < 3; round++) {
		struct proto_msg f = {.type = PROTO_FLOW}, got;

		fl = client_socket(SOCK_STREAM, NULL, server_port(r.s));
		CHECK(recv_msg(fl, &ch) == 0 && ch.type == PROTO_CHALLENGE);
		memcpy(f.u.flow.token, m.u.welcome.token, PROTO_TOKEN_LEN);
		f.u.flow.direction = PROTO_UPLOAD;
		if (round == 1)
			proto_flow_sign(&f.u.flow, nonce, key, sizeof(key) - 1);
		if (round == 2)
			proto_flow_sign(&f.u.flow, ch.u.challenge.nonce, key, sizeof(key) - 1);
		CHECK(send_msg(fl, &f) == 0);
		if (round < 2) {
			CHECK(recv_msg(fl, &got) == 0);
			CHECK_EQ(got.type, PROTO_ERROR);
			CHECK_EQ(got.u.error.code, PROTO_ERR_AUTH);
		} else {
			CHECK(send(fl, "bulk", 4, MSG_NOSIGNAL) == 4);
		}
		close(fl);
	}
	udp = client_socket(SOCK_DGRAM, "127.0.0.1", 0);
	/* Unsigned probe: silence. */
	CHECK_EQ(probe(udp, server_port(r.s), m.u.welcome.token, 1, 100, 300, NULL), 0);
	/* Signed: a signed reply of header + MAC. */
	memcpy(p.token, m.u.welcome.token, PROTO_TOKEN_LEN);
	p.flags = PROTO_PROBE_KEYED;
	proto_probe_encode(&p, buf, sizeof(buf));
	proto_probe_sign(buf, sizeof(buf), key, sizeof(key) - 1);
	a = loopback("127.0.0.1", server_port(r.s));
	sendto(udp, buf, PROTO_PROBE_LEN + PROTO_MAC_LEN, 0, (struct sockaddr *)&a, sizeof(a));
	n = recv(udp, buf, sizeof(buf), 0);
	CHECK_EQ(n, PROTO_PROBE_LEN + PROTO_MAC_LEN);
	CHECK_EQ(proto_probe_verify(buf, (size_t)n, key, sizeof(key) - 1), 0);
	m = (struct proto_msg){.type = PROTO_STOP};
	CHECK(send_msg(fd, &m) == 0 && recv_not_report(fd, &m) == 0);
	CHECK_EQ(m.type, PROTO_FINAL);
	CHECK_EQ(m.u.final.rx_bytes[0], 4); /* only the signed flow's bytes */
	CHECK_EQ(m.u.final.probes_answered, 1);
	CHECK_EQ(m.u.final.probes_dropped, 1);
	close(udp);
	close(fd);
	stop(&r);
}

TEST(probe_reply_carries_the_request_tos)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 20000), m;
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ};
	struct sockaddr_in a;
	uint8_t buf[128] = {0};
	char cbuf[256];
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *cm;
	int fd, udp, one = 1, tos = -1;

	test_config(&c, &r);
	REQUIRE_EQ(start(&r, &c), 0);
	fd = open_test(server_port(r.s), &h, &m);
	REQUIRE(fd >= 0);
	udp = client_socket(SOCK_DGRAM, "127.0.0.1", 0);
	setsockopt(udp, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	a = loopback("127.0.0.1", server_port(r.s));
	memcpy(p.token, m.u.welcome.token, PROTO_TOKEN_LEN);
	for (int mark = 0xb8; mark >= 0; mark -= 0x5c) { /* EF, then 0x5c, then unmarked */
		proto_probe_encode(&p, buf, sizeof(buf));
		setsockopt(udp, IPPROTO_IP, IP_TOS, &mark, sizeof(mark));
		CHECK(sendto(udp, buf, 64, 0, (struct sockaddr *)&a, sizeof(a)) == 64);
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		if (recvmsg(udp, &mh, 0) != PROTO_PROBE_LEN) {
			CHECK_EQ(mark, -1); /* no reply to this marking */
			break;
		}
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TOS)
				tos = *(uint8_t *)CMSG_DATA(cm);
		CHECK_EQ(tos, mark);
	}
	close(udp);
	close(fd);
	stop(&r);
}

TEST(ipv6_loopback)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 20000), m;
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ, .seq = 77};
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	uint8_t buf[128] = {0};
	int fd, udp;

	test_config(&c, &r);
	c.family = AF_INET6;
	c.bind = "::1";
	if (start(&r, &c) < 0)
		SKIP("no IPv6 loopback here");
	a.sin6_port = htons(server_port(r.s));
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	set_timeout(fd, 3000);
	REQUIRE(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	CHECK(send_msg(fd, &h) == 0 && recv_msg(fd, &m) == 0);
	REQUIRE_EQ(m.type, PROTO_WELCOME);
	udp = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	set_timeout(udp, 3000);
	memcpy(p.token, m.u.welcome.token, PROTO_TOKEN_LEN);
	proto_probe_encode(&p, buf, sizeof(buf));
	CHECK(sendto(udp, buf, 80, 0, (struct sockaddr *)&a, sizeof(a)) == 80);
	CHECK_EQ(recv(udp, buf, sizeof(buf), 0), PROTO_PROBE_LEN);
	CHECK_EQ(proto_probe_decode(buf, PROTO_PROBE_LEN, &p), 0);
	CHECK_EQ(p.seq, 77);
	close(udp);
	close(fd);
	stop(&r);
}

/* on_test_end runs on the server's loop: a slow one makes every other test late. */
static void slow_end(void *ctx, const struct server_test_summary *t)
{
	on_end(ctx, t);
	msleep(600);
}

TEST(late_loop_reports_overloaded)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 0), m;
	int a, b, overloaded = 0, reports = 0;

	test_config(&c, &r);
	c.on_test_end = slow_end;
	REQUIRE_EQ(start(&r, &c), 0);
	a = open_test(server_port(r.s), &h, &m);
	REQUIRE(a >= 0);
	/* Before the stall: on time. */
	CHECK(recv_msg(a, &m) == 0 && m.type == PROTO_REPORT);
	CHECK(!(m.u.report.flags & PROTO_REPORT_OVERLOADED));
	b = open_test(server_port(r.s), &h, &m);
	REQUIRE(b >= 0);
	close(b); /* its end stalls the loop 600 ms: six steps of a */
	while (reports++ < 20 && recv_msg(a, &m) == 0 && m.type == PROTO_REPORT)
		if (m.u.report.flags & PROTO_REPORT_OVERLOADED) {
			overloaded = 1;
			break;
		}
	CHECK(overloaded);
	m = (struct proto_msg){.type = PROTO_STOP};
	CHECK(send_msg(a, &m) == 0 && recv_not_report(a, &m) == 0);
	CHECK(m.u.final.flags & PROTO_REPORT_OVERLOADED);
	close(a);
	stop(&r);
}

/*
 * Whether this kernel interface gives UDP sockets their receive timestamps
 * (SO_TIMESTAMPNS and its control message). Linux always does; qemu-user (7.2), which
 * runs the cross builds' tests, refuses the option, and the server then dates a
 * probe by its read: a probe's wait in the socket cannot be seen, and probes read in
 * one batch share one arrival time.
 */
static bool kernel_rx_timestamps(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	char byte, ctl[128];
	struct iovec v = {.iov_base = &byte, .iov_len = 1};
	struct msghdr m = {
	    .msg_iov = &v, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	bool found = false;
	int one = 1, fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return false;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &alen) == 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) == 0 &&
	    sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof(a)) == 1 && recvmsg(fd, &m, 0) == 1)
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
			found |= cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS;
	close(fd);
	return found;
}

/* Whether getsockopt(SO_MEMINFO) works: how the server sees the kernel's drops on a
 * full receive buffer (qemu-user 7.2 refuses it too). */
static bool kernel_meminfo(void)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok = fd >= 0 && getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0;

	if (fd >= 0)
		close(fd);
	return ok;
}

#define REQUIRE_RX_TIMESTAMPS()                                                                    \
	do {                                                                                       \
		if (!kernel_rx_timestamps())                                                       \
			SKIP("no receive timestamps (SO_TIMESTAMPNS) on this kernel interface");   \
	} while (0)

/* Stop a test, the FINAL in *m; the summary lands in r->last. */
static int stop_test(struct running *r, int fd, int ended_before, struct proto_msg *m)
{
	*m = (struct proto_msg){.type = PROTO_STOP};
	if (send_msg(fd, m) < 0 || recv_not_report(fd, m) < 0 || m->type != PROTO_FINAL)
		return -1;
	close(fd);
	return wait_ended(r, ended_before + 1, 3000) == ended_before + 1 ? 0 : -1;
}

/*
 * A probe that waits in the socket while the loop is busy (here: 600 ms in a test's end
 * callback) is held that long by the server's account, from the kernel's receive time:
 * the reply says so (the client subtracts it) and the test is flagged overloaded,
 * though no REPORT was late (the step is longer than the stall).
 */
TEST(a_probe_held_in_the_queue_flags_its_test_overloaded)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 10000), w, m;
	struct proto_probe rep = {0};
	int a, b, udp;

	REQUIRE_RX_TIMESTAMPS();

	test_config(&c, &r);
	c.on_test_end = slow_end;
	/* 100 ms, not the default 2 ms: the stall holds the second probe 200 ms or more,
	 * while a busy machine may hold the first a few ms, which is not what is tested. */
	c.hold_max_us = 100000;
	REQUIRE_EQ(start(&r, &c), 0);
	h.u.hello.step_ms = 5000;
	a = open_test(server_port(r.s), &h, &w);
	REQUIRE(a >= 0);
	udp = client_socket(SOCK_DGRAM, NULL, 0);
	REQUIRE(udp >= 0);
	CHECK_EQ(probe(udp, server_port(r.s), w.u.welcome.token, 1, PROTO_PROBE_LEN, 2000, &rep),
		 PROTO_PROBE_LEN);
	b = open_test(server_port(r.s), &h, &m);
	REQUIRE(b >= 0);
	close(b);    /* its end stalls the loop 600 ms */
	msleep(150); /* the loop is in the stall now */
	CHECK_EQ(probe(udp, server_port(r.s), w.u.welcome.token, 2, PROTO_PROBE_LEN, 3000, &rep),
		 PROTO_PROBE_LEN);
	CHECK_EQ(rep.seq, 2);
	CHECK(rep.server_tx_ns >= rep.server_rx_ns + 200 * 1000000ULL);
	CHECK(rep.server_tx_ns - rep.server_rx_ns < 2000 * 1000000ULL);
	REQUIRE_EQ(stop_test(&r, a, 1, &m), 0);
	CHECK(m.u.final.flags & PROTO_REPORT_OVERLOADED);
	CHECK_EQ(r.last.probes_answered, 2);
	CHECK_EQ(r.last.probes_held, 1);
	CHECK(r.last.hold_max_us >= 200000);
	close(udp);
	stop(&r);
}

/* The bound is the operator's: a hold within it flags nothing, any beyond it does. */
TEST(the_hold_bound_decides_the_flag)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 10000), w, m;
	struct proto_probe rep = {0};
	int a, udp;

	for (int bound = 0; bound < 2; bound++) {
		r = (struct running){0};
		test_config(&c, &r);
		c.hold_max_us = bound ? 1000000 : 0; /* 1 s, or none at all */
		REQUIRE_EQ(start(&r, &c), 0);
		a = open_test(server_port(r.s), &h, &w);
		REQUIRE(a >= 0);
		udp = client_socket(SOCK_DGRAM, NULL, 0);
		REQUIRE(udp >= 0);
		CHECK_EQ(
		    probe(udp, server_port(r.s), w.u.welcome.token, 1, PROTO_PROBE_LEN, 2000, &rep),
		    PROTO_PROBE_LEN);
		CHECK(rep.server_tx_ns > rep.server_rx_ns); /* the hold is never zero */
		REQUIRE_EQ(stop_test(&r, a, 0, &m), 0);
		CHECK_EQ(!!(m.u.final.flags & PROTO_REPORT_OVERLOADED), !bound);
		CHECK_EQ(r.last.probes_held, !bound);
		close(udp);
		stop(&r);
	}
}

/* Replies waiting on udp, each seq counted once in seen[n]: how many new. */
static int read_replies(int udp, uint32_t *seen, uint32_t n)
{
	uint8_t buf[PROTO_PROBE_LEN];
	struct proto_probe rep;
	ssize_t len;
	int got = 0;

	while ((len = recv(udp, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		if (len == PROTO_PROBE_LEN && proto_probe_decode(buf, (size_t)len, &rep) == 0 &&
		    rep.magic == PROTO_PROBE_MAGIC_REP && rep.seq < n && !seen[rep.seq]++)
			got++;
	return got;
}

/*
 * Requests pile up while the loop is busy (a test's end callback stalls it 600 ms): more
 * than two batch reads (recvmmsg) hold. Every one is answered, and the rate limit
 * judges them by when they arrived, not by when they were read all at once.
 */
TEST(probes_piled_up_are_answered_in_batches)
{
	enum { N = 150 };
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 10), w, m;
	struct sockaddr_in to;
	uint8_t buf[PROTO_PROBE_LEN];
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ};
	struct pollfd pfd;
	int a, b, udp, got = 0, sent = 0;
	uint32_t seen[N] = {0};
	REQUIRE_RX_TIMESTAMPS();

	test_config(&c, &r);
	c.on_test_end = slow_end;
	c.min_interval_us = 10;
	REQUIRE_EQ(start(&r, &c), 0);
	h.u.hello.step_ms = 5000;
	a = open_test(server_port(r.s), &h, &w);
	REQUIRE(a >= 0);
	udp = client_socket(SOCK_DGRAM, NULL, 0);
	REQUIRE(udp >= 0);
	to = loopback("127.0.0.1", server_port(r.s));
	memcpy(p.token, w.u.welcome.token, PROTO_TOKEN_LEN);
	b = open_test(server_port(r.s), &h, &m);
	REQUIRE(b >= 0);
	close(b);
	msleep(100); /* the loop is in the stall now */
	/* N requests at 1 per 40 us: within the granted rate (10 us, burst 5). */
	for (uint32_t i = 0; i < N; i++) {
		struct timespec ts = {0, 40000};

		p.seq = i;
		proto_probe_encode(&p, buf, sizeof(buf));
		sent += sendto(udp, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)) ==
			(ssize_t)sizeof(buf);
		nanosleep(&ts, NULL);
	}
	CHECK_EQ(sent, N);
	pfd = (struct pollfd){.fd = udp, .events = POLLIN};
	while (got < N && poll(&pfd, 1, 3000) == 1)
		got += read_replies(udp, seen, N);
	CHECK_EQ(got, N);
	REQUIRE_EQ(stop_test(&r, a, 1, &m), 0);
	CHECK_EQ(m.u.final.probes_answered, N);
	CHECK_EQ(m.u.final.probes_dropped, 0);
	CHECK_EQ(r.last.probes_held, N); /* each waited for the stall to end */
	close(udp);
	stop(&r);
}

/*
 * The kernel drops probes on a full receive buffer (a tiny one here, while the loop is
 * stalled): the server cannot tell whose, so every running test is flagged, even one
 * that sent no probe at all.
 */
TEST(probes_dropped_on_a_full_buffer_flag_every_test)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 10), w, quiet_w, m;
	struct sockaddr_in to;
	uint8_t buf[1400] = {0};
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ};
	int a, quiet, b, udp;

	REQUIRE_RX_TIMESTAMPS();
	if (!kernel_meminfo())
		SKIP("no SO_MEMINFO on this kernel interface: drops cannot be seen");

	test_config(&c, &r);
	c.on_test_end = slow_end;
	c.min_interval_us = 10;
	c.max_probe_len = sizeof(buf);
	c.udp_rcvbuf = 1; /* the kernel's minimum: a few datagrams */
	REQUIRE_EQ(start(&r, &c), 0);
	h.u.hello.step_ms = 5000;
	a = open_test(server_port(r.s), &h, &w);
	REQUIRE(a >= 0);
	quiet = open_test_from("127.0.0.2", server_port(r.s), &h, &quiet_w);
	REQUIRE(quiet >= 0);
	udp = client_socket(SOCK_DGRAM, NULL, 0);
	REQUIRE(udp >= 0);
	to = loopback("127.0.0.1", server_port(r.s));
	memcpy(p.token, w.u.welcome.token, PROTO_TOKEN_LEN);
	b = open_test(server_port(r.s), &h, &m);
	REQUIRE(b >= 0);
	close(b);
	msleep(100); /* the loop is in its 600 ms stall: the buffer fills */
	for (uint32_t i = 0; i < 50; i++) {
		p.seq = i;
		proto_probe_encode(&p, buf, sizeof(buf));
		CHECK(sendto(udp, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)) ==
		      (ssize_t)sizeof(buf));
	}
	msleep(800); /* the stall ends, the next sweep marks the tests */
	REQUIRE_EQ(stop_test(&r, quiet, 1, &m), 0);
	CHECK(m.u.final.flags & PROTO_REPORT_OVERLOADED);
	CHECK_EQ(m.u.final.probes_answered, 0);
	REQUIRE_EQ(stop_test(&r, a, 2, &m), 0);
	CHECK(m.u.final.flags & PROTO_REPORT_OVERLOADED);
	CHECK(m.u.final.probes_answered < 50);
	close(udp);
	stop(&r);
}

/* Thousands of tests at once (one address may hold them all here): each is found by
 * its token. */
TEST(thousands_of_tests_each_found_by_token)
{
	enum { N = 2000 };
	static int fds[N];
	static uint8_t tokens[N][PROTO_TOKEN_LEN];
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 10000), w;
	int udp, answered = 0, opened = 0;

	if (!nofile_at_least(2 * N + 64))
		SKIP("needs 4100 file descriptors (ulimit -n)");
	test_config(&c, &r);
	c.max_clients = N;
	c.max_tests_per_addr = N;
	/* Opening them takes seconds on a loaded machine: on a clock that stands still,
	 * none idles out or expires meanwhile and frees its slot. */
	c.clock = &sim_clock;
	REQUIRE_EQ(start(&r, &c), 0);
	for (int i = 0; i < N; i++) {
		fds[i] = open_test(server_port(r.s), &h, &w);
		if (fds[i] < 0)
			break;
		memcpy(tokens[i], w.u.welcome.token, PROTO_TOKEN_LEN);
		opened++;
	}
	CHECK_EQ(opened, N);
	h.u.hello.nflows = 0;
	CHECK(open_test(server_port(r.s), &h, &w) < 0); /* the limit holds */
	udp = client_socket(SOCK_DGRAM, NULL, 0);
	REQUIRE(udp >= 0);
	for (int i = 0; i < opened; i += 97) {
		struct proto_probe rep;

		answered += probe(udp, server_port(r.s), tokens[i], (uint32_t)i, PROTO_PROBE_LEN,
				  2000, &rep) == PROTO_PROBE_LEN &&
			    rep.seq == (uint32_t)i &&
			    !memcmp(rep.token, tokens[i], PROTO_TOKEN_LEN);
	}
	CHECK_EQ(answered, (opened + 96) / 97);
	for (int i = 0; i < opened; i++)
		close(fds[i]);
	CHECK_EQ(wait_ended(&r, opened, 10000), opened);
	close(udp);
	stop(&r);
}

/*
 * The sweep reads its clock once, then lets waiting probes in every few records
 * (loop_urgent_point); a probe that arrived after that reading stamps its test with a
 * later time than the sweep's. 2000 tests under a flood of probes for 2 s, with an
 * idle limit of a minute: none may end (with the stamp taken as ages old, tests ended
 * as idle within a second of their last probe, and their flows were cut).
 */
TEST(probes_let_in_during_the_sweep_never_make_a_test_idle)
{
	enum { N = 2000 };
	static uint8_t tokens[N][PROTO_TOKEN_LEN];
	static int fds[N];
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 120000, 1000), w;
	struct sockaddr_in to;
	uint8_t buf[2048] = {0};
	uint64_t until;
	int udp, opened = 0, replies = 0;

	if (!nofile_at_least(2 * N + 64))
		SKIP("needs 4100 file descriptors (ulimit -n)");
	h.u.hello.step_ms = 10000; /* few REPORTs: the clients read none */
	test_config(&c, &r);
	c.max_clients = N;
	c.max_tests_per_addr = N;
	c.idle_ms = 60000; /* far longer than this test runs: no test is idle */
	REQUIRE_EQ(start(&r, &c), 0);
	for (int i = 0; i < N; i++) {
		fds[i] = open_test(server_port(r.s), &h, &w);
		if (fds[i] < 0)
			break;
		memcpy(tokens[i], w.u.welcome.token, PROTO_TOKEN_LEN);
		opened++;
	}
	CHECK_EQ(opened, N);
	udp = client_socket(SOCK_DGRAM, NULL, 0);
	REQUIRE(udp >= 0);
	to = loopback("127.0.0.1", server_port(r.s));
	until = now_ms() + 2000;
	for (uint32_t seq = 0; now_ms() < until; seq++) {
		struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ, .seq = seq};

		memcpy(p.token, tokens[seq % (uint32_t)opened], PROTO_TOKEN_LEN);
		proto_probe_encode(&p, buf, sizeof(buf));
		(void)sendto(udp, buf, PROTO_PROBE_LEN, MSG_DONTWAIT, (struct sockaddr *)&to,
			     sizeof(to));
		while (recv(udp, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			replies++;
	}
	CHECK(replies > 1000); /* the flood was answered */
	CHECK_EQ(wait_ended(&r, 1, 300), 0);
	CHECK_STR(r.last.reason ? r.last.reason : "none", "none");
	for (int i = 0; i < opened; i++)
		close(fds[i]);
	close(udp);
	stop(&r);
}

/*
 * A test of probes alone holds no buffers while it is quiet: its control connection's
 * input and output are taken only while they hold a part of a frame, and per-flow state
 * only for a test that asked for flows. About 7 KB a test before; the bound is 1.5 KB
 * (the test and connection records, the token table, the loop's timer and fd slots).
 */
TEST(a_test_of_probes_alone_costs_little_memory)
{
	enum { N = 500 };
	static int fds[N];
	static uint8_t tokens[N][PROTO_TOKEN_LEN];
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 10000), w;
	struct mallinfo2 before, after;
	struct proto_probe rep;
	size_t used;
	int udp, opened = 0;

	if (!nofile_at_least(2 * N + 64))
		SKIP("needs 1100 file descriptors (ulimit -n)");
	{
		/* A sanitizer's allocator is not glibc's: mallinfo2 does not see it. */
		void *volatile probe_block = malloc(4096);

		after = mallinfo2();
		free(probe_block);
		if (!after.uordblks && !after.hblkhd)
			SKIP("mallinfo2 sees no heap (a sanitizer's allocator)");
	}
	test_config(&c, &r);
	c.max_clients = N;
	c.max_tests_per_addr = N;
	c.clock = &sim_clock; /* no REPORT falls due: every connection stays quiet */
	REQUIRE_EQ(start(&r, &c), 0);
	/* One test first: the server's arena and its first timer and fd slots exist. */
	fds[0] = open_test(server_port(r.s), &h, &w);
	REQUIRE(fds[0] >= 0);
	memcpy(tokens[0], w.u.welcome.token, PROTO_TOKEN_LEN);
	opened = 1;
	before = mallinfo2();
	for (int i = 1; i < N; i++) {
		fds[i] = open_test(server_port(r.s), &h, &w);
		if (fds[i] < 0)
			break;
		memcpy(tokens[i], w.u.welcome.token, PROTO_TOKEN_LEN);
		opened++;
	}
	after = mallinfo2();
	REQUIRE_EQ(opened, N);
	used = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
	printf("  %d quiet tests: %zu KB of heap, %zu bytes a test\n", N - 1, used >> 10,
	       used / (N - 1));
	CHECK(used / (N - 1) < 1536);
	/* ... and they still work. */
	udp = client_socket(SOCK_DGRAM, NULL, 0);
	REQUIRE(udp >= 0);
	CHECK_EQ(probe(udp, server_port(r.s), tokens[N - 1], 7, PROTO_PROBE_LEN, 2000, &rep),
		 PROTO_PROBE_LEN);
	CHECK_EQ(rep.seq, 7u);
	close(udp);
	for (int i = 0; i < opened; i++)
		close(fds[i]);
	CHECK_EQ(wait_ended(&r, opened, 10000), opened);
	stop(&r);
}

/* Frames that come in pieces are put together: a HELLO a byte at a time, a STOP in
 * two parts with a pause between them. */
TEST(frames_in_pieces_are_read_whole)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 10000), stop_msg = {.type = PROTO_STOP}, m;
	uint8_t buf[PROTO_FRAME_HDR + PROTO_MAX_BODY];
	int fd, n;

	test_config(&c, &r);
	REQUIRE_EQ(start(&r, &c), 0);
	fd = client_socket(SOCK_STREAM, NULL, server_port(r.s));
	REQUIRE(fd >= 0);
	n = proto_encode(&h, buf, sizeof(buf));
	REQUIRE(n > 2);
	for (int i = 0; i < n; i++) {
		REQUIRE_EQ(send_all(fd, buf + i, 1), 0);
		if (i % 8 == 0)
			msleep(2);
	}
	REQUIRE_EQ(recv_msg(fd, &m), 0);
	CHECK_EQ(m.type, PROTO_WELCOME);
	n = proto_encode(&stop_msg, buf, sizeof(buf));
	REQUIRE(n >= 2);
	REQUIRE_EQ(send_all(fd, buf, 1), 0);
	msleep(50);
	REQUIRE_EQ(send_all(fd, buf + 1, (size_t)n - 1), 0);
	REQUIRE_EQ(recv_not_report(fd, &m), 0);
	CHECK_EQ(m.type, PROTO_FINAL);
	close(fd);
	CHECK_EQ(wait_ended(&r, 1, 5000), 1);
	CHECK(!strcmp(r.last.reason, "stop"));
	stop(&r);
}

/* One address holding all it may cannot keep a second address from testing. */
TEST(one_address_cannot_hold_every_test_slot)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 0), m;
	int held[2], x, other;

	test_config(&c, &r);
	c.bind = "0.0.0.0";
	c.max_clients = 3;
	c.max_tests_per_addr = 2;
	REQUIRE_EQ(start(&r, &c), 0);
	for (int i = 0; i < 2; i++) {
		held[i] = open_test_from("127.0.0.1", server_port(r.s), &h, &m);
		CHECK(held[i] >= 0);
	}
	x = client_socket(SOCK_STREAM, "127.0.0.1", server_port(r.s));
	CHECK(send_msg(x, &h) == 0 && recv_msg(x, &m) == 0);
	CHECK_EQ(m.type, PROTO_ERROR);
	CHECK_EQ(m.u.error.code, PROTO_ERR_BUSY);
	CHECK(strstr(m.u.error.text, "address") != NULL);
	close(x);
	other = open_test_from("127.0.0.2", server_port(r.s), &h, &m);
	CHECK(other >= 0);
	if (other >= 0)
		close(other);
	for (int i = 0; i < 2; i++)
		if (held[i] >= 0)
			close(held[i]);
	stop(&r);
}

/* One address reconnecting cannot fill the pending table: its oldest make way. */
TEST(one_address_cannot_fill_the_pending_table)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 0), m;
	int idle[12], other;
	char byte;

	test_config(&c, &r);
	c.bind = "0.0.0.0";
	c.max_pending = 8;
	c.max_pending_per_addr = 4;
	c.hello_timeout_ms = 20000;
	REQUIRE_EQ(start(&r, &c), 0);
	for (int i = 0; i < 12; i++) {
		idle[i] = client_socket(SOCK_STREAM, "127.0.0.1", server_port(r.s));
		CHECK(idle[i] >= 0);
		msleep(20);
	}
	msleep(100);
	/* the oldest eight were evicted, the newest four are still pending */
	CHECK_EQ(recv(idle[0], &byte, 1, 0), 0);
	CHECK_EQ(recv(idle[7], &byte, 1, 0), 0);
	set_timeout(idle[11], 200);
	CHECK_EQ(recv(idle[11], &byte, 1, 0), -1);
	other = open_test_from("127.0.0.2", server_port(r.s), &h, &m);
	CHECK(other >= 0);
	if (other >= 0)
		close(other);
	for (int i = 0; i < 12; i++)
		if (idle[i] >= 0)
			close(idle[i]);
	stop(&r);
}

/* Probes the rate limit drops do not keep a test alive: only answered ones do. */
TEST(dropped_probes_do_not_keep_a_test_alive)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 2000000), m; /* a probe every 2 s */
	int fd, udp;
	uint64_t t0;

	test_config(&c, &r);
	c.idle_ms = 600;
	c.clock = &sim_clock;
	REQUIRE_EQ(start(&r, &c), 0);
	fd = open_test(server_port(r.s), &h, &m);
	REQUIRE(fd >= 0);
	udp = client_socket(SOCK_DGRAM, NULL, server_port(r.s));
	REQUIRE(udp >= 0);
	msleep(SKIP_SEEN_MS); /* the server is done with the HELLO */
	t0 = sim_ms();
	/* The burst of 5 is answered, then every probe is over the rate and dropped: one
	 * every 50 ms of the server's time (a probe wakes it, so 10 ms lets it read one). */
	for (uint32_t seq = 0; sim_ms() - t0 < 1500 && r.ended == 0; seq++) {
		probe(udp, server_port(r.s), m.u.welcome.token, seq, PROTO_PROBE_LEN, 0, NULL);
		msleep(10);
		skip_ms(50);
	}
	msleep(SKIP_SEEN_MS);
	/* it ended while the dropped probes still came (they stopped at 1.5 s) */
	CHECK_EQ(r.ended, 1);
	CHECK(sim_ms() - t0 < 1400);
	CHECK_STR(r.last.reason, "idle");
	close(udp);
	close(fd);
	stop(&r);
}

/* A server on the simulated clock with config c, one test (HELLO h) and its one
 * download flow open: true with their descriptors in *fd and *down. */
static bool open_one_download(struct running *r, struct server_config *c, const struct proto_msg *h,
			      int *fd, int *down)
{
	struct proto_msg m;

	c->clock = &sim_clock;
	if (start(r, c) != 0)
		return false;
	*fd = open_test(server_port(r->s), h, &m);
	if (*fd < 0)
		return false;
	*down = open_flow(server_port(r->s), m.u.welcome.token, 0, PROTO_DOWNLOAD, NULL);
	return *down >= 0;
}

/* A client that stops reading a download has the flow closed, with what it had queued
 * bounded, instead of pinning the flow's buffers for as long as its test lives. */
TEST(a_download_nobody_reads_is_closed)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(1, 10000, 0);
	static uint8_t buf[1 << 16];
	uint64_t got = 0, until;
	ssize_t n = 1;
	int fd, down;

	int base, stalled_ms = 0;

	test_config(&c, &r);
	c.flow_stall_ms = 500;
	REQUIRE(open_one_download(&r, &c, &h, &fd, &down));
	/* Not reading: the server's sends fill the buffers and stop making progress. The
	 * server's time moves 100 ms at a time (client and server share this process's
	 * descriptors: the flow's close shows as one fewer); a flow still moving bytes
	 * would start its 500 ms again. */
	msleep(SKIP_SEEN_MS);
	base = count_fds();
	for (int i = 0; i < 60 && count_fds() == base; i++, stalled_ms += 100) {
		skip_ms(100);
		msleep(50);
	}
	CHECK(count_fds() < base);
	CHECK(stalled_ms >= 500);
	set_timeout(down, 500);
	until = now_ms() + 3000;
	while (now_ms() < until && (n = recv(down, buf, sizeof(buf), 0)) > 0)
		got += (uint64_t)n;
	CHECK(n <= 0 && now_ms() < until); /* EOF or reset: the flow is gone */
	CHECK(got < (32u << 20));	   /* only what was queued when it stalled */
	close(down);
	close(fd);
	stop(&r);
}

/* A live client's flow backing off on a bloated link is not stalled: behind a 3 s queue
 * TCP's retransmission timeout is 3 s or more, doubled at each loss, and the flow moves
 * no byte meanwhile. With the default bound, a flow that moved nothing for 25 s is still
 * open and moves again when its client reads; past the bound it is closed. */
TEST(a_flow_backing_off_on_a_bloated_link_is_not_closed_as_stalled)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(1, 170000, 0);
	static uint8_t buf[1 << 16];
	ssize_t n;
	int fd, down, base;

	test_config(&c, &r);
	c.idle_ms = 600000; /* the test's own idle rule is not what this checks */
	REQUIRE(open_one_download(&r, &c, &h, &fd, &down));
	msleep(SKIP_SEEN_MS);
	base = count_fds();
	/* Not reading: the buffers fill and nothing moves for 25 s of the server's time. */
	for (int i = 0; i < 25 && count_fds() == base; i++) {
		skip_ms(1000);
		msleep(40);
	}
	CHECK_EQ(count_fds(), base);
	set_timeout(down, 1000);
	n = recv(down, buf, sizeof(buf), 0);
	CHECK(n > 0);
	/* Still for longer than the bound: closed. */
	for (int i = 0; i < 40 && count_fds() == base; i++) {
		skip_ms(1000);
		msleep(40);
	}
	CHECK(count_fds() < base);
	close(down);
	close(fd);
	stop(&r);
}

/*
 * One probe answered in a batch: its processing time (from the batch read to the
 * reply's stamp, as irtt's) is above zero and within what the reply's own stamps say
 * (server_tx_ns - server_rx_ns, the kernel's receive timestamp to the same stamp): it
 * ends at the stamp, before the send. Its hold (to the return of the sendmmsg) is at
 * least that. With one probe the quantiles are that probe's own times. A window that
 * answered it reports it.
 */
TEST(an_answered_probe_has_a_processing_time_within_its_hold)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 10000), w, m;
	struct proto_probe rep = {0};
	int a, udp;

	test_config(&c, &r);
	c.on_stats = on_stats;
	c.stats_ms = 50;
	REQUIRE_EQ(start(&r, &c), 0);
	a = open_test(server_port(r.s), &h, &w);
	REQUIRE(a >= 0);
	udp = client_socket(SOCK_DGRAM, NULL, 0);
	REQUIRE(udp >= 0);
	CHECK_EQ(probe(udp, server_port(r.s), w.u.welcome.token, 1, PROTO_PROBE_LEN, 2000, &rep),
		 PROTO_PROBE_LEN);
	msleep(200); /* a stats window or more passes */
	REQUIRE_EQ(stop_test(&r, a, 0, &m), 0);
	CHECK(r.last.proc_max_us <= r.last.hold_max_us);
	close(udp);
	stop(&r);
	CHECK_EQ(r.nrun, 1);
	CHECK(r.run.final);
	CHECK_EQ(r.run.probes, 1);
	CHECK(r.run.proc_max_ns > 0);
	CHECK(r.run.proc_max_ns <= r.run.hold_max_ns);
	CHECK(r.run.hold_max_ns >= rep.server_tx_ns - rep.server_rx_ns);
	CHECK(r.run.proc_max_ns <= rep.server_tx_ns - rep.server_rx_ns);
	CHECK_EQ(r.run.proc_p50_ns, r.run.proc_max_ns);
	CHECK_EQ(r.run.proc_p99_ns, r.run.proc_max_ns);
	CHECK_EQ(r.run.hold_p50_ns, r.run.hold_max_ns);
	CHECK_EQ(r.run.hold_p99_ns, r.run.hold_max_ns);
	CHECK(r.run.window_ns >= 200 * 1000000ULL);
	CHECK(r.nwindows >= 1);	      /* only windows that answered a probe */
	CHECK_EQ(r.window_probes, 1); /* each probe in exactly one window */
}

/*
 * A probe that waits in the socket while the loop is stalled (600 ms in a test's end
 * callback): its hold holds the wait, its processing time does not.
 */
TEST(processing_time_leaves_out_the_wait_in_the_socket)
{
	struct running r = {0};
	struct server_config c;
	struct proto_msg h = hello_msg(0, 10000, 10000), w, m;
	struct proto_probe rep = {0};
	int a, b, udp;

	REQUIRE_RX_TIMESTAMPS();

	test_config(&c, &r);
	c.on_test_end = slow_end;
	c.on_stats = on_stats;
	REQUIRE_EQ(start(&r, &c), 0);
	h.u.hello.step_ms = 5000;
	a = open_test(server_port(r.s), &h, &w);
	REQUIRE(a >= 0);
	udp = client_socket(SOCK_DGRAM, NULL, 0);
	REQUIRE(udp >= 0);
	b = open_test(server_port(r.s), &h, &m);
	REQUIRE(b >= 0);
	close(b);    /* its end stalls the loop 600 ms */
	msleep(150); /* the loop is in the stall now */
	CHECK_EQ(probe(udp, server_port(r.s), w.u.welcome.token, 1, PROTO_PROBE_LEN, 3000, &rep),
		 PROTO_PROBE_LEN);
	REQUIRE_EQ(stop_test(&r, a, 1, &m), 0);
	CHECK(r.last.hold_max_us >= 200000);
	CHECK(r.last.proc_max_us < 100000);
	close(udp);
	stop(&r);
	CHECK_EQ(r.run.probes, 1);
	CHECK(r.run.hold_max_ns >= 200 * 1000000ULL);
	CHECK(r.run.proc_max_ns > 0);
	CHECK(r.run.proc_max_ns < 100 * 1000000ULL);
}

static bool has(const char *text, const char *what)
{
	return strstr(text, what) != NULL;
}

/* The stats line and a test's line carry the keys docs/json.md names, on one line. */
TEST(log_lines_have_the_processing_time_keys)
{
	static const char *const keys[] = {
	    "\"stats\":\"run\"",   "\"window_ms\":1500",   "\"probes_answered\":3",
	    "\"hold_p50_ns\":900", "\"hold_p99_ns\":4000", "\"hold_max_ns\":5000",
	    "\"proc_p50_ns\":700", "\"proc_p99_ns\":2000", "\"proc_max_ns\":3000",
	};
	struct server_probe_stats st = {
	    .final = true,
	    .window_ns = 1500 * 1000000ULL,
	    .probes = 3,
	    .hold_p50_ns = 900,
	    .hold_p99_ns = 4000,
	    .hold_max_ns = 5000,
	    .proc_p50_ns = 700,
	    .proc_p99_ns = 2000,
	    .proc_max_ns = 3000,
	};
	struct server_test_summary t = {.client = "192.0.2.1",
					.reason = "stop",
					.elapsed_ms = 2000,
					.rx_bytes = 0,
					.tx_bytes = 4894208,
					.hold_max_us = 12,
					.proc_max_us = 7};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	REQUIRE(f);
	CHECK_EQ(server_log_stats(f, true, &st), 0);
	fclose(f);
	REQUIRE(buf);
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (!CHECK(has(buf, keys[i])))
			fprintf(stderr, "  missing %s in %s", keys[i], buf);
	CHECK(!has(buf, "\"client\"")); /* not a test's line */
	CHECK_EQ(strchr(buf, '\n') - buf, (long long)len - 1);
	free(buf);

	st.final = false;
	f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK_EQ(server_log_stats(f, true, &st), 0);
	fclose(f);
	CHECK(has(buf, "\"stats\":\"window\""));
	free(buf);

	f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK_EQ(server_log_stats(f, false, &st), 0);
	fclose(f);
	CHECK(has(buf, "proc_p50 700 ns"));
	CHECK(has(buf, "proc_p99 2 us"));
	CHECK(has(buf, "hold_p99 4 us"));
	free(buf);

	f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK_EQ(server_log_test(f, true, &t), 0);
	fclose(f);
	CHECK(has(buf, "\"hold_max_us\":12"));
	CHECK(has(buf, "\"proc_max_us\":7"));
	CHECK(has(buf, "\"tx_bytes\":4894208"));
	CHECK(has(buf, "\"rx_bytes\":0"));
	CHECK(has(buf, "\"client\":\"192.0.2.1\""));
	CHECK(has(buf, "\"overloaded\":false"));
	free(buf);
}

/* A test's text line prints sizes, rates and times for people: no tc "Kb" spelling. */
TEST(a_tests_log_line_prints_human_units)
{
	struct server_test_summary t = {.client = "192.0.2.1",
					.reason = "stop",
					.elapsed_ms = 2000,
					.duration_ms = 2000,
					.interval_us = 10000,
					.nflows = 2,
					.rx_bytes = 0,
					.tx_bytes = 4894208,
					.probes_answered = 200,
					.hold_max_us = 1500,
					.proc_max_us = 7};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	REQUIRE(f);
	CHECK_EQ(server_log_test(f, false, &t), 0);
	fclose(f);
	REQUIRE(buf);
	if (!CHECK(has(buf, "from 192.0.2.1 end stop elapsed 2 s granted 2 s interval 10 ms")) ||
	    !CHECK(has(buf, "rx 0 B tx 4.89 MB (19.6 Mbit/s)")) ||
	    !CHECK(has(buf, "probes answered 200 dropped 0 held 0")) ||
	    !CHECK(has(buf, "hold_max 1.5 ms proc_max 7 us overloaded no")))
		fprintf(stderr, "  got %s", buf);
	CHECK(!has(buf, "Kb"));
	CHECK_EQ(strchr(buf, '\n') - buf, (long long)len - 1);
	free(buf);
}
