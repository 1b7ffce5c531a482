/* SPDX-License-Identifier: MIT */
/*
 * test-lab-frame.c - src/lab/frame.c: parsing vnet + IPv4/IPv6 + TCP/UDP/ICMP into a
 * flow key and qdisc/wire sizes, rejecting truncated and inconsistent packets and bad
 * GSO headers without touching the output; CE marking with a valid IPv4 checksum;
 * segmenting TSO super-packets as a NIC would, and merging the segments again as GRO
 * would (the same super-packet back; nothing merged that GRO would not merge). Packets come from
 * lab-packets.h, whose checker completes and verifies every checksum.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "lab-packets.h"
#include "lab/frame.h"

static uint8_t buf[LAB_MAX_PACKET + 64];
static uint8_t out[LAB_MAX_SEGS * (LAB_VNET_HDR_LEN + 120) + LAB_MAX_PACKET];
static uint32_t seg_len[LAB_MAX_SEGS];

static int build(const struct lab_pkt_spec *s)
{
	int n = lab_pkt_build(s, buf, sizeof(buf));

	CHECK(n > 0);
	return n;
}

/* Set a vnet header field (host-endian), e.g. vnet_set16(2, 9999) for hdr_len. */
static void vnet_set16(unsigned off, uint16_t v)
{
	memcpy(buf + off, &v, sizeof(v));
}

static uint8_t *ip_hdr(uint8_t *pkt)
{
	return pkt + LAB_VNET_HDR_LEN;
}

static void set_ipv4_tot_len(unsigned tot)
{
	lab_pkt_wr16(ip_hdr(buf) + 2, (uint16_t)tot);
	lab_pkt_ipv4_csum(ip_hdr(buf));
}

/* Parse must fail with -EBADMSG and leave the output as it was. */
static bool rejects(size_t len)
{
	struct lab_frame f, before;
	int r;

	memset(&f, 0x5a, sizeof(f));
	before = f;
	r = lab_frame_parse(buf, len, &f);
	return r == -EBADMSG && !memcmp(&f, &before, sizeof(f));
}

TEST(parse_ipv4_tcp_fills_key_and_sizes_of_a_full_frame)
{
	struct lab_pkt_spec s;
	struct lab_frame f;
	int n;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.payload_len = 1460;
	s.tos = 0xb8 | LAB_ECN_ECT0;
	n = build(&s);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
	CHECK_EQ(f.ip_version, 4);
	CHECK_EQ(f.l4_proto, IPPROTO_TCP);
	CHECK_EQ(f.tos, 0xba);
	CHECK_EQ(f.l4_off, 20);
	CHECK_EQ(f.hdr_len, 40);
	CHECK_EQ(f.ip_len, 1500);
	CHECK_EQ(f.segs, 1);
	CHECK_EQ(f.l2_bytes, 1514);
	CHECK_EQ(f.wire_bytes, 1538);
	CHECK_EQ(f.gso_type, 0);
	CHECK_EQ(f.gso_size, 0);
	CHECK_EQ(f.vnet_flags, 0);
	CHECK(!memcmp(f.key.src, s.src, 4));
	CHECK(!memcmp(f.key.dst, s.dst, 4));
	for (int i = 4; i < 16; i++)
		CHECK_EQ(f.key.src[i] | f.key.dst[i], 0);
	CHECK_EQ(f.key.sport, 40000);
	CHECK_EQ(f.key.dport, 5201);
	CHECK_EQ(f.key.proto, IPPROTO_TCP);
	CHECK_EQ(f.key.family, 4);
}

TEST(parse_ipv6_tcp_fills_key_traffic_class_and_sizes)
{
	struct lab_pkt_spec s;
	struct lab_frame f;
	int n;

	lab_pkt_init(&s, 6, IPPROTO_TCP);
	s.payload_len = 1428;
	s.tcp_opt_len = 12;
	s.tos = 0x28 | LAB_ECN_ECT1;
	s.sport = 1;
	s.dport = 65535;
	n = build(&s);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
	CHECK_EQ(f.ip_version, 6);
	CHECK_EQ(f.tos, 0x29);
	CHECK_EQ(f.l4_off, 40);
	CHECK_EQ(f.hdr_len, 72);
	CHECK_EQ(f.ip_len, 1500);
	CHECK_EQ(f.l2_bytes, 1514);
	CHECK_EQ(f.wire_bytes, 1538);
	CHECK(!memcmp(f.key.src, s.src, 16));
	CHECK(!memcmp(f.key.dst, s.dst, 16));
	CHECK_EQ(f.key.sport, 1);
	CHECK_EQ(f.key.dport, 65535);
	CHECK_EQ(f.key.family, 6);
	CHECK_EQ(f.key.proto, IPPROTO_TCP);
}

TEST(parse_udp_takes_ports_and_an_8_byte_header)
{
	struct lab_pkt_spec s;
	struct lab_frame f;

	for (int family = 4; family <= 6; family += 2) {
		lab_pkt_init(&s, family, IPPROTO_UDP);
		s.sport = 5353;
		s.dport = 9911;
		s.payload_len = 100;
		REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
		CHECK_EQ(f.l4_proto, IPPROTO_UDP);
		CHECK_EQ(f.key.proto, IPPROTO_UDP);
		CHECK_EQ(f.key.sport, 5353);
		CHECK_EQ(f.key.dport, 9911);
		CHECK_EQ(f.hdr_len, f.l4_off + 8);
		CHECK_EQ(f.ip_len, f.l4_off + 108u);
		CHECK_EQ(f.l2_bytes, f.ip_len + 14);
	}
}

