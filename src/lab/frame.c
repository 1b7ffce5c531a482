/* SPDX-License-Identifier: MIT */
/*
 * frame.c - parse, CE-mark and segment the vnet + IP packets of the lab's tun devices.
 *
 * Only headers are read: parsing a 64 KB super-packet costs the same as parsing a
 * 60-byte ACK, and segmentation copies payload bytes once and never sums them (each
 * segment's TCP checksum field gets the pseudo-header sum; the receiving tun's
 * NEEDS_CSUM completes it, as a NIC doing TSO would).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "frame.h"

#define VNET_F_NEEDS_CSUM 1
#define VNET_GSO_NONE	  0
#define VNET_GSO_TCPV4	  1
#define VNET_GSO_TCPV6	  4
#define VNET_GSO_ECN	  0x80

#define TCP_CSUM_OFF 16
#define TCP_FIN	     0x01
#define TCP_PSH	     0x08
#define TCP_ACK	     0x10
#define TCP_CWR	     0x80

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, (uint16_t)(v >> 16));
	wr16(p + 2, (uint16_t)v);
}

/* vnet header fields are host-endian (frame.h). */
static inline uint16_t rdh16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void wrh16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* One's complement sum of n (even, small) bytes of header. */
static uint32_t sum16(const uint8_t *p, unsigned n, uint32_t sum)
{
	for (unsigned i = 0; i + 1 < n; i += 2)
		sum += rd16(p + i);
	return sum;
}

static inline uint16_t fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static void ipv4_header_csum(uint8_t *ip, unsigned ihl)
{
	wr16(ip + 10, 0);
	wr16(ip + 10, (uint16_t)~fold(sum16(ip, ihl, 0)));
}

/* Bytes of one frame on the Ethernet: IP packet + header, padded to the minimum. */
static inline uint32_t frame_l2(uint32_t ip_bytes)
{
	uint32_t l2 = ip_bytes + LAB_ETH_HDR_LEN;

	return l2 < LAB_ETH_MIN_FRAME ? LAB_ETH_MIN_FRAME : l2;
}

/* The L4 header: ports, hdr_len. first is false for a non-first IPv4 fragment. */
static int parse_l4(const uint8_t *ip, struct lab_frame *f, bool fragment, bool first)
{
	const uint8_t *l4 = ip + f->l4_off;
	uint32_t avail = f->ip_len - f->l4_off;
	bool icmp = (f->ip_version == 4 && f->l4_proto == IPPROTO_ICMP) ||
		    (f->ip_version == 6 && f->l4_proto == IPPROTO_ICMPV6);

	f->hdr_len = f->l4_off;
	if (!first)
		return 0;
	if (f->l4_proto != IPPROTO_TCP && f->l4_proto != IPPROTO_UDP) {
		/* ICMP: type, code and checksum must be there; others are opaque. */
		return icmp && avail < 4 ? -EBADMSG : 0;
	}
	if (avail < 4)
		return -EBADMSG;
	f->key.sport = rd16(l4);
	f->key.dport = rd16(l4 + 2);
	if (fragment)
		return 0; /* the rest of the L4 header may be in the next fragment */
	if (f->l4_proto == IPPROTO_TCP) {
		unsigned doff;

		if (avail < 20)
			return -EBADMSG;
		doff = (l4[12] >> 4) * 4u;
		if (doff < 20 || doff > avail)
			return -EBADMSG;
		f->hdr_len = (uint16_t)(f->l4_off + doff);
	} else {
		uint16_t ulen;

		if (avail < 8)
			return -EBADMSG;
		ulen = rd16(l4 + 4);
		if (ulen < 8 || ulen > avail)
			return -EBADMSG;
		f->hdr_len = (uint16_t)(f->l4_off + 8);
	}
	return 0;
}

