/* SPDX-License-Identifier: MIT */
/*
 * qstats.h - a qdisc's statistics as an RTM_NEWQDISC dump carries them, decoded into
 * struct qdisc_stats and struct qdisc_xstats (iface.h).
 *
 * The kernel nests them in TCA_STATS2 (linux/gen_stats.h):
 *   TCA_STATS_BASIC   struct gnet_stats_basic: bytes (u64), packets (u32)
 *   TCA_STATS_PKT64   packets as a u64; sent only once the count no longer fits 32
 *                     bits, and then it is the one to believe
 *   TCA_STATS_QUEUE   struct gnet_stats_queue: qlen, backlog, drops, requeues,
 *                     overlimits (u32 each)
 *   TCA_STATS_APP     the kind's own statistics ("xstats"; the same bytes are also
 *                     sent alone as the older TCA_XSTATS, read when APP is absent):
 *     fq_codel  struct tc_fq_codel_xstats, type 0 (qdisc): maxpacket, drop_overlimit,
 *               ecn_mark, new_flow_count, new_flows_len, old_flows_len, ce_mark,
 *               memory_usage, drop_overmemory (u32 each; older kernels stop earlier,
 *               so each field is read only when the payload reaches it)
 *     fq        struct tc_fq_qd_stats: throttled (u64 at offset 24), flows and
 *               throttled_flows (u32 at 64 and 72), ce_mark (u64 at 80)
 *     cake      nested TCA_CAKE_STATS_*: MEMORY_USED (u32), and TIN_STATS, one nest
 *               per tin of TCA_CAKE_TIN_STATS_*, summed: ECN_MARKED_PACKETS,
 *               SPARSE_FLOWS + BULK_FLOWS + UNRESPONSIVE_FLOWS (u32 each)
 * Attribute numbers and offsets are the kernel's ABI, spelled out in qstats.c so that
 * older uapi headers still build it.
 */
#ifndef DEBLOAT_HOST_QSTATS_H
#define DEBLOAT_HOST_QSTATS_H

#include <stddef.h>

#include "iface.h"

/* Every xstats field to -1 (unknown) and stats.have to false. */
void qstats_clear(struct qdisc *q);

/*
 * Decode TCA_STATS2's payload (stats2, len bytes) and, when it has no TCA_STATS_APP,
 * the TCA_XSTATS payload (xstats, may be NULL) for q->kind into q->stats and q->xstats.
 * -EBADMSG when malformed: q's statistics are then left cleared (qstats_clear), never
 * half decoded. A kind without xstats we know leaves q->xstats at -1.
 */
int qstats_decode(struct qdisc *q, const void *stats2, size_t len, const void *xstats, size_t xlen);

#endif
