/* SPDX-License-Identifier: MIT */
/*
 * test-hserver.c - the responsiveness server's connections (http/hserver.h) under the
 * attacks a stranger can make: heads sent a byte at a time, one host's many addresses,
 * idle HTTP/2 streams kept up with PINGs, HPACK amplification, downloads with a window
 * held shut. Each connection is one end of a socketpair handed to the server with
 * the client address we choose, in the server's own loop run from here; the other end
 * is the attacker or the legitimate client, speaking bytes written by hand (HTTP/1.1,
 * and HTTP/2 frames with HPACK from the static table). The server's loop runs on a
 * simulated clock that moves only when a test pumps it, a millisecond at a time: its
 * deadlines (one sweep a second) are tested at their full length, exactly, in a few
 * milliseconds of real time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/loop.h"
#include "harness.h"
#include "http/hserver.h"
#include "http/hthread.h"

static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

enum { F_DATA = 0, F_HEADERS = 1, F_RST = 3, F_SETTINGS = 4, F_PING = 6, F_GOAWAY = 7 };

static struct sockaddr_storage addr(const char *ip)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *a = (void *)&ss;

		a->sin6_family = AF_INET6;
		inet_pton(AF_INET6, ip, &a->sin6_addr);
	} else {
		struct sockaddr_in *a = (void *)&ss;

		a->sin_family = AF_INET;
		inet_pton(AF_INET, ip, &a->sin_addr);
	}
	return ss;
}

/* A connection from ip: the client's end, or -1 when the pair could not be made. */
static int connect_from(struct hserver *h, const char *ip)
{
	struct sockaddr_storage peer = addr(ip);
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	hserver_accept(h, sv[1], &peer);
	return sv[0];
}

/* The loops' clock: it stands still but for what pump() moves it on. */
static uint64_t sim_ns = 1000ULL * 1000000000ULL;

static uint64_t sim_now_ns(void *ctx)
{
	(void)ctx;
	return sim_ns;
}

static const struct loop_clock sim_clock = {.now_ns = sim_now_ns};

static struct loop *sim_loop(void)
{
	return loop_new_clock(&sim_clock);
}

/* Run the loop for ms milliseconds of its clock: a millisecond at a time, each
 * dispatching what is ready and due (at most 64 wake-ups, so a server that keeps
 * itself busy cannot hold the clock still). */
static void pump(struct loop *l, int ms)
{
	for (int i = 0; i < ms; i++) {
		sim_ns += 1000000;
		for (int n = 0; n < 64 && loop_once(l, 0) > 0; n++)
			;
	}
}

static bool send_all(int fd, const void *buf, size_t len)
{
	return send(fd, buf, len, MSG_NOSIGNAL) == (ssize_t)len;
}

/* What the server sent so far (up to len - 1 bytes, NUL-terminated): its length, or
 * -1 once the server closed and nothing is left. */
static ssize_t recv_some(int fd, char *buf, size_t len)
{
	ssize_t n = recv(fd, buf, len - 1, 0);

	if (n == 0)
		return -1;
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	return n;
}

/* Whether the server closed fd: the rest read and thrown away. */
static bool closed_by_server(int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		;
	return n == 0;
}

/* A legitimate GET of the small object over HTTP/1.1: whether it got its 200. */
static bool small_get(struct loop *l, int fd)
{
	static const char req[] = "GET /api/v1/small HTTP/1.1\r\nHost: x\r\n\r\n";
	char buf[1024];

	if (fd < 0 || !send_all(fd, req, sizeof(req) - 1))
		return false;
	pump(l, 50);
	return recv_some(fd, buf, sizeof(buf)) > 0 && !strncmp(buf, "HTTP/1.1 200", 12);
}

static void config(struct hserver_config *c)
{
	hserver_config_defaults(c);
}

/* ---- HTTP/2 by hand ---- */

