/* SPDX-License-Identifier: MIT */
/*
 * pfifo_fast.h - Linux's default qdisc: three FIFO bands served in strict priority.
 *
 * Model (Linux net/sched/sch_generic.c, the lockless pfifo_fast of 4.16+): band 0
 * is always served before band 1, band 1 before band 2; within a band, first in
 * first out. A packet's band is priomap[priority & 15] (TC_PRIO_MAX is 15), where
 * priority is pkt->priority when the caller set DB_PKT_HAS_PRIORITY (the
 * skb->priority a socket or a classifier chose), else derived from the TOS byte
 * the way Linux's rt_tos2priority() does for locally generated IPv4 traffic.
 *
 *   TOS bits 4..1 (tos & 0x1e)  priority               default band
 *   0x00-0x06                   0 best effort           1
 *   0x08-0x0e                   2 bulk                  2
 *   0x10-0x16                   6 interactive           0
 *   0x18-0x1e                   4 interactive bulk      1
 *
 * The three precedence bits (0xe0) and the low ECN bit do not count, so by DSCP:
 * EF -> band 1, AF11/21/31/41 -> 2, AF12/22/32/42 -> 0, AF13/23/33/43 -> 1,
 * CS1..CS7 -> 1 (the 1990s TOS meaning of those bits, not DiffServ's). An IPv6
 * traffic class is read the same way; Linux leaves skb->priority at 0 for IPv6
 * unless the socket set one, so a caller emulating that exactly passes
 * DB_PKT_HAS_PRIORITY with priority 0.
 *
 * Limits: each band is a ring of `txqueuelen` slots (Linux 4.16+, a ptr_ring per band;
 * before that txqueuelen bounded the sum). A packet offered to a full band is dropped
 * (DB_DROP_OVERLIMIT) while the other bands still accept. As Linux's ptr_ring, the
 * consumer frees the slots it has read in batches of `ring_batch` (two cache lines of
 * pointers: 16 on 64-bit machines, 32 on 32-bit ARM such as the BeagleBone and the
 * Wandboard; 1 when txqueuelen is below twice the batch), and at the ring's end: so a
 * band refuses packets when its queued packets plus the slots read but not yet freed
 * fill the ring, and a full band holds between txqueuelen - ring_batch + 1 and
 * txqueuelen packets. Example (x86-64, txqueuelen 100): 68 packets in, 1 out, then the
 * 33rd of the next 33 is dropped with 99 queued.
 * A GSO super-packet counts as one packet. With the default 1000 and full-size
 * frames one band alone is ~123 ms at 100 Mbit/s: this is the bloat debloat is
 * about.
 *
 * Parameters (tc-style spec):
 *   pfifo_fast [txqueuelen N] [priomap P0 P1 .. P15] [ring_batch N]
 *   txqueuelen  packets per band, 1..1000000000 (default 1000)
 *   ring_batch  slots the consumer frees at once, 1..65536 (default 16: 64-bit Linux)
 *   priomap     16 bands 0..2 indexed by priority (default 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1)
 * Linux takes txqueuelen from the device and does not let tc change the priomap;
 * here both are options, so one spec describes the whole discipline.
 *
 * xstats: band0_pkts, band0_bytes, band0_drops, then the same for bands 1 and 2
 * (backlog now, and packets ever dropped from that band, reset included).
 *
 * Concurrency: none; one caller at a time (model.h).
 */
#ifndef DEBLOAT_PFIFO_FAST_H
#define DEBLOAT_PFIFO_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "packet.h"
#include "pktq.h"

#define DB_PFIFO_FAST_BANDS	     3
#define DB_TC_PRIO_MAX		     15
#define DB_PFIFO_FAST_TXQUEUELEN_MAX 1000000000u /* 3 bands still fit a u32 count */

struct db_pfifo_fast_params {
	uint32_t txqueuelen;		     /* packets per band */
	uint32_t ring_batch;		     /* ptr_ring's consumer batch; 16 */
	uint8_t priomap[DB_TC_PRIO_MAX + 1]; /* priority -> band */
};

struct db_pfifo_fast_band {
	struct db_pktq queue; /* its packets, oldest first */
	uint32_t head;	      /* the ring slot read next */
	uint32_t unfreed;     /* slots read but not yet freed for the producer */
	uint32_t pkts;	      /* queued now */
	uint64_t bytes;	      /* queued now */
	uint64_t drops;	      /* ever dropped from this band */
};

struct db_pfifo_fast {
	struct db_pfifo_fast_params params;
	struct db_qdisc_env env;
	struct db_pfifo_fast_band band[DB_PFIFO_FAST_BANDS];
	struct db_qdisc_stats stats;
};

extern const struct db_qdisc_ops db_pfifo_fast_ops;

/*
 * Linux's TOS -> skb->priority table (rt_tos2priority). Its 16 entries come in equal
 * pairs (the ECN/"min cost" bit does not count), so bits 4..3 pick one of
 * TC_PRIO_BESTEFFORT 0, BULK 2, INTERACTIVE 6, INTERACTIVE_BULK 4: a nibble
 * lookup in a constant instead of a table in memory.
 */
static inline uint32_t db_tos_to_priority(uint8_t tos)
{
	return (0x4620u >> (((tos >> 3) & 3) * 4)) & 0xf;
}

/* Which band pkt goes to under q's priomap. */
static inline unsigned db_pfifo_fast_band(const struct db_pfifo_fast *q, const struct db_pkt *pkt)
{
	uint32_t prio =
	    (pkt->flags & DB_PKT_HAS_PRIORITY) ? pkt->priority : db_tos_to_priority(pkt->tos);

	return q->params.priomap[prio & DB_TC_PRIO_MAX];
}

void db_pfifo_fast_defaults(struct db_pfifo_fast_params *params);
/* Options over *params; -EINVAL with a message quoting the bad word, params untouched. */
int db_pfifo_fast_parse(struct db_pfifo_fast_params *params, int argc, char *const argv[],
			char *err, size_t errlen);
/* "pfifo_fast txqueuelen 1000 priomap 1 2 ..."; length, or -ENOSPC. */
int db_pfifo_fast_format(const struct db_pfifo_fast_params *params, char *buf, size_t len);

/* -EINVAL if txqueuelen is 0 or above the maximum, or a priomap entry is not a band.
 * env may be NULL (drops are then only counted). */
int db_pfifo_fast_init(struct db_pfifo_fast *q, const struct db_pfifo_fast_params *params,
		       const struct db_qdisc_env *env);
void db_pfifo_fast_destroy(struct db_pfifo_fast *q);
/* DB_ENQ_QUEUED, or DB_ENQ_DROPPED when pkt's band is full (pkt went to env->drop). */
int db_pfifo_fast_enqueue(struct db_pfifo_fast *q, struct db_pkt *pkt, uint64_t now_ns);
struct db_pkt *db_pfifo_fast_dequeue(struct db_pfifo_fast *q, uint64_t now_ns);
void db_pfifo_fast_reset(struct db_pfifo_fast *q);
void db_pfifo_fast_stats(const struct db_pfifo_fast *q, struct db_qdisc_stats *st);
/* Fills up to max of the 9 counters above; returns how many it wrote. */
int db_pfifo_fast_xstats(const struct db_pfifo_fast *q, struct db_stat *out, int max);

#endif
