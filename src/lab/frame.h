/* SPDX-License-Identifier: MIT */
/*
 * frame.h - the packets the lab reads from and writes to its tun devices: parse,
 * ECN-mark, segment, and merge segments again (GRO). Pure: no I/O, no allocation,
 * no clock.
 *
 * Every buffer starts with the 10-byte struct virtio_net_hdr that a tun opened with
 * IFF_VNET_HDR puts in front of each packet (docs/design/emulation.md section 1), followed by an
 * IPv4 or IPv6 packet (IFF_TUN|IFF_NO_PI: no Ethernet header, no packet info):
 *
 *	flags (u8)        VIRTIO_NET_HDR_F_NEEDS_CSUM (1): the L4 checksum is partial
 *	gso_type (u8)     0 none, 1 TCPv4, 3 UDP, 4 TCPv6; 0x80 ECN bit
 *	hdr_len (u16)     header bytes; never trusted, recomputed from csum_start + TCP doff
 *	gso_size (u16)    payload bytes per segment (the MSS)
 *	csum_start (u16)  where the L4 checksum starts, from the start of the IP packet
 *	csum_offset (u16) where in the L4 header the checksum field is
 *
 * Fields are little-endian on every architecture Linux runs tun with VNET_LE; we
 * read them as host-endian, as the kernel writes them for a tun without
 * TUNSETVNETBE/LE (virtio 1.0 native endianness), so the lab is correct on the
 * little- and big-endian hosts alike as long as one process reads and writes both.
 *
 * Sizes as a qdisc counts them (packet.h): an Ethernet frame is the IP packet plus a
 * 14-byte header, at least 60 bytes; a GSO super-packet of `segs` segments counts
 * len + (segs - 1) * hdr_len + 14 * segs bytes, the L2 size of all its frames
 * (each again at least 60 bytes: a tiny last segment is padded, so the l2_bytes of
 * a super-packet's segments always add up to its own).
 * On the wire each frame costs LAB_WIRE_OVERHEAD more (FCS, preamble, gap).
 *
 * Hostile input: the parser checks every length against the bytes present and
 * returns -EBADMSG for anything it cannot account for (a truncated header, a GSO
 * packet that is not TCP, gso_size 0 with a GSO type, more than LAB_MAX_SEGS
 * segments, csum_start/offset outside the packet). A parsed frame is safe to mark
 * and to segment.
 *
 * What parsing accepts, precisely:
 *  - IP: IPv4 with IHL >= 5 and IHL * 4 <= total length <= bytes present, or IPv6
 *    with 40 + payload length <= bytes present. Bytes after the IP length are
 *    ignored (ip_len is the IP length). Checksums are not verified (the kernel
 *    wrote them; the receiving tun's stack checks them).
 *  - L4: TCP needs 20 bytes and a data offset >= 5 within the packet; UDP 8 bytes
 *    and a length field in [8, bytes present]; ICMP/ICMPv6 4 bytes. An IPv4
 *    fragment (MF or an offset) has ports from its first 4 L4 bytes if it is the
 *    first fragment, else none; hdr_len = l4_off for every fragment.
 *  - vnet: flags other than NEEDS_CSUM are kept and ignored. With NEEDS_CSUM,
 *    csum_start + csum_offset + 2 <= ip_len. gso_type NONE ignores gso_size (0 in
 *    the frame). Otherwise gso_type is TCPV4 on IPv4 or TCPV6 on IPv6 (ECN bit
 *    allowed), the packet is unfragmented TCP with payload, NEEDS_CSUM is set with
 *    csum_start at the TCP header and csum_offset 16 (as the kernel always leaves
 *    it), gso_size > 0 and ceil(payload / gso_size) <= LAB_MAX_SEGS.
 */
#ifndef DEBLOAT_LAB_FRAME_H
#define DEBLOAT_LAB_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <debloat/flow.h>

#define LAB_VNET_HDR_LEN  10
#define LAB_ETH_HDR_LEN	  14
#define LAB_ETH_MIN_FRAME 60 /* bytes before FCS */
#define LAB_WIRE_OVERHEAD 24 /* FCS 4 + preamble 8 + inter-frame gap 12 */
#define LAB_MAX_PACKET	  (LAB_VNET_HDR_LEN + 65535 + 40) /* vnet + IPv6 jumbo-free max */
#define LAB_MAX_SEGS	  64

struct lab_frame {
	/* From the vnet header. */
	uint8_t vnet_flags;  /* as read; VIRTIO_NET_HDR_F_NEEDS_CSUM is the bit that matters */
	uint8_t gso_type;    /* as read, ECN bit included; nonzero means a valid TCP GSO packet */
	uint16_t gso_size;   /* 0 when not GSO */
	uint16_t csum_start; /* valid with NEEDS_CSUM, from the IP header */
	uint16_t csum_offset;
	/* From the IP and L4 headers. Offsets are from the start of the IP packet. */
	uint8_t ip_version;  /* 4 or 6 */
	uint8_t l4_proto;    /* IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP(V6), or another */
	uint8_t tos;	     /* IPv4 TOS / IPv6 traffic class, ECN bits included */
	uint16_t l4_off;     /* start of the L4 header (IPv6: 40, no extension header walked) */
	uint16_t hdr_len;    /* IP + L4 header bytes (TCP: with options); l4_off for non-TCP/UDP */
	uint32_t ip_len;     /* bytes of the IP packet, from its header (trailing bytes excluded) */
	uint16_t segs;	     /* frames on the wire: 1, or ceil(payload / gso_size) for GSO */
	uint32_t l2_bytes;   /* what a qdisc counts: all its frames' L2 bytes (see above) */
	uint32_t wire_bytes; /* l2_bytes + segs * LAB_WIRE_OVERHEAD */
	struct db_flow_key key; /* 5-tuple; ports 0 for ICMP and unknown protocols */
};