static size_t frame(uint8_t *out, uint8_t type, uint8_t flags, uint32_t stream, const void *p,
		    size_t len)
{
	out[0] = (uint8_t)(len >> 16), out[1] = (uint8_t)(len >> 8), out[2] = (uint8_t)len;
	out[3] = type, out[4] = flags;
	out[5] = (uint8_t)(stream >> 24) & 0x7f, out[6] = (uint8_t)(stream >> 16);
	out[7] = (uint8_t)(stream >> 8), out[8] = (uint8_t)stream;
	if (len)
		memcpy(out + 9, p, len);
	return 9 + len;
}

/* The preface and a SETTINGS frame (initial window: window, when not -1). */
static bool h2_open(int fd, long window)
{
	uint8_t buf[64], set[6] = {0, 4};
	size_t n;

	memcpy(buf, preface, sizeof(preface) - 1);
	n = sizeof(preface) - 1;
	set[2] = (uint8_t)(window >> 24), set[3] = (uint8_t)(window >> 16);
	set[4] = (uint8_t)(window >> 8), set[5] = (uint8_t)window;
	n += frame(buf + n, F_SETTINGS, 0, 0, set, window < 0 ? 0 : sizeof(set));
	return send_all(fd, buf, n);
}

/* HEADERS of a GET of path on stream id (HPACK: static table and literals). */
static size_t h2_get(uint8_t *out, uint32_t id, const char *path, bool end_stream)
{
	uint8_t block[160];
	size_t n = 0, pl = strlen(path);

	block[n++] = 0x82; /* :method GET */
	block[n++] = 0x86; /* :scheme http */
	block[n++] = 0x04; /* :path, literal without indexing */
	block[n++] = (uint8_t)pl;
	memcpy(block + n, path, pl);
	n += pl;
	block[n++] = 0x01; /* :authority */
	block[n++] = 1;
	block[n++] = 'x';
	return frame(out, F_HEADERS, 0x4 | (end_stream ? 0x1 : 0), id, block, n);
}

static bool h2_ping(int fd)
{
	uint8_t buf[32];

	return send_all(fd, buf, frame(buf, F_PING, 0, 0, "pingpong", 8));
}

/* Frames of the given type in what the server sent (buf, n bytes); the first one's
 * payload and length through *at, *len when asked. */
static int frames_of(const uint8_t *buf, size_t n, uint8_t type, const uint8_t **at, size_t *len)
{
	int count = 0;

	for (size_t off = 0; off + 9 <= n;) {
		size_t fl = (size_t)buf[off] << 16 | (size_t)buf[off + 1] << 8 | buf[off + 2];

		if (off + 9 + fl > n)
			break;
		if (buf[off + 3] == type && !count++ && at) {
			*at = buf + off + 9;
			*len = fl;
		}
		off += 9 + fl;
	}
	return count;
}

/* ---- heads and slots ---- */

/* A head sent a byte at a time is closed at the head deadline, though bytes keep
 * coming well within the idle time. */
TEST(a_dripped_head_ends_at_its_deadline)
{
	static const char head[] = "GET /api/v1/small HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaa";
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	bool open = true;
	int fd, ms = 0;

	REQUIRE(l);
	config(&c);
	c.head_ms = 1000;
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	fd = connect_from(h, "192.0.2.1");
	REQUIRE(fd >= 0);
	/* a byte every 100 ms for up to 3.5 s: the idle time (10 s) never runs out */
	for (size_t i = 0; i < 35 && open; i++) {
		if (!send_all(fd, head + i % (sizeof(head) - 1), 1))
			open = false;
		pump(l, 100);
		ms += 100;
		open = open && hserver_conns(h) == 1;
	}
	CHECK(!open);
	/* not before the deadline, and by the sweep after it */
	CHECK(ms >= 1000 && ms <= 2000);
	CHECK(closed_by_server(fd));
	close(fd);
	hserver_free(h);
	loop_free(l);
}

/* A TLS handshake, or any first bytes, that never complete: the same deadline. */
TEST(a_connection_that_says_nothing_ends_at_the_head_deadline)
{
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	int fd;

	REQUIRE(l);
	config(&c);
	c.head_ms = 1000;
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	fd = connect_from(h, "192.0.2.1");
	REQUIRE(fd >= 0);
	REQUIRE(send_all(fd, "PRI * HTTP", 10)); /* a part of the HTTP/2 preface */
	pump(l, 999);
	CHECK_EQ(hserver_conns(h), 1); /* not before the deadline */
	pump(l, 1001);
	CHECK_EQ(hserver_conns(h), 0);
	CHECK(closed_by_server(fd));
	close(fd);
	hserver_free(h);
	loop_free(l);
}

