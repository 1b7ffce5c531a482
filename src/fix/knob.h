/* SPDX-License-Identifier: MIT */
/*
 * knob.h - every setting `debloat fix` can change, read and written as one string.
 *
 * A knob is one thing on one interface (or host-wide): the root qdisc, txqueuelen,
 * one TX queue's BQL limit_max, the TX or RX ring size, one offload feature, one
 * sysctl. knob_read() returns its current value in the same spelling knob_write()
 * takes, so the journal can store "before" values as strings and undo writes them
 * back verbatim. All access is in the calling process's network namespace.
 *
 * Value spellings:
 *   KNOB_ROOT_QDISC  a root-qdisc spec (below), or "default": the kernel's own choice
 *                    (restored by deleting the root qdisc; the kernel then attaches
 *                    pfifo_fast / mq + default_qdisc / noqueue as it does at boot).
 *                    knob_read() says "default" when what is there is a distribution
 *                    default (see knob_root_is_default), else "other: <description>"
 *                    (e.g. "other: htb 1: with 3 classes"), which knob_write() refuses.
 *   KNOB_TXQUEUELEN  packets, decimal
 *   KNOB_BQL_LIMIT_MAX  bytes, decimal (1879048192 is the kernel's "max")
 *   KNOB_RING_TX, KNOB_RING_RX  descriptors, decimal
 *   KNOB_OFFLOAD     "on" or "off" (name: the kernel's feature name, e.g.
 *                    "tx-tcp-segmentation", "tx-generic-segmentation", "rx-gro")
 *   KNOB_SYSCTL      the file's contents without the trailing newline (name:
 *                    dotted, e.g. "net.ipv4.tcp_ecn")
 *
 * Root-qdisc specs (the only trees fix builds, so the only ones it must restore):
 *   KIND [OPTS]               KIND at the root, handle 1:
 *   mq KIND [OPTS]            mq at the root (handle 1:), one KIND child per TX queue
 *                             with parent 1:N (N = queue + 1), handle N+1: ... as tc
 *                             would number them when told explicitly
 *   htb RATE KIND [OPTS]      htb at the root (handle 1:, default 1), one class 1:1
 *                             with rate = ceil = RATE, KIND as its leaf (handle 10:)
 * KIND is fq_codel, fq, cake, pfifo, bfifo or pfifo_fast; OPTS are tc's option
 * words for it (e.g. "fq_codel limit 800 quantum 300 target 5ms interval 100ms ecn",
 * "cake bandwidth 95mbit", "pfifo limit 100"). Netlink encodings follow
 * host-tuning.md section 3 and equal what tc sends (tests/fixtures/netlink).
 *
 * Errors: -ENODEV (no such interface), -ENOENT (no such file, sysctl, TX queue or
 * feature; or the kernel lacks the qdisc kind), -EOPNOTSUPP (the driver cannot do
 * it), -EPERM/-EACCES (not root), -EINVAL (a value the kernel refused; *msg then
 * holds the kernel's extended-ack text when it gave one). Nothing is printed.
 */
#ifndef DEBLOAT_FIX_KNOB_H
#define DEBLOAT_FIX_KNOB_H

#include <net/if.h>
#include <stddef.h>

enum knob_kind {
	KNOB_ROOT_QDISC,
	KNOB_TXQUEUELEN,
	KNOB_BQL_LIMIT_MAX,
	KNOB_RING_TX,
	KNOB_RING_RX,
	KNOB_OFFLOAD,
	KNOB_SYSCTL,
};

#define KNOB_VALUE_MAX 512

struct knob {
	enum knob_kind kind;
	char ifname[IF_NAMESIZE]; /* empty for KNOB_SYSCTL */
	int queue;                /* KNOB_BQL_LIMIT_MAX: the TX queue number */
	char name[64];            /* KNOB_OFFLOAD: feature; KNOB_SYSCTL: dotted name */
};

/* Where knobs live: "/" in production; tests may point sysfs/proc elsewhere for
 * the file-backed knobs (BQL, sysctl). Netlink and ethtool always act on the
 * current network namespace. */
struct knob_env {
	const char *sysfs_root; /* "/sys" */
	const char *proc_root;  /* "/proc" */
};

/* "root-qdisc", "txqueuelen", "bql-limit-max", "ring-tx", "ring-rx", "offload", "sysctl" */
const char *knob_kind_name(enum knob_kind kind);
int knob_kind_from_name(const char *name); /* -EINVAL if unknown */

/* "eth0 root qdisc", "eth0 tx-0 BQL limit_max", "net.ipv4.tcp_ecn": for messages. */
void knob_describe(const struct knob *k, char *buf, size_t len);

int knob_read(const struct knob *k, const struct knob_env *env, char *val, size_t len);
/* msg (may be NULL): the kernel's extack message on -EINVAL/-EOPNOTSUPP, else "". */
int knob_write(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
	       size_t msglen);

/*
 * Netlink request building, exposed for the golden tests: the exact bytes of each
 * request knob_write() sends for a root-qdisc spec on ifindex (a sequence of
 * messages for mq and htb trees; "default" is one RTM_DELQDISC of the root).
 * seq numbers start at `seq` and increase by one per message, nlmsg_pid 0.
 * replace: NLM_F_CREATE|NLM_F_REPLACE on the root, else NLM_F_CREATE|NLM_F_EXCL;
 * every message asks NLM_F_ACK. Returns the total length, -EINVAL (bad spec,
 * message in err), -ENOSPC.
 */
int knob_qdisc_requests(const char *spec, int ifindex, unsigned ntxq, int replace, uint32_t seq,
			void *buf, size_t len, char *err, size_t errlen);
/* RTM_NEWLINK setting IFLA_TXQLEN, as `ip link set DEV txqueuelen N` sends it. */
int knob_txqueuelen_request(int ifindex, uint32_t txqueuelen, uint32_t seq, void *buf, size_t len);

/* Is this root qdisc (kind + its decoded options) what a distribution would leave
 * there on its own: pfifo_fast, noqueue, mq whose children are all default_kind
 * with default options, or default_kind itself with default options? */
struct qdisc;
int knob_root_is_default(const struct qdisc *root, const char *default_kind);

#endif