TEST(parse_small_icmp_counts_the_60_byte_minimum_frame)
{
	struct lab_pkt_spec s;
	struct lab_frame f;

	lab_pkt_init(&s, 4, IPPROTO_ICMP); /* ping -s 0: 28-byte IP packet */
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.ip_len, 28);
	CHECK_EQ(f.l2_bytes, 60);
	CHECK_EQ(f.wire_bytes, 84);
	CHECK_EQ(f.key.sport, 0);
	CHECK_EQ(f.key.dport, 0);
	CHECK_EQ(f.key.proto, IPPROTO_ICMP);
	CHECK_EQ(f.hdr_len, f.l4_off);

	s.payload_len = 18; /* 46 bytes of IP: exactly the minimum */
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.l2_bytes, 60);
	s.payload_len = 19;
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.l2_bytes, 61);

	lab_pkt_init(&s, 6, IPPROTO_ICMPV6);
	s.payload_len = 56; /* ping6 default: 104-byte IP packet */
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.l4_proto, IPPROTO_ICMPV6);
	CHECK_EQ(f.l2_bytes, 118);
	CHECK_EQ(f.key.sport, 0);
}

TEST(parse_ipv4_options_move_the_l4_header)
{
	struct lab_pkt_spec s;
	struct lab_frame f;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.ip_opt_len = 8;
	s.tcp_opt_len = 12;
	s.payload_len = 10;
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.l4_off, 28);
	CHECK_EQ(f.hdr_len, 28 + 32);
	CHECK_EQ(f.key.sport, 40000);
	CHECK_EQ(f.key.dport, 5201);
}

TEST(parse_ignores_bytes_after_the_ip_total_length)
{
	struct lab_pkt_spec s;
	struct lab_frame f;
	int n;

	lab_pkt_init(&s, 4, IPPROTO_UDP);
	s.payload_len = 10;
	n = build(&s);
	memset(buf + n, 0xee, 30);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n + 30, &f), 0);
	CHECK_EQ(f.ip_len, 38);
	CHECK_EQ(f.l2_bytes, 60);

	lab_pkt_init(&s, 6, IPPROTO_TCP);
	s.payload_len = 1000;
	n = build(&s);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n + 7, &f), 0);
	CHECK_EQ(f.ip_len, 1060);
}

TEST(parse_ignores_the_vnet_hdr_len)
{
	struct lab_pkt_spec s;
	struct lab_frame a, b;
	int n;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.tcp_opt_len = 12;
	s.payload_len = 10 * 1448;
	s.gso_size = 1448;
	n = build(&s);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &a), 0);
	vnet_set16(2, 9999);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &b), 0);
	CHECK_EQ(b.hdr_len, 52);
	CHECK_EQ(b.l2_bytes, a.l2_bytes);
	vnet_set16(2, 0);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &b), 0);
	CHECK_EQ(b.hdr_len, 52);
	CHECK_EQ(b.segs, 10);
}

TEST(parse_fragments_have_ports_only_in_the_first)
{
	struct lab_pkt_spec s;
	struct lab_frame f;

	lab_pkt_init(&s, 4, IPPROTO_UDP);
	s.frag_off = 0x2000; /* MF, offset 0 */
	s.payload_len = 1472;
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.key.sport, 40000);
	CHECK_EQ(f.key.dport, 5201);
	CHECK_EQ(f.hdr_len, f.l4_off);
	CHECK_EQ(f.l2_bytes, 1514);

	s.frag_off = 185; /* offset 1480 bytes, last fragment: bytes look like ports */
	s.payload_len = 100;
	s.payload_seed = 3;
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.key.sport, 0);
	CHECK_EQ(f.key.dport, 0);
	CHECK_EQ(f.key.proto, IPPROTO_UDP);
	CHECK_EQ(f.hdr_len, 20);
	CHECK_EQ(f.ip_len, 120);
}

TEST(parse_keeps_unknown_ipv6_next_headers_without_ports)
{
	struct lab_pkt_spec s;
	struct lab_frame f;

	lab_pkt_init(&s, 6, 0); /* hop-by-hop options: not walked */
	s.payload_len = 64;
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.l4_proto, 0);
	CHECK_EQ(f.key.proto, 0);
	CHECK_EQ(f.key.sport, 0);
	CHECK_EQ(f.hdr_len, 40);
	CHECK_EQ(f.ip_len, 104);
}

