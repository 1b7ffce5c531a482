/* SPDX-License-Identifier: MIT */
/*
 * qdisc.h - the qdiscs of the host as rtnetlink dumps them (RTM_GETQDISC), their
 * options decoded per kind, and each interface's egress tree rebuilt from handles.
 *
 * Decoded options become struct value entries with stable keys (see docs/json.md), by
 * each kind's table in src/qkind/ (docs/design/qdisc-kinds.md):
 *   pfifo, pfifo_head_drop  limit_packets            (raw struct tc_fifo_qopt)
 *   bfifo                   limit_bytes              (raw struct tc_fifo_qopt)
 *   pfifo_fast, prio        bands, priomap           (raw struct tc_prio_qopt)
 *   fq_codel                limit_packets, flows, quantum_bytes, target_us,
 *                           interval_us, memory_limit_bytes, ecn, ce_threshold_us,
 *                           drop_batch_packets       (nested TCA_FQ_CODEL_*)
 *   codel                   limit_packets, target_us, interval_us, ecn,
 *                           ce_threshold_us          (nested TCA_CODEL_*)
 *   fq                      limit_packets, flow_limit_packets, quantum_bytes,
 *                           initial_quantum_bytes, rate_enable, maxrate_bps, buckets,
 *                           refill_delay_us, orphan_mask, low_rate_threshold_bps,
 *                           ce_threshold_us, timer_slack_ns, horizon_us, horizon_drop
 *   cake                    bandwidth_bps, autorate_ingress, rtt_us, target_us,
 *                           memory_limit_bytes, diffserv_mode, flow_mode, nat, wash,
 *                           ingress, split_gso      (nested TCA_CAKE_*; partial)
 *   tbf                     rate_bps, peakrate_bps, limit_bytes
 *   htb                     default_class, r2q, direct_qlen_packets; a class's rate
 *                           becomes its leaves' class_rate_bps (host_qdisc_class_rates)
 * Any other kind (mq, noqueue, noop, ...) is listed by name with no options.
 */
#ifndef DEBLOAT_HOST_QDISC_H
#define DEBLOAT_HOST_QDISC_H

#include <stddef.h>

#include "base/nl.h"
#include "iface.h"

#define QDISC_MAX_QDISCS 65536
#define QDISC_MAX_DEPTH	 8

/*
 * One RTM_NEWQDISC message. A malformed header, attribute table or TCA_KIND is
 * -EBADMSG; malformed TCA_OPTIONS only sets out->options_err, and malformed
 * statistics (TCA_STATS2, host/qstats.h) only out->stats_err, so the qdisc is still
 * listed by kind.
 */
int host_qdisc_from_msg(const struct nlmsghdr *nlh, struct qdisc *out);

/* Decode TCA_OPTIONS' payload for q->kind into q->options. -EBADMSG if malformed. */
int host_qdisc_decode_options(struct qdisc *q, const void *opts, size_t len);

/* Every qdisc of the namespace, flat, in dump order; nl NULL: a socket of its own. */
int host_qdisc_list(struct nl *nl, struct qdisc **out, size_t *n);

/*
 * The egress tree of ifindex from a flat list: the qdisc whose parent is TC_H_ROOT,
 * then, recursively, those whose parent's major number is a node's handle (mq's
 * per-queue children, a classful qdisc's leaves), sorted by parent. *root is a new
 * allocation (free with host_qdisc_free_children + free). -ENOENT when there is no root.
 */
int host_qdisc_tree(const struct qdisc *all, size_t n, int ifindex, struct qdisc **root);

/*
 * The classes of root's interface (RTM_GETTCLASS): each qdisc of the tree that hangs
 * from a class of a shaping kind (htb) gets that class's rate in class_rate_bps. Does
 * nothing (0) when no qdisc of the tree has such classes; nl NULL: a socket of its own.
 */
int host_qdisc_class_rates(struct nl *nl, struct qdisc *root);

/*
 * One RTM_NEWTCLASS message: the class's handle and, where its kind shapes, its rate
 * in bits/s. -ENOENT for a class without a rate (another kind), -EBADMSG if malformed.
 */
int host_class_from_msg(const struct nlmsghdr *nlh, uint32_t *handle, uint64_t *bps);

/* The decoded option named key, or NULL. */
const struct value *host_qdisc_option(const struct qdisc *q, const char *key);

/* "8001:", "8001:1", "root", "ingress" */
void host_qdisc_format_handle(uint32_t handle, char *buf, size_t len);

#endif
