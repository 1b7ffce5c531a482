/* SPDX-License-Identifier: MIT */
/*
 * lab-packets.h - build and check the packets the lab's tun devices carry, for tests:
 * a 10-byte virtio_net_hdr (host-endian, as src/lab/frame.h reads it) followed by an
 * IPv4 or IPv6 packet with a TCP, UDP or ICMP header and a payload. Header-only.
 *
 *	struct lab_pkt_spec s;
 *	lab_pkt_init(&s, 4, IPPROTO_TCP);
 *	s.payload_len = 44 * 1448;
 *	s.gso_size = 1448;               // a TSO super-packet, as the kernel hands it
 *	n = lab_pkt_build(&s, buf, sizeof(buf));
 *	CHECK_EQ(lab_pkt_verify(buf, n), LAB_PKT_OK);
 *
 * Checksums are what a sending host's stack leaves: a complete L4 checksum by
 * default; with partial_csum or gso_size, vnet NEEDS_CSUM with csum_start at the L4
 * header and the folded pseudo-header sum (not complemented, length = the whole L4
 * length) in the checksum field, for the device to complete. The IPv4 header
 * checksum is always complete.
 *
 * Payload bytes follow lab_pkt_byte(pos): TCP uses the sequence number of each byte
 * as pos, so segments can be checked against the stream; other protocols use
 * payload_seed + offset. A non-first IPv4 fragment (offset != 0) carries only payload.
 */
#ifndef DEBLOAT_TESTS_LAB_PACKETS_H
#define DEBLOAT_TESTS_LAB_PACKETS_H

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define LAB_PKT_VNET_LEN     10
#define LAB_PKT_F_NEEDS_CSUM 1
#define LAB_PKT_GSO_NONE     0
#define LAB_PKT_GSO_TCPV4    1
#define LAB_PKT_GSO_UDP	     3
#define LAB_PKT_GSO_TCPV6    4
#define LAB_PKT_GSO_ECN	     0x80

/* TCP flag bits (byte 13 of the TCP header). */
#define LAB_TCP_FIN 0x01
#define LAB_TCP_SYN 0x02
#define LAB_TCP_RST 0x04
#define LAB_TCP_PSH 0x08
#define LAB_TCP_ACK 0x10
#define LAB_TCP_URG 0x20
#define LAB_TCP_ECE 0x40
#define LAB_TCP_CWR 0x80

/* ECN codepoints (low two bits of TOS / traffic class). */
#define LAB_ECN_NOT_ECT 0
#define LAB_ECN_ECT1	1
#define LAB_ECN_ECT0	2
#define LAB_ECN_CE	3

struct lab_pkt_spec {
	int family;	 /* 4 or 6 */
	uint8_t proto;	 /* IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_ICMPV6, other */
	uint8_t src[16]; /* IPv4 in the first 4 bytes */
	uint8_t dst[16];
	uint16_t sport, dport; /* TCP/UDP; for ICMP echo: identifier (sport), sequence (dport) */
	uint8_t tos;	       /* TOS / traffic class, ECN bits included */
	uint8_t ttl;
	uint16_t ip_id;	     /* IPv4 */
	uint16_t frag_off;   /* IPv4 flags + fragment offset, host order; default DF (0x4000) */
	uint8_t ip_opt_len;  /* IPv4 option bytes (NOPs), multiple of 4, <= 40 */
	uint32_t seq, ack;   /* TCP */
	uint8_t tcp_flags;   /* LAB_TCP_* */
	uint8_t tcp_opt_len; /* TCP option bytes, multiple of 4, <= 40 (a timestamp if >= 12) */
	uint16_t window;
	uint32_t payload_len;
	uint8_t payload_seed; /* non-TCP payloads */
	uint16_t gso_size;    /* > 0: a TCP GSO super-packet with this MSS */
	bool gso_ecn;	      /* set the gso_type ECN bit (the kernel does when CWR is set) */
	bool partial_csum;    /* non-GSO packet with NEEDS_CSUM, as a tun with TUN_F_CSUM gets */
};