TEST(parse_gso_super_packet_counts_every_frame)
{
	struct lab_pkt_spec s;
	struct lab_frame f;
	int n;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.tcp_opt_len = 12;
	s.payload_len = 44 * 1448;
	s.gso_size = 1448;
	n = build(&s);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
	CHECK_EQ(f.gso_type, LAB_PKT_GSO_TCPV4);
	CHECK_EQ(f.gso_size, 1448);
	CHECK_EQ(f.vnet_flags, LAB_PKT_F_NEEDS_CSUM);
	CHECK_EQ(f.csum_start, 20);
	CHECK_EQ(f.csum_offset, 16);
	CHECK_EQ(f.hdr_len, 52);
	CHECK_EQ(f.segs, 44);
	CHECK_EQ(f.ip_len, 52 + 44 * 1448);
	CHECK_EQ(f.l2_bytes, f.ip_len + 43 * 52 + 14 * 44);
	CHECK_EQ(f.l2_bytes, 44 * 1514);
	CHECK_EQ(f.wire_bytes, 44 * 1538);

	/* One byte more: a 45th frame of 52 + 1 + 14 bytes, padded to 60. */
	s.payload_len = 44 * 1448 + 1;
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.segs, 45);
	CHECK_EQ(f.l2_bytes, 44 * 1514 + 67);
	s.tcp_opt_len = 0;
	s.gso_size = 1460;
	s.payload_len = 3 * 1460 + 1;
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.segs, 4);
	CHECK_EQ(f.l2_bytes, 3 * 1514 + 60);

	lab_pkt_init(&s, 6, IPPROTO_TCP);
	s.tcp_opt_len = 12;
	s.payload_len = 20 * 1428 - 500;
	s.gso_size = 1428;
	s.gso_ecn = true;
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&s), &f), 0);
	CHECK_EQ(f.gso_type, LAB_PKT_GSO_TCPV6 | LAB_PKT_GSO_ECN);
	CHECK_EQ(f.hdr_len, 72);
	CHECK_EQ(f.segs, 20);
	CHECK_EQ(f.l2_bytes, f.ip_len + 19 * 72 + 14 * 20);
	CHECK_EQ(f.wire_bytes, f.l2_bytes + 20 * 24);
}

TEST(parse_rejects_every_truncation_and_leaves_output_untouched)
{
	static const struct {
		int family;
		uint8_t proto;
		uint32_t payload;
		uint16_t gso;
	} cases[] = {
	    {4, IPPROTO_TCP, 100, 0},	  {6, IPPROTO_TCP, 100, 0},	{4, IPPROTO_UDP, 30, 0},
	    {6, IPPROTO_UDP, 0, 0},	  {4, IPPROTO_ICMP, 0, 0},	{6, IPPROTO_ICMPV6, 8, 0},
	    {4, IPPROTO_TCP, 3000, 1448}, {6, IPPROTO_TCP, 3000, 1428},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct lab_pkt_spec s;
		struct lab_frame f;
		int n, bad = 0;

		lab_pkt_init(&s, cases[c].family, cases[c].proto);
		s.payload_len = cases[c].payload;
		s.gso_size = cases[c].gso;
		s.tcp_opt_len = cases[c].proto == IPPROTO_TCP ? 12 : 0;
		s.ip_opt_len = cases[c].family == 4 ? 4 : 0;
		n = build(&s);
		REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
		for (int cut = 0; cut < n; cut++)
			bad += !rejects((size_t)cut);
		CHECK_EQ(bad, 0);

		/* Headers cut short while the IP length still agrees with the buffer. */
		if (cases[c].family == 4 && !cases[c].gso) {
			unsigned l4 = 24 + (cases[c].proto == IPPROTO_TCP ? 32u : 8u);

			for (unsigned tot = 24; tot < l4; tot++) {
				build(&s);
				set_ipv4_tot_len(tot);
				if (cases[c].proto == IPPROTO_ICMP && tot >= 28)
					break; /* type, code, checksum suffice */
				CHECK(rejects(LAB_VNET_HDR_LEN + tot));
			}
		}
	}
}

TEST(parse_rejects_inconsistent_ip_and_l4_headers)
{
	struct lab_pkt_spec s;
	struct lab_frame f;
	size_t n;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.payload_len = 200;
	n = (size_t)build(&s);
	ip_hdr(buf)[0] = 0x44; /* IHL 4 */
	CHECK(rejects(n));
	n = (size_t)build(&s);
	ip_hdr(buf)[0] = 0x55; /* version 5 */
	CHECK(rejects(n));
	n = (size_t)build(&s);
	set_ipv4_tot_len(19); /* shorter than the IP header */
	CHECK(rejects(n));
	n = (size_t)build(&s);
	set_ipv4_tot_len((unsigned)n - LAB_VNET_HDR_LEN + 1); /* beyond the buffer */
	CHECK(rejects(n));
	n = (size_t)build(&s);
	ip_hdr(buf)[20 + 12] = 4 << 4; /* TCP data offset 16 bytes */
	CHECK(rejects(n));
	n = (size_t)build(&s);
	ip_hdr(buf)[20 + 12] = 15 << 4; /* 60 bytes of TCP header, only 220 - 20 present: ok */
	CHECK_EQ(lab_frame_parse(buf, n, &f), 0);
	CHECK_EQ(f.hdr_len, 80);
	s.payload_len = 39;
	n = (size_t)build(&s);
	ip_hdr(buf)[20 + 12] = 15 << 4; /* 60 bytes of TCP header, 59 present */
	CHECK(rejects(n));

	lab_pkt_init(&s, 6, IPPROTO_TCP);
	n = (size_t)build(&s);
	lab_pkt_wr16(ip_hdr(buf) + 4, 21); /* payload length beyond the buffer */
	CHECK(rejects(n));
	lab_pkt_wr16(ip_hdr(buf) + 4, 19); /* TCP header cut short by the IP length */
	CHECK(rejects(n));

	lab_pkt_init(&s, 4, IPPROTO_UDP);
	s.payload_len = 20;
	n = (size_t)build(&s);
	lab_pkt_wr16(ip_hdr(buf) + 20 + 4, 29); /* UDP length beyond the IP payload */
	CHECK(rejects(n));
	lab_pkt_wr16(ip_hdr(buf) + 20 + 4, 7);
	CHECK(rejects(n));
	lab_pkt_wr16(ip_hdr(buf) + 20 + 4, 8); /* shorter is fine: the rest is padding */
	CHECK_EQ(lab_frame_parse(buf, n, &f), 0);

	/* A partial checksum must lie inside the packet. */
	lab_pkt_init(&s, 4, IPPROTO_UDP);
	s.partial_csum = true;
	s.payload_len = 10;
	n = (size_t)build(&s);
	CHECK_EQ(lab_frame_parse(buf, n, &f), 0);
	vnet_set16(8, 17); /* csum_offset: 20 + 17 + 2 > 38 */
	CHECK(rejects(n));
	vnet_set16(8, 16);
	CHECK_EQ(lab_frame_parse(buf, n, &f), 0);
	vnet_set16(6, 0xffff);
	CHECK(rejects(n));
}