/* Every slot taken by heads half sent, from eight addresses: a new client still gets
 * in, and so does a client of one of those addresses. */
TEST(a_full_server_evicts_the_oldest_half_sent_head)
{
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	int att[16], fd;

	REQUIRE(l);
	config(&c);
	c.max_conns = 16;
	c.max_conns_per_addr = 2;
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	for (int i = 0; i < 16; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "198.51.100.%d", i / 2 + 1);
		att[i] = connect_from(h, ip);
		REQUIRE(att[i] >= 0);
		REQUIRE(send_all(att[i], "GET / HTTP/1.1\r\nX: ", 19));
		pump(l, 5);
	}
	REQUIRE_EQ(hserver_conns(h), 16);
	fd = connect_from(h, "192.0.2.7");
	CHECK(small_get(l, fd));
	CHECK(closed_by_server(att[0])); /* the oldest made room */
	CHECK_EQ(hserver_conns(h), 16);
	close(fd);
	for (int i = 0; i < 16; i++)
		close(att[i]);
	hserver_free(h);
	loop_free(l);
}

/*
 * Full, with a client holding two connections that have not sent their heads yet (the
 * oldest of all) and four networks near or at their share dripping heads: a newcomer
 * from a fifth network makes room in the network that holds the most, not by closing
 * the client's. (Most-idle-first alone closed the client's: dripped bytes are fresh.)
 */
TEST(a_full_server_evicts_from_the_network_holding_most)
{
	struct loop *l = loop_new();
	struct hserver *h;
	struct hserver_config c;
	int mine[2], att[14], fd;

	REQUIRE(l);
	config(&c);
	c.max_conns = 16;
	c.max_conns_per_addr = 4;
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	for (int i = 0; i < 2; i++)
		REQUIRE((mine[i] = connect_from(h, "192.0.2.7")) >= 0);
	pump(l, 5);
	for (int i = 0; i < 14; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "198.51.100.%d", i / 4 + 1);
		REQUIRE((att[i] = connect_from(h, ip)) >= 0);
		REQUIRE(send_all(att[i], "GET / HTTP/1.1\r\nX: ", 19));
		pump(l, 2);
	}
	REQUIRE_EQ(hserver_conns(h), 16);
	fd = connect_from(h, "198.51.100.9");
	REQUIRE(fd >= 0);
	pump(l, 5);
	CHECK_EQ(hserver_conns(h), 16);
	CHECK(closed_by_server(att[0])); /* the oldest of 198.51.100.1, which holds 4 */
	CHECK(!closed_by_server(att[12]));
	CHECK(small_get(l, mine[0]));
	CHECK(small_get(l, mine[1]));
	close(fd);
	for (int i = 0; i < 2; i++)
		close(mine[i]);
	for (int i = 0; i < 14; i++)
		close(att[i]);
	hserver_free(h);
	loop_free(l);
}

/* Downloads in progress are never evicted: the newcomer is refused instead. */
TEST(a_full_server_keeps_its_downloads)
{
	static const char req[] = "GET /api/v1/large HTTP/1.1\r\nHost: x\r\n\r\n";
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	int dl[4], fd;
	char buf[256];

	REQUIRE(l);
	config(&c);
	c.max_conns = 4;
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	for (int i = 0; i < 4; i++) {
		dl[i] = connect_from(h, "198.51.100.1");
		REQUIRE(dl[i] >= 0);
		REQUIRE(send_all(dl[i], req, sizeof(req) - 1));
	}
	pump(l, 50);
	fd = connect_from(h, "192.0.2.7");
	CHECK(!small_get(l, fd));
	CHECK_EQ(hserver_conns(h), 4);
	for (int i = 0; i < 4; i++) {
		CHECK(recv_some(dl[i], buf, sizeof(buf)) > 0);
		close(dl[i]);
	}
	close(fd);
	hserver_free(h);
	loop_free(l);
}