/* Defaults: 192.0.2.1:40000 -> 198.51.100.2:5201 (2001:db8::1 -> 2001:db8::2),
 * TTL 64, DF, ECT(0), TCP ACK|PSH seq 1000, no payload. */
static inline void lab_pkt_init(struct lab_pkt_spec *s, int family, uint8_t proto)
{
	static const uint8_t v4s[4] = {192, 0, 2, 1}, v4d[4] = {198, 51, 100, 2};
	static const uint8_t v6s[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	static const uint8_t v6d[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};

	memset(s, 0, sizeof(*s));
	s->family = family;
	s->proto = proto;
	memcpy(s->src, family == 4 ? v4s : v6s, family == 4 ? 4 : 16);
	memcpy(s->dst, family == 4 ? v4d : v6d, family == 4 ? 4 : 16);
	s->sport = 40000;
	s->dport = 5201;
	s->tos = LAB_ECN_ECT0;
	s->ttl = 64;
	s->ip_id = 0x1234;
	s->frag_off = 0x4000;
	s->seq = 1000;
	s->ack = 77;
	s->tcp_flags = LAB_TCP_ACK | LAB_TCP_PSH;
	s->window = 502;
}

static inline uint8_t lab_pkt_byte(uint32_t pos)
{
	return (uint8_t)((pos * 2654435761u) >> 24);
}

static inline uint16_t lab_pkt_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t lab_pkt_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void lab_pkt_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void lab_pkt_wr32(uint8_t *p, uint32_t v)
{
	lab_pkt_wr16(p, (uint16_t)(v >> 16));
	lab_pkt_wr16(p + 2, (uint16_t)v);
}

/* The vnet header, host-endian (frame.h). */
struct lab_pkt_vnet {
	uint8_t flags, gso_type;
	uint16_t hdr_len, gso_size, csum_start, csum_offset;
};

static inline void lab_pkt_vnet_read(const uint8_t *buf, struct lab_pkt_vnet *v)
{
	v->flags = buf[0];
	v->gso_type = buf[1];
	memcpy(&v->hdr_len, buf + 2, 2);
	memcpy(&v->gso_size, buf + 4, 2);
	memcpy(&v->csum_start, buf + 6, 2);
	memcpy(&v->csum_offset, buf + 8, 2);
}

static inline void lab_pkt_vnet_write(uint8_t *buf, const struct lab_pkt_vnet *v)
{
	buf[0] = v->flags;
	buf[1] = v->gso_type;
	memcpy(buf + 2, &v->hdr_len, 2);
	memcpy(buf + 4, &v->gso_size, 2);
	memcpy(buf + 6, &v->csum_start, 2);
	memcpy(buf + 8, &v->csum_offset, 2);
}

/* One's complement sum of big-endian 16-bit words (an odd last byte padded with 0). */
static inline uint64_t lab_pkt_sum(const uint8_t *p, size_t n, uint64_t sum)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += lab_pkt_rd16(p + i);
	if (n & 1)
		sum += (uint64_t)p[n - 1] << 8;
	return sum;
}

static inline uint16_t lab_pkt_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The pseudo-header sum (RFC 793 / RFC 8200 section 8.1) for an L4 length. */
static inline uint64_t lab_pkt_pseudo(int family, const uint8_t *ip, uint8_t proto, uint32_t l4len)
{
	uint64_t sum;

	if (family == 4)
		sum = lab_pkt_sum(ip + 12, 8, 0);
	else
		sum = lab_pkt_sum(ip + 8, 32, 0);
	return sum + proto + (l4len >> 16) + (l4len & 0xffff);
}

/* Write the IPv4 header checksum of the header at ip. */
static inline void lab_pkt_ipv4_csum(uint8_t *ip)
{
	unsigned ihl = (ip[0] & 0x0f) * 4u;

	lab_pkt_wr16(ip + 10, 0);
	lab_pkt_wr16(ip + 10, (uint16_t)~lab_pkt_fold(lab_pkt_sum(ip, ihl, 0)));
}

/*
 * Build s into buf. Returns the length (vnet header + IP packet), or -ENOSPC when
 * cap is too small, -EINVAL for a spec that cannot be built (GSO on non-TCP, option
 * lengths, a packet over 65535 bytes).
 */