TEST(parse_rejects_bad_gso_headers)
{
	struct lab_pkt_spec s;
	struct lab_frame f;
	size_t n;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.payload_len = 10 * 1448;
	s.gso_size = 1448;
	n = (size_t)build(&s);
	REQUIRE_EQ(lab_frame_parse(buf, n, &f), 0);

	buf[1] = LAB_PKT_GSO_UDP;
	CHECK(rejects(n));
	buf[1] = LAB_PKT_GSO_TCPV6; /* on an IPv4 packet */
	CHECK(rejects(n));
	buf[1] = LAB_PKT_GSO_ECN; /* ECN bit without a type */
	CHECK(rejects(n));
	buf[1] = 2;
	CHECK(rejects(n));
	buf[1] = LAB_PKT_GSO_TCPV4;
	vnet_set16(4, 0); /* gso_size 0 */
	CHECK(rejects(n));
	vnet_set16(4, 100); /* 145 segments */
	CHECK(rejects(n));
	vnet_set16(4, (uint16_t)((10 * 1448 + 63) / 64)); /* exactly 64 segments */
	CHECK_EQ(lab_frame_parse(buf, n, &f), 0);
	CHECK_EQ(f.segs, LAB_MAX_SEGS);
	vnet_set16(4, (uint16_t)((10 * 1448 + 63) / 64 - 1)); /* 65 */
	CHECK(rejects(n));
	vnet_set16(4, 1448);
	buf[0] = 0; /* GSO without NEEDS_CSUM */
	CHECK(rejects(n));
	buf[0] = LAB_PKT_F_NEEDS_CSUM;
	vnet_set16(6, 24); /* csum_start not at the TCP header */
	CHECK(rejects(n));
	vnet_set16(6, 20);
	vnet_set16(8, 6); /* csum_offset not the TCP checksum */
	CHECK(rejects(n));
	vnet_set16(8, 16);
	CHECK_EQ(lab_frame_parse(buf, n, &f), 0);

	/* GSO on a packet without payload, on UDP, on a fragment. */
	s.payload_len = 0;
	n = (size_t)build(&s);
	CHECK(rejects(n));
	lab_pkt_init(&s, 4, IPPROTO_UDP);
	s.payload_len = 3000;
	s.partial_csum = true;
	n = (size_t)build(&s);
	buf[1] = LAB_PKT_GSO_TCPV4;
	vnet_set16(4, 1000);
	CHECK(rejects(n));
	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.payload_len = 3000;
	s.gso_size = 1000;
	s.frag_off = 0x2000;
	n = (size_t)build(&s);
	CHECK(rejects(n));
}

TEST(packet_checker_catches_bad_checksums)
{
	struct lab_pkt_spec s;
	int n;

	/* The checks below lean on lab_pkt_verify(): make sure it can fail. */
	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.payload_len = 100;
	n = build(&s);
	CHECK_EQ(lab_pkt_verify(buf, (size_t)n), LAB_PKT_OK);
	buf[n - 1] ^= 1;
	CHECK_EQ(lab_pkt_verify(buf, (size_t)n), LAB_PKT_E_L4_CSUM);
	n = build(&s);
	ip_hdr(buf)[1] ^= 3;
	CHECK_EQ(lab_pkt_verify(buf, (size_t)n), LAB_PKT_E_IP_CSUM);

	s.partial_csum = true;
	n = build(&s);
	CHECK_EQ(lab_pkt_verify(buf, (size_t)n), LAB_PKT_OK);
	ip_hdr(buf)[20 + 17] ^= 1; /* pseudo-header sum off by one */
	CHECK_EQ(lab_pkt_verify(buf, (size_t)n), LAB_PKT_E_L4_CSUM);
	n = build(&s);
	vnet_set16(8, 14); /* the device would write over the window */
	CHECK_EQ(lab_pkt_verify(buf, (size_t)n), LAB_PKT_E_L4_CSUM);
	n = build(&s);
	CHECK_EQ(lab_pkt_complete(buf, (size_t)n), 0);
	CHECK_EQ(buf[0], 0);
	CHECK_EQ(lab_pkt_verify(buf, (size_t)n), LAB_PKT_OK);
	buf[n - 1] ^= 1; /* once complete, the payload is covered */
	CHECK_EQ(lab_pkt_verify(buf, (size_t)n), LAB_PKT_E_L4_CSUM);
}

TEST(set_ce_marks_ect_ipv4_and_keeps_the_header_checksum)
{
	static const uint8_t ect[] = {LAB_ECN_ECT0, LAB_ECN_ECT1};
	struct lab_pkt_spec s;
	struct lab_frame f, g;

	for (size_t i = 0; i < sizeof(ect); i++) {
		int n;

		lab_pkt_init(&s, 4, IPPROTO_TCP);
		s.tos = (uint8_t)(0x88 | ect[i]);
		s.payload_len = 500;
		n = build(&s);
		REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
		CHECK_EQ(lab_frame_set_ce(buf, (size_t)n, &f), 0);
		CHECK_EQ(f.tos, 0x8b);
		CHECK_EQ(ip_hdr(buf)[1], 0x8b);
		CHECK_EQ(lab_pkt_verify(buf, (size_t)n), LAB_PKT_OK);
		REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &g), 0);
		CHECK_EQ(g.tos, 0x8b);
	}
}