/* At an address's share, its downloads in progress (HTTP/1.1 and HTTP/2) are kept and
 * its newcomer refused; another address is served. */
TEST(an_address_at_its_share_keeps_its_downloads)
{
	static const char req[] = "GET /api/v1/large HTTP/1.1\r\nHost: x\r\n\r\n";
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	uint8_t buf[256];
	int d1, d2, fd;

	REQUIRE(l);
	config(&c);
	c.max_conns_per_addr = 2;
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	d1 = connect_from(h, "198.51.100.1");
	d2 = connect_from(h, "198.51.100.1");
	REQUIRE(d1 >= 0 && d2 >= 0);
	REQUIRE(send_all(d1, req, sizeof(req) - 1));
	REQUIRE(h2_open(d2, -1));
	REQUIRE(send_all(d2, buf, h2_get(buf, 1, "/api/v1/large", true)));
	pump(l, 100);
	fd = connect_from(h, "198.51.100.1");
	CHECK(!small_get(l, fd));
	close(fd);
	fd = connect_from(h, "192.0.2.7");
	CHECK(small_get(l, fd));
	CHECK_EQ(hserver_conns(h), 3);
	close(fd);
	close(d1);
	close(d2);
	hserver_free(h);
	loop_free(l);
}

/* One host with sixteen addresses of its /64 holds its share, not every slot: a
 * neighbour in another /64 is served. */
TEST(one_v6_host_counts_as_its_prefix)
{
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	int att[16], fd;

	REQUIRE(l);
	config(&c);
	c.max_conns = 16;
	c.max_conns_per_addr = 4;
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	for (int i = 0; i < 16; i++) {
		char ip[64];

		snprintf(ip, sizeof(ip), "2001:db8:1:2::%x", i + 1);
		att[i] = connect_from(h, ip);
		REQUIRE(att[i] >= 0);
		REQUIRE(send_all(att[i], "GET / HTTP/1.1\r\nX: ", 19));
		pump(l, 5);
	}
	CHECK_EQ(hserver_conns(h), 4);
	fd = connect_from(h, "2001:db8:1:3::1");
	CHECK(small_get(l, fd));
	close(fd);
	for (int i = 0; i < 16; i++)
		close(att[i]);
	hserver_free(h);
	loop_free(l);
}

/* ---- HTTP/2 ---- */

/* PINGs are no progress: a connection whose only stream is idle ends at the idle
 * time however often it pings. */
TEST(pings_do_not_keep_an_idle_h2_connection)
{
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	uint8_t buf[256];
	bool open = true;
	int fd, ms = 0;

	REQUIRE(l);
	config(&c);
	c.idle_ms = 1000;
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	fd = connect_from(h, "192.0.2.1");
	REQUIRE(fd >= 0);
	REQUIRE(h2_open(fd, -1));
	REQUIRE(send_all(fd, buf, h2_get(buf, 1, "/api/v1/small", false)));
	for (int i = 0; i < 40 && open; i++) {
		open = h2_ping(fd);
		pump(l, 100);
		ms += 100;
		open = open && hserver_conns(h) == 1;
	}
	CHECK(!open);
	/* at the idle time, not before, by the sweep after it */
	CHECK(ms >= 1000 && ms <= 2000);
	close(fd);
	hserver_free(h);
	loop_free(l);
}

/* 512 connections with 128 streams each, open with headers only: the server's memory
 * (the heap: ours and nghttp2's) stays under 64 MB, and per stream the budget lets in,
 * well under a kilobyte. */