static inline int lab_pkt_build(const struct lab_pkt_spec *s, uint8_t *buf, size_t cap)
{
	struct lab_pkt_vnet v = {0};
	unsigned iphl, l4hl = 0, l4off, csum_off = 0;
	bool nonfirst_frag = false, pseudo = true;
	uint8_t *ip, *l4, *pl;
	uint32_t len, l4len, base, i;

	if ((s->family != 4 && s->family != 6) || s->ip_opt_len % 4 || s->ip_opt_len > 40 ||
	    s->tcp_opt_len % 4 || s->tcp_opt_len > 40 || (s->gso_size && s->proto != IPPROTO_TCP))
		return -EINVAL;
	if (s->family == 4) {
		iphl = 20 + s->ip_opt_len;
		nonfirst_frag = (s->frag_off & 0x1fff) != 0;
	} else {
		iphl = 40;
	}
	if (!nonfirst_frag) {
		switch (s->proto) {
		case IPPROTO_TCP:
			l4hl = 20 + s->tcp_opt_len;
			csum_off = 16;
			break;
		case IPPROTO_UDP:
			l4hl = 8;
			csum_off = 6;
			break;
		case IPPROTO_ICMP:
		case IPPROTO_ICMPV6:
			l4hl = 8;
			csum_off = 2;
			pseudo = s->proto == IPPROTO_ICMPV6;
			break;
		default:
			break;
		}
	}
	l4off = iphl;
	l4len = l4hl + s->payload_len;
	len = iphl + l4len;
	if (len > 65535 + (s->family == 6 ? 40u : 0u))
		return -EINVAL;
	if (cap < LAB_PKT_VNET_LEN + (size_t)len)
		return -ENOSPC;

	ip = buf + LAB_PKT_VNET_LEN;
	memset(ip, 0, iphl + l4hl);
	if (s->family == 4) {
		ip[0] = (uint8_t)(0x40 | iphl / 4);
		ip[1] = s->tos;
		lab_pkt_wr16(ip + 2, (uint16_t)len);
		lab_pkt_wr16(ip + 4, s->ip_id);
		lab_pkt_wr16(ip + 6, s->frag_off);
		ip[8] = s->ttl;
		ip[9] = s->proto;
		memcpy(ip + 12, s->src, 4);
		memcpy(ip + 16, s->dst, 4);
		memset(ip + 20, 1, s->ip_opt_len); /* NOP */
	} else {
		ip[0] = (uint8_t)(0x60 | s->tos >> 4);
		ip[1] = (uint8_t)(s->tos << 4);
		lab_pkt_wr16(ip + 4, (uint16_t)l4len);
		ip[6] = s->proto;
		ip[7] = s->ttl;
		memcpy(ip + 8, s->src, 16);
		memcpy(ip + 24, s->dst, 16);
	}

	l4 = ip + l4off;
	pl = l4 + l4hl;
	switch (nonfirst_frag ? 0 : s->proto) {
	case IPPROTO_TCP:
		lab_pkt_wr16(l4, s->sport);
		lab_pkt_wr16(l4 + 2, s->dport);
		lab_pkt_wr32(l4 + 4, s->seq);
		lab_pkt_wr32(l4 + 8, s->ack);
		l4[12] = (uint8_t)(l4hl / 4 << 4);
		l4[13] = s->tcp_flags;
		lab_pkt_wr16(l4 + 14, s->window);
		memset(l4 + 20, 1, s->tcp_opt_len); /* NOP */
		if (s->tcp_opt_len >= 12) {
			l4[22] = 8; /* timestamp: kind, length, TSval, TSecr */
			l4[23] = 10;
			lab_pkt_wr32(l4 + 24, 0x01020304);
			lab_pkt_wr32(l4 + 28, 0x05060708);
		}
		break;
	case IPPROTO_UDP:
		lab_pkt_wr16(l4, s->sport);
		lab_pkt_wr16(l4 + 2, s->dport);
		lab_pkt_wr16(l4 + 4, (uint16_t)l4len);
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		l4[0] = s->proto == IPPROTO_ICMP ? 8 : 128; /* echo request */
		lab_pkt_wr16(l4 + 4, s->sport);
		lab_pkt_wr16(l4 + 6, s->dport);
		break;
	default:
		break;
	}
	base = s->proto == IPPROTO_TCP && !nonfirst_frag ? s->seq : s->payload_seed;
	for (i = 0; i < s->payload_len; i++)
		pl[i] = lab_pkt_byte(base + i);

	if (l4hl) {
		uint64_t ph = pseudo ? lab_pkt_pseudo(s->family, ip, s->proto, l4len) : 0;

		if (s->gso_size || s->partial_csum) {
			v.flags = LAB_PKT_F_NEEDS_CSUM;
			v.csum_start = (uint16_t)l4off;
			v.csum_offset = (uint16_t)csum_off;
			lab_pkt_wr16(l4 + csum_off, pseudo ? lab_pkt_fold(ph) : 0);
		} else {
			uint16_t c = (uint16_t)~lab_pkt_fold(lab_pkt_sum(l4, l4len, ph));

			if (c == 0 && s->proto == IPPROTO_UDP)
				c = 0xffff;
			lab_pkt_wr16(l4 + csum_off, c);
		}
	}
	if (s->gso_size) {
		v.gso_type = s->family == 4 ? LAB_PKT_GSO_TCPV4 : LAB_PKT_GSO_TCPV6;
		if (s->gso_ecn)
			v.gso_type |= LAB_PKT_GSO_ECN;
		v.gso_size = s->gso_size;
		v.hdr_len = (uint16_t)(l4off + l4hl);
	}
	lab_pkt_vnet_write(buf, &v);
	if (s->family == 4)
		lab_pkt_ipv4_csum(ip);
	return (int)(LAB_PKT_VNET_LEN + len);
}