TEST(set_ce_checksum_equals_full_recompute_for_every_ip_id)
{
	struct lab_pkt_spec s;
	struct lab_frame f;
	unsigned wrong = 0, zero_before = 0, zero_after = 0;

	/* Every 16-bit ID: every checksum value, 0x0000 (-0's neighbour) included. */
	lab_pkt_init(&s, 4, IPPROTO_UDP);
	s.tos = LAB_ECN_ECT1;
	for (uint32_t id = 0; id <= 0xffff; id++) {
		uint8_t *ip = ip_hdr(buf);
		uint16_t incremental;
		int n;

		s.ip_id = (uint16_t)id;
		n = build(&s);
		if (lab_frame_parse(buf, (size_t)n, &f)) {
			wrong++;
			continue;
		}
		zero_before += lab_pkt_rd16(ip + 10) == 0;
		lab_frame_set_ce(buf, (size_t)n, &f);
		incremental = lab_pkt_rd16(ip + 10);
		lab_pkt_ipv4_csum(ip);
		wrong += incremental != lab_pkt_rd16(ip + 10);
		zero_after += incremental == 0;
	}
	CHECK_EQ(wrong, 0);
	CHECK(zero_before > 0);
	CHECK(zero_after > 0);
}

TEST(set_ce_refuses_not_ect_and_leaves_ce_alone)
{
	static uint8_t copy[2000];
	struct lab_pkt_spec s;
	struct lab_frame f;

	for (int family = 4; family <= 6; family += 2) {
		int n;

		lab_pkt_init(&s, family, IPPROTO_TCP);
		s.tos = 0xfc; /* Not-ECT with every other bit set */
		s.payload_len = 100;
		n = build(&s);
		REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
		memcpy(copy, buf, (size_t)n);
		CHECK_EQ(lab_frame_set_ce(buf, (size_t)n, &f), -EINVAL);
		CHECK(!memcmp(copy, buf, (size_t)n));
		CHECK_EQ(f.tos, 0xfc);

		s.tos = LAB_ECN_CE;
		n = build(&s);
		REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
		memcpy(copy, buf, (size_t)n);
		CHECK_EQ(lab_frame_set_ce(buf, (size_t)n, &f), 0);
		CHECK(!memcmp(copy, buf, (size_t)n));
		CHECK_EQ(f.tos, LAB_ECN_CE);
	}
}

TEST(set_ce_ipv6_changes_only_the_ecn_bits)
{
	static uint8_t copy[2000];
	struct lab_pkt_spec s;
	struct lab_frame f;
	uint8_t *ip = ip_hdr(buf);
	int n;

	lab_pkt_init(&s, 6, IPPROTO_UDP);
	s.tos = 0xb8 | LAB_ECN_ECT0; /* EF */
	s.payload_len = 100;
	n = build(&s);
	ip[1] |= 0x0a; /* a flow label: 0xabcde */
	ip[2] = 0xbc;
	ip[3] = 0xde;
	memcpy(copy, buf, (size_t)n);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
	CHECK_EQ(lab_frame_set_ce(buf, (size_t)n, &f), 0);
	CHECK_EQ(f.tos, 0xbb);
	CHECK_EQ(ip[0], 0x6b);
	CHECK_EQ(ip[1], 0xba);
	CHECK(!memcmp(copy + LAB_VNET_HDR_LEN + 2, buf + LAB_VNET_HDR_LEN + 2,
		      (size_t)n - LAB_VNET_HDR_LEN - 2));
	CHECK_EQ(lab_pkt_verify(buf, (size_t)n), LAB_PKT_OK);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
	CHECK_EQ(f.tos, 0xbb);
}

/*
 * Segment buf[0..n) and check every segment against the super-packet built from s:
 * lengths, sequence numbers, IDs, flags, vnet headers, checksums, payload bytes.
 * Returns the number of segments (or the error).
 */