/* GSO fields and sizes, once the headers are known. */
static int parse_gso(struct lab_frame *f, bool fragment)
{
	uint8_t type = f->gso_type & (uint8_t)~VNET_GSO_ECN;
	uint32_t payload, full, last;

	if (f->vnet_flags & VNET_F_NEEDS_CSUM) {
		if ((uint32_t)f->csum_start + f->csum_offset + 2 > f->ip_len)
			return -EBADMSG;
	}
	if (f->gso_type == VNET_GSO_NONE) {
		f->gso_size = 0;
		f->segs = 1;
		f->l2_bytes = frame_l2(f->ip_len);
		goto wire;
	}
	/* TCP segmentation only: the tun is offered TSO4/TSO6 and nothing else. */
	if (!((type == VNET_GSO_TCPV4 && f->ip_version == 4) ||
	      (type == VNET_GSO_TCPV6 && f->ip_version == 6)))
		return -EBADMSG;
	if (f->l4_proto != IPPROTO_TCP || fragment || !f->gso_size)
		return -EBADMSG;
	/* Segments get csum_start = the TCP header: the super-packet must agree. */
	if (!(f->vnet_flags & VNET_F_NEEDS_CSUM) || f->csum_start != f->l4_off ||
	    f->csum_offset != TCP_CSUM_OFF)
		return -EBADMSG;
	payload = f->ip_len - f->hdr_len;
	if (!payload)
		return -EBADMSG;
	if ((payload + f->gso_size - 1) / f->gso_size > LAB_MAX_SEGS)
		return -EBADMSG;
	f->segs = (uint16_t)((payload + f->gso_size - 1) / f->gso_size);
	full = frame_l2((uint32_t)f->hdr_len + f->gso_size);
	last = frame_l2(f->hdr_len + payload - (uint32_t)(f->segs - 1) * f->gso_size);
	f->l2_bytes = (uint32_t)(f->segs - 1) * full + last;
wire:
	f->wire_bytes = f->l2_bytes + (uint32_t)f->segs * LAB_WIRE_OVERHEAD;
	return 0;
}

int lab_frame_parse(const uint8_t *buf, size_t len, struct lab_frame *out)
{
	struct lab_frame f;
	const uint8_t *ip = buf + LAB_VNET_HDR_LEN;
	size_t avail;
	bool fragment = false, first = true;
	int r;

	if (len < LAB_VNET_HDR_LEN + 20)
		return -EBADMSG;
	avail = len - LAB_VNET_HDR_LEN;
	memset(&f, 0, sizeof(f));
	f.vnet_flags = buf[0];
	f.gso_type = buf[1];
	f.gso_size = rdh16(buf + 4);
	f.csum_start = rdh16(buf + 6);
	f.csum_offset = rdh16(buf + 8);

	switch (ip[0] >> 4) {
	case 4: {
		unsigned ihl = (ip[0] & 0x0f) * 4u;
		uint16_t tot = rd16(ip + 2), frag = rd16(ip + 6);

		if (ihl < 20 || tot < ihl || tot > avail)
			return -EBADMSG;
		f.ip_version = 4;
		f.tos = ip[1];
		f.l4_proto = ip[9];
		f.l4_off = (uint16_t)ihl;
		f.ip_len = tot;
		memcpy(f.key.src, ip + 12, 4);
		memcpy(f.key.dst, ip + 16, 4);
		fragment = (frag & 0x3fff) != 0; /* MF or an offset */
		first = (frag & 0x1fff) == 0;
		break;
	}
	case 6:
		if (avail < 40 || 40u + rd16(ip + 4) > avail)
			return -EBADMSG;
		f.ip_version = 6;
		f.tos = (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4);
		f.l4_proto = ip[6];
		f.l4_off = 40;
		f.ip_len = 40u + rd16(ip + 4);
		memcpy(f.key.src, ip + 8, 16);
		memcpy(f.key.dst, ip + 24, 16);
		break;
	default:
		return -EBADMSG;
	}
	f.key.proto = f.l4_proto;
	f.key.family = f.ip_version;

	r = parse_l4(ip, &f, fragment, first);
	if (r < 0)
		return r;
	r = parse_gso(&f, fragment);
	if (r < 0)
		return r;
	*out = f;
	return 0;
}

int lab_frame_set_ce(uint8_t *buf, size_t len, struct lab_frame *f)
{
	uint8_t *ip = buf + LAB_VNET_HDR_LEN;

	if (len < LAB_VNET_HDR_LEN + (f->ip_version == 6 ? 40u : 20u))
		return -EINVAL;
	if (f->ip_version == 4 && (ip[0] >> 4) == 4) {
		uint16_t old = rd16(ip), new = old | 3, hc = rd16(ip + 10);

		if (!(old & 3))
			return -EINVAL;
		/*
		 * RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'). Folding the 32-bit sum with
		 * end-around carry gives exactly what a full recompute gives, -0 included
		 * (eqn. 2, HC - ~m - m', would leave 0xffff where 0x0000 belongs).
		 */
		wr16(ip, new);
		wr16(ip + 10, (uint16_t)~fold((uint32_t)(uint16_t)~hc + (uint16_t)~old + new));
		f->tos = ip[1];
		return 0;
	}
	if (f->ip_version == 6 && (ip[0] >> 4) == 6) {
		/* Traffic class spans bytes 0-1; its ECN bits are byte 1's 0x30. */
		if (!(ip[1] & 0x30))
			return -EINVAL;
		ip[1] |= 0x30;
		f->tos = (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4);
		return 0;
	}
	return -EINVAL;
}