/* What lab_pkt_verify() found. */
enum {
	LAB_PKT_OK = 0,
	LAB_PKT_E_TRUNCATED = -1,   /* shorter than its headers or IP length */
	LAB_PKT_E_IP_CSUM = -2,	    /* IPv4 header checksum wrong */
	LAB_PKT_E_L4_CSUM = -3,	    /* TCP/UDP/ICMP checksum wrong (after completion) */
	LAB_PKT_E_CSUM_FIELDS = -4, /* csum_start/csum_offset outside the packet */
	LAB_PKT_E_VERSION = -5,	    /* neither IPv4 nor IPv6 */
};

/*
 * Check a packet as a receiver would: the IPv4 header checksum, and the L4 checksum
 * (TCP, UDP, ICMP, ICMPv6; other protocols and non-first fragments have none we can
 * check; a fragmented datagram's checksum covers all fragments, so fragments are
 * skipped too). With NEEDS_CSUM, the partial checksum is first completed as a device
 * would (sum from csum_start to the end, complemented, at csum_start + csum_offset),
 * without changing buf. Works on GSO super-packets too (the checksum then covers the
 * whole super-packet). For a partial checksum this proves what the sender is
 * responsible for: the checksum field holds the pseudo-header sum of this packet's
 * addresses and L4 length, and csum_start/offset name the L4 checksum field (a
 * corrupted payload goes unnoticed, as the device sums whatever is there).
 * Returns LAB_PKT_OK or a LAB_PKT_E_* code.
 */