static int check_segments(const struct lab_pkt_spec *s, int n, uint8_t tos)
{
	struct lab_frame f;
	size_t pos = 0, space;
	uint32_t payload = 0, l2 = 0;
	int segs, ok = 1;

	if (lab_frame_parse(buf, (size_t)n, &f))
		return -EBADMSG;
	space = lab_frame_segment_space(&f);
	segs = lab_frame_segment(buf, (size_t)n, &f, out, sizeof(out), seg_len, LAB_MAX_SEGS);
	if (!CHECK_EQ(segs, f.segs))
		return segs;
	for (int i = 0; i < segs; i++) {
		const uint8_t *o = out + pos, *ip = o + LAB_VNET_HDR_LEN, *th = ip + f.l4_off;
		struct lab_pkt_vnet v;
		struct lab_frame g;
		uint32_t plen = seg_len[i] - LAB_VNET_HDR_LEN - f.hdr_len;
		uint8_t flags = s->tcp_flags;

		if (i > 0)
			flags &= (uint8_t)~LAB_TCP_CWR;
		if (i + 1 < segs)
			flags &= (uint8_t) ~(LAB_TCP_FIN | LAB_TCP_PSH);
		lab_pkt_vnet_read(o, &v);
		ok &= CHECK_EQ(lab_frame_parse(o, seg_len[i], &g), 0);
		ok &= CHECK_EQ(g.segs, 1);
		ok &= CHECK_EQ(g.tos, tos);
		ok &= CHECK_EQ(plen, i + 1 < segs ? s->gso_size : s->payload_len - payload);
		ok &= CHECK_EQ(v.flags, LAB_PKT_F_NEEDS_CSUM);
		ok &= CHECK_EQ(v.gso_type, 0);
		ok &= CHECK_EQ(v.gso_size, 0);
		ok &= CHECK_EQ(v.csum_start, f.l4_off);
		ok &= CHECK_EQ(v.csum_offset, 16);
		ok &= CHECK_EQ(lab_pkt_rd32(th + 4), s->seq + payload);
		ok &= CHECK_EQ(lab_pkt_rd32(th + 8), s->ack);
		ok &= CHECK_EQ(th[13], flags);
		if (s->family == 4) {
			ok &= CHECK_EQ(lab_pkt_rd16(ip + 2), f.hdr_len + plen);
			ok &= CHECK_EQ(lab_pkt_rd16(ip + 4), (uint16_t)(s->ip_id + i));
		} else {
			ok &= CHECK_EQ(lab_pkt_rd16(ip + 4), f.hdr_len - 40 + plen);
		}
		ok &= CHECK_EQ(lab_pkt_verify(o, seg_len[i]), LAB_PKT_OK);
		for (uint32_t j = 0; j < plen; j++)
			if (o[LAB_VNET_HDR_LEN + f.hdr_len + j] !=
			    lab_pkt_byte(s->seq + payload + j))
				ok &= CHECK_EQ(j, plen); /* the payload is the stream's */
		if (!ok)
			break;
		payload += plen;
		l2 += g.l2_bytes;
		pos += seg_len[i];
	}
	CHECK_EQ(payload, s->payload_len);
	CHECK_EQ(pos, space);
	CHECK_EQ(l2, f.l2_bytes);
	return segs;
}

TEST(segment_ipv4_gso_like_tso)
{
	struct lab_pkt_spec s;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.tcp_opt_len = 12;
	s.payload_len = 44 * 1448;
	s.gso_size = 1448;
	s.gso_ecn = true;
	s.seq = 0xffff0000; /* wraps inside the super-packet */
	s.tcp_flags = LAB_TCP_ACK | LAB_TCP_PSH | LAB_TCP_FIN | LAB_TCP_CWR | LAB_TCP_ECE;
	CHECK_EQ(check_segments(&s, build(&s), LAB_ECN_ECT0), 44);
	CHECK_EQ(seg_len[0], 10 + 1500);
	CHECK_EQ(seg_len[43], 10 + 1500);
}

TEST(segment_odd_last_segment_and_wrapping_ip_id)
{
	struct lab_pkt_spec s;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.ip_opt_len = 4;
	s.payload_len = 3 * 1448 + 100;
	s.gso_size = 1448;
	s.ip_id = 0xfffe;
	CHECK_EQ(check_segments(&s, build(&s), LAB_ECN_ECT0), 4);
	CHECK_EQ(seg_len[3], 10 + 44 + 100);
	CHECK_EQ(lab_pkt_rd16(out + 3 * (10 + 44 + 1448) + 10 + 4), 1); /* 0xfffe + 3 */

	s.payload_len = 1; /* a super-packet of one tiny segment */
	CHECK_EQ(check_segments(&s, build(&s), LAB_ECN_ECT0), 1);
}

TEST(segment_ipv6_gso_like_tso)
{
	struct lab_pkt_spec s;

	lab_pkt_init(&s, 6, IPPROTO_TCP);
	s.tcp_opt_len = 12;
	s.payload_len = 45 * 1428 + 7;
	s.gso_size = 1428;
	s.tcp_flags = LAB_TCP_ACK | LAB_TCP_CWR;
	CHECK_EQ(check_segments(&s, build(&s), LAB_ECN_ECT0), 46);
	CHECK_EQ(seg_len[0], 10 + 1500);
	CHECK_EQ(seg_len[45], 10 + 72 + 7);
}

TEST(segment_after_ce_marks_every_segment)
{
	struct lab_pkt_spec s;
	struct lab_frame f;
	int n;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.tos = 0x20 | LAB_ECN_ECT1;
	s.payload_len = 5 * 1448;
	s.gso_size = 1448;
	n = build(&s);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
	REQUIRE_EQ(lab_frame_set_ce(buf, (size_t)n, &f), 0);
	CHECK_EQ(check_segments(&s, n, 0x23), 5);
}

TEST(segment_copies_a_non_gso_packet_as_it_is)
{
	struct lab_pkt_spec s;
	struct lab_frame f;
	int n;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.payload_len = 1000;
	s.partial_csum = true; /* stays partial: the receiving tun completes it */
	n = build(&s);
	memset(buf + n, 0xee, 5); /* trailing bytes are not part of the packet */
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n + 5, &f), 0);
	CHECK_EQ(lab_frame_segment_space(&f), (size_t)n);
	CHECK_EQ(lab_frame_segment(buf, (size_t)n + 5, &f, out, sizeof(out), seg_len, 1), 1);
	CHECK_EQ(seg_len[0], n);
	CHECK(!memcmp(out, buf, (size_t)n));

	lab_pkt_init(&s, 6, IPPROTO_UDP);
	s.payload_len = 20000;
	n = build(&s);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
	CHECK_EQ(lab_frame_segment(buf, (size_t)n, &f, out, sizeof(out), seg_len, 1), 1);
	CHECK(!memcmp(out, buf, (size_t)n));
}