TEST(idle_h2_streams_cost_little_memory)
{
	enum { CONNS = 512, STREAMS = 128 };
	static int fds[CONNS];
	static uint8_t out[STREAMS * 40];
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	struct rlimit rl;
	struct mallinfo2 before, after;
	size_t used;
	int opened = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 2 * CONNS + 64) {
		rl.rlim_cur = rl.rlim_max < 2 * CONNS + 64 ? rl.rlim_max : 2 * CONNS + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < 2 * CONNS + 64)
		SKIP("needs 1100 file descriptors (ulimit -n)");
	REQUIRE(l);
	config(&c);
	c.max_conns = CONNS;
	c.max_conns_per_addr = CONNS;
	c.max_streams = CONNS * STREAMS; /* no budget: the cost of each stream shows */
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	before = mallinfo2();
	for (int i = 0; i < CONNS; i++) {
		size_t n = 0;

		fds[i] = connect_from(h, "192.0.2.1");
		REQUIRE(fds[i] >= 0);
		opened++;
		REQUIRE(h2_open(fds[i], -1));
		for (uint32_t s = 0; s < STREAMS; s++)
			n += h2_get(out + n, 2 * s + 1, "/api/v1/small", false);
		REQUIRE(send_all(fds[i], out, n));
		loop_once(l, 0);
		loop_once(l, 0);
	}
	pump(l, 100);
	after = mallinfo2();
	used = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
	CHECK_EQ(hserver_conns(h), CONNS);
	printf("  %d connections x %d idle streams: %zu KB of heap, %zu bytes a stream\n", CONNS,
	       STREAMS, used >> 10, used / (CONNS * STREAMS));
	CHECK(used < 64u << 20);
	for (int i = 0; i < opened; i++)
		close(fds[i]);
	hserver_free(h);
	loop_free(l);
}

/* The server-wide stream budget: past it new streams are reset, old ones stay. */
TEST(the_stream_budget_refuses_new_streams)
{
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	uint8_t out[64 * 40], in[8192];
	const uint8_t *p;
	size_t n = 0, len;
	ssize_t got;
	int fd;

	REQUIRE(l);
	config(&c);
	c.max_streams = 8;
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	fd = connect_from(h, "192.0.2.1");
	REQUIRE(fd >= 0);
	REQUIRE(h2_open(fd, -1));
	for (uint32_t s = 0; s < 10; s++)
		n += h2_get(out + n, 2 * s + 1, "/api/v1/small", false);
	REQUIRE(send_all(fd, out, n));
	pump(l, 100);
	got = recv_some(fd, (char *)in, sizeof(in));
	REQUIRE(got > 0);
	CHECK_EQ(frames_of(in, (size_t)got, F_HEADERS, NULL, NULL), 8);
	CHECK_EQ(frames_of(in, (size_t)got, F_RST, &p, &len), 2);
	CHECK_EQ(hserver_conns(h), 1);
	close(fd);
	hserver_free(h);
	loop_free(l);
}

/* The server advertises SETTINGS_MAX_HEADER_LIST_SIZE; a block that names a 4000-byte
 * field 16000 times ends the connection at once (GOAWAY ENHANCE_YOUR_CALM), and the
 * wake-up that read it did not pin the loop. */
