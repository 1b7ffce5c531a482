/* SPDX-License-Identifier: MIT */
/*
 * test-probe.c - the client side's building blocks: the table of tests (flent's
 * flows, markings and series names) and the probe streams, against a responder in
 * this process on loopback (UDP) and the kernel's own echo replies (ICMP).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "meter/load-tests.h"
#include "meter/probe.h"

TEST(rrul_has_flents_flows_and_probes)
{
	struct test_spec s;

	REQUIRE_EQ(test_spec_get("rrul", 0, &s), 0);
	REQUIRE_EQ(s.nflows, 8);
	CHECK_STR(s.flows[0].name, "TCP upload BE");
	CHECK_EQ(s.flows[0].direction, PROTO_UPLOAD);
	CHECK_STR(s.flows[1].name, "TCP upload BK");
	CHECK_EQ(s.flows[1].tos, 0x20);
	CHECK_STR(s.flows[2].name, "TCP upload CS5");
	CHECK_EQ(s.flows[2].tos, 0xa0);
	CHECK_STR(s.flows[7].name, "TCP download EF");
	CHECK_EQ(s.flows[7].tos, 0xb8);
	CHECK_EQ(s.flows[7].direction, PROTO_DOWNLOAD);
	REQUIRE_EQ(s.nprobes, 4);
	CHECK_STR(s.probes[0].name, "Ping (ms) UDP EF");
	CHECK_EQ(s.probes[0].tos, 0xb8);
	CHECK_STR(s.probes[1].name, "Ping (ms) UDP BK");
	CHECK_STR(s.probes[2].name, "Ping (ms) UDP BE");
	CHECK_STR(s.probes[3].name, "Ping (ms) ICMP");
	CHECK_EQ(s.probes[3].kind, PROBE_ICMP);
}

TEST(rrul_be_is_all_best_effort)
{
	struct test_spec s;

	REQUIRE_EQ(test_spec_get("rrul_be", 0, &s), 0);
	REQUIRE_EQ(s.nflows, 8);
	for (size_t i = 0; i < s.nflows; i++)
		CHECK_EQ(s.flows[i].tos, 0);
	CHECK_STR(s.flows[3].name, "TCP upload BE4");
	CHECK_STR(s.probes[2].name, "Ping (ms) UDP BE3");
}

TEST(nup_and_ndown_follow_streams)
{
	struct test_spec s;

	REQUIRE_EQ(test_spec_get("tcp_nup", 3, &s), 0);
	REQUIRE_EQ(s.nflows, 3);
	CHECK_STR(s.flows[2].name, "TCP upload::3");
	REQUIRE_EQ(test_spec_get("tcp_ndown", 0, &s), 0);
	CHECK_EQ(s.nflows, 4);
	CHECK_STR(s.flows[0].name, "TCP download::1");
	CHECK_EQ(s.flows[0].direction, PROTO_DOWNLOAD);
	CHECK_EQ(test_spec_get("tcp_nup", TEST_MAX_STREAMS + 1, &s), -ERANGE);
}

TEST(ping_has_no_flows_and_unknown_tests_fail)
{
	struct test_spec s, before;

	REQUIRE_EQ(test_spec_get("ping", 0, &s), 0);
	CHECK_EQ(s.nflows, 0);
	CHECK_EQ(s.nprobes, 2);
	memset(&before, 0x5a, sizeof(before));
	s = before;
	CHECK_EQ(test_spec_get("nosuch", 0, &s), -ENOENT);
	CHECK(!memcmp(&s, &before, sizeof(s))); /* untouched on failure */
	CHECK_EQ(test_spec_get("tcp_upload", 0, &s), 0);
	CHECK_STR(s.flows[0].name, "TCP upload");
}

static int loopback_udp(struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)addr, sizeof(*addr)) ||
	    getsockname(fd, (struct sockaddr *)addr, &len))
		return -1;
	return fd;
}

static int wait_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 2000) == 1 ? 0 : -1;
}

TEST(udp_probe_round_trip_less_server_time)
{
	struct sockaddr_in srv, from;
	socklen_t fl = sizeof(from);
	struct probe_stream ps;
	struct probe_reply rep;
	struct proto_probe req;
	uint8_t token[PROTO_TOKEN_LEN] = {1, 2, 3}, buf[2048];
	ssize_t n;
	int fd = loopback_udp(&srv);

	REQUIRE(fd >= 0);
	REQUIRE_EQ(
	    probe_open(&ps, PROBE_UDP, 2, 0xb8, (struct sockaddr *)&srv, sizeof(srv), NULL, 0, 64),
	    0);
	CHECK_EQ(probe_receive(&ps, &rep), 0); /* nothing yet */
	REQUIRE_EQ(probe_send(&ps, token, 7, probe_now_ns()), 0);
	REQUIRE_EQ(wait_readable(fd), 0);
	n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	CHECK_EQ(n, 64); /* padded to the granted length */
	REQUIRE_EQ(proto_probe_decode(buf, (size_t)n, &req), 0);
	CHECK_EQ(req.magic, PROTO_PROBE_MAGIC_REQ);
	CHECK_EQ(req.stream, 2);
	CHECK_EQ(req.seq, 7);
	CHECK(!memcmp(req.token, token, sizeof(token)));

	/* The server "held" it for 50 ms: that is not network delay. */
	usleep(60000);
	req.magic = PROTO_PROBE_MAGIC_REP;
	req.server_rx_ns = 1000000000ULL;
	req.server_tx_ns = req.server_rx_ns + 50000000ULL;
	n = proto_probe_encode(&req, buf, sizeof(buf));
	REQUIRE(n > 0);
	REQUIRE(sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, fl) == n);
	/* Garbage first: ignored, not an answer. */
	REQUIRE(sendto(fd, "junk", 4, 0, (struct sockaddr *)&from, fl) == 4);
	REQUIRE_EQ(wait_readable(ps.fd), 0);
	CHECK_EQ(probe_receive(&ps, &rep), 1);
	CHECK_EQ(rep.seq, 7);
	CHECK(rep.rtt_ns >= 10000000ULL && rep.rtt_ns < 40000000ULL);
	CHECK_EQ(probe_receive(&ps, &rep), 2); /* the junk */
	probe_close(&ps);
	close(fd);
}

TEST(icmp_probe_or_an_honest_error)
{
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	uint8_t token[PROTO_TOKEN_LEN] = {0};
	struct probe_stream ps;
	struct probe_reply rep;
	int r = probe_open(&ps, PROBE_ICMP, 3, 0, (struct sockaddr *)&lo, sizeof(lo), NULL, 0, 0);

	if (r == -EPERM || r == -EACCES)
		SKIP("neither a ping socket nor a raw socket is allowed here");
	REQUIRE_EQ(r, 0);
	REQUIRE_EQ(probe_send(&ps, token, 70000, probe_now_ns()), 0);
	/* A raw socket may also see our own request on loopback: read until the reply. */
	r = 0;
	for (int i = 0; i < 4 && r != 1; i++) {
		REQUIRE_EQ(wait_readable(ps.fd), 0);
		r = probe_receive(&ps, &rep);
	}
	REQUIRE_EQ(r, 1);
	CHECK_EQ(rep.seq, 70000); /* the full 32-bit sequence, from the payload */
	CHECK(rep.rtt_ns > 0 && rep.rtt_ns < 1000000000ULL);
	probe_close(&ps);
}
