/* SPDX-License-Identifier: MIT */
/*
 * packet.h - the packet descriptor every libdebloat discipline queues.
 *
 * Model: the caller owns the storage of every packet (a ring of descriptors, a
 * pool, a struct on the stack in a test). A discipline never allocates or frees a
 * packet; while a packet is queued the discipline owns its `next` link (through a
 * db_pktq, pktq.h) and its `enqueue_ns`, and nothing else. The caller fills the
 * other fields before enqueue and keeps `data` pointing at whatever it needs (the
 * real frame, a tun buffer, a test's bookkeeping); the library never looks behind
 * `data`.
 *
 * Units: bytes and nanoseconds. Sizes are GSO-aware the way Linux counts a GSO
 * super-packet in a qdisc: `len` is its bytes on the wire at layer 2 as the qdisc
 * sees them (len + (segs - 1) * hdr_len for a super-packet), `segs` the number of
 * frames it becomes, and it counts as ONE packet against packet limits.
 *
 * Size budget: keep this struct at 40 bytes so a ring of 1024 of them fits in
 * 40 KB; anything more belongs behind `data`.
 */
#ifndef DEBLOAT_PACKET_H
#define DEBLOAT_PACKET_H

#include <stdbool.h>
#include <stdint.h>

/* ECN codepoints in the low two bits of the TOS / traffic class byte (RFC 3168). */
#define DB_ECN_MASK    0x03
#define DB_ECN_NOT_ECT 0x00
#define DB_ECN_ECT1    0x01
#define DB_ECN_ECT0    0x02
#define DB_ECN_CE      0x03

/* pkt->flags */
#define DB_PKT_HAS_PRIORITY 0x01 /* `priority` was set by the caller (else derived from tos) */

struct db_pkt {
	struct db_pkt *next; /* queue link, owned by the discipline while queued */
	void *data;	     /* caller's packet; never dereferenced by the library */
	uint64_t enqueue_ns; /* stamped by the discipline at enqueue */
	uint32_t len;	     /* bytes the qdisc accounts (GSO: the whole super-packet) */
	uint32_t hash;	     /* flow hash, see db_flow_hash() in flow.h */
	uint32_t priority;   /* skb->priority equivalent, valid with DB_PKT_HAS_PRIORITY */
	uint16_t segs;	     /* wire frames (GSO segments), >= 1 */
	uint8_t tos;	     /* IPv4 TOS or IPv6 traffic class, ECN bits included */
	uint8_t flags;	     /* DB_PKT_* */
};

static inline bool db_pkt_is_ect(const struct db_pkt *pkt)
{
	return (pkt->tos & DB_ECN_MASK) != DB_ECN_NOT_ECT;
}

#endif
