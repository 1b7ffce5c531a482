/* SPDX-License-Identifier: MIT */
/*
 * fuzz-frame.c - src/lab/frame.c on arbitrary bytes, as the lab reads them from a tun
 * (vnet header + IP packet).
 *
 * Invariants: the parser returns 0 or -EBADMSG and leaves its output untouched on
 * error; a parsed frame's sizes agree with frame.h's definitions; CE marking either
 * refuses (-EINVAL, nothing changed) or yields a packet that parses the same with CE
 * set and, for IPv4, a header checksum as valid as before; segmentation fills exactly
 * lab_frame_segment_space() bytes, refuses a buffer one byte short, and every segment
 * parses as a single frame of the same flow, with valid (completed) checksums, whose
 * sizes add up to the super-packet's and whose payloads concatenate to its payload;
 * and merging those segments again (GRO) gives back the super-packet, its TCP checksum
 * field aside (and its IPv4 header checksum when that was wrong: the merge's is right), whenever
 * GRO may merge it at all (flags ACK, PSH at most, besides; no urgent pointer; IPv4 without
 * options), and refuses nothing of it.
 *
 * The corpus (fuzz/corpus/frame/) was built with tests/lab-packets.h: ok-* parse
 * (IPv4/IPv6, TCP/UDP/ICMP, options, fragments, partial checksums, GSO up to 64
 * segments), bad-* are each broken in one way (truncated, bad IHL/doff/UDP length,
 * bad GSO type/size/csum fields, 65 segments).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/lab-packets.h"
#include "lab/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t pkt[LAB_MAX_PACKET + 64];
static uint8_t segs[LAB_MAX_SEGS * (LAB_VNET_HDR_LEN + 120) + LAB_MAX_PACKET];
static uint32_t seg_len[LAB_MAX_SEGS];

static void fail(const char *what, long v)
{
	fprintf(stderr, "fuzz-frame: %s (%ld)\n", what, v);
	abort();
}

static bool same_flow(const struct lab_frame *a, const struct lab_frame *b)
{
	return !memcmp(a->key.src, b->key.src, 16) && !memcmp(a->key.dst, b->key.dst, 16) &&
	       a->key.sport == b->key.sport && a->key.dport == b->key.dport &&
	       a->key.proto == b->key.proto && a->key.family == b->key.family;
}

static bool ipv4_csum_ok(const uint8_t *ip)
{
	return lab_pkt_fold(lab_pkt_sum(ip, (ip[0] & 0x0f) * 4u, 0)) == 0xffff;
}

static void check_sizes(const struct lab_frame *f, size_t size)
{
	if (f->ip_len > size - LAB_VNET_HDR_LEN || f->hdr_len > f->ip_len || f->l4_off > f->hdr_len)
		fail("offsets outside the packet", (long)f->ip_len);
	if (!f->segs || f->segs > LAB_MAX_SEGS)
		fail("segs out of range", f->segs);
	if (f->l2_bytes < (uint32_t)f->segs * LAB_ETH_MIN_FRAME)
		fail("frames under the minimum size", (long)f->l2_bytes);
	if (f->wire_bytes != f->l2_bytes + (uint32_t)f->segs * LAB_WIRE_OVERHEAD)
		fail("wire bytes", (long)f->wire_bytes);
	if (!f->gso_type) {
		uint32_t l2 = f->ip_len + LAB_ETH_HDR_LEN;

		if (f->segs != 1 ||
		    f->l2_bytes != (l2 < LAB_ETH_MIN_FRAME ? LAB_ETH_MIN_FRAME : l2))
			fail("non-GSO size", (long)f->l2_bytes);
	} else if (f->l4_proto != IPPROTO_TCP || !f->gso_size ||
		   f->ip_len - f->hdr_len > (uint32_t)f->segs * f->gso_size ||
		   f->ip_len - f->hdr_len <= (uint32_t)(f->segs - 1) * f->gso_size) {
		fail("GSO segment count", f->segs);
	}
}

static void fuzz_ce(const uint8_t *data, size_t size, const struct lab_frame *f)
{
	struct lab_frame m = *f, g;
	bool csum_ok = f->ip_version == 4 && ipv4_csum_ok(data + LAB_VNET_HDR_LEN);
	int r;

	memcpy(pkt, data, size);
	r = lab_frame_set_ce(pkt, size, &m);
	if (r == -EINVAL) {
		if ((f->tos & 3) || memcmp(pkt, data, size))
			fail("refused to mark an ECT packet, or changed it", r);
		return;
	}
	if (r != 0 || !(f->tos & 3))
		fail("marked a Not-ECT packet or unexpected error", r);
	if ((m.tos & 3) != 3 || (m.tos & 0xfc) != (f->tos & 0xfc))
		fail("marked TOS", m.tos);
	if (lab_frame_parse(pkt, size, &g) || g.tos != m.tos || !same_flow(&g, f) ||
	    g.l2_bytes != f->l2_bytes)
		fail("marked packet parses differently", g.tos);
	if (csum_ok && !ipv4_csum_ok(pkt + LAB_VNET_HDR_LEN))
		fail("marking broke the IPv4 header checksum", 0);
	for (size_t i = 0; i < size; i++)
		if (pkt[i] != data[i] && !(i >= LAB_VNET_HDR_LEN && i < LAB_VNET_HDR_LEN + 12))
			fail("marking changed a byte outside the IP header", (long)i);
}

static uint8_t acc[LAB_MAX_PACKET];

/* The segments in segs[], merged back, against the super-packet data[0..size). */
static void fuzz_remerge(const uint8_t *data, const struct lab_frame *f, int n)
{
	const uint8_t *ip = data + LAB_VNET_HDR_LEN, *th = ip + f->l4_off;
	size_t acc_len = seg_len[0], pos = seg_len[0], csum = f->l4_off + 16u;
	struct lab_frame a, g;

	if (n < 2 || (th[13] & ~0x08) != 0x10 || lab_pkt_rd16(th + 18) ||
	    (f->ip_version == 4 && f->l4_off != 20))
		return; /* GRO would not merge it: nothing to hold the merge to */
	if (lab_frame_parse(segs, seg_len[0], &a) || !lab_frame_mergeable(segs, &a))
		fail("the first segment cannot begin a merge", 0);
	memcpy(acc, segs, seg_len[0]);
	for (int i = 1; i < n; i++) {
		if (lab_frame_parse(segs + pos, seg_len[i], &g) ||
		    lab_frame_merge(acc, &acc_len, sizeof(acc), &a, segs + pos, &g))
			fail("a segment did not merge back", i);
		pos += seg_len[i];
	}
	if (a.segs != f->segs || a.gso_size != f->gso_size ||
	    acc_len != LAB_VNET_HDR_LEN + (size_t)f->ip_len || a.l2_bytes != f->l2_bytes)
		fail("the merge is not the super-packet", a.segs);
	if (f->ip_version == 4 && !ipv4_csum_ok(acc + LAB_VNET_HDR_LEN))
		fail("the merge's IPv4 header checksum", 0);
	if (lab_pkt_verify(acc, acc_len) != LAB_PKT_OK)
		fail("the merge's checksum", lab_pkt_verify(acc, acc_len));
	if (f->ip_version == 4 && !ipv4_csum_ok(ip)) /* the merge writes a right one */
		memcpy(acc + LAB_VNET_HDR_LEN + 10, ip + 10, 2);
	if (memcmp(acc + LAB_VNET_HDR_LEN, ip, csum) ||
	    memcmp(acc + LAB_VNET_HDR_LEN + csum + 2, ip + csum + 2, f->ip_len - csum - 2))
		fail("the merge's bytes differ from the super-packet's", 0);
}