TEST(segment_reports_enospc_when_out_or_nseg_is_short)
{
	struct lab_pkt_spec s;
	struct lab_frame f;
	size_t space;
	int n;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.payload_len = 10 * 1448;
	s.gso_size = 1448;
	n = build(&s);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
	space = lab_frame_segment_space(&f);
	CHECK_EQ(space, 10 * (10 + 40) + 10 * 1448);
	CHECK_EQ(lab_frame_segment(buf, (size_t)n, &f, out, space - 1, seg_len, 10), -ENOSPC);
	CHECK_EQ(lab_frame_segment(buf, (size_t)n, &f, out, space, seg_len, 9), -ENOSPC);
	CHECK_EQ(lab_frame_segment(buf, (size_t)n, &f, out, space, seg_len, 10), 10);
	/* A buffer shorter than the frame says is refused. */
	CHECK_EQ(lab_frame_segment(buf, (size_t)n - 1, &f, out, space, seg_len, 10), -EBADMSG);

	lab_pkt_init(&s, 4, IPPROTO_UDP);
	n = build(&s);
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
	CHECK_EQ(lab_frame_segment(buf, (size_t)n, &f, out, (size_t)n - 1, seg_len, 1), -ENOSPC);
	CHECK_EQ(lab_frame_segment(buf, (size_t)n, &f, out, (size_t)n, seg_len, 0), -ENOSPC);
}

/* buf's super-packet (from s), segmented into out, merged back segment by segment into
 * acc: the number of segments merged in (after the first), or -1 at the first refusal. */
static uint8_t acc[LAB_MAX_PACKET];
static size_t acc_len;
static struct lab_frame acc_f;

static int remerge(int n)
{
	struct lab_frame f, g;
	size_t pos = 0;
	int segs;

	if (lab_frame_parse(buf, (size_t)n, &f))
		return -2;
	segs = lab_frame_segment(buf, (size_t)n, &f, out, sizeof(out), seg_len, LAB_MAX_SEGS);
	for (int i = 0; i < segs; i++) {
		if (lab_frame_parse(out + pos, seg_len[i], &g))
			return -2;
		if (i == 0) {
			if (!lab_frame_mergeable(out, &g))
				return -1;
			memcpy(acc, out, seg_len[0]);
			acc_len = seg_len[0];
			acc_f = g;
		} else if (lab_frame_merge(acc, &acc_len, sizeof(acc), &acc_f, out + pos, &g)) {
			return -1;
		}
		pos += seg_len[i];
	}
	return segs - 1;
}

/* acc equals the super-packet in buf: headers but the vnet hdr_len and the TCP
 * checksum field, which the builder completes; the payload; the parse. */
static void check_same_as_built(int n, const struct lab_pkt_spec *s)
{
	struct lab_frame f, g;
	struct lab_pkt_vnet v;
	unsigned csum;

	REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &f), 0);
	REQUIRE_EQ(acc_len, (size_t)n);
	REQUIRE_EQ(lab_frame_parse(acc, acc_len, &g), 0);
	CHECK_EQ(g.segs, f.segs);
	CHECK_EQ(g.gso_size, f.gso_size);
	CHECK_EQ(g.l2_bytes, f.l2_bytes);
	CHECK_EQ(g.hdr_len, f.hdr_len);
	lab_pkt_vnet_read(acc, &v);
	CHECK_EQ(v.gso_type, s->family == 4 ? 1 : 4);
	CHECK_EQ(v.hdr_len, f.hdr_len);
	csum = LAB_VNET_HDR_LEN + f.l4_off + 16u;
	CHECK(!memcmp(acc + LAB_VNET_HDR_LEN, buf + LAB_VNET_HDR_LEN, csum - LAB_VNET_HDR_LEN));
	CHECK(!memcmp(acc + csum + 2, buf + csum + 2, (size_t)n - csum - 2));
	CHECK_EQ(lab_pkt_verify(acc, acc_len), LAB_PKT_OK);
}

TEST(merge_gives_back_the_super_packet_its_segments_came_from)
{
	struct lab_pkt_spec s;
	int n;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.tcp_opt_len = 12;
	s.tcp_flags = LAB_TCP_ACK | LAB_TCP_PSH; /* PSH on the last segment only */
	s.payload_len = 44 * 1448;
	s.gso_size = 1448;
	s.seq = 0xffff0000; /* wraps inside */
	s.ip_id = 0xfffe;
	n = build(&s);
	CHECK_EQ(remerge(n), 43);
	check_same_as_built(n, &s);

	lab_pkt_init(&s, 6, IPPROTO_TCP);
	s.tcp_flags = LAB_TCP_ACK;
	s.tcp_opt_len = 12;
	s.payload_len = 5 * 1428 + 7; /* a short last segment */
	s.gso_size = 1428;
	n = build(&s);
	CHECK_EQ(remerge(n), 5);
	check_same_as_built(n, &s);
}