static bool is_gso(const struct lab_frame *f)
{
	return f->gso_type != VNET_GSO_NONE;
}

size_t lab_frame_segment_space(const struct lab_frame *f)
{
	if (!is_gso(f))
		return LAB_VNET_HDR_LEN + (size_t)f->ip_len;
	return (size_t)f->segs * (LAB_VNET_HDR_LEN + f->hdr_len) + (f->ip_len - f->hdr_len);
}

int lab_frame_segment(const uint8_t *buf, size_t len, const struct lab_frame *f, uint8_t *out,
		      size_t outlen, uint32_t *seg_len, unsigned nseg)
{
	const uint8_t *ip = buf + LAB_VNET_HDR_LEN;
	uint32_t payload, off, pseudo, seq;
	unsigned tcp_hl, ihl = 0;
	uint16_t id = 0;
	uint8_t flags;
	size_t pos = 0;

	if (len < LAB_VNET_HDR_LEN || f->ip_len > len - LAB_VNET_HDR_LEN)
		return -EBADMSG;
	if (!is_gso(f)) {
		if (!nseg || outlen < LAB_VNET_HDR_LEN + (size_t)f->ip_len)
			return -ENOSPC;
		memcpy(out, buf, LAB_VNET_HDR_LEN + (size_t)f->ip_len);
		seg_len[0] = LAB_VNET_HDR_LEN + f->ip_len;
		return 1;
	}
	/* A frame from lab_frame_parse() passes; anything else must not lead us astray. */
	if (f->l4_proto != IPPROTO_TCP || !f->gso_size || f->hdr_len > f->ip_len ||
	    (uint32_t)f->l4_off + 20 > f->hdr_len || f->l4_off < (f->ip_version == 4 ? 20 : 40) ||
	    (f->ip_version != 4 && f->ip_version != 6) || (ip[0] >> 4) != f->ip_version)
		return -EBADMSG;
	payload = f->ip_len - f->hdr_len;
	if (!payload || f->segs != (payload + f->gso_size - 1) / f->gso_size)
		return -EBADMSG;
	if (nseg < f->segs || outlen < lab_frame_segment_space(f))
		return -ENOSPC;

	if (f->ip_version == 4) {
		ihl = (ip[0] & 0x0f) * 4u;
		if (ihl != f->l4_off)
			return -EBADMSG;
		id = rd16(ip + 4);
		pseudo = sum16(ip + 12, 8, IPPROTO_TCP);
	} else {
		pseudo = sum16(ip + 8, 32, IPPROTO_TCP);
	}
	tcp_hl = f->hdr_len - f->l4_off;
	seq = rd32(ip + f->l4_off + 4);
	flags = ip[f->l4_off + 13];

	for (unsigned i = 0; i < f->segs; i++) {
		uint8_t *o = out + pos, *sip = o + LAB_VNET_HDR_LEN, *th = sip + f->l4_off;
		uint32_t plen, sflags = flags;

		off = i * (uint32_t)f->gso_size;
		plen = payload - off < f->gso_size ? payload - off : f->gso_size;

		memset(o, 0, LAB_VNET_HDR_LEN);
		o[0] = VNET_F_NEEDS_CSUM;
		wrh16(o + 6, f->l4_off);
		wrh16(o + 8, TCP_CSUM_OFF);
		memcpy(sip, ip, f->hdr_len);
		memcpy(sip + f->hdr_len, ip + f->hdr_len + off, plen);

		if (f->ip_version == 4) {
			wr16(sip + 2, (uint16_t)(f->hdr_len + plen));
			wr16(sip + 4, (uint16_t)(id + i));
			ipv4_header_csum(sip, ihl);
		} else {
			wr16(sip + 4, (uint16_t)(f->hdr_len - 40 + plen));
		}
		wr32(th + 4, seq + off);
		if (i > 0)
			sflags &= ~(uint32_t)TCP_CWR;
		if (i + 1 < f->segs)
			sflags &= ~(uint32_t)(TCP_FIN | TCP_PSH);
		th[13] = (uint8_t)sflags;
		/* What the kernel leaves for NEEDS_CSUM: the folded pseudo-header sum. */
		wr16(th + TCP_CSUM_OFF, fold(pseudo + tcp_hl + plen));

		seg_len[i] = LAB_VNET_HDR_LEN + f->hdr_len + plen;
		pos += seg_len[i];
	}
	return f->segs;
}

/* The TCP segment's flags, and payload bytes. */
static uint8_t tcp_flags(const uint8_t *buf, const struct lab_frame *f)
{
	return buf[LAB_VNET_HDR_LEN + f->l4_off + 13];
}

static uint32_t tcp_payload(const struct lab_frame *f)
{
	return f->ip_len - f->hdr_len;
}