static void fuzz_segment(const uint8_t *data, size_t size, const struct lab_frame *f)
{
	size_t space = lab_frame_segment_space(f), pos = 0;
	uint32_t l2 = 0, wire = 0, payload = 0;
	const uint8_t *p = data + LAB_VNET_HDR_LEN + f->hdr_len;
	int n;

	if (space > sizeof(segs))
		fail("segment space beyond the bound", (long)space);
	n = lab_frame_segment(data, size, f, segs, space - 1, seg_len, LAB_MAX_SEGS);
	if (n != -ENOSPC)
		fail("segmented into a buffer one byte short", n);
	n = lab_frame_segment(data, size, f, segs, space, seg_len, LAB_MAX_SEGS);
	if (n != f->segs)
		fail("segment count", n);
	if (!f->gso_type) {
		if (seg_len[0] != space || memcmp(segs, data, space))
			fail("a non-GSO packet was not copied as it is", (long)seg_len[0]);
		return;
	}
	for (int i = 0; i < n; i++) {
		const uint8_t *s = segs + pos;
		struct lab_frame g;
		uint32_t plen;

		if (lab_frame_parse(s, seg_len[i], &g))
			fail("segment does not parse", i);
		if (g.segs != 1 || g.gso_type || g.ip_len != seg_len[i] - LAB_VNET_HDR_LEN ||
		    g.hdr_len != f->hdr_len || !same_flow(&g, f) || g.tos != f->tos)
			fail("segment header", i);
		plen = g.ip_len - g.hdr_len;
		if (plen == 0 || plen > f->gso_size || (i + 1 < n && plen != f->gso_size))
			fail("segment payload length", (long)plen);
		if (memcmp(s + LAB_VNET_HDR_LEN + g.hdr_len, p + payload, plen))
			fail("segment payload differs", i);
		if (lab_pkt_verify(s, seg_len[i]) != LAB_PKT_OK)
			fail("segment checksum", lab_pkt_verify(s, seg_len[i]));
		payload += plen;
		l2 += g.l2_bytes;
		wire += g.wire_bytes;
		pos += seg_len[i];
	}
	if (pos != space || payload != f->ip_len - f->hdr_len)
		fail("segments do not add up", (long)pos);
	if (l2 != f->l2_bytes || wire != f->wire_bytes)
		fail("segment sizes do not add up to the super-packet's", (long)l2);
	fuzz_remerge(data, f, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lab_frame f, untouched;
	int r;

	if (size > sizeof(pkt))
		return 0;
	memset(&f, 0xa5, sizeof(f));
	untouched = f;
	r = lab_frame_parse(data, size, &f);
	if (r) {
		if (r != -EBADMSG || memcmp(&f, &untouched, sizeof(f)))
			fail("parse error or output changed", r);
		return 0;
	}
	check_sizes(&f, size);
	fuzz_ce(data, size, &f);
	fuzz_segment(data, size, &f);
	return 0;
}