TEST(merge_stops_at_the_largest_packet_and_segment_count)
{
	struct lab_pkt_spec s;
	int n;

	/* 45 full segments of 1448 make 65,160 bytes of payload: the 46th would not fit
	 * in an IPv4 packet, so the merge stops there. */
	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.tcp_flags = LAB_TCP_ACK;
	s.payload_len = 44 * 1448;
	s.gso_size = 1448;
	n = build(&s);
	REQUIRE_EQ(remerge(n), 43);
	s.seq += s.payload_len;
	s.payload_len = 1448;
	s.gso_size = 0;
	s.partial_csum = true;
	n = build(&s);
	{
		struct lab_frame g;

		REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &g), 0);
		CHECK_EQ(lab_frame_merge(acc, &acc_len, sizeof(acc), &acc_f, buf, &g), 0);
		s.seq += 1448;
		n = build(&s);
		REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &g), 0);
		CHECK_EQ(lab_frame_merge(acc, &acc_len, sizeof(acc), &acc_f, buf, &g), -EAGAIN);
		CHECK_EQ(acc_f.segs, 45);
	}

	/* 64 segments of 100 bytes is LAB_MAX_SEGS: the 65th is refused. */
	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.tcp_flags = LAB_TCP_ACK;
	s.payload_len = 64 * 100;
	s.gso_size = 100;
	n = build(&s);
	REQUIRE_EQ(remerge(n), 63);
	s.seq += s.payload_len;
	s.payload_len = 100;
	s.gso_size = 0;
	s.partial_csum = true;
	n = build(&s);
	{
		struct lab_frame g;

		REQUIRE_EQ(lab_frame_parse(buf, (size_t)n, &g), 0);
		CHECK_EQ(lab_frame_merge(acc, &acc_len, sizeof(acc), &acc_f, buf, &g), -EAGAIN);
	}
}

/* One mergeable full segment in acc, then buf built from s2 offered to it. */
static int merge_pair(const struct lab_pkt_spec *s1, const struct lab_pkt_spec *s2)
{
	struct lab_frame g;
	uint8_t before[LAB_MAX_PACKET];
	size_t before_len;
	int n, r;

	n = build(s1);
	if (!CHECK_EQ(lab_frame_parse(buf, (size_t)n, &acc_f), 0))
		return -EBADMSG;
	memcpy(acc, buf, (size_t)n);
	acc_len = (size_t)n;
	memcpy(before, acc, acc_len);
	before_len = acc_len;
	n = build(s2);
	if (!CHECK_EQ(lab_frame_parse(buf, (size_t)n, &g), 0))
		return -EBADMSG;
	r = lab_frame_merge(acc, &acc_len, sizeof(acc), &acc_f, buf, &g);
	if (r) /* a refusal changes nothing */
		CHECK(acc_len == before_len && !memcmp(acc, before, acc_len));
	return r;
}

TEST(merge_refuses_what_gro_would_not_merge)
{
	struct lab_pkt_spec a, b;

	lab_pkt_init(&a, 4, IPPROTO_TCP);
	a.tcp_flags = LAB_TCP_ACK;
	a.tcp_opt_len = 12;
	a.payload_len = 1448;
	a.partial_csum = true;
	b = a;
	b.seq = a.seq + 1448;
	b.ip_id = (uint16_t)(a.ip_id + 1);
	CHECK_EQ(merge_pair(&a, &b), 0); /* the baseline: these two merge */

	struct lab_pkt_spec c = b;
	c.seq += 1; /* a gap */
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);
	c = b;
	c.sport++; /* another flow */
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);
	c = b;
	c.ack++; /* another ACK number */
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);
	c = b;
	c.tos = LAB_ECN_CE; /* marked on the way: GRO keeps it apart */
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);
	c = b;
	c.payload_len = 0; /* a pure ACK */
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);
	c = b;
	c.payload_len = 1449; /* more than the MSS */
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);
	c = b;
	c.tcp_flags = LAB_TCP_ACK | LAB_TCP_FIN;
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);
	c = b;
	c.tcp_flags = LAB_TCP_ACK | LAB_TCP_CWR;
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);
	c = b;
	c.partial_csum = false; /* a complete checksum: not how a tun hands segments up */
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);
	c = b;
	c.tcp_opt_len = 0; /* other options */
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);
	c = b;
	c.ttl--;
	CHECK_EQ(merge_pair(&a, &c), -EAGAIN);

	/* A short segment, or PSH, ends a super-packet: nothing more merges after it. */
	c = a;
	c.payload_len = 1000;
	b.seq = a.seq + 1000;
	CHECK_EQ(merge_pair(&c, &b), -EAGAIN);
	c = a;
	c.tcp_flags = LAB_TCP_ACK | LAB_TCP_PSH;
	b.seq = a.seq + 1448;
	CHECK_EQ(merge_pair(&c, &b), -EAGAIN);
	/* PSH and the window of the segment merged in are taken. */
	c = b;
	c.tcp_flags = LAB_TCP_ACK | LAB_TCP_PSH;
	c.window = (uint16_t)(a.window + 5);
	CHECK_EQ(merge_pair(&a, &c), 0);
	CHECK_EQ(acc[LAB_VNET_HDR_LEN + acc_f.l4_off + 13], LAB_TCP_ACK | LAB_TCP_PSH);
	CHECK_EQ(lab_pkt_rd16(acc + LAB_VNET_HDR_LEN + acc_f.l4_off + 14), c.window);
	CHECK_EQ(lab_pkt_verify(acc, acc_len), LAB_PKT_OK);
	/* UDP and IPv4 options never begin a merge. */
	lab_pkt_init(&c, 4, IPPROTO_UDP);
	c.payload_len = 100;
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&c), &acc_f), 0);
	CHECK(!lab_frame_mergeable(buf, &acc_f));
	c = a;
	c.ip_opt_len = 4;
	REQUIRE_EQ(lab_frame_parse(buf, (size_t)build(&c), &acc_f), 0);
	CHECK(!lab_frame_mergeable(buf, &acc_f));
}