/*
 * Parse buf[0..len) (vnet header + IP packet) into *out. IPv6 extension headers are
 * not walked: a packet whose next header is not TCP/UDP/ICMPv6 is kept with
 * l4_proto = its next header and ports 0 (it still flows, unhashed by port).
 * Returns 0, or -EBADMSG (out untouched).
 */
int lab_frame_parse(const uint8_t *buf, size_t len, struct lab_frame *out);

/*
 * Set the ECN field of an ECT packet to CE (RFC 3168) in place and keep every
 * checksum valid: the IPv4 header checksum is updated incrementally (RFC 1624);
 * TCP/UDP checksums do not cover the TOS byte. Updates f->tos. Returns 0, or
 * -EINVAL when the packet is Not-ECT (nothing changed).
 */
int lab_frame_set_ce(uint8_t *buf, size_t len, struct lab_frame *f);

/*
 * Split a GSO super-packet into its segments, as a NIC's TSO or the kernel's GSO
 * would: each segment is a complete packet with its own vnet header (flags
 * NEEDS_CSUM with csum_start/offset and the pseudo-header sum in the checksum
 * field, gso_type 0), IPv4 total length, ID (incremented per segment) and header
 * checksum, IPv6 payload length, TCP sequence number advanced by the payload before
 * it, and TCP flags: CWR only on the first segment, FIN and PSH only on the last.
 *
 * Segments are written back to back into out[0..outlen); seg_len[i] receives the
 * length of segment i (vnet header included). Segments' vnet hdr_len and gso_size
 * are 0, as the kernel writes them for non-GSO packets. No payload byte is summed:
 * the receiving tun (or NIC) completes each checksum. A packet that is not GSO
 * yields one segment, a copy of its vnet header and ip_len bytes (a NEEDS_CSUM
 * partial checksum stays partial). f must come from lab_frame_parse() of buf.
 * Returns the number of segments, or -ENOSPC (out or nseg too small), -EBADMSG
 * (f does not match buf).
 */
int lab_frame_segment(const uint8_t *buf, size_t len, const struct lab_frame *f, uint8_t *out,
		      size_t outlen, uint32_t *seg_len, unsigned nseg);

/* Bytes lab_frame_segment() needs for f's segments. */
size_t lab_frame_segment_space(const struct lab_frame *f);

/*
 * Whether a packet may begin a merge (lab_frame_merge): a TCP segment, not GSO, with
 * 1 or more payload bytes, flags exactly ACK, NEEDS_CSUM with csum_start at the TCP
 * header and csum_offset 16 (as the kernel hands a tun with offloads its segments,
 * and as lab_frame_segment writes them), no urgent pointer, and IPv4 without
 * options or fragmentation (or IPv6). buf and f as from lab_frame_parse().
 */
bool lab_frame_mergeable(const uint8_t *buf, const struct lab_frame *f);

/*
 * Merge TCP segment b into acc, as Linux's GRO merges the in-order segments of one
 * flow that a NIC hands up in one poll. acc (*acclen bytes, in a buffer of cap) is a
 * segment that lab_frame_mergeable() accepted, or what earlier merges made of one;
 * fa is its parse. b continues acc when:
 *  - b passes lab_frame_mergeable(), except that PSH may be set besides ACK;
 *  - acc carries no PSH and its last segment is a full MSS (the MSS is acc's
 *    payload while it is one segment, its gso_size after), and b carries at most
 *    an MSS;
 *  - every header field but these agrees: addresses, ports, IP version, TOS/traffic
 *    class and flow label, TTL/hop limit, IPv4 flags, TCP header length, options
 *    and ACK number (the IPv4 ID, the lengths, checksums, TCP window and sequence
 *    number may differ);
 *  - b's sequence number is where acc's payload ends;
 *  - the result fits cap, 65535 bytes of IP packet and LAB_MAX_SEGS segments.
 * Then b's payload is appended and acc becomes the super-packet a sender's GSO
 * would have made of the same segments: vnet gso_type TCPV4/TCPV6 with gso_size
 * the MSS and hdr_len its headers, IP length (and IPv4 header checksum) for the
 * new size, TCP window and PSH as b's, and the TCP checksum field the
 * pseudo-header sum for the new length (the checksum stays partial). *acclen and
 * *fa are updated. Returns 0 when merged, -EAGAIN when b does not continue acc
 * (nothing changed).
 */
int lab_frame_merge(uint8_t *acc, size_t *acclen, size_t cap, struct lab_frame *fa,
		    const uint8_t *b, const struct lab_frame *fb);

#endif