TEST(hpack_amplification_ends_the_connection)
{
	enum { REFS = 16000 };
	static uint8_t block[4100 + REFS], out[sizeof(block) + 200];
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	uint8_t in[4096];
	const uint8_t *p;
	size_t n = 0, len, b = 0;
	ssize_t got;
	bool advertised = false;
	uint64_t t0, worst = 0;
	int fd;

	REQUIRE(l);
	config(&c);
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	fd = connect_from(h, "192.0.2.1");
	REQUIRE(fd >= 0);
	REQUIRE(h2_open(fd, -1));
	pump(l, 20);
	got = recv_some(fd, (char *)in, sizeof(in));
	REQUIRE(got > 0);
	REQUIRE(frames_of(in, (size_t)got, F_SETTINGS, &p, &len) >= 1);
	for (size_t i = 0; i + 6 <= len; i += 6)
		advertised |= p[i] == 0 && p[i + 1] == 6 &&
			      (p[i + 2] << 24 | p[i + 3] << 16 | p[i + 4] << 8 | p[i + 5]) <= 65536;
	CHECK(advertised);
	/* :method GET, :scheme http, :path /, then "x-a: 4000 x 'a'" into the dynamic
	 * table (literal with incremental indexing, new name), then index 62 again */
	block[b++] = 0x82, block[b++] = 0x86, block[b++] = 0x84;
	block[b++] = 0x40, block[b++] = 3, memcpy(block + b, "x-a", 3), b += 3;
	block[b++] = 0x7f, block[b++] = (4000 - 127) % 128 | 0x80, block[b++] = (4000 - 127) / 128;
	memset(block + b, 'a', 4000), b += 4000;
	for (int i = 0; i < REFS; i++)
		block[b++] = 0x80 | 62;
	/* one HEADERS frame (the default max frame size is 16384: CONTINUATION after) */
	n += frame(out + n, F_HEADERS, 0, 1, block, 16384);
	n += frame(out + n, 9 /* CONTINUATION */, 0x4, 1, block + 16384, b - 16384);
	REQUIRE(send_all(fd, out, n));
	for (int i = 0; i < 20; i++) {
		t0 = loop_now_ns();
		loop_once(l, 0);
		if (loop_now_ns() - t0 > worst)
			worst = loop_now_ns() - t0;
	}
	got = recv_some(fd, (char *)in, sizeof(in));
	CHECK(got > 0 && frames_of(in, (size_t)got, F_GOAWAY, &p, &len) == 1 && len >= 8 &&
	      p[7] == 0xb /* ENHANCE_YOUR_CALM */);
	CHECK(closed_by_server(fd));
	CHECK_EQ(hserver_conns(h), 0);
	printf("  the longest wake-up: %.2f ms\n", (double)worst / 1e6);
	/* decoding the whole block takes ~23 ms; a descheduled wake-up on a loaded
	 * machine may take a few */
	CHECK(worst < 10000000);
	close(fd);
	hserver_free(h);
	loop_free(l);
}

/* A download whose window the client holds at zero, kept up with PINGs, ends at the
 * time limit (reset), as one that flows does. */
TEST(a_zero_window_download_ends_at_max_time)
{
	struct loop *l = sim_loop();
	struct hserver *h;
	struct hserver_config c;
	uint8_t buf[256], in[8192];
	const uint8_t *p;
	size_t len;
	bool reset = false;
	int fd, ms = 0;

	REQUIRE(l);
	config(&c);
	c.max_time_ms = 1000;
	c.idle_ms = 60000;
	REQUIRE_EQ(hserver_new(l, &c, &h), 0);
	fd = connect_from(h, "192.0.2.1");
	REQUIRE(fd >= 0);
	REQUIRE(h2_open(fd, 0));
	REQUIRE(send_all(fd, buf, h2_get(buf, 1, "/api/v1/large", true)));
	for (int i = 0; i < 40 && !reset; i++) {
		ssize_t got;

		CHECK(h2_ping(fd));
		pump(l, 100);
		ms += 100;
		got = recv_some(fd, (char *)in, sizeof(in));
		reset = got > 0 && frames_of(in, (size_t)got, F_RST, &p, &len) == 1;
	}
	CHECK(reset);
	/* a sweep past the time limit, not before, by the sweep after that */
	CHECK(ms > 2000 && ms <= 3000);
	close(fd);
	hserver_free(h);
	loop_free(l);
}

/* On its own thread (http/hthread.h): a GET over loopback is answered while this
 * thread does nothing, and stopping with a connection still open frees everything. */
TEST(the_http_thread_serves_and_stops)
{
	static const char req[] = "GET /api/v1/small HTTP/1.1\r\nHost: x\r\n\r\n";
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	struct hserver_config c;
	struct hthread *t = NULL;
	struct timeval tv = {.tv_sec = 5};
	char buf[1024];
	ssize_t n;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), fd;

	REQUIRE(lfd >= 0);
	REQUIRE(bind(lfd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(lfd, 16) == 0);
	REQUIRE(getsockname(lfd, (struct sockaddr *)&a, &alen) == 0);
	config(&c);
	REQUIRE_EQ(hthread_start(lfd, &c, &t), 0);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	REQUIRE(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	REQUIRE(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	REQUIRE(send_all(fd, req, sizeof(req) - 1));
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	CHECK(n > 12 && !strncmp(buf, "HTTP/1.1 200", 12));
	hthread_stop(t); /* the connection is still open: closed here */
	CHECK(closed_by_server(fd));
	close(fd);
	close(lfd);
}