/* lab_frame_mergeable(), with the flags b of a merge may have besides. */
static bool mergeable(const uint8_t *buf, const struct lab_frame *f, uint8_t also)
{
	const uint8_t *ip = buf + LAB_VNET_HDR_LEN, *th = ip + f->l4_off;

	if (f->l4_proto != IPPROTO_TCP || is_gso(f) || f->hdr_len >= f->ip_len ||
	    f->vnet_flags != VNET_F_NEEDS_CSUM || f->csum_start != f->l4_off ||
	    f->csum_offset != TCP_CSUM_OFF)
		return false;
	if ((tcp_flags(buf, f) & (uint8_t)~also) != TCP_ACK || rd16(th + 18))
		return false; /* other flags, or an urgent pointer */
	if (f->ip_version == 4)
		return f->l4_off == 20 && (rd16(ip + 6) & 0x3fff) == 0;
	return true;
}

bool lab_frame_mergeable(const uint8_t *buf, const struct lab_frame *f)
{
	return mergeable(buf, f, 0);
}

/* Header bytes that must agree for a merge (frame.h), IP and TCP. */
static bool same_headers(const uint8_t *a, const uint8_t *b, const struct lab_frame *fa,
			 const struct lab_frame *fb)
{
	const uint8_t *ta = a + fa->l4_off, *tb = b + fb->l4_off;

	if (fa->ip_version != fb->ip_version || fa->hdr_len != fb->hdr_len)
		return false;
	if (fa->ip_version == 4) {
		if (memcmp(a, b, 2) || memcmp(a + 6, b + 6, 4) || memcmp(a + 12, b + 12, 8))
			return false; /* version, TOS; flags, TTL, protocol; addresses */
	} else if (memcmp(a, b, 4) || memcmp(a + 6, b + 6, 34)) {
		return false; /* version, class, flow label; next header, hops; addresses */
	}
	/* Ports; ACK number; data offset; options. */
	return !memcmp(ta, tb, 4) && !memcmp(ta + 8, tb + 8, 5) &&
	       !memcmp(ta + 20, tb + 20, (size_t)(fa->hdr_len - fa->l4_off) - 20);
}

int lab_frame_merge(uint8_t *acc, size_t *acclen, size_t cap, struct lab_frame *fa,
		    const uint8_t *b, const struct lab_frame *fb)
{
	uint8_t *ip = acc + LAB_VNET_HDR_LEN, *th = ip + fa->l4_off;
	const uint8_t *bip = b + LAB_VNET_HDR_LEN, *bth = bip + fb->l4_off;
	uint32_t have = tcp_payload(fa), add, mss, ip_len, pseudo;
	struct lab_frame merged;
	size_t len;

	if (!(is_gso(fa) ? fa->l4_proto == IPPROTO_TCP : mergeable(acc, fa, 0)) ||
	    !mergeable(b, fb, TCP_PSH) || (tcp_flags(acc, fa) & (TCP_PSH | TCP_FIN)))
		return -EAGAIN;
	mss = is_gso(fa) ? fa->gso_size : have;
	add = tcp_payload(fb);
	ip_len = fa->ip_len + add;
	len = LAB_VNET_HDR_LEN + (size_t)ip_len;
	if (have % mss || add > mss || ip_len > 65535 || len > cap || *acclen < len - add ||
	    (have + add + mss - 1) / mss > LAB_MAX_SEGS || !same_headers(ip, bip, fa, fb) ||
	    rd32(bth + 4) != rd32(th + 4) + have)
		return -EAGAIN;

	memcpy(ip + fa->ip_len, bip + fb->hdr_len, add);
	acc[1] = fa->ip_version == 4 ? VNET_GSO_TCPV4 : VNET_GSO_TCPV6;
	wrh16(acc + 2, fa->hdr_len);
	wrh16(acc + 4, (uint16_t)mss);
	if (fa->ip_version == 4) {
		wr16(ip + 2, (uint16_t)ip_len);
		ipv4_header_csum(ip, 20);
		pseudo = sum16(ip + 12, 8, IPPROTO_TCP);
	} else {
		wr16(ip + 4, (uint16_t)(ip_len - 40));
		pseudo = sum16(ip + 8, 32, IPPROTO_TCP);
	}
	th[13] |= (uint8_t)(bth[13] & TCP_PSH);
	memcpy(th + 14, bth + 14, 2); /* the window */
	wr16(th + TCP_CSUM_OFF, fold(pseudo + ip_len - fa->l4_off));
	if (lab_frame_parse(acc, len, &merged) < 0)
		return -EAGAIN; /* cannot happen: every field above was checked */
	*fa = merged;
	*acclen = len;
	return 0;
}