static inline int lab_pkt_verify(const uint8_t *buf, size_t len)
{
	struct lab_pkt_vnet v;
	const uint8_t *ip = buf + LAB_PKT_VNET_LEN;
	unsigned iphl, csum_off;
	uint32_t iplen, l4len;
	uint8_t proto;
	int family;
	uint64_t ph = 0, rest;
	uint16_t field, c;
	const uint8_t *l4;

	if (len < LAB_PKT_VNET_LEN + 20)
		return LAB_PKT_E_TRUNCATED;
	lab_pkt_vnet_read(buf, &v);
	family = ip[0] >> 4;
	if (family == 4) {
		iphl = (ip[0] & 0x0f) * 4u;
		iplen = lab_pkt_rd16(ip + 2);
		if (iphl < 20 || iplen < iphl || iplen > len - LAB_PKT_VNET_LEN)
			return LAB_PKT_E_TRUNCATED;
		if (lab_pkt_fold(lab_pkt_sum(ip, iphl, 0)) != 0xffff)
			return LAB_PKT_E_IP_CSUM;
		if (lab_pkt_rd16(ip + 6) & 0x3fff)
			return LAB_PKT_OK; /* a fragment */
		proto = ip[9];
	} else if (family == 6) {
		iphl = 40;
		if (len < LAB_PKT_VNET_LEN + 40)
			return LAB_PKT_E_TRUNCATED;
		iplen = 40u + lab_pkt_rd16(ip + 4);
		if (iplen > len - LAB_PKT_VNET_LEN)
			return LAB_PKT_E_TRUNCATED;
		proto = ip[6];
	} else {
		return LAB_PKT_E_VERSION;
	}
	switch (proto) {
	case IPPROTO_TCP:
		csum_off = 16;
		break;
	case IPPROTO_UDP:
		csum_off = 6;
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		csum_off = 2;
		break;
	default:
		return LAB_PKT_OK;
	}
	l4 = ip + iphl;
	l4len = iplen - iphl;
	if (l4len < csum_off + 2u)
		return LAB_PKT_E_TRUNCATED;
	if (proto != IPPROTO_ICMP)
		ph = lab_pkt_pseudo(family, ip, proto, l4len);

	field = lab_pkt_rd16(l4 + csum_off);
	if (v.flags & LAB_PKT_F_NEEDS_CSUM) {
		/* The device's completion, then the receiver's check. */
		if ((uint32_t)v.csum_start + v.csum_offset + 2u > iplen)
			return LAB_PKT_E_CSUM_FIELDS;
		c = (uint16_t)~lab_pkt_fold(
		    lab_pkt_sum(ip + v.csum_start, iplen - v.csum_start, 0));
		if (c == 0 && proto == IPPROTO_UDP)
			c = 0xffff;
		if ((uint32_t)v.csum_start + v.csum_offset != iphl + csum_off)
			return LAB_PKT_E_L4_CSUM; /* the device would write the wrong field */
	} else {
		if (proto == IPPROTO_UDP && family == 4 && field == 0)
			return LAB_PKT_OK; /* no checksum */
		c = field;
	}
	/* The L4 sum with the field zeroed, plus the completed field, plus the pseudo
	 * header: all ones when valid. */
	rest = lab_pkt_sum(l4, l4len, ph) + (uint16_t)~field;
	if (lab_pkt_fold(rest + c) != 0xffff)
		return LAB_PKT_E_L4_CSUM;
	return LAB_PKT_OK;
}

/*
 * Complete a NEEDS_CSUM packet's checksum in place, as a device does, and clear the
 * flag. A packet without NEEDS_CSUM is left alone. Returns 0 or -EBADMSG.
 */
static inline int lab_pkt_complete(uint8_t *buf, size_t len)
{
	struct lab_pkt_vnet v;
	const uint8_t *ip = buf + LAB_PKT_VNET_LEN;
	uint32_t iplen;
	uint16_t c;

	if (len < LAB_PKT_VNET_LEN + 20)
		return -EBADMSG;
	lab_pkt_vnet_read(buf, &v);
	if (!(v.flags & LAB_PKT_F_NEEDS_CSUM))
		return 0;
	iplen = (ip[0] >> 4) == 4 ? lab_pkt_rd16(ip + 2) : 40u + lab_pkt_rd16(ip + 4);
	if (iplen > len - LAB_PKT_VNET_LEN || (uint32_t)v.csum_start + v.csum_offset + 2u > iplen)
		return -EBADMSG;
	c = (uint16_t)~lab_pkt_fold(lab_pkt_sum(ip + v.csum_start, iplen - v.csum_start, 0));
	if (c == 0 && ((ip[0] >> 4) == 4 ? ip[9] : ip[6]) == IPPROTO_UDP)
		c = 0xffff;
	lab_pkt_wr16(buf + LAB_PKT_VNET_LEN + v.csum_start + v.csum_offset, c);
	v.flags &= (uint8_t)~LAB_PKT_F_NEEDS_CSUM;
	lab_pkt_vnet_write(buf, &v);
	return 0;
}

#endif
